"""The nine truth scenarios as data, and the verdict on what memory holds afterwards: pure.

Each scenario is a few sessions (each a new conversation) of one user, then a follow-up
question. What must hold afterwards, in every mode:
* ``current``: each value is held by exactly one active memory, and the follow-up gets it;
* ``old``: no active memory holds it as current, it lives on in a memory's history, and the
  follow-up never gets it as current;
* ``kept``: memories of earlier sessions holding these values are untouched by the last one;
* ``added``: each value is held by exactly one active memory (injection not required);
* ``unchanged``: the last session changes no memory at all.
``facts`` and ``ends`` are what a good extraction model answers (the scripted mode plays it).
The same in Chinese, Spanish, German and Japanese: cases_zh.py, cases_es.py, cases_de.py,
cases_ja.py; recall in Portuguese, a language with no rules of its own: cases_pt.py (catalog.py
gathers every language).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_extproc.words import numbers

# Where the stand-in chat LLM restates the memories it was given ("You told me: …"), as
# assistants do; it can only echo what was injected.
ECHO = "{memories}"
# How it restates one memory, in the scenarios' language
TOLD = "You told me: {}."


@dataclass(frozen=True)
class Turn:
    said: str
    answer: str
    facts: tuple[str, ...] = ()  # the scripted extraction model's answer
    ends: bool = False  # the scripted model judges these facts to end a related old one
    requests: tuple[str, ...] = ()  # the kinds of request its preferences bear on (scripted)


@dataclass(frozen=True)
class Scenario:
    number: int
    name: str
    sessions: tuple[tuple[Turn, ...], ...]
    question: str
    current: tuple[str, ...] = ()
    old: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    unchanged: bool = False
    # a request the memories bear on nothing of: none of ``current`` may be injected for it
    unrelated: str = ""


@dataclass(frozen=True)
class Held:
    """An active memory as the API shows it, with its earlier texts."""

    id: str
    content: str
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    before_last: list[Held]  # active memories before the last session
    after: list[Held]
    injected: list[str]  # what the follow-up question was given
    errors: list[str] = field(default_factory=list)  # what failed on the way (HTTP, timeouts)
    unrelated: list[str] = field(default_factory=list)  # what the unrelated request was given


HAWAII = Turn(
    "My budget for the Hawaii trip is $10,000.",
    "Great, a $10,000 budget gives you plenty of options in Hawaii.",
    ("User's budget for the Hawaii trip is $10,000",),
)
BUDGET_QUESTION = "What is my budget for the Hawaii trip?"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        1, "Hawaii budget updated in a later session",
        ((HAWAII,), (Turn("Actually, my budget for the Hawaii trip is now $15,000.",
                          f"{ECHO} Got it, $15,000 it is.",
                          ("User's budget for the Hawaii trip is now $15,000",)),)),
        BUDGET_QUESTION, current=("$15,000",), old=("$10,000",),
    ),
    Scenario(
        2, "preference changes: vegetarian to vegan",
        ((Turn("I'm vegetarian.", "Noted, I'll suggest vegetarian dishes.",
               ("User is vegetarian",)),),
         (Turn("I've gone fully vegan now.", "Great, I'll stick to vegan dishes from now on.",
               ("User is vegan",)),)),
        "Am I vegetarian or vegan?", current=("vegan",), old=("vegetarian",),
    ),
    Scenario(
        3, "a correction: Boston, I meant Austin",
        ((Turn("I live in Boston.", "Boston is a lovely city.", ("User lives in Boston",)),),
         (Turn("I said Boston, I meant Austin.", "Thanks for correcting me: Austin it is.",
               ("User lives in Austin",)),)),
        "Where do I live?", current=("Austin",), old=("Boston",),
    ),
    Scenario(
        4, "no longer true: sold the car",
        ((Turn("I drive a 2015 Honda Civic.", "Civics are reliable cars.",
               ("User drives a 2015 Honda Civic",)),),
         (Turn("I sold my car last week.", "Selling a car is a big step.",
               ("User sold their car",), ends=True),)),
        "What car do I drive?", current=("sold",), old=("Civic",),
    ),
    Scenario(
        5, "an unrelated new fact touches nothing else",
        ((HAWAII,), (Turn("I started learning the cello last month.",
                          "How exciting! The cello is a beautiful instrument.",
                          ("User started learning the cello in October 2026",)),)),
        "What instrument am I learning?", current=("cello",), kept=("$10,000",),
    ),
    Scenario(
        6, "the same fact restated in other words",
        ((HAWAII,), (Turn("Just so you know, I have $10,000 set aside for my Hawaii trip.",
                          "Thanks, that matches what I had.",
                          ("User has $10,000 set aside for the Hawaii trip",)),)),
        BUDGET_QUESTION, current=("$10,000",), kept=("$10,000",),
    ),
    Scenario(
        7, "a question about what is remembered stores nothing",
        ((HAWAII,), (Turn(BUDGET_QUESTION, ECHO),)),
        BUDGET_QUESTION, current=("$10,000",), kept=("$10,000",), unchanged=True,
    ),
    Scenario(
        8, "the answer restates injected memories: no echo stored",
        ((HAWAII,), (Turn("I'm starting to book flights for the Hawaii trip, what should I keep "
                          "in mind about my budget?",
                          f"Good idea to book early. {ECHO}",
                          ("User is booking flights for the Hawaii trip",)),)),
        BUDGET_QUESTION, current=("$10,000",), kept=("$10,000",), added=("flights",),
    ),
    Scenario(
        9, "two facts in one message, one an update",
        ((HAWAII,), (Turn("My sister Anna is coming with me, and the budget for the Hawaii "
                          "trip is now $12,000.",
                          "Lovely! With $12,000 you and Anna can stay a little longer.",
                          ("User's sister Anna is coming on the Hawaii trip",
                           "User's budget for the Hawaii trip is now $12,000")),)),
        BUDGET_QUESTION, current=("$12,000",), old=("$10,000",), added=("Anna",),
    ),
)  # fmt: skip

RENT = Turn(
    "I pay $1,200 a month for rent.",
    "That's a typical rent for the area.",
    ("User pays $1,200 a month for rent",),
)
RENT_QUESTION = "How much rent do I pay?"

# The same nine behaviours in other words and other domains: a check that the rules are about
# the behaviour, not about the nine sentences (`SCENARIO_SET=variants make scenarios`).
VARIANTS: tuple[Scenario, ...] = (
    Scenario(
        1, "rent goes up",
        ((RENT,), (Turn("My rent went up, it's $1,350 a month now.", f"{ECHO} Noted, $1,350.",
                        ("User pays $1,350 a month for rent",)),)),
        RENT_QUESTION, current=("$1,350",), old=("$1,200",),
    ),
    Scenario(
        2, "seat preference switches",
        ((Turn("I prefer window seats on flights.", "Window seats it is.",
               ("User prefers window seats on flights",)),),
         (Turn("These days I prefer aisle seats on flights.", "Aisle seats from now on.",
               ("User prefers aisle seats on flights",)),)),
        "Which seat do I prefer on flights?", current=("aisle",), old=("window",),
    ),
    Scenario(
        3, "a name corrected",
        ((Turn("My daughter's name is Emma.", "What a lovely name.",
               ("User's daughter is named Emma",)),),
         (Turn("Sorry, I said Emma, I meant Emily.", "Emily, got it.",
               ("User's daughter is named Emily",)),)),
        "What is my daughter's name?", current=("Emily",), old=("Emma",),
    ),
    Scenario(
        4, "a job ends",
        ((Turn("I work at Acme Corp as a designer.", "Design is a great field.",
               ("User works at Acme Corp as a designer",)),),
         (Turn("I quit my job at Acme Corp last month.", "Big change!",
               ("User quit their job at Acme Corp",), ends=True),)),
        "Where do I work?", current=("quit",), old=("designer",),
    ),
    Scenario(
        5, "a new favourite band, rent untouched",
        ((RENT,), (Turn("My favourite band is Radiohead.", "Great taste!",
                        ("User's favourite band is Radiohead",)),)),
        "What is my favourite band?", current=("Radiohead",), kept=("$1,200",),
    ),
    Scenario(
        6, "an allergy said again",
        ((Turn("I'm allergic to peanuts.", "I'll keep that in mind.",
               ("User is allergic to peanuts",)),),
         (Turn("Just a reminder, I'm allergic to peanuts, so no peanuts please.", "Of course.",
               ("User is allergic to peanuts",)),)),
        "What am I allergic to?", current=("peanuts",), kept=("peanuts",),
    ),
    Scenario(
        7, "asking about the rent stores nothing",
        ((RENT,), (Turn(RENT_QUESTION, ECHO),)),
        RENT_QUESTION, current=("$1,200",), kept=("$1,200",), unchanged=True,
    ),
    Scenario(
        8, "apartment hunting, the answer echoes the rent",
        ((RENT,), (Turn("I'm looking at new apartments, anything to keep in mind about my "
                        "rent?", f"Compare the total costs. {ECHO}",
                        ("User is looking at new apartments",)),)),
        RENT_QUESTION, current=("$1,200",), kept=("$1,200",), added=("apartments",),
    ),
    Scenario(
        9, "a new cat and a new rent in one message",
        ((RENT,), (Turn("I got a cat named Luna, and my rent is now $1,400 a month.",
                        "Congrats on Luna!",
                        ("User has a cat named Luna", "User pays $1,400 a month for rent")),)),
        RENT_QUESTION, current=("$1,400",), old=("$1,200",), added=("Luna",),
    ),
)  # fmt: skip

# What memory is for beyond answering questions about itself: a change said in other words
# ends what it changes, and a preference said once shapes the open requests it bears on
# (`SCENARIO_SET=personal make scenarios`).
PERSONAL: tuple[Scenario, ...] = (
    Scenario(
        1, "a career switch in other words",
        ((Turn("I work as a carpenter in Porto.", "Porto is a beautiful city to work in.",
               ("User works as a carpenter in Porto",)),),
         (Turn("I switched careers this spring: I'm a baker now.", "Congratulations!",
               ("User switched careers this spring and is a baker now",), ends=True),)),
        "What do I do for a living?", current=("baker",), old=("carpenter",),
    ),
    Scenario(
        2, "a diet shapes a dinner suggestion",
        ((Turn("Could you give me a lasagna recipe? Keep it meat-free, I'm vegetarian.",
               "Here is a spinach and ricotta lasagna.", ("User is vegetarian",),
               requests=("recipes", "meal plans", "restaurants", "dinner ideas")),),),
        "Suggest something I could cook for dinner tonight.", current=("vegetarian",),
        unrelated="What is the capital of Peru?",
    ),
    Scenario(
        3, "a fear of heights shapes a trip plan",
        ((Turn("I have a real fear of heights, so I avoid anything high up.",
               "That's good to know.", ("User has a fear of heights and avoids high places",),
               requests=("outdoor activities", "hiking trips", "travel plans", "climbing",
                         "sightseeing")),),
         (Turn("My sister Ana lives in Denver.", "Nice!",
               ("User's sister Ana lives in Denver",)),)),
        "What outdoor activities would you recommend for my weekend near Denver?",
        current=("heights",), kept=("heights",),
        unrelated="Can you recommend a good Python library for making charts?",  # open, far
    ),
    Scenario(
        4, "a value shapes a purchase it never named",
        ((Turn("I work as a pharmacist in Lyon. I am shopping for a new phone, and I usually "
               "prefer eco-friendly tech that is built with recyclable materials.",
               "Good luck with the search!",
               ("User works as a pharmacist in Lyon",
                "User prefers eco-friendly tech that is built with recyclable materials"),
               requests=("smartphones", "laptops", "gadgets", "smart home devices")),),),
        "What are the best wireless headphones you would suggest for me?",
        current=("eco-friendly",),
        unrelated="What is the capital of Peru?",
    ),
)  # fmt: skip

# Changes the product once hid or missed (issue 67): a move said in a later conversation, a
# number corrected right after a relative date was resolved ("next week" → "the week after
# 2026-12-06"), a job left for another ("quit … now …"). Ages are 40 and 41: no day or month
# of a resolved date can be mistaken for them (`SCENARIO_SET=changes`).
CHANGES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move in a later conversation",
        ((Turn("I've lived in Denver for five years.", "Denver is a great place to live.",
               ("User has lived in Denver for five years",)),),
         (Turn("Big news: we moved to Seattle last month.", "Congratulations on the move!",
               ("User moved to Seattle last month",), ends=True),)),
        "Where do I live?", current=("Seattle",), old=("Denver",),
    ),
    Scenario(
        2, "a number corrected after a relative date",
        ((Turn("My husband Mark turns 40 next week, any party ideas?",
               "A surprise dinner with his friends is a classic.",
               ("User's husband Mark turns 40 next week",)),
          Turn("Oops, my mistake: Mark is turning 41, not 40.", "Got it, 41 it is.",
               ("User's husband Mark is turning 41",))),),
        "How old is Mark turning?", current=("41",), old=("40",),
    ),
    Scenario(
        3, "a job left for another",
        ((Turn("I work as a nurse at a hospital.", "Nursing is demanding work.",
               ("User works as a nurse at a hospital",)),),
         (Turn("I quit last month, and now I teach at a primary school.",
               "What a change, congratulations!",
               ("User quit their hospital job last month and now teaches at a primary school",),
               ends=True),)),
        "What do I do for work?", current=("primary school",), old=("nurse",),
    ),
)  # fmt: skip

# What a move takes with it (issue 67): the user's local life in the city they left ends with
# the move, as "Until moving to …"; a relative's home, a birthplace, a team stay
# (`SCENARIO_SET=cascades`).
CASCADES: tuple[Scenario, ...] = (
    Scenario(
        1, "a move ends the gym in the old city, not a brother's home",
        ((Turn("I live in Denver, and I go to a climbing gym in Denver twice a week.",
               "Climbing is a great way to stay fit.",
               ("User lives in Denver", "User goes to a climbing gym in Denver twice a week")),
          Turn("My brother Tom lives in Denver too.", "Nice to have family close by.",
               ("User's brother Tom lives in Denver",))),
         (Turn("We moved to Seattle last month!", "Congratulations on the move!",
               ("User moved to Seattle last month",), ends=True),)),
        "Where do I live?", current=("Seattle",), old=("climbing gym",), kept=("Tom",),
    ),
    Scenario(
        2, "a move ends the family doctor there, not the birthplace",
        ((Turn("I've lived in Austin for years, and my family doctor is Dr. Patel in Austin.",
               "Good to have a doctor you trust.",
               ("User has lived in Austin for years",
                "User's family doctor is Dr. Patel in Austin")),
          Turn("I was born in Austin, actually.", "A true local!",
               ("User was born in Austin",))),
         (Turn("I relocated to Chicago two weeks ago.", "Chicago is a big change!",
               ("User relocated to Chicago two weeks ago",), ends=True),)),
        "Where do I live?", current=("Chicago",), old=("Dr. Patel",), kept=("born",),
    ),
    Scenario(
        3, "a move ends the commute there",
        ((Turn("I live in Boston and I take the subway to work in Boston every day.",
               "The T can be crowded at rush hour.",
               ("User lives in Boston", "User takes the subway to work in Boston every day")),),
         (Turn("I moved to Denver last week.", "Welcome to Denver!",
               ("User moved to Denver last week",), ends=True),)),
        "Where do I live?", current=("Denver",), old=("subway",),
    ),
    Scenario(
        4, "a move leaves a favourite team alone",
        ((Turn("I live in Denver and I'm a huge Broncos fan.", "Go Broncos!",
               ("User lives in Denver", "User is a huge Broncos fan")),),
         (Turn("We moved to Seattle last month.", "Congratulations on the move!",
               ("User moved to Seattle last month",), ends=True),)),
        "Where do I live?", current=("Seattle",), kept=("Broncos",),
    ),
)  # fmt: skip

# Words that say a value is no longer current ("no longer", "sold", "used to"), by language.
_QUALIFIED = re.compile(
    r"\b(no longer|not|n't|sold|quit|left|former|formerly|used to|previously|until|from|instead of"
    r"|anymore|was|changed|meant|kicked|gave up)\b",
    re.IGNORECASE,
)
# Chinese has no spaces: substrings. "不…了" is "no longer" ("不住在波士顿了"), "从…到" a change
# ("从10000美元涨到15000美元"); a lone "不" or "从" would take "不错", "从事".
_QUALIFIED_ZH = re.compile(
    r"不再|不是|并非|已不|已经不|没有|没再|不[^\uff0c\u3002\uff1b,.;]{0,8}了"
    r"|从[^\uff0c\u3002\uff1b,.;]{0,20}(?:到|改|变|换)"
    r"|卖|出售|售出|辞职|离职|辞去|辞掉|离开|退出|以前|之前|先前|此前|从前|过去|曾|原来|原先|原本|本来"
    r"|前任|而不是|而非|取代|代替|改成|改为|改吃|改用|改变|换成|换了|变成|变为|口误|说错|更正|纠正"
)
_QUALIFIED_ES = re.compile(
    r"\b(ya no|nunca|vendió|vendido|vendida|dejó|dejado|renunció|renunciado|se fue|se mudó"
    r"|salió de|antes|anteriormente|previamente|antiguo|antigua|solía|solían|en lugar de|en vez de"
    r"|cambió|cambiado|pasó de|subió de|bajó de|fue|estaba|vivía|trabajaba|tenía|pagaba|prefería"
    r"|manejaba|conducía|quiso decir|se refería|hasta la mudanza)\b",
    re.IGNORECASE,
)
# Spanish words that are English words too ("no", "era"): read only in a text that speaks of
# "el usuario", so that English facts are judged exactly as before ("no" is not "not" there)
_QUALIFIED_ES_ONLY = re.compile(r"\b(no|era|eran|ex)\b", re.IGNORECASE)
_SPANISH = re.compile(r"\busuari[oa]s?\b|[ñ¿¡]", re.IGNORECASE)
# German: "nicht mehr", "kein Auto mehr", "verkauft", "früher", "wohnte"; "von Köln nach Hamburg",
# "von 850 auf 920 Euro" (a change: two words at most between, or "ein Budget von 8.000 Euro für
# die Reise nach Hawaii" would be one). The product writes what a move ended as "Bis zum Umzug: …"
_QUALIFIED_DE = re.compile(
    r"\b(nicht|nicht mehr|kein(?:e|en|em|er|es)?\b[^,.;:]{0,30}\bmehr|verkauft|verkaufte|verkaufen"
    r"|früher|ehemals|ehemalig\w*|vormals|damals|vorher|zuvor|einst|bisherig\w*|stattdessen|statt"
    r"|anstatt|anstelle|gekündigt|kündigte|aufgehört|aufgegeben|verlassen|verließ|umgezogen"
    r"|weggezogen|zog\b[^,.;:]{0,30}\bum|gewechselt|umgestiegen|geändert|korrigiert|meinte|gemeint"
    r"|vertippt|vertan|Tippfehler|wohnte|lebte|arbeitete|fuhr|zahlte|bezahlte|bevorzugte|mochte"
    r"|hatte|hatten|ging|bis zum Umzug|vor dem Umzug)\b",
    re.IGNORECASE,
)
# German words that are English words too ("war", "bis", "ex", "von"): read only in a text that
# is German (it speaks of "der Nutzer", or spells "ä", "ö", "ß"), as Spanish's "no" is
_QUALIFIED_DE_ONLY = re.compile(
    r"\b(?:war|waren|bis|ex|von\s+\S+(?:\s+\S+)?\s+(?:auf|nach|zu))\b", re.IGNORECASE
)
_GERMAN = re.compile(r"\b(?:be)?nutzer(?:in|innen|s|n)?\b|[äöß]", re.IGNORECASE)
# Japanese, read only where there is kana (Chinese has none): "元" is Chinese for yuan ("4500元"),
# Japanese for "former" ("元の職場"; not "地元", hometown, "身元", "元気"). "もう…ない" is "no
# longer" ("もう住んでいない"), "…から…に" a change ("福岡から大阪に引っ越した"), "ていた" "used
# to" ("住んでいた"); a lone "前" ("5年前から", "名前は") or "まで" ("駅まで") says nothing of the
# kind. The product writes what a move ended as "引っ越す前：…"
_QUALIFIED_JA = re.compile(
    r"もう[^。、，,]{0,12}(?:ない|ません|なく)|もはや|以前|(?<![名午])前は|前職"
    r"|元々|もともと|かつて|昔|当時|当初"
    r"|(?<![地手足身次根紀単還復])元(?![気旦日素])"
    r"|売っ|売却|売りました|売れ|手放|辞め|やめ|退職|退社|離職|転職|離れ"
    r"|引っ越す前|引越す前|引っ越し前|引越し前|引っ越すまで|までは"
    r"|から[^。、，,]{0,20}(?:に|へ)(?:引っ越|引越|移|変わ|変え|変更|上が|下が|増|減|切り替)"
    r"|ではなく|じゃなく|ではない|じゃない|の代わりに|代わりに"
    r"|だった|でした|[てで]いた(?!だ)|[てで]いました"
    r"|変更|変えた|切り替え|訂正|間違え|の間違い|言い間違|書き間違|打ち間違|変換ミス|誤り|正しくは"
)
_JAPANESE = re.compile("[\u3040-\u30ff]")
# Amounts as German and Japanese write them, and as a model may write them back: "8.000 Euro" is
# 8000 in a German text (as "8000 Euro" is), "8万5千円" 85000 in a Japanese one (not 8 and 5)
_DOTTED = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?![\d.,])")
_MAN = re.compile(r"(\d[\d,]*(?:\.\d+)?)万(?:(\d)千|(\d{1,4})(?![\d,]))?|(\d[\d,]*)千")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_HAS_CJK = re.compile(f"[{_CJK}]")
# A letter or digit of a spaced script: what may not touch a word-like value. Not \b: between
# two CJK characters there is none ("用户是素食者"), and a CJK character next to a Latin value is
# a word character too ("乐队是Radiohead").
_SPACED = f"[^\\W{_CJK}]"


def holds(text: str, value: str) -> bool:
    """Does ``text`` state ``value`` ("$10,000" matches "10000" and "$10,000")? A CJK value
    is found anywhere (its words are not spaced), any other as a whole word (accents are
    letters: "Ana" is not in "Anaís"). "vendió|vendí": either (a note keeps the user's own
    person of the verb, a fact the third). In a German or Japanese text, amounts are read as
    they are written there ("8.000 Euro", "8万5千円")."""
    if "|" in value:
        return any(holds(text, alternative) for alternative in value.split("|"))
    wanted = _amounts(value, text)
    if wanted:
        return wanted <= _amounts(text, text)
    if _HAS_CJK.search(value):
        return value.casefold() in text.casefold()
    found = re.search(rf"(?<!{_SPACED}){re.escape(value)}(?!{_SPACED})", text, re.IGNORECASE)
    return found is not None


def as_current(text: str, value: str) -> bool:
    """``text`` holds ``value`` as true now, not as what it was ("no longer vegetarian",
    "不再吃素", "ya no vive en Boston", "wohnt nicht mehr in Köln", "もう福岡には住んでいない")."""
    return holds(text, value) and not _qualified(text)


def _amounts(text: str, language: str) -> set[str]:
    """The numbers of ``text`` as digits, read as ``language``'s text writes them: German
    thousands have dots, Japanese amounts 万 and 千; any other text as ``numbers`` reads it."""
    if _GERMAN.search(language):
        text = _DOTTED.sub(lambda found: found[0].replace(".", ""), text)
    if _JAPANESE.search(language):
        text = _MAN.sub(_yen, text)
    return numbers(text)


def _yen(found: re.Match[str]) -> str:
    if found[4] is not None:  # "5千"
        return str(int(found[4].replace(",", "")) * 1000)
    rest = int(found[2]) * 1000 if found[2] else int(found[3] or 0)
    return str(round(float(found[1].replace(",", "")) * 10000) + rest)


def _qualified(text: str) -> bool:
    return bool(
        _QUALIFIED.search(text)
        or _QUALIFIED_ZH.search(text)
        or _QUALIFIED_ES.search(text)
        or (_SPANISH.search(text) and _QUALIFIED_ES_ONLY.search(text))
        or _QUALIFIED_DE.search(text)
        or (_GERMAN.search(text) and _QUALIFIED_DE_ONLY.search(text))
        or (_JAPANESE.search(text) and _QUALIFIED_JA.search(text))
    )


def verdict(scenario: Scenario, outcome: Outcome) -> tuple[bool, str]:
    """Pass, or fail with the first reason."""
    problems = outcome.errors or _problems(scenario, outcome)
    return (not problems, problems[0] if problems else "")


def _problems(scenario: Scenario, outcome: Outcome) -> list[str]:
    after, injected = outcome.after, outcome.injected
    problems: list[str] = []
    for value in (*scenario.current, *scenario.added):
        holders = [m for m in after if holds(m.content, value)]
        if len(holders) != 1:  # none: what is held instead says why
            problems.append(
                f"{value!r} held by {len(holders)} memories: {_quote(holders)}"
                + ("" if holders else f" (active: {_quote(after)})")
            )
    for value in scenario.current:
        if not any(holds(line, value) for line in injected):
            problems.append(f"{value!r} not injected: {injected}")
    for value in scenario.old:
        stale = [m for m in after if as_current(m.content, value)]
        if stale:
            problems.append(f"old {value!r} still current in {_quote(stale)}")
        if not any(holds(h, value) for m in after for h in m.history):
            problems.append(f"old {value!r} not in any memory's history (active: {_quote(after)})")
        if any(as_current(line, value) for line in injected):
            problems.append(f"old {value!r} injected as current: {injected}")
    for value in scenario.kept:  # unchanged, or said again as current (a note split by a move)
        before = [m for m in outcome.before_last if holds(m.content, value)]
        changed = before and not all(m in after for m in before)
        if changed and not any(as_current(m.content, value) for m in after if m not in before):
            problems.append(f"memory holding {value!r} was changed: {_quote(before)}")
    for value in scenario.current:
        if any(holds(line, value) for line in outcome.unrelated):
            problems.append(f"{value!r} injected for {scenario.unrelated!r}: {outcome.unrelated}")
    if scenario.unchanged and sorted(after, key=_key) != sorted(outcome.before_last, key=_key):
        problems.append(f"memories changed: {_quote(outcome.before_last)} → {_quote(after)}")
    return problems


def _key(memory: Held) -> str:
    return memory.id


def _quote(memories: Sequence[Held]) -> str:
    return "; ".join(repr(m.content[:90]) for m in memories) or "none"
