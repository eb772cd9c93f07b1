"""Which turns to extract, and when: every N turns of a conversation, and when it goes idle.

Chat Completions requests carry their whole history, so the trigger is arithmetic on the request
itself (turn k with k % N == 0): any replica decides the same. Two things need state, kept here
bounded per process and, with replicas, shared (learning/shared.py): the idle flush (turns after
the last multiple of N, and what is already extracted), and Responses API chains
(``previous_response_id`` names a turn whose history the request does not repeat, and it may
have been answered through another replica).

No I/O here: what other replicas left is read by the caller first (``reads`` says what a turn
needs, ``idle_keys`` what an idle flush does) and handed in as ``Elsewhere``; what this process
learns of a conversation goes out through ``SharedState.save``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from memory_extproc.compression.state import fingerprint, is_dialogue, opening
from memory_extproc.handoff import Batch
from memory_extproc.llm_api.requests import Turn

CONTEXT_MESSAGES = 5  # messages before the new turns, so the extractor knows what they refer to
MAX_RECALLED = 50  # injected memories remembered per conversation until its next batch


@dataclass(frozen=True, slots=True)
class CapturedTurn:
    """One finished exchange: what the request carried, and the answer."""

    user_id: str
    project_id: str
    turns: tuple[Turn, ...]  # the request's conversation, up to and including this user message
    answer: str
    at_ms: int  # when it happened (epoch ms)
    response_id: str = ""  # Responses API
    previous_response_id: str = ""
    recalled: tuple[str, ...] = ()  # memories injected into the request: never learned back
    received_ms: int = 0  # wall clock when its request arrived (at_ms may be a replayed date)
    traceparent: str = ""  # its request's span, when traces are on
    receipt: str = ""  # the receipt its response named (memory_extproc/receipts.py)
    injected: tuple[str, ...] = ()  # the ids of the recalled memories, for the receipt
    # As the client sent them (before anything is masked), for compression/state.py: its
    # conversation's key, its dialogue messages with text (the answer too), the last one's
    # fingerprint.
    opening: str = ""
    said: int = 0
    tail: str = ""
    compress: bool = False  # its request asked for compression: a running state is kept


@dataclass
class _Conversation:
    user_id: str
    project_id: str
    messages: list[Turn]  # user/assistant messages, bounded
    turn: int  # index of the latest turn (1-based)
    extracted_upto: int
    at_ms: int
    last_seen: float
    recalled: list[str]  # injected since the last batch, bounded
    received: list[int]  # received_ms of each turn not yet extracted, oldest first (0: unknown)
    receipts: list[str]  # the receipt of each of them, as ``received`` ("": none)
    traceparent: str = ""  # the latest turn's request span
    size: int = 0  # dialogue messages so far, as the client sent them (0: not known)
    tail: str = ""  # fingerprint of the last one
    extracted_size: int = 0  # ``size`` when its last batch was cut
    summarize: bool = False  # a request of it asked for compression: keep its running state
    summary: str = ""  # …the state, as the worker last wrote it


def _dialogue(turns: tuple[Turn, ...]) -> list[Turn]:
    """What extraction reads: the user's and the assistant's words (not system prompts or tool
    output, which are not the user speaking)."""
    return [t for t in turns if is_dialogue(t.role, t.text)]


PendingHook = Callable[[str, "Batch | None"], None]


class SharedState(Protocol):
    """Where a conversation's state goes for other replicas (learning/shared.py)."""

    def save(
        self, user_id: str, project_id: str, key: str, state: dict[str, Any], response_id: str
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class Reads:
    """What recording a turn needs to know of other replicas: the conversation a Responses
    answer (``response_id``) belongs to, when this process has not seen it; and the states of
    the conversations ``keys`` (the user's, for ``user_id``)."""

    user_id: str
    response_id: str
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """What other replicas left, read before a turn is recorded or an idle flush: the
    conversation ``Reads.response_id`` belongs to, and conversations' states by key."""

    chain: str | None = None
    states: Mapping[str, dict[str, Any]] = field(default_factory=dict)


class TurnTracker:
    def __init__(
        self,
        every: int,
        *,
        max_conversations: int = 10_000,
        on_pending: PendingHook | None = None,
        shared: SharedState | None = None,
    ) -> None:
        """``on_pending(conversation, batch)`` hears of each conversation's turns not yet in a
        batch (as the batch an idle flush would cut now), or None once they are in one: the
        spool keeps them, so a killed processor loses none."""
        self._every = every
        self._max = max_conversations
        self._on_pending = on_pending
        self._shared = shared
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        # (user id, project id, response id) → conversation key: a response id another user (or
        # project) names is no way into this user's conversation
        self._chains: OrderedDict[tuple[str, str, str], str] = OrderedDict()

    def reads(self, captured: CapturedTurn) -> Reads:
        """What ``record`` wants to know of other replicas for this turn."""
        known = self._known_chain(captured)
        unknown = captured.previous_response_id if known is None else ""
        keys = (known, _opening(captured)) if known is not None else (_opening(captured),)
        return Reads(captured.user_id, unknown, keys)

    def record(
        self, captured: CapturedTurn, now: float, elsewhere: Elsewhere = Elsewhere()
    ) -> Batch | None:
        """Remember the turn; a batch when it completes N turns. ``elsewhere``: what other
        replicas left, as ``reads`` asked."""
        previous = self._known_chain(captured) or elsewhere.chain
        state = self._newest(captured, previous, now, elsewhere) if previous else None
        dialogue = [*_dialogue(captured.turns), Turn("assistant", captured.answer)]
        size = captured.said
        if previous is not None and state is not None:  # a Responses chain we followed
            key = previous
            messages = state.messages + dialogue
            turn = state.turn + sum(1 for t in dialogue if t.role == "user")
            size = state.size + captured.said if state.size else 0
        else:
            key = _opening(captured)
            messages = dialogue
            turn = sum(1 for t in dialogue if t.role == "user")
            state = self._newest(captured, key, now, elsewhere)
        extracted = (
            state.extracted_upto if state is not None and state.extracted_upto <= turn else 0
        )
        if turn % self._every == 0:
            extracted = max(extracted, turn - self._every)
        recalled = state.recalled if state is not None else []
        waiting = turn - extracted - 1  # turns before this one not yet extracted
        earlier = state.received[-waiting:] if state is not None and waiting > 0 else []
        named = state.receipts[-waiting:] if state is not None and waiting > 0 else []
        conversation = _Conversation(
            captured.user_id,
            captured.project_id,
            _bounded(messages, self._every),
            turn,
            extracted,
            captured.at_ms,
            now,
            list(dict.fromkeys([*recalled, *captured.recalled]))[-MAX_RECALLED:],
            [0] * (waiting - len(earlier)) + earlier + [captured.received_ms],
            [""] * (waiting - len(named)) + named + [captured.receipt],
            captured.traceparent,
            size,
            captured.tail,
            state.extracted_size if state is not None and extracted else 0,
            captured.compress or (state is not None and state.summarize),
            state.summary if state is not None else "",
        )
        batch = None
        if turn % self._every == 0 and turn > extracted:
            batch = _batch(key, conversation, "every_n")
            _extracted(conversation)
        self._remember(key, conversation)
        self._share(key, conversation, captured.response_id)
        if self._on_pending is not None:
            pending = conversation.turn > conversation.extracted_upto
            self._on_pending(key, _batch(key, conversation, "idle") if pending else None)
        if captured.response_id:
            chain = (captured.user_id, captured.project_id, captured.response_id)
            self._chains[chain] = key
            self._chains.move_to_end(chain)
            while len(self._chains) > self._max:
                self._chains.popitem(last=False)
        return batch

    def idle_keys(self, now: float, idle_s: float) -> list[tuple[str, str]]:
        """The conversations (user id, key) an idle flush at ``now`` would cut: their states
        elsewhere are what ``idle`` wants to know."""
        return [(c.user_id, key) for key, c in self._conversations.items() if _idle(c, now, idle_s)]

    def idle(
        self, now: float, idle_s: float, elsewhere: Mapping[str, dict[str, Any]] | None = None
    ) -> list[Batch]:
        """Batches for conversations quiet for ``idle_s`` with turns not yet extracted, unless
        another replica saw a later turn (``elsewhere``: states by key, as ``idle_keys``
        asked)."""
        batches = []
        for key, conversation in self._conversations.items():
            if _idle(conversation, now, idle_s):
                later = _later((elsewhere or {}).get(key), conversation)
                if not later:
                    batches.append(_batch(key, conversation, "idle"))
                _extracted(conversation)
                if not later:  # what is extracted now, for whoever sees its next turn
                    self._share(key, conversation, "")
                if self._on_pending is not None:
                    self._on_pending(key, None)
        return batches

    def flush_keys(self) -> list[tuple[str, str]]:
        return self.idle_keys(float("inf"), 0.0)

    def flush_all(self, elsewhere: Mapping[str, dict[str, Any]] | None = None) -> list[Batch]:
        """Everything not yet extracted (shutdown)."""
        return self.idle(float("inf"), 0.0, elsewhere)

    def forget(self, user_id: str, project_id: str | None) -> int:
        """Drop the user's turns not yet extracted (of one project, or all): a forget takes
        what is pending too. The conversations stay known, so their later turns are learned
        without these. Returns how many turns were dropped."""
        dropped = 0
        for key, conversation in self._conversations.items():
            if conversation.user_id != user_id or project_id not in (
                None,
                conversation.project_id,
            ):
                continue
            dropped += conversation.turn - conversation.extracted_upto
            if conversation.turn > conversation.extracted_upto and self._on_pending is not None:
                self._on_pending(key, None)
            _extracted(conversation)
        return dropped

    def summarized(self, key: str, summary: str) -> None:
        """The running state the worker wrote for the conversation: its next batch builds on
        it (shared with the conversation's next turn)."""
        conversation = self._conversations.get(key)
        if conversation is not None:
            conversation.summary = summary

    def _known_chain(self, captured: CapturedTurn) -> str | None:
        """The conversation a Responses request continues, when this process saw its answer."""
        previous = captured.previous_response_id
        if not previous:
            return None
        return self._chains.get((captured.user_id, captured.project_id, previous))

    def _newest(
        self, captured: CapturedTurn, key: str, now: float, elsewhere: Elsewhere
    ) -> _Conversation | None:
        """Our state of the conversation, or another replica's when it saw a later turn."""
        state = self._conversations.get(key)
        other = _readable(elsewhere.states.get(key), captured, now)
        if other is None or (state is not None and state.turn >= other.turn):
            return state
        return other

    def _share(self, key: str, conversation: _Conversation, response_id: str) -> None:
        if self._shared is not None:
            self._shared.save(conversation.user_id, conversation.project_id, key,
                              _shareable(conversation), response_id)  # fmt: skip

    def _remember(self, key: str, conversation: _Conversation) -> None:
        self._conversations[key] = conversation
        self._conversations.move_to_end(key)
        while len(self._conversations) > self._max:
            self._conversations.popitem(last=False)


def _opening(captured: CapturedTurn) -> str:
    """A conversation's key: who, and how it began (its first question and answer)."""
    if captured.opening:
        return captured.opening
    dialogue = [*_dialogue(captured.turns), Turn("assistant", captured.answer)]
    return opening(captured.user_id, captured.project_id, [(t.role, t.text) for t in dialogue])


def as_sent(turn: CapturedTurn) -> dict[str, Any]:
    """What compression names the turn by (compression/state.py), read before any masking:
    a request is matched against the conversation as the client sends it."""
    said = [(t.role, t.text) for t in _dialogue(turn.turns)]
    if is_dialogue("assistant", turn.answer):
        said.append(("assistant", turn.answer))
    key = "" if turn.previous_response_id else opening(turn.user_id, turn.project_id, said)
    return {"opening": key, "said": len(said), "tail": fingerprint(said[-1][1]) if said else ""}


def _idle(conversation: _Conversation, now: float, idle_s: float) -> bool:
    return (
        now - conversation.last_seen >= idle_s and conversation.turn > conversation.extracted_upto
    )


def _later(other: dict[str, Any] | None, conversation: _Conversation) -> bool:
    """Another replica saw a later turn: its state holds these turns too, and it (or whoever
    adopts its spool) extracts them."""
    turn = other.get("turn") if other is not None else None
    return isinstance(turn, int) and turn > conversation.turn


def _shareable(conversation: _Conversation) -> dict[str, Any]:
    return {
        "messages": [[t.role, t.text] for t in conversation.messages],
        "turn": conversation.turn,
        "extracted_upto": conversation.extracted_upto,
        "at_ms": conversation.at_ms,
        "recalled": conversation.recalled,
        "received": conversation.received,
        "receipts": conversation.receipts,
        "size": conversation.size,
        "tail": conversation.tail,
        "extracted_size": conversation.extracted_size,
        "summarize": conversation.summarize,
        "summary": conversation.summary,
    }


def _readable(
    state: dict[str, Any] | None, captured: CapturedTurn, now: float
) -> _Conversation | None:
    """Another replica's state, or None when there is none or it is not in our shape (a file
    from another release, or damaged: that conversation goes on from what the request holds)."""
    if state is None:
        return None
    try:
        return _from_shared(state, captured, now)
    except (KeyError, TypeError, ValueError):
        return None


def _from_shared(state: dict[str, Any], captured: CapturedTurn, now: float) -> _Conversation:
    turn, extracted, at_ms = (int(state[k]) for k in ("turn", "extracted_upto", "at_ms"))
    return _Conversation(
        captured.user_id,
        captured.project_id,
        [Turn(str(role), str(text)) for role, text in state["messages"]],
        turn,
        extracted,
        at_ms,
        now,
        [str(r) for r in state["recalled"]],
        [int(r) for r in state["received"]],
        [str(r) for r in state.get("receipts", ())],  # none in a state of 0.1.x
        size=int(state.get("size", 0)),
        tail=str(state.get("tail", "")),
        extracted_size=int(state.get("extracted_size", 0)),
        summarize=bool(state.get("summarize", False)),
        summary=str(state.get("summary", "")),
    )


def _extracted(conversation: _Conversation) -> None:
    conversation.extracted_upto = conversation.turn
    conversation.extracted_size = conversation.size
    conversation.recalled = []
    conversation.received = []
    conversation.receipts = []


def _bounded(messages: list[Turn], every: int) -> list[Turn]:
    """Enough history for one batch: N turns (user + answer each) plus the context."""
    return messages[-(2 * every + CONTEXT_MESSAGES + 2) :]


def _batch(key: str, conversation: _Conversation, reason: str) -> Batch:
    new_turns = conversation.turn - conversation.extracted_upto
    messages = conversation.messages
    user_positions = [i for i, t in enumerate(messages) if t.role == "user"]
    first_new = user_positions[-new_turns] if len(user_positions) >= new_turns else 0
    start = max(0, first_new - CONTEXT_MESSAGES)
    return Batch(
        conversation.user_id,
        conversation.project_id,
        tuple(messages[start:]),
        new_turns,
        conversation.at_ms,
        reason,
        tuple(conversation.recalled),
        received=tuple(conversation.received[-new_turns:]) if new_turns else (),
        receipts=tuple(conversation.receipts[-new_turns:]) if new_turns else (),
        traceparent=conversation.traceparent,
        conversation=key,
        size=conversation.size,
        fresh=max(0, conversation.size - conversation.extracted_size),
        tail=conversation.tail,
        summarize=conversation.summarize,
        summary=conversation.summary,
    )
