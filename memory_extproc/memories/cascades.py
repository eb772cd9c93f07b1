"""What a move takes with it: the user's local life in the city they left. Pure.

"User moved to Seattle" ends "User has lived in Denver for five years" (changes.moved_from).
What was true only there ends with it: "User goes to a climbing gym in Denver", "用户在丹佛有
一位家庭医生", "El usuario lleva a su hija a una guardería en Denver". Left current, they were
injected as today's life beside the move. They stay in history, and their text says until when:
"Until the move: User goes to a climbing gym in Denver" (not naming the new place: one memory
says where the user lives now).

What the move does not end: what names no local service of the user's own (a relative's home
"User's brother lives in Denver", a favourite team, where the user was born), and whatever does
not name the old place. Words decide, not a model: a 1.5B judge read "goes to a gym in Denver"
as still true after the move as readily as a brother's home as ended (memories/judge.py).
"""

from __future__ import annotations

import re

from memory_extproc.languages import language_of
from memory_extproc.memories import change_words as vocabulary
from memory_extproc.memories.relative_dates import without_resolved_dates
from memory_extproc.words import CJK

# The place a residence statement names: a capitalised name after "in"/"en", a run of Chinese
# after 住在 / between 在 and 住
_HOME_PLACE = (
    re.compile(r"\b(?:live|lives|lived|living|reside|resides|resided|based)\s+in\s+"
               r"(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"),
    re.compile(r"\b(?:vivo|vivimos|vive|viven|resido|reside)\s+en\s+"
               r"(?P<place>[A-ZÁÉÍÓÚÑ][\w'-]*(?:\s+[A-ZÁÉÍÓÚÑ][\w'-]*)*)"),
    re.compile(r"(?:住在|居住在|定居在)(?P<place>[\u4e00-\u9fff]{2,8}?)(?=[，。；！了的,.;!]|$)"),
    re.compile(r"在(?P<place>[\u4e00-\u9fff]{2,8}?)住"),
)  # fmt: skip
# What one has where one lives: services, routines, a home
_LOCAL = re.compile(
    r"\b(?:gym|gyms|doctor|dentist|physician|gp|clinic|therapist|pharmacy|vet|commute[sd]?"
    r"|commuting|bus|subway|metro|tram|school|kindergarten|daycare|nursery|club|church|mosque"
    r"|synagogue|temple|library|neighbou?rs?|landlord|apartment|flat|rent|grocery|supermarket"
    r"|café|cafe|coffee\s+shop|barber|hairdresser|pool|choir|book\s+club|yoga\s+studio|studio"
    r"|gimnasio|médic[oa]|dentista|clínica|terapeuta|farmacia|veterinari[oa]|trayecto|autobús"
    r"|escuela|colegio|guardería|iglesia|biblioteca|vecin[oa]s?|caser[oa]|apartamento|piso"
    r"|alquiler|renta|supermercado|cafetería|peluquería|piscina|coro)\b"
    r"|健身房|攀岩馆|体育馆|球馆|医生|牙医|诊所|药店|兽医|通勤|上班|地铁|公交|学校|幼儿园"
    r"|托儿所|俱乐部|教会|教堂|图书馆|邻居|房东|公寓|房租|超市|咖啡馆|理发|游泳馆|合唱团|瑜伽",
    re.IGNORECASE,
)
# A memory already past: an ending, a cascade, a habit given up
_PAST = re.compile(
    r"\((?:previously|antes):|（以前：|^Until\s+the\s+move:|^Hasta\s+la\s+mudanza:|^搬家之前："
    r"|\bused\s+to\b|\bsolía\b|以前"
)
# Not the new place's name: one memory holds where the user lives now, the move's own
_UNTIL = {
    "en": "Until the move: {text}",
    "es": "Hasta la mudanza: {text}",
    "zh": "搬家之前：{text}",
}


def _home_place(home: str) -> str | None:
    for pattern in _HOME_PLACE:
        if found := pattern.search(home):
            return found.group("place")
    return None


def left_place(move: str, home: str) -> str | None:
    """The place the user left, when ``move`` is the user's move or new home ("User lives in
    Chicago now", as the model wrote "I relocated to Chicago") and ``home`` said where they
    lived, somewhere the move does not name."""
    move, home = without_resolved_dates(move), without_resolved_dates(home)
    moved = vocabulary.MOVED.search(move) or vocabulary.RESIDENCE.search(move)
    if not (moved and vocabulary.RESIDENCE.search(home)):
        return None
    place = _home_place(home)
    return place if place and place.casefold() not in move.casefold() else None


def ends_with_move(text: str, place: str) -> bool:
    """``text`` holds part of the user's own local life in ``place``, as current."""
    if _PAST.search(text) or vocabulary.PEOPLE.search(text) or vocabulary.RESIDENCE.search(text):
        return False
    bound = "" if CJK.search(place) else r"\b"
    named = re.search(rf"{bound}{re.escape(place)}{bound}", text, re.IGNORECASE)
    return named is not None and _LOCAL.search(text) is not None


def until_moved(text: str, move: str) -> str:
    """``text`` marked as true until the move, in its own language (the move's, if unsure)."""
    return _UNTIL.get(language_of(text, move), _UNTIL["en"]).format(text=text)
