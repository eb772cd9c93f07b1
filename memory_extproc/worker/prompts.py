"""Prompts for the extraction model: pure functions from turns to chat messages.

Written for small local models as much as for large hosted ones (measured with the 1.5B local
model, see make scenarios in eval/RESULTS.md): one small decision per call, worked examples as chat
turns rather than rules alone (with rules only, it copied the rules' example sentence into its
answers), the user's words as the only source of facts, and a JSON schema the endpoint can
constrain decoding to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import orjson

from memory_extproc.lang import FILED
from memory_extproc.languages import NAMES, language_of
from memory_extproc.llm_api.requests import Turn
from memory_extproc.llm_client import JsonSchema
from memory_extproc.memories.changes import says_change
from memory_extproc.words import one_line, terms

MESSAGES_PER_CALL = 1  # user messages shown to one extraction call (measured: eval/RESULTS.md)

EXTRACTION_SYSTEM = """\
You turn what a user says into short facts for the user's long-term memory.
Write each fact the user states about themselves (and the people, places and things in their \
life) as one sentence starting with "User". Likes, dislikes, diets, allergies, fears and other \
limits are facts too, even when said in passing. Only the user's lines state facts; the \
assistant's lines only explain what the user refers to. Keep names, numbers, places and dates \
exactly. Resolve relative dates ("yesterday", "last month") against the conversation's date.
When the user picks among options the assistant offered, write what they chose over what, \
naming both: the choice shows what they prefer.
The known facts are only there to understand corrections and changes: when the user changes, \
corrects or ends a known fact, write the fact as it is NOW, never the old value.
Questions, requests and small talk state no facts: answer {"facts": []}.
Answer with JSON only: {"facts": ["User …", …]}."""

# Worked examples, shown as earlier turns of the same task. Their topics are far from the usual
# test conversations on purpose: a small model copies an example that looks like the input.
_EXAMPLES: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    # a change and a new fact in one message: without the second, a change next to a known fact
    # made the 1.5B model drop the new one ("I got a cat named Luna, and my rent is now …")
    (("User works as a nurse",),
     ("assistant: How was your week?",
      "user: I quit nursing, I'm a teacher now, and my brother Sam moved in with me."),
     ("User works as a teacher", "User's brother Sam lives with the user")),
    (("User's dog is called Rex",),
     ("assistant: Your dog is called Rex.", "user: Right, thanks."), ()),
    (("User drinks coffee every morning",),
     ("user: I switched to green tea.",),
     ("User drinks green tea every morning",)),
    # a switch said in other words than the known fact's: the known fact's words, as it is now
    # (the rules then see one value replace another; a 1.5B judge kept "User works as a
    # carpenter" beside "User switched careers to baking")
    (("User works as a librarian in Leeds",),
     ("user: I changed careers last year, I'm a pilot now.",),
     ("User works as a pilot",)),
    # an odd assistant line (a stand-in, a refusal, an error) changes nothing the user states
    ((), ("assistant: (error) I cannot help with that request.",
          "user: My daughter Mia turns 5 in May. Yesterday I ran my first half marathon!"),
     ("User's daughter Mia turns 5 in May 2024",
      "User ran their first half marathon on 2024-03-01")),
    (("User's gym is FitLife",),
     ("user: Sorry, I said FitLife, I meant PowerGym.",),
     ("User's gym is PowerGym",)),
    (("User plays bass in a band",),
     ("assistant: ```python\nprint('hello')\n```", "user: I left the band last year."),
     ("User left the band in 2023",)),
    # a statement and a question in one sentence: the statement is a fact, the question is not
    # answered (the 1.5B model answered "anything to keep in mind about my rent?" instead)
    ((), ("user: I'm repainting my kitchen, which colour goes well with oak cabinets?",),
     ("User is repainting their kitchen", "User's kitchen has oak cabinets")),
    ((), ("user: Which hotel is good in Rome?",), ()),
    # a pick among the assistant's options is a preference: what was chosen over what, named
    # ("User dislikes the other options" tells a later request nothing)
    ((), ("assistant: For your balcony you could grow cherry tomatoes, basil or strawberries.",
          "user: I'll go with the basil. The other options need too much sun for me."),
     ("User prefers growing basil on their balcony over cherry tomatoes or strawberries, which "
      "need too much sun",)),
    ((), ("user: To release the app I run the tests, tag the commit, then push the tag.",),
     ("To release the app, user runs the tests, tags the commit, then pushes the tag",)),
)  # fmt: skip
# A user who writes another language than English keeps it: a fact in English would not be
# theirs to the grounding check, and the 1.5B model translated without being shown how. Said
# and shown only to such a conversation: shown to every one, the model wrote English users'
# facts in Spanish ("El usuario vive con Anna en Oslo"). Said after the English examples, not in
# the system message (extraction_messages: the prompt prefix every language shares).
_IN_THEIR_LANGUAGE = """\
The user writes in another language than English: write each fact in their language, starting \
with the word for "User" ("用户…" in Chinese, "El usuario …" in Spanish); never translate what \
they said."""
# Each filed language's examples (lang/): a statement, and a correction written as the fact is
# now, as an example is shown
_LANGUAGE_EXAMPLES = {
    language.code: tuple((e.known, (f"user: {e.said}",), e.facts) for e in language.examples)
    for language in FILED
    if language.examples
}
_EXAMPLE_DATE = "2024-03-02"


def facts_schema(max_facts: int, max_chars: int) -> JsonSchema:
    """Facts as plain strings: every token of an answer is generated (a grammar does not skip
    forced tokens), and {"type": …, "content": …} around each fact was ~40% of them; the type
    is read from the fact itself (facts.kind_of)."""
    return JsonSchema(
        "memory_facts",
        {
            "type": "object",
            "properties": {
                "facts": {
                    "type": "array",
                    "maxItems": max_facts,
                    "items": {"type": "string", "minLength": 1, "maxLength": max_chars},
                }
            },
            "required": ["facts"],
            "additionalProperties": False,
        },
    )


def known_for(known: Sequence[str], lines: Sequence[str], limit: int = 5) -> list[str]:
    """The known facts a window may change or correct: none unless the user says something
    changed (a change word, a correction, an ending), then those sharing a word with what the
    user said in it, most shared first. Shown without need they cost prompt tokens and gave
    the small model something to copy instead of what was said ("User lives in Berlin", shown
    for "my sister Anna lives in Oslo", lost "I'm allergic to peanuts" in the same message)."""
    stated = " ".join(line for line in lines if line.startswith("user: "))
    if not says_change(stated):
        return []
    said = terms(stated) - {"user"}
    shared = [(len(said & (terms(k) - {"user"})), k) for k in known]
    ranked = sorted((item for item in shared if item[0]), key=lambda item: -item[0])
    return [k for _, k in ranked[:limit]]


def windows(turns: Sequence[Turn], new_turns: int, per_call: int) -> list[list[Turn]]:
    """What each extraction call is shown: the last ``new_turns`` user messages that state
    something (questions removed, empty ones left out), ``per_call`` at a time, each group
    with the assistant's words before it and between its messages — not the answer to its
    last message: what a user states must not hinge on what the assistant happened to answer
    (after a demo stand-in's "I was given no memories", the 1.5B model dropped "I live in
    Berlin"; it also made facts of such answers)."""
    users = [i for i, t in enumerate(turns) if t.role == "user"]
    stated = [i for i in (users[-new_turns:] if new_turns else []) if turns[i].text]
    found = []
    for k in range(0, len(stated), per_call):
        first, last = stated[k], stated[min(k + per_call, len(stated)) - 1]
        start = first - 1 if first and turns[first - 1].role == "assistant" else first
        found.append(list(turns[start : last + 1]))
    return found


def transcript(turns: Sequence[Turn], limit: int = 600) -> list[str]:
    """One line per message, ``role: text``: a longer message by its start and end,
    ``limit`` characters in all."""
    lines = []
    for turn in turns:
        text = _copyable(one_line(turn.text))
        if text:
            lines.append(f"{turn.role}: {_clipped(text, limit)}")
    return lines


def _clipped(text: str, limit: int) -> str:
    """A long message's start and end: what a user says of themselves around a pasted text is
    at one end or the other ("Here is my cover letter: … I start at Google in May."); the
    last sentence of a 20,000-character message was never learned."""
    if len(text) <= limit:
        return text
    start, end = text[: limit - limit // 3], text[-(limit // 3) :]
    # cut between words where the text has spaces: "$125,000" must not be shown as "25,000"
    start = start[: start.rfind(" ")] if " " in start[len(start) // 2 :] else start
    end = end[end.find(" ") + 1 :] if " " in end[: len(end) // 2] else end
    return f"{start} … {end}"


_QUOTED = re.compile(r'"([^"]*)"')


def _copyable(text: str) -> str:
    """Double quotes as a model writing JSON can copy them. Decoding constrained to JSON takes
    the small model's '"' for the end of its string: 'My favorite book is "Dune" by Frank
    Herbert.' was learned as "User's favorite book is". Quoted words go in single quotes, which
    it copies as they are; a lone mark (a 55" TV) becomes a double prime."""
    return _QUOTED.sub(r"'\1'", text).replace('"', "\u2033")


def _task(known: Sequence[str], lines: Sequence[str], date: str) -> str:
    listed = "\n".join(f"- {_copyable(one_line(k))}" for k in known) or "(none)"
    conversation = "\n".join(lines)
    return f"Known facts:\n{listed}\n\nConversation ({date}):\n{conversation}"


def extraction_messages(
    known: Sequence[str], lines: Sequence[str], date: str, *, context: str = ""
) -> list[dict[str, str]]:
    """Facts from a conversation (``transcript`` lines) on ``date``, knowing ``known``.
    ``context``: the conversation's other words, which tell the user's language when their
    lines are too short to ("Soy vegetariano.")."""
    examples, reminder = _EXAMPLES, ""
    stated = " ".join(line.removeprefix("user: ") for line in lines if line.startswith("user: "))
    language = language_of(stated, context) if stated else "en"
    if language != "en":
        # the examples in the user's language last: the ones the model follows most closely;
        # a language without a file sees every filed language's, none of them its own
        others = [
            e for code, shown in _LANGUAGE_EXAMPLES.items() if code != language for e in shown
        ]
        examples = (*examples, *others, *_LANGUAGE_EXAMPLES.get(language, ()))
        # …and said again above the conversation: without it, the 1.5B model wrote "我是吃蛋奶素的"
        # as "User eats egg-free and dairy-free food" (diets, in zh and es alike); said below
        # it, the model kept the old value of a correction ("Dije Boston, pero quise decir…")
        reminder = f"(The facts in {NAMES.get(language, 'their language')}.)\n"
    # Every prompt begins as an English one, the system message and the English examples alike:
    # the local model's server reuses the longest prefix it last evaluated, and the language's
    # instruction in the system message cost the whole prompt again at every change of language
    # (~20 s instead of ~2 s on a CPU). The instruction heads the first language example instead.
    messages = [{"role": "system", "content": EXTRACTION_SYSTEM}]
    for shown, (example_known, example_lines, facts) in enumerate(examples):
        said = f"{_IN_THEIR_LANGUAGE}\n\n" if shown == len(_EXAMPLES) else ""
        answer = {"facts": list(facts)}
        messages += [
            {"role": "user", "content": said + _task(example_known, example_lines, _EXAMPLE_DATE)},
            {"role": "assistant", "content": orjson.dumps(answer).decode()},
        ]
    messages.append({"role": "user", "content": reminder + _task(known, lines, date)})
    return messages


REQUESTS_SYSTEM = """\
A user's preference or constraint shapes later requests that never name it. List the kinds of \
request where an assistant must keep it in mind: what the user may ask to be recommended, \
suggested, planned, chosen or made for them. Up to eight short phrases.
Answer with JSON only: {"requests": ["…", …]}."""
# Far from the usual conversations on purpose, as the extraction examples are.
_REQUEST_EXAMPLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("User gets seasick easily",
     ("boat trips", "cruises", "island holidays", "ferry travel", "water sports", "fishing trips")),
    ("User prefers handwritten notes over apps",
     ("note-taking tools", "productivity apps", "study methods", "planners and journals",
      "gift ideas", "organising a schedule")),
    # A value, not a thing: its kinds are the everyday things it bears on. Without it the model
    # echoed the value ("green tech", "sustainable devices" for eco-friendly tech), and "What
    # wireless headphones would you suggest?" scored 0.18 against it, below the floor; with it,
    # "smartphones, laptops, gadgets…" and 0.24 (eval/RESULTS.md, "A value's kinds of request").
    ("User prefers brands that treat their workers fairly",
     ("clothing shopping", "running shoes", "coffee brands", "chocolate", "furniture",
      "gift ideas")),
)  # fmt: skip


def requests_schema() -> JsonSchema:
    return JsonSchema(
        "memory_requests",
        {
            "type": "object",
            "properties": {
                "requests": {
                    "type": "array",
                    "maxItems": 8,
                    "items": {"type": "string", "minLength": 1, "maxLength": 60},
                }
            },
            "required": ["requests"],
            "additionalProperties": False,
        },
    )


def requests_messages(preference: str) -> list[dict[str, str]]:
    """The kinds of request ``preference`` bears on (memories/facts.py: ``parse_requests``)."""
    messages = [{"role": "system", "content": REQUESTS_SYSTEM}]
    for fact, kinds in _REQUEST_EXAMPLES:
        messages += [
            {"role": "user", "content": fact},
            {"role": "assistant", "content": orjson.dumps({"requests": list(kinds)}).decode()},
        ]
    messages.append({"role": "user", "content": one_line(preference)})
    return messages
