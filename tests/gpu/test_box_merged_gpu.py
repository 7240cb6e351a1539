"""On an H100/H200: `box<tiles>` over a merged destination mode (`_copy_cost.tiles_merged`,
the rule's 1-byte elements) through `tilec.copy_` on CuPy arrays: permutes whose
destination is compact over the modes after the source's contiguous one (the strided
set's 36 and 00 kinds, scaled), the source at an element offset, the destination's buffer
poisoned and compared with NumPy byte for byte (nothing around the view written); each
copy twice (the second through the cached launcher); and at each grain the tile pass takes."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

CASES = [
    # (source base shape, permutation, source offset, destination offset)
    ((19, 5, 7, 12, 3, 181), (5, 3, 1, 4, 2, 0), 0, 0),  # 36's kind: D of 19
    ((19, 5, 7, 12, 3, 181), (5, 3, 1, 4, 2, 0), 7, 3),
    ((275, 23, 3, 4, 186), (4, 1, 2, 3, 0), 5, 11),  # 00's kind: a mode in both groups
    ((7, 13, 97, 300), (3, 0, 1, 2), 1, 9),  # W of 300 (runs of 304 bytes), D of 97
    ((3, 5, 7, 600), (3, 1, 0, 2), 2, 2),  # W of 600: the default runs (W in 5 tiles)
]


@pytest.mark.parametrize("base, perm, so, do", CASES)
def test_merged_box_copies_on_the_gpu(base, perm, so, do):
    _check_on_the_gpu(base, perm, so, do)


def _check_on_the_gpu(base, perm, so, do, kernels=None) -> None:
    import cupy as cp
    from helpers.canonical_copies import key_strategy

    from tilec.copy_cpu import _operand
    from tilec.copy_plan import plan_copy
    from tilec.tensor_copy import copy_

    rng = np.random.default_rng(sum(base) + so)
    n = int(np.prod(base))
    flat = rng.integers(-128, 128, size=so + n + 16).astype(np.int8)
    src = flat[so : so + n].reshape(base).transpose(perm)
    dbase = np.full(do + n + 16, 77, np.int8)
    want = dbase.copy()
    want[do : do + n].reshape(src.shape)[...] = src
    plan = plan_copy(_operand(dbase[do : do + n].reshape(src.shape), None), _operand(src, None))
    assert key_strategy(plan.key) == "box<tiles>"
    src_dev = cp.asarray(flat)[so : so + n].reshape(base).transpose(perm)
    for call in range(2):
        dst_dev = cp.asarray(dbase)
        copy_(dst_dev[do : do + n].reshape(src.shape), src_dev, kernels=kernels)
        cp.cuda.Device().synchronize()
        assert np.array_equal(cp.asnumpy(dst_dev), want), f"{base} {perm}, call {call + 1}"


@pytest.mark.parametrize("grain", [16, 32, 64])
@pytest.mark.parametrize("base, perm, so, do", [CASES[1], CASES[2]])
def test_merged_box_grains_on_the_gpu(routes, grain, base, perm, so, do):
    """Every grain the tile pass takes (`tiles_grain`, forced): 64-byte grains read the
    run tables furthest past the tile's runs (`_box_tile.tiles_merged_table`; session
    40's tables were read past their end: CUDA_ERROR_ILLEGAL_ADDRESS on the H200)."""
    from tilec.copy_kernels import CopyKernels

    routes(tiles_grain=grain)
    _check_on_the_gpu(base, perm, so, do, CopyKernels(disk=False))  # not copy_'s cache: the grain's kernel


@pytest.mark.parametrize("slot32", [1, 2, 3], ids=["s32", "s32turn", "s32rule"])
@pytest.mark.parametrize("grain", [16, 32])
@pytest.mark.parametrize("base, perm, so, do", CASES)
def test_merged_box_slot32_on_the_gpu(routes, slot32, grain, base, perm, so, do):
    """`box_slot32=1` (`_box_tile.tiles_launch`'s `slot32`): runs at their source residues
    mod 32 in slots of whole 32 bytes (`tiles_slot32_pitch`), at both grains; 2: phase 2's
    rows turned by bank group too (`tiles_slot32_turn`); 3: turned where the innermost merged
    mode is long (`TILES_SLOT32_TURN_RUNS`)."""
    from tilec.copy_kernels import CopyKernels

    routes(box_slot32=slot32, tiles_grain=grain)
    _check_on_the_gpu(base, perm, so, do, CopyKernels(disk=False))


@pytest.mark.parametrize("depth", [2, 4])
@pytest.mark.parametrize("base, perm, so, do", CASES)
def test_merged_box_full_tiles_a_block_on_the_gpu(depth, base, perm, so, do):
    """Several tiles a block through two full-size boxes at 1024 threads (`tile{threads=1024
    tiles_depth=N tiles_fill=5}`: the next tile's tables and copies in flight during this
    tile's phase 2, each tile the filled one, `tiles_fill` bit 4)."""
    from tilec.compiler.pipeline import expand_pipeline
    from tilec.copy_kernels import CopyKernels

    tile = f"tile{{threads=1024 tiles_depth={depth} tiles_fill=5}}"
    pipeline = ",".join(tile if p == "tile" else p for p in expand_pipeline("default").split(","))
    _check_on_the_gpu(base, perm, so, do, CopyKernels(disk=False, pipeline=pipeline))


@pytest.mark.parametrize("sd, dd, base, perm, so, do", [
    ("float32", "int64", (17, 56, 1411), (2, 1, 0), 0, 0),  # 41's kind (pc49's rule), W of 1411
    ("float32", "int64", (17, 56, 1411), (2, 1, 0), 3, 5),
    ("float16", "float32", (19, 5, 301), (2, 1, 0), 1, 2),
])
def test_merged_box_widening_copies_on_the_gpu(sd, dd, base, perm, so, do):
    """pc49's rule (`_copy_cost.TILES_MERGE_CONVERT_BYTES`): a copy widening its elements
    into a destination compact over the modes after W through the merged box, converted
    element by element (integral values, so every conversion exact), the destination's
    buffer poisoned and compared whole, twice."""
    import cupy as cp
    from helpers.canonical_copies import key_strategy

    from tilec.copy_cpu import _operand
    from tilec.copy_plan import plan_copy
    from tilec.tensor_copy import copy_

    rng = np.random.default_rng(sum(base) + so)
    n = int(np.prod(base))
    flat = rng.integers(-1000, 1000, size=so + n + 16).astype(sd)
    src = flat[so : so + n].reshape(base).transpose(perm)
    dbase = np.full(do + n + 16, 77, dd)
    want = dbase.copy()
    want[do : do + n].reshape(src.shape)[...] = src
    plan = plan_copy(_operand(dbase[do : do + n].reshape(src.shape), None), _operand(src, None))
    assert key_strategy(plan.key) == "box<tiles>"
    src_dev = cp.asarray(flat)[so : so + n].reshape(base).transpose(perm)
    for call in range(2):
        dst_dev = cp.asarray(dbase)
        copy_(dst_dev[do : do + n].reshape(src.shape), src_dev)
        cp.cuda.Device().synchronize()
        assert np.array_equal(cp.asnumpy(dst_dev), want), f"{sd}->{dd} {base} {perm}, call {call + 1}"
