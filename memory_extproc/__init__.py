"""Long-term, per-user memory for OpenAI-compatible LLM traffic, as an Envoy external processor."""

__version__ = "0.1.0"
