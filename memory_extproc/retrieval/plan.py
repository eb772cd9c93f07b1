"""From a parsed request and its headers to a decision: skip (with a reason) or a search plan."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory_extproc.identity import HeaderSignals
from memory_extproc.llm_api.requests import ChatRequest
from memory_extproc.retrieval.decision import DecisionInput, Skip, decide
from memory_extproc.retrieval.open_requests import is_open_request
from memory_extproc.retrieval.own_life import Own, referred
from memory_extproc.retrieval.query import build_search_query, is_self_contained
from memory_extproc.retrieval.rank import RankPolicy
from memory_extproc.store.model import MemoryType


@dataclass(frozen=True, slots=True)
class RetrievalPolicy:
    """What the operator allows; a request's ``memory_config`` can only narrow it."""

    limit: int = 5
    threshold: float = 0.45
    max_context_chars: int = 1200
    excluded_paths: frozenset[str] = frozenset()
    excluded_models: frozenset[str] = frozenset()
    ranking: RankPolicy = field(default_factory=RankPolicy)
    preferences: bool = True  # open requests are given the standing preferences near them


@dataclass(frozen=True, slots=True)
class SearchPlan:
    query: str
    limit: int
    threshold: float
    types: tuple[MemoryType, ...]
    vague: bool = False  # the message needs its conversation to be searched (rewrite candidate)
    # asks for something chosen or made for the user: the preferences near it join the search
    preferences: bool = False
    # refers to the user's home or work ("near me", "before work"): the memory saying it joins
    about: tuple[Own, ...] = ()


def plan_retrieval(
    request: ChatRequest, signals: HeaderSignals, policy: RetrievalPolicy
) -> Skip | SearchPlan:
    options = request.options
    limit = policy.limit
    if options.retrieval_limit is not None:
        limit = min(limit, options.retrieval_limit)
    if options.memory_types == ():  # a list naming no known type narrows to nothing
        limit = 0
    threshold = policy.threshold
    if options.similarity_threshold is not None:
        threshold = max(threshold, options.similarity_threshold)
    skip = decide(
        DecisionInput(
            has_user=bool(signals.user_id),
            opted_out=signals.opted_out,
            enabled_by_request=options.enabled,
            path_excluded=signals.path in policy.excluded_paths,
            model_excluded=request.model in policy.excluded_models,
            ends_with_tool_output=request.ends_with_tool_output,
            tool_signal=signals.tool_signal,
            fact_signal=signals.fact_signal,
            query=request.query,
            limit=limit,
        )
    )
    if skip is not None:
        return skip
    types = options.memory_types or ()
    return SearchPlan(
        query=build_search_query(request.query, request.earlier_user_messages),
        limit=limit,
        threshold=threshold,
        types=types,
        vague=bool(request.earlier_user_messages) and not is_self_contained(request.query),
        # a request that raised the bar wants close matches only: no preference below it
        preferences=policy.preferences
        and threshold <= policy.threshold
        and (not types or MemoryType.PREFERENCE in types)
        and is_open_request(request.query),
        # …and a request that narrowed the types or raised the bar gets what it asked for only
        about=referred(request.query) if not types and threshold <= policy.threshold else (),
    )
