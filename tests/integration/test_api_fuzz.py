"""The memory API fuzzed by schemathesis from openapi/memory-api.yaml, against the live stack
(Envoy, the processor, Milvus): valid and invalid requests to every operation, and every answer
must be a documented one. Tests from a tool we did not write, so they do not share our blind spots.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.integration.conftest import Stack

pytestmark = pytest.mark.integration

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "memory-api.yaml"
schema = schemathesis.openapi.from_path(SPEC)
# What the spec says the API accepts, and what it does not: the API must answer both as documented.
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# Valid cases per operation sent again with the id of a real memory of the user (a generated id
# is nobody's: 404). Bounded: a write through to Milvus takes ~0.4 s, a delete ~0.9 s.
REAL_ID_CASES = 5


class Client:
    """One fresh user's view of the API: their token, and a memory of theirs to ask about."""

    def __init__(self, stack: Stack, http: requests.Session) -> None:
        self.base_url = stack.url
        user = f"fuzz-{uuid.uuid4().hex[:10]}"
        self.headers = {"authorization": f"Bearer {stack.identity.token(user)}"}
        self.http = http
        self.real_id_cases = 0
        self._memory_id: str | None = None

    def call(self, case: schemathesis.Case) -> int:
        """Send the case through Envoy as this user; every check must pass on the answer."""
        response = case.call_and_validate(
            base_url=self.base_url,
            session=self.http,
            headers=self.headers,
            checks=CHECKS,
            timeout=30,  # a hang is a failure too, not a stuck test run
        )
        return response.status_code

    def memory_id(self) -> str:
        """The id of a memory of this user's, added through the API when there is none."""
        if self._memory_id is None:
            answer = self.http.post(
                f"{self.base_url}/v1/memory",
                json={"content": "User likes green tea"},
                headers=self.headers,
                timeout=30,
            )
            assert answer.status_code in (200, 201), answer.text
            self._memory_id = str(answer.json()["id"])
        return self._memory_id

    def forgot(self) -> None:
        self._memory_id = None


@pytest.fixture
def clients(stack: Stack) -> Iterator[Callable[[str], Client]]:
    """A fresh user per operation (forgetting everything in one leaves the others alone). Sync
    on purpose: schemathesis calls the API with requests, outside the event loop."""
    made: dict[str, Client] = {}

    def client(operation: str) -> Client:
        if operation not in made:
            made[operation] = Client(stack, http)
        return made[operation]

    with requests.Session() as http:
        yield client


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    # one user per operation for all its examples, on purpose
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
def test_every_operation_answers_as_documented(
    case: schemathesis.Case, clients: Callable[[str], Client]
) -> None:
    client = clients(case.operation.label)
    client.call(case)
    valid = case.meta is not None and case.meta.generation.mode is GenerationMode.POSITIVE
    if valid and "id" in (case.path_parameters or {}) and client.real_id_cases < REAL_ID_CASES:
        client.real_id_cases += 1
        case.path_parameters = {**case.path_parameters, "id": client.memory_id()}
        if client.call(case) == 204:  # deleted
            client.forgot()
