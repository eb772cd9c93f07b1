"""The names a user said, and those a model's facts dropped. Pure; in every language whose file
says how a name is told (lang/: English's and Spanish's capitals, Chinese's 叫).

Shown a known fact it may change, the 1.5B model wrote only the change and dropped the rest of
what was said, a new pet's name with it: a name the user said that no fact holds is how the
worker tells (worker/jobs.py asks again without the known facts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.lang import FILED
from memory_extproc.memories.facts import Fact
from memory_extproc.words import terms

# How each filed language tells a name, its one group the name: each pattern read alone (joined,
# a match would hold every language's group), and once (English and Spanish share theirs)
_NAMED = tuple(
    re.compile(pattern)
    for pattern in dict.fromkeys(language.named for language in FILED if language.named)
)


def names_dropped(said: str, facts: Sequence[Fact], known: Sequence[str]) -> set[str]:
    """The names the user said that no fact holds, nor a known fact (an old value said again:
    "I said Boston, I meant Austin"). Shown a known fact it may change, the 1.5B model wrote
    only the change: "I got a cat named Luna, and my rent is now $1,400" gave two rent facts
    and no Luna (in Chinese too: "我新养了一只猫，叫露娜，另外房租现在是每月5000元")."""
    held = set().union(*(terms(t) for t in (*(f.content for f in facts), *known)))
    names = [name for pattern in _NAMED for name in pattern.findall(said)]
    return {n for n in names if terms(n) and not terms(n) & held}
