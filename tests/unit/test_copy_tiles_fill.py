"""`tile{tiles_fill=F}` (passes/_box_tile.TILES_FILL): a `box<tiles>` copy with lanes along
a destination row takes the tile along `D` whose phase-2 trips are fullest
(`tiles_filled_dt`, bit 1) and, where its rows are `W` whole, the threads whose row groups
fill the rows' trips best (`tiles_filled_threads`, bit 2). The rule's numbers on the strided set's merged, short-W and odd
kinds; then copies whose tile the rule shrinks, through `tilec.copy_`'s compiled kernel
on the CPU reference executor against NumPy, bit for bit, every byte around dst
poisoned (a merged destination mode, a short W converting f16 -> bf16, an int8
transpose), each checked to be a kernel other than the one without the option."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes._box_tile import tiles_filled_dt, tiles_filled_threads
from tilec.passes._copy_cost import tiles_shape


@pytest.mark.parametrize("e, ed, run, grain, lanes, dt, want", [
    (1, 1, 192, 32, 8, 384, 352),  # 36 (merged, W whole): 26 chunks a row -> 24, 3 trips of 8 lanes
    (2, 2, 96, 16, 16, 576, 504),  # 29 (f16 -> bf16, W of 42 whole): 73 chunks -> 64, 4 trips of 16
    (1, 1, 128, 16, 8, 592, 496),  # int8 odd transposes: 38 chunks -> 32
    (2, 2, 256, 32, 16, 224, 224),  # f16 odd transposes: 30 chunks of 32 slots, none 2% fuller
])
def test_the_fullest_tile_along_d(e, ed, run, grain, lanes, dt, want):
    """The box's largest `Dt` (86 KiB for 1-byte elements, 64 KiB for 2-byte) and the one
    the rule takes."""
    smem = 86 * 1024 if e == 1 else 64 * 1024
    assert tiles_shape(e, smem, run, grain, ed)[1] == dt
    vd = 16 // ed
    assert tiles_filled_dt(dt, vd, max(16 // e, vd), grain // ed, lanes) == want


@pytest.mark.parametrize("rows, lanes, grain_e, want", [
    (42, 16, 8, 384),  # 29: 42 rows in groups of 32 (2 trips, 66%) -> 24 (2 trips, 88%)
    (181, 8, 32, 512),  # 36: 64 groups, 3 trips (94%); 48 and 32 no fuller
    (186, 8, 32, 512),  # 00
    (150, 8, 32, 256),  # 64 groups, 3 trips (78%) -> 32, 5 trips (94%)
    (128, 8, 16, 512),  # an int8 transpose's rows: whole trips
])
def test_the_threads_whose_row_groups_fill_the_rows(rows, lanes, grain_e, want):
    assert tiles_filled_threads(rows, lanes, grain_e, 512) == want


def _cases(rng):
    """(name, src, dst dtype name or None, box bytes): views whose tile `tiles_fill`
    shrinks in a box of that size (the D range past one tile)."""
    out = []
    # 36's kind, a merged D' of 9 x 5 x 7 = 315 steps, W = 150 whole (runs of 160 bytes,
    # slots of 176): 271 slots, Dt 240 (17 chunks of 32-byte grains: 3 trips of 8) -> 224
    base = rng.integers(-100, 100, size=(9, 5, 7, 150)).astype(np.int8)
    out.append(("merged int8", base.transpose(3, 1, 0, 2), None, 271 * 176))
    # 29's kind, f16 -> bf16 (uint16 bits), W = 42 whole (slots of 112 bytes), D = 2 x 75:
    # 135 slots, Dt 128 (17 chunks: 2 trips of 16) -> 120
    base = (rng.standard_normal((2, 75, 3, 2, 42)) * 30).astype(np.float16)
    out.append(("short W f16 -> bf16", base.transpose(4, 2, 3, 0, 1), "bfloat16", 135 * 112))
    # an int8 transpose (runs of 128, slots of 144): 143 slots, Dt 128 (9 chunks) -> 112
    base = rng.integers(-100, 100, size=(200, 140)).astype(np.int8)
    out.append(("int8 transpose", base.transpose(1, 0), None, 143 * 144))
    return out


@pytest.mark.parametrize("i", range(3))
def test_filled_tiles_copy_exactly(routes, i, nvrtc_available, monkeypatch):
    """Every destination element written once, exactly, nothing around it, with the
    tile the rule shrinks (a kernel other than the box's largest tile's; one tile a
    block, the rule's where the merged box takes several)."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.passes import tile as tile_pass

    monkeypatch.setattr(tile_pass, "TILES_MERGE_DEPTH", 1)
    name, src, dst_dtype, smem = _cases(np.random.default_rng(3))[i]
    dtype = np.uint16 if dst_dtype == "bfloat16" else src.dtype
    base = np.full(src.size + 40, 77, dtype)

    def view(b):
        return b[5 : 5 + src.size].reshape(src.shape)

    key = plan_copy(_operand(view(base), dst_dtype), _operand(src, None)).key
    routes(box_smem=smem, tiles_fill=0, tiles_mirror=0)  # the short W's own box (not W' over its next mode)
    assert key_strategy(key) == "box<tiles>", name
    plain = CopyKernels(arch="sm_90", disk=False).get(key).kernel.source
    routes(box_smem=smem, tiles_fill=3, tiles_mirror=0)
    kernels = CopyKernels(arch="sm_90", disk=False)
    assert kernels.get(key).kernel.source != plain, name
    want = base.copy()
    if dst_dtype == "bfloat16":  # f16 -> f32 -> bf16, round to nearest even (exact: f16 fits bf16's range)
        bits = src.astype(np.float32).view(np.uint32).astype(np.uint64)
        view(want)[...] = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    else:
        view(want)[...] = src
    copy_numpy(view(base), src, dst_dtype=dst_dtype, kernels=kernels, compiled=True)
    assert np.array_equal(base, want), name


@pytest.mark.parametrize("fill", [1, 5])
@pytest.mark.parametrize("depth", [2, 3])
def test_merged_box_of_several_tiles_a_block_copies_exactly(depth, fill, nvrtc_available):
    """`tile{tiles_depth=N}` on a merged box (`_box_tile.tiles_launch`: two boxes, each with
    its run tables, the next tile's tables and copies in flight during this tile's phase
    2): 36's kind with D' = 315 in tiles of 48 steps (a 16 KiB box), 7 tiles in blocks of
    N, the last block's short; and 00's kind (a mode in both contiguous groups); with the
    tile filled (`tiles_fill` bit 4) and not; through copy_'s compiled kernel on the
    executor, exact, nothing around dst written."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.compiler.pipeline import expand_pipeline

    smem = 16384
    pipe = ",".join({"copy-strategy": f"copy-strategy{{box_smem={smem}}}",
                     "tile": f"tile{{box_smem={smem} tiles_depth={depth} tiles_fill={fill}}}"}.get(p, p)
                    for p in expand_pipeline("default").split(","))
    rng = np.random.default_rng(depth)
    srcs = [rng.integers(-100, 100, size=(9, 5, 7, 150)).astype(np.int8).transpose(3, 1, 0, 2),
            rng.integers(0, 250, size=(37, 6, 3, 70)).astype(np.uint8).transpose(3, 1, 2, 0)]
    for src in srcs:
        base = np.full(src.size + 40, 77, src.dtype)

        def view(b):
            return b[7 : 7 + src.size].reshape(src.shape)

        want = base.copy()
        view(want)[...] = src
        kernels = CopyKernels(arch="sm_90", disk=False, pipeline=pipe)
        key = plan_copy(_operand(view(base), None), _operand(src, None)).key
        assert "tilec_copy_kernel" in kernels.get(key).kernel.source
        copy_numpy(view(base), src, kernels=kernels, compiled=True)
        assert np.array_equal(base, want), src.shape
