"""Reading the configuration: one YAML file, then single keys overridden by environment
variables, every mistake reported with its path and what would be valid, all at once (a typo
silently ignored is a memory feature silently off)."""

from __future__ import annotations

import dataclasses
import difflib
import logging
import math
import os
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from memory_extproc.config.schema import Config, cross_key_problems

log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """The configuration cannot be used: every problem found, each saying where and why."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else problems
        super().__init__("\n".join(self.problems))


ENV_PREFIX = "MEMORY_EXTPROC__"


class _EnvValue(str):
    """A value from the environment: converted to the key's type once the key is known."""

    variable: str


class _UniqueKeys(yaml.SafeLoader):
    """Safe YAML where a key written twice is an error: the second silently won (a `milvus:`
    section pasted twice)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{key!r} is written twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def load(path: str | Path | None, environ: Mapping[str, str] | None = None) -> Config:
    """The YAML file (defaults when ``path`` is None), then single keys overridden by
    ``MEMORY_EXTPROC__SECTION__KEY`` environment variables, all validated together."""
    data: Any = {}
    if path is not None:
        try:
            data = yaml.load(Path(path).read_text(encoding="utf-8"), _UniqueKeys) or {}
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path} is not UTF-8 text (byte {exc.start})") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path} is not valid YAML: {exc}") from exc
    problems: list[str] = []
    data = apply_environment(data, os.environ if environ is None else environ, problems)
    return parse(data, problems)


def apply_environment(data: Any, environ: Mapping[str, str], problems: list[str]) -> Any:
    """``MEMORY_EXTPROC__MEMORY__MILVUS__ADDRESS=milvus:19530`` sets memory.milvus.address;
    a number segment indexes a list (``…__EXTERNAL_MODELS__0__LLM_ENDPOINT__API_KEY``). A
    variable that names no key is a problem; the others still apply."""
    for variable in sorted(k for k in environ if k.startswith(ENV_PREFIX)):
        keys = [k.lower() for k in variable[len(ENV_PREFIX) :].split("__")]
        if not isinstance(data, dict) or not all(keys):
            problems.append(f"{variable}: not a configuration key")
            continue
        node: Any = data
        for i, key in enumerate(keys):
            where = ".".join(keys[: i + 1])
            last = i == len(keys) - 1
            if key.isdigit():
                if not isinstance(node, list) or int(key) >= len(node):
                    problems.append(f"{variable}: {where} is not an entry of the file's list")
                    break
                if last:
                    node[int(key)] = _env_value(variable, environ[variable])
                else:
                    node = node[int(key)]
            elif not isinstance(node, dict):
                problems.append(f"{variable}: {where} is not a key of a section")
                break
            elif last:
                node[key] = _env_value(variable, environ[variable])
            else:
                node = node.setdefault(key, {})
    return data


def parse(data: Any, problems: list[str] | None = None) -> Config:
    """The configuration, or one ConfigError listing every problem (``problems``: those found
    before, in the environment)."""
    problems = [] if problems is None else problems
    try:
        config = _build(Config, data, "", problems)
    except ConfigError as exc:  # not a mapping at all
        raise ConfigError(problems + exc.problems) from None
    problems += cross_key_problems(config, problems)
    if problems:
        raise ConfigError(problems)
    return config


# Keys of semantic-router's memory configuration that nothing here needs: a file that has them
# loads, and the log says they change nothing.
_IGNORED = {
    ("EmbeddingConfig", "dimension"): "the models have their own",
    ("MilvusConfig", "dimension"): "vectors have the embedding layout's (MiniLM, multilingual-e5)",
    ("ExternalModel", "llm_provider"): "every endpoint is spoken to as OpenAI-compatible",
}


def _build(cls: type, data: Any, path: str, problems: list[str]) -> Any:
    """``cls`` from ``data``; each wrong key is a problem and keeps its default."""
    if not isinstance(data, dict):
        raise ConfigError(f"{path or 'the file'}: expected a mapping, got {_kind(data)}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for key, raw in data.items():
        where = f"{path}.{key}" if path else str(key)
        if isinstance(raw, _EnvValue):
            where += f" (from {raw.variable})"
        if (cls.__name__, key) in _IGNORED:
            log.warning("%s is ignored: %s", where, _IGNORED[cls.__name__, key])
            continue
        if key not in fields:
            near = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            problems.append(f"{where}: unknown key{hint}")
            continue
        try:
            values[key] = _value(hints[key], raw, where, fields[key].metadata, problems)
        except ConfigError as exc:
            problems += exc.problems
    return cls(**values)


def _env_value(variable: str, raw: str) -> _EnvValue:
    value = _EnvValue(raw)
    value.variable = variable
    return value


def _value(hint: Any, raw: Any, where: str, meta: Any, problems: list[str]) -> Any:
    if isinstance(raw, _EnvValue):
        if hint is not str:
            try:
                raw = yaml.safe_load(str(raw))
            except yaml.YAMLError as exc:
                raise ConfigError(f"{where}: not a YAML value: {exc}") from exc
        else:
            raw = str(raw)
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return _build(hint, raw, where, problems)  # type: ignore[arg-type]
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(raw, list):
            raise ConfigError(f"{where}: expected a list, got {_kind(raw)}")
        items = []
        for i, v in enumerate(raw):  # a wrong entry is a problem and left out; the others stay
            try:
                items.append(_value(item, v, f"{where}[{i}]", {}, problems))
            except ConfigError as exc:
                problems += exc.problems
        return items
    if hint is bool:
        if not isinstance(raw, bool):
            raise ConfigError(f"{where}: expected true or false, got {_kind(raw)}")
        return raw
    if hint is int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ConfigError(f"{where}: expected an integer, got {_kind(raw)}")
        return _in_range(raw, where, meta)
    if hint is float:
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
            raise ConfigError(f"{where}: expected a number, got {_kind(raw)}")
        return _in_range(float(raw), where, meta)
    if hint is str:
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: expected a string, got {_kind(raw)}")
        choices = meta.get("choices")
        if choices and raw not in choices:
            raise ConfigError(f"{where}: {raw!r} is not one of {', '.join(choices)}")
        return raw
    raise ConfigError(f"{where}: unsupported type {hint!r}")  # pragma: no cover


def _in_range(value: float, where: str, meta: Any) -> Any:
    lo, hi = meta.get("min"), meta.get("max")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{where}: {value} is out of range [{lo}, {hi}]")
    return value


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]
