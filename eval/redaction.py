"""How well memories/redaction.py finds secrets and personal data, beside registry detectors.

    python -m eval.redaction [--corpus texts.pkl]

Recall on a labelled set written here (each class, five languages), near misses that must stay,
and, with ``--corpus`` (a pickled list of strings), how many ordinary texts lose something, per
class, with every hit printed to be read. detect-secrets and phonenumbers are measured when they
are importable (not product dependencies): keys, tokens and passwords for the one, phone numbers
for the other. Figures: docs/concepts/privacy.md.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections import Counter
from collections.abc import Callable

from memory_extproc.memories.redaction import _hits

# made-up keys of each provider's shape
_OPENAI = "sk-proj-4fT9xQ2LmN8vB3kR7wZ1yH6j"
_AWS = "AKIAIOSFODNN7EXAMPLE"
_GITHUB = "ghp_Zx8QwErTy1234567890aSdFgHjKlZxCvBnM12"
_SLACK = "xoxb-2048-1234567890-AbCdEfGhIjKl"
_STRIPE = "sk_live_51HxYz2KjLmNoPqRsTuVwXy"
_GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
_HEX_KEY = "9f8e7d6c5b4a39281726354453627181"
_PEM_BODY = "b3BlbnNzaC1rZXktdjEAAAAA"
_ANTHROPIC = "sk-ant-api03-Xy7Qm2Lp9Rt4Vw8Zb1Nc"
_OPENAI_OLD = "sk-abcdEFGH1234ijklMNOP5678"
_PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----"
# (language, class, the text with {} where the value goes, the value)
SECRETS: tuple[tuple[str, str, str, str], ...] = (
    ("en", "api_key", "My OpenAI key is {} and I love hiking.", _OPENAI),
    ("en", "api_key", "use {} for the bucket", _AWS),
    ("en", "api_key", "token: {}", _GITHUB),
    ("en", "api_key", "the bot uses {}", _SLACK),
    ("en", "api_key", "Stripe: {}", _STRIPE),
    ("en", "api_key", "maps key {}", _GOOGLE),
    ("en", "api_key", "my access token is {}", _JWT),
    ("en", "api_key", "My API key is {}.", _HEX_KEY),
    ("en", "private_key", _PEM, _PEM_BODY),
    ("en", "password", "My email password is {} and I live in Berlin.", "Tr0ub4dor&3"),
    ("en", "password", "The wifi password is {}.", "sunshine"),
    ("en", "card", "My card number is {}, I'm vegetarian.", "4111 1111 1111 1111"),
    ("en", "card", "Amex {} expires soon", "3782-822463-10005"),
    ("en", "national_id", "My SSN is {}.", "123-45-6789"),
    ("en", "email", "Email me at {} tomorrow.", "jane.doe@example.com"),
    ("en", "phone", "Call me at {}.", "(415) 555-0134"),
    ("en", "phone", "my cell is {}", "07700 900123"),
    ("en", "address", "I live at {}, Springfield.", "742 Evergreen Terrace"),
    ("es", "password", "Mi contraseña es {} y tengo dos perros.", "Gato2024"),
    ("es", "password", "La contraseña del banco es {}.", "sevilla1990"),
    ("es", "api_key", "Mi clave de API es {}", _ANTHROPIC),
    ("es", "iban", "Mi IBAN es {} y vivo en Madrid.", "ES91 2100 0418 4502 0005 1332"),
    ("es", "national_id", "Mi DNI es {}.", "12345678Z"),
    ("es", "national_id", "Mi NIE: {}", "X1234567L"),
    ("es", "phone", "Mi móvil es {}.", "612 345 678"),
    ("es", "phone", "Llámame al {}", "+34 612 345 678"),
    ("es", "email", "Mi correo es {}", "maria.garcia@correo.es"),
    ("es", "address", "Vivo en la {}, Madrid.", "Calle Mayor 5"),
    ("es", "card", "Mi tarjeta es {}.", "5500-0000-0000-0004"),
    ("zh", "password", "我的邮箱密码是{}，我喜欢喝茶。", "Tr0ub4dor&3"),
    ("zh", "password", "银行卡密码：{}", "384921"),
    ("zh", "api_key", "我的API密钥是{}", _OPENAI_OLD),
    ("zh", "national_id", "我的身份证号是{}。", "11010519491231002X"),
    ("zh", "phone", "我的手机号是{}", "13812345678"),
    ("zh", "email", "我的邮箱是{}", "zhang.wei@example.cn"),
    ("zh", "address", "我住在{}。", "南京东路100号"),
    ("zh", "card", "我的银行卡号是{}", "6222 0202 0000 0000 006"),
    ("de", "password", "Mein Passwort ist {}! Ich wohne in Köln.", "Sommer2024"),
    ("de", "password", "Das Kennwort lautet {}.", "Blumenwiese"),
    ("de", "iban", "Meine IBAN ist {}.", "DE89 3704 0044 0532 0130 00"),
    ("de", "national_id", "Meine Steuer-ID ist {}.", "36574261809"),
    ("de", "phone", "Meine Handynummer ist {}.", "0171 1234567"),
    ("de", "phone", "Ruf mich an: {}", "+49 30 12345678"),
    ("de", "address", "Ich wohne in der {} in Köln.", "Hauptstraße 12a"),
    ("de", "api_key", "Mein API-Schlüssel ist {}", _GOOGLE),
    ("ja", "password", "パスワードは{}です。猫が好きです。", "hunter22"),
    ("ja", "password", "暗証番号：{}", "5821"),
    ("ja", "national_id", "私のマイナンバーは{}です。", "123456789018"),
    ("ja", "phone", "電話番号は{}です。", "090-1234-5678"),
    ("ja", "address", "東京都港区{}に住んでいます。", "1丁目2番3号"),
    ("ja", "email", "メールは{}です", "taro@example.jp"),
    ("ja", "api_key", "APIキーは{}です", _GITHUB),
)  # fmt: skip

# What must stay: each looks like a value and is none
NEAR_MISSES: tuple[str, ...] = (
    "I forgot my password again.",
    "My password is too short, I need a new one.",
    "My password was stolen.",
    "Mi contraseña es incorrecta.",
    "Mein Passwort ist falsch.",
    "Order number 1234567812345678 arrived yesterday.",
    "It cost $1,299.99 in 2019.",
    "The meeting is on 2026-12-06 at 10.",
    "4111 1111 1111 1112 is not a card",
    "I ran 5 miles on Main Street.",
    "Olvidé mi contraseña otra vez.",
    "La clave es practicar todos los días.",
    "Pagué 1.250 euros el 06/12/2026.",
    "我忘记密码了。",
    "我在2026年12月6日买了3张票，订单号20261206001。",
    "Ich habe mein Passwort vergessen.",
    "Die Rechnung 2026-4711 kostet 89,90 €.",
    "パスワードを忘れました。",
    "2026年12月6日に3000円払いました。",
    "Population 8,336,817 in 2022.",
    "Room 1204, flight LH 2418.",
    "ISBN 978-3-16-148410-0",
)

_Detector = Callable[[str], list[tuple[str, int, int]]]


def _own(text: str) -> list[tuple[str, int, int]]:
    return [(h.kind, h.start, h.end) for h in _hits(text)]


def _detect_secrets() -> _Detector | None:
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def detect(text: str) -> list[tuple[str, int, int]]:
        """As it scans a file (its entropy limits and filters on), not its ad hoc mode, which
        takes every word."""
        found = []
        with default_settings():
            lines = list(enumerate(text.splitlines() or [text], 1))
            for secret in _process_line_based_plugins(lines, filename="chat.txt"):
                value = secret.secret_value or ""
                at = text.find(value) if value else -1
                if at >= 0:
                    found.append(("secret", at, at + len(value)))
        return found

    return detect


def _phonenumbers() -> _Detector | None:
    try:
        import phonenumbers
    except ImportError:
        return None

    def detect(text: str) -> list[tuple[str, int, int]]:
        found = {}
        for region in ("US", "ES", "CN", "DE", "JP"):
            for m in phonenumbers.PhoneNumberMatcher(text, region):
                found[m.start] = ("phone", m.start, m.end)
        return list(found.values())

    return detect


def _caught(detect: _Detector, text: str, value: str, kinds: set[str] | None) -> bool:
    text = text.format(value)
    at = text.find(value)
    return any(
        (kinds is None or kind in kinds) and start < at + len(value) and at < end
        for kind, start, end in detect(text)
    )


def _report(
    name: str, detect: _Detector, classes: set[str], corpus: list[str], own: set[str] | None
) -> None:
    cases = [c for c in SECRETS if c[1] in classes]
    caught = [c for c in cases if _caught(detect, c[2], c[3], own)]
    wrong = [t for t in NEAR_MISSES if any(own is None or k in own for k, _, _ in detect(t))]
    print(f"\n{name} ({', '.join(sorted(classes))}): recall {len(caught)}/{len(cases)}; "
          f"near misses taken {len(wrong)}/{len(NEAR_MISSES)}")  # fmt: skip
    for case in cases:
        if case not in caught:
            print(f"  missed {case[0]} {case[1]}: {case[2].format(case[3])!r}")
    for text in wrong:
        print(f"  took {text!r}")
    if not corpus:
        return
    start = time.perf_counter()
    hits = [(text, detect(text)) for text in corpus]
    seconds = time.perf_counter() - start
    per: Counter[str] = Counter()
    for text, found in hits:
        kinds = {k for k, _, _ in found if own is None or k in own}
        per.update(kinds)
        for kind, a, b in found:
            if own is None or kind in own:
                print(f"  corpus {kind}: {text[a:b]!r} in …{text[max(0, a - 60) : b + 30]!r}")
    print(f"  corpus: {sum(per.values())} texts of {len(corpus)} redacted {dict(per)}; "
          f"{seconds / len(corpus) * 1e6:.0f} µs per text")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="a pickled list of strings")
    args = parser.parse_args()
    corpus: list[str] = []
    if args.corpus:
        with open(args.corpus, "rb") as file:
            corpus = pickle.load(file)
    every = {c[1] for c in SECRETS}
    _report("own rules", _own, every, corpus, None)
    keys = {"api_key", "private_key", "password"}
    _report("own rules", _own, keys, [], keys)
    if (detect := _detect_secrets()) is not None:
        _report("detect-secrets 1.5 (default plugins)", detect, keys, corpus, None)
    _report("own rules", _own, {"phone"}, [], {"phone"})
    if (detect := _phonenumbers()) is not None:
        _report("phonenumbers (US, ES, CN, DE, JP)", detect, {"phone"}, corpus, None)


if __name__ == "__main__":
    main()
