"""Every Envoy configuration the repository ships, wherever it lives (files, ConfigMaps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]


def kubernetes(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / name).read_text()) if d]


def envoy_configs() -> dict[str, dict[str, Any]]:
    found = {
        str(path.relative_to(ROOT)): yaml.safe_load(path.read_text())
        for path in sorted([*ROOT.glob("envoy/**/*.yaml"), ROOT / "deploy" / "envoy.yaml"])
    }
    for doc in kubernetes("envoy.yaml"):
        if doc["kind"] == "ConfigMap":
            found["deploy/kubernetes/envoy.yaml#envoy-config"] = yaml.safe_load(
                doc["data"]["envoy.yaml"]
            )
    return found


def http_filters(config: dict[str, Any]) -> list[dict[str, Any]]:
    (listener,) = config["static_resources"]["listeners"]
    return listener["filter_chains"][0]["filters"][0]["typed_config"]["http_filters"]


def cluster(config: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [c for c in config["static_resources"]["clusters"] if c["name"] == name]
    return found


def endpoints(config: dict[str, Any], name: str) -> set[tuple[str, int]]:
    return {
        (lb["endpoint"]["address"]["socket_address"]["address"],
         lb["endpoint"]["address"]["socket_address"]["port_value"])
        for group in cluster(config, name)["load_assignment"]["endpoints"]
        for lb in group["lb_endpoints"]
    }  # fmt: skip
