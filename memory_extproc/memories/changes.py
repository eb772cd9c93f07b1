"""Does a new statement restate, change, correct or end an old one? Text-only rules, pure.

Embeddings cannot tell an update from a contradiction: MiniLM scores "My budget for the Hawaii
trip is $10,000" against "Actually my budget for the Hawaii trip is now $15,000" at 0.88 and
"I live in Boston" against "I said Boston, I meant Austin" at 0.47. These rules read the words:

* RESTATED: the same fact in other words (same numbers, same negation, the new one's words
  mostly the old one's): nothing new to store.
* CHANGED: the same frame with one slot replaced ("budget … $10,000" → "… $15,000"). A number in
  the slot is a value of that one thing; a word needs the speaker to say it changed ("now",
  "actually", "switched", "anymore" …), because "I like pizza" / "I like sushi" can both be true.
  Said to have changed, one amount replacing another about the same things in other words is
  one too ("My rent went up, it's $1,350 a month now" / "I pay $1,200 a month for rent").
* CORRECTED: "I said Boston, I meant Austin" corrects an old statement that holds "Boston".
* ENDED: "I sold my car" / "I quit my job at Google" ends an old statement sharing its object's
  words (when the words differ, "my car" / "2015 Civic", a caller may ask the embedder or a model).

The writer applies them to new facts, notes and API adds (the newer statement supersedes, the
old one stays as history); injection applies them to the memories it is about to show, so two
that still conflict never both reach the LLM as current.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from memory_extproc import words
from memory_extproc.lang import FILED, filed
from memory_extproc.languages import latin_language
from memory_extproc.memories import change_words as vocabulary
from memory_extproc.memories.relative_dates import without_resolved_dates
from memory_extproc.words import (
    CJK,
    STOPWORDS,
    any_function_words,
    function_char,
    function_words,
    sentences,
    stem,
)


class Change(StrEnum):
    RESTATED = "restated"
    CHANGED = "changed"
    CORRECTED = "corrected"
    ENDED = "ended"


_TOKEN = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?|[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
# a month's name is when something happened ("May"), in any filed language
_MONTHS = frozenset(
    month.lower() for lang in FILED for month in (*lang.dates.months, *lang.dates.short_months)
)
_NOT_NAMES = (
    STOPWORDS
    | vocabulary.SELF
    | vocabulary.FILLER
    | {word for lang in FILED for word in lang.words.not_names}
)
# Stopwords that only join a statement's words (lang/shape.py, Words), and the speaker and "is"
# as read
_GRAMMAR = {word for lang in FILED for word in lang.words.joining} | {"self", "be"}
_THICK = 3  # content words that say enough alone, whatever the verb between them
_QUALIFIER = 3  # tokens a changed value may gain or lose beside its slot ("on flights")…
_VALUE = 2  # …when the slot is a value this short ("window" → "aisle", "窗" → "过道")
_SLOT_TOKENS = 4  # a replaced slot longer than this is a different statement, not a new value


@dataclass(frozen=True, slots=True)
class _Read:
    """A statement as the rules read it. What depends on its language (its content words, the
    person it names) is told when a rule first needs it: at injection most pairs are decided
    before, and telling a language costs more than the rest of a reading (langid, ~50 us)."""

    text: str
    tokens: tuple[str, ...]  # normalized, fillers dropped: what alignment compares
    numbers: frozenset[str]
    negated: bool
    vocabulary: frozenset[str]  # the tokens as a set
    people: frozenset[str]  # the people of the user's it names ("brother", "妹妹")

    @property
    def language(self) -> str:
        """As langid tells it among Latin-script languages (languages.latin_language)."""
        return _language(self.text)

    @property
    def content(self) -> frozenset[str]:
        """Stemmed content words, numbers included."""
        return _content(self.text)

    @property
    def named(self) -> str:
        """The person a third-person statement is about ("Maria …"), else ""."""
        return _named(self.text)


def _is_number(token: str) -> bool:
    return token[:1].isdigit()


def _is_date(token: str) -> bool:
    """A year or a month: when something happened, not how much of it there is."""
    if token in _MONTHS:
        return True
    return token.isdigit() and len(token) == 4 and 1900 <= int(token) <= 2100


# a run of katakana is one word (a loanword: "ヴィーガン"), any other character one token; a
# hiragana is a particle or an ending ("ユーザーはヴィーガンである"), not read
_KATAKANA_WORD = re.compile(r"[\u30a0-\u30ff]+|.", re.DOTALL)
_HIRAGANA = re.compile(r"[\u3041-\u309f]")


def _names_by_capital(language: str) -> bool:
    filed_language = filed(language)
    return filed_language is None or filed_language.names_by_capital


def _spaced_chinese(run: str) -> str:
    """A run of Chinese read as the rules read words: fillers dropped, then one token per
    character, "用户" / "我" as the speaker and "是" as "is" ("我是纯素食者" → "self be 纯 素
    食 者")."""
    run = vocabulary.BECOME_UNSPACED.sub("\1", vocabulary.FILLER_UNSPACED.sub("", run))
    run = vocabulary.SELF_UNSPACED.sub("\0", run)
    for word in vocabulary.BE_UNSPACED:
        run = run.replace(word, "\1")
    for word in vocabulary.NEGATION_UNSPACED:
        run = run.replace(word, "\2")
    spaced = " ".join(t for t in _KATAKANA_WORD.findall(run) if not _HIRAGANA.fullmatch(t))
    spaced = spaced.replace("\0", "self").replace("\1", "be").replace("\2", "not")
    return f" {spaced} "


def _is_content(token: str, other_stopwords: frozenset[str]) -> bool:
    if token in ("self", "be") or token in STOPWORDS or token in other_stopwords:
        return False
    return len(token) > 1 or (bool(CJK.match(token)) and not function_char(token))


# an amount in ten-thousands and thousands, as Chinese and Japanese write it: "8万5千円" is 85000
_MAN = re.compile(r"(\d+)万(?:(\d+)千)?|(\d+)千")


def _digits(match: re.Match[str]) -> str:
    if match[3]:
        return str(int(match[3]) * 1000)
    return str(int(match[1]) * 10000 + int(match[2] or 0) * 1000)


@functools.lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    """The text as the rules read it: numbers as digits, "I" and "User" as "self", "is" and
    "became" as "be", fillers dropped; Chinese one character a token."""
    tokens: list[str] = []
    lowered = _MAN.sub(_digits, text.lower().replace("\u2019", "'"))
    lowered = CJK.sub(lambda m: _spaced_chinese(m.group()), lowered)
    for raw in _TOKEN.findall(lowered):
        expanded = vocabulary.EXPANSIONS.get(raw, raw)
        for token in expanded.split():
            token = token.lstrip("$").rstrip("%").replace(",", "")
            if token in vocabulary.SELF:
                token = "self"
            elif token in vocabulary.BE:
                token = "be"
            elif token in vocabulary.BECOME:  # "I've gone vegan", "I became vegan": I am vegan
                if tokens and tokens[-1] in ("have", "has"):
                    tokens.pop()
                token = "be"
            if token not in vocabulary.FILLER and not (token == "to" and tokens[-1:] == ["be"]):
                tokens.append(token)
    if "self" not in tokens and _HIRAGANA.search(text) and not vocabulary.PEOPLE.search(text):
        tokens.insert(0, "self")  # Japanese drops its subject: "車を売りました" is the user's
    return tuple(tokens)


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """Its content words but for those of its own language's stopwords, told without langid: a
    superset of ``_Read.content``."""
    return frozenset(stem(t) for t in _tokens(text) if _is_content(t, frozenset()))


@functools.lru_cache(maxsize=4096)  # injection compares each shown memory with the others
def _read(text: str) -> _Read:
    tokens = _tokens(text)
    numbers = frozenset(t for t in tokens if _is_number(t))
    negated = any(t in vocabulary.NEGATION for t in tokens)
    people = frozenset(stem(m.group().lower()) for m in vocabulary.PEOPLE.finditer(text))
    return _Read(text, tokens, numbers, negated, frozenset(tokens), people)


@functools.lru_cache(maxsize=4096)
def _sure(text: str) -> frozenset[str]:
    """Its content words in any language it may be told to be: a subset of ``_Read.content``
    (``_words`` a superset), read without telling its language."""
    others = any_function_words()
    return frozenset(stem(t) for t in _tokens(text) if _is_content(t, others))


@functools.lru_cache(maxsize=4096)
def _language(text: str) -> str:
    return latin_language(text)  # its function words, how it names


@functools.lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    other_stopwords = function_words(_language(text))
    return frozenset(stem(t) for t in _tokens(text) if _is_content(t, other_stopwords))


@functools.lru_cache(maxsize=4096)
def _named(text: str) -> str:
    first = text.split(maxsplit=1)[0].strip(",.:;!?'\"") if text.strip() else ""
    lowered_first = first.lower().removesuffix("'s")
    is_name = (
        first[:1].isupper()
        and lowered_first.isalpha()
        and lowered_first not in _NOT_NAMES
        and lowered_first not in function_words(_language(text))
        and _names_by_capital(_language(text))
    )
    return lowered_first if is_name else ""


@functools.lru_cache(maxsize=4096)
def correction(new: str) -> tuple[str, str] | None:
    """("Boston", "Austin") for "I said Boston, I meant Austin"."""
    for pattern in vocabulary.CORRECTIONS.for_text(new):
        if match := pattern.search(new):
            return match.group("wrong").strip(), match.group("right").strip()
    return None


_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"


def corrected(old: str, new: str) -> str | None:
    """The old statement with the correction applied, if the new one corrects it."""
    pair = correction(new)
    if pair is None:
        return None
    wrong, right = pair
    if CJK.search(wrong):  # "是满41岁，不是40岁": the verb said once, before the right value
        wrong = next((right[:k] + wrong for k in (3, 2, 1) if right[:k] + wrong in old), wrong)
    # Chinese words have no boundaries; an amount starts with no word character ("$1,200"), and
    # beside a Chinese character it is a word of its own ("份子钱我打算包600")
    before, after = (r"(?<!\w)", r"(?!\w)")
    if CJK.search(wrong):
        before, after = "", ""
    elif CJK.search(old):
        before, after = rf"(?<![^\W{_CJK_CHARS}])", rf"(?![^\W{_CJK_CHARS}])"
    pattern = re.compile(rf"{before}{re.escape(wrong)}{after}", re.IGNORECASE)
    if not wrong or not pattern.search(old):
        return None
    return pattern.sub(lambda _: right, old)


def kept_wrong(fact: str, said: str) -> str | None:
    """A model's fact with the user's own correction applied, when it kept the value the user
    said was wrong and not the right one (None: it did not). The 1.5B model wrote
    "ユーザーの娘の名前は結衣" for "娘の名前は結衣じゃなくて由衣です" (the name it had been
    shown), and "Lily turns 7" for "Lily is turning 8, not 7"."""
    for sentence in sentences(said):
        pair = correction(sentence)
        if pair is None or pair[1].lower() in fact.lower():
            continue
        if (mended := corrected(fact, sentence)) is not None:
            return mended
    return None


_CAPITALISED = re.compile(r"\b[^\W\d_a-z][^\W\d_]+")


def given_away(fact: str, said: str, known: Sequence[str]) -> str | None:
    """The known fact the user's correction revises, where the model gave its right value to
    someone the user did not name (None: it did not). For "Ups, mein Fehler: Markus wird 41,
    nicht 40", with "Der Mann des Nutzers, Markus, wird … 40" known, the 1.5B model wrote "Der
    Nutzer wird 41 Jahre alt": the husband's age became the user's, and his old one stayed
    current. Told when the fact holds the right value and none of the people (a name, "brother")
    that the user's sentence and the known fact share."""
    written = _read(fact)
    for sentence in sentences(said):
        pair = correction(sentence)
        if pair is None or pair[1].lower() not in fact.lower():
            continue
        named = {stem(w.lower()) for w in _CAPITALISED.findall(sentence)}
        for old in known:
            mended = corrected(old, sentence)
            if mended is None:
                continue
            held = _read(old)
            who = (named & held.content) | (_read(sentence).people & held.people)
            if who and not who & (written.content | written.people):
                return mended
    return None


@functools.lru_cache(maxsize=4096)
def ended_object(text: str) -> str | None:
    """What "I sold my car last week" ends: "my car"."""
    for pattern in vocabulary.ENDINGS.for_text(text):
        if match := pattern.search(text):
            named = vocabulary.OBJECT_END.sub("", match.group("object"))
            named = vocabulary.WHEN_SUFFIX.sub("", named).strip()
            return named or next(
                (job for verb, job in vocabulary.LEFT_JOB if verb.search(match.group())), ""
            )
    return None


def moved_from(new: str, old: str, *, move_said: bool = False) -> bool:
    """The user moved (``new``), and ``old`` says where they lived, somewhere the move does not
    name: the move ends it ("User moved to Seattle" / "User has lived in Denver for five
    years"; not "… lives in Seattle"). A home said as begun lately is a move ("Seit letztem
    Monat wohnen wir in Hamburg" / "Der Nutzer wohnt in Bremen"), and so is a home a model
    wrote from such words (``move_said``: "Der Nutzer wohnt seit November 2026 in Hamburg",
    its date resolved)."""
    new, old = without_resolved_dates(new), without_resolved_dates(old)  # "用户2026年…搬到"
    if not vocabulary.RESIDENCE.search(old) or vocabulary.MOVED.search(old):
        return False
    if not (says_move(new) or (move_said and vocabulary.RESIDENCE.search(new))):
        return False
    if vocabulary.RESIDENCE.search(new):  # both say where the user lives: by the place
        place = home_place(old)
        return place is not None and not names_place(new, place)
    a, b = _read(new), _read(old)
    return not (a.content & b.content) - a.numbers


def names_place(text: str, place: str) -> bool:
    """``text`` names ``place`` or a part of it ("Hamburg" of "Hamburg-Altona"; not "new" of
    "New York")."""
    return any(part in text.casefold() for part in place.casefold().split("-") if part)


def home_place(home: str) -> str | None:
    """The place a residence statement names ("Denver" of "User lives in Denver")."""
    for pattern in vocabulary.HOME_PLACE:
        if found := pattern.search(home):
            return found.group("place")
    return None


def says_switch(text: str) -> bool:
    """The speaker says one thing replaced another (what it replaced may share no words)."""
    return bool(vocabulary.SWITCH.search(text))


@functools.lru_cache(maxsize=4096)  # at injection a memory meets each other one shown
def _marked(text: str) -> bool:
    """A change word in it: "now", "actually", "现在"…"""
    return vocabulary.CHANGE_MARKER.search(text) is not None


@functools.lru_cache(maxsize=4096)
def says_move(text: str) -> bool:
    """The user moved: said so, or said where they live since lately ("seit letztem Monat
    wohnen wir in Hamburg"), which a later conversation says of a new home, not the old."""
    if vocabulary.MOVED.search(text):
        return True
    if not vocabulary.SETTLED.search(text):
        return False  # the common case, before any sentence is split (_apart reads it)
    return any(  # in one sentence, naming a place: not "living in chaos since last week"
        vocabulary.SETTLED.search(s) and vocabulary.RESIDENCE.search(s) and home_place(s)
        for s in sentences(text)
    )


def says_change(text: str) -> bool:
    """The speaker says something changed: a change word, a correction, an ending or a move."""
    return (
        _marked(text)
        or correction(text) is not None
        or ended_object(text) is not None
        or says_move(text)
    )


@functools.lru_cache(maxsize=4096)  # a user's shown memories meet again turn after turn
def compare(new: str, old: str, *, change_said: bool = False) -> Change | None:
    """How ``new`` relates to ``old`` (None: unrelated, or both can be true). A statement of
    several clauses ("My sister Anna is coming, and the budget is now $12,000") changes ``old``
    if one of its clauses does.

    ``change_said``: the speaker said elsewhere that something changed (a marker in the message
    a fact was extracted from), which lets a one-word slot count as a new value.
    """
    if not change_said and _apart(new, old):
        return None
    change = _compare(new, old, change_said) or _compare_undated(new, old, change_said)
    if change is not None:
        return change
    # a home said with a change word is a move: "User now lives in Duluth", for "ever since we
    # got to Duluth …", left "User lives in Tucson" current beside it
    if (change_said or _marked(new)) and moved_from(new, old, move_said=True):
        return Change.ENDED
    clauses = _clauses(new)
    if len(clauses) < 2:
        return None
    said = change_said or _marked(new)
    for clause in clauses:
        change = _compare(clause, old, said)
        if change is not None and change is not Change.RESTATED:
            return change
    return None


def _apart(new: str, old: str) -> bool:
    """No word in common, and ``new`` says no change, move or correction: nothing the rules
    relate (none of 21,896 related corpus pairs is without one). Told for a fraction of a full
    reading: at injection every shown memory meets every other, most of them unread before."""
    return (
        new != old
        and not (_words(new) & _words(old))
        and not _marked(new)
        and not says_move(new)
        and correction(new) is None
    )


def _compare_undated(new: str, old: str, change_said: bool) -> Change | None:
    """What the date the product wrote hid: a new value ("Mark turns 40 the week after
    2026-12-06" / "Mark is turning 41"), a correction, or the same fact said again without its
    date, or with one. Two events of one kind on two dates ("ran a race on 2023-05-07" / "… on
    2023-06-20") are no restatement."""
    bare_new, bare_old = without_resolved_dates(new), without_resolved_dates(old)
    dated_new, dated_old = bare_new != new, bare_old != old
    if not (dated_new or dated_old):
        return None
    change = _compare(bare_new, bare_old, change_said)
    if change is Change.RESTATED:
        return change if dated_new != dated_old else None
    return change if change in (Change.CHANGED, Change.CORRECTED) else None


@functools.lru_cache(maxsize=4096)
def _clauses(text: str) -> list[str]:
    # a clause of three words or more ("Chinese characters" for Chinese)
    return [
        c
        for c in vocabulary.CLAUSE.split(text)
        if len(c.split()) >= 3 or sum(map(len, CJK.findall(c))) >= 3
    ]


def _compare(new: str, old: str, change_said: bool) -> Change | None:
    if corrected(old, new) is not None:
        return Change.CORRECTED
    if moved_from(new, old):
        return Change.ENDED
    said = change_said or _marked(new)
    if said and _job_changed(new, old):
        return Change.ENDED
    if said and _routine_replaced(new, old):
        return Change.ENDED  # with what it replaced: "(previously: … every Sunday morning …)"
    if len(set(_tokens(new)).intersection(_tokens(old))) < 2 and ended_object(new) is None:
        return None  # not even a frame in common: the common case, decided without reading
    a, b = _read(new), _read(old)
    change = _same_frame(new, old, a, b, said)
    if change is None:
        return None
    if a.named and b.named and a.named != b.named:
        return None  # "Maria volunteers …" / "John volunteers …": other people
    if _born_apart(new, old):
        return None  # a birth and anything else: both can be true
    # checked last: telling whom a statement names needs its language, and most pairs are
    # decided without it
    return change


def _same_frame(new: str, old: str, a: _Read, b: _Read, said: bool) -> Change | None:
    """How ``new`` relates to ``old``, two statements with words in common, were both about the
    same person (the caller checks that after)."""
    # before restatement: "prefers window seats" / "… aisle seats", said to have changed, share
    # most of their words but hold two values of one thing
    if _one_slot_changed(a, b, said) or (said and _amount_changed(a, b)):
        return Change.CHANGED
    if said and _words_move(a) and _one_word_changed(a, b):
        return Change.CHANGED
    obj = ended_object(new)
    # an ending restates no fact that ends nothing: "ユーザーはタバコをやめた" (quit smoking)
    # is read "self タバコ" (hiragana are not read) and held no word "ユーザーはタバコを吸います"
    # lacks
    ends = obj is not None and ended_object(old) is None
    if not ends and a.negated == b.negated and _same_people(a, b) and _restates(a, b):
        return Change.RESTATED
    named = _read(obj).content - vocabulary.WHEN if obj is not None else frozenset()
    if obj is None or not (ends and named & b.content):
        return None
    return None if _only_whose(obj.strip(), old) else Change.ENDED


# Between a name and the person it is whose: "Jake's sister", "阿杰的妹妹", "Jakes Schwester";
# and between the person and the name: "la hermana de Jake", "die Schwester von Jake"
_WHOSE_AFTER = re.compile(r"(?:['’]s|s|的|の)\s*")
_ONE_WORD = re.compile(r"(?:\w+\s+)?")
_WHOSE_BEFORE = re.compile(r"\s+(?:de|del|von|des)\s+(?:\w+\s+)?$")


def _only_whose(name: str, text: str) -> bool:
    """``name`` is in ``text`` only as whose someone is: a breakup with 阿杰 does not end "阿杰的
    妹妹小雨是用户的大学室友" (his sister is still the user's roommate), as the real model's
    reading of "跟阿杰分手了" did. Unless that someone is the user ("User is Jake's girlfriend")."""
    found = [m.span() for m in re.finditer(re.escape(name), text, re.IGNORECASE)]
    if not found:
        return False
    relatives = [m.span() for m in vocabulary.PEOPLE.finditer(text)]
    for start, end in found:
        after = _WHOSE_AFTER.match(text, end)
        whose = (
            after is not None
            and not vocabulary.USER_IS.search(text[:start])
            and any(s >= after.end() and _ONE_WORD.fullmatch(text, after.end(), s)
                    for s, _ in relatives)
        )  # fmt: skip
        whose = whose or any(
            _WHOSE_BEFORE.search(text[e:start]) and not vocabulary.USER_IS.search(text[:s])
            for s, e in relatives
            if e <= start
        )
        if not whose:
            return False
    return True


def _same_people(a: _Read, b: _Read) -> bool:
    """Both are about the same people, or ``b`` names one only after all ``a`` says: "El
    usuario es del Betis de toda la vida, por su abuelo" says all "El usuario es del Betis"
    says, of the same user (not "User's sister is vegan" / "User is vegan")."""
    if a.people == b.people:
        return True
    if a.people or not a.content:
        return False
    last = max((i for i, t in enumerate(b.tokens) if stem(t) in a.content), default=-1)
    said = b.tokens[: last + 1]
    joined = "" if CJK.search(b.text) else " "  # "用户的哥哥", read as written
    # …of the user, said before the person ("In Berlin wohnt die Schwester des Nutzers": hers)
    return "self" in said and not people(joined.join(said))


_PARTS = re.compile(r"[,;，；、]")


def _routine_replaced(new: str, old: str) -> bool:
    """Said to have changed, a routine on a weekday the old one was held on ("Sunday mornings
    are pickleball now" / "I do the river loop every Sunday morning with the Mudlarks";
    "mittwochs geh ich jetzt bouldern" / "Mittwochs spiel ich Handball"): they share only the
    day, which the user gave to the new one. Not a routine beside it ("also"), nor someone
    else's, nor the same one said again."""
    days = [day for day in vocabulary.ROUTINE if day.search(new) and day.search(old)]
    if not days or vocabulary.BESIDE.search(new):
        return False
    # read by the part that names the day: "Die Schulter macht nicht mehr mit, mittwochs …"
    part = next(p for p in _PARTS.split(new) if any(day.search(p) for day in days))
    a, b = _read(part), _read(old)
    return a.people == b.people and a.negated == b.negated and not a.content <= b.content


def _job_changed(new: str, old: str) -> bool:
    """Said to have changed, the user's work replaced by other work ("I quit last month, and now
    I teach at a primary school" / "User works as a nurse at a hospital"): the 1.5B judge
    answered "still true" to that pair in all three languages. Not a second job ("also", "on
    weekends"), not the same work in fewer words."""
    if not (vocabulary.JOB.search(new) and vocabulary.JOB.search(old)):
        return False
    a, b = _read(new), _read(old)
    if vocabulary.BESIDE.search(new) or a.people != b.people:
        return False
    return not (a.content <= b.content or b.content <= a.content)


def _restates(a: _Read, b: _Read) -> bool:
    if a.tokens == b.tokens:
        return True
    if _not_restated(a, b):
        return False
    if a.content and a.content <= b.content and a.numbers <= b.numbers:
        return _same_claims(a, b, len(a.content)) or _claims(a) == _claims_up_to(b, a.content)
    if a.numbers != b.numbers or _substituted(a, b):
        return False
    shared, union = a.content & b.content, a.content | b.content
    if a.numbers:  # same amounts, two more words and much of the rest in common
        return len(shared - a.numbers) >= 2 and len(shared) / len(union) >= 0.4
    if not union or len(shared) / len(union) < 0.6:
        return False
    return _same_claims(a, b, len(union))


def _not_restated(a: _Read, b: _Read) -> bool:
    """What ``_restates`` answers False for, told from bounds on both statements' content words
    (``_sure`` <= content <= ``_words``), without their languages: most pairs shown together."""
    least_a, least_b = _sure(a.text), _sure(b.text)
    most_a, most_b = _words(a.text), _words(b.text)
    if most_a and a.numbers <= b.numbers and least_a <= most_b:
        return False  # a's content may be b's: only its language can tell
    if a.numbers != b.numbers or _substituted(a, b):
        return True
    shared, union = most_a & most_b, least_a | least_b
    if not shared:
        return True
    if a.numbers:
        return len(shared - a.numbers) < 2 or (bool(union) and len(shared) / len(union) < 0.4)
    return bool(union) and len(shared) / len(union) < 0.6


def _same_claims(a: _Read, b: _Read, content_words: int) -> bool:
    """A thin statement is its few words and what it says of them; a thick one its words."""
    return content_words >= _THICK or _claims(a) == _claims(b)


def _claims(read: _Read) -> frozenset[str]:
    """Its English stopwords that say something, by stem: "doing", "want(s)", "like(s)",
    "more", "has"… Without them, "User's store is doing well" read as "store" and restated
    "User's store is located in a cozy space" (LoCoMo conv-30: "How is my store doing?" lost its
    answer), and "User plays guitar" restated "User would like to play guitar"."""
    return _claimed(read.vocabulary)


def _claims_up_to(read: _Read, words: frozenset[str]) -> frozenset[str]:
    """What it claims of ``words``: its claims up to the last of them, not those of what it
    says after ("User is lactose intolerant and wants dairy-free recipes": "wants" is of the
    recipes; "User would like to play guitar": "would like" is of the guitar)."""
    last = max((i for i, t in enumerate(read.tokens) if stem(t) in words), default=-1)
    return _claimed(read.tokens[: last + 1])


def _claimed(tokens: Iterable[str]) -> frozenset[str]:
    said = {stem(t) for t in tokens if t in STOPWORDS or stem(t) in STOPWORDS}
    if "been" in said:  # "has been vegan" says "is vegan"
        said -= {"has", "have", "had"}
    return frozenset(said) - _GRAMMAR


def distinct(new: str, old: str) -> bool:
    """Two statements that are never one memory, however near their vectors: one names a
    person of the user's life the other does not ("User's brother lives in Denver" / "User lives
    in Denver"), or one is where the user was born ("El usuario nació en Austin" / "El usuario
    vive en Austin …": e5 scores such pairs over the same-memory bar)."""
    return _born_apart(new, old) or _read(new).people != _read(old).people


def people(text: str) -> frozenset[str]:
    """The people of the user's life it names, by the word for them ("brother", "Mann", "妹妹")."""
    return _read(text).people


def _born_apart(new: str, old: str) -> bool:
    """One says where or when the user was born, the other does not."""
    return bool(vocabulary.BORN.search(new)) != bool(vocabulary.BORN.search(old))


def read_before(new: str, first: Sequence[str]) -> bool:
    """``new``, a second reading of the user's words, is about what one of the ``first``
    reading's facts says: it restates, changes, corrects or ends it, or says it in more words.
    Either repeats it or contradicts it (the 1.5B model, asked again, wrote "User quit teaching
    at a primary school" beside its own "User teaches at a primary school", and "El usuario dejó
    el trabajo … y ahora es maestra …" beside "El usuario ahora es maestra …")."""
    return any(compare(new, k) is not None or compare(k, new) is Change.RESTATED for k in first)


def same_amount(new: str, other: str) -> bool:
    """Both hold one amount and name a thing in common: within one message, "User's rent went
    up to $1,350 in November 2026" and "User pays $1,350 a month for rent" are one fact (not
    when ``new`` says more in a clause of its own: "Anna is coming, and the budget is $12,000")."""
    if len(_clauses(new)) > 1:
        return False
    a, b = _read(new), _read(other)
    shared = {n for n in a.numbers & b.numbers if not _is_date(n)}
    return bool(shared) and bool((a.content & b.content) - a.numbers - b.numbers)


def _amount_changed(a: _Read, b: _Read) -> bool:
    """One amount each, different, about the same things in other words: "My rent went up,
    it's $1,350 a month now" / "I pay $1,200 a month for rent" (the caller knows a change was
    said; without that, two amounts of one kind can both be true). Not when each names what
    the other does not: "my budget for the Cairo trip is $4,500 for now" / "… for the Quito
    trip is $11,000" are two trips."""
    amounts = [[n for n in r.numbers if not _is_date(n)] for r in (a, b)]
    if any(len(x) != 1 for x in amounts) or amounts[0] == amounts[1]:
        return False
    names, other_names = _names(a.text), _names(b.text)
    if names - other_names and other_names - names:
        return False
    return len((a.content & b.content) - a.numbers - b.numbers) >= 2


_CAPITALIZED = re.compile(r"\b[A-Z][^\W\d_]+")


@functools.lru_cache(maxsize=4096)
def _names(text: str) -> frozenset[str]:
    """The words written with a capital inside a sentence ("the Cairo trip"), in a language
    that names by capital: the people, places and things a statement names."""
    if not _names_by_capital(_language(text)):
        return frozenset()
    return frozenset(
        word
        for match in _CAPITALIZED.finditer(text)
        if (before := text[: match.start()].rstrip())
        and before[-1] not in '.!?:"\u201c'
        and (word := match.group().lower()) not in _NOT_NAMES
    )


def _slot(
    a: _Read, b: _Read, *, qualified: bool = False
) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """The one place where ``a`` differs from ``b`` in the same frame (of at least two tokens):
    its kind ("replace", "insert", "delete"), the old tokens and the new ones. ``qualified``: a
    replaced slot may come with a few words added or left out elsewhere, in a frame of two
    content words or more ("prefers window seats" / "prefers aisle seats on flights"; not "pays
    $1,200 a month for rent" / "earns $5,000 a month")."""
    ops = [
        op
        for op in _opcodes(b.tokens, a.tokens)
        if op[0] != "equal" and not _noise(b.tokens[op[1] : op[2]] + a.tokens[op[3] : op[4]])
    ]
    replaced = [op for op in ops if op[0] == "replace"]
    if qualified and len(ops) == 2 and len(replaced) == 1 and len(a.content & b.content) >= 2:
        _, i1, i2, j1, j2 = next(op for op in ops if op[0] != "replace")
        _, r1, r2, s1, s2 = replaced[0]
        extra = b.tokens[i1:i2] + a.tokens[j1:j2]
        if (
            max(i2 - i1, j2 - j1) <= _QUALIFIER
            and max(r2 - r1, s2 - s1) <= _VALUE
            and not _about_someone_else(extra, at_subject=max(i1, j1) == 1)
        ):
            ops = replaced
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    before, after = b.tokens[i1:i2], a.tokens[j1:j2]
    if len(b.tokens) - len(before) < 2:
        return None
    return tag, before, after


def _about_someone_else(extra: tuple[str, ...], *, at_subject: bool) -> bool:
    """Words beside a changed value that make it another person's, or deny it: "User's wife
    prefers aisle seats" (English loses the possessive: "wife" right after the user), "用户的
    妹妹喜欢…", "… not on flights"."""
    return (
        extra[:1] == ("的",)
        or (at_subject and not CJK.match(extra[0]))
        or any(t in vocabulary.NEGATION for t in extra)
    )


def _substituted(a: _Read, b: _Read) -> bool:
    """One content word or a few replaced in the same frame: "hiking in the Rockies" / "… in
    the Alps" are two facts that may both hold, however many words they share."""
    slot = _slot(a, b)
    if slot is None or slot[0] != "replace" or max(map(len, slot[1:])) > _SLOT_TOKENS:
        return False
    return all(any(t not in STOPWORDS for t in side) for side in slot[1:])


def _one_slot_changed(a: _Read, b: _Read, change_said: bool) -> bool:
    # said to have changed, one value may come with a qualifier the other was written without
    # (the 1.5B model wrote "用户喜欢靠窗的座位" for "坐飞机我喜欢靠窗的座位", then
    # "用户坐飞机更喜欢靠过道的座位": its judge kept both current)
    slot = _slot(a, b, qualified=change_said)
    if slot is None:
        return False
    tag, before, after = slot
    if tag == "insert":  # "I am vegetarian" → "I am not vegetarian anymore"
        return any(t in vocabulary.NEGATION for t in after)
    if tag != "replace" or len(before) > _SLOT_TOKENS or len(after) > _SLOT_TOKENS:
        return False
    if change_said:
        return True
    slot_tokens = (*before, *after)
    # "ran a race on 7 May 2023" / "… on 20 June 2023": another event, not a new value
    return any(_is_number(t) for t in slot_tokens) and not any(_is_date(t) for t in slot_tokens)


def _words_move(read: _Read) -> bool:
    """A language whose words move around the verb ("Im Flugzeug sitze ich am Fenster" /
    "Ich sitze im Flugzeug am Gang"): a slot is read by its words, not their order."""
    language = filed(read.language)
    return language is not None and language.words_move


def _one_word_changed(a: _Read, b: _Read) -> bool:
    """One content word for another, in the same words otherwise (two at least), said to have
    changed: "… sitze ich … am Fenster" / "… sitze ich … am Gang"."""
    gained, lost = a.content - b.content, b.content - a.content
    shared = (a.content & b.content) - a.numbers
    return len(gained) == len(lost) == 1 and len(shared) >= 2 and a.negated == b.negated


def _noise(tokens: tuple[str, ...]) -> bool:
    """ "my budget" / "the budget", "trip to Hawaii" / "Hawaii trip": not a different slot."""
    return all(t in vocabulary.FRAME_NOISE for t in tokens)


@functools.lru_cache(maxsize=4096)  # a pair's slot is asked for up to three times
def _opcodes(
    old: tuple[str, ...], new: tuple[str, ...]
) -> Sequence[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()


def clear_caches() -> None:
    """After a forget: nothing read from a memory's text stays in this process, here or in
    the words it was read with (every text still stored is read again when it comes back)."""
    for cached in (_tokens, _words, _sure, _read, _language, _content, _named, _names, _opcodes,
                   correction, ended_object, compare, _clauses, _marked, says_move,
                   without_resolved_dates):  # fmt: skip
        cached.cache_clear()
    words.clear_cache()
