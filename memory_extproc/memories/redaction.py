"""Secrets and personal data kept out of memory (docs/concepts/privacy.md). Pure: no I/O.

A value is found by its shape and checked where it has a checksum (a card's Luhn, an IBAN's
mod 97, a national number's check digit: python-stdnum); a value with no shape of its own (a
password, a token, a weak national number) only where the text names it ("my password is …",
lang/: each language's words). Each class has an action:

* ``mask`` puts a marker in the value's place. A secret's marker (``[redacted card]``) is never
  stored: a fact or a write that holds one is refused (``for_memory``). The rest of its sentence
  still reaches the model ("my card is … and I live in Berlin" keeps Berlin), which dropping the
  sentence would lose. Personal data's marker (``[email]``) may be stored: the fact stays, the
  value does not.
* ``drop`` removes the sentence that holds the value.
* ``keep`` leaves it as it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from stdnum import iban, luhn
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.jp import in_ as my_number

from memory_extproc.lang import FILED, either

Action = Literal["drop", "mask", "keep"]
ACTIONS: tuple[Action, ...] = ("drop", "mask", "keep")
# never stored: a fact or a write holding one is refused
SECRET = ("api_key", "private_key", "password", "card", "iban", "national_id")
PERSONAL = ("email", "phone", "address")  # stored masked: "User's email is [email]"
CLASSES = SECRET + PERSONAL


@dataclass(frozen=True, slots=True)
class RedactionPolicy:
    """What each class's values become (``memory.redaction`` in the configuration)."""

    actions: Mapping[str, Action] = field(default_factory=lambda: dict.fromkeys(CLASSES, "mask"))

    def action(self, kind: str) -> Action:
        return self.actions.get(kind, "mask")


@dataclass(frozen=True, slots=True)
class Redaction:
    text: str
    found: Counter[str]  # values dropped or masked, by class: never the values


@dataclass(frozen=True, slots=True)
class Screened:
    """A memory's text as it may be stored, or the classes it was refused for (its text then
    without the values, for whatever reads it after)."""

    text: str
    found: Counter[str]
    refused: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Hit:
    start: int
    end: int
    kind: str


_PARTS = tuple(language.secrets for language in FILED)
# Bounds are ASCII: Chinese and Japanese say a value right after their words ("账号是DE89…"),
# where \w and \b see no bound
# a value said after its name: one run of characters, no space and no CJK (a password is typed
# in ASCII or a Latin script; "密码是abc123，我…" ends at the comma or the next character)
_VALUE = (
    r"[^\s\"'“”‘’「」『』()（）\[\]<>,;，。；！？、\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]{3,64}"
)
_PASSWORD = re.compile(
    rf"(?:{either([p.password for p in _PARTS])})[\"'“‘「]?(?P<value>{_VALUE})", re.IGNORECASE
)
_TOKEN = re.compile(
    rf"(?:{either([p.token for p in _PARTS])})[\"'“‘「]?(?P<value>[A-Za-z0-9_\-.+/=]{{12,}})",
    re.IGNORECASE,
)
# its words end a clause, or it could be no word: "my password is hunter2." but not "my
# password is too short"; "sunshine" said last is taken, a word in a sentence is not
_ENDS = re.compile(r"\s*(?:$|[,;:!?，。；！？、\n]|\.(?:\s|$)|[\u3040-\u30ff\u3400-\u9fff])")
_NOT_A_WORD = re.compile(r"[\d\W_]")

# Known shapes of keys and tokens (each provider's documented prefix)
_API_KEY = re.compile(
    r"""(?x)(?<![A-Za-z0-9_-])(?:
      sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}     # OpenAI, Anthropic
      |(?:AKIA|ASIA)[0-9A-Z]{16}                               # AWS access key id
      |gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,} # GitHub
      |xox[abeprs]-[A-Za-z0-9-]{10,}                           # Slack
      |(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}                # Stripe secret, restricted
      |AIza[0-9A-Za-z_-]{35}|ya29\.[A-Za-z0-9_-]{20,}         # Google key, OAuth token
      |glpat-[A-Za-z0-9_-]{20,}                                # GitLab
      |hf_[A-Za-z0-9]{30,}                                     # Hugging Face
      |eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}  # a JWT
    )(?![A-Za-z0-9_-])
    |(?<=[Bb]earer\ )[A-Za-z0-9._~+/-]{16,}=*      # an HTTP bearer token
    """,
)
_PRIVATE_KEY = re.compile(  # to its end, or the text's when it was cut
    r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|$)",
    re.DOTALL,
)
# 13 to 19 digits in groups; a card's first digit is 2 to 6 (Mastercard's 2-series, Amex,
# Visa, Mastercard, Discover/UnionPay): an order number starting 1, 7, 8, 9 is none
_CARD = re.compile(r"(?<![\d-])(?<!\d[.,])[2-6]\d{2,3}(?:[ -]?\d){9,15}(?![\d-]|[.,]\d)")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9_.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)

# National numbers. With a check that a random number passes 1 time in 23 or fewer and a shape
# of their own, alone: Spain's DNI and NIE, China's 18-character 居民身份证 (its birth date
# too). With a weaker one (1 in 10: Germany's Steuer-IdNr, Japan's My Number) or none (a US
# SSN), only after the number's name, in the same sentence.
_STRONG_ID = re.compile(
    r"(?<![A-Za-z0-9-])(?:\d{8}-?[A-Z]|[XYZ]-?\d{7}-?[A-Z])(?![A-Za-z0-9-])"
    r"|(?<![A-Za-z0-9])\d{17}[\dXx](?![A-Za-z0-9])"
)
_NAMED_ID = re.compile(
    rf"(?:{either([p.national_id for p in _PARTS])})[^\d\n.。]{{0,30}}?"
    # an SSN's 3-2-4, My Number's 4-4-4, the IdNr's 2-3-3-3, or their digits unbroken
    r"(?P<value>(?<!\d)(?:\d{3}-\d{2}-\d{4}|\d{4}[ -]?\d{4}[ -]?\d{4}"
    r"|\d{2} ?\d{3} ?\d{3} ?\d{3}|\d{9})(?!\d))",
    re.IGNORECASE,
)
_ID_CHECKS: tuple[Callable[[str], bool], ...] = (dni.is_valid, nie.is_valid, ric.is_valid)
_NAMED_ID_CHECKS: tuple[Callable[[str], bool], ...] = (idnr.is_valid, my_number.is_valid)
_SSN = re.compile(r"(?!000|666|9)\d{3}-?(?!00)\d{2}-?(?!0000)\d{4}")

# Phone numbers: an international one (+ and 8 to 15 digits) alone; a country's own shapes
# where they are unlike other numbers (the US's grouped ten digits, a Chinese mobile's eleven
# starting 13 to 19, Japan's dashed 0X…); any other only after a phone's name (lang/).
_PHONE_NUMBER = r"\+?\(?\d[\d ()./-]{5,20}\d"
_PHONE = re.compile(
    r"(?<![A-Za-z0-9+])\+\d[\d ().-]{6,18}\d(?!\d)"
    r"|(?<![\d-])\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?![\d-])"
    r"|(?<!\d)1[3-9]\d{9}(?!\d)"
    r"|(?<![\d-])0\d{1,4}-\d{1,4}-\d{4}(?![\d-])"
)
_NAMED_PHONE = re.compile(
    rf"(?:{either([p.phone for p in _PARTS])})[^\d\n]{{0,20}}?(?P<value>{_PHONE_NUMBER})",
    re.IGNORECASE,
)
_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}")
_ADDRESS = re.compile(either([p.address for p in _PARTS]))

# a number in a link is a photo's or a page's id ("…/87613523_2854559627994666_n.jpg"); a key
# in one is still a key
_LINK = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_NUMBERS = frozenset({"card", "iban", "national_id", "phone"})
_SECRET_MARKER = re.compile(r"\[redacted(?: (?P<kind>[a-z_]+))?\]", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# every value of the numbered classes holds one: a digit (full-width too), or a Chinese or
# Japanese numeral of an address ("建国路八十八号", "三丁目")
_NUMERAL = re.compile(r"[\d一二三四五六七八九十百零\u3007]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


def redact(text: str, policy: RedactionPolicy | None = None) -> Redaction:
    """``text`` with each value found dropped, masked or kept as ``policy`` says, and what was
    found by class. Values kept are not counted."""
    policy = policy or RedactionPolicy()
    hits = [h for h in _hits(text) if policy.action(h.kind) != "keep"]
    if not hits:
        return Redaction(text, Counter())
    found = Counter(h.kind for h in hits)
    dropped = [h for h in hits if policy.action(h.kind) == "drop"]
    spans = _sentences(text)
    # every sentence a value spans (a key's block runs over several lines)
    gone = {i for h in dropped for i, (a, b) in enumerate(spans) if a < h.end and h.start < b}
    out, at = [], 0
    for h in sorted((h for h in hits if policy.action(h.kind) == "mask"), key=lambda h: h.start):
        out += [text[at : h.start], _marker(h.kind)]
        at = h.end
    out.append(text[at:])
    masked = "".join(out)
    if not gone:
        return Redaction(masked, found)
    # drop whole sentences of the original, then mask in what is left
    kept = "".join(text[a:b] for i, (a, b) in enumerate(spans) if i not in gone)
    return Redaction(redact(kept, policy).text.strip(), found)


def for_memory(text: str, policy: RedactionPolicy | None = None) -> Screened:
    """A memory's text as it may be stored (a model's fact, a note, an API write): personal data
    masked, or refused (the classes it was refused for) when it holds a secret not kept, a
    secret's marker, or nothing once its sentences are dropped."""
    policy = policy or RedactionPolicy()
    redaction = redact(text, policy)
    marked = [m["kind"] or "secret" for m in _SECRET_MARKER.finditer(redaction.text)]
    if marked:
        return Screened(redaction.text, redaction.found, tuple(dict.fromkeys(marked)))
    if not redaction.text.strip() and text.strip():
        return Screened(redaction.text, redaction.found, tuple(redaction.found))
    return Screened(redaction.text, redaction.found)


def _marker(kind: str) -> str:
    return f"[redacted {kind}]" if kind in SECRET else f"[{kind}]"


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, at = [], 0
    for end in _SENTENCE_END.finditer(text):
        spans.append((at, end.end()))
        at = end.end()
    return [*spans, (at, len(text))]


def _hits(text: str) -> list[_Hit]:
    """Every value found; where two overlap, the first class here wins (a key is not a phone).
    A text without a numeral holds no number, so none of the classes made of one: most chat
    messages, read in ~35 us instead of ~200 (30 patterns, most of them tried at every
    position)."""
    found: list[_Hit] = []
    numbered = _NUMERAL.search(text) is not None
    links = [(m.start(), m.end()) for m in _LINK.finditer(text)] if numbered else []
    for kind, spans in (
        ("private_key", ((m.start(), m.end()) for m in _PRIVATE_KEY.finditer(text))),
        ("api_key", ((m.start(), m.end()) for m in _API_KEY.finditer(text))),
        ("api_key", _said(_TOKEN, text, _has_digit) if numbered else ()),
        ("password", _said(_PASSWORD, text, None)),
        ("email", ((m.start(), m.end()) for m in _EMAIL.finditer(text)) if "@" in text else ()),
        *(_numbered(text) if numbered else ()),
    ):
        for start, end in spans:
            if kind in _NUMBERS and any(a <= start < b for a, b in links):
                continue
            if not any(h.start < end and start < h.end for h in found):
                found.append(_Hit(start, end, kind))
    return found


def _numbered(text: str) -> tuple[tuple[str, Iterable[tuple[int, int]]], ...]:
    """The classes whose every value holds a numeral (a key said as one holds a digit)."""
    return (
        ("card", _checked(_CARD, text, _is_card)),
        ("iban", _ibans(text)),
        ("national_id", _checked(_STRONG_ID, text, _is_id)),
        ("national_id", _named_ids(text)),
        ("phone", _phones(text)),
        ("address", ((m.start(), m.end()) for m in _ADDRESS.finditer(text))),
    )


def _has_digit(value: str) -> bool:
    return _DIGIT.search(value) is not None


def _said(
    pattern: re.Pattern[str], text: str, shaped: Callable[[str], bool] | None
) -> list[tuple[int, int]]:
    spans = []
    for m in pattern.finditer(text):
        value = m["value"].rstrip(".:!?")
        end = m.start("value") + len(value)
        if shaped is not None and not shaped(value):
            continue
        if _NOT_A_WORD.search(value) or _ENDS.match(text, end):
            spans.append((m.start("value"), end))
    return spans


def _checked(
    pattern: re.Pattern[str], text: str, valid: Callable[[str], bool]
) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in pattern.finditer(text) if valid(m.group())]


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def _is_card(value: str) -> bool:
    digits = _digits(value)
    return 13 <= len(digits) <= 19 and luhn.is_valid(digits) and len(set(digits)) > 1


def _is_id(value: str) -> bool:
    compact = value.replace("-", "").upper()
    return any(check(compact) for check in _ID_CHECKS)


def _ibans(text: str) -> list[tuple[int, int]]:
    """An IBAN's groups run into the words after it ("… 00 I live"): the longest that checks."""
    spans = []
    for m in _IBAN.finditer(text):
        value = m.group()
        while len(value.replace(" ", "")) >= 15:
            if iban.is_valid(value):
                spans.append((m.start(), m.start() + len(value)))
                break
            value = value[:-1].rstrip()
    return spans


def _named_ids(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _NAMED_ID.finditer(text):
        digits = _digits(m["value"])
        if any(check(digits) for check in _NAMED_ID_CHECKS) or (
            len(digits) == 9 and _SSN.fullmatch(digits)
        ):
            spans.append((m.start("value"), m.end("value")))
    return spans


def _phones(text: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _PHONE.finditer(text) if _phone_like(m.group())]
    for m in _NAMED_PHONE.finditer(text):
        if _phone_like(m["value"]):
            spans.append((m.start("value"), m.end("value")))
    return spans


def _phone_like(value: str) -> bool:
    """7 to 15 digits that are not a date ("2026-12-06", "06.12.2026")."""
    return 7 <= len(_digits(value)) <= 15 and not _DATE.fullmatch(value.strip("+() "))
