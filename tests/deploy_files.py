"""Every Envoy configuration the repository ships, wherever it lives (files, ConfigMaps); the
stages of deploy/Dockerfile."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from itertools import takewhile
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


@dataclass
class Stage:
    """One `FROM … AS name` of a Dockerfile: its instructions, continuation lines joined."""

    name: str
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args(self, keyword: str) -> list[str]:
        return [rest for kw, rest in self.instructions if kw == keyword]

    def run(self) -> list[str]:
        """Every shell command of its RUN instructions (split at `&&`), whitespace collapsed."""
        return [" ".join(c.split()) for rest in self.args("RUN") for c in rest.split("&&")]

    def copies(self) -> list[tuple[str | None, list[str], str]]:
        """(--from stage or None for the build context, sources, destination) of each COPY."""
        found = []
        for rest in self.args("COPY"):
            words = shlex.split(rest)
            flags = [w for w in words if w.startswith("--")]
            paths = [w for w in words if not w.startswith("--")]
            source = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
            found.append((source, paths[:-1], paths[-1]))
        return found


def dockerfile_stages(path: Path) -> list[Stage]:
    stages: list[Stage] = []
    logical = ""
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):  # also inside a continuation
            continue
        logical += line.rstrip().removesuffix("\\") + " "
        if line.rstrip().endswith("\\"):
            continue
        keyword, _, rest = logical.strip().partition(" ")
        logical = ""
        if keyword.upper() == "FROM":
            base, *alias = rest.split()
            assert alias[:1] in ([], ["AS"], ["as"]), rest
            stages.append(Stage(alias[1] if alias else str(len(stages)), base))
        else:
            stages[-1].instructions.append((keyword.upper(), rest.strip()))
    return stages


def make_setup_commands() -> list[str]:
    """The shell commands of the Makefile's `$(STAMP)` recipe (what `make run` installs)."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("$(STAMP):"))
    recipe = takewhile(lambda line: line.startswith("\t"), lines[start + 1 :])
    return [" ".join(c.split()) for c in recipe if not c.strip().startswith("#")]
