"""`make scale` makes its memories cheaply: these tests hold the data to what the run claims
(real geometry, distinct rows, reproducible per user) and the recall check to its definition."""

import numpy as np
import pytest

from bench.scale import Point, exact_top_k, jitter, recall_at_k, user_memories


def unit_rows(count: int, dimension: int = 384, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, dimension)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_jittered_rows_are_unit_and_at_the_asked_cosine_from_their_fact() -> None:
    base = unit_rows(500)
    rows = jitter(base, np.random.default_rng(1), 0.95)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(rows * base, axis=1)
    assert abs(float(cosines.mean()) - 0.95) < 0.005
    assert float(cosines.min()) > 0.92  # every row stays its fact, none drifts off


def test_jitter_keeps_the_facts_geometry() -> None:
    """What is near in the real embeddings stays near, and by how much: two jittered rows meet
    at cos(a, b) x 0.95 x 0.95, for facts that are close (one topic) and far apart alike."""
    rng = np.random.default_rng(2)
    centres = unit_rows(5, seed=3)
    base = centres[rng.integers(0, 5, 200)] + 0.6 * unit_rows(200, seed=4)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    rows = jitter(base, rng, 0.95)
    between = base @ base.T - np.eye(200)
    assert between.max() > 0.6  # the data hold close facts, not only near-orthogonal ones
    expected = between * 0.95**2 + np.eye(200)
    deviation = np.abs(rows @ rows.T - expected)
    assert deviation.mean() < 0.02
    assert deviation.max() < 0.12
    assert [exact_top_k(row, base, 1)[0] for row in rows] == list(range(200))


def test_a_users_memories_are_the_same_on_every_call_and_distinct_between_users() -> None:
    base = unit_rows(1000)
    owned, vectors = user_memories(7, 1000, 100, base)
    again_owned, again = user_memories(7, 1000, 100, base)
    assert owned == again_owned
    assert np.array_equal(vectors, again)
    assert len(set(owned)) == 100  # no fact twice for one user
    other_owned, other = user_memories(8, 1000, 100, base)
    shared = set(owned) & set(other_owned)
    assert shared, "pick users that share a fact"
    fact = next(iter(shared))
    mine, theirs = vectors[owned.index(fact)], other[other_owned.index(fact)]
    assert not np.array_equal(mine, theirs)  # one fact, two users: two distinct rows


def test_exact_top_k_is_by_cosine_best_first() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [0.8, 0.6]], dtype=np.float32)
    assert exact_top_k(np.array([2.0, 0.1], dtype=np.float32), vectors, 3) == [0, 3, 2]


@pytest.mark.parametrize(
    ("found", "exact", "recall"),
    [
        (["a", "b", "c", "d", "e"], ["e", "d", "c", "b", "a"], 1.0),  # order does not count
        (["a", "b", "x", "y", "z"], ["a", "b", "c", "d", "e"], 0.4),
        ([], ["a", "b", "c", "d", "e"], 0.0),  # an index that returns nothing recalls nothing
        (["a", "b"], ["a", "b", "c", "d", "e"], 0.4),  # fewer rows than exact: counted missing
    ],
)
def test_recall_at_k_counts_the_exact_top_k_the_index_returned(
    found: list[str], exact: list[str], recall: float
) -> None:
    assert recall_at_k(found, exact) == pytest.approx(recall)


def test_points_parse_users_by_memories_per_user() -> None:
    point = Point.parse(" 3334x300")
    assert (point.users, point.per_user, point.memories) == (3334, 300, 1_000_200)
    for bad in ("1000", "0x100", "ax100", "10x-5"):
        with pytest.raises(ValueError, match="not USERSxPER_USER"):
            Point.parse(bad)
