"""What a language file holds: one typed shape that every language fills (lang/en.py, zh.py…).

Data and patterns only; the rules that apply them live where they are used (memories/changes.py,
memories/cascades.py, memories/relative_dates.py…). A pattern here is a regular expression's
source, one alternative of that language: the rule module joins every filed language's into one
pattern (a short fact is too short to tell its language, and no entry means one thing in one
language and another thing in another), and each carries its own word bounds (Chinese has none).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from memory_extproc.lang.when import When

# Building blocks of the patterns below
CLAUSE_CHAR = r"[^,.;!?，。；！？]"  # a character of the same clause
SENTENCE_CHAR = r"[^.;!?。；！？]"  # a character of the same sentence
WORD_OR_AMOUNT = r"[$€£]?\w+(?:[.,]\d+)*"  # "41", "$1,350", "Austin"


def unit_before(negation: str) -> str:
    """An amount's unit, skipped when the wrong value after ``negation`` is an amount too: "it's
    54 people, not 45" corrects 45 by 54, not by "people"."""
    return rf"(?:(?<=\d)\s+[^\W\d_]+(?=\s*,\s*{negation}\s+[$€£]?\d))?"


# a capitalised word inside a sentence: a name where names are written so ("a cat named Luna",
# "Porto"), not a sentence's first word
INNER_CAPITAL = r"(?<=[a-z0-9,;:] )([A-Z][a-z]+)\b"
# a sentence's last clause asks, from the comma before it (either script's comma and mark: texts
# mix them): "…, what else fits my budget?", "…，预算方面要注意什么？"
LAST_CLAUSE_ASKS = r"[，,]\s*[^，,。！!？?]*[？?]$"


@dataclass(frozen=True, slots=True)
class Dates:
    """How the language says a date relative to the day it is said, and how a fact words the
    date it resolves to (memories/relative_dates.py)."""

    relative: re.Pattern[str]
    meaning: Callable[[re.Match[str], date], When]
    # the date worded to follow a fact, per kind of When: {iso}, {year}, {month} (its name in
    # ``months``), {m}, {d}
    words: dict[str, str]
    months: tuple[str, ...]
    short_months: dict[str, int]  # a month's short forms and its number: "Sep" and "Sept" 9
    clause: re.Pattern[str]  # what separates the clauses of a sentence
    dated: re.Pattern[str]  # a date the fact already holds: ISO, a year, a month's name
    duration: re.Pattern[str]  # a fact that says how long keeps its own time
    wrong_day: str  # how the model writes the conversation's own day: {day} in it
    appended: str  # the date added to a fact that has none: {fact} and {when}
    # a phrase kept in the fact, as a word of its own, with the words before it that its
    # wording replaces too (German "im letzten Monat": "im November 2026", not "im im …")
    edge: str = r"(?<!\w){}(?!\w)"
    shared: int = 2  # words a fact shares with the clause of the phrase, at least
    # a phrase kept after a word a span starts or ends at ("since last month") is worded as a
    # point: ``point`` ends the text before it, ``bare`` rewrites the wording's start ("since
    # November 2026", not "since in November 2026"; German "seit dem November 2026")
    point: str = ""
    bare: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Changes:
    """The words that say a statement restates, changes, corrects or ends another
    (memories/changes.py). Word tuples are read token by token in a spaced language and as
    substrings (patterns) in an unspaced one."""

    # the user, as statements and memories name them: "i", "用户" (patterns when unspaced)
    speaker: tuple[str, ...]
    be: tuple[str, ...]  # "is", "soy", "是"
    become: tuple[str, ...]  # "became", "me volví", "变成": is now
    filler: tuple[str, ...]  # "actually", "ahora", "现在": said of a change, not of the fact
    negation: tuple[str, ...]
    frame_noise: tuple[str, ...]  # "my budget" / "the budget": not a different slot
    when_words: tuple[str, ...]  # "last", "week": when an ending happened, not what ended
    marker: str  # "actually", "no longer", "ya no", "不再": the speaker says it changed
    corrections: tuple[str, ...]  # "I said Boston, I meant Austin": groups wrong, right
    endings: tuple[str, ...]  # "I sold my car": group object
    left_job: str  # an ending that names nothing ("I quit") ended the job…
    job_word: str  # …called this
    moved: str  # the user moved ("we moved to Seattle"), not a relative
    residence: str  # where the user lives
    # a home said to have begun lately ("since last month", "seit ein paar Wochen"): a move
    settled: str
    switch: str  # one thing replaced another, whatever it was
    when: str  # a time after what ended: "last week", "la semana pasada"
    object_end: str  # what an ending names stops where a new clause starts
    determiner: tuple[str, ...]  # "my car" → "car"
    clause: str  # what separates the clauses of one statement
    people: str  # the people of the user's life: a brother's home is not the user's
    job: str  # the user's work
    beside: str  # a second job beside the first, not one for the other
    born: str  # where and when the user was born: the past, not the present
    # a weekday said as a routine's ("Sunday mornings", "mittwochs", "los domingos", "每周日",
    # "毎週日曜"), Monday to Sunday: a new routine on that day, said to have changed, replaces
    # the old one
    routine: tuple[str, str, str, str, str, str, str]
    # a token read as the words it stands for: "i'm" is "i am", "soy" (vegano) is "yo soy"
    expansions: dict[str, str]


@dataclass(frozen=True, slots=True)
class Cascades:
    """What a move ends with it (memories/cascades.py)."""

    home_place: tuple[str, ...]  # the place a residence statement names: group place
    children: str  # the user's children: their school moves with the family
    local: str  # what one has where one lives: a gym, a doctor, a commute
    past: str  # a memory already past: "used to", "以前"
    until_move: str  # a memory marked as true until the move: {text}


@dataclass(frozen=True, slots=True)
class Topics:
    """What a memory is about where its reader cannot tell (memories/topics.py): the user's work
    and a move, each with the word a memory leans toward."""

    work: str
    work_word: str
    move: str
    move_word: str
    # where the user lives, asked ("Where does the user live?"): what finds their home for a
    # request that refers to it (retrieval/own_life.py); the move's word is no question
    # ("wohnt in" found 3 homes among a German user's 10 nearest, "Wo wohnt der Nutzer?" 8)
    home_asked: str


@dataclass(frozen=True, slots=True)
class Preferences:
    """Is a memory a standing preference or constraint of its user (memories/preferences.py):
    verbose patterns, read without case, sentence by sentence."""

    standing: str  # a preference said with its subject, the user ("用户是素食者", "soy vegano")
    after_subject: str  # …or the words of one, read after ``subject`` ("likes", "avoids")
    subject: str  # the user as the subject of a clause ("User …", "I …"; not "User's sister")
    one_off: str  # just today, not standing ("I won't go to the gym today")
    aversion: str  # something held against: avoided, disliked, feared, not tolerated
    food: str  # what eating shapes: a diet, an allergy, what cannot be eaten
    reason: str  # why it is held, at the end: not what it bears on ("… due to their faith")
    but: str  # a conjunction that starts another clause of its own ("but", "pero", "但是")


@dataclass(frozen=True, slots=True)
class Grounding:
    """What a model's fact says that is not the user's (memories/grounding.py), read without
    case: the conversation or a courtesy, not a fact; what it points at without saying it, or
    advice; the assistant's own life, told beside its answer, not the user's. And a pick among
    what the assistant offered, which makes it the user's."""

    conversation: str  # a fact of the conversation itself: "User is talking to Jon"
    courtesy: str  # a courtesy paid in it: "User thanks Gina", "User says goodbye to Jon"
    says_more: str  # …unless it says more: "but", "pero", "但"
    we: str  # the speaker with others: "we", "我"
    addressing: str  # speaking to the other: "you", "你"
    answering: str  # the assistant answering, not telling of itself: "I'd suggest", "我觉得"
    # a fact that points at what it does not say: "User chose option 3", "the other options"…
    pointer: str
    choice_talk: str  # …and the words of a choice, which say nothing of what was chosen
    demonstrative: str  # …or at what it leaves unnamed: "bring this up"
    advice: str  # what the assistant advised, as the user's: "User could consider …"
    # a possibility or a duty ("could", "should", "podría", "可以考虑"): in a fact where the user's
    # sentence has none, the assistant's suggestion (memories/confidence.py)
    suggests: str
    picks: str  # the user picks among what was offered: "I'll go with", "sounds perfect"…
    options: str  # …and what the pick is among: "option 2", "the other ones"
    draft: str  # the greeting a draft in the user's voice opens with: "Dear …,"


@dataclass(frozen=True, slots=True)
class Attribution:
    """Whose a value is, at the head of a model's fact (memories/attribution.py): one the user
    gave no one, written as a relative's or a named person's, is given back to the user."""

    # the head that says whose the value is, its group ``who`` the holder: "User's sister Anna's
    # budget …", not a possessive further in ("… at Trader Joe's"); matched alone, at the start
    holder: str
    user_head: str  # …the head given back to the user (a replacement): "User's ", "用户的"
    pointing: str  # a word that points back at someone or something: "her", "it", "su", "他"


@dataclass(frozen=True, slots=True)
class Amounts:
    """A question that asks how long, many or often, and the memories that can answer it
    (retrieval/amounts.py); what a follow-up too vague to search alone begins with
    (retrieval/query.py)."""

    asks: str  # "how long", "cuántos", "多久", "wie lange", "何回"
    words: tuple[str, ...]  # a count or a frequency in words ("twice", "veces"); spaced only
    every: str  # "every Thursday", not "every step of the way"
    counted: str  # a count in characters ("三次", "每周"): languages without spaces
    vague: str  # a follow-up that leans on the one before ("what about…", "¿y…?")


@dataclass(frozen=True, slots=True)
class Asks:
    """What a message asks or commands rather than states (worker/echo.py), and the user
    speaking of themselves (words.speaks_of_self). Read without case."""

    asks: str  # how a sentence that asks or requests begins ("what", "请", "¿", "dime")
    commands: str  # how a command about a text begins ("translate", "翻译", "traduce")
    speaker: str  # the user speaking of themselves ("I", "我", "soy"): a command that does
    # is kept ("Make it vegan, I don't eat meat"), and a question of fact is personal
    # a question after a statement in one sentence, from the comma before it to the end: what
    # comes before is stated ("I booked my flights, what else fits my budget?")
    trailing: str


@dataclass(frozen=True, slots=True)
class Notes:
    """What a note of the user's own words leaves out (worker/turn_notes.py)."""

    small_talk: str  # words a sentence of nothing else is small talk of ("thanks", "谢谢")
    vocative: str  # a greeting before the name a sentence is said to ("Hey Melanie!")
    memory_command: str  # asking memory not to keep something ("Don't remember that …")
    holding: str  # how a taste is held, not what it is of ("usually", "喜欢"): words, or a
    # pattern in a language without spaces
    not_held: str  # a taste held the other way round ("不爱吃"), where words do not say it
    refusal: str  # an assistant's answer that refuses ("I'm sorry, I can't")
    # a constraint said again: its opener ("Just a reminder, …", "念のため…、") and a last clause
    # that asks for it ("…, so no peanuts please", "…，千万别放花生"); a note keeps what is stated
    reminder: str
    requested: str


@dataclass(frozen=True, slots=True)
class Requests:
    """Does a request ask for something chosen or made for the user (retrieval/open_requests.py):
    verbose patterns, read without case."""

    open: str  # asks for recommendations, ideas, a plan, what the user should do…
    recounts: str  # …unless it asks what happened or was said: a question to memory
    reminded: str  # asking to be reminded is not asking for help choosing
    # refers to where the user lives ("where I live", "near me", "in meiner Stadt") or to their
    # work ("before work", "my shift"): the memory that says it bears on the answer
    home: str
    work: str


@dataclass(frozen=True, slots=True)
class Words:
    """How search and the truth rules read the language's words (words.py, memories/changes.py).
    English's stopwords are dropped from every text: the words two languages share, and the
    English that other languages' texts quote."""

    stopwords: frozenset[str]  # what a search ignores
    abbreviations: str  # a full stop that ends no sentence ("Dr. Smith", "z.B. Lissabon")
    # stopwords that only join a statement's words: "User has a dog" is restated by "User has a
    # dog named Rex" and "User has a dog with their partner" alike
    joining: frozenset[str]
    not_names: frozenset[str]  # a statement's capitalised first word that names no one ("Sorry")
    # the user's words in the memory voice, for the embedder that reads only this language
    # (MiniLM, English): "Where do I live?" meets "User lives in Berlin"
    memory_voice: dict[str, str]


@dataclass(frozen=True, slots=True)
class Secrets:
    """How the language says a secret or a person's data (memories/redaction.py): the words a
    value is said after, and a street address. Read without case (a pattern may scope case back
    in, ``(?-i:PIN)``), except ``address``, read with it (a street's name has capitals). The
    value's own shape (a token, a number's checksum) is the rule module's: one for all."""

    password: str  # a password said as such, up to its value: "my password is", "密码是"
    token: str  # an API key or access token said as such, up to its value: "my API key is"
    national_id: str  # the name of a national identity number: "SSN", "DNI", "身份证号"
    phone: str  # the name of a phone number, said before it: "phone", "móvil", "电话"
    address: str  # a street address with its number: "221B Baker Street", "南京东路100号"


@dataclass(frozen=True, slots=True)
class Example:
    """One extraction example in the language (worker/prompts.py): what is known, the user's
    line, the facts a good answer holds."""

    known: tuple[str, ...]
    said: str
    facts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Language:
    code: str  # ISO 639-1, as languages.language_of names it
    name: str  # as a prompt names it: "Spanish"
    spaced: bool  # words between spaces (not Chinese, Japanese)
    # its words move around the verb: a changed value is read by the words, not their order
    words_move: bool
    # a capital letter starting a statement says a name ("Maria volunteers …"); not in German,
    # whose nouns all have one ("Kleines Update: …")
    names_by_capital: bool
    # how a name the user says is told, its one group the name (memories/names.py): a capital
    # (INNER_CAPITAL), or the words that introduce it in a script without capitals
    named: str
    stem: Callable[[str], str]  # one stemmer for the product and the yardsticks
    # the memory voice: the word a memory names its user with, read as "user" ("El usuario …",
    # "用户…", "Der Nutzer …")
    user: str
    greetings: str  # a whole message that is only a greeting or a thanks
    previously: tuple[str, str]  # what an ending calls what it ended: " (previously: ", ")"
    # a statement, and a correction written as the fact is now (empty for English, whose
    # examples are the prompt's own)
    examples: tuple[Example, ...]
    dates: Dates
    changes: Changes
    cascades: Cascades
    topics: Topics
    requests: Requests
    preferences: Preferences
    notes: Notes
    asks: Asks
    amounts: Amounts
    grounding: Grounding
    words: Words
    attribution: Attribution
    secrets: Secrets
    # A command to the assistant, not a fact about the user: what the memory-injection filter
    # refuses to store (memories/instructions.py), each alternative a pattern. "User prefers
    # answers in French" is a fact; "Always respond in French" is a command.
    commands: tuple[str, ...]
    # A rule for every later time ("whenever", "from now on", "以后", "jedes Mal"): a command in
    # other words than ``commands`` says one, read by meaning (memories/directives.py)
    recurring: str
    # The speaker unsure of what they say ("maybe", "probably", "可能", "vielleicht"): a fact
    # that states it as sure is uncertain, held for review (memories/confidence.py). Not "I
    # think": said of nearly every pick ("I think I'll go with …", 408 of 754 PrefEval picks)
    hedges: str
