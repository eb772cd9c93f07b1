"""What a move takes with it, in English, Chinese and Spanish: pure rules, then the writer."""

from __future__ import annotations

import pytest

from memory_extproc.embedding.spaces import Embeddings
from memory_extproc.memories.cascades import ends_with_move, left_place, said_beside, until_moved
from memory_extproc.memories.changes import Change, compare, moved_from, says_change
from memory_extproc.memories.facts import Fact
from memory_extproc.memories.relative_dates import dated
from memory_extproc.memories.writer import MemoryWriter
from memory_extproc.store.memory import InMemoryStore
from memory_extproc.store.model import MemoryType
from memory_extproc.worker.turn_notes import turn_notes

T0 = 1_700_000_000_000
DAY = 86_400_000


@pytest.mark.parametrize(
    ("move", "home", "left"),
    [
        ("User moved to Seattle in November 2026", "User has lived in Denver for five years",
         "Denver"),
        ("Big news: we moved to Seattle last month.", "I've lived in Denver for five years.",
         "Denver"),
        ("用户2026年11月搬到了西雅图", "用户在丹佛住了五年", "丹佛"),
        ("用户一家三口上周搬到深圳了", "用户住在南京", "南京"),  # the family of three
        # the date the product wrote between the user and the move
        ("用户2026年11月22日那一周搬到了芝加哥", "用户在奥斯汀住了很多年", "奥斯汀"),
        ("El usuario se mudó a Seattle en noviembre de 2026",
         "El usuario vive en Denver desde hace cinco años", "Denver"),
        ("我两周前搬到芝加哥了。", "我在奥斯汀住了很多年了。", "奥斯汀"),
        # a new home, as the model may write a move
        ("User lives in Chicago now", "User has lived in Austin for years", "Austin"),
        # not a move of the user's, not where they lived, or where they still live
        ("User's sister moved to Seattle", "User lives in Denver", None),
        ("User moved to Seattle", "User works in Denver", None),
        ("User moved to a bigger flat in Denver", "User lives in Denver", None),
        # a note's sentence starts with its verb
        ("Nos mudamos a Seattle.", "Vivo en Denver y soy muy fan de los Broncos.", "Denver"),
    ],
)  # fmt: skip
def test_the_place_a_move_leaves(move: str, home: str, left: str | None) -> None:
    assert left_place(move, home) == left


@pytest.mark.parametrize(
    ("text", "place", "ends"),
    [
        ("User goes to a climbing gym in Denver", "Denver", True),
        ("User's doctor is Dr. Lee in Denver", "Denver", True),
        ("用户在丹佛的一家健身房攀岩", "丹佛", True),
        ("El usuario lleva a su perro a un veterinario de Denver", "Denver", True),
        # …and their children's school: the family moved
        ("El hijo del usuario va al colegio Los Aromos en Rosario", "Rosario", True),
        ("用户的孩子在南京的育英小学上二年级", "南京", True),
        ("User's daughter goes to Lincoln Elementary School in Denver", "Denver", True),
        # someone else's life, no local service, another place, already past
        ("User's brother lives in Denver", "Denver", False),
        ("User's sister goes to a gym in Denver", "Denver", False),
        ("User's sister's son goes to school in Denver", "Denver", False),
        ("User's son lives in Denver", "Denver", False),
        ("用户的妹妹住在丹佛", "丹佛", False),
        ("El hermano del usuario va a un gimnasio en Denver", "Denver", False),
        ("User is a fan of the Denver Broncos", "Denver", False),
        ("User was born in Denver", "Denver", False),
        ("User goes to a climbing gym in Boulder", "Denver", False),
        ("User used to go to a gym in Denver", "Denver", False),
    ],
)  # fmt: skip
def test_what_a_move_ends_is_the_users_own_local_life_there(
    text: str, place: str, ends: bool
) -> None:
    assert ends_with_move(text, place) is ends


def test_what_a_move_ended_says_until_when_in_its_language_without_the_new_place() -> None:
    """One memory says where the user lives now: the move's own."""
    gym = "User goes to a climbing gym in Denver"
    assert until_moved(gym, "User moved to Seattle") == f"Until the move: {gym}"
    assert (
        until_moved("用户在丹佛的健身房攀岩", "用户搬到了西雅图")
        == "搬家之前：用户在丹佛的健身房攀岩"
    )
    assert until_moved("El usuario va a un gimnasio en Denver", "Nos mudamos a Seattle.") == (
        "Hasta la mudanza: El usuario va a un gimnasio en Denver"
    )


@pytest.mark.parametrize(
    ("said", "place", "beside"),
    [
        ("I live in Denver and I'm a huge Broncos fan.", "Denver", "I'm a huge Broncos fan."),
        ("Vivo en Denver y soy muy fan de los Broncos.", "Denver", "soy muy fan de los Broncos."),
        ("我住在丹佛，我是野马队的铁杆球迷。", "丹佛", "我是野马队的铁杆球迷。"),
        ("デンバーに住んでいて、ブロンコスの大ファンです。", "デンバー",
         "ブロンコスの大ファンです。"),
        # the place left, its local life, and nothing else: all goes with the move
        ("I live in Denver, and I go to a climbing gym in Denver twice a week.", "Denver", None),
        ("Ich wohne seit Jahren in Leipzig, meine Hausärztin ist Dr. Schneider, auch in Leipzig.",
         "Leipzig", None),
        ("I live in Denver.", "Denver", None),
    ],
)  # fmt: skip
def test_what_a_note_said_beside_the_home_a_move_ended(
    said: str, place: str, beside: str | None
) -> None:
    assert said_beside(said, place) == beside


async def test_a_move_that_ends_a_note_keeps_what_it_said_beside_the_home(
    embeddings: Embeddings,
) -> None:
    """Model-free memory keeps a message whole: the team stays current, the home goes."""
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    home = 'On 2026-11-01 the user said: "I live in Denver and I\'m a huge Broncos fan."'
    await writer.write("alice", "", Fact(MemoryType.EPISODIC, home), T0, source="c")
    move = 'On 2026-12-01 the user said: "We moved to Seattle last month."'
    await writer.write("alice", "", Fact(MemoryType.EPISODIC, move), T0 + DAY, source="c")
    active = {m.content: m for m in await store.list("alice")}
    kept = 'On 2026-11-01 the user said: "I\'m a huge Broncos fan."'
    assert kept in active
    assert active[kept].created_at == T0
    assert not [text for text in active if "Denver" in text and "previously" not in text]


async def test_a_move_ends_the_home_and_the_local_life_it_left_and_nothing_else(
    embeddings: Embeddings,
) -> None:
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    for text in (
        "User lives in Denver",
        "User goes to a climbing gym in Denver",
        "User's brother lives in Denver",
        "User plays the cello",
    ):
        await writer.write("alice", "", Fact(MemoryType.SEMANTIC, text), T0, source="c")
    move = Fact(MemoryType.SEMANTIC, "User moved to Seattle in November 2026")
    await writer.write("alice", "", move, T0 + DAY, source="c")
    active = sorted(m.content for m in await store.list("alice"))
    assert active == [
        "Until the move: User goes to a climbing gym in Denver",
        "User moved to Seattle in November 2026 (previously: User lives in Denver)",
        "User plays the cello",
        "User's brother lives in Denver",
    ]


@pytest.mark.parametrize(
    ("home", "move"),
    [
        # the home note says more than the home: 0.22 from the move's own words
        ("I live in Denver and my dentist is Dr. Reyes downtown. Is $150 for a cleaning normal?",
         "We finally did it, we moved to Seattle last weekend!"),
        # a home said as begun lately is a move, the verb first as German says it
        ("Wir wohnen in Köln, mein Zahnarzt ist Dr. Berger am Ring.",
         "Seit ein paar Wochen wohnen wir in Hamburg, endlich angekommen."),
    ],
)  # fmt: skip
async def test_a_move_finds_the_home_it_ends_by_what_a_home_says(
    embeddings: Embeddings, home: str, move: str
) -> None:
    store = InMemoryStore()
    writer = MemoryWriter(store, embeddings, None)
    for day, said in enumerate((home, move)):
        for note in turn_notes(said, "OK.", f"2026-11-0{day + 1}"):
            await writer.write("alice", "", note, T0 + day * DAY, source="c")
    (current,) = [m.content for m in await store.list("alice")]  # the move, the home its past
    now, before = current.split(" (", 1)
    assert move in now
    assert home.split(",")[0].split(" and")[0] in before


@pytest.mark.parametrize(
    ("new", "old", "moved"),
    [
        ("Seit letztem Monat wohnen wir in Hamburg.", "Der Nutzer wohnt in Bremen", True),
        ("We've lived in Boston since last month.", "User lives in New York", True),
        # the same city, or a part of it: no move
        ("Der Nutzer wohnt seit letztem Monat in Hamburg", "Der Nutzer wohnt in Hamburg-Altona",
         False),
        ("We've lived in New York since last month.", "User lives in New York", False),
        # a home of long standing, said again later, is no news of a move
        ("We've lived in Boston since 2015.", "User lives in New York", False),
        # a move said by the new home
        ("Ya instalados en el depa nuevo en Querétaro!", "Vivo en Puebla.", True),
        ("El usuario vive ahora en un departamento nuevo en Querétaro", "El usuario vive en Puebla",
         True),
        ("Our new flat in Leeds has a tiny kitchen.", "I live in York.", True),
        ("We're finally settled in Leeds.", "User lives in York", True),
        ("Unsere neue Wohnung in Leipzig ist super.", "Der Nutzer wohnt in Köln", True),
        # …not a relative's, nor an app installed
        ("My sister's new flat in Leeds is tiny.", "User lives in York", False),
        ("Tengo la app ya instalada en el móvil", "El usuario vive en Sevilla", False),
        ("El usuario vive ahora en un departamento nuevo en Querétaro",
         "El hermano del usuario, Tomás, vive en Denver", False),
        # a later move ends a home said as begun lately
        ("Der Nutzer ist letzte Woche nach Düsseldorf gezogen",
         "Der Nutzer wohnt seit letztem Monat in Hamburg", True),
    ],
)  # fmt: skip
def test_a_home_said_as_begun_lately_is_a_move_from_another_place(
    new: str, old: str, moved: bool
) -> None:
    assert moved_from(new, old) is moved


def test_a_home_the_model_wrote_from_a_move_said_lately_ends_the_old_one() -> None:
    """The model's fact has its date resolved ("seit November 2026"): no longer "lately" by its
    words, it is by the user's, which said a change."""
    said = "So, seit letztem Monat wohnen wir in Kiel. Der Umzug war die Hölle."
    fact = dated("Der Nutzer wohnt seit letztem Monat in Kiel", said, "2026-12-07")
    assert fact == "Der Nutzer wohnt seit November 2026 in Kiel"
    assert says_change(said)
    assert compare(fact, "Der Nutzer wohnt in Bremen") is None
    # …read without its date, a new value of the home: changed
    assert compare(fact, "Der Nutzer wohnt in Bremen", change_said=True) is Change.CHANGED
    assert compare(fact, "Die Schwester des Nutzers wohnt in Bremen", change_said=True) is None
