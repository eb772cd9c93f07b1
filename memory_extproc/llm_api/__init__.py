"""Pure functions on OpenAI-compatible bodies: parse and rewrite requests, read answers."""
