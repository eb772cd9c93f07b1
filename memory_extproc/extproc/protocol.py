"""ext_proc message helpers: read header maps, build the replies we send (prebuilt where fixed)."""

from __future__ import annotations

from memory_extproc._proto.envoy.config.core.v3 import base_pb2
from memory_extproc._proto.envoy.extensions.filters.http.ext_proc.v3 import processing_mode_pb2
from memory_extproc._proto.envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from memory_extproc._proto.envoy.type.v3 import http_status_pb2

ProcessingRequest = pb.ProcessingRequest
ProcessingResponse = pb.ProcessingResponse
Mode = processing_mode_pb2.ProcessingMode


def header_dict(header_map: base_pb2.HeaderMap) -> dict[str, str]:
    """Lower-cased names to values; repeated headers joined with ",". Envoy sends raw_value;
    bytes that are not UTF-8 become lone surrogates, which identity validation rejects."""
    headers: dict[str, str] = {}
    for header in header_map.headers:
        raw = header.raw_value
        value = raw.decode("utf-8", "surrogateescape") if raw else header.value
        key = header.key.lower()
        headers[key] = f"{headers[key]},{value}" if key in headers else value
    return headers


def _mode(
    response_body: Mode.BodySendMode,
    *,
    request_body: Mode.BodySendMode = Mode.BUFFERED,
    skip_response: bool = False,
) -> Mode:
    """A complete mode: a body mode left unset in an override means NONE."""
    return Mode(
        request_header_mode=Mode.SEND,
        response_header_mode=Mode.SKIP if skip_response else Mode.SEND,
        request_body_mode=request_body,
        response_body_mode=response_body,
        request_trailer_mode=Mode.SKIP,
        response_trailer_mode=Mode.SKIP,
    )


# Fixed replies, built once: most messages need nothing else.
CONTINUE_REQUEST_HEADERS = ProcessingResponse(request_headers=pb.HeadersResponse())
CONTINUE_REQUEST_BODY = ProcessingResponse(request_body=pb.BodyResponse())
CONTINUE_RESPONSE_HEADERS = ProcessingResponse(response_headers=pb.HeadersResponse())
CONTINUE_RESPONSE_BODY = ProcessingResponse(response_body=pb.BodyResponse())
CONTINUE_REQUEST_TRAILERS = ProcessingResponse(request_trailers=pb.TrailersResponse())
CONTINUE_RESPONSE_TRAILERS = ProcessingResponse(response_trailers=pb.TrailersResponse())

# Not an LLM request: let it through and ask Envoy for nothing more on this stream.
PASS_THROUGH = ProcessingResponse(
    request_headers=pb.HeadersResponse(),
    mode_override=_mode(Mode.NONE, request_body=Mode.NONE, skip_response=True),
)

# An LLM request: answers must come back uncompressed so they can be read.
LLM_REQUEST_HEADERS = ProcessingResponse(
    request_headers=pb.HeadersResponse(
        response=pb.CommonResponse(
            header_mutation=pb.HeaderMutation(remove_headers=["accept-encoding"])
        )
    )
)

# Response headers: stream SSE answers through as they come, buffer JSON, or ask for nothing.
RESPONSE_BODY_STREAMED = ProcessingResponse(
    response_headers=pb.HeadersResponse(), mode_override=_mode(Mode.STREAMED)
)
RESPONSE_BODY_BUFFERED = ProcessingResponse(
    response_headers=pb.HeadersResponse(), mode_override=_mode(Mode.BUFFERED)
)
RESPONSE_BODY_NONE = ProcessingResponse(
    response_headers=pb.HeadersResponse(), mode_override=_mode(Mode.NONE)
)


def is_sse(headers: dict[str, str]) -> bool:
    return headers.get("content-type", "").startswith("text/event-stream")


def answer_not_read(headers: dict[str, str]) -> ProcessingResponse:
    """An answer memory does not read: no body at all, but an SSE answer streamed through, never
    held (Envoy would buffer it to its end)."""
    return RESPONSE_BODY_STREAMED if is_sse(headers) else RESPONSE_BODY_NONE


CONTINUE_BY_KIND = {
    "request_headers": CONTINUE_REQUEST_HEADERS,
    "request_body": CONTINUE_REQUEST_BODY,
    "response_headers": CONTINUE_RESPONSE_HEADERS,
    "response_body": CONTINUE_RESPONSE_BODY,
    "request_trailers": CONTINUE_REQUEST_TRAILERS,
    "response_trailers": CONTINUE_RESPONSE_TRAILERS,
}


def with_metadata(
    reply: ProcessingResponse, namespace: str, values: dict[str, str]
) -> ProcessingResponse:
    """``reply`` (often a shared, prebuilt one: never changed) with dynamic metadata for Envoy
    to write under ``namespace``."""
    sent = ProcessingResponse()
    sent.CopyFrom(reply)
    sent.dynamic_metadata.update({namespace: values})
    return sent


def replace_request_body(body: bytes) -> ProcessingResponse:
    """Envoy answers 500 unless a replaced buffered body comes with its new content-length."""
    return ProcessingResponse(
        request_body=pb.BodyResponse(
            response=pb.CommonResponse(
                header_mutation=pb.HeaderMutation(
                    set_headers=[
                        base_pb2.HeaderValueOption(
                            header=base_pb2.HeaderValue(
                                key="content-length", raw_value=str(len(body)).encode()
                            ),
                            append_action=base_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD,
                        )
                    ]
                ),
                body_mutation=pb.BodyMutation(body=body),
            )
        )
    )


def immediate(status: int, body: bytes) -> ProcessingResponse:
    """Answer the client ourselves (the memory API): nothing goes upstream."""
    headers = [
        base_pb2.HeaderValueOption(
            header=base_pb2.HeaderValue(key="content-type", raw_value=b"application/json"),
            append_action=base_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD,
        )
    ]
    return ProcessingResponse(
        immediate_response=pb.ImmediateResponse(
            status=http_status_pb2.HttpStatus(code=status),  # type: ignore[arg-type]
            headers=pb.HeaderMutation(set_headers=headers if body else []),
            body=body,
            details="memory_api",
        )
    )
