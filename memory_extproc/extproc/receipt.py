"""What memory did to one request, told to the client that sent it: the `x-memory-receipt`
response header. The processor writes it into the request's dynamic metadata with its answer to
the request body, and Envoy adds it to the response (envoy/envoy.yaml: `metadata_options` and
`response_headers_to_add`), so no request waits for another exchange to carry it. Pure.

    x-memory-receipt: outcome=injected; memories=mem_1f…,mem_9a…; learning=on; receipt=rcpt_4c…

* ``outcome``: the retrieval's (``injected``, ``no_results``, ``timeout``…) or why it was
  skipped (``greeting``, ``opted_out``…);
* ``memories``: the ids of the memories injected, best first (``GET /v1/memory/{id}`` shows
  each), absent when none was;
* ``learning``: ``on`` when this turn's answer is read and handed to the worker to learn from;
* ``receipt``: with learning on, where to ask what became of the turn,
  ``GET /v1/memory/receipts/{id}`` (memory_extproc/receipts.py);
* ``compression``: when the request asked for it, ``compressed`` with ``replaced`` (messages
  left out) and ``tokens`` (the conversation's, before and after, estimated), or why it went as
  sent (``short``, ``no_state``…: docs/concepts/compression.md), and ``conversation``: what
  the memory API shows and deletes of it (``/v1/memory/conversations/{id}``).

    x-memory-receipt: outcome=injected; …; compression=compressed; replaced=212; tokens=6070->904

Ids and outcomes only, never a memory's words: the header may be logged by anything between
the gateway and the client.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_extproc.compression.plan import NotCompressed
from memory_extproc.retrieval.service import Compressed

NAMESPACE = "memory_extproc"  # the dynamic metadata namespace Envoy lets the processor write
KEY = "receipt"


def receipt(
    outcome: str,
    memory_ids: Sequence[str],
    receipt_id: str,
    compression: Compressed | NotCompressed | None = None,
    conversation: str = "",
) -> str:
    """``receipt_id``: "" when the answer is not learned from."""
    parts = [f"outcome={outcome}"]
    if memory_ids:
        parts.append(f"memories={','.join(memory_ids)}")
    parts.append(f"learning={'on' if receipt_id else 'off'}")
    if receipt_id:
        parts.append(f"receipt={receipt_id}")
    if isinstance(compression, Compressed):
        parts += ["compression=compressed", f"replaced={compression.replaced}",
                  f"tokens={compression.tokens_before}->{compression.tokens_after}"]  # fmt: skip
    elif compression is not None:
        parts.append(f"compression={compression.value}")
    if conversation:
        parts.append(f"conversation={conversation}")
    return "; ".join(parts)
