"""The memory API through real Envoy, the processor and Milvus; every answer is checked against
openapi/memory-api.yaml by Stack.api."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from pymilvus import MilvusClient

from devstack.milvus import MilvusProcess
from memory_extproc.store.model import new_memory_id
from tests.integration.conftest import Stack

pytestmark = pytest.mark.integration


def other_user() -> str:
    return f"other-{uuid.uuid4().hex[:10]}"


async def add(stack: Stack, user: str, content: str, **fields: str) -> dict:
    status, body = await stack.api("POST", "/v1/memory", {"content": content, **fields}, user=user)
    assert status in (200, 201), body
    return body


async def test_add_get_list_and_the_memory_is_used_in_chat(stack: Stack, user: str) -> None:
    status, added = await stack.api(
        "POST", "/v1/memory", {"content": "User is allergic to peanuts"}, user=user
    )
    assert (status, added["result"], added["source"]) == (201, "stored", "api")
    status, got = await stack.api("GET", f"/v1/memory/{added['id']}", user=user)
    assert status == 200
    assert got["content"] == "User is allergic to peanuts"
    status, page = await stack.api("GET", "/v1/memory", user=user)
    assert [m["id"] for m in page["data"]] == [added["id"]]
    assert page["next_cursor"] is None
    injected = await stack.ask("Am I allergic to peanuts?", user=user)
    assert len(injected) == 1
    assert injected[0].endswith("User is allergic to peanuts")


async def test_add_dedups_and_restatements_update(stack: Stack, user: str) -> None:
    first = await add(stack, user, "User's favourite colour is green")
    again = await add(stack, user, "  user's FAVOURITE colour is green ")
    assert (again["result"], again["id"]) == ("deduped", first["id"])
    restated = await add(stack, user, "User's favourite colour is green.")
    assert restated["result"] in ("deduped", "updated")
    assert restated["id"] == first["id"]
    _, page = await stack.api("GET", "/v1/memory", user=user)
    assert len(page["data"]) == 1


async def test_list_pages_newest_first_and_filters_by_type(stack: Stack, user: str) -> None:
    contents = [
        "User owns a red bicycle",
        "User's sister lives in Porto",
        "User collects old maps",
        "User was born in 1990",
        "User speaks Danish",
    ]
    ids = [(await add(stack, user, c))["id"] for c in contents]
    procedure = await add(stack, user, "To deploy, user runs make release", type="procedural")
    preference = await add(stack, user, "User prefers tea to coffee")  # typed by its words
    seen: list[str] = []
    cursor = None
    for _ in range(4):
        query = "?type=semantic&limit=2" + (f"&cursor={cursor}" if cursor else "")
        status, page = await stack.api("GET", f"/v1/memory{query}", user=user)
        assert status == 200
        assert len(page["data"]) <= 2
        seen += [m["id"] for m in page["data"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]  # newest first, nothing twice, nothing missing
    _, procedural = await stack.api("GET", "/v1/memory?type=procedural", user=user)
    assert [m["id"] for m in procedural["data"]] == [procedure["id"]]
    _, preferences = await stack.api("GET", "/v1/memory?type=preference", user=user)
    assert [m["id"] for m in preferences["data"]] == [preference["id"]]


async def test_search_finds_only_the_users_own_memories(stack: Stack, user: str) -> None:
    mine = await add(stack, user, "User's dog is called Biscuit")
    await add(stack, other_user(), "User's dog is called Rex")
    status, found = await stack.api(
        "POST", "/v1/memory/search", {"query": "my dog is called", "threshold": 0.3}, user=user
    )
    assert status == 200
    assert [m["id"] for m in found["data"]] == [mine["id"]]
    assert 0.3 <= found["data"][0]["score"] <= 1.0


async def test_put_and_patch_re_embed(stack: Stack, user: str) -> None:
    memory = await add(stack, user, "User lives in Lisbon")
    status, replaced = await stack.api(
        "PUT", f"/v1/memory/{memory['id']}", {"content": "User lives in Oslo"}, user=user
    )
    assert (status, replaced["content"], replaced["id"]) == (
        200,
        "User lives in Oslo",
        memory["id"],
    )
    _, found = await stack.api("POST", "/v1/memory/search", {"query": "lives in Oslo"}, user=user)
    assert [m["content"] for m in found["data"]] == ["User lives in Oslo"]
    _, stale = await stack.api(
        "POST", "/v1/memory/search", {"query": "User lives in Lisbon", "threshold": 0.9}, user=user
    )
    assert stale["data"] == []
    status, patched = await stack.api(
        "PATCH", f"/v1/memory/{memory['id']}", {"type": "episodic"}, user=user
    )
    assert (status, patched["type"], patched["content"]) == (200, "episodic", "User lives in Oslo")
    _, listed = await stack.api("GET", "/v1/memory", user=user)
    assert [m["type"] for m in listed["data"]] == ["episodic"]  # history rows are not listed


async def test_another_users_memory_is_not_found(stack: Stack, user: str) -> None:
    theirs = await add(stack, other_user(), "User's PIN hint is their cat's birthday")
    path = f"/v1/memory/{theirs['id']}"
    for method, body in [
        ("GET", None),
        ("PUT", {"content": "hijacked"}),
        ("PATCH", {"type": "episodic"}),
        ("DELETE", None),
    ]:
        status, error = await stack.api(method, path, body, user=user)
        assert (status, error["error"]["code"]) == (404, "not_found"), method
    missing = await stack.api("GET", f"/v1/memory/{new_memory_id()}", user=user)
    assert missing == (404, {"error": {"code": "not_found", "message": "no such memory"}})


async def test_forget_one_removes_it_and_its_history(
    stack: Stack, user: str, milvus: MilvusProcess
) -> None:
    memory = await add(stack, user, "User's salary is 90k")
    await stack.api("PUT", f"/v1/memory/{memory['id']}", {"content": "Salary 95k"}, user=user)
    keep = await add(stack, user, "User plays the cello")
    assert await stack.api("DELETE", f"/v1/memory/{memory['id']}", user=user) == (204, None)
    assert (await stack.api("GET", f"/v1/memory/{memory['id']}", user=user))[0] == 404
    _, found = await stack.api(
        "POST", "/v1/memory/search", {"query": "salary", "threshold": 0.0}, user=user
    )
    assert [m["id"] for m in found["data"]] == [keep["id"]]
    client = MilvusClient(uri=milvus.uri)
    mid = memory["id"]
    rows = client.query(
        "it_main",
        filter=f'user_id == "{user}" and (id == "{mid}" or superseded_by == "{mid}")',
        output_fields=["id"],
        consistency_level="Strong",
    )
    client.close()
    assert rows == []  # the revised text's audit row went too


async def test_forget_by_scope(stack: Stack, user: str) -> None:
    bystander = other_user()
    kept = await add(stack, bystander, "User works at the harbour")
    work = await add(stack, user, "User's manager is Dana", project_id="work")
    await stack.api("PUT", f"/v1/memory/{work['id']}", {"content": "Manager: Dana"}, user=user)
    home = await add(stack, user, "User's landlord is Sam")
    status, result = await stack.api("DELETE", "/v1/memory?project_id=work", user=user)
    assert (status, result) == (200, {"deleted": 2})  # the memory and its previous version
    _, page = await stack.api("GET", "/v1/memory", user=user)
    assert [m["id"] for m in page["data"]] == [home["id"]]
    assert (await stack.api("DELETE", "/v1/memory?scope=user", user=user))[1] == {"deleted": 1}
    _, found = await stack.api(
        "POST", "/v1/memory/search", {"query": "landlord", "threshold": -1}, user=user
    )
    assert found["data"] == []  # gone at once, not eventually
    assert await stack.ask("Who is my landlord?", user=user) == []
    assert (await stack.api("GET", f"/v1/memory/{kept['id']}", user=bystander))[0] == 200


async def test_a_flood_of_concurrent_revisions_keeps_one_row_per_memory(
    stack: Stack, user: str, milvus: MilvusProcess
) -> None:
    """Revisions are delete + insert of one key: run at once they stored a memory twice, so a
    list missed memories, counts grew, a restatement answered 503 and a scope delete left
    history rows behind."""
    facts = ["User keeps bees", "User's locker number is 100", "User speaks Welsh"]
    memories = [await add(stack, user, fact) for fact in facts]
    edits = [
        stack.api("PUT", f"/v1/memory/{m['id']}", {"content": f"Locker {m['id'][-4:]} v{v}"},
                  user=user)
        for v in range(3) for m in memories
    ]  # fmt: skip
    statuses = [status for status, _ in await asyncio.gather(*edits)]
    assert statuses == [200] * len(edits)

    _, page = await stack.api("GET", "/v1/memory", user=user)
    assert sorted(m["id"] for m in page["data"]) == sorted(m["id"] for m in memories)
    client = MilvusClient(uri=milvus.uri)
    try:
        active = client.query(
            "it_main", filter=f'user_id == "{user}" and superseded_by == ""',
            output_fields=["id"], consistency_level="Strong",
        )  # fmt: skip
        assert sorted(r["id"] for r in active) == sorted(m["id"] for m in memories)

        status, deleted = await stack.api("DELETE", "/v1/memory?scope=user", user=user)
        assert status == 200
        assert deleted["deleted"] >= 3 + len(edits)  # every memory and every earlier version
        left = client.query(
            "it_main", filter=f'user_id == "{user}"', output_fields=["content", "superseded_by"],
            consistency_level="Strong",
        )  # fmt: skip
        assert left == []  # complete when it answers (the forget's record names a digest)
    finally:
        client.close()


async def test_project_defaults_to_the_authenticated_one(stack: Stack, user: str) -> None:
    status, added = await stack.api(
        "POST", "/v1/memory", {"content": "Sprint ends Friday"}, user=user, project="alpha"
    )
    assert (status, added["project_id"]) == (201, "alpha")
    _, listed = await stack.api("GET", "/v1/memory?project_id=alpha", user=user)
    assert [m["id"] for m in listed["data"]] == [added["id"]]


@pytest.mark.parametrize(
    ("method", "path", "raw", "status", "code"),
    [
        ("POST", "/v1/memory", b"{not json", 400, "invalid_request"),
        ("POST", "/v1/memory", b'["a list"]', 400, "invalid_request"),
        ("POST", "/v1/memory", b'{"content": "x", "user_id": "bob"}', 400, "invalid_request"),
        ("POST", "/v1/memory", b'{"content": 42}', 400, "invalid_request"),
        ("POST", "/v1/memory", b'{"content": "x", "type": "secret"}', 400, "invalid_request"),
        ("POST", "/v1/memory", b'{"content": "' + b"a" * 2001 + b'"}', 400, "invalid_request"),
        ("POST", "/v1/memory", b'{"content": "' + b"a" * 70000 + b'"}', 413, "payload_too_large"),
        ("POST", "/v1/memory/search", b'{"query": "x", "limit": "5"}', 400, "invalid_request"),
        ("GET", "/v1/memory/not-an-id", None, 400, "invalid_request"),
        ("GET", "/v1/memory?cursor=garbage", None, 400, "invalid_request"),
        ("GET", "/v1/memory?limit=1000", None, 400, "invalid_request"),
        ("GET", "/v1/memory?user_id=bob", None, 400, "invalid_request"),
        ("DELETE", "/v1/memory", None, 400, "invalid_request"),
        ("DELETE", "/v1/memory?scope=everyone", None, 400, "invalid_request"),
        ("PATCH", "/v1/memory/mem_0f1e2d3c4b5a69788796a5b4c3d2e1f0", b"{}", 400, "invalid_request"),
        ("PUT", "/v1/memory/search", b"{}", 405, "method_not_allowed"),
    ],
)
async def test_bad_input_is_a_clear_400(
    stack: Stack, user: str, method: str, path: str, raw: bytes | None, status: int, code: str
) -> None:
    url = path.split("?", 1)[0]
    if status == 405:  # not an operation of the document: check by hand
        async with stack.http.request(
            method, f"{stack.url}{path}", data=raw,
            headers={"authorization": f"Bearer {stack.identity.token(user)}"},
        ) as response:  # fmt: skip
            assert response.status == 405
            assert (await response.json())["error"]["code"] == code
        return
    got_status, body = await stack.api(method, path, user=user, raw=raw)
    assert (got_status, body["error"]["code"]) == (status, code), (url, body)


async def test_anonymous_and_forged_identities_are_refused(stack: Stack, user: str) -> None:
    memory = await add(stack, user, "User's locker code is 4411")
    assert (await stack.api("GET", "/v1/memory", user=None))[0] == 401
    async with stack.http.get(
        f"{stack.url}/v1/memory/{memory['id']}", headers={"x-authz-user-id": user}
    ) as response:
        assert response.status == 401  # the spoofed header is stripped before the processor
    lasting = stack.identity.token(user, ttl_s=None)  # signed by the right key, but no exp
    async with stack.http.get(
        f"{stack.url}/v1/memory", headers={"authorization": f"Bearer {lasting}"}
    ) as response:
        assert response.status == 401
