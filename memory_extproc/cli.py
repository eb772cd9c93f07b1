"""``memory-extproc``: serve, check a configuration, and work on memories straight in Milvus."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import orjson

from memory_extproc import config as config_module
from memory_extproc import logs
from memory_extproc.store.milvus import MilvusStore
from memory_extproc.store.model import Memory, MemoryType, validate_scope_value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memory-extproc", description=__doc__)
    parser.add_argument("--config", "-c", help="YAML configuration file (defaults if omitted)")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("serve", help="run the ext_proc gRPC service")

    check = commands.add_parser("config", help="configuration tools").add_subparsers(
        dest="config_command", required=True
    )
    check.add_parser("check", help="validate a configuration file").add_argument("file")

    memories = commands.add_parser("memories", help="operate on memories in Milvus").add_subparsers(
        dest="memories_command", required=True
    )
    add = memories.add_parser("add", help="store one memory for a user")
    add.add_argument("--user", required=True)
    add.add_argument("--project", default="")
    add.add_argument("--type", default="semantic", choices=[t.value for t in MemoryType])
    add.add_argument("content")
    listing = memories.add_parser("list", help="a user's memories, newest first (JSON lines)")
    listing.add_argument("--user", required=True)
    listing.add_argument("--limit", type=int, default=100)
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
    return asyncio.run(_memories(config, args))


async def _memories(config: config_module.Config, args: argparse.Namespace) -> int:
    from memory_extproc.server import build_store

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
        "forget": lambda: _forget(store, args),
    }
    try:
        return await commands[args.memories_command]()
    finally:
        await store.close()


async def _add(store: MilvusStore, config: config_module.Config, args: argparse.Namespace) -> int:
    content = args.content.strip()
    if not content:
        print("error: empty content", file=sys.stderr)
        return 2
    memory = Memory.new(
        args.user, content, MemoryType(args.type), project_id=args.project, source="cli"
    )
    from memory_extproc.server import build_embedder

    vector = build_embedder(config).embed([content])[0]
    await store.store(memory, vector)
    print(memory.id)
    return 0


async def _list(store: MilvusStore, args: argparse.Namespace) -> int:
    for memory in await store.list(args.user, limit=args.limit):
        created = datetime.fromtimestamp(memory.created_at / 1000, tz=UTC).isoformat()
        line = {"id": memory.id, "type": memory.type, "content": memory.content, "created": created}
        print(orjson.dumps(line).decode())
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
