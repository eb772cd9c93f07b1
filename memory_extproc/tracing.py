"""OpenTelemetry traces, off unless configured by the standard variables.

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) set, each
process exports its spans over OTLP/gRPC (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_BSP_*``, ``OTEL_TRACES_SAMPLER``… as the SDK reads them); ``OTEL_SDK_DISABLED=true`` or
``OTEL_TRACES_EXPORTER=none`` keep them off. Request spans are children of Envoy's (its
``traceparent`` header); a learning job links to the request it learns from. Span attributes
never hold memory contents or user ids: counts, outcomes, kinds and sizes only.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

log = logging.getLogger(__name__)

# OpenTelemetry's GenAI conventions for memory operations (gen_ai.memory.client spans): the
# span is named after its operation, which says what it did to how many records. Their opt-in
# attributes (the query's text, the records themselves) are never set: no memory's words.
OPERATION = "gen_ai.operation.name"
RECORD_COUNT = "gen_ai.memory.record.count"
SEARCH_MEMORY, UPSERT_MEMORY = "search_memory", "upsert_memory"
CREATE_MEMORY, UPDATE_MEMORY, DELETE_MEMORY = "create_memory", "update_memory", "delete_memory"
SERVICE_NAME = "memory-extproc"  # unless OTEL_SERVICE_NAME says otherwise
tracer = trace.get_tracer("memory_extproc")
_PROPAGATOR = TraceContextTextMapPropagator()
_enabled = False
# Traces off: one shared span that records nothing (the API's no-op span still costs ~5 µs each,
# seven times per retrieval).
_NO_SPAN = nullcontext(trace.INVALID_SPAN)


def configure() -> bool:
    """Export this process's spans (the processor's or the worker's) if the environment asks
    for it; True when it does."""
    global _enabled
    env = os.environ
    endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    off = env.get("OTEL_SDK_DISABLED", "").lower() == "true" or (
        env.get("OTEL_TRACES_EXPORTER", "otlp").lower() == "none"
    )
    if not endpoint or off:
        return False
    # imported here: a process without tracing never loads the SDK and the exporter
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create(
        {"service.name": env.get("OTEL_SERVICE_NAME", SERVICE_NAME)}
    )  # OTEL_RESOURCE_ATTRIBUTES are merged in by Resource.create
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _enabled = True
    log.info("Traces exported over OTLP", extra={"endpoint": endpoint})
    return True


def traced(name: str, **kwargs: Any) -> AbstractContextManager[trace.Span]:
    """A span that records no exception: their messages may hold a user id (a store filter)."""
    if not _enabled:
        return _NO_SPAN
    return tracer.start_as_current_span(
        name, record_exception=False, set_status_on_exception=False, **kwargs
    )


def enabled() -> bool:
    return _enabled


def incoming(headers: Mapping[str, str]) -> Context | None:
    """The trace a request belongs to (W3C ``traceparent``), when tracing is on."""
    if not _enabled or "traceparent" not in headers:
        return None
    return _PROPAGATOR.extract(headers)


def current_traceparent() -> str:
    """The current span as a ``traceparent`` value, to link work done later elsewhere."""
    if not _enabled:
        return ""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier.get("traceparent", "")


def linked(traceparent: str) -> list[trace.Link]:
    """A link to the span a ``traceparent`` names (a learning job to its request)."""
    if not traceparent:
        return []
    context = trace.get_current_span(_PROPAGATOR.extract({"traceparent": traceparent}))
    span_context = context.get_span_context()
    return [trace.Link(span_context)] if span_context.is_valid else []


def shutdown() -> None:
    """Export what is buffered (on a clean stop)."""
    provider = trace.get_tracer_provider()
    if _enabled and hasattr(provider, "shutdown"):
        provider.shutdown()
