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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

# A string (unrolled loop: fast on long strings), or one structural character. Numbers, true,
# false, null and whitespace are skipped by the search.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]')
# Whole children in one match each, not token by token (a 160-message conversation was ~0.3 ms
# of CPU a scan): a child whose value is a scalar, a string, or a container up to four levels
# deep (a message with tool calls or content parts, a list of messages). Possessive throughout:
# a try that meets a deeper container fails there without backtracking, and the scan goes on
# token by token.
_STRING = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'


def _nested(inside: bytes) -> bytes:
    """An object or array whose members are scalars, strings or ``inside``."""
    member = rb'(?:[^{}\[\]"]++|' + _STRING + (rb"|" + inside if inside else b"") + rb")*+"
    return rb"(?:\{" + member + rb"\}|\[" + member + rb"\])"


_SHALLOW = b""
for _ in range(4):
    _SHALLOW = _nested(_SHALLOW)
_VALUE = rb"(" + _SHALLOW + rb"|" + _STRING + rb'|[^,:{}\[\]"\s]++)'
_WS = rb"[ \t\r\n]*+"
_ELEMENT = re.compile(_WS + _VALUE + _WS + rb"([,\]])")
_KEY = _WS + rb"(" + _STRING + rb")" + _WS + rb":" + _WS
_MEMBER = re.compile(_KEY + _VALUE + _WS + rb"([,}])")
_HEAD = re.compile(_KEY + rb"(?=[\[{])")  # a member whose value is a container
_AFTER = re.compile(_WS + rb"([,}])")
_SKIP = re.compile(_SHALLOW)
_QUOTE, _COLON, _COMMA = ord('"'), ord(":"), ord(",")
_SPACE = b" \t\r\n"


class SpliceError(ValueError):
    """Not a document this module can edit exactly."""


class Child(NamedTuple):
    """One member of an object (with its raw key) or one element of an array (a tuple: a long
    conversation has hundreds, and a frozen dataclass cost ~1 µs each to make)."""

    key: bytes | None  # the key token, quotes and escapes included; None in arrays
    start: int  # where the member starts (its key) or the element starts
    value_start: int
    value_end: int  # exclusive, trailing whitespace excluded


@dataclass(frozen=True, slots=True)
class Container:
    open: int  # offset of "{" or "["
    close: int  # offset of the matching "}" or "]"
    children: tuple[Child, ...]
    # The root's: the values of its members that are containers, by offset, read on the way,
    # so an edit of one (the messages) does not read it a second time.
    inner: Mapping[int, Container] = field(default_factory=dict)


def root(raw: bytes, *, descend: bool = False) -> Container:
    """``descend``: its members that are containers read too (``inner``), for an edit inside
    one."""
    start = len(raw) - len(raw.lstrip(_SPACE))
    if start >= len(raw) or raw[start] not in b"{[":
        raise SpliceError("not an object or array")
    return container(raw, start, descend=descend)


def container(raw: bytes, open_at: int, *, descend: bool = False) -> Container:
    """The immediate children of the object or array that opens at ``open_at``; ``descend``:
    and the containers that are its members' values (``inner``)."""
    children: list[Child] = []
    is_object = raw[open_at] == ord("{")
    depth = 0
    cursor = open_at + 1  # where the current child's text begins (after "[", "{" or ",")
    key: bytes | None = None
    value_start = -1
    at = open_at + 1
    whole, value = (_MEMBER, 2) if is_object else (_ELEMENT, 1)  # the value's group
    inner: dict[int, Container] = {}
    while True:
        if at == cursor and descend and is_object and (member := _HEAD.match(raw, at)):
            inner[member.end()] = nested = container(raw, member.end())
            if (after := _AFTER.match(raw, nested.close + 1)) is None:
                raise SpliceError("a member not followed by a separator")
            children.append(Child(member.group(1), member.start(1), member.end(),
                                  nested.close + 1))  # fmt: skip
            if raw[after.end() - 1] != _COMMA:
                return Container(open_at, after.end() - 1, tuple(children), inner)
            at = cursor = after.end()
            continue
        if at == cursor and (child := whole.match(raw, at)) is not None:
            children.append(Child(child.group(1) if is_object else None, child.start(1),
                                  child.start(value), child.end(value)))  # fmt: skip
            if raw[child.end() - 1] != _COMMA:  # the closing bracket
                return Container(open_at, child.end() - 1, tuple(children), inner)
            at = cursor = child.end()
            continue
        if (token := _TOKEN.search(raw, at)) is None:
            break
        at = token.end()
        head = raw[token.start()]
        if head == _QUOTE:
            if depth == 0 and is_object and key is None:
                key = token.group()
            continue
        if head in b"{[":
            if (shallow := _SKIP.match(raw, token.start())) is not None:
                at = shallow.end()  # a value like a string: the depth is unchanged
            else:
                depth += 1
            continue
        if depth > 0:
            if head in b"}]":
                depth -= 1
            continue
        if head == _COLON:
            value_start = _skip_space(raw, token.end())
            continue
        start, end = _skip_space(raw, cursor), _trim_space(raw, token.start())
        if start < end:  # "," or the closing bracket ends a child
            if is_object and (key is None or value_start < 0):
                raise SpliceError("object member without a key")
            children.append(Child(key, start, value_start if is_object else start, end))
        elif head == _COMMA or children:
            raise SpliceError("empty element")
        if head != _COMMA:
            return Container(open_at, token.start(), tuple(children), inner)
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
