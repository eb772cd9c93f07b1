"""``memory-extproc``: serve, check a configuration, and work on memories straight in Milvus."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import orjson

from memory_extproc import config as config_module
from memory_extproc import logs
from memory_extproc.clock import now_ms
from memory_extproc.embedding.batcher import EmbeddingBatcher
from memory_extproc.memories.facts import Fact
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory, MemoryType, SearchRequest, validate_scope_value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memory-extproc", description=__doc__)
    parser.add_argument("--config", "-c", help="YAML configuration file (defaults if omitted)")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("serve", help="run the ext_proc gRPC service")
    doctor = commands.add_parser(
        "doctor", help="check config, model files, Milvus, LLM endpoints and an Envoy config"
    )
    doctor.add_argument("--envoy", type=Path, help="an Envoy config to check against this one")

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
    add.add_argument("--type", default="semantic", choices=[t.value for t in MemoryType])
    add.add_argument("content")
    listing = memories.add_parser("list", help="a user's memories, newest first (JSON lines)")
    listing.add_argument("--user", required=True)
    listing.add_argument("--limit", type=int, default=100)
    listing.add_argument("--type", choices=[t.value for t in MemoryType])
    search = memories.add_parser("search", help="a user's memories closest to a text (JSON lines)")
    search.add_argument("--user", required=True)
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--threshold", type=float, help="default: the configured one")
    search.add_argument("query")
    forget = memories.add_parser("forget", help="delete one memory, or all of a user's")
    forget.add_argument("--user", required=True)
    target = forget.add_mutually_exclusive_group(required=True)
    target.add_argument("--id")
    target.add_argument("--all", action="store_true")

    args = parser.parse_args(argv)
    try:
        if args.command == "config":
            config_module.load(args.file)
            print(f"{args.file}: OK")
            return 0
        config = config_module.load(args.config)
    except config_module.ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    logs.setup(config.server.log_level if args.command == "serve" else "WARNING")
    if args.command == "serve":
        from memory_extproc.server import serve

        asyncio.run(serve(config))
        return 0
    if args.command == "doctor":
        return asyncio.run(_doctor(config, args))
    return asyncio.run(_memories(config, args))


async def _doctor(config: config_module.Config, args: argparse.Namespace) -> int:
    from memory_extproc import doctor

    print(f"[ok  ] configuration: {args.config or 'defaults'} is valid")
    verdicts = await doctor.run(config, args.envoy)
    for verdict in verdicts:
        print(verdict.line())
    return 0 if all(v.ok for v in verdicts) else 1


async def _memories(config: config_module.Config, args: argparse.Namespace) -> int:
    from memory_extproc.wiring import build_store

    try:
        validate_scope_value(args.user)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    store = build_store(config)
    await store.start()
    if not await store.wait_available(120):
        await store.close()
        print(f"error: Milvus is not reachable at {config.memory.milvus.uri}", file=sys.stderr)
        return 1
    commands: dict[str, Callable[[], Awaitable[int]]] = {
        "add": lambda: _add(store, config, args),
        "list": lambda: _list(store, args),
        "search": lambda: _search(store, config, args),
        "forget": lambda: _forget(store, args),
    }
    try:
        return await commands[args.memories_command]()
    finally:
        await store.close()


def _embedder(config: config_module.Config) -> EmbeddingBatcher:
    from memory_extproc.wiring import build_embedder

    return EmbeddingBatcher(build_embedder(config), name="cli")


async def _add(store: MilvusStore, config: config_module.Config, args: argparse.Namespace) -> int:
    from memory_extproc.wiring import build_writer

    content = args.content.strip()
    if not content:
        print("error: empty content", file=sys.stderr)
        return 2
    writer = build_writer(config, store, _embedder(config), None)
    written, memory = await writer.add(
        args.user, args.project, Fact(MemoryType(args.type), content), now_ms(), source="cli"
    )
    print(f"{memory.id} {written.value}")
    return 0


def _line(memory: Memory, **extra: object) -> str:
    created = datetime.fromtimestamp(memory.created_at / 1000, tz=UTC).isoformat()
    return orjson.dumps(
        {"id": memory.id, "type": memory.type, "content": memory.content, "created": created,
         "project_id": memory.project_id, **extra}
    ).decode()  # fmt: skip


async def _list(store: MilvusStore, args: argparse.Namespace) -> int:
    types = [MemoryType(args.type)] if args.type else []
    for memory in await store.list(args.user, limit=args.limit, types=types):
        print(_line(memory))
    return 0


async def _search(
    store: MilvusStore, config: config_module.Config, args: argparse.Namespace
) -> int:
    threshold = config.memory.default_similarity_threshold
    vector = await _embedder(config).embed(args.query)
    request = SearchRequest(
        args.user, vector, limit=args.limit,
        threshold=threshold if args.threshold is None else args.threshold,
    )  # fmt: skip
    for hit in await store.retrieve(request):
        print(_line(hit.memory, score=round(hit.score, 4)))
    return 0


async def _forget(store: MilvusStore, args: argparse.Namespace) -> int:
    if args.all:
        print(f"deleted {await store.forget_by_scope(args.user)} memories")
        return 0
    if not await store.forget(args.user, args.id):
        print("error: no such memory for this user", file=sys.stderr)
        return 1
    print("deleted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
