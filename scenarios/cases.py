"""The nine truth scenarios as data, and the verdict on what memory holds afterwards: pure.

Each scenario is a few sessions (each a new conversation) of one user, then a follow-up
question. What must hold afterwards, in every mode:
* ``current``: each value is held by exactly one active memory, and the follow-up gets it;
* ``old``: no active memory holds it as current, it lives on in a memory's history, and the
  follow-up never gets it as current;
* ``kept``: memories of earlier sessions holding these values are untouched by the last one;
* ``added``: each value is held by exactly one active memory (injection not required);
* ``unchanged``: the last session changes no memory at all.
``facts`` and ``ends`` are what a good extraction model answers (the scripted mode plays it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_extproc.words import numbers
from memory_extproc.worker.echo import statements

# Where the stand-in chat LLM restates the memories it was given ("You told me: …"), as
# assistants do; it can only echo what was injected.
ECHO = "{memories}"


@dataclass(frozen=True)
class Turn:
    said: str
    answer: str
    facts: tuple[str, ...] = ()  # the scripted extraction model's answer
    ends: bool = False  # the scripted model judges these facts to end a related old one
    requests: tuple[str, ...] = ()  # the kinds of request its preferences bear on (scripted)


@dataclass(frozen=True)
class Scenario:
    number: int
    name: str
    sessions: tuple[tuple[Turn, ...], ...]
    question: str
    current: tuple[str, ...] = ()
    old: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    unchanged: bool = False
    # a request the memories bear on nothing of: none of ``current`` may be injected for it
    unrelated: str = ""


@dataclass(frozen=True)
class Held:
    """An active memory as the API shows it, with its earlier texts."""

    id: str
    content: str
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    before_last: list[Held]  # active memories before the last session
    after: list[Held]
    injected: list[str]  # what the follow-up question was given
    errors: list[str] = field(default_factory=list)  # what failed on the way (HTTP, timeouts)
    unrelated: list[str] = field(default_factory=list)  # what the unrelated request was given


HAWAII = Turn(
    "My budget for the Hawaii trip is $10,000.",
    "Great, a $10,000 budget gives you plenty of options in Hawaii.",
    ("User's budget for the Hawaii trip is $10,000",),
)
BUDGET_QUESTION = "What is my budget for the Hawaii trip?"

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        1, "Hawaii budget updated in a later session",
        ((HAWAII,), (Turn("Actually, my budget for the Hawaii trip is now $15,000.",
                          f"{ECHO} Got it, $15,000 it is.",
                          ("User's budget for the Hawaii trip is now $15,000",)),)),
        BUDGET_QUESTION, current=("$15,000",), old=("$10,000",),
    ),
    Scenario(
        2, "preference changes: vegetarian to vegan",
        ((Turn("I'm vegetarian.", "Noted, I'll suggest vegetarian dishes.",
               ("User is vegetarian",)),),
         (Turn("I've gone fully vegan now.", "Great, I'll stick to vegan dishes from now on.",
               ("User is vegan",)),)),
        "Am I vegetarian or vegan?", current=("vegan",), old=("vegetarian",),
    ),
    Scenario(
        3, "a correction: Boston, I meant Austin",
        ((Turn("I live in Boston.", "Boston is a lovely city.", ("User lives in Boston",)),),
         (Turn("I said Boston, I meant Austin.", "Thanks for correcting me: Austin it is.",
               ("User lives in Austin",)),)),
        "Where do I live?", current=("Austin",), old=("Boston",),
    ),
    Scenario(
        4, "no longer true: sold the car",
        ((Turn("I drive a 2015 Honda Civic.", "Civics are reliable cars.",
               ("User drives a 2015 Honda Civic",)),),
         (Turn("I sold my car last week.", "Selling a car is a big step.",
               ("User sold their car",), ends=True),)),
        "What car do I drive?", current=("sold",), old=("Civic",),
    ),
    Scenario(
        5, "an unrelated new fact touches nothing else",
        ((HAWAII,), (Turn("I started learning the cello last month.",
                          "How exciting! The cello is a beautiful instrument.",
                          ("User started learning the cello in October 2026",)),)),
        "What instrument am I learning?", current=("cello",), kept=("$10,000",),
    ),
    Scenario(
        6, "the same fact restated in other words",
        ((HAWAII,), (Turn("Just so you know, I have $10,000 set aside for my Hawaii trip.",
                          "Thanks, that matches what I had.",
                          ("User has $10,000 set aside for the Hawaii trip",)),)),
        BUDGET_QUESTION, current=("$10,000",), kept=("$10,000",),
    ),
    Scenario(
        7, "a question about what is remembered stores nothing",
        ((HAWAII,), (Turn(BUDGET_QUESTION, ECHO),)),
        BUDGET_QUESTION, current=("$10,000",), kept=("$10,000",), unchanged=True,
    ),
    Scenario(
        8, "the answer restates injected memories: no echo stored",
        ((HAWAII,), (Turn("I'm starting to book flights for the Hawaii trip, what should I keep "
                          "in mind about my budget?",
                          f"Good idea to book early. {ECHO}",
                          ("User is booking flights for the Hawaii trip",)),)),
        BUDGET_QUESTION, current=("$10,000",), kept=("$10,000",), added=("flights",),
    ),
    Scenario(
        9, "two facts in one message, one an update",
        ((HAWAII,), (Turn("My sister Anna is coming with me, and the budget for the Hawaii "
                          "trip is now $12,000.",
                          "Lovely! With $12,000 you and Anna can stay a little longer.",
                          ("User's sister Anna is coming on the Hawaii trip",
                           "User's budget for the Hawaii trip is now $12,000")),)),
        BUDGET_QUESTION, current=("$12,000",), old=("$10,000",), added=("Anna",),
    ),
)  # fmt: skip

RENT = Turn(
    "I pay $1,200 a month for rent.",
    "That's a typical rent for the area.",
    ("User pays $1,200 a month for rent",),
)
RENT_QUESTION = "How much rent do I pay?"

# The same nine behaviours in other words and other domains: a check that the rules are about
# the behaviour, not about the nine sentences (`SCENARIO_SET=variants make scenarios`).
VARIANTS: tuple[Scenario, ...] = (
    Scenario(
        1, "rent goes up",
        ((RENT,), (Turn("My rent went up, it's $1,350 a month now.", f"{ECHO} Noted, $1,350.",
                        ("User pays $1,350 a month for rent",)),)),
        RENT_QUESTION, current=("$1,350",), old=("$1,200",),
    ),
    Scenario(
        2, "seat preference switches",
        ((Turn("I prefer window seats on flights.", "Window seats it is.",
               ("User prefers window seats on flights",)),),
         (Turn("These days I prefer aisle seats on flights.", "Aisle seats from now on.",
               ("User prefers aisle seats on flights",)),)),
        "Which seat do I prefer on flights?", current=("aisle",), old=("window",),
    ),
    Scenario(
        3, "a name corrected",
        ((Turn("My daughter's name is Emma.", "What a lovely name.",
               ("User's daughter is named Emma",)),),
         (Turn("Sorry, I said Emma, I meant Emily.", "Emily, got it.",
               ("User's daughter is named Emily",)),)),
        "What is my daughter's name?", current=("Emily",), old=("Emma",),
    ),
    Scenario(
        4, "a job ends",
        ((Turn("I work at Acme Corp as a designer.", "Design is a great field.",
               ("User works at Acme Corp as a designer",)),),
         (Turn("I quit my job at Acme Corp last month.", "Big change!",
               ("User quit their job at Acme Corp",), ends=True),)),
        "Where do I work?", current=("quit",), old=("designer",),
    ),
    Scenario(
        5, "a new favourite band, rent untouched",
        ((RENT,), (Turn("My favourite band is Radiohead.", "Great taste!",
                        ("User's favourite band is Radiohead",)),)),
        "What is my favourite band?", current=("Radiohead",), kept=("$1,200",),
    ),
    Scenario(
        6, "an allergy said again",
        ((Turn("I'm allergic to peanuts.", "I'll keep that in mind.",
               ("User is allergic to peanuts",)),),
         (Turn("Just a reminder, I'm allergic to peanuts, so no peanuts please.", "Of course.",
               ("User is allergic to peanuts",)),)),
        "What am I allergic to?", current=("peanuts",), kept=("peanuts",),
    ),
    Scenario(
        7, "asking about the rent stores nothing",
        ((RENT,), (Turn(RENT_QUESTION, ECHO),)),
        RENT_QUESTION, current=("$1,200",), kept=("$1,200",), unchanged=True,
    ),
    Scenario(
        8, "apartment hunting, the answer echoes the rent",
        ((RENT,), (Turn("I'm looking at new apartments, anything to keep in mind about my "
                        "rent?", f"Compare the total costs. {ECHO}",
                        ("User is looking at new apartments",)),)),
        RENT_QUESTION, current=("$1,200",), kept=("$1,200",), added=("apartments",),
    ),
    Scenario(
        9, "a new cat and a new rent in one message",
        ((RENT,), (Turn("I got a cat named Luna, and my rent is now $1,400 a month.",
                        "Congrats on Luna!",
                        ("User has a cat named Luna", "User pays $1,400 a month for rent")),)),
        RENT_QUESTION, current=("$1,400",), old=("$1,200",), added=("Luna",),
    ),
)  # fmt: skip

# What memory is for beyond answering questions about itself: a change said in other words
# ends what it changes, and a preference said once shapes the open requests it bears on
# (`SCENARIO_SET=personal make scenarios`).
PERSONAL: tuple[Scenario, ...] = (
    Scenario(
        1, "a career switch in other words",
        ((Turn("I work as a carpenter in Porto.", "Porto is a beautiful city to work in.",
               ("User works as a carpenter in Porto",)),),
         (Turn("I switched careers this spring: I'm a baker now.", "Congratulations!",
               ("User switched careers this spring and is a baker now",), ends=True),)),
        "What do I do for a living?", current=("baker",), old=("carpenter",),
    ),
    Scenario(
        2, "a diet shapes a dinner suggestion",
        ((Turn("Could you give me a lasagna recipe? Keep it meat-free, I'm vegetarian.",
               "Here is a spinach and ricotta lasagna.", ("User is vegetarian",),
               requests=("recipes", "meal plans", "restaurants", "dinner ideas")),),),
        "Suggest something I could cook for dinner tonight.", current=("vegetarian",),
        unrelated="What is the capital of Peru?",
    ),
    Scenario(
        3, "a fear of heights shapes a trip plan",
        ((Turn("I have a real fear of heights, so I avoid anything high up.",
               "That's good to know.", ("User has a fear of heights and avoids high places",),
               requests=("outdoor activities", "hiking trips", "travel plans", "climbing",
                         "sightseeing")),),
         (Turn("My sister Ana lives in Denver.", "Nice!",
               ("User's sister Ana lives in Denver",)),)),
        "What outdoor activities would you recommend for my weekend near Denver?",
        current=("heights",), kept=("heights",),
        unrelated="Can you recommend a good Python library for making charts?",  # open, far
    ),
)  # fmt: skip

_QUALIFIED = re.compile(
    r"\b(no longer|not|n't|sold|quit|left|former|formerly|used to|previously|from|instead of"
    r"|anymore|was|changed|meant)\b",
    re.IGNORECASE,
)


def holds(text: str, value: str) -> bool:
    """Does ``text`` state ``value`` ("$10,000" matches "10000" and "$10,000")?"""
    wanted = numbers(value)
    if wanted:
        return wanted <= numbers(text)
    return re.search(rf"\b{re.escape(value)}\b", text, re.IGNORECASE) is not None


def as_current(text: str, value: str) -> bool:
    """``text`` holds ``value`` as true now, not as what it was ("no longer vegetarian")."""
    return holds(text, value) and not _QUALIFIED.search(text)


def verdict(scenario: Scenario, outcome: Outcome) -> tuple[bool, str]:
    """Pass, or fail with the first reason."""
    problems = outcome.errors or _problems(scenario, outcome)
    return (not problems, problems[0] if problems else "")


def _problems(scenario: Scenario, outcome: Outcome) -> list[str]:
    after, injected = outcome.after, outcome.injected
    problems: list[str] = []
    for value in (*scenario.current, *scenario.added):
        holders = [m for m in after if holds(m.content, value)]
        if len(holders) != 1:  # none: what is held instead says why
            problems.append(
                f"{value!r} held by {len(holders)} memories: {_quote(holders)}"
                + ("" if holders else f" (active: {_quote(after)})")
            )
    for value in scenario.current:
        if not any(holds(line, value) for line in injected):
            problems.append(f"{value!r} not injected: {injected}")
    for value in scenario.old:
        stale = [m for m in after if as_current(m.content, value)]
        if stale:
            problems.append(f"old {value!r} still current in {_quote(stale)}")
        if not any(holds(h, value) for m in after for h in m.history):
            problems.append(f"old {value!r} not in any memory's history")
        if any(as_current(line, value) for line in injected):
            problems.append(f"old {value!r} injected as current: {injected}")
    for value in scenario.kept:
        before = [m for m in outcome.before_last if holds(m.content, value)]
        if before and not all(m in after for m in before):
            problems.append(f"memory holding {value!r} was changed: {_quote(before)}")
    for value in scenario.current:
        if any(holds(line, value) for line in outcome.unrelated):
            problems.append(f"{value!r} injected for {scenario.unrelated!r}: {outcome.unrelated}")
    if scenario.unchanged and sorted(after, key=_key) != sorted(outcome.before_last, key=_key):
        problems.append(f"memories changed: {_quote(outcome.before_last)} → {_quote(after)}")
    return problems


def _key(memory: Held) -> str:
    return memory.id


def _quote(memories: Sequence[Held]) -> str:
    return "; ".join(repr(m.content[:90]) for m in memories) or "none"


def scripted_requests() -> dict[str, tuple[str, ...]]:
    """What the scripted model lists as the kinds of request each scripted fact bears on."""
    return {
        fact: turn.requests
        for scenario in (*SCENARIOS, *VARIANTS, *PERSONAL)
        for session in scenario.sessions
        for turn in session
        for fact in turn.facts
    }


def scripted_facts() -> dict[str, tuple[tuple[str, ...], bool]]:
    """What the scripted extraction model answers to each message (as the extractor is shown
    it: its statements): its facts, and whether they end a related old fact."""
    return {
        statements(turn.said): (turn.facts, turn.ends)
        for scenario in (*SCENARIOS, *VARIANTS, *PERSONAL)
        for session in scenario.sessions
        for turn in session
    }
