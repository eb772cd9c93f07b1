"""What a memory is about, where its reader cannot tell: a job, a move. Pure.

multilingual-e5-small scores a question about a kind of thing far from a memory that names only
one of its kind: "我是做什么工作的？" / "用户是一名软件工程师" 0.42 and "¿En qué trabajo?" / "El
usuario es ingeniero de software" 0.32, under the 0.45 threshold, where MiniLM puts "What do I do
for a living?" / "User is a software engineer" at 0.82. Such a memory is stored leaning toward the
word for its kind (memories/writer.py), as a preference leans toward the requests it bears on:
0.42 → 0.52 and 0.32 → 0.57, while questions about other things stay under the threshold (in
Chinese they move by less than 0.05, in Spanish by up to 0.13: eval/RESULTS.md). Where the user
lives (but a move), allergies, pets and family pass as they are. English too: MiniLM reads most
jobs near "work", but not every one ("User works as a baker" / "What do I do for a living?"
0.448 → 0.569 keyed).

A move is where the user lives, and its reader misses that once the move says why ("User moved
to Porto for a new job as a nurse" / "Where do I live now?" 0.31), or in e5 at all ("用户上个月
搬家到了成都" / "我现在住在哪里？" 0.33). It leans toward the words for where one lives: 0.31 →
0.56 and 0.33 → 0.49; a plain English move ("User relocated to Berlin", 0.56) already passed.
"""

from __future__ import annotations

import re

from memory_extproc.lang import FILED
from memory_extproc.memories import change_words as vocabulary
from memory_extproc.words import in_memory_voice

# Each language's rules, read with every text: a word for a kind, in the text's language
_WORK = tuple(re.compile(language.topics.work) for language in FILED)
_RULES = tuple(
    (rule, word)
    for language, work in zip(FILED, _WORK, strict=True)
    for rule, word in (
        (work, language.topics.work_word),
        (re.compile(language.topics.move), language.topics.move_word),
    )
)


def topic_words(text: str) -> tuple[str, ...]:
    """The words for what ``text`` is about, in its language, where its reader needs them
    ("用户是一名软件工程师" → "工作", "User moved to Porto for a new job" → "where the user
    lives"); none otherwise. A move for a job is about both. A note's words are read as a
    memory says them ("I'm doing an electrician apprenticeship now": "User is doing …")."""
    read = (text, in_memory_voice(text))  # not only: Spanish "Me acabo de mudar" is no "User"
    return tuple(word for rule, word in _RULES if any(rule.search(t) for t in read))


def says_home(text: str) -> bool:
    """``text`` says where the user lives, or that they moved: not a relative's home."""
    return any(
        vocabulary.RESIDENCE.search(t) or vocabulary.MOVED.search(t)
        for t in (text, in_memory_voice(text))
    )


def says_work(text: str) -> bool:
    """``text`` says the user's job: not a relative's, nor work on a thing."""
    return any(rule.search(t) for rule in _WORK for t in (text, in_memory_voice(text)))
