"""Async front of the embedder: micro-batches concurrent calls on one dedicated thread.

Calls that arrive while the model is busy wait for the next run and go in together, so under load
one ONNX run serves many requests, and at low load a call waits for no timer. The thread is
dedicated so the hot path never queues behind unrelated work in the loop's default executor.
Every text, query or memory, enters the vector space in the memory voice (``in_memory_voice``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from memory_extproc import metrics
from memory_extproc.words import in_memory_voice


class Embedder(Protocol):
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class EmbeddingBatcher:
    def __init__(
        self,
        embedder: Embedder,
        *,
        max_batch: int = 32,
        cache_size: int = 1024,
        name: str = "embed",
    ) -> None:
        self.dimension = embedder.dimension
        self._embedder = embedder
        self._max_batch = max_batch
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._executor = ThreadPoolExecutor(
            max_workers=1,
            thread_name_prefix=name,
        )
        self._pending: list[tuple[str, asyncio.Future[np.ndarray]]] = []
        self._draining = False
        self._drain_task: asyncio.Task[None] | None = None
        self._name = name

    async def embed(self, text: str) -> np.ndarray:
        text = in_memory_voice(text)
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        loop = asyncio.get_running_loop()
        if self._draining:  # the model is busy: wait for the next batch
            future: asyncio.Future[np.ndarray] = loop.create_future()
            self._pending.append((text, future))
            return await future
        # Idle: run at once, without a batch's task and futures (two hand-offs fewer per query
        # at low rates); whoever arrives meanwhile goes in the next batch.
        self._draining = True
        try:
            return (await self._run([text]))[text]
        finally:
            if self._pending:
                self._drain_task = loop.create_task(self._drain())
            else:
                self._draining = False

    async def embed_many(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack(await asyncio.gather(*(self.embed(t) for t in texts)))

    def clear_cache(self) -> None:
        """After a forget: no text it was asked to embed stays here."""
        self._cache.clear()

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _run(self, texts: list[str]) -> dict[str, np.ndarray]:
        loop = asyncio.get_running_loop()
        with metrics.EMBEDDING_SECONDS.labels(self._name).time():
            vectors = await loop.run_in_executor(self._executor, self._embedder.embed, texts)
        metrics.EMBEDDING_BATCH_SIZE.labels(self._name).observe(len(texts))
        by_text = {t: vectors[i] for i, t in enumerate(texts)}
        for text, vector in by_text.items():
            vector.setflags(write=False)
            self._remember(text, vector)
        return by_text

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch = self._pending[: self._max_batch]
                del self._pending[: self._max_batch]
                batch = [(t, f) for t, f in batch if not f.done()]  # callers past their budget
                if not batch:
                    continue
                try:
                    by_text = await self._run(list(dict.fromkeys(t for t, _ in batch)))
                except Exception as exc:  # every waiter gets the failure
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for text, future in batch:
                    if not future.done():
                        future.set_result(by_text[text])
        finally:
            self._draining = False

    def _remember(self, text: str, vector: np.ndarray) -> None:
        self._cache[text] = vector
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
