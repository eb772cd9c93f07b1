"""Every language's scenarios in one place: the sets a run picks from, and all the scripted
extraction model must know (it answers every language's turns, whichever set runs)."""

from __future__ import annotations

from collections.abc import Iterator

from memory_extproc.worker.echo import statements
from scenarios import (
    cases,
    cases_blind,
    cases_de,
    cases_es,
    cases_ja,
    cases_pt,
    cases_unseen,
    cases_zh,
)
from scenarios.cases import Scenario, Turn

# Each language's sets (`SCENARIO_LANG`, `SCENARIO_SET`); personal is written in English only,
# and Portuguese, a language the product has no rules of its own for, has recall only
SETS: dict[str, dict[str, tuple[Scenario, ...]]] = {
    "en": {
        "truth": cases.SCENARIOS,
        "variants": cases.VARIANTS,
        "personal": cases.PERSONAL,
        "changes": cases.CHANGES,
        "cascades": cases.CASCADES,
        "unseen": cases_unseen.UNSEEN_EN,
        "blind": cases_blind.BLIND_EN,
    },
    "zh": {
        "truth": cases_zh.SCENARIOS,
        "variants": cases_zh.VARIANTS,
        "changes": cases_zh.CHANGES,
        "cascades": cases_zh.CASCADES,
        "unseen": cases_unseen.UNSEEN_ZH,
        "blind": cases_blind.BLIND_ZH,
    },
    "es": {
        "truth": cases_es.SCENARIOS,
        "variants": cases_es.VARIANTS,
        "changes": cases_es.CHANGES,
        "cascades": cases_es.CASCADES,
        "unseen": cases_unseen.UNSEEN_ES,
        "blind": cases_blind.BLIND_ES,
    },
    "de": {
        "truth": cases_de.SCENARIOS,
        "variants": cases_de.VARIANTS,
        "changes": cases_de.CHANGES,
        "cascades": cases_de.CASCADES,
        "unseen": cases_unseen.UNSEEN_DE,
        "blind": cases_blind.BLIND_DE,
    },
    "ja": {
        "truth": cases_ja.SCENARIOS,
        "variants": cases_ja.VARIANTS,
        "changes": cases_ja.CHANGES,
        "cascades": cases_ja.CASCADES,
        "blind": cases_blind.BLIND_JA,
    },
    "pt": {"recall": cases_pt.RECALL},
}
# How the stand-in chat LLM restates a memory it was given, in each language
TOLD = {
    "en": cases.TOLD,
    "zh": cases_zh.TOLD,
    "es": cases_es.TOLD,
    "de": cases_de.TOLD,
    "ja": cases_ja.TOLD,
    "pt": cases_pt.TOLD,
}


def turns() -> Iterator[Turn]:
    """Every turn of every set, in every language."""
    for sets in SETS.values():
        for scenarios in sets.values():
            for scenario in scenarios:
                for session in scenario.sessions:
                    yield from session


def scripted_requests() -> dict[str, tuple[str, ...]]:
    """What the scripted model lists as the kinds of request each scripted fact bears on."""
    return {fact: turn.requests for turn in turns() for fact in turn.facts}


def scripted_facts() -> dict[str, tuple[tuple[str, ...], bool]]:
    """What the scripted extraction model answers to each message (as the extractor is shown
    it: its statements): its facts, and whether they end a related old fact."""
    return {statements(turn.said): (turn.facts, turn.ends) for turn in turns()}
