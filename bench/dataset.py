"""Synthetic but natural memories and the questions that should find them."""

from __future__ import annotations

import itertools
import random
import re

RELATIONS = [
    "sister",
    "brother",
    "mother",
    "father",
    "wife",
    "husband",
    "son",
    "daughter",
    "best friend",
    "manager",
    "neighbour",
    "cousin",
    "aunt",
    "uncle",
    "grandmother",
]
NAMES = [
    "Anna",
    "Ben",
    "Chloe",
    "Daniel",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kai",
    "Lena",
    "Marco",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
]
CITIES = [
    "Lisbon",
    "Tokyo",
    "Nairobi",
    "Lima",
    "Oslo",
    "Seoul",
    "Denver",
    "Hanoi",
    "Cairo",
    "Dublin",
    "Quito",
    "Perth",
    "Riga",
    "Porto",
    "Austin",
    "Kyoto",
    "Accra",
    "Bergen",
]
THINGS = [
    ("colour", ["green", "teal", "crimson", "amber"]),
    ("cuisine", ["Thai", "Ethiopian", "Peruvian", "Georgian"]),
    ("band", ["Radiohead", "ABBA", "Queen", "Daft Punk"]),
    ("sport", ["climbing", "rowing", "fencing", "padel"]),
    ("book", ["Dune", "Emma", "Beloved", "Solaris"]),
]
SERVICES = [
    "payment-service",
    "search-api",
    "billing-worker",
    "auth-gateway",
    "report-cron",
    "image-resizer",
    "email-relay",
    "ledger-sync",
]
TOOLS = ["helm", "terraform", "ansible", "kubectl apply", "a blue-green script", "ArgoCD"]
FOODS = ["peanuts", "shellfish", "gluten", "sesame", "kiwi", "lactose", "soy", "eggs"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# Each user's copy of a fact is said in its own words, as a real user's memories are their own:
# no per-text cache of the processor (a memory's words, its dates) answers for work it would do
# on a deployment's many distinct memories. 100 ways; a fact has 74 owners at most here.
OPENERS = [
    "",
    "Just so you know, ",
    "FYI, ",
    "For the record, ",
    "Note that ",
    "Good to know: ",
    "By the way, ",
    "As I mentioned, ",
    "Remember that ",
    "Also, ",
]
CLOSERS = [
    "",
    " these days",
    " for now",
    ", as far as I know",
    " (still true)",
    ", I think",
    " at the moment",
    ", last I checked",
    " as of this year",
    ", for what it's worth",
]


def said(fact: str, way: int) -> str:
    """The ``way``-th wording of ``fact`` (0: as it is)."""
    if way >= len(OPENERS) * len(CLOSERS):
        raise ValueError(f"only {len(OPENERS) * len(CLOSERS)} ways to say a fact")
    opener, closer = OPENERS[way % len(OPENERS)], CLOSERS[way // len(OPENERS)]
    if opener and fact.startswith("My "):
        fact = "my " + fact[3:]
    return f"{opener}{fact}{closer}"


# Requests for something chosen or made for the user: the user's preferences near them (favourite
# cuisine, band, sport, book or colour; allergies) are given to them (bench "personalised")
OPEN_REQUESTS = [
    "can you suggest somewhere to eat tonight?",
    "what should I cook for dinner this weekend?",
    "recommend a book for my holiday.",
    "what music would you recommend for a long drive?",
    "suggest a sport I could try this summer.",
    "help me pick a colour for my new bike.",
    "any ideas for a snack to bring to the office?",
    "what are some good restaurants for a birthday dinner?",
]

PREFIXES = [
    "",
    "Quick question: ",
    "Remind me, ",
    "Hey, ",
    "Can you tell me ",
    "Sorry, ",
    "I forgot: ",
    "Help me remember: ",
    "One thing: ",
    "Do you know ",
]
SUFFIXES = ["", " Thanks!", " Please.", " I need it today.", " Just checking."]  # fmt: skip


def facts_and_questions() -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for rel, name in itertools.product(RELATIONS, NAMES):
        pairs.append((f"My {rel}'s name is {name}", f"what is my {rel}'s name?"))
    for rel, city in itertools.product(RELATIONS, CITIES):
        pairs.append((f"My {rel} lives in {city}", f"where does my {rel} live?"))
    for city, amount in itertools.product(CITIES, range(1000, 21000, 500)):
        pairs.append(
            (
                f"My budget for the {city} trip is ${amount:,}",
                f"what's my budget for the {city} trip?",
            )
        )
    for (thing, values), rel in itertools.product(THINGS, ["", *RELATIONS]):
        owner = f"my {rel}'s" if rel else "my"
        for value in values:
            pairs.append((f"{owner.capitalize()} favourite {thing} is {value}",
                          f"what is {owner} favourite {thing}?"))  # fmt: skip
    for service, tool in itertools.product(SERVICES, TOOLS):
        pairs.append((f"I deploy {service} with {tool}", f"how do I deploy {service}?"))
    for city, day in itertools.product(CITIES, DAYS):
        pairs.append(
            (f"My flight to {city} leaves on {day}", f"when does my flight to {city} leave?")
        )
    for food, rel in itertools.product(FOODS, ["I am", *(f"My {r} is" for r in RELATIONS)]):
        who = "am I" if rel == "I am" else f"is my {rel[3:-3]}"
        pairs.append((f"{rel} allergic to {food}", f"what food {who} allergic to?"))
    return pairs


# The same questions in Chinese, Spanish and German (bench "retrieval_zh", "_es", "_de"): a
# question in another language than English is read by multilingual-e5 and centred on its
# language (embedding/spaces.py); the memories stay English, so it also crosses languages. Names,
# cities and things stay as written.
_ZH = "姐姐 哥哥 妈妈 爸爸 妻子 丈夫 儿子 女儿 最好的朋友 经理 邻居 表哥 阿姨 叔叔 奶奶"
RELATIONS_ZH = dict(zip(RELATIONS, _ZH.split(), strict=True))
_IN_CHINESE = (
    (re.compile(r"what is my (.+)'s name\?"), lambda m: f"我的{RELATIONS_ZH[m[1]]}叫什么名字？"),
    (re.compile(r"where does my (.+) live\?"), lambda m: f"我的{RELATIONS_ZH[m[1]]}住在哪里？"),
    (re.compile(r"what's my budget for the (.+) trip\?"),
     lambda m: f"我去{m[1]}旅行的预算是多少？"),
    (re.compile(r"what is my favourite (.+)\?"), lambda m: f"我最喜欢的{m[1]}是什么？"),
    (re.compile(r"what is my (.+)'s favourite (.+)\?"),
     lambda m: f"我{RELATIONS_ZH[m[1]]}最喜欢的{m[2]}是什么？"),
    (re.compile(r"how do I deploy (.+)\?"), lambda m: f"我是怎么部署{m[1]}的？"),
    (re.compile(r"when does my flight to (.+) leave\?"), lambda m: f"我飞{m[1]}的航班哪天起飞？"),
    (re.compile(r"what food am I allergic to\?"), lambda m: "我对什么食物过敏？"),
    (re.compile(r"what food is my (.+) allergic to\?"),
     lambda m: f"我的{RELATIONS_ZH[m[1]]}对什么食物过敏？"),
)  # fmt: skip
PREFIXES_ZH = ["", "问一下，", "提醒我一下，", "嘿，", "你知道", "不好意思，", "我忘了：",
               "帮我回忆一下："]  # fmt: skip
SUFFIXES_ZH = ["", "谢谢！", "麻烦了。", "今天就要用。", "确认一下。"]


# Spanish (a language with rules of its own) and German (one without): read by e5 too
_ES = ("hermana hermano madre padre esposa marido hijo hija mejor_amigo jefe vecino primo tía tío "
       "abuela")  # fmt: skip
RELATIONS_ES = {r: w.replace("_", " ") for r, w in zip(RELATIONS, _ES.split(), strict=True)}
THINGS_ES = {"colour": "el color favorito", "cuisine": "la cocina favorita",
             "band": "el grupo favorito", "sport": "el deporte favorito",
             "book": "el libro favorito"}  # fmt: skip
_IN_SPANISH = (
    (re.compile(r"what is my (.+)'s name\?"), lambda m: f"¿Cómo se llama mi {RELATIONS_ES[m[1]]}?"),
    (re.compile(r"where does my (.+) live\?"), lambda m: f"¿Dónde vive mi {RELATIONS_ES[m[1]]}?"),
    (re.compile(r"what's my budget for the (.+) trip\?"),
     lambda m: f"¿Cuál es mi presupuesto para el viaje a {m[1]}?"),
    (re.compile(r"what is my favourite (.+)\?"),
     lambda m: f"¿Cuál es mi {THINGS_ES[m[1]].split(' ', 1)[1]}?"),
    (re.compile(r"what is my (.+)'s favourite (.+)\?"),
     lambda m: f"¿Cuál es {THINGS_ES[m[2]]} de mi {RELATIONS_ES[m[1]]}?"),
    (re.compile(r"how do I deploy (.+)\?"),
     lambda m: f"¿Con qué herramienta despliego el servicio {m[1]}?"),
    (re.compile(r"when does my flight to (.+) leave\?"),
     lambda m: f"¿Qué día sale mi vuelo a {m[1]}?"),
    (re.compile(r"what food am I allergic to\?"), lambda m: "¿A qué alimento tengo alergia?"),
    (re.compile(r"what food is my (.+) allergic to\?"),
     lambda m: f"¿A qué alimento tiene alergia mi {RELATIONS_ES[m[1]]}?"),
)  # fmt: skip
PREFIXES_ES = ["", "Una pregunta: ", "Recuérdame: ", "Oye, ", "Perdona, ", "Se me olvidó: ",
               "Ayúdame a recordar: "]  # fmt: skip
SUFFIXES_ES = ["", " ¡Gracias!", " Por favor.", " Lo necesito hoy.", " Solo para confirmar."]

# (nominative, dative) with "my", as German inflects it
_DE = {"sister": ("meine Schwester", "meiner Schwester"),
       "brother": ("mein Bruder", "meinem Bruder"),
       "mother": ("meine Mutter", "meiner Mutter"), "father": ("mein Vater", "meinem Vater"),
       "wife": ("meine Frau", "meiner Frau"), "husband": ("mein Mann", "meinem Mann"),
       "son": ("mein Sohn", "meinem Sohn"), "daughter": ("meine Tochter", "meiner Tochter"),
       "best friend": ("mein bester Freund", "meinem besten Freund"),
       "manager": ("mein Chef", "meinem Chef"), "neighbour": ("mein Nachbar", "meinem Nachbarn"),
       "cousin": ("mein Cousin", "meinem Cousin"), "aunt": ("meine Tante", "meiner Tante"),
       "uncle": ("mein Onkel", "meinem Onkel"),
       "grandmother": ("meine Großmutter", "meiner Großmutter")}  # fmt: skip
# (the, my) favourite thing
THINGS_DE = {"colour": ("die Lieblingsfarbe", "meine Lieblingsfarbe"),
             "cuisine": ("die Lieblingsküche", "meine Lieblingsküche"),
             "band": ("die Lieblingsband", "meine Lieblingsband"),
             "sport": ("die Lieblingssportart", "meine Lieblingssportart"),
             "book": ("das Lieblingsbuch", "mein Lieblingsbuch")}  # fmt: skip
_IN_GERMAN = (
    (re.compile(r"what is my (.+)'s name\?"), lambda m: f"Wie heißt {_DE[m[1]][0]}?"),
    (re.compile(r"where does my (.+) live\?"), lambda m: f"Wo wohnt {_DE[m[1]][0]}?"),
    (re.compile(r"what's my budget for the (.+) trip\?"),
     lambda m: f"Wie hoch ist mein Budget für die Reise nach {m[1]}?"),
    (re.compile(r"what is my favourite (.+)\?"),
     lambda m: f"Was ist {THINGS_DE[m[1]][1]}?"),
    (re.compile(r"what is my (.+)'s favourite (.+)\?"),
     lambda m: f"Was ist {THINGS_DE[m[2]][0]} von {_DE[m[1]][1]}?"),
    (re.compile(r"how do I deploy (.+)\?"), lambda m: f"Womit deploye ich den Dienst {m[1]}?"),
    (re.compile(r"when does my flight to (.+) leave\?"),
     lambda m: f"An welchem Tag geht mein Flug nach {m[1]}?"),
    (re.compile(r"what food am I allergic to\?"),
     lambda m: "Gegen welches Lebensmittel bin ich allergisch?"),
    (re.compile(r"what food is my (.+) allergic to\?"),
     lambda m: f"Gegen welches Lebensmittel ist {_DE[m[1]][0]} allergisch?"),
)  # fmt: skip
PREFIXES_DE = ["", "Kurze Frage: ", "Erinner mich: ", "Hey, ", "Entschuldigung, ",
               "Ich habe vergessen: ", "Hilf mir bitte: "]  # fmt: skip
SUFFIXES_DE = ["", " Danke!", " Bitte.", " Ich brauche es heute.", " Nur zur Sicherheit."]

# language → (the question written in it, prefixes, suffixes)
_LANGUAGES = {
    "zh": (_IN_CHINESE, PREFIXES_ZH, SUFFIXES_ZH),
    "es": (_IN_SPANISH, PREFIXES_ES, SUFFIXES_ES),
    "de": (_IN_GERMAN, PREFIXES_DE, SUFFIXES_DE),
}
LANGUAGES = ("en", *_LANGUAGES)


def in_language(question: str, language: str) -> str:
    """A question of ``facts_and_questions`` as a speaker of ``language`` asks it."""
    if language == "en":
        return question
    for pattern, written in _LANGUAGES[language][0]:
        if found := pattern.fullmatch(question):
            return written(found)
    raise ValueError(f"no {language} for {question!r}")


class Questions:
    """Unique phrasings, so the processor's query cache never answers for the model."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._seen: set[str] = set()

    def ask(self, question: str, *, language: str = "en") -> str:
        prefixes, suffixes = (PREFIXES, SUFFIXES) if language == "en" else _LANGUAGES[language][1:]
        question = in_language(question, language)
        for _ in range(100):
            prefix, suffix = self._rng.choice(prefixes), self._rng.choice(suffixes)
            text = f"{prefix}{question}{suffix}"
            if language == "en":
                text = text[0].upper() + text[1:]
            if text not in self._seen:
                self._seen.add(text)
                return text
        text = f"{question} ({len(self._seen)})"
        self._seen.add(text)
        return text
