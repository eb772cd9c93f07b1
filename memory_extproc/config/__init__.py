"""Configuration: one YAML file, ``memory:`` (the keys of semantic-router's agentic memory, plus
our own) and ``server:``; the schema (schema.py) and how a file and the environment are read
into it (loader.py)."""

from memory_extproc.config.loader import (
    ENV_PREFIX,
    ConfigError,
    load,
    parse,
)
from memory_extproc.config.schema import (
    Config,
    ExternalModel,
    IdentityConfig,
    LlmEndpoint,
    RetentionConfig,
    ServerConfig,
    SignalsConfig,
)

__all__ = [
    "ENV_PREFIX",
    "Config",
    "ConfigError",
    "ExternalModel",
    "IdentityConfig",
    "LlmEndpoint",
    "RetentionConfig",
    "ServerConfig",
    "SignalsConfig",
    "load",
    "parse",
]
