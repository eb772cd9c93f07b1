"""Injected tokens, as the yardsticks count them: MiniLM's WordPiece over the whole block."""

from __future__ import annotations

from collections.abc import Callable

from tokenizers import Tokenizer

from memory_extproc.embedding import model_files


def token_counter() -> Callable[[str], int]:
    """The model's tokenizer pads to 128 and truncates there; counting needs neither (a block of
    40 tokens counted as 128 before)."""
    tokenizer = Tokenizer.from_file(str(model_files().tokenizer))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)
