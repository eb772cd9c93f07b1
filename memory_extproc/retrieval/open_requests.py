"""Does a request ask for something chosen or made for the user? Pure, no model.

"Suggest something I could cook for dinner", "What are some thrilling TV series I should start?",
"Plan a weekend in Colorado for me", "Help me pick a laptop": the answer is a choice, and the
user's standing preferences bear on it though the request names none of them (a vegetarian's
dinner, a fear of heights in Colorado). Such a request is given the preferences nearest to it
(retrieval/service.py); any other request only the memories it matches itself.

A request matches when it asks for recommendations, suggestions, ideas, options or a plan; asks
what or which the user should, could or can do, where or how they should, or how they can do
something of theirs ("How can I improve the lighting in my home?"; "How can I reverse a list?",
"Where can I find the config file?" ask how, not what to choose); asks for help choosing,
finding or planning; asks what some good (or the best) things are; or asks that something be
made or found for the user. Measured on PrefEval's development requests (754): 99% match; of
100 generic requests (code, maths, trivia, writing, `prefeval/generic.py`) 7 do, and what they
would be given must still be near them (``RankPolicy.preference_floor``).
"""

from __future__ import annotations

import re

from memory_extproc.lang import FILED, either

# Every filed language's asks (lang/)
_OPEN = re.compile(either([language.requests.open for language in FILED]), re.X | re.I)
# …unless it asks what happened, was said or given: a question to memory about the user's own
# past ("What book did I recommend to Melanie?", "When am I planning on going camping?")
_RECOUNTS = re.compile(either([language.requests.recounts for language in FILED]), re.X | re.I)
# Asking to be reminded is not asking for help choosing ("Help me remember: where does my sister
# live?"): the words do not count, what else the request asks does ("… tips to help me remember
# vocabulary?")
_REMINDED = re.compile(either([language.requests.reminded for language in FILED]), re.I)


def is_open_request(text: str) -> bool:
    """ "Can you recommend some cafes in San Francisco?" yes; "What is the capital of Peru?"
    and "What book did I recommend to Melanie?" no."""
    said = _REMINDED.sub(" ", text.replace("\u2019", "'"))
    return bool(_OPEN.search(said)) and not _RECOUNTS.search(said)
