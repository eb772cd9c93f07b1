"""Configuration: one YAML file, ``memory:`` (the keys of semantic-router's agentic memory, plus
our own) and ``server:``, validated.

Every mistake is reported with its path and what would be valid, all of a file's mistakes at
once, and the service refuses to start on any of them: a typo silently ignored is a memory
feature silently off.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import math
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from memory_extproc.embedding.model import DIMENSION as MODEL_DIMENSION

log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """The configuration cannot be used: every problem found, each saying where and why."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else problems
        super().__init__("\n".join(self.problems))


def _key(
    doc: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A key's metadata: what it is for (the configuration reference in docs/ is generated from
    it), and the range or the choices its value is checked against."""
    return {"doc": doc, "min": lo, "max": hi, "choices": choices}


_ROLES = ("memory_extraction", "memory_rewrite")


@dataclass(frozen=True)
class MilvusConfig:
    address: str = field(
        default="127.0.0.1:19530", metadata=_key("host:port, or a full URI (http://, https://)")
    )
    collection: str = field(
        default="agentic_memory", metadata=_key("The collection, created at first start.")
    )
    dimension: int = field(
        default=384, metadata=_key("Vector size: must be the embedding model's (384).", 1, 32768)
    )
    # A search filters one partition's rows, so keep rows per partition near 100 k.
    partitions: int = field(
        default=64,
        metadata=_key(
            "Partition-key partitions, fixed when the service creates the collection "
            "(deploy/SIZING.md).",
            1,
            4096,
        ),
    )
    token: str = field(
        default="", metadata=_key('"user:password" or an API key, when the server requires one.')
    )
    timeout_seconds: float = field(
        default=5.0, metadata=_key("Deadline of one Milvus call.", 0.1, 300)
    )

    @property
    def uri(self) -> str:
        return self.address if "://" in self.address else f"http://{self.address}"


@dataclass(frozen=True)
class EmbeddingConfig:
    model: str = field(
        default="all-MiniLM-L6-v2",
        metadata=_key("The model's name, as `doctor` reports it (semantic-router's key)."),
    )
    model_path: str = field(
        default="", metadata=_key("Your own ONNX export instead of the packaged model, used as is.")
    )
    tokenizer_path: str = field(default="", metadata=_key("Its tokenizer.json."))
    threads: int = field(default=1, metadata=_key("ONNX Runtime threads per model run.", 1, 64))
    precision: str = field(
        default="int8",
        metadata=_key(
            "The packaged model: int8 (faster, `make bench`) or float (the packaged graph).",
            choices=("int8", "float"),
        ),
    )
    cache_dir: str = field(
        default="",
        metadata=_key('Where the int8 variant is built; "": ~/.cache/memory-extproc.'),
    )


@dataclass(frozen=True)
class LlmEndpoint:
    address: str = field(default="127.0.0.1", metadata=_key("Host of the endpoint."))
    port: int = field(default=8000, metadata=_key("Its port.", 1, 65535))
    scheme: str = field(default="http", metadata=_key("http or https.", choices=("http", "https")))
    api_key: str = field(
        default="", metadata=_key("Sent as a bearer token; keep it in the environment.")
    )


@dataclass(frozen=True)
class ExternalModel:
    """Any OpenAI-compatible endpoint."""

    model_role: str = field(
        default="",
        metadata=_key(
            "memory_extraction (learns facts from answers) or memory_rewrite (rewrites vague "
            "follow-ups into a search query).",
            choices=_ROLES,
        ),
    )
    llm_endpoint: LlmEndpoint = field(
        default_factory=LlmEndpoint, metadata=_key("Where the model is served.")
    )
    llm_model_name: str = field(default="", metadata=_key("The model name sent in each call."))
    llm_timeout_seconds: float = field(
        default=30.0, metadata=_key("Deadline of one call.", 0.1, 600)
    )
    max_tokens: int = field(default=500, metadata=_key("Answer length cap.", 1, 100_000))
    temperature: float = field(default=0.1, metadata=_key("Sampling temperature.", 0, 2))


@dataclass(frozen=True)
class IdentityConfig:
    """Trusted headers, set by Envoy after authentication (see envoy/envoy.yaml)."""

    user_header: str = field(
        default="x-authz-user-id",
        metadata=_key("The verified user id; a request without it is left alone."),
    )
    project_header: str = field(
        default="x-authz-project-id", metadata=_key("An optional project that scopes memories.")
    )


@dataclass(frozen=True)
class SignalsConfig:
    opt_out_header: str = field(
        default="x-disable-router-memory",
        metadata=_key('Value "true" disables memory for the request.'),
    )
    fact_check_header: str = field(
        default="x-vsr-matched-fact-check",
        metadata=_key("semantic-router's fact-check signal: the request needs facts."),
    )
    tool_header: str = field(
        default="x-vsr-matched-tools",
        metadata=_key("A tool signal: no fixed name in semantic-router, set your chain's."),
    )


@dataclass(frozen=True)
class RetrievalConfig:
    time_budget_ms: int = field(
        default=100,
        metadata=_key("Embedding, search and ranking of one request; late: skipped.", 1, 10_000),
    )
    max_context_chars: int = field(
        default=1200, metadata=_key("Injected memory context cap.", 100, 100_000)
    )
    excluded_paths: list[str] = field(
        default_factory=list, metadata=_key("Request paths memory never touches.")
    )
    excluded_models: list[str] = field(
        default_factory=list, metadata=_key("Model names memory never touches.")
    )
    hybrid: bool = field(
        default=True,
        metadata=_key("Cosine and keyword ranking of more candidates (retrieval/rank.py)."),
    )
    preferences: bool = field(
        default=True,
        metadata=_key(
            "A request for something chosen or made for the user (a recommendation, a plan) "
            "is given the user's standing preferences nearest to it."
        ),
    )


@dataclass(frozen=True)
class ExtractionConfig:
    """The response path's worker pool and limits."""

    queue_size: int = field(
        default=1000,
        metadata=_key(
            "Batches handed to the worker at once; more wait in the spool.", 1, 1_000_000
        ),
    )
    concurrency: int = field(default=2, metadata=_key("Jobs at once in the worker.", 1, 64))
    job_timeout_seconds: float = field(
        default=120.0, metadata=_key("One batch: model calls, embedding, writes.", 1, 3600)
    )
    retries: int = field(
        default=2,
        metadata=_key("Transient model errors (connection, 429, 5xx), with backoff.", 0, 10),
    )
    idle_flush_seconds: float = field(
        default=300.0,
        metadata=_key(
            "A conversation's last turns are learned once it is this quiet.", 0.1, 86_400
        ),
    )
    drain_seconds: float = field(
        default=20.0,
        metadata=_key("On SIGTERM, queued batches get this long; the rest stay spooled.", 0, 600),
    )
    min_fact_chars: int = field(default=8, metadata=_key("Shorter facts are refused.", 1, 1000))
    max_fact_chars: int = field(default=500, metadata=_key("Longer facts are refused.", 10, 2000))
    max_facts: int = field(default=20, metadata=_key("Facts kept per batch.", 1, 200))
    max_conversations: int = field(
        default=10_000,
        metadata=_key(
            "Conversations a process follows (idle flushes, Responses API chains).", 1, 10_000_000
        ),
    )
    date_header: str = field(
        default="x-memory-date",
        metadata=_key("Optional ISO date of the turn, for replayed history."),
    )
    # Processors writing one collection share it (one volume): each owns a locked directory
    # inside and adopts abandoned ones; the store's cross-process write locks live in it.
    spool_dir: str = field(
        default="",
        metadata=_key(
            'Captured turns wait here until learned; "": $XDG_STATE_HOME/memory-extproc/spool. '
            "Replicas share one (a volume whose flock excludes)."
        ),
    )
    spool_max_mb: int = field(
        default=256,
        metadata=_key("Beyond it, a batch is handed over from memory only.", 1, 1_000_000),
    )

    @property
    def spool_path(self) -> Path:
        if self.spool_dir:
            return Path(self.spool_dir).expanduser()
        state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        return Path(state) / "memory-extproc" / "spool"


@dataclass(frozen=True)
class RetentionConfig:
    """How long memories live (our keys). Off by default: memories stay until forgotten."""

    ttl_days: float = field(
        default=0.0,
        metadata=_key(
            "0: memories never expire; else they expire this long after they are learned, "
            "renewed when used within the last half of it.",
            0,
            36_500,
        ),
    )
    max_memories_per_user: int = field(
        default=10_000,
        metadata=_key("0: no cap; over it, the least recently used go.", 0, 16_000),
    )
    prune_interval_seconds: float = field(
        default=3600.0,
        metadata=_key("How often the worker deletes expired memories.", 0.1, 604_800),
    )
    usage_flush_seconds: float = field(
        default=60.0,
        metadata=_key("How often renewals due are handed to the worker, in one batch.", 0.1, 3600),
    )

    @property
    def ttl_ms(self) -> int:
        return int(self.ttl_days * 86_400_000)


@dataclass(frozen=True)
class MemoryConfig:
    enabled: bool = field(default=True, metadata=_key("false: memory does nothing."))
    auto_store: bool = field(
        default=True,
        metadata=_key("Learn from answers (the API and retrieval work either way)."),
    )
    milvus: MilvusConfig = field(default_factory=MilvusConfig, metadata=_key("The store."))
    embedding: EmbeddingConfig = field(
        default_factory=EmbeddingConfig, metadata=_key("The embedding model.")
    )
    default_retrieval_limit: int = field(
        default=5, metadata=_key("Memories injected at most (top-k).", 0, 100)
    )
    default_similarity_threshold: float = field(
        default=0.45,
        metadata=_key(
            "Cosine a memory needs to be injected; once one passes, near ones join it.", -1, 1
        ),
    )
    extraction_batch_size: int = field(
        default=10, metadata=_key("Learn every N turns of a conversation.", 1, 1000)
    )
    external_models: list[ExternalModel] = field(
        default_factory=list,
        metadata=_key("Optional models by role; without a memory_extraction one: notes."),
    )
    identity: IdentityConfig = field(
        default_factory=IdentityConfig, metadata=_key("Who the request is for.")
    )
    signals: SignalsConfig = field(
        default_factory=SignalsConfig, metadata=_key("Headers that turn memory off or on.")
    )
    retrieval: RetrievalConfig = field(
        default_factory=RetrievalConfig, metadata=_key("The request path.")
    )
    extraction: ExtractionConfig = field(
        default_factory=ExtractionConfig, metadata=_key("The response path.")
    )
    retention: RetentionConfig = field(
        default_factory=RetentionConfig, metadata=_key("How long memories live.")
    )

    def model(self, role: str) -> ExternalModel | None:
        return next((m for m in self.external_models if m.model_role == role), None)


@dataclass(frozen=True)
class ServerConfig:
    host: str = field(
        default="0.0.0.0", metadata=_key("gRPC listen address (a sidecar listens for Envoy).")
    )
    grpc_port: int = field(default=50051, metadata=_key("ext_proc and grpc.health.v1.", 0, 65535))
    admin_host: str = field(default="0.0.0.0", metadata=_key("Admin listen address."))
    admin_port: int = field(default=9190, metadata=_key("Prometheus /metrics.", 0, 65535))
    max_message_mb: int = field(
        default=32,
        metadata=_key(
            "gRPC message cap; larger LLM requests pass through unread. Keep Envoy's "
            "per_connection_buffer_limit_bytes at least this (`doctor` checks).",
            4,
            1024,
        ),
    )
    grace_seconds: float = field(
        default=10.0,
        metadata=_key("On SIGTERM, in-flight streams get this long to finish.", 0, 600),
    )
    log_level: str = field(
        default="INFO",
        metadata=_key("DEBUG, INFO, WARNING or ERROR, any case; memory contents never at INFO."),
    )

    @property
    def max_message_bytes(self) -> int:
        return self.max_message_mb * 1024 * 1024

    @property
    def max_body_bytes(self) -> int:
        """The largest LLM request body memory reads: a larger one passes through unread (one
        message must hold it, and Envoy would refuse to buffer it)."""
        return self.max_message_bytes - 64 * 1024  # room for the message's other fields


@dataclass(frozen=True)
class Config:
    memory: MemoryConfig = field(default_factory=MemoryConfig, metadata=_key("Memory."))
    server: ServerConfig = field(default_factory=ServerConfig, metadata=_key("The process."))


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


def cross_key_problems(config: Config, found: list[str]) -> list[str]:
    """Checks that span several keys (each key's own type and range are checked as it is read),
    of keys read without a problem: one that kept its default after a ``found`` problem is not
    reported again under another name."""

    def read_well(*keys: str) -> bool:
        return not any(p.startswith(keys) for p in found)

    memory, problems = config.memory, []
    if read_well("memory.milvus.dimension") and memory.milvus.dimension != MODEL_DIMENSION:
        problems.append(
            f"memory.milvus.dimension is {memory.milvus.dimension} but the embedding model "
            f"produces {MODEL_DIMENSION}-d vectors"
        )
    roles = [m.model_role for m in memory.external_models]
    for role in sorted({r for r in roles if r and roles.count(r) > 1}):
        problems.append(f"memory.external_models: two entries for model_role {role!r}")
    for i, role in enumerate(roles):
        if not role and read_well(f"memory.external_models[{i}]"):
            where = f"memory.external_models[{i}].model_role"
            problems.append(f"{where}: missing (one of {', '.join(_ROLES)})")
    if config.server.log_level.upper() not in _LOG_LEVELS:
        problems.append(f"server.log_level: must be one of {', '.join(_LOG_LEVELS)}")
    extraction = memory.extraction
    if (
        read_well("memory.extraction.min_fact_chars", "memory.extraction.max_fact_chars")
        and extraction.min_fact_chars >= extraction.max_fact_chars
    ):
        problems.append(
            "memory.extraction.min_fact_chars must be below max_fact_chars "
            f"({extraction.min_fact_chars} >= {extraction.max_fact_chars})"
        )
    for name in ("user_header", "project_header"):
        value = getattr(memory.identity, name)
        if not value or value != value.lower():
            problems.append(f"memory.identity.{name}: must be a non-empty lower-case header name")
    return problems


_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

# Keys of semantic-router's memory configuration that nothing here needs: a file that has them
# loads, and the log says they change nothing.
_IGNORED = {
    ("EmbeddingConfig", "dimension"): "the model has its own (memory.milvus.dimension must match)",
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
