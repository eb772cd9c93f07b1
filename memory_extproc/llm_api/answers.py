"""The assistant's answer, read from a JSON body or an SSE stream of either OpenAI API.

Pure and incremental: SSE bytes arrive in arbitrary chunks (an event, or a UTF-8 character, may
be split anywhere); the reader keeps what it needs and nothing else. Whatever it cannot read, it
ignores: the answer reaches the client untouched either way, memory just learns nothing from it.
"""

from __future__ import annotations

import codecs
import zlib
from dataclasses import dataclass
from typing import Any

import orjson

from memory_extproc.llm_api.requests import Api

MAX_ANSWER_CHARS = 200_000  # an answer longer than this is cut: memory needs the gist, not a book
# What is read at most to find that answer. Beyond it memory learns nothing from this answer (it
# still reaches the client whole): a 40 MiB event held and re-scanned stalled every other stream.
MAX_BODY_BYTES = 8 * 1024 * 1024  # a JSON answer, decoded
MAX_EVENT_CHARS = 4 * 1024 * 1024  # one SSE event (Responses' completed event repeats the text)


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    response_id: str = ""  # Responses API: the id a follow-up request names as previous_response_id


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _responses_output_text(response: Any) -> str:
    if not isinstance(response, dict):
        return ""
    if isinstance(response.get("output_text"), str):
        return str(response["output_text"])
    texts = []
    output = response.get("output")
    for item in output if isinstance(output, list) else []:
        if (
            isinstance(item, dict)
            and item.get("type") == "message"
            and item.get("role", "assistant") == "assistant"
        ):
            texts.append(_text(item.get("content")))
    return "".join(texts)


def answer_from_json(api: Api, body: bytes) -> Answer | None:
    """The first choice's text (Chat Completions) or the output text (Responses)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    if api is Api.CHAT_COMPLETIONS:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return None
        message = choices[0].get("message")
        text = _text(message.get("content")) if isinstance(message, dict) else ""
        return Answer(text[:MAX_ANSWER_CHARS]) if text.strip() else None
    if data.get("status", "completed") != "completed":
        return None
    text = _responses_output_text(data)
    response_id = data["id"] if isinstance(data.get("id"), str) else ""
    return Answer(text[:MAX_ANSWER_CHARS], response_id) if text.strip() else None


class SseAnswerReader:
    """Feed it the stream's chunks; ``answer()`` is the text once the stream ended properly."""

    def __init__(self, api: Api) -> None:
        self._api = api
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: list[str] = []  # the event being received, in pieces (joined once)
        self._pending_chars = 0
        self._tail = ""  # the last character received: a separator may straddle two chunks
        self._cr = False  # the last chunk ended with a CR (held back)
        self._parts: list[str] = []
        self._size = 0
        self._response_id = ""
        self._final_text: str | None = None
        self.finished = False  # [DONE], a finish_reason, or response.completed was seen
        self.failed = False  # an error event, or a response that did not complete
        self.too_large = False  # an event over MAX_EVENT_CHARS: the rest is not read

    def feed(self, chunk: bytes) -> None:
        if self.too_large:
            return
        text = self._lines(self._decoder.decode(chunk))
        if not text:
            return
        # Only the new text (and the character before it) can complete an event.
        probe = self._tail + text
        self._tail = probe[-1:]
        self._pending.append(text)
        self._pending_chars += len(text)
        if "\n\n" not in probe:
            if self._pending_chars > MAX_EVENT_CHARS:
                self.too_large = True
                self._pending, self._pending_chars = [], 0
            return
        *events, rest = "".join(self._pending).split("\n\n")
        self._pending, self._pending_chars = [rest], len(rest)
        for event in events:
            self._event(event)

    def _lines(self, text: str) -> str:
        """Line ends as "\n" (SSE allows CRLF, LF and CR); a CR ending a chunk waits for the
        next, which may begin with its LF."""
        if self._cr:
            text = "\r" + text
        self._cr = text.endswith("\r")
        if self._cr:
            text = text[:-1]
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def close(self) -> None:
        """The stream ended: an unterminated last event still counts."""
        if self.too_large:
            return
        last = "".join(self._pending) + self._lines(self._decoder.decode(b"", final=True))
        if self._cr:
            last += "\n"
        if last.strip():
            self._event(last)
        self._pending, self._pending_chars = [], 0

    def answer(self) -> Answer | None:
        if not self.finished or self.failed or self.too_large:
            return None
        text = self._final_text if self._final_text is not None else "".join(self._parts)
        return Answer(text[:MAX_ANSWER_CHARS], self._response_id) if text.strip() else None

    def _event(self, event: str) -> None:
        lines = event.split("\n")
        if any(line.removeprefix("event:").strip() == "error" for line in lines):
            self.failed = True  # "event: error": whatever its data says, the answer broke off
            return
        data_lines = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
        if not data_lines:
            return
        data = "\n".join(data_lines)
        if data.strip() == "[DONE]":
            self.finished = True
            return
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        if isinstance(payload, dict):
            if self._api is Api.CHAT_COMPLETIONS:
                self._chat_chunk(payload)
            else:
                self._responses_event(payload)

    def _append(self, text: str) -> None:
        if text and self._size < MAX_ANSWER_CHARS:
            self._parts.append(text)
            self._size += len(text)

    def _chat_chunk(self, payload: dict[str, Any]) -> None:
        if "error" in payload or payload.get("type") == "error":
            self.failed = True
            return
        choices = payload.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._append(_text(delta.get("content")))
            if choice.get("finish_reason"):
                self.finished = True

    def _responses_event(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "response.output_text.delta" and isinstance(payload.get("delta"), str):
            self._append(payload["delta"])
        elif kind == "response.completed":
            response = payload.get("response")
            if isinstance(response, dict):
                if isinstance(response.get("id"), str):
                    self._response_id = response["id"]
                final = _responses_output_text(response)
                if final.strip():
                    self._final_text = final
            self.finished = True
        elif kind in ("response.failed", "response.incomplete", "error"):
            self.failed = True


class GzipStream:
    """Incremental gzip/deflate decoding, for upstreams that compress despite being asked not to.
    Several gzip members follow each other (RFC 1952). Yields at most MAX_BODY_BYTES in all (a
    small bomb must not become gigabytes here)."""

    def __init__(self) -> None:
        self._inflater = zlib.decompressobj(wbits=47)  # gzip or zlib header, detected
        self._left = MAX_BODY_BYTES
        self.complete = False  # the last member ended (a body cut short never does)

    def feed(self, chunk: bytes) -> bytes:
        out = []
        while chunk and self._left > 0:
            try:
                part = self._inflater.decompress(chunk, self._left)
            except zlib.error:
                self._left = 0
                break
            out.append(part)
            self._left = 0 if self._inflater.unconsumed_tail else self._left - len(part)
            self.complete = self._inflater.eof
            chunk = self._inflater.unused_data if self._inflater.eof else b""
            if chunk:  # the next member
                self._inflater = zlib.decompressobj(wbits=47)
        return b"".join(out)

    @property
    def overflowed(self) -> bool:
        return self._left <= 0


class JsonAnswerBody:
    """A JSON answer streamed through (too big to hold in Envoy, or of unknown length), kept
    here up to MAX_BODY_BYTES."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self.too_large = False

    def feed(self, chunk: bytes) -> None:
        if self.too_large or not chunk:
            return
        self._size += len(chunk)
        if self._size > MAX_BODY_BYTES:
            self.too_large, self._parts = True, []
            return
        self._parts.append(chunk)

    def body(self) -> bytes:
        return b"".join(self._parts)


def decode_body(body: bytes, content_encoding: str) -> bytes | None:
    """The body as sent by the LLM, decompressed if it says so; None when it cannot be read
    (or decodes to more than MAX_BODY_BYTES)."""
    encoding = content_encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding in ("gzip", "x-gzip", "deflate"):
        stream = GzipStream()
        decoded = stream.feed(body)
        return decoded if stream.complete and not stream.overflowed else None
    return None  # br, zstd…: not worth a dependency for a path that should never be taken
