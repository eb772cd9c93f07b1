"""What the processor hands the worker process: batches of turns to learn from (and usage
counts, memories/retention.py). Pickled across the process boundary and kept in the spool."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from memory_extproc.llm_api.requests import Turn


@dataclass(frozen=True, slots=True)
class ForgetCachedTexts:
    """A memory was forgotten: the worker empties its caches of memory texts too."""


@dataclass(frozen=True, slots=True)
class Batch:
    user_id: str
    project_id: str
    messages: tuple[Turn, ...]  # context, then the turns to extract
    new_turns: int
    at_ms: int
    reason: str  # "every_n", "idle", or "recovered" (from the spool of an earlier run)
    recalled: tuple[str, ...] = ()  # memories injected into these turns' requests
    entry: str = ""  # its spool entry (learning/spool.py): the worker says when it is done
    attempt: int = 0  # failed jobs for it so far (it is offered again, a few times)
    # When each new turn's request arrived (wall clock, epoch ms, oldest first); 0: not known (a
    # turn only seen in a later request's history, or a spool entry of an older release).
    received: tuple[int, ...] = ()
    receipts: tuple[str, ...] = ()  # each new turn's receipt id, as ``received`` ("": none)
    traceparent: str = ""  # the request span of its latest turn, linked from the job's span
    # For compression (compression/state.py): its conversation's key, how many dialogue
    # messages it had when the batch was cut (0: not known), how many of them came after the
    # last batch (an assistant's message no request was answered with too), and the last one's
    # fingerprint.
    conversation: str = ""
    size: int = 0
    fresh: int = 0
    tail: str = ""
    summarize: bool = False  # keep the conversation's running state (compression/state.py)
    summary: str = ""  # …as it was before these turns

    def after(self, forgotten_at: int) -> Batch | None:
        """The batch without the turns said at or before a forget of their user (None when
        none is left): what a user asked to forget is never learned, however late its batch
        runs. Turns of unknown time count as said before any forget."""
        if forgotten_at <= 0:
            return self
        known = self.received[max(0, len(self.received) - self.new_turns) :]
        later = tuple(t for t in known if t > forgotten_at)  # turns come in order
        if not later:
            return None
        kept = self.receipts[max(0, len(self.receipts) - len(later)) :]
        return dataclasses.replace(self, new_turns=len(later), received=later, receipts=kept)

    @property
    def said(self) -> str:
        """What the user said in the new turns (the context before them is not new)."""
        users = [t.text for t in self.messages if t.role == "user"]
        return "\n".join(users[-self.new_turns :]) if self.new_turns else ""

    @property
    def last_exchange(self) -> tuple[str, str]:
        """The last user message and the answer to it."""
        question = next((t.text for t in reversed(self.messages) if t.role == "user"), "")
        return question, self.messages[-1].text if self.messages else ""
