"""The names a user said, and those a model's facts dropped. Pure; English and Chinese.

Shown a known fact it may change, the 1.5B model wrote only the change and dropped the rest of
what was said, a new pet's name with it: a name the user said that no fact holds is how the
worker tells (worker/jobs.py asks again without the known facts). Chinese names are read here
for attribution.py too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.memories.facts import Fact
from memory_extproc.words import terms

# A capitalised word inside a sentence: a name ("Luna", "Porto"), not a sentence's first word
_INNER_NAME = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][a-z]+\b")
# Chinese has no capitals: a name is what "named" introduces ("一只猫，叫露娜" → 露娜), not a
# pronoun ("叫他明天来": "told him to come tomorrow"), a question ("叫什么名字") or 叫 as a verb
# ("叫了外卖", "叫个不停")
NAMED_ZH = re.compile(
    r"(?:名叫|叫做|取名|叫)(?![他她它我你了得着过个什啥])([\u4e00-\u9fff]{2,4}?)(?=[\s，。、；！？,.;!?的]|$)"
)


def names_dropped(said: str, facts: Sequence[Fact], known: Sequence[str]) -> set[str]:
    """The names the user said that no fact holds, nor a known fact (an old value said again:
    "I said Boston, I meant Austin"). Shown a known fact it may change, the 1.5B model wrote
    only the change: "I got a cat named Luna, and my rent is now $1,400" gave two rent facts
    and no Luna (in Chinese too: "我新养了一只猫，叫露娜，另外房租现在是每月5000元")."""
    held = set().union(*(terms(t) for t in (*(f.content for f in facts), *known)))
    names = (*_INNER_NAME.findall(said), *NAMED_ZH.findall(said))
    return {n for n in names if terms(n) and not terms(n) & held}
