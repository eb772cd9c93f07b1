"""The Memory API's OpenAPI document as a test oracle: every answer must be a documented one."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from memory_extproc.api.routes import route_of

DOCUMENT = Path(__file__).resolve().parents[1] / "openapi" / "memory-api.yaml"


@functools.cache
def document() -> dict[str, Any]:
    return yaml.safe_load(DOCUMENT.read_text())


def operations() -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in document()["paths"].items()
        for method in item
        if method != "parameters"
    }


def check_response(method: str, path: str, status: int, body: Any) -> None:
    """Raises AssertionError unless the status is documented for the operation and the body
    validates against its schema."""
    doc = document()
    operation = doc["paths"][route_of(path)][method.lower()]
    responses = operation["responses"]
    assert str(status) in responses, f"{method} {path}: status {status} is not documented"
    response = responses[str(status)]
    if "$ref" in response:
        response = doc["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    content = response.get("content")
    if content is None:
        assert body is None, f"{method} {path} {status}: documented without a body"
        return
    schema = {**content["application/json"]["schema"], "components": doc["components"]}
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(body)


def check_request(method: str, path: str, body: Any) -> None:
    """The documented request schema accepts ``body`` (used for the valid requests we send)."""
    doc = document()
    request = doc["paths"][route_of(path)][method.lower()].get("requestBody")
    assert request is not None, f"{method} {path}: no request body documented"
    schema = {**request["content"]["application/json"]["schema"], "components": doc["components"]}
    jsonschema.Draft202012Validator(schema).validate(body)
