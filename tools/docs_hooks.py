"""MkDocs hooks: the reference pages are generated from the code and the API document, so they
can never drift from what the service reads and serves.

``<!-- config-reference -->`` becomes a table of every configuration key (from the schema in
memory_extproc/config/schema.py: type, default, range or choices, environment variable, what it is
for); ``<!-- memory-api-reference -->`` the operations of openapi/memory-api.yaml. A key
without a description fails the build.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any

import yaml

from memory_extproc.config import ENV_PREFIX, Config

ROOT = Path(__file__).resolve().parent.parent
CONFIG_MARK = "<!-- config-reference -->"
API_MARK = "<!-- memory-api-reference -->"


def on_page_markdown(markdown: str, **_: Any) -> str:
    if CONFIG_MARK in markdown:
        markdown = markdown.replace(CONFIG_MARK, config_reference())
    if API_MARK in markdown:
        markdown = markdown.replace(API_MARK, api_reference(ROOT / "openapi" / "memory-api.yaml"))
    return markdown


def config_reference() -> str:
    """One table per section, in the file's order."""
    sections: list[str] = []
    _section(Config, [], sections)
    return "\n\n".join(sections)


def _section(cls: type, path: list[str], out: list[str], about: str = "") -> None:
    hints = typing.get_type_hints(cls)
    rows, nested = [], []
    for f in dataclasses.fields(cls):
        doc = f.metadata.get("doc")
        if not doc:
            raise ValueError(f"{'.'.join([*path, f.name])} has no description (config/schema.py)")
        hint = hints[f.name]
        item = (typing.get_args(hint) or (None,))[0]
        if dataclasses.is_dataclass(hint):
            nested.append((hint, [*path, f.name], doc))
        elif typing.get_origin(hint) is list and dataclasses.is_dataclass(item):
            nested.append((item, [*path, f.name, "N"], doc))
        else:
            rows.append(_row(f, hint, [*path, f.name], doc))
    if rows:
        title = ".".join(path).replace(".N", "[]") or "(top)"
        head = "| Key | Type | Default | Allowed | Environment variable | |"
        rule = "|---|---|---|---|---|---|"
        out.append(f"### `{title}`\n\n{about}\n\n{head}\n{rule}\n" + "\n".join(rows))
    for hint, sub, doc in nested:
        _section(typing.cast(type, hint), sub, out, doc)


def _row(f: dataclasses.Field[Any], hint: Any, path: list[str], doc: str) -> str:
    missing = f.default is dataclasses.MISSING
    default = f.default_factory() if missing else f.default  # type: ignore[operator]
    meta = f.metadata
    lo, hi, choices = meta.get("min"), meta.get("max"), meta.get("choices")
    allowed = (
        " \\| ".join(choices)
        if choices
        else f"{_number(lo)} to {_number(hi)}"
        if lo is not None or hi is not None
        else ""
    )
    variable = ENV_PREFIX + "__".join(p.upper() for p in path)
    kind = getattr(hint, "__name__", str(hint)).replace("list[str]", "list of strings")
    value = yaml.safe_dump(default, default_flow_style=True).strip().removesuffix("...").strip()
    return f"| `{path[-1]}` | {kind} | `{value}` | {allowed} | `{variable}` | {doc} |"


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:,}" if float(value).is_integer() else str(value)


def api_reference(document: Path) -> str:
    """Each operation: what it does, its parameters, its answers."""
    spec = yaml.safe_load(document.read_text(encoding="utf-8"))
    parts = []
    for route, operations in spec["paths"].items():
        for method, op in operations.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            lines = [f"### `{method.upper()} {route}`", "", op.get("summary", "")]
            if op.get("description"):
                lines += ["", op["description"].strip()]
            params = [_resolve(spec, p) for p in op.get("parameters", [])]
            if params:
                lines += ["", "| Parameter | In | Value | |", "|---|---|---|---|"]
                lines += [
                    f"| `{p['name']}` | {p['in']} | {_schema(spec, p.get('schema', {}))} "
                    f"| {_one_line(p.get('description', ''))} |"
                    for p in params
                ]
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                schema = _resolve(spec, body["schema"])
                wanted = set(schema.get("required", []))
                lines += ["", "| Body field | Value | |", "|---|---|---|"]
                lines += [
                    f"| `{name}`{' (required)' if name in wanted else ''} | {_schema(spec, field)} "
                    f"| {_one_line(_resolve(spec, field).get('description', ''))} |"
                    for name, field in schema.get("properties", {}).items()
                ]
            lines += ["", "| Answer | |", "|---|---|"]
            lines += [
                f"| {code} | {_one_line(_resolve(spec, answer).get('description', ''))} |"
                for code, answer in op["responses"].items()
            ]
            parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _schema(spec: dict[str, Any], node: dict[str, Any]) -> str:
    """A value's type and bounds in a few words: "integer 1 to 100, default 20"."""
    node = _resolve(spec, node)
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    for choice in ("oneOf", "anyOf"):
        if choice in node:
            return " or ".join(_schema(spec, option) for option in node[choice])
    kind = node.get("type", "")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array":
        kind = f"list of {_schema(spec, node.get('items', {}))}"
    lo = node.get("minimum", node.get("minLength"))
    hi = node.get("maximum", node.get("maxLength"))
    unit = " characters" if "minLength" in node or "maxLength" in node else ""
    if lo is not None and hi is not None:
        kind += f" {lo} to {hi}{unit}"
    elif hi is not None:
        kind += f" up to {hi}{unit}"
    elif lo is not None:
        kind += f" from {lo}{unit}"
    if "default" in node:
        kind += f", default {node['default']}"
    return kind


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec
        for key in node["$ref"].removeprefix("#/").split("/"):
            target = target[key]
        node = target
    return node


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
