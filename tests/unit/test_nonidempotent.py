"""Programs a wrong lowering cannot hide behind: in-place read-modify-write kernels.

A pure copy is idempotent: a tile written twice, or a neighbour's tile written with the
right values, leaves the same buffer. `x[i, j] += 1` done in place is not: an element
updated twice ends at x + 2, an element some thread skipped stays at x, and an element
read after a neighbour already updated it is off by one. Each program below is checked
against NumPy's `x + 1` (plain arithmetic, no tilec code), at the layout level on the
reference executor, and after the default pipeline on the reference executor (the
GPU-level program the CUDA is printed from), with:

* square and non-square tiles;
* extents k*T - 1, k*T and k*T + 1 of every tile extent (the masking paths: a partial
  last tile, exact tiles, one element past), static and dynamic (`?` extents given at
  run time through `tilec.args`; only a dynamic tensor may be smaller than one tile:
  the verifier refuses a static tile larger than its tensor);
* pointers aligned to 16 bytes and to 4 only (then no access may be wider than 4 bytes).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import layout
from tilec.runtime.reference import audit_writes, run

# (tile rows, tile cols, blocked layout of the tile for 128 threads)
TILES = [
    (32, 32, tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])),
    (16, 16, tilec.BlockedLayout([1, 2], [4, 8], [4, 1], [1, 0])),
    (8, 64, tilec.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])),
    (64, 8, tilec.BlockedLayout([4, 1], [16, 2], [1, 4], [0, 1])),
]


def extents(tm: int, tn: int) -> list[tuple[int, int]]:
    """Rows x cols around multiples of the tile: one partial tile, and 2T-1 / 2T / 2T+1."""
    return [(tm - 1, tn - 1), (2 * tm - 1, 2 * tn + 1), (2 * tm, 2 * tn), (2 * tm + 1, 2 * tn - 1)]


def masked_tile(p, view, coords, tile):
    """`layout.tile` with a `masked` result also where the tiles divide the tensor (the
    masked path with every element inside; `Program.tile` would leave it unmasked)."""
    inferred = layout.TileOp(view.ssa, [p.as_index(c) for c in coords], tile)
    op = layout.TileOp.build(operands=[view.ssa, list(inferred.coords)], properties=dict(inferred.properties),
                             result_types=[inferred.result.type.with_(masked=True)])
    inferred.erase()  # only its result type was wanted
    return p.insert(op).results[0]


def inplace_add_one(m: int, n: int, tm: int, tn: int, blocked, dynamic: bool, align: int):
    """`x += 1` on an m x n row-major f32 matrix, one masked tm x tn tile per block."""
    p = tilec.Program("add_one")
    x = p.pointer("x", "f32", align=align)
    if dynamic:
        rows, cols = p.index("m", m), p.index("n", n)
        g = p.view(x, "(?,?):(?,1)", dynamic=[rows, cols, cols]).named("g")
    else:
        g = p.view(x, f"({m},{n}):({n},1)").named("g")
    with p.launch(grid=(-(-n // tn), -(-m // tm), 1), threads=128) as k:
        t = masked_tile(p, g, [k.by, k.bx], [tm, tn]).named("t")
        v = p.load(t, blocked).named("v")
        p.store((v + p.full([tm, tn], 1.0, "f32", blocked, dense=True).named("one")).named("w"), t)
    return p.module


CASES = [
    pytest.param(m, n, tm, tn, blocked, dynamic, align, id=f"{m}x{n}-tile{tm}x{tn}-{'dyn' if dynamic else 'static'}-a{align}")
    for tm, tn, blocked in TILES
    for m, n in extents(tm, tn)
    for dynamic in (False, True)
    for align in (16, 4)
    if not (align == 4 and (m, n) != (2 * tm, 2 * tn))  # align 4: where 16 bytes would vectorize
    if dynamic or (m, n) != (tm - 1, tn - 1)  # a static tile larger than its tensor is refused
]


@pytest.mark.parametrize("m, n, tm, tn, blocked, dynamic, align", CASES)
def test_inplace_add_one_updates_every_element_once(m, n, tm, tn, blocked, dynamic, align):
    x = np.random.default_rng(m * 1000 + n).standard_normal(m * n).astype(np.float32)
    want = x + np.float32(1)
    args = {"m": m, "n": n} if dynamic else {}

    layout_level = run(inplace_add_one(m, n, tm, tn, blocked, dynamic, align), {"x": x, **args})["x"]
    np.testing.assert_array_equal(layout_level, want)

    lowered = run_pipeline(inplace_add_one(m, n, tm, tn, blocked, dynamic, align), "default")
    with audit_writes(strict=True) as audit:  # each element stored once, by one thread
        gpu_level = run(lowered, {"x": x, **args})["x"]
    np.testing.assert_array_equal(gpu_level, want)
    assert audit.written["%x"].all()

    if align == 4:  # 4-byte alignment allows nothing wider than one f32
        assert not VECTOR.search(emit(lowered, "cuda")), "vector access on a 4-byte-aligned pointer"


VECTOR = re.compile(r"\bf32x[248]\b")  # the CUDA printer's vector types (struct f32x4 ...)


@pytest.mark.parametrize("tm, tn, blocked", [t for t in TILES if list(t[2].order) == [1, 0]])
def test_alignment_decides_the_vector_width(tm, tn, blocked):
    """Rows of 2*tn floats: 16-byte aligned pointers get vectors, 4-byte aligned ones none."""
    def cuda(align):
        return emit(run_pipeline(inplace_add_one(2 * tm, 2 * tn, tm, tn, blocked, False, align), "default"), "cuda")

    assert VECTOR.search(cuda(16))
    assert not VECTOR.search(cuda(4))


def test_a_double_update_is_caught():
    """The check above sees an element updated twice: apply the kernel twice."""
    x = np.arange(31 * 33, dtype=np.float32)
    once = run(inplace_add_one(31, 33, 16, 16, TILES[1][2], False, 16), {"x": x})["x"]
    twice = run(inplace_add_one(31, 33, 16, 16, TILES[1][2], False, 16), {"x": once})["x"]
    assert np.array_equal(once, x + 1) and not np.array_equal(twice, x + 1)
