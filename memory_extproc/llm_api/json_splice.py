"""Edit a JSON document in place, byte for byte: everything not edited stays exactly as sent.

Re-serialising a parsed body changes what the client wrote: integers above 64 bits become floats,
escapes and key order change, and a body nested deeper than the encoder allows cannot be written
at all. So the request body is never re-encoded: the edits (drop a top-level member, insert an
array element, replace a value) are spliced into the original bytes.

Works on documents already accepted by ``orjson.loads`` (the caller parses first); a document
this scanner reads differently raises ``SpliceError`` and the caller passes the body through.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A string (unrolled loop: fast on long strings), or one structural character. Numbers, true,
# false, null and whitespace are skipped by the search.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]')
_SPACE = b" \t\r\n"


class SpliceError(ValueError):
    """Not a document this module can edit exactly."""


@dataclass(frozen=True, slots=True)
class Child:
    """One member of an object (with its raw key) or one element of an array."""

    key: bytes | None  # the key token, quotes and escapes included; None in arrays
    start: int  # where the member starts (its key) or the element starts
    value_start: int
    value_end: int  # exclusive, trailing whitespace excluded


@dataclass(frozen=True, slots=True)
class Container:
    open: int  # offset of "{" or "["
    close: int  # offset of the matching "}" or "]"
    children: tuple[Child, ...]


def root(raw: bytes) -> Container:
    start = len(raw) - len(raw.lstrip(_SPACE))
    if start >= len(raw) or raw[start] not in b"{[":
        raise SpliceError("not an object or array")
    return container(raw, start)


def container(raw: bytes, open_at: int) -> Container:
    """The immediate children of the object or array that opens at ``open_at``."""
    children: list[Child] = []
    is_object = raw[open_at] == ord("{")
    depth = 0
    cursor = open_at + 1  # where the current child's text begins (after "[", "{" or ",")
    key: bytes | None = None
    value_start = -1
    for token in _TOKEN.finditer(raw, open_at + 1):
        head = raw[token.start()]
        if head == ord('"'):
            if depth == 0 and is_object and key is None:
                key = token.group()
            continue
        if head in b"{[":
            depth += 1
            continue
        if depth > 0:
            if head in b"}]":
                depth -= 1
            continue
        if head == ord(":"):
            value_start = _skip_space(raw, token.end())
            continue
        start, end = _skip_space(raw, cursor), _trim_space(raw, token.start())
        if start < end:  # "," or the closing bracket ends a child
            if is_object and (key is None or value_start < 0):
                raise SpliceError("object member without a key")
            children.append(Child(key, start, value_start if is_object else start, end))
        elif head == ord(",") or children:
            raise SpliceError("empty element")
        if head != ord(","):
            return Container(open_at, token.start(), tuple(children))
        cursor, key, value_start = token.end(), None, -1
    raise SpliceError("unterminated container")


def _skip_space(raw: bytes, at: int) -> int:
    while at < len(raw) and raw[at] in _SPACE:
        at += 1
    return at


def _trim_space(raw: bytes, at: int) -> int:
    while at > 0 and raw[at - 1] in _SPACE:
        at -= 1
    return at


def apply(raw: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    """Replace each ``[start, end)`` with its bytes; the edits must not overlap."""
    out = []
    at = 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < at:
            raise SpliceError("overlapping edits")
        out += [raw[at:start], replacement]
        at = end
    out.append(raw[at:])
    return b"".join(out)


def removals(members: tuple[Child, ...], doomed: set[int]) -> list[tuple[int, int, bytes]]:
    """Edits that drop the members at these indexes with their commas, keeping valid JSON."""
    kept = [i for i in range(len(members)) if i not in doomed]
    last_kept = kept[-1] if kept else -1
    edits = []
    for i in sorted(doomed):
        if i < last_kept:  # the member and the separator after it
            edits.append((members[i].start, members[i + 1].start, b""))
    trailing = [i for i in doomed if i > last_kept]
    if trailing:  # the separator before the first of them, through the last
        start = members[last_kept].value_end if kept else members[min(trailing)].start
        edits.append((start, members[max(trailing)].value_end, b""))
    return edits


def insertion(array: Container, index: int, element: bytes) -> tuple[int, int, bytes]:
    """An edit that makes ``element`` the array's ``index``-th element."""
    items = array.children
    if index < len(items):
        at = items[index].value_start
        return at, at, element + b","
    if items:
        at = items[-1].value_end
        return at, at, b"," + element
    return array.open + 1, array.open + 1, element
