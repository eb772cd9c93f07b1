"""Our hand-written proto subset is byte-compatible with Envoy's canonical messages.

envoy-data-plane (betterproto2 classes generated from Envoy's own .proto files) is the oracle.
Every message kind the processor receives or sends is checked in the direction it travels.
"""

from __future__ import annotations

import pytest
from envoy_data_plane.envoy.config.core import v3 as core
from envoy_data_plane.envoy.extensions.filters.http.ext_proc import v3 as filter_v3
from envoy_data_plane.envoy.service.ext_proc import v3 as canonical
from envoy_data_plane.envoy.type import v3 as type_v3
from envoy_data_plane.google import protobuf as gpb
from google.protobuf.json_format import MessageToDict

from memory_extproc.extproc import protocol as p

SEND_MODE = filter_v3.ProcessingModeBodySendMode
HEADER_MODE = filter_v3.ProcessingModeHeaderSendMode


def headers(*pairs: tuple[str, bytes]) -> core.HeaderMap:
    return core.HeaderMap(headers=[core.HeaderValue(key=k, raw_value=v) for k, v in pairs])


RECEIVED = {
    "request_headers": canonical.ProcessingRequest(
        request_headers=canonical.HttpHeaders(
            headers=headers(
                (":method", b"POST"),
                (":path", b"/v1/chat/completions"),
                ("x-authz-user-id", "ünï".encode()),
            ),
            end_of_stream=False,
        ),
        protocol_config=canonical.ProtocolConfiguration(
            request_body_mode=SEND_MODE.BUFFERED, response_body_mode=SEND_MODE.BUFFERED
        ),
    ),
    "request_body": canonical.ProcessingRequest(
        request_body=canonical.HttpBody(body=b'{"messages": []}', end_of_stream=True)
    ),
    "response_headers": canonical.ProcessingRequest(
        response_headers=canonical.HttpHeaders(
            headers=headers((":status", b"200"), ("content-type", b"text/event-stream"))
        )
    ),
    "response_body": canonical.ProcessingRequest(
        response_body=canonical.HttpBody(body=b"data: {}\n\n", end_of_stream=False)
    ),
    "request_trailers": canonical.ProcessingRequest(
        request_trailers=canonical.HttpTrailers(trailers=headers(("x-t", b"1")))
    ),
    "response_trailers": canonical.ProcessingRequest(
        response_trailers=canonical.HttpTrailers(trailers=headers(("grpc-status", b"0")))
    ),
    "observability_mode": canonical.ProcessingRequest(
        request_body=canonical.HttpBody(body=b"x", end_of_stream=True), observability_mode=True
    ),
}


@pytest.mark.parametrize("name", RECEIVED)
def test_every_received_message_parses_identically(name: str) -> None:
    message = RECEIVED[name]
    wire = bytes(message)
    ours = p.ProcessingRequest.FromString(wire)
    assert MessageToDict(ours) == message.to_dict()
    assert ours.SerializeToString(deterministic=True) == wire


def test_fields_we_do_not_model_are_skipped_and_preserved() -> None:
    message = canonical.ProcessingRequest(
        request_headers=canonical.HttpHeaders(headers=headers((":path", b"/"))),
        metadata_context=core.Metadata(filter_metadata={"f": gpb.Struct(fields={})}),
        attributes={"request.path": gpb.Struct(fields={})},
    )
    wire = bytes(message)
    ours = p.ProcessingRequest.FromString(wire)
    assert ours.WhichOneof("request") == "request_headers"
    assert p.header_dict(ours.request_headers.headers) == {":path": "/"}
    assert ours.SerializeToString() == wire  # unknown fields round-trip untouched


def _mode(
    response_body: SEND_MODE, request_body: SEND_MODE, skip_response: bool
) -> filter_v3.ProcessingMode:
    return filter_v3.ProcessingMode(
        request_header_mode=HEADER_MODE.SEND,
        response_header_mode=HEADER_MODE.SKIP if skip_response else HEADER_MODE.SEND,
        request_body_mode=request_body,
        response_body_mode=response_body,
        request_trailer_mode=HEADER_MODE.SKIP,
        response_trailer_mode=HEADER_MODE.SKIP,
    )


SENT = {
    "continue_request_headers": (
        p.CONTINUE_REQUEST_HEADERS,
        canonical.ProcessingResponse(request_headers=canonical.HeadersResponse()),
    ),
    "continue_request_body": (
        p.CONTINUE_REQUEST_BODY,
        canonical.ProcessingResponse(request_body=canonical.BodyResponse()),
    ),
    "continue_response_headers": (
        p.CONTINUE_RESPONSE_HEADERS,
        canonical.ProcessingResponse(response_headers=canonical.HeadersResponse()),
    ),
    "continue_response_body": (
        p.CONTINUE_RESPONSE_BODY,
        canonical.ProcessingResponse(response_body=canonical.BodyResponse()),
    ),
    "continue_request_trailers": (
        p.CONTINUE_REQUEST_TRAILERS,
        canonical.ProcessingResponse(request_trailers=canonical.TrailersResponse()),
    ),
    "continue_response_trailers": (
        p.CONTINUE_RESPONSE_TRAILERS,
        canonical.ProcessingResponse(response_trailers=canonical.TrailersResponse()),
    ),
    "pass_through": (
        p.PASS_THROUGH,
        canonical.ProcessingResponse(
            request_headers=canonical.HeadersResponse(),
            mode_override=_mode(SEND_MODE.NONE, SEND_MODE.NONE, skip_response=True),
        ),
    ),
    "llm_request_headers": (
        p.LLM_REQUEST_HEADERS,
        canonical.ProcessingResponse(
            request_headers=canonical.HeadersResponse(
                response=canonical.CommonResponse(
                    header_mutation=canonical.HeaderMutation(remove_headers=["accept-encoding"])
                )
            )
        ),
    ),
    "response_body_streamed": (
        p.RESPONSE_BODY_STREAMED,
        canonical.ProcessingResponse(
            response_headers=canonical.HeadersResponse(),
            mode_override=_mode(SEND_MODE.STREAMED, SEND_MODE.BUFFERED, skip_response=False),
        ),
    ),
    "response_body_buffered": (
        p.RESPONSE_BODY_BUFFERED,
        canonical.ProcessingResponse(
            response_headers=canonical.HeadersResponse(),
            mode_override=_mode(SEND_MODE.BUFFERED, SEND_MODE.BUFFERED, skip_response=False),
        ),
    ),
    "response_body_none": (
        p.RESPONSE_BODY_NONE,
        canonical.ProcessingResponse(
            response_headers=canonical.HeadersResponse(),
            mode_override=_mode(SEND_MODE.NONE, SEND_MODE.BUFFERED, skip_response=False),
        ),
    ),
    "replace_request_body": (
        p.replace_request_body(b'{"messages": [1]}'),
        canonical.ProcessingResponse(
            request_body=canonical.BodyResponse(
                response=canonical.CommonResponse(
                    header_mutation=canonical.HeaderMutation(
                        set_headers=[
                            core.HeaderValueOption(
                                header=core.HeaderValue(key="content-length", raw_value=b"17"),
                                append_action=core.HeaderValueOptionHeaderAppendAction.OVERWRITE_IF_EXISTS_OR_ADD,
                            )
                        ]
                    ),
                    body_mutation=canonical.BodyMutation(body=b'{"messages": [1]}'),
                )
            )
        ),
    ),
    "receipt": (
        p.with_metadata(p.CONTINUE_REQUEST_BODY, "memory_extproc", {"receipt": "outcome=greeting"}),
        canonical.ProcessingResponse(
            request_body=canonical.BodyResponse(),
            dynamic_metadata=gpb.Struct(
                fields={
                    "memory_extproc": gpb.Value(
                        struct_value=gpb.Struct(
                            fields={
                                "receipt": gpb.Value(string_value="outcome=greeting"),
                            }
                        )
                    ),
                }
            ),
        ),
    ),
}


@pytest.mark.parametrize("name", SENT)
def test_every_sent_message_is_what_envoy_expects(name: str) -> None:
    ours, expected = SENT[name]
    wire = ours.SerializeToString(deterministic=True)
    assert wire == bytes(expected)
    assert canonical.ProcessingResponse.parse(wire).to_dict() == MessageToDict(ours)


def test_status_codes_share_envoys_numbering() -> None:
    ours = p.pb.ImmediateResponse(
        status=p.pb.envoy_dot_type_dot_v3_dot_http__status__pb2.HttpStatus(code=404)
    )
    theirs = canonical.ImmediateResponse(
        status=type_v3.HttpStatus(code=type_v3.StatusCode.NotFound)
    )
    assert ours.SerializeToString() == bytes(theirs)
