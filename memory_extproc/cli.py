"""``memory-extproc``: serve, check a configuration, and work on memories straight in Milvus."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import orjson

from memory_extproc import config as config_module
from memory_extproc import logs
from memory_extproc.api.routes import MAX_PAGE
from memory_extproc.api.service import ApiReply, MemoryApi
from memory_extproc.embedding.batcher import Embedder, EmbeddingBatcher
from memory_extproc.embedding.model import ModelIntegrityError
from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import MemoryType, validate_scope_value
from memory_extproc.wiring import build_api, build_embedder, build_multilingual, build_store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memory-extproc", description=__doc__)
    parser.add_argument("--config", "-c", help="YAML configuration file (defaults if omitted)")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("serve", help="run the ext_proc gRPC service")
    doctor = commands.add_parser(
        "doctor", help="check config, model files, Milvus, LLM endpoints and an Envoy config"
    )
    doctor.add_argument("--envoy", type=Path, help="an Envoy config to check against this one")

    migrate = commands.add_parser(
        "migrate", help="copy a collection of an earlier release into the configured one"
    )
    migrate.add_argument("--from", dest="source", required=True, help="the old collection")
    check = commands.add_parser("config", help="configuration tools").add_subparsers(
        dest="config_command", required=True
    )
    check.add_parser("check", help="validate a configuration file").add_argument("file")

    memories = commands.add_parser("memories", help="operate on memories in Milvus").add_subparsers(
        dest="memories_command", required=True
    )
    add = memories.add_parser("add", help="store one memory for a user (deduplicated)")
    add.add_argument("--user", required=True)
    add.add_argument("--project", default="")
    add.add_argument("--type", choices=[t.value for t in MemoryType],
                     help="default: preference when it states one, else semantic")  # fmt: skip
    add.add_argument("content")
    listing = memories.add_parser("list", help="a user's memories, newest first (JSON lines)")
    listing.add_argument("--limit", type=int, default=100)
    listing.add_argument("--type", choices=[t.value for t in MemoryType])
    search = memories.add_parser("search", help="a user's memories closest to a text (JSON lines)")
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--threshold", type=float, help="default: the configured one")
    search.add_argument("--type", choices=[t.value for t in MemoryType])
    search.add_argument("query")
    update = memories.add_parser("update", help="edit one memory (its old text stays in history)")
    update.add_argument("--id", required=True)
    update.add_argument("--type", choices=[t.value for t in MemoryType])
    update.add_argument("content")
    memories.add_parser("history", help="the earlier texts of one memory").add_argument(
        "--id", required=True
    )
    forget = memories.add_parser(
        "forget", help="delete one memory, all of a user's, or all of one project of a user"
    )
    target = forget.add_mutually_exclusive_group(required=True)
    target.add_argument("--id")
    target.add_argument("--all", action="store_true", help="everything, or only --project's")
    for command in (listing, search, update, memories.choices["history"], forget):
        command.add_argument("--user", required=True)
    for command in (listing, search, forget):
        command.add_argument("--project", default="", help="only this project's memories")

    args = parser.parse_args(argv)
    logs.setup("WARNING")  # what loading the configuration says is logged as JSON too
    try:
        if args.command == "config":
            config_module.load(args.file)
            print(f"{args.file}: OK")
            return 0
        config = config_module.load(args.config)
    except config_module.ConfigError as exc:
        found = len(exc.problems)
        print(f"configuration: {found} error{'s' * (found > 1)}", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return 2
    logs.setup(config.server.log_level if args.command == "serve" else "WARNING")
    if args.command == "serve":
        from memory_extproc.server import serve

        try:
            asyncio.run(serve(config))
        except ModelIntegrityError as exc:  # an install problem: say it once, plainly
            print(f"embedding model: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.command == "doctor":
        return asyncio.run(_doctor(config, args))
    if args.command == "migrate":
        return asyncio.run(_migrate(config, args.source))
    return asyncio.run(_memories(config, args))


async def _doctor(config: config_module.Config, args: argparse.Namespace) -> int:
    from memory_extproc import doctor

    print(f"[ok  ] configuration: {args.config or 'defaults'} is valid")
    verdicts = await doctor.run(config, args.envoy)
    for verdict in verdicts:
        print(verdict.line())
    return 0 if all(v.ok for v in verdicts) else 1


async def _migrate(config: config_module.Config, source: str) -> int:
    from pymilvus import MilvusClient

    from memory_extproc.migrate import migrate
    from memory_extproc.wiring import build_embeddings

    milvus = config.memory.milvus
    if source == milvus.collection:
        print("error: --from names the configured collection; configure a new one", file=sys.stderr)
        return 2
    client = MilvusClient(uri=milvus.uri, token=milvus.token, timeout=milvus.timeout_seconds)
    if not client.has_collection(source):
        print(f"error: no collection {source!r} at {milvus.uri}", file=sys.stderr)
        return 1
    store = await _started_store(config)
    if store is None:
        return 1
    embeddings = build_embeddings(config, "cli")
    try:
        copied = await migrate(client, source, store, embeddings)
    finally:
        await store.close()
        embeddings.close()
        client.close()
    print(f"{copied} rows copied from {source!r} into {milvus.collection!r}")
    return 0


async def _memories(config: config_module.Config, args: argparse.Namespace) -> int:
    """The memory API's own operations, for one user, straight against Milvus: the same rules
    (dedup, revision, verified deletes) and the same JSON for a memory as /v1/memory."""
    try:
        validate_scope_value(args.user)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    store = await _started_store(config)
    if store is None:
        return 1
    embedder = Embeddings(
        EmbeddingBatcher(_ModelOnFirstUse(lambda: build_embedder(config)), name="cli"),
        EmbeddingBatcher(
            _ModelOnFirstUse(lambda: build_multilingual(config)), name="cli_multilingual"
        ),
    )
    try:
        return await _run(build_api(config, store, embedder, source="cli"), args)
    finally:
        await store.close()
        embedder.close()


async def _started_store(config: config_module.Config) -> MilvusStore | None:
    """The configured store, once Milvus answers (None, said on stderr, when it does not)."""
    store = build_store(config)
    await store.start()
    if await store.wait_available(120):
        return store
    await store.close()
    print(f"error: Milvus is not reachable at {config.memory.milvus.uri}", file=sys.stderr)
    return None


class _ModelOnFirstUse:
    """An embedding model, loaded when a command first embeds: list, history and forget work
    without it (forgetting a user must not depend on the model files)."""

    dimension = 384  # both models'

    def __init__(self, load: Callable[[], Embedder]) -> None:
        self._load = load
        self._model: Embedder | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            self._model = self._load()
        return self._model.embed(texts)


async def _run(api: MemoryApi, args: argparse.Namespace) -> int:
    """One API call; a list longer than a page of the API, page after page."""
    if args.memories_command != "list":
        return _show(args, await api.respond(*_request(args), args.user, ""))
    left, cursor = args.limit, ""
    while True:
        query = _given(
            {"limit": min(left, MAX_PAGE), "type": args.type, "project_id": args.project,
             "cursor": cursor}
        )  # fmt: skip
        reply = await api.respond("GET", "/v1/memory", urlencode(query), b"", args.user, "")
        if reply.status >= 400:
            return _show(args, reply)
        page = orjson.loads(reply.body)
        for item in page["data"]:
            print(orjson.dumps(item).decode())
        left -= len(page["data"])
        cursor = page["next_cursor"]
        if not cursor or left <= 0:
            return 0


def _request(args: argparse.Namespace) -> tuple[str, str, str, bytes]:
    """The /v1/memory call a command stands for: the API parses and checks it as any other."""
    command, base = args.memories_command, "/v1/memory"
    fields = {"type": getattr(args, "type", None), "project_id": getattr(args, "project", "")}
    if command == "add":
        return "POST", base, "", _body(content=args.content, **fields)
    if command == "search":
        return (
            "POST",
            f"{base}/search",
            "",
            _body(query=args.query, limit=args.limit, threshold=args.threshold, **fields),
        )
    if command == "update":
        return "PATCH", f"{base}/{args.id}", "", _body(content=args.content, type=args.type)
    if command == "history":
        return "GET", f"{base}/{args.id}/history", "", b""
    if args.id:
        return "DELETE", f"{base}/{args.id}", "", b""
    scope = {"project_id": args.project} if args.project else {"scope": "user"}
    return "DELETE", base, urlencode(scope), b""


def _given(fields: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in fields.items() if v not in (None, "")}


def _body(**fields: object) -> bytes:
    return orjson.dumps(_given(fields))


def _show(args: argparse.Namespace, reply: ApiReply) -> int:
    """Errors on stderr (exit 2 for a refused call, else 1); memories as JSON lines, as the API
    shows them."""
    data = orjson.loads(reply.body) if reply.body else {}
    if reply.status >= 400:
        print(f"error: {data['error']['message']}", file=sys.stderr)
        return 2 if reply.status == 400 else 1
    command = args.memories_command
    if command == "add":
        print(f"{data['id']} {data['result']}")
    elif command == "update":
        print(orjson.dumps(data).decode())
    elif command == "forget":
        print(f"deleted {data['deleted']} rows, history included" if data else "deleted")
    else:  # search, history
        for item in data["data"]:
            print(orjson.dumps(item).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
