"""Secrets and personal data are found in every language we serve, masked or dropped as the
policy says, and what only looks like one (an order number, a date, a price) stays."""

from __future__ import annotations

import pytest

from memory_extproc.memories.redaction import (
    CLASSES,
    RedactionPolicy,
    for_memory,
    redact,
)

_KEY = "sk-proj-4fT9xQ2LmN8vB3kR7wZ1yH6j"
_GITHUB = "ghp_Zx8QwErTy1234567890aSdFgHjKlZxCvBnM12"
_PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        # keys and tokens by their shapes, whatever the language around them
        (f"My OpenAI key is {_KEY} and I love hiking.", _KEY, "api_key"),
        ("use AKIAIOSFODNN7EXAMPLE for the bucket", "AKIAIOSFODNN7EXAMPLE", "api_key"),
        (f"我的GitHub令牌：{_GITHUB}", _GITHUB, "api_key"),
        ("Stripe: sk_live_51HxYz2KjLmNoPqRsTuVwXy", "sk_live_51HxYz2KjLmNoPqRsTuVwXy", "api_key"),
        ("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW ist mein Schlüssel",
         "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "api_key"),
        ("the bot uses xoxb-2048-1234567890-AbCdEfGhIjKl", "xoxb-2048-1234567890-AbCdEfGhIjKl",
         "api_key"),
        (f"アクセストークンは{_JWT}です", _JWT, "api_key"),
        ("my access token ya29.a0AfH6SMBx7Yk2Lq9Rt4Vw8Zb1Nc3Pd5Fe, I work at Google",
         "ya29.a0AfH6SMBx7Yk2Lq9Rt4Vw8Zb1Nc3Pd5Fe", "api_key"),
        ("Authorization: Bearer abcdefghijklmnop1234", "abcdefghijklmnop1234", "api_key"),
        # …and one of no known shape, said as such
        ("My API key is 9f8e7d6c5b4a39281726354453627181.", "9f8e7d6c5b4a39281726354453627181",
         "api_key"),
        (f"Here is mine: {_PEM}", _PEM, "private_key"),  # the whole block
        # passwords said as such, in the five languages
        ("My email password is Tr0ub4dor&3 and I live in Berlin.", "Tr0ub4dor&3", "password"),
        ("The wifi password is sunshine.", "sunshine", "password"),
        ("my PIN is 4417", "4417", "password"),
        ("Mi contraseña es Gato2024 y tengo dos perros.", "Gato2024", "password"),
        ("Mi contraseña es: Tortuga-88.", "Tortuga-88", "password"),
        ("La contraseña del banco es sevilla1990.", "sevilla1990", "password"),
        ("我的邮箱密码是Tr0ub4dor&3，我喜欢喝茶。", "Tr0ub4dor&3", "password"),
        ("银行卡密码：384921", "384921", "password"),
        ("Mein Passwort ist Sommer2024! Ich wohne in Köln.", "Sommer2024", "password"),
        ("Das Kennwort lautet Blumenwiese.", "Blumenwiese", "password"),
        ("パスワードはhunter22です。猫が好きです。", "hunter22", "password"),
        ("暗証番号：5821", "5821", "password"),
        # cards by Luhn, IBANs by their checksum
        ("My card number is 4111 1111 1111 1111, I'm vegetarian.", "4111 1111 1111 1111", "card"),
        ("Amex 3782-822463-10005 expires soon", "3782-822463-10005", "card"),
        ("我的银行卡号是6222020200000000006", "6222020200000000006", "card"),
        ("Mi IBAN es ES91 2100 0418 4502 0005 1332 y vivo en Madrid.",
         "ES91 2100 0418 4502 0005 1332", "iban"),
        ("Meine IBAN ist DE89 3704 0044 0532 0130 00 und ich wohne in Köln.",
         "DE89 3704 0044 0532 0130 00", "iban"),
        ("账号是DE89370400440532013000。", "DE89370400440532013000", "iban"),
        # national identity numbers: the strong ones alone, the weak ones after their name
        ("Mi DNI es 12345678Z.", "12345678Z", "national_id"),
        ("Mi NIE: X1234567L", "X1234567L", "national_id"),
        ("我的身份证号是11010519491231002X。", "11010519491231002X", "national_id"),
        ("Meine Steuer-ID ist 36574261809.", "36574261809", "national_id"),
        ("私のマイナンバーは123456789018です。", "123456789018", "national_id"),
        ("My SSN is 123-45-6789.", "123-45-6789", "national_id"),
        # personal data
        ("Email me at jane.doe@example.com tomorrow.", "jane.doe@example.com", "email"),
        ("我的邮箱是zhang.wei@example.cn", "zhang.wei@example.cn", "email"),
        ("Call me at (415) 555-0134.", "(415) 555-0134", "phone"),
        ("my cell is 07700 900123", "07700 900123", "phone"),
        ("Mi móvil es 612 345 678.", "612 345 678", "phone"),
        ("Llámame al +34 612 345 678", "+34 612 345 678", "phone"),
        ("我的手机号是13812345678", "13812345678", "phone"),
        ("Meine Handynummer ist 0171 1234567.", "0171 1234567", "phone"),
        ("電話番号は090-1234-5678です。", "090-1234-5678", "phone"),
        ("I live at 742 Evergreen Terrace, Springfield.", "742 Evergreen Terrace", "address"),
        ("Vivo en la Calle Mayor 5, Madrid.", "Calle Mayor 5", "address"),
        ("Ich wohne in der Hauptstraße 12a in Köln.", "Hauptstraße 12a", "address"),
        ("我住在南京东路100号。", "南京东路100号", "address"),
        ("東京都港区1丁目2番3号に住んでいます。", "1丁目2番3号", "address"),
    ],
)  # fmt: skip
def test_a_value_is_found_and_masked(text: str, value: str, kind: str) -> None:
    redacted = redact(text)
    assert value not in redacted.text
    assert redacted.found == {kind: 1}
    marker = f"[redacted {kind}]" if kind not in ("email", "phone", "address") else f"[{kind}]"
    assert redacted.text == text.replace(value, marker)


@pytest.mark.parametrize(
    "text",
    [
        "I forgot my password again.",
        "My password is too short, I need a new one.",
        "My password was stolen.",  # what became of it, said last
        "Mi contraseña es incorrecta.",
        "Mein Passwort ist falsch.",
        "Order number 1234567812345678 arrived yesterday.",  # Luhn-valid, starts with 1
        "4111 1111 1111 1112 is not a card",  # Luhn-invalid
        "It cost $1,299.99 in 2019.",
        "The meeting is on 2026-12-06 at 10.",
        "I got a new phone on 2026-12-06.",  # a date after a phone's name
        "I ran 5 miles on Main Street.",
        "Olvidé mi contraseña otra vez.",
        "La clave es practicar todos los días.",
        "Pagué 1.250 euros el 06/12/2026.",
        "我忘记密码了。",
        "密码是什么？",
        "我在2026年12月6日买了3张票，订单号20261206001。",
        "Ich habe mein Passwort vergessen.",
        "Die Rechnung 2026-4711 kostet 89,90 €.",
        "パスワードを忘れました。",
        "2026年12月6日に3000円払いました。",
        "Population 8,336,817 in 2022.",
        "ISBN 978-3-16-148410-0",
        "My SSN is something I never share.",
        "12345678 is a number, and so is 36574261809.",  # an IdNr's shape without its name
        "https://live.staticflickr.com/381/19379909243_9683e023fc_z.jpg",  # an id in a link
    ],
)
def test_what_only_looks_like_a_value_stays(text: str) -> None:
    assert redact(text).text == text
    assert not redact(text).found


def test_a_policy_drops_the_sentence_or_keeps_the_value() -> None:
    text = "My card number is 4111 1111 1111 1111. I live in Berlin. Mail me at a@b.io."
    drop = RedactionPolicy(dict.fromkeys(CLASSES, "drop"))
    assert redact(text, drop).text == "I live in Berlin."
    pem = f"I use this key.\n{_PEM}\nI live in Oslo."
    assert redact(pem, drop).text == "I use this key.\nI live in Oslo."  # every line of it
    keep_mail = RedactionPolicy({**dict.fromkeys(CLASSES, "mask"), "email": "keep"})
    redacted = redact(text, keep_mail)
    assert (
        redacted.text == "My card number is [redacted card]. I live in Berlin. Mail me at a@b.io."
    )
    assert redacted.found == {"card": 1}  # a value kept is not counted


def test_a_memory_holding_a_secret_or_its_marker_is_refused() -> None:
    assert for_memory("User's card number is [redacted card]").refused == ("card",)
    assert for_memory("User's card number is [REDACTED]").refused == ("secret",)
    refused = for_memory("User's wifi password is hunter22.")
    assert refused.refused == ("password",)
    assert "hunter22" not in refused.text  # refused, and holding no value either
    # personal data is stored masked
    kept = for_memory("User's email is jane@example.com")
    assert (kept.text, kept.refused, kept.found) == ("User's email is [email]", (), {"email": 1})
    # dropped to nothing: refused for what it held
    drop = RedactionPolicy({**dict.fromkeys(CLASSES, "mask"), "phone": "drop"})
    assert for_memory("Call me at +49 30 12345678.", drop).refused == ("phone",)
    # a secret the operator keeps is stored
    keep = RedactionPolicy({**dict.fromkeys(CLASSES, "mask"), "password": "keep"})
    assert for_memory("User's wifi password is hunter22.", keep).refused == ()
    assert for_memory("User lives in Berlin") == for_memory("User lives in Berlin", keep)
    assert for_memory("User lives in Berlin").text == "User lives in Berlin"
