"""Words, as the request path's ranking and the response path's rules read them: pure, no I/O.

One home for the word-level rules both paths share, so a memory and the question about it are
read the same way.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import stopwordsiso

from memory_extproc.lang import ENGLISH, FILED, either, filed
from memory_extproc.lang.snowball import snowball
from memory_extproc.languages import LATIN, latin_language

# English's stopwords, dropped from every text (lang/shape.py, Words)
STOPWORDS = ENGLISH.words.stopwords
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
# a sentence ends at . ! ? … and a space, at a CJK stop (no space after it), at a line end
# (the spaces before a line break are stripped with the sentence: read before it, a long run of
# them took quadratic time), and at an emoji before a space and a capital or CJK, as a chat ends
# one ("jetzt Hamburg-Altona 🙌 Wie find ich …?": the question took the move with it)
_SENTENCE_END = re.compile(
    r"(?<=[.!?…])\s+|(?<=[\u3002\uff01\uff1f])\s*|\n\s*"
    r"|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+(?=[A-ZÀ-ÖØ-Þ¿¡\u3040-\u30ff\u4e00-\u9fff])"
)
# a full stop that ends no sentence, in any filed language: "Dr. Smith", "e.g. Lisbon", "z.B."
_ABBREVIATION = re.compile(
    rf"(?:^|\s)(?:{either([language.words.abbreviations for language in FILED])})\.$", re.I
)


# English's stemmer: the stems every text is read with, whatever its language (the words two
# languages share, and the English that other languages' texts quote)
stem = ENGLISH.stem
# Snowball's name for a language it has, for one without a file of its own (lang/)
_SNOWBALL = {
    "pt": "portuguese", "fr": "french", "it": "italian", "de": "german", "nl": "dutch",
    "ca": "catalan", "da": "danish", "sv": "swedish", "no": "norwegian", "nb": "norwegian",
    "fi": "finnish", "ro": "romanian", "hu": "hungarian", "tr": "turkish", "id": "indonesian",
    "cs": "czech", "pl": "polish", "lt": "lithuanian", "et": "estonian", "eu": "basque",
    "ga": "irish",
}  # fmt: skip


@functools.cache
def stemmer(language: str) -> Callable[[str], str]:
    """The stemmer of ``language``: its file's, else Snowball's, else English's."""
    if (own := filed(language)) is not None:
        return own.stem
    name = _SNOWBALL.get(language)
    return snowball(name) if name else stem


_CACHED_CHARS = 1024  # memories and questions; long answers are read once, never kept
# Chinese and Japanese write no spaces: a run of their characters is read as its overlapping
# character pairs ("花生过敏" → 花生 生过 过敏), as search engines index them without a
# dictionary; a pair of two function characters ("我对", "什么") says nothing
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_KATAKANA = re.compile(r"[\u30a1-\u30ff]+")


def unspaced_script(text: str) -> bool:
    """A character of Chinese or Japanese in it (the languages written without spaces)."""
    return not text.isascii() and CJK.search(text) is not None


@dataclass(frozen=True, slots=True)
class Merged:
    """A pattern of every filed language's words. A text without a character of an unspaced
    language's script is searched with the spaced languages' alternatives only: each of the
    others holds such a character, so finds nothing there, and trying them at every position
    of an English memory cost more than the English ones (~17 us a pattern in the truth rules,
    memories/change_words.py)."""

    spaced: re.Pattern[str]
    every: re.Pattern[str]

    def _for(self, text: str) -> re.Pattern[str]:
        return self.every if unspaced_script(text) else self.spaced

    def search(self, text: str) -> re.Match[str] | None:
        return self._for(text).search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self._for(text).finditer(text)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self._for(text).sub(replacement, text)


# the word memories are written with for the user, in each language, read as "user"
# (and French's, which has no file: "L'utilisateur …")
_FRENCH_USER = r"\butilisat(?:eur|rice)\b"
_USER_WORDS = Merged(
    re.compile(either([lang.user for lang in FILED if lang.spaced and lang is not ENGLISH])
               + f"|{_FRENCH_USER}"),
    re.compile(either([lang.user for lang in FILED if lang is not ENGLISH]) + f"|{_FRENCH_USER}"),
)  # fmt: skip


def terms(text: str, language: str = "") -> frozenset[str]:
    """The content words of a text, stemmed (stopwords and single letters dropped); Chinese and
    Japanese as character pairs, other languages without their own stopwords and stemmed by
    Snowball too where it has the language. ``language``: the text's, when already told."""
    return _short_terms(text, language) if len(text) <= _CACHED_CHARS else _terms(text, language)


def _terms(text: str, language: str = "") -> frozenset[str]:
    lowered = text.lower().replace("\u2019", "'")
    own = stemmer(language) if language else None
    said: list[str] = []  # its language read before "usuario" is "user"
    if own is not stem:  # not told, or told a language stemmed otherwise than English
        said = _WORD.findall(CJK.sub(" ", lowered))
        language = language or (latin_language(" ".join(said)) if said else "en")
        own = stemmer(language)
    lowered = _USER_WORDS.sub(" user ", lowered)
    runs = [] if lowered.isascii() else CJK.findall(lowered)
    found = {pair for run in runs for pair in _pairs(run)}
    words = _WORD.findall(CJK.sub(" ", lowered) if runs else lowered)
    stop = _dropped(language)
    kept = [w for w in words if w not in stop and len(w) > 1]
    found.update(map(stem, kept))
    # and by their own language's stems, as well as English's: a text's language is a guess,
    # and two of one language may be read differently ("Soy vegetariano." is too short to
    # tell, "El usuario es vegetariano" is Spanish), the English stems are what they share;
    # under three words, not at all ("two weeks" reads as Polish)
    if own is not stem and len(said) >= 3:
        found.update(map(own, kept))
    return frozenset(found)


@functools.cache
def _dropped(language: str) -> frozenset[str]:
    return STOPWORDS | _stopwords(language)


def _pairs(run: str) -> set[str]:
    """A run's words: a katakana run is one (a loanword: "ヴィーガン", not ヴィ ィー ーガ ガン
    and the particle beside it), the rest its character pairs."""
    if _KATAKANA.search(run):
        words = {k for k in _KATAKANA.findall(run) if len(k) > 1}
        return words | {p for part in _KATAKANA.split(run) if part for p in _pairs(part)}
    stop, chars = _stopwords("zh"), _stopwords("zh-chars")
    if len(run) == 1:
        return set() if run in chars else {run}
    pairs = (run[i : i + 2] for i in range(len(run) - 1))
    return {p for p in pairs if p not in stop and not (p[0] in chars and p[1] in chars)}


@functools.cache
def _stopwords(language: str) -> frozenset[str]:
    """A language's stopwords beyond English's: its file's, else stopwords-iso's (MIT).
    "zh-chars": the single characters among those of the languages without spaces ("的", "私"),
    and every hiragana (Japanese writes its particles and endings in them, its content in kanji
    and katakana: "大阪に引っ越した")."""
    if language == "zh-chars":
        hiragana = frozenset(chr(code) for code in range(0x3041, 0x30A0))
        unspaced = (lang.words.stopwords for lang in FILED if not lang.spaced)
        return frozenset(w for words in unspaced for w in words if len(w) == 1) | hiragana
    if language == "en":
        return frozenset()  # English's are dropped from every text (STOPWORDS)
    if (own := filed(language)) is not None:
        return own.words.stopwords
    has = stopwordsiso.has_lang(language)
    return frozenset(stopwordsiso.stopwords(language)) if has else frozenset()


def function_words(language: str) -> frozenset[str]:
    """A language's stopwords beyond English's ``STOPWORDS`` ("el", "para" of Spanish; none for
    English)."""
    return _stopwords(language)


@functools.cache
def any_function_words() -> frozenset[str]:
    """The function words of every language ``latin_language`` may tell: a word outside them
    is a content word of a text whatever its language (memories/changes.py)."""
    return frozenset(word for language in LATIN for word in function_words(language))


def function_char(char: str) -> bool:
    """A Chinese or Japanese character that says nothing alone ("的", "了", "我", "に")."""
    return char in _stopwords("zh-chars")


# a retrieval reads ~30 stored memories, mostly read before; at most ~16 MB of keys
_short_terms = functools.lru_cache(maxsize=16384)(_terms)


def clear_cache() -> None:
    """After a forget: no text's words stay here (they are read again from what is left)."""
    _short_terms.cache_clear()


def sentences(text: str) -> list[str]:
    """Sentences and lines, stripped; good enough for chat messages and answers."""
    found: list[str] = []
    for part in _SENTENCE_END.split(text):
        if not (part := part.strip()):
            continue
        if found and _ABBREVIATION.search(found[-1]):
            found[-1] = f"{found[-1]} {part}"
        else:
            found.append(part)
    return found


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def numbers(text: str) -> set[str]:
    """The numbers in a text, as digits ("$10,000" → "10000")."""
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}


def width(text: str) -> int:
    """Characters, a Chinese or Japanese one counting as two (it is a word more often than a
    letter): "用户住在奥斯汀" (User lives in Austin) is a whole fact in 7 of them."""
    return len(text) + sum(unicodedata.east_asian_width(char) in "WF" for char in text)


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) as single spaces."""
    return " ".join(text.split())


# The user speaking of themselves (English; MiniLM is an English model): one pattern for
# deciding that a message is personal and for reading it in the memory voice. "I/O", "print(I)"
# are not.
_FIRST_PERSON = ENGLISH.words.memory_voice
_FIRST_PERSON_WORD = re.compile(ENGLISH.asks.speaker, re.IGNORECASE)
# …in any filed language ("我", "soy", "ich", "私")
_SPEAKER = re.compile("|".join(f"(?:{language.asks.speaker})" for language in FILED), re.I)


def speaks_of_self(text: str) -> bool:
    """The user speaks of themselves in English (what MiniLM reads)."""
    return bool(_FIRST_PERSON_WORD.search(text.replace("\u2019", "'")))


def speaks_of_self_in_any(text: str) -> bool:
    """The user speaks of themselves in any filed language: "I", "我", "soy", "ich", "私"."""
    return bool(_SPEAKER.search(text.replace("\u2019", "'")))


def in_memory_voice(text: str) -> str:
    """The user's words in the voice their memories are written in, for embedding: "Where do I
    live?" becomes "Where do User live?" and meets "User lives in Berlin" (MiniLM cosine 0.30 →
    0.62); a note quoting "I moved to Berlin" is embedded as "User moved to Berlin"."""
    return _FIRST_PERSON_WORD.sub(
        lambda m: _FIRST_PERSON[m.group().lower()], text.replace("\u2019", "'")
    )
