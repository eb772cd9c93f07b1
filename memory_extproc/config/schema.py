"""The configuration's schema: every key, its type, default, range or choices and what it is
for (docs/configuration.md is generated from it), and the checks that span several keys.
Pure: reading a file and the environment is loader.py's."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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
        default="agentic_memory",
        metadata=_key(
            "The collection, created at first start: letters, digits and underscores, starting "
            "with a letter or an underscore (Milvus' rule)."
        ),
    )
    # A search filters one partition's rows, so keep rows per partition near 100 k.
    partitions: int = field(
        default=64,
        metadata=_key(
            "Partition-key partitions, fixed when the service creates the collection "
            "(docs/operations/sizing.md).",
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
class ValkeyConfig:
    url: str = field(
        default="",
        metadata=_key(
            "valkey://host:port/db (rediss:// for TLS): what processor replicas share lives "
            "there (conversation state, captured turns until learned, the store's write locks); "
            "empty: in spool_dir (one machine, or a shared volume).",
        ),
    )
    timeout_seconds: float = field(
        default=0.5, metadata=_key("Deadline of one Valkey call (and to connect).", 0.05, 30)
    )
    claim_idle_seconds: float = field(
        default=60.0,
        metadata=_key(
            "A replica silent this long is taken for gone: the others learn the turns it held.",
            1,
            3600,
        ),
    )


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
            "The packaged models: int8 (faster, `make bench`) or float (MiniLM's packaged graph; "
            "e5 exactly as its package's engine reads it).",
            choices=("int8", "float"),
        ),
    )
    cache_dir: str = field(
        default="",
        metadata=_key(
            'Where the models derived from the packaged weights are built; "": '
            "~/.cache/memory-extproc."
        ),
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
    compress_header: str = field(
        default="x-memory-compress",
        metadata=_key('Value "true" compresses the request, "false" never (docs/concepts/'
                      "compression.md)."),
    )  # fmt: skip


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
    min_fact_chars: int = field(
        default=8,
        metadata=_key(
            "Shorter facts are refused (a Chinese or Japanese character counts as two).", 1, 1000
        ),
    )
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
    # Without memory.valkey.url, processors writing one collection share it (one volume): each
    # owns a locked directory inside and adopts abandoned ones; the store's cross-process write
    # locks live in it. With Valkey, each process may have its own.
    spool_dir: str = field(
        default="",
        metadata=_key(
            'Captured turns wait here until learned; "": $XDG_STATE_HOME/memory-extproc/spool. '
            "Without memory.valkey.url, replicas share one (a volume whose flock excludes); with "
            "it, each has its own."
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
class ReviewConfig:
    """Learned memories below a confidence, held for the user to confirm (docs/concepts/
    confidence.md): kept, never injected, listed by the memory API."""

    hold_below: str = field(
        default="implied",
        metadata=_key(
            "Hold what is less sure than this: implied (default) holds uncertain memories, "
            "stated holds implied ones too, none holds nothing.",
            choices=("none", "implied", "stated"),
        ),
    )
    pending_days: float = field(
        default=30.0,
        metadata=_key("A held memory neither confirmed nor seen again is gone after.", 0.01, 3650),
    )

    @property
    def pending_ms(self) -> int:
        return int(self.pending_days * 86_400_000)


@dataclass(frozen=True)
class CompressionConfig:
    """Long conversations sent shorter (docs/concepts/compression.md): older turns replaced by
    the few of them that bear on the new message. Asked per request with
    ``"memory_config": {"compress": true}``; here, for every request to some models."""

    models: list[str] = field(
        default_factory=list,
        metadata=_key('Compress every request to these models ("*": any); none by default.'),
    )
    min_turns: int = field(
        default=20, metadata=_key("A conversation is compressed from this many turns.", 2, 100_000)
    )
    keep_turns: int = field(default=4, metadata=_key("The last turns, sent as they are.", 1, 1000))
    quote_tokens: int = field(
        default=800,
        metadata=_key("Older messages quoted, nearest to the new message first (tokens).", 0,
                      100_000),
    )  # fmt: skip
    state_words: int = field(
        default=150,
        metadata=_key("The conversation's running state, written by the extraction model per "
                      "batch of a conversation that asked for compression (0: none).", 0, 2000),
    )  # fmt: skip
    ttl_hours: float = field(
        default=24.0,
        metadata=_key("What a conversation's compression reads is kept this long after its "
                      "last turn.", 0.01, 8760),
    )  # fmt: skip

    def for_model(self, model: str) -> bool:
        return "*" in self.models or model in self.models


_ACTIONS = ("drop", "mask", "keep")  # memories/redaction.py's, which config does not import
_SECRET = "A secret: mask (default) puts a marker in its place and refuses any memory holding it; "
_PERSONAL = "Personal data: mask (default) stores it as a placeholder"


def _secret(what: str) -> Any:
    return field(default="mask", metadata=_key(f"{_SECRET}{what}.", choices=_ACTIONS))


def _personal(what: str) -> Any:
    return field(default="mask", metadata=_key(f"{_PERSONAL} ({what}).", choices=_ACTIONS))


@dataclass(frozen=True)
class RedactionConfig:
    """What becomes of each class of secret and personal data found in a captured turn, a
    model's fact or an API write (docs/concepts/privacy.md): mask, drop (the sentence holding
    it) or keep. One key per class of memories/redaction.py."""

    api_key: str = _secret("keys and tokens by their providers' shapes, or said as such")
    private_key: str = _secret("a PEM private-key block")
    password: str = _secret('a password or PIN said as such ("my password is …")')
    card: str = _secret("a payment card number (Luhn-valid)")
    iban: str = _secret("an IBAN (checksum-valid)")
    national_id: str = _secret("DNI/NIE, Steuer-IdNr, 居民身份证, マイナンバー, US SSN")
    email: str = _personal("an email address: [email]")
    phone: str = _personal("a phone number: [phone]")
    address: str = _personal("a street address: [address]")


@dataclass(frozen=True)
class MemoryConfig:
    enabled: bool = field(default=True, metadata=_key("false: memory does nothing."))
    auto_store: bool = field(
        default=True,
        metadata=_key("Learn from answers (the API and retrieval work either way)."),
    )
    milvus: MilvusConfig = field(default_factory=MilvusConfig, metadata=_key("The store."))
    valkey: ValkeyConfig = field(
        default_factory=ValkeyConfig,
        metadata=_key("Where replicas share conversation state (docs/operations/replicas.md)."),
    )
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
    redaction: RedactionConfig = field(
        default_factory=RedactionConfig,
        metadata=_key("Secrets and personal data kept out of memory, by class."),
    )
    review: ReviewConfig = field(
        default_factory=ReviewConfig,
        metadata=_key("Doubtful learned memories held for the user to confirm."),
    )
    compression: CompressionConfig = field(
        default_factory=CompressionConfig,
        metadata=_key("Long conversations sent shorter, when asked (off by default)."),
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


def cross_key_problems(config: Config, found: list[str]) -> list[str]:
    """Checks that span several keys (each key's own type and range are checked as it is read),
    of keys read without a problem: one that kept its default after a ``found`` problem is not
    reported again under another name."""

    def read_well(*keys: str) -> bool:
        return not any(p.startswith(keys) for p in found)

    memory, problems = config.memory, []
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
    if not _COLLECTION.fullmatch(memory.milvus.collection):  # else Milvus refuses it at start
        problems.append(
            "memory.milvus.collection: letters, digits and underscores, starting with a letter "
            f"or an underscore, up to 255 (Milvus' rule); got {memory.milvus.collection!r}"
        )
    return problems


_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_COLLECTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")
