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

_OPEN = re.compile(
    r"""(?ix)
    \b(?:recomm?end\w*|reccomm?end\w*|suggest\w*|ideas?|tips|advice|options|alternatives
        |planning|itinerary|strateg(?:y|ies)|approach(?:es)?)\b
    | (?:^|\b(?:me|us|you|please|to)\s+)plan\b
    | \b(?:what|which)\b[^?!]{0,60}?\b(?:should|could|can|would|might)\s+(?:i|we)\b
    | \b(?:where|how)\b[^?!]{0,60}?\b(?:should|could|would|might)\s+(?:i|we)\b
    | \bhow\s+can\s+(?:i|we)\b(?=[^?!]*\b(?:my|our|me|us)\b)
    | \bhelp\s+(?:me|us)\s+\w+
    | \b(?:what|which)(?:'s|\s+(?:are|is|would\s+be))\s+(?:some|a\s+few|the\s+best|a\s+good|good
        |great|the\s+right|the\s+most)\b
    | \b(?:best|good|great|right|ideal|suitable)\b[^?!.]{0,40}\bfor\s+(?:me|my|us|our)\b
    | \b(?:create|make|write|find|give|put\s+together|build|design|pick|choose|provide|curate)\b
        [^?!.]{0,60}\bfor\s+(?:me|my|us|our)\b
    | \b(?:i'?m|i\s+am|we're|we\s+are)\s+(?:looking\s+for|planning|thinking\s+(?:of|about)
        |considering|trying\s+to\s+(?:find|decide|choose|pick))\b
    | \b(?:ways?|places?|things)\s+(?:to|for|i|we)\b
    """
)
# The same asks in Chinese ("给我推荐…", "有什么好的…", "帮我规划…", "我应该…") and Spanish
# ("recomiéndame", "¿qué me sugieres…?", "ideas para…", "¿qué debería…?")
_OPEN_OTHER = re.compile(
    r"""(?ix)
    推荐|建议|主意|点子|想法|选择|规划|计划|攻略|安排|有什么好|有哪些好
    |哪些.{0,12}(?:值得|适合|受欢迎|不错|好看|好玩|好吃|有趣|最好|热门|流行|独特)
    |(?<![你您])(?:可以|能)(?:去|来)?(?:看|做|吃|买|玩|读|听|尝试|试试)(?:些|点)?(?:什么|哪些)
    |(?:我|我们)[^，。？?]{0,10}?(?:应该|该|可以|能).{0,12}(?:什么|哪|怎么)
    |帮我(?:选|找|想|挑|规划|安排|推荐|设计)|(?:如何|怎么|怎样)[^？?]{0,12}(?:我的|我们的|我家|家里)
    |(?:哪些|什么)[^？?]{0,8}(?:方法|方式|办法|途径|地方|去处)
    |(?:方法|方式|办法|途径|去处)[^？?]{0,4}有哪些
    |(?:我|我们)(?:想找|在找|正在找)(?:一些|几个|一个|一款|一家)
    |适合我|给我.{0,10}(?:找|选|做|列|想)
    | \b(?:recomi[eé]nd\w*|recomendaci\w*|suger\w*|sugi[eé]r\w*|ideas?|consejos?|opciones
        |planifica\w*|planea\w*|itinerario)\b
    | \bqu[eé]\b[^?!]{0,60}?\b(?:deber[ií]a|podr[ií]a|puedo|debo)\b
    | \b(?:para\s+m[ií]|ay[uú]dame\s+a)\b
    """
)


# …unless it asks what happened, was said or given: a question to memory about the user's own
# past ("What book did I recommend to Melanie?", "What advice does Gina give to me?", "When am
# I planning on going camping?"). LoCoMo's questions: 44 of 798 read as open before, given the
# user's preferences ahead of what they asked about; 12 now. PrefEval's 754: unchanged.
_RECOUNTS = re.compile(
    r"""(?x)^\s*(?i:when|why|who|whose)\b
    | \b(?i:did|has|have|had)\s+(?:(?i:i|we|he|she|they)|[A-Z][a-z]+)\b
    | \b(?i:do|does)\s+(?:(?i:i|we|he|she|they)|[A-Z][a-z]+)\s+(?:\w+\s+){0,2}?
        (?i:give|suggest|recommend|say|tell|write|get)\b
    """
)


# Asking to be reminded is not asking for help choosing ("Help me remember: where does my sister
# live?", "Ayúdame a recordar…"): the words do not count, what else the request asks does
# ("… tips to help me remember vocabulary?")
_REMINDED = re.compile(
    r"(?i)\bhelp\s+(?:me|us)\s+(?:to\s+)?(?:remember|recall)\b|\bay[uú]dame\s+a\s+recordar\b"
)


def is_open_request(text: str) -> bool:
    """ "Can you recommend some cafes in San Francisco?" yes; "What is the capital of Peru?"
    and "What book did I recommend to Melanie?" no."""
    said = _REMINDED.sub(" ", text.replace("\u2019", "'"))
    return bool(_OPEN.search(said) or _OPEN_OTHER.search(said)) and not _RECOUNTS.search(said)
