"""Entries' codes (``ranking/rank.py``): one integer per (rank, node index), sorted as the pairs."""

from __future__ import annotations

from array import array
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from raygang.volcano.ranking.rank import (
    INDEX_MASK,
    SCORE_BIAS,
    UNBOUNDED,
    bound_code,
    decode,
    encode,
)

# What volcano_rank yields: a flag and a negated nodeorder score (scores lie in [50, 200]),
# plus the edges of what a code holds.
ranks = st.tuples(
    st.sampled_from([0, 1]),
    st.one_of(st.integers(-200, 0), st.sampled_from([-SCORE_BIAS, SCORE_BIAS - 1])),
)
indexes = st.one_of(st.integers(0, 600), st.just(INDEX_MASK))


class TestCodes:
    @given(rank=ranks, index=indexes)
    def test_decode_gives_back_the_pair(self, rank: tuple[int, int], index: int) -> None:
        assert decode(encode(rank, index)) == (rank, index)

    @given(a=st.tuples(ranks, indexes), b=st.tuples(ranks, indexes))
    def test_codes_compare_as_the_pairs(
        self, a: tuple[tuple[int, int], int], b: tuple[tuple[int, int], int]
    ) -> None:
        assert (encode(*a) < encode(*b)) == (a < b)
        assert (encode(*a) == encode(*b)) == (a == b)

    def test_a_worked_code(self) -> None:
        # Flag 1, score 150 (negated -150), node 7: bit 56, then (2**23 - 150) << 32, then 7.
        assert encode((1, -150), 7) == (1 << 56) | ((SCORE_BIAS - 150) << 32) | 7

    @given(rank=ranks, index=indexes)
    def test_every_code_fits_a_signed_64_bit_array(self, rank: tuple[int, int], index: int) -> None:
        assert array("q", [encode(rank, index)])[0] == encode(rank, index)

    @pytest.mark.parametrize(
        ("rank", "index"),
        [
            ((2, -100), 0),  # not a flag
            ((0, SCORE_BIAS), 0),  # a score beyond the code's range
            ((0, -SCORE_BIAS - 1), 0),
            ((0, -100), INDEX_MASK + 1),  # more nodes than a code can name
            ((0, -100), -1),
        ],
    )
    def test_what_has_no_code_is_refused(self, rank: tuple[int, int], index: int) -> None:
        with pytest.raises(ValueError, match="has no code"):
            encode(rank, index)

    def test_a_fraction_score_is_refused(self) -> None:
        with pytest.raises(ValueError, match="has no code"):
            encode((0, Fraction(-1, 2)), 0)


class TestBounds:
    @given(
        flag=st.sampled_from([0, 1]),
        negated=st.integers(-(1 << 40), 0),
        rank=ranks,
        index=indexes,
        other=indexes,
    )
    def test_a_bound_code_is_below_every_rank_the_bound_allows(
        self, flag: int, negated: int, rank: tuple[int, int], index: int, other: int
    ) -> None:
        # Bounds far below the scores' range (a pod asking much more than the smallest
        # node) are raised, never above a rank that respects the bound.
        if (rank, other) >= ((flag, negated), index):
            assert encode(rank, other) >= bound_code((flag, negated), index)

    @given(rank=ranks, index=indexes)
    def test_unbounded_is_below_every_rank(self, rank: tuple[int, int], index: int) -> None:
        assert bound_code(UNBOUNDED, 0) <= encode(rank, index)
