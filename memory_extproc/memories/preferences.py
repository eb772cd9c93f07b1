"""Is a memory a standing preference or constraint of its user? Pure, English.

"User is vegetarian", "User avoids activities involving heights", "User refuses to listen to
mainstream pop" are not the answer to one question: they shape every later request they bear on
("Suggest something for dinner", "Plan a day in Colorado"), which never names them. Such memories
are kept as ``preference`` memories, and an open request is given them (retrieval/plan.py) where
ordinary memories must match the request itself.

Read from the memory's words, in every mode (a model's fact, a note of what the user said, an API
add): what likes, dislikes, avoids, cannot have, fears, only or never does, chooses one thing over
another, or keeps a diet.
"""

from __future__ import annotations

import re

_STANDING = re.compile(
    r"""(?ix)
    \b(?:prefer(?:s|red|ring|ence|ences)?|favou?rites?|likes|loves|enjoys|adores|fond\s+of
      |(?:i|we)\s+(?:really\s+|also\s+|just\s+|much\s+)?(?:like|love|enjoy|adore)
      |dislikes?|hates?|detests?|loathes?|avoids?|avoiding|aversion|steers?\s+clear|stays?\s+away
      |can(?:no|')?t\s+(?:stand|bear|tolerate|eat|drink|have|handle|digest)
      |(?:doesn't|does\s+not|don't|do\s+not|won't|will\s+not|never)\s+(?:like|enjoy|eat|drink|wear
         |use|buy|watch|read|listen|fly|drive|travel|stay|go|want)
      |refuses?|refusing|unwilling|not\s+(?:a\s+)?fan|no\s+interest|not\s+interested
      |only\s+(?:eats?|drinks?|wears?|buys?|uses?|reads?|watch(?:es)?|listens?|stays?|travels?)
      |exclusively|strictly
      |allerg\w*|intoleran\w*|vegetarian|vegan|pescatarian|plant-based|gluten-free|dairy-free
      |lactose|halal|kosher|teetotal\w*|diet
      |afraid\s+of|fear\s+of|fears|phobi\w*|scared\s+of|terrified
      |chose|chooses|choosing|opted|opts|picked(?!\s+up)|rather\s+than|instead\s+of
    )\b
    """
)


def states_preference(text: str) -> bool:
    """ "User follows a strict vegan diet" yes; "User lives in Porto" no."""
    return bool(_STANDING.search(text.replace("\u2019", "'")))
