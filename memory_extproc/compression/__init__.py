"""Compressed requests: long conversations at a bounded cost (docs/concepts/compression.md)."""
