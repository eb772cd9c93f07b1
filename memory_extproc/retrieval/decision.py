"""Should this request search memory, and may its answer be learned from? Pure decisions; every
skip of a search has a named reason."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from memory_extproc.identity import HeaderSignals
from memory_extproc.lang import FILED, either, filed
from memory_extproc.languages import language_of
from memory_extproc.llm_api.requests import ChatRequest
from memory_extproc.words import speaks_of_self_in_any


class Skip(StrEnum):
    NO_USER = "no_user"  # no authenticated identity: never guess one
    OPTED_OUT = "opted_out"  # opt-out header
    DISABLED_BY_REQUEST = "disabled_by_request"  # memory_config.enabled = false
    ROUTE_EXCLUDED = "route_excluded"
    MODEL_EXCLUDED = "model_excluded"
    TOOL_OUTPUT = "tool_output"  # the request returns a tool result: a tool loop
    TOOL_SIGNAL = "tool_signal"  # an upstream classifier says a tool answers this
    FACT_QUERY = "fact_query"  # general-knowledge question, nothing personal in it
    GREETING = "greeting"
    NO_QUERY = "no_query"  # no user text to search with
    ZERO_LIMIT = "zero_limit"  # memory_config.retrieval_limit = 0


# a whole message of greetings or thanks, in any filed language ("Hi there!", "谢谢", "¡Hola!")
_GREETING = re.compile(
    rf"^[¡¿]?(?:{either([language.greetings for language in FILED])})[\s!.,！。，~]*$",
    re.IGNORECASE,
)
_GREETING_MAX_CHARS = 20


def is_greeting(query: str) -> bool:
    """Greeting or acknowledgement only: "Hi!" yes, "Hi, what's my budget?" no."""
    text = query.strip()
    return len(text) <= _GREETING_MAX_CHARS and bool(_GREETING.match(text))


@dataclass(frozen=True, slots=True)
class DecisionInput:
    has_user: bool
    opted_out: bool
    enabled_by_request: bool | None
    path_excluded: bool
    model_excluded: bool
    ends_with_tool_output: bool
    tool_signal: bool
    fact_signal: bool
    query: str
    limit: int


def _no_consent(
    has_user: bool, opted_out: bool, enabled: bool | None, tool_output: bool
) -> Skip | None:
    """Memory serves a known user who did not opt out or switch it off, outside tool loops:
    for searching a request and for learning from its answer alike."""
    if not has_user:
        return Skip.NO_USER
    if opted_out:
        return Skip.OPTED_OUT
    if enabled is False:
        return Skip.DISABLED_BY_REQUEST
    if tool_output:
        return Skip.TOOL_OUTPUT
    return None


def decide(facts: DecisionInput) -> Skip | None:
    """None means: search memory. Checks run cheapest and most certain first."""
    skip = _no_consent(
        facts.has_user, facts.opted_out, facts.enabled_by_request, facts.ends_with_tool_output
    )
    if skip is not None:
        return skip
    if facts.path_excluded:
        return Skip.ROUTE_EXCLUDED
    if facts.model_excluded:
        return Skip.MODEL_EXCLUDED
    if facts.limit <= 0:
        return Skip.ZERO_LIMIT
    if not facts.query.strip():
        return Skip.NO_QUERY
    if facts.tool_signal:
        return Skip.TOOL_SIGNAL
    if facts.fact_signal and not _personal(facts.query):
        return Skip.FACT_QUERY
    if is_greeting(facts.query):
        return Skip.GREETING
    return None


def _personal(query: str) -> bool:
    """The question speaks of its user, or is in a language whose words the rules cannot read
    (no file in lang/): an upstream "fact" signal does not turn it away unread."""
    return speaks_of_self_in_any(query) or filed(language_of(query)) is None


def learns_from_answer(headers: HeaderSignals, request: ChatRequest) -> bool:
    """The search's consent, and storing not switched off by the request. A tool loop's last
    request is learned from too: its answer is the one to the user's message, which the first
    request of the loop (answered by a tool call, no text) never had — the user's words were
    lost ("I moved to Lisbon…" answered through a tool). Learning reads only the user's and the
    assistant's words, never the tool's output."""
    options = request.options
    consent = _no_consent(bool(headers.user_id), headers.opted_out, options.enabled, False)
    return consent is None and options.auto_store is not False
