"""Where memories live: the Store protocol, Milvus for real, a dict for unit tests."""

from memory_extproc.store.model import (
    InvalidScopeError,
    Memory,
    MemoryType,
    ScoredMemory,
    SearchRequest,
    Store,
    StoreUnavailableError,
    validate_scope_value,
)

__all__ = [
    "InvalidScopeError",
    "Memory",
    "MemoryType",
    "ScoredMemory",
    "SearchRequest",
    "Store",
    "StoreUnavailableError",
    "validate_scope_value",
]
