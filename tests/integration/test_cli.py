"""The operator's CLI against the real stack: memories add/list/search/forget and doctor."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest
import yaml

from devstack.envoy import Upstream, render
from devstack.mock_llm import MockLLM
from devstack.valkey import ValkeyProcess
from memory_extproc.api.routes import MAX_PAGE
from memory_extproc.embedding.spaces import DIMENSION
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory
from tests.integration.conftest import Stack

pytestmark = pytest.mark.integration


async def cli(*args: str, config: Path) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "memory_extproc", "-c", str(config), *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout=180)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_memories_add_dedups_then_list_search_forget(stack: Stack, user: str) -> None:
    config = stack.config_path
    code, out, err = await cli(
        "memories", "add", "--user", user, "User's cat is Miso", config=config
    )
    assert code == 0, err
    memory_id, result = out.split()
    assert result == "stored"
    code, out, _ = await cli(
        "memories", "add", "--user", user, "user's cat is  MISO", config=config
    )
    assert out.split() == [memory_id, "deduped"]
    await cli("memories", "add", "--user", user, "--type", "procedural",
              "To feed Miso, use the blue bowl", config=config)  # fmt: skip
    code, out, _ = await cli(
        "memories", "list", "--user", user, "--type", "semantic", config=config
    )
    assert [orjson.loads(line)["id"] for line in out.splitlines()] == [memory_id]
    code, out, _ = await cli(
        "memories", "search", "--user", user, "--threshold", "0.3", "what is my cat called",
        config=config,
    )  # fmt: skip
    hits = [orjson.loads(line) for line in out.splitlines()]
    assert hits[0]["id"] == memory_id
    assert 0.3 <= hits[0]["score"] <= 1
    code, out, _ = await cli("memories", "forget", "--user", user, "--id", memory_id, config=config)
    assert (code, out.strip()) == (0, "deleted")
    code, _, err = await cli("memories", "forget", "--user", user, "--id", memory_id, config=config)
    assert code == 1
    assert "no such memory" in err


async def test_memories_update_history_and_forget_a_project_as_the_api_does(
    stack: Stack, user: str
) -> None:
    config = stack.config_path
    _, out, _ = await cli("memories", "add", "--user", user, "--project", "home",
                          "User's cat is Miso", config=config)  # fmt: skip
    memory_id = out.split()[0]
    await cli("memories", "add", "--user", user, "User works at Acme", config=config)
    code, out, _ = await cli("memories", "update", "--user", user, "--id", memory_id,
                             "User's cat is Mochi", config=config)  # fmt: skip
    edited = orjson.loads(out)
    assert (code, edited["id"], edited["content"]) == (0, memory_id, "User's cat is Mochi")
    assert set(edited) >= {"created_at", "updated_at", "expires_at", "source", "project_id"}
    _, out, _ = await cli("memories", "history", "--user", user, "--id", memory_id, config=config)
    assert [orjson.loads(line)["content"] for line in out.splitlines()] == ["User's cat is Miso"]
    code, out, _ = await cli("memories", "forget", "--user", user, "--all", "--project", "home",
                             config=config)  # fmt: skip
    assert (code, out.strip()) == (0, "deleted 2 rows, history included")  # Miso, then Mochi
    _, out, _ = await cli("memories", "list", "--user", user, config=config)
    assert [orjson.loads(line)["content"] for line in out.splitlines()] == ["User works at Acme"]
    code, _, err = await cli("memories", "update", "--user", user, "--id", "nope", "x",
                             config=config)  # fmt: skip
    assert code == 2
    assert "memory id must look like" in err


async def test_memories_list_goes_past_the_api_page_and_needs_no_model(
    stack: Stack, store: MilvusStore, user: str, tmp_path: Path
) -> None:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[0] = 1.0
    memories = [
        Memory.new(user, f"fact number {i}", created_at=1_000 + i) for i in range(MAX_PAGE + 5)
    ]
    await store.store_many([(m, vector) for m in memories])
    settings = yaml.safe_load(stack.config_path.read_text())
    settings["memory"]["embedding"] = {  # no model at all
        "model_path": str(tmp_path / "missing.onnx"),
        "tokenizer_path": str(tmp_path / "missing.json"),
    }
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(settings))
    code, out, err = await cli("memories", "list", "--user", user, "--limit", "103", config=config)
    assert code == 0, err
    listed = [orjson.loads(line)["content"] for line in out.splitlines()]
    assert listed == [m.content for m in reversed(memories)][:103]  # newest first, across pages
    _, out, _ = await cli("memories", "list", "--user", user, "--limit", "500", config=config)
    assert len(out.splitlines()) == MAX_PAGE + 5
    code, out, _ = await cli("memories", "forget", "--user", user, "--all", config=config)
    assert (code, out.strip()) == (0, f"deleted {MAX_PAGE + 5} rows, history included")


async def test_migrate_copies_a_collection_with_every_row_read_again(
    stack: Stack, store: MilvusStore, user: str, tmp_path: Path
) -> None:
    """An upgrade: the rows of the old collection, ids and history kept, under both models'
    readings (stored here under a placeholder vector that no question finds)."""
    placeholder = np.zeros(DIMENSION, dtype=np.float32)
    placeholder[-1] = 1.0
    memory = Memory.new(user, "用户对花生过敏")
    await store.store(memory, placeholder)
    settings = yaml.safe_load(stack.config_path.read_text())
    old = settings["memory"]["milvus"]["collection"]
    settings["memory"]["milvus"]["collection"] = f"migrated_{user.replace('-', '_')}"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(settings))
    code, _, err = await cli("migrate", "--from", settings["memory"]["milvus"]["collection"],
                             config=config)  # fmt: skip
    assert code == 2, err  # the configured collection is not its own source
    code, out, err = await cli("migrate", "--from", old, config=config)
    assert code == 0, err
    assert "rows copied" in out
    code, out, err = await cli(
        "memories", "search", "--user", user, "--threshold", "0.3", "What am I allergic to?",
        config=config,
    )  # fmt: skip
    assert code == 0, err
    assert [orjson.loads(line)["id"] for line in out.splitlines()] == [memory.id]


async def test_doctor_says_what_works_and_what_to_fix(
    stack: Stack, llm: MockLLM, valkey: ValkeyProcess, tmp_path: Path
) -> None:
    settings = yaml.safe_load(stack.config_path.read_text())
    endpoint = {"address": "127.0.0.1", "port": llm.port}
    settings["memory"]["external_models"] = [
        {"model_role": "memory_extraction", "llm_endpoint": endpoint, "llm_model_name": "mock"},
        {"model_role": "memory_rewrite", "llm_endpoint": endpoint, "llm_model_name": "gpt-nope"},
    ]
    settings["memory"]["valkey"] = {"url": valkey.url}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(settings))
    envoy = tmp_path / "envoy.yaml"
    envoy.write_text(yaml.safe_dump(render(
        listen_port=18080, admin_port=19901, processor_ports=[settings["server"]["grpc_port"]],
        upstream=Upstream("127.0.0.1", llm.port), jwks_path=stack.identity.jwks_path,
    )))  # fmt: skip
    code, out, _ = await cli("doctor", "--envoy", str(envoy), config=config)
    lines = out.splitlines()
    assert code == 1  # one thing is wrong
    assert any(
        line.startswith("[ok  ] embedding model: all-MiniLM-L6-v2 (int8) for English, ")
        and "multilingual-e5-small for other languages, 769-d" in line
        for line in lines
    )
    assert any(line.startswith("[ok  ] milvus:") and "is usable" in line for line in lines)
    assert any(line.startswith("[ok  ] LLM memory_extraction:") for line in lines)
    assert any(line.startswith("[ok  ] envoy config:") for line in lines)
    assert f"[ok  ] valkey: reachable at 127.0.0.1:{valkey.port}/0 (version " in out
    failed = [line for line in lines if line.startswith("[FAIL]")]
    assert len(failed) == 1
    assert "does not list model 'gpt-nope'" in failed[0]
    assert "fix: use one of: mock" in out

    settings["memory"]["milvus"]["address"] = "127.0.0.1:1"  # nothing listens there
    settings["memory"]["milvus"]["timeout_seconds"] = 1
    settings["memory"]["external_models"] = []
    settings["memory"]["valkey"] = {"url": "valkey://127.0.0.1:1/0"}
    config.write_text(yaml.safe_dump(settings))
    code, out, _ = await cli("doctor", config=config)
    assert code == 1
    assert "[FAIL] milvus: http://127.0.0.1:1" in out
    assert "[FAIL] valkey: 127.0.0.1:1/0: " in out
    assert "fix: start Milvus or fix memory.milvus.address" in out
