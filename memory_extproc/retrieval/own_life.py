"""Does a request refer to the user's own home or work? Pure, no model.

"What's the weather usually like where I live this time of year?", "Hast du Ausflugstipps in der
Nähe meiner Stadt?", "¿Qué me recomiendas comer antes de ir a trabajar?": the answer turns on
where the user lives or what they do, and the request names neither. Its own search finds them
too far ("User lives in Tucson …" 0.26, "El usuario trabaja como enfermero …" 0.44, under the
0.45 threshold), so it is given the memory that says it (retrieval/service.py): the nearest to
the question of it in the request's language ("Where does the user live?") that says the
user's home or move, or their job (memories/topics.py).
"""

from __future__ import annotations

import re
from enum import StrEnum

from memory_extproc.lang import ENGLISH, FILED, either, filed
from memory_extproc.memories.topics import says_home, says_work


class Own(StrEnum):
    HOME = "home"
    WORK = "work"


# Every filed language's words for each: a request in one language may quote another's
_REFERS = {
    Own.HOME: re.compile(either([language.requests.home for language in FILED]), re.X | re.I),
    Own.WORK: re.compile(either([language.requests.work for language in FILED]), re.X | re.I),
}


def referred(text: str) -> tuple[Own, ...]:
    """What of the user's own life ``text`` refers to: "near me" the home, "before work" the job."""
    return tuple(own for own, words in _REFERS.items() if words.search(text))


def asked(own: Own, language: str) -> str:
    """The question that finds it, in ``language`` (English for a language with no file)."""
    topics = (filed(language) or ENGLISH).topics
    return topics.home_asked if own is Own.HOME else topics.work_word


def says(own: Own, memory: str) -> bool:
    """``memory`` states it: the user's home (or a move), or the user's job."""
    return says_home(memory) if own is Own.HOME else says_work(memory)
