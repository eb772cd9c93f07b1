"""One trace per request: Envoy's OpenTelemetry tracer and the processor (and its worker) export
to the same OTLP receiver, a real gRPC TraceService in this test; our spans are children of
Envoy's ext_proc span, the learning job links to the request it learns from, and no span
carries a user id or a memory's words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from devstack.milvus import MilvusProcess
from devstack.mock_llm import MockLLM
from devstack.otlp import OtlpReceiver
from devstack.tokens import DevIdentity
from tests.integration.conftest import Stack, running_stack, until
from tests.integration.test_response_path import EXTRACTOR, Extractor, llm_settings

pytestmark = pytest.mark.integration


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[OtlpReceiver, int]]:
    collector = OtlpReceiver()
    port = await collector.start()
    yield collector, port
    await collector.stop()


@pytest.fixture
async def traced(
    tmp_path: Path,
    milvus: MilvusProcess,
    llm: MockLLM,
    identity: DevIdentity,
    receiver: tuple[OtlpReceiver, int],
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Stack]:
    _, otlp_port = receiver
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{otlp_port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")  # export within 0.1 s
    memory = llm_settings(llm.port)
    memory["extraction_batch_size"] = 1
    async with running_stack(
        tmp_path, f"127.0.0.1:{milvus.port}", llm, identity, collection="it_tracing",
        memory=memory, otlp=("127.0.0.1", otlp_port),
    ) as stack:  # fmt: skip
        yield stack
    llm.on_model(EXTRACTOR, None)


async def test_envoy_the_processor_and_the_learning_job_in_one_trace(
    traced: Stack, receiver: tuple[OtlpReceiver, int], llm: MockLLM, user: str
) -> None:
    collector, _ = receiver
    extractor = Extractor()
    extractor.facts = {"violin": ["User plays the violin"]}
    llm.on_model(EXTRACTOR, extractor)
    status, _ = await traced.api("POST", "/v1/memory", {"content": "I live in Lisbon"}, user=user)
    assert status == 201
    status, _, received = await traced.post(
        "/v1/chat/completions",
        {"model": "m", "messages": [{"role": "user",
                                     "content": "Where do I live? I play the violin."}]},
        user=user,
    )  # fmt: skip
    assert status == 200
    assert received is not None

    async def traced_through() -> bool:
        return bool(collector.named("memory.request") and collector.named("memory.learning"))

    await until(traced_through, 30)
    (request,) = collector.named("memory.request")
    await until(lambda: _from_envoy(collector, request.parent_span_id), 30)  # flushed every 5 s
    envoy = {s.span_id: s for service, s in collector.spans if service == "envoy"}
    assert request.parent_span_id in envoy  # Envoy's span of the ext_proc call
    assert envoy[request.parent_span_id].trace_id == request.trace_id
    ours = {span.name: span for service, span in collector.spans if service == "memory-extproc"}
    for step in ("memory.decision", "memory.embedding", "search_memory", "memory.ranking",
                 "memory.context", "memory.injection"):  # fmt: skip
        assert ours[step].parent_span_id == request.span_id, step
        assert ours[step].trace_id == request.trace_id
    attributes = {a.key: a.value for a in request.attributes}
    assert attributes["memory.outcome"].string_value == "injected"
    (job,) = collector.named("memory.learning")
    assert [(link.trace_id, link.span_id) for link in job.links] == [
        (request.trace_id, request.span_id)
    ]
    assert ours["memory.extraction"].parent_span_id == job.span_id
    assert ours["upsert_memory"].parent_span_id == job.span_id
    # OpenTelemetry's GenAI memory operations: what was done, to how many records
    search = {a.key: a.value for a in ours["search_memory"].attributes}
    assert search["gen_ai.operation.name"].string_value == "search_memory"
    assert search["gen_ai.memory.record.count"].int_value >= 1
    upsert = {a.key: a.value for a in ours["upsert_memory"].attributes}
    assert upsert["gen_ai.operation.name"].string_value == "upsert_memory"
    assert upsert["gen_ai.memory.record.count"].int_value == 1  # the violin
    (api,) = collector.named("memory.api")
    told = {a.key: a.value.string_value for a in api.attributes}
    assert told["memory.api.route"] == "/v1/memory"
    assert told["gen_ai.operation.name"] == "create_memory"

    # Privacy: no user id and no memory words in any of our spans
    for service, span in collector.spans:
        if service != "memory-extproc":
            continue
        text = orjson.dumps([str(a.value) for a in span.attributes]).decode()
        for secret in (user, "Lisbon", "violin"):
            assert secret not in text
            assert secret not in span.name


async def _from_envoy(collector: OtlpReceiver, span_id: bytes) -> bool:
    return any(s.span_id == span_id for service, s in collector.spans if service == "envoy")
