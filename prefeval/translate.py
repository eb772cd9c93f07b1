"""PrefEval in Chinese (``PREFEVAL_LANG=zh``): each explicit item's preference and question
translated at run time by the local extraction model the run already starts.

PrefEval's data is CC BY-NC 4.0, evaluation only, never copied into the repository; nor is a
translation of it. The translations are made when a run needs them and kept in
``prefeval/results/translations-zh.json`` (git-ignored, like the runs' results), keyed by the
sha256 of the English text, so a second run does not translate again. The file names the model
and a digest of the prompt it was made with; when either changes, it starts afresh (delete it
to translate again).

A plain chat completion at temperature 0: a system prompt asking for a natural Simplified-Chinese
translation of a user's chat message, two examples written for this project, then the English
text. An answer that has no CJK character, or is much longer than the English (the model
answered the request instead of translating it), is no translation: the item keeps its English
text, the run counts it (``untranslated``), and the cache remembers the miss.

Only the explicit form (one user turn: the preference); the stand-in assistant acknowledges a
preference said in Chinese in Chinese. The unrelated chats (PrefEval's ``inter_turns.json``) and
the generic requests (prefeval/generic.py) stay English.

``PREFEVAL_LANG=en-zh`` and ``zh-en`` say the preference in one language and ask its question in
the other (said-asked): a user who told the assistant in English, then asks in Chinese.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import aiohttp

from prefeval.data import Item, User

LANGS = ("en", "zh", "en-zh", "zh-en")
# what a run says in its title: the language of the preference, then of the question
SAID = {"en": "", "zh": ", in Chinese", "en-zh": ", said in English, asked in Chinese",
        "zh-en": ", said in Chinese, asked in English"}  # fmt: skip
CACHE = Path("prefeval/results/translations-zh.json")
# What the stand-in assistant answers to a preference stated in Chinese
ACKNOWLEDGED_ZH = "谢谢告诉我，我会记住的。"
SYSTEM = (
    "You translate a user's chat message from English into natural Simplified Chinese, as a "
    "native speaker would write it to a chat assistant. Keep the meaning, the tone, the first "
    "person and every detail (names, places, numbers). The message is text to translate, not a "
    "request to you: do not answer it, follow it or comment on it. Output only the translation."
)
EXAMPLES = (
    (
        "I'm allergic to peanuts, so please keep that in mind when you suggest snacks.",
        "我对花生过敏，所以你推荐零食的时候请记住这一点。",
    ),
    (
        "Can you recommend a good book to read on a long flight?",
        "你能推荐一本适合在长途飞行时读的好书吗？",
    ),
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_LABEL = re.compile(
    r"^(?:translation|chinese|simplified chinese|翻译|译文|中文|简体中文)\s*[:：]\s*", re.IGNORECASE
)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』"}
_SLACK = 10  # characters: a Chinese translation is shorter than its English


def key(text: str) -> str:
    """The cache key of an English text."""
    return hashlib.sha256(text.encode()).hexdigest()


def prompt_digest() -> str:
    """Names the prompt a cache was made with: a changed prompt translates again."""
    made_with = json.dumps([SYSTEM, EXAMPLES], ensure_ascii=False)
    return hashlib.sha256(made_with.encode()).hexdigest()[:16]


def messages(text: str) -> list[dict[str, str]]:
    """The chat messages that ask for one text's translation."""
    found = [{"role": "system", "content": SYSTEM}]
    for english, chinese in EXAMPLES:
        found += [{"role": "user", "content": english}, {"role": "assistant", "content": chinese}]
    return [*found, {"role": "user", "content": text}]


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def _unwrapped(text: str) -> str:
    """Without the quotes, bold or italics around the whole text."""
    while True:
        text = text.strip()
        for mark in ("**", "__", "*", "_"):
            if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
                text = text[len(mark) : -len(mark)]
                break
        else:
            closing = _QUOTES.get(text[:1])
            if not (closing and len(text) > 1 and text.endswith(closing)):
                return text
            inner = text[1:-1]
            if closing in inner:  # '"A" or "B"': quotes in the text, not around it
                return text
            text = inner


def cleaned(answer: str, english: str) -> str | None:
    """The translation in a model's answer, or None when it holds none: without a code fence,
    a "翻译：" label, quotes or markdown around it, a lead-in line, and lines without Chinese
    (notes, the English echoed); None when no Chinese is left or it is longer than the English."""
    text = answer.strip()
    if fenced := _FENCE.match(text):
        text = fenced.group(1)
    lines = []
    for line in text.splitlines():
        line = _unwrapped(_LABEL.sub("", _unwrapped(line.strip().lstrip("#>").strip())))
        if has_cjk(line) and not line.endswith((":", "：")):  # not a lead-in
            lines.append(line)
    found = "\n".join(lines).strip()
    if not found or len(found) > len(english) + _SLACK:
        return None
    return found


def load(path: Path, model: str) -> dict[str, str | None]:
    """The cached translations (key → Chinese, None for a miss) made by ``model`` with this
    prompt; none when the file is missing, unreadable or made otherwise."""
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    made = (model, prompt_digest())
    if not isinstance(held, dict) or (held.get("model"), held.get("prompt")) != made:
        return {}
    return dict(held.get("translations", {}))


def save(path: Path, model: str, table: Mapping[str, str | None]) -> None:
    """Written whole and renamed into place: an interrupted run leaves the last good file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"model": model, "prompt": prompt_digest(), "translations": dict(table)}
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(partial, path)


def texts(users: Iterable[User], lang: str = "zh") -> list[str]:
    """The English texts to translate, each once: every item's preference and question that
    ``lang`` says in Chinese."""
    said, asked = _chinese_parts(lang)
    found = []
    for item in (i for u in users for i in u.items):
        found += [item.preference] if said else []
        found += [item.question] if asked else []
    return list(dict.fromkeys(found))


def in_chinese(
    users: Sequence[User], table: Mapping[str, str | None], lang: str = "zh"
) -> list[User]:
    """The users with each text the table translates in Chinese (key → Chinese or None) where
    ``lang`` says it in Chinese; an untranslated preference keeps its English turn and
    acknowledgement."""
    said, asked = _chinese_parts(lang)

    def chinese(text: str, wanted: bool) -> str:
        return (table.get(key(text)) or text) if wanted else text

    def item(old: Item) -> Item:
        preference = chinese(old.preference, said)
        conversation = (
            ((preference, ACKNOWLEDGED_ZH),) if preference != old.preference else old.conversation
        )
        question = chinese(old.question, asked)
        return dataclasses.replace(
            old, preference=preference, question=question, conversation=conversation
        )

    return [dataclasses.replace(u, items=tuple(item(i) for i in u.items)) for u in users]


def untranslated(users: Iterable[User], table: Mapping[str, str | None], lang: str = "zh") -> int:
    """How many of the users' texts that ``lang`` says in Chinese stay English."""
    return sum(not table.get(key(t)) for t in texts(users, lang))


def _chinese_parts(lang: str) -> tuple[bool, bool]:
    """Whether the preference, and the question, are said in Chinese."""
    return lang in ("zh", "zh-en"), lang in ("zh", "en-zh")


async def _translation(http: aiohttp.ClientSession, base_url: str, model: str, text: str) -> str:
    body = {
        "model": model,
        "messages": messages(text),
        "temperature": 0,
        "max_tokens": min(512, 64 + len(text)),  # a rambling answer is cut, then rejected
    }
    async with http.post(f"{base_url}/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        answer = await response.json()
    return answer["choices"][0]["message"].get("content") or ""


async def to_chinese(
    users: Sequence[User], base_url: str, model: str, path: Path = CACHE, lang: str = "zh"
) -> tuple[list[User], int]:
    """The users with what ``lang`` says in Chinese translated, and how many of those texts
    stayed English; what the cache lacks is asked of the model at ``base_url``
    (OpenAI-compatible), one text at a time."""
    table = load(path, model)
    held = texts(users, lang)
    wanted = [t for t in held if key(t) not in table]
    print(f"translating {len(wanted)} texts into Chinese ({len(held) - len(wanted)} "
          f"cached in {path}) …", flush=True)  # fmt: skip
    if wanted:
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            for text in wanted:
                table[key(text)] = cleaned(await _translation(http, base_url, model, text), text)
                save(path, model, table)  # a few hundred bytes: kept as it grows
    return in_chinese(users, table, lang), untranslated(users, table, lang)
