"""Each language the rules read, in one file: its words and patterns, in one typed shape
(lang/shape.py). Adding a language is adding its file here and to ``FILED``
(docs/concepts/storage.md, "Languages").

A language without a file is still learned and recalled: the embedder reads it, the extraction
model writes it, and the word rules read what they can (English's, the default).
"""

from __future__ import annotations

from memory_extproc.lang import de, en, es, ja, zh
from memory_extproc.lang.shape import Language

ENGLISH = en.LANGUAGE
FILED: tuple[Language, ...] = (en.LANGUAGE, es.LANGUAGE, zh.LANGUAGE, de.LANGUAGE, ja.LANGUAGE)
_BY_CODE = {language.code: language for language in FILED}


def filed(code: str) -> Language | None:
    """The file of the language ``code`` (ISO 639-1, as languages.language_of names it)."""
    return _BY_CODE.get(code)


def either(patterns: list[str] | tuple[str, ...]) -> str:
    """One pattern that matches what any of ``patterns`` does: every language's alternatives,
    each once (languages may share one: lang/shape.py's building blocks)."""
    return "|".join(f"(?:{pattern})" for pattern in dict.fromkeys(patterns) if pattern)
