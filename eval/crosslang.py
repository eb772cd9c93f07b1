"""Cross-language recall: a fact said in one language, asked about later in another. Pure: data
and scoring, no I/O (`python -m eval.crosslang_run` drives them through the product).

Multilingual memory has to find "我对花生过敏" for "What am I allergic to?" and "User has a
greyhound named Biscuit" for "我的狗叫什么？". Each ``Pair`` holds what a user says in a chat turn
(``said``), the memory a good extraction model would write from it (``fact``, in the language of
``said``), the later question in the other language (``question``) and a short value that must
appear in the injected memory text for the question to count as recalled (``answer``, in the
language of the fact). About a quarter of the questions are open requests the fact bears on
("Suggest something I could cook for dinner tonight." for a vegetarian) rather than direct
questions (``open``).

* 12 pairs said in Chinese (Simplified), asked in English; 12 said in English, asked in Chinese;
* 6 said in Spanish, asked in English; 6 said in English, asked in Spanish.

``DISTRACTORS`` holds, per language, other facts of the same user (car, phone, birthday, a
football club …) on subjects no pair touches and holding no pair's answer, so that recall is
measured among several memories and not of a memory alone: a run stores a pair's fact (or
plays its ``said``) with the distractors of both its languages, then asks its ``question``.

``recalled`` scores what was injected: a CJK answer as a substring ("花生" in "用户对花生过敏"),
a Latin one case-insensitively on Unicode word boundaries ("aisle" in "User prefers aisle
seats", not in "aisles"); both after NFKC (full-width digits and letters) and with digit-group
separators dropped ("25,000" = "25000", "3.000" = "3000").

All texts were written for this project; none is taken from a benchmark or data set.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

LANGUAGES = ("zh", "en", "es")
# Han, kana and Hangul: a text with one of these is matched without word boundaries
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_CHAR = re.compile(f"[{CJK}]")
# a letter or digit of a script that separates words with spaces (\w less CJK)
_NOT_LATIN_WORD = rf"[^\W{CJK}]"
# "25,000", "3.000", "6 000" with a no-break space: a separator between a digit and three more
_DIGIT_GROUP = re.compile(r"(?<=\d)[,.\u00a0\u202f](?=\d{3}(?!\d))")


@dataclass(frozen=True, slots=True)
class Pair:
    key: str
    said_in: str  # the language of ``said`` and ``fact``: "zh", "en" or "es"
    asked_in: str  # the language of ``question``
    said: str  # what the user says in a chat turn
    fact: str  # the memory a good extraction model would write from it
    question: str  # asked later, in a new conversation
    answer: str  # must appear in the injected memory text
    open: bool = False  # a request the fact bears on, not a direct question about it


def _zh_en(key: str, said: str, fact: str, question: str, answer: str, open: bool = False) -> Pair:
    return Pair(f"zh-en:{key}", "zh", "en", said, fact, question, answer, open)


def _en_zh(key: str, said: str, fact: str, question: str, answer: str, open: bool = False) -> Pair:
    return Pair(f"en-zh:{key}", "en", "zh", said, fact, question, answer, open)


def _es_en(key: str, said: str, fact: str, question: str, answer: str, open: bool = False) -> Pair:
    return Pair(f"es-en:{key}", "es", "en", said, fact, question, answer, open)


def _en_es(key: str, said: str, fact: str, question: str, answer: str, open: bool = False) -> Pair:
    return Pair(f"en-es:{key}", "en", "es", said, fact, question, answer, open)


ZH_EN: tuple[Pair, ...] = (
    _zh_en("allergy", "我对花生过敏，吃一点就会起疹子。", "用户对花生过敏。",
           "What am I allergic to?", "花生"),
    _zh_en("diet", "我是素食者，已经三年没吃肉了。", "用户是素食者，已经三年不吃肉。",
           "Suggest something I could cook for dinner tonight.", "素食", open=True),
    _zh_en("city", "我住在杭州，在西湖附近租了一套小公寓。", "用户住在杭州，在西湖附近租房。",
           "Which city do I live in?", "杭州"),
    _zh_en("job", "我在一家医院当儿科护士，经常要上夜班。",
           "用户是医院的儿科护士，经常上夜班。", "What do I do for a living?", "儿科护士"),
    _zh_en("daughter", "我女儿叫小雨，今年六岁了，刚上小学。", "用户的女儿叫小雨，今年六岁。",
           "What's my daughter's name?", "小雨"),
    _zh_en("cat", "我家有一只橘猫，名字叫团子，特别能吃。", "用户养了一只叫团子的橘猫。",
           "What is my cat called?", "团子"),
    _zh_en("hiking", "周末我最喜欢去爬山，尤其是秋天的时候。", "用户周末喜欢爬山，尤其是秋天。",
           "Any ideas for what I could do this weekend?", "爬山", open=True),
    _zh_en("trip", "我下个月要去成都出差，大概待一个星期。", "用户下个月要去成都出差一周。",
           "Where am I going on my work trip next month?", "成都"),
    _zh_en("laptop", "我想换一台新的笔记本电脑，预算最多6000元。",
           "用户想买新的笔记本电脑，预算最多6000元。",
           "What's my budget for the new laptop?", "6000元"),
    _zh_en("diabetes", "我有二型糖尿病，医生让我少吃碳水。",
           "用户患有二型糖尿病，需要控制碳水化合物的摄入。",
           "Can you plan a breakfast for me tomorrow?", "糖尿病", open=True),
    _zh_en("music", "我特别喜欢听爵士乐，开车的时候一直放。", "用户喜欢听爵士乐，开车时常听。",
           "What kind of music do I like?", "爵士乐"),
    _zh_en("swimming", "我每周二和周四晚上七点要上游泳课。",
           "用户每周二和周四晚上七点上游泳课。", "What do I have on Tuesday evenings?", "游泳课"),
)  # fmt: skip

EN_ZH: tuple[Pair, ...] = (
    _en_zh("allergy", "I'm allergic to shellfish, so no shrimp or crab for me.",
           "User is allergic to shellfish (no shrimp or crab).", "我对什么过敏？", "shellfish"),
    _en_zh("diet", "I'm lactose intolerant, so I stay away from milk and cheese.",
           "User is lactose intolerant and avoids milk and cheese.", "帮我推荐一份早餐吧。",
           "lactose", open=True),
    _en_zh("city", "I moved to Edinburgh last spring for my partner's job.",
           "User lives in Edinburgh, having moved there last spring.", "我现在住在哪个城市？",
           "Edinburgh"),
    _en_zh("job", "I work as a structural engineer at a firm that designs bridges.",
           "User is a structural engineer at a firm that designs bridges.", "我是做什么工作的？",
           "structural engineer"),
    _en_zh("brother", "My older brother Tomás is getting married in June.",
           "User's older brother Tomás is getting married in June.", "我哥哥叫什么名字？",
           "Tomás"),
    _en_zh("dog", "We adopted a greyhound called Biscuit from a rescue last year.",
           "User has a greyhound named Biscuit, adopted from a rescue last year.",
           "我的狗叫什么名字？", "Biscuit"),
    _en_zh("cello", "I spend most evenings practicing the cello; I joined an amateur orchestra "
           "in the fall.", "User plays the cello in an amateur orchestra.",
           "我平时演奏什么乐器？", "cello"),
    _en_zh("trip", "We're going to Iceland in February to see the northern lights.",
           "User is travelling to Iceland in February to see the northern lights.",
           "帮我列一份出发前的行李清单。", "Iceland", open=True),
    _en_zh("wedding", "Our budget for the wedding is 25,000 dollars, and not a cent more.",
           "User's wedding budget is $25,000.", "我们婚礼的预算是多少？", "25,000"),
    _en_zh("asthma", "I have asthma, so I always carry an inhaler when I go running.",
           "User has asthma and carries an inhaler when running.",
           "给我制定一个适合初学者的跑步计划。", "asthma", open=True),
    _en_zh("seat", "On flights I always book an aisle seat, I hate climbing over people.",
           "User prefers aisle seats on flights.", "我坐飞机一般选什么座位？", "aisle"),
    _en_zh("school", "I pick up my son from school every weekday at 3:30.",
           "User picks up their son from school every weekday at 3:30.",
           "我每个工作日几点去学校接儿子？", "3:30"),
)  # fmt: skip

ES_EN: tuple[Pair, ...] = (
    _es_en("allergy", "Soy alérgica a la penicilina, me lo descubrieron de pequeña.",
           "El usuario es alérgico a la penicilina.", "Which medicine am I allergic to?",
           "penicilina"),
    _es_en("city", "Vivo en Valencia desde hace diez años, cerca de la playa.",
           "El usuario vive en Valencia desde hace diez años.", "Where do I live?", "Valencia"),
    _es_en("dog", "Mi perro se llama Canelo y es un pastor alemán.",
           "El usuario tiene un pastor alemán que se llama Canelo.", "What's my dog's name?",
           "Canelo"),
    _es_en("diet", "No puedo comer gluten porque soy celíaco.",
           "El usuario es celíaco y no come gluten.", "Recommend a pasta recipe for tonight.",
           "gluten", open=True),
    _es_en("job", "Trabajo como profesor de matemáticas en un instituto.",
           "El usuario trabaja como profesor de matemáticas en un instituto.",
           "What subject do I teach?", "matemáticas"),
    _es_en("japan", "Quiero ir a Japón en octubre y tengo un presupuesto de 3000 euros.",
           "El usuario planea viajar a Japón en octubre con un presupuesto de 3000 euros.",
           "How much can I spend on my trip to Japan?", "3000"),
)  # fmt: skip

EN_ES: tuple[Pair, ...] = (
    _en_es("music", "I can't stand country music, but I love 80s synth-pop.",
           "User loves 80s synth-pop and dislikes country music.",
           "Ponme algo de música para la fiesta del sábado.", "synth-pop", open=True),
    _en_es("wife", "My wife Priya and I are celebrating our tenth anniversary next week.",
           "User's wife is named Priya; their tenth anniversary is next week.",
           "¿Cómo se llama mi esposa?", "Priya"),
    _en_es("therapy", "I have physical therapy every Monday morning at 9.",
           "User has physical therapy every Monday morning at 9.",
           "¿Qué tengo los lunes por la mañana?", "physical therapy"),
    _en_es("trip", "I'm flying to Lisbon on May 12 for a conference.",
           "User is flying to Lisbon on May 12 for a conference.",
           "¿A qué ciudad viajo en mayo?", "Lisbon"),
    _en_es("marathon", "I'm training for my first marathon; it's in November.",
           "User is training for their first marathon, in November.",
           "¿Qué debería comer antes de un entrenamiento largo?", "marathon", open=True),
    _en_es("tea", "I don't drink coffee at all, only green tea.",
           "User does not drink coffee, only green tea.", "¿Qué suelo tomar en vez de café?",
           "green tea"),
)  # fmt: skip

PAIRS: tuple[Pair, ...] = ZH_EN + EN_ZH + ES_EN + EN_ES

# Other facts of the same user, per language: subjects no pair touches (so none contradicts a
# pair's fact), holding no pair's answer.
DISTRACTORS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "zh": (
        "用户开一辆白色的丰田卡罗拉。",
        "用户最喜欢的颜色是深绿色。",
        "用户正在学日语，打算明年考N2。",
        "用户用的是一部华为手机。",
        "用户的生日在十一月。",
        "用户喜欢看科幻电影，最喜欢《星际穿越》。",
        "用户是上海申花队的球迷。",
        "用户小时候在农村长大。",
        "用户最近在装修厨房。",
    ),
    "en": (
        "User drives a red Mazda hatchback.",
        "User's favorite color is navy blue.",
        "User is learning Italian with a language app.",
        "User's birthday is in August.",
        "User supports Arsenal football club.",
        "User is renovating the bathroom.",
        "User reads science fiction novels before bed.",
        "User grew up on a farm in Ohio.",
        "User uses a Pixel phone.",
    ),
    "es": (
        "El usuario conduce un Seat Ibiza gris.",
        "El usuario tiene como color favorito el morado.",
        "El usuario está aprendiendo a tocar la guitarra.",
        "El usuario cumple años en marzo.",
        "El usuario es aficionado del Real Betis.",
        "El usuario está reformando la cocina.",
        "El usuario creció en un pueblo de Galicia.",
        "El usuario lee novelas policiacas antes de dormir.",
        "El usuario tiene un móvil Samsung.",
    ),
})  # fmt: skip


def has_cjk(text: str) -> bool:
    return bool(_CJK_CHAR.search(text))


def _normal(text: str) -> str:
    return _DIGIT_GROUP.sub("", unicodedata.normalize("NFKC", text))


def _pattern(answer: str) -> re.Pattern[str]:
    """The answer, bounded on each side that ends in a Latin letter or digit (a CJK side
    has no word boundary to keep: "6000元" is in "预算6000元以内")."""
    wanted = _normal(answer).strip()
    before = rf"(?<!{_NOT_LATIN_WORD})" if re.match(_NOT_LATIN_WORD, wanted) else ""
    after = rf"(?!{_NOT_LATIN_WORD})" if re.match(_NOT_LATIN_WORD, wanted[-1:]) else ""
    return re.compile(before + re.escape(wanted) + after, re.IGNORECASE)


def recalled(injected: Sequence[str], pair: Pair) -> bool:
    """Whether any injected memory line holds the pair's answer."""
    pattern = _pattern(pair.answer)
    return any(pattern.search(_normal(line)) for line in injected)
