"""What a move takes with it: the user's local life in the city they left. Pure.

"User moved to Seattle" ends "User has lived in Denver for five years" (changes.moved_from).
What was true only there ends with it: "User goes to a climbing gym in Denver", "用户在丹佛有
一位家庭医生", "El usuario lleva a su hija a una guardería en Denver". Left current, they were
injected as today's life beside the move. They stay in history, and their text says until when:
"Until the move: User goes to a climbing gym in Denver" (not naming the new place: one memory
says where the user lives now).

What the move does not end: what names no local service of the user's own or their children's
(a relative's home "User's brother lives in Denver", a favourite team, where the user was born),
and whatever does not name the old place. Words decide, not a model: a 1.5B judge read "goes to
a gym in Denver" as still true after the move as readily as a brother's home as ended
(memories/judge.py).
"""

from __future__ import annotations

import re

from memory_extproc.lang import ENGLISH, FILED, either, filed
from memory_extproc.languages import language_of
from memory_extproc.memories import change_words as vocabulary
from memory_extproc.memories.changes import home_place, names_place, says_move
from memory_extproc.memories.relative_dates import without_resolved_dates
from memory_extproc.words import CJK, sentences

# The user's children, whose school or daycare is the family's local life
_CHILDREN = re.compile(either([language.cascades.children for language in FILED]), re.IGNORECASE)
# What one has where one lives: services, routines, a home
_LOCAL = re.compile(either([language.cascades.local for language in FILED]), re.IGNORECASE)
# A memory already past: an ending, a cascade, a habit given up
_PAST = re.compile(
    either(
        [re.escape(language.previously[0].strip()) for language in FILED]
        + ["^" + re.escape(language.cascades.until_move.split("{")[0]) for language in FILED]
        + [language.cascades.past for language in FILED]
    )
)


def left_place(move: str, home: str) -> str | None:
    """The place the user left, when ``move`` is the user's move or new home ("User lives in
    Chicago now", as the model wrote "I relocated to Chicago") and ``home`` said where they
    lived, somewhere the move does not name."""
    move, home = without_resolved_dates(move), without_resolved_dates(home)
    moved = vocabulary.MOVED.search(move) or vocabulary.RESIDENCE.search(move)
    if not (moved and vocabulary.RESIDENCE.search(home)):
        return None
    place = home_place(home)
    return place if place and not names_place(move, place) else None


def home_asked(move: str) -> str | None:
    """What finds where the user lived, when ``move`` is their move: the words for where one
    lives, in its language. A note that said more than the home ("I live in Minneapolis and my
    dentist is Dr. Okafor …") is too far from "we moved to Phoenix" (0.19) to be found by the
    move's own words, and 0.46 from "where the user lives"."""
    if not says_move(without_resolved_dates(move)):
        return None
    return (filed(language_of(move)) or ENGLISH).topics.move_word


def ends_with_move(text: str, place: str) -> bool:
    """``text`` holds part of the user's own local life in ``place``, as current: their own,
    or their children's ("El hijo del usuario va al colegio Los Aromos en Rosario"), not another
    relative's."""
    others = vocabulary.PEOPLE.search(_CHILDREN.sub(" ", text))
    if _PAST.search(text) or others or vocabulary.RESIDENCE.search(text):
        return False
    bound = "" if CJK.search(place) else r"\b"
    named = re.search(rf"{bound}{re.escape(place)}{bound}", text, re.IGNORECASE)
    return named is not None and _LOCAL.search(text) is not None


# What separates the clauses of a sentence, in any filed language: "I live in Denver and I'm a
# Broncos fan", "デンバーに住んでいて、ブロンコスの大ファンです"
_CLAUSE = re.compile(either([language.dates.clause.pattern for language in FILED]))
_EDGES = " ,;、，"


def said_beside(said: str, place: str) -> str | None:
    """What the user said beside where they lived, in the words of a note a move ended: "I'm a
    huge Broncos fan" of "I live in Denver and I'm a huge Broncos fan" (None: nothing else).
    Model-free memory keeps a message whole, and a move that ended the home ended the team with
    it. A clause that names the place left, a home or the local life there goes with the move."""
    bound = "" if CJK.search(place) else r"\b"
    named = re.compile(rf"{bound}{re.escape(place)}{bound}", re.IGNORECASE)
    clauses = [c.strip(_EDGES) for s in sentences(said) for c in _CLAUSE.split(s)]
    clauses = [c for c in clauses if c.strip(_EDGES + ".。!！?？")]
    kept = [
        c
        for c in clauses
        if not (named.search(c) or vocabulary.RESIDENCE.search(c) or _LOCAL.search(c))
    ]
    return " ".join(kept) if kept and len(kept) < len(clauses) else None


def until_moved(text: str, move: str) -> str:
    """``text`` marked as true until the move, in its own language (the move's, if unsure)."""
    language = filed(language_of(text, move)) or ENGLISH
    return language.cascades.until_move.format(text=text)
