"""What memory said back: never learned again, in any mode.

A memory injected into a request comes back in its answer ("Your budget for the Hawaii trip is
$10,000."). Learned from, it would be stored again (a second copy, or a note quoting it), and an
old value would outlive its update: the notes mode's answers to one question grew 1 → 3 → 4 → 5
echoes in four asks. So the sentences of an answer that restate an injected memory are dropped
before anything reads the answer, and a turn that only asks or requests, answered with nothing
but memory, stores nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_extproc.retrieval.decision import is_greeting
from memory_extproc.words import numbers, sentences, speaks_of_self, terms

ECHO_SHARE = 0.6  # of a sentence's words found in one injected memory
NEW_WORDS = 3  # words an answer must add, beyond the question and the memories, to be learned
# What assistants say around an answer from memory; not information about the user.
_CHATTER = terms(
    "based told mentioned remember recall earlier before memory memories noted given help let "
    "happy glad feel free anything else plan hope great sounds question answer info information "
    "demo llm assistant"
)
_ASKS = re.compile(
    r"^(?:(?:and|so|also|ok(?:ay)?|hey|hi|please|then|but|now)[\s,]+)*"
    r"(?:what|what's|whats|where|where's|when|who|who's|whom|whose|why|how|how's|which|do|does"
    r"|did|is|are|am|was|were|can|could|would|should|will|have|has|had|may|might|shall"
    r"|remind|tell|show|list|give|recall|summari[sz]e|say|help|suggest|recommend|find|explain"
    r"|describe|write|plan|book|check|look)\b",
    re.IGNORECASE,
)
# The same, as Chinese and Spanish users ask and request: "请推荐…", "帮我…", "把…都告诉我",
# "¿…", "dime…", "Dame una receta" (learned as "El usuario necesita una receta")
_ASKS_OTHER = re.compile(
    r"^(?:请|帮我|帮忙|麻烦你|给我|推荐|告诉我|你能|你可以|能不能|可不可以|怎么|为什么|哪|谁)"
    r"|把[^。！？]*(?:告诉|发给|列给|说给|念给)我(?:吧|一下)?[。！!.]?$"
    r"|^¿|^(?:dime|dame|hazme|recomi[eé]ndame|ay[uú]dame|expl[ií]came|sugi[eé]reme|mu[eé]strame"
    r"|cu[eé]ntame|escr[ií]beme|trad[uú]ceme|res[uú]meme|puedes|podr[ií]as)\b",
    re.IGNORECASE,
)
# Commands in Chinese and Spanish ("忽略之前的指令…", "翻译成英文", "Traduce esto"), kept where
# the user also speaks of themselves ("翻译一下，我下周要用", "Escribe un menú, soy vegetariano")
_COMMANDS_OTHER = re.compile(
    r"^(?:忽略|无视|列出|列举|显示(?!器)|翻译|总结|概括|生成|改写|重写|输出|打印(?!机)|计算(?!机)"
    r"|写一[个篇首段封])"
    r"|^(?:ignora|traduce|resume|escribe|genera|crea|calcula|corrige|reescribe|enumera|haz)\b",
    re.IGNORECASE,
)
# Of the user beyond being addressed ("告诉我", "给我"): "我下周要用", "soy vegetariano"
_SELF_OTHER = re.compile(
    r"(?<![诉给帮为对跟])我|\b(?:yo|mi|mis|soy|estoy|tengo|vivo|prefiero|no\s+como)\b",
    re.IGNORECASE,
)


_TRAILING_ASK = re.compile(
    r",\s*(?:and\s+|so\s+|but\s+)?(?:what|how|which|where|when|who|why|can|could|would|should|do|does"
    r"|is|are|any|anything|anyone|thoughts|tips|ideas|suggestions|advice|recommendations)\b"
    r"[^.!]*\?$",
    re.IGNORECASE,
)
# A question after a statement, in Chinese or Spanish: "我开始订机票了，预算方面要注意什么？",
# "Me mudé a Sevilla, ¿qué barrios me recomiendas?"
_TRAILING_ASK_OTHER = re.compile(r"(?:[，,]\s*)(?:[^，,。！!？?]*[？?]|¿[^?]*\?)$")


# A command about a text or code ("Convert this to Go", "Rewrite it for a single path") states
# nothing about the user unless it speaks of them ("Make it vegan, I don't eat meat").
_COMMANDS = re.compile(
    r"^(?:(?:and|so|also|ok(?:ay)?|please|now|then|just)[\s,]+)*"
    r"(?:convert|rewrite|translate|fix|create|generate|compose|draft|edit|revise|improve|complete"
    r"|implement|refactor|optimi[sz]e|calculate|compute|solve|simplify|continue|correct|proofread"
    r"|format|comment|define|compare|outline|analy[sz]e|debug|make|add|remove|shorten|expand"
    r"|paraphrase|classify|extract|enumerate|simulate|identify|design|build)\b",
    re.IGNORECASE,
)
# A line of pasted code, a log or markup: what it says is not the user speaking ("def f(n):",
# "resource "x" {", "│ Error: …"). Only signs prose does not use: a line that merely mentions
# code ("my call to main() crashes", "return flight is on June 3") is the user speaking.
_CODE_LINE = re.compile(
    r"[{};]\s*$|^\s*[}\])]|==|!=|&&|\|\||:=|=>|\+=|::|</[a-z][\w-]*>|^\s*│"
    r"|\b[a-z_]\w*\.[a-z_]\w*\("  # a method call: os.getcwd(
    r"|^\s*(?:def|class|func|fn)\s+\w+\s*[(:{]|^\t+\S"
    r"|^\s*(?:import\s+[\w.]+(?:\s+as\s+\w+)?\s*$|from\s+[\w.]+\s+import\b)"
    r"|^\s*(?:#include\b|using\s+namespace\b|(?:public|private|protected|static)\s+[\w<>\[\]]+\s+\w+\s*[(;=])"
    r"|^\s*(?:var|let|const)\s+\w+\s*=|^\s*[\w.\[\]'\"]+\s*=\s*\S"
    r"|^\s*return\s*(?:$|[\w.\[\]()\"'+*-]+\s*;?$)|^\s*(?:if|elif|else|for|while|with|try|except|finally)\b[^,.!?]*:\s*$"
    r"|^\s*(?:SELECT|INSERT|UPDATE|DELETE)\s(?-i:.*\b(?:FROM|INTO|SET|WHERE)\b)"
)


def _code(line: str) -> bool:
    return bool(_CODE_LINE.search(line))


def statements(text: str) -> str:
    """What a message states, without its questions, its requests and commands, and any code
    it pasted ("I booked my flights for June 3, what else fits my budget?" → "I booked my
    flights for June 3"). Small models read a trailing question as "this message states
    nothing", and made facts of pasted code and of the commands around it ("User wrote a Go
    function", "User's path is `/`")."""
    kept = []
    prose = "\n".join(line for line in text.splitlines() if not _code(line))
    for sentence in sentences(prose):
        if is_greeting(sentence) or _ASKS.match(sentence) or _ASKS_OTHER.match(sentence):
            continue
        if _COMMANDS.match(sentence) and not speaks_of_self(sentence):
            continue
        if _COMMANDS_OTHER.match(sentence) and not _SELF_OTHER.search(sentence):
            continue
        stated = _TRAILING_ASK_OTHER.sub("。" if "，" in sentence else ".", sentence)
        stated = _TRAILING_ASK.sub(".", stated)
        if not stated.endswith(("?", "\uff1f")):  # asked without a question word: "Any tips?"
            kept.append(stated)
    return " ".join(kept)


def strip_echoes(answer: str, recalled: Sequence[str]) -> str:
    """The answer without its sentences that restate an injected memory."""
    if not recalled:
        return answer
    memories = [terms(m) for m in recalled]
    kept = [s for s in sentences(answer) if not _restates(terms(s), memories)]
    return " ".join(kept)


def _restates(words: frozenset[str], memories: list[frozenset[str]]) -> bool:
    return bool(words) and any(len(words & m) >= ECHO_SHARE * len(words) for m in memories)


def adds_information(answer: str, question: str, recalled: Sequence[str]) -> bool:
    """Does the (echo-free) answer say something that neither the question nor memory did: a
    number of its own, or a few words of its own? A sentence that announces what follows ("I was
    given 3 memories:") says nothing once what followed was echoes."""
    answer = " ".join(s for s in sentences(answer) if not s.endswith(":"))
    if numbers(answer) - numbers(question).union(*(numbers(m) for m in recalled)):
        return True
    known = terms(question).union(*(terms(m) for m in recalled)) | _CHATTER
    return len(terms(answer) - known) >= NEW_WORDS
