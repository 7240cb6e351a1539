"""Hypothesis building blocks for random distributed layouts, shared by the lowering
tests."""

from __future__ import annotations

from hypothesis import strategies as st


def pow2_split(draw, total_log2: int, rank: int) -> list[int]:
    """`rank` powers of two whose product is 2**total_log2, in a random order."""
    out, left = [], total_log2
    for _ in range(rank - 1):
        k = draw(st.integers(0, left))
        out.append(1 << k)
        left -= k
    out.append(1 << left)
    return list(draw(st.permutations(out)))


def blocked_parts(draw, warps_log2: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """(sizePerThread, threadsPerWarp, warpsPerCTA, order) of a random rank-2 blocked
    layout with 32 lanes and 2**warps_log2 warps, 1 to 4 registers per dim."""
    spt = [1 << draw(st.integers(0, 2)) for _ in range(2)]
    tpw = pow2_split(draw, 5, 2)
    wpc = pow2_split(draw, warps_log2, 2)
    order = list(draw(st.permutations([0, 1])))
    return spt, tpw, wpc, order
