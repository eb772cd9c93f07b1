"""Which language a text is in, as far as memory needs to know: English or not, and which.

English is read by all-MiniLM-L6-v2 (fast, and what the English rules were measured with); any
other language by multilingual-e5-small (embedding/spaces.py), whose question is then centred
on its language. A text with a letter of a non-Latin script (Chinese, Japanese, Cyrillic…) is
not English; a Latin-script text is English unless langid (py3langid, BSD, a 4 MB model in the
package, ~0.05 ms a text) names another Latin-script language with some confidence. Short texts
are often unsure ("ok", "Hola"): they stay English, the cheaper path, and e5 reads English too
when a request does go that way.
"""

from __future__ import annotations

import functools
import unicodedata

# Latin-script languages langid may name; kept short: every label is a way to misread a short
# English text ("Python list comprehension example": en 0.70 among these)
LATIN = ("en", "es", "de", "fr", "pt", "it", "nl", "ca", "pl", "sv", "da", "no", "fi", "tr",
         "id", "vi", "ro", "cs", "hu")  # fmt: skip
_SURE = 0.5  # below this probability a Latin-script text is taken for English


@functools.cache
def _identifier() -> object:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LATIN))
    return identifier


def _other_script(text: str) -> bool:
    """A letter of a script other than Latin (CJK ideographs, kana, Hangul, Cyrillic…)."""
    if text.isascii():  # most texts, read at C speed
        return False
    return any(char.isalpha() and ord(char) > 0x24F and not _is_latin(char) for char in text)


@functools.lru_cache(maxsize=4096)
def _is_latin(char: str) -> bool:
    return unicodedata.name(char, "").startswith("LATIN")


# Scripts told apart by their letters' Unicode names; the first found names the language (kana
# before Han: Japanese writes both)
_SCRIPTS = (("HIRAGANA", "ja"), ("KATAKANA", "ja"), ("HANGUL", "ko"), ("CJK", "zh"),
            ("CYRILLIC", "ru"), ("ARABIC", "ar"), ("GREEK", "el"), ("HEBREW", "he"),
            ("DEVANAGARI", "hi"), ("THAI", "th"))  # fmt: skip


def is_english(text: str, context: str = "") -> bool:
    """Does MiniLM read this text (English), or multilingual-e5 (any other language)?
    ``context``: more of the same conversation, read when ``text`` alone is too short to tell
    ("Soy vegetariano." is Spanish 0.33, with the assistant's answer 0.94)."""
    return not _other_script(text) and latin_language(text, context) == "en"


# What a prompt calls a language ("Write the facts in Spanish")
NAMES = {"en": "English", "es": "Spanish", "de": "German", "fr": "French", "pt": "Portuguese",
         "it": "Italian", "nl": "Dutch", "ca": "Catalan", "pl": "Polish", "sv": "Swedish",
         "da": "Danish", "no": "Norwegian", "fi": "Finnish", "tr": "Turkish",
         "id": "Indonesian", "vi": "Vietnamese", "ro": "Romanian", "cs": "Czech",
         "hu": "Hungarian", "ja": "Japanese", "ko": "Korean", "zh": "Chinese", "ru": "Russian",
         "ar": "Arabic", "el": "Greek", "he": "Hebrew", "hi": "Hindi", "th": "Thai"}  # fmt: skip


def language_of(text: str, context: str = "") -> str:
    """An ISO 639-1 code (a key of ``NAMES``): "en" exactly when ``is_english``; a text in
    another script by its letters ("zh", "ja", "ru"…, "" when none of those), a Latin one by
    langid."""
    if not _other_script(text):
        return latin_language(text, context)
    names = [unicodedata.name(char, "") for char in text if char.isalpha()]
    return next((code for script, code in _SCRIPTS if any(script in n for n in names)), "")


def latin_language(text: str, context: str = "") -> str:
    """The language of a Latin-script text ("en" when unsure, with ``context`` too)."""
    if not any(char.isalpha() for char in text):
        return "en"
    language, probability = _identifier().classify(text)  # type: ignore[attr-defined]
    if probability < _SURE and context:
        together = f"{text}\n{context}"
        language, probability = _identifier().classify(together)  # type: ignore[attr-defined]
    return str(language) if probability >= _SURE else "en"
