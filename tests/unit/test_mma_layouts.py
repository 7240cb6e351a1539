"""Tensor-core layouts (dialects/mma.py, dialects/mma_layouts.py).

Two independent sources of truth:

* the PTX ISA's fragment figures for ``mma.m16n8k16`` (f16/bf16), ``mma.m16n8k8``
  (tf32) and ``mma.m16n8k32`` (s8): which lane and which register hold each element
  of A, B and C/D, written here from the ISA's formulas (groupID = lane >> 2,
  threadID_in_group = lane % 4) and compared element for element;
* Triton's ``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp``: its
  MMAv2/MMAv3/DotOperand/Slice/NVMMA-shared cases, re-expressed as bases (the
  cases with several CTAs are left out: tilec layouts have one block).
"""

from __future__ import annotations

import pytest

from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import LinearLayout
from tilec.dialects.distributed import SliceLayout
from tilec.dialects.mma import DotOperandLayout, NvidiaMmaLayout, NvmmaSharedLayout


def LL(register, lane, warp, shape):
    return LinearLayout({"register": register, "lane": lane, "warp": warp, "block": []}, shape)


def mma2(warps, instr=(16, 8)):
    return NvidiaMmaLayout(2, warps, instr)


def mma3(instr, warps):
    return NvidiaMmaLayout(3, warps, instr)


ONE_WARP = mma2([1, 1])


# ============================================================ PTX ISA fragments
def gid(lane):
    return lane >> 2


def tig(lane):
    return lane % 4


def ptx_a_f16(lane, i):
    """mma.m16n8k16 .f16/.bf16 A: a0..a7."""
    row = gid(lane) if (i < 2 or 4 <= i < 6) else gid(lane) + 8
    col = tig(lane) * 2 + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def ptx_b_f16(lane, i):
    """mma.m16n8k16 .f16/.bf16 B: b0..b3."""
    row = tig(lane) * 2 + (i & 1) + (8 if i >= 2 else 0)
    return row, gid(lane)


def ptx_c(lane, i):
    """mma.m16n8k* C/D (.f32 and .s32): c0..c3."""
    row = gid(lane) + (8 if i >= 2 else 0)
    return row, tig(lane) * 2 + (i & 1)


def ptx_a_tf32(lane, i):
    """mma.m16n8k8 .tf32 A: a0..a3."""
    row = gid(lane) + (8 if i in (1, 3) else 0)
    col = tig(lane) + (4 if i >= 2 else 0)
    return row, col


def ptx_b_tf32(lane, i):
    """mma.m16n8k8 .tf32 B: b0, b1."""
    return tig(lane) + 4 * i, gid(lane)


def ptx_a_s8(lane, i):
    """mma.m16n8k32 .s8 A: a0..a15."""
    row = gid(lane) + (8 if (4 <= i < 8 or i >= 12) else 0)
    col = tig(lane) * 4 + (i & 3) + (16 if i >= 8 else 0)
    return row, col


def ptx_b_s8(lane, i):
    """mma.m16n8k32 .s8 B: b0..b7."""
    return tig(lane) * 4 + (i & 3) + (16 if i >= 4 else 0), gid(lane)


def check_fragment(layout, shape, nregs, formula):
    ll = layout.to_linear(shape)
    assert ll.num_registers == nregs and ll.num_lanes == 32 and ll.num_warps == 1
    seen = set()
    for lane in range(32):
        for i in range(nregs):
            got = ll.apply(register=i, lane=lane, warp=0, block=0)
            assert got == formula(lane, i), (lane, i)
            seen.add(got)
    assert len(seen) == shape[0] * shape[1]  # every element held exactly once


@pytest.mark.parametrize(
    "name, layout, shape, nregs, formula",
    [
        ("m16n8k16 A f16/bf16", DotOperandLayout(0, ONE_WARP, 2), [16, 16], 8, ptx_a_f16),
        ("m16n8k16 B f16/bf16", DotOperandLayout(1, ONE_WARP, 2), [16, 8], 4, ptx_b_f16),
        ("m16n8k16 C/D f32", ONE_WARP, [16, 8], 4, ptx_c),
        ("m16n8k8 A tf32", DotOperandLayout(0, ONE_WARP, 1), [16, 8], 4, ptx_a_tf32),
        ("m16n8k8 B tf32", DotOperandLayout(1, ONE_WARP, 1), [8, 8], 2, ptx_b_tf32),
        ("m16n8k32 A s8", DotOperandLayout(0, ONE_WARP, 4), [16, 32], 16, ptx_a_s8),
        ("m16n8k32 B s8", DotOperandLayout(1, ONE_WARP, 4), [32, 8], 8, ptx_b_s8),
    ],
)
def test_ptx_fragment_figures(name, layout, shape, nregs, formula):
    check_fragment(layout, shape, nregs, formula)


def test_ptx_figure_79_spot_values():
    # Figure 79 (A, m16n8k16 f16): T0 holds a0,a1 = (0,0),(0,1); T5 holds a2 = (9,2);
    # T31 holds a7 = (15,15).
    ll = DotOperandLayout(0, ONE_WARP, 2).to_linear([16, 16])
    assert ll.apply(register=0, lane=0, warp=0) == (0, 0)
    assert ll.apply(register=1, lane=0, warp=0) == (0, 1)
    assert ll.apply(register=2, lane=5, warp=0) == (9, 2)
    assert ll.apply(register=7, lane=31, warp=0) == (15, 15)


def test_wgmma_accumulator_warpgroup_rows():
    # wgmma m64nNk16: warp w of a warpgroup owns rows 16w..16w+15, each warp with the
    # m16n8 fragment pattern repeated across N.
    for m in (16, 64):
        ll = mma3([m, 32, 16], [4, 1]).to_linear([64, 32])
        for w in range(4):
            for lane in range(32):
                for i in range(16):
                    r, c = ll.apply(register=i, lane=lane, warp=w)
                    assert r == 16 * w + gid(lane) + (8 if i & 2 else 0)
                    assert c == 8 * (i >> 2) + tig(lane) * 2 + (i & 1)


# ============================================= Triton LinearLayoutConversionsTest
def test_triton_mmav2_16x16():
    assert mma2([1, 1]).to_linear([16, 16]) == LL(
        [[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [], [16, 16]
    )


def test_triton_mmav2_32x32():
    assert mma2([1, 1]).to_linear([32, 32]) == LL(
        [[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
        [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [], [32, 32],
    )


def test_triton_mmav2_extend_dim2():
    assert mma2([1, 1]).to_linear([16, 128]) == LL(
        [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]],
        [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [], [16, 128],
    )


@pytest.mark.parametrize("instr", [[16, 16, 8], [16, 8, 8]])
def test_triton_mmav3_64x16(instr):
    assert mma3(instr, [4, 1]).to_linear([64, 16]) == LL(
        [[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
        [[16, 0], [32, 0]], [64, 16],
    )


def test_triton_mmav3_128x16():
    assert mma3([16, 16, 8], [4, 1]).to_linear([128, 16]) == LL(
        [[0, 1], [8, 0], [0, 8], [64, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
        [[16, 0], [32, 0]], [128, 16],
    )


def test_triton_mmav3_1024x1024():
    regs = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [0, 512],
            [64, 0], [128, 0], [256, 0], [512, 0]]
    assert mma3([16, 16, 8], [4, 1]).to_linear([1024, 1024]) == LL(
        regs, [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]], [1024, 1024]
    )


LANES = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]


@pytest.mark.parametrize(
    "shape, regs, warps",
    [
        ([64, 32], [[0, 1], [8, 0], [0, 8], [0, 16]], [[16, 0], [32, 0], [0, 0]]),
        ([64, 64], [[0, 1], [8, 0], [0, 8], [0, 16]], [[16, 0], [32, 0], [0, 32]]),
        ([128, 64], [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]], [[16, 0], [32, 0], [0, 32]]),
        ([256, 64], [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0], [128, 0]], [[16, 0], [32, 0], [0, 32]]),
    ],
)
def test_triton_mmav3_4x2_warps(shape, regs, warps):
    assert mma3([16, 32, 16], [4, 2]).to_linear(shape) == LL(regs, LANES, warps, shape)


@pytest.mark.parametrize(
    "shape, regs, warps",
    [
        ([16, 16], [[0, 1], [8, 0], [0, 8]], [[0, 0], [0, 0], [0, 0], [0, 0]]),
        ([32, 16], [[0, 1], [8, 0], [0, 8]], [[16, 0], [0, 0], [0, 0], [0, 0]]),
        ([64, 16], [[0, 1], [8, 0], [0, 8]], [[16, 0], [32, 0], [0, 0], [0, 0]]),
        ([128, 16], [[0, 1], [8, 0], [0, 8], [64, 0]], [[16, 0], [32, 0], [0, 0], [0, 0]]),
        ([32, 32], [[0, 1], [8, 0], [0, 8]], [[16, 0], [0, 0], [0, 16], [0, 0]]),
        ([64, 32], [[0, 1], [8, 0], [0, 8]], [[16, 0], [32, 0], [0, 16], [0, 0]]),
    ],
)
def test_triton_mmav3_4x4_warps(shape, regs, warps):
    assert mma3([16, 16, 8], [4, 4]).to_linear(shape) == LL(regs, LANES, warps, shape)


def test_triton_dot_mmav2_tile_kwidth8():
    parent = mma2([1, 1])
    assert DotOperandLayout(0, parent, 8).to_linear([16, 64]) == LL(
        [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]],
        [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], [], [16, 64],
    )
    assert DotOperandLayout(1, parent, 8).to_linear([64, 8]) == LL(
        [[1, 0], [2, 0], [4, 0], [32, 0]],
        [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], [], [64, 8],
    )


def test_triton_dot_mmav2_large_warp4_kwidth8():
    parent = mma2([4, 1])
    assert DotOperandLayout(0, parent, 8).to_linear([128, 128]) == LL(
        [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [64, 0]],
        [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], [[16, 0], [32, 0]], [128, 128],
    )
    assert DotOperandLayout(1, parent, 8).to_linear([128, 64]) == LL(
        [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]],
        [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], [[0, 0], [0, 0]], [128, 64],
    )
    assert DotOperandLayout(1, parent, 8).to_linear([64, 128]) == LL(
        [[1, 0], [2, 0], [4, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]],
        [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]], [[0, 0], [0, 0]], [64, 128],
    )


def test_triton_dot_mmav2_3d():
    parent = mma2([2, 4, 2], [1, 16, 8])
    assert DotOperandLayout(0, parent, 8).to_linear([16, 128, 128]) == LL(
        [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 8, 0], [0, 0, 32], [0, 0, 64], [0, 64, 0],
         [2, 0, 0], [4, 0, 0], [8, 0, 0]],
        [[0, 0, 8], [0, 0, 16], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
        [[0, 0, 0], [0, 16, 0], [0, 32, 0], [1, 0, 0]], [16, 128, 128],
    )
    assert DotOperandLayout(1, parent, 8).to_linear([8, 128, 64]) == LL(
        [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 32, 0], [0, 64, 0], [0, 0, 16], [0, 0, 32],
         [2, 0, 0], [4, 0, 0]],
        [[0, 8, 0], [0, 16, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]],
        [[0, 0, 8], [0, 0, 0], [0, 0, 0], [1, 0, 0]], [8, 128, 64],
    )


def test_triton_dot_mmav3_warp4_kwidth2():
    dot = DotOperandLayout(0, mma3([16, 16, 8], [4, 1]), 2)
    warps = [[16, 0], [32, 0]]
    assert dot.to_linear([64, 16]) == LL([[0, 1], [8, 0], [0, 8]], LANES, warps, [64, 16])
    assert dot.to_linear([128, 16]) == LL([[0, 1], [8, 0], [0, 8], [64, 0]], LANES, warps, [128, 16])
    assert dot.to_linear([128, 32]) == LL(
        [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]], LANES, warps, [128, 32]
    )


def test_triton_dot_mmav2_split_warp_kwidth8():
    parent = mma2([2, 2])
    lanes_a = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
    lanes_b = [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]]
    assert DotOperandLayout(0, parent, 8).to_linear([32, 64]) == LL(
        [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], lanes_a, [[0, 0], [16, 0]], [32, 64]
    )
    assert DotOperandLayout(1, parent, 8).to_linear([64, 16]) == LL(
        [[1, 0], [2, 0], [4, 0], [32, 0]], lanes_b, [[0, 8], [0, 0]], [64, 16]
    )
    assert DotOperandLayout(0, parent, 8).to_linear([64, 128]) == LL(
        [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [32, 0]], lanes_a,
        [[0, 0], [16, 0]], [64, 128],
    )
    assert DotOperandLayout(1, parent, 8).to_linear([128, 32]) == LL(
        [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 16]], lanes_b, [[0, 8], [0, 0]], [128, 32]
    )


def test_triton_slice_of_dot():
    v2 = SliceLayout(1, DotOperandLayout(0, mma2([1, 1]), 8))
    assert v2.to_linear([16]) == LL([[8]], [[0], [0], [1], [2], [4]], [], [16])
    v3 = SliceLayout(0, DotOperandLayout(0, mma3([16, 16, 8], [4, 1]), 2))
    assert v3.to_linear([16]) == LL([[1], [8]], [[2], [4], [0], [0], [0]], [[0], [0]], [16])


def test_triton_slice_of_mmav2():
    parent = mma2([2, 2])
    assert SliceLayout(0, parent).to_linear([16]) == LL([[1]], [[2], [4], [0], [0], [0]], [[8], [0]], [16])
    assert SliceLayout(0, parent).to_linear([128]) == LL(
        [[1], [16], [32], [64]], [[2], [4], [0], [0], [0]], [[8], [0]], [128]
    )
    # Triton pads this one with a zero register (a legacy element count); tilec keeps
    # only the distinct registers, so the layout has none.
    assert SliceLayout(1, parent).to_linear([8]) == LL([], [[0], [0], [1], [2], [4]], [[0], [0]], [8])
    assert SliceLayout(1, parent).to_linear([128]) == LL(
        [[8], [32], [64]], [[0], [0], [1], [2], [4]], [[0], [16]], [128]
    )


def offsets(bases, shape):
    return LinearLayout({"offset": bases, "block": []}, shape)


def test_triton_leading_offset_8x16_4_2():
    assert NvmmaSharedLayout(32, 16).to_linear([8, 16]) == offsets(
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]], [8, 16]
    )


def test_triton_leading_offset_128x16_4_2():
    assert NvmmaSharedLayout(32, 16).to_linear([128, 16]) == offsets(
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8], [8, 0], [16, 0], [32, 0], [64, 0]],
        [128, 16],
    )


def test_triton_leading_offset_8x32_2_4():
    assert NvmmaSharedLayout(64, 16).to_linear([8, 32]) == offsets(
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]], [8, 32]
    )


def test_triton_leading_offset_8x64_1_8():
    assert NvmmaSharedLayout(128, 16).to_linear([8, 64]) == offsets(
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]], [8, 64]
    )


def test_triton_leading_offset_8x64_1_8_32b():
    assert NvmmaSharedLayout(128, 32).to_linear([8, 64]) == offsets(
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [0, 32]], [8, 64]
    )


# ====================================================== NVMMA shared: CuTe form
@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
@pytest.mark.parametrize("bits", [8, 16, 32])
@pytest.mark.parametrize("transposed", [False, True])
def test_nvmma_composed_matches_linear(swizzle, bits, transposed):
    nv = NvmmaSharedLayout(swizzle, bits, transposed)
    cols = max(8 * swizzle // bits, 8) * 2
    shape = [cols, 16] if transposed else [16, cols]
    ll, comp = nv.to_linear(shape), nv.composed(shape)
    seen = set()
    for off in range(shape[0] * shape[1]):
        coord = ll.apply(offset=off)
        assert comp(coord) == off, (off, coord)
        seen.add(coord)
    assert len(seen) == shape[0] * shape[1]


def test_nvmma_128b_bf16_is_swizzle_333():
    c = NvmmaSharedLayout(128, 16).composed([64, 64])
    assert (c.swizzle.bits, c.swizzle.base, c.swizzle.shift) == (3, 3, 3)
    assert str(c.layout) == "(64,64):(64,1)"


def test_nvmma_shape_too_small():
    with pytest.raises(LayoutError, match=r"needs a shape of at least \[8, 64\]"):
        NvmmaSharedLayout(128, 16).to_linear([8, 32])


# ============================================================ parameter errors
@pytest.mark.parametrize(
    "args, message",
    [
        ((1, [1, 1], [16, 8]), "version must be 2"),
        ((2, [1, 1], [16, 16]), r"needs instrShape = \[16, 8\]"),
        ((2, [3, 1], [16, 8]), "powers of two"),
        ((2, [64, 1], [16, 8]), "more than 32"),
        ((3, [4, 1], [32, 64, 16]), "M must be 16"),
        ((3, [4, 1], [64, 64, 12]), "K must be 8, 16 or 32"),
        ((3, [2, 1], [16, 64, 16]), "whole warpgroups"),
        ((3, [2, 2], [64, 64, 16]), "multiple of 4 warps along M"),
        ((3, [4, 1], [16, 24, 16]), "power of two"),
    ],
)
def test_mma_parameter_errors(args, message):
    with pytest.raises(LayoutError, match=message):
        NvidiaMmaLayout(*args)


def test_dot_operand_errors():
    with pytest.raises(LayoutError, match="opIdx must be 0"):
        DotOperandLayout(2, ONE_WARP, 2)
    with pytest.raises(LayoutError, match="kWidth must be a power of two"):
        DotOperandLayout(0, ONE_WARP, 3)
    with pytest.raises(LayoutError, match="shared memory"):
        DotOperandLayout(1, mma3([16, 64, 16], [4, 1]), 2)


# ============================================================ attributes
def test_attributes_go_through_the_distributed_interface():
    from tilec.dialects.layout_attrs import (
        DistributedLayoutAttr, SliceLayoutAttr, distributed_rank, threads_per_block, to_linear,
    )
    from tilec.dialects.mma_layouts import DotOperandLayoutAttr, NvidiaMmaLayoutAttr
    from xdsl.dialects.builtin import IntAttr

    acc = NvidiaMmaLayoutAttr(mma2([2, 2]))
    a = DotOperandLayoutAttr(DotOperandLayout(0, mma2([2, 2]), 2))
    s = SliceLayoutAttr(IntAttr(0), acc)
    for attr in (acc, a, s):
        assert isinstance(attr, DistributedLayoutAttr)
        assert threads_per_block(attr) == 128
    assert distributed_rank(acc) == 2 and distributed_rank(s) == 1
    assert to_linear(acc, [32, 16]) == mma2([2, 2]).to_linear([32, 16])
    assert to_linear(a, [32, 16]) == DotOperandLayout(0, mma2([2, 2]), 2).to_linear([32, 16])
    assert to_linear(s, [16]) == SliceLayout(0, mma2([2, 2])).to_linear([16])
    assert a.parent == acc


# ============================================================ properties
from collections import Counter  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from helpers.budget import examples  # noqa: E402

_POW2 = st.sampled_from([1, 2, 4])


@st.composite
def mma_cases(draw):
    version = draw(st.sampled_from([2, 3]))
    if version == 2:
        warps = (draw(_POW2), draw(_POW2))
        acc = NvidiaMmaLayout(2, warps, (16, 8))
        tile = (16 * warps[0], 8 * warps[1])
    else:
        warps = (draw(st.sampled_from([4, 8])), draw(st.sampled_from([1, 2])))
        n = draw(st.sampled_from([8, 16, 32, 64]))
        acc = NvidiaMmaLayout(3, warps, (draw(st.sampled_from([16, 64])), n, 16))
        tile = (16 * warps[0], n * warps[1])
    reps = (draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([1, 2])))
    return acc, [tile[0] * reps[0], tile[1] * reps[1]]


@settings(max_examples=examples(40), deadline=None)
@given(mma_cases())
def test_accumulator_owns_each_element_once(case):
    """A tensor at least the CTA tile: every element has exactly one owner, and a
    thread's registers come in the PTX pairs (c0, c1) of adjacent columns."""
    acc, shape = case
    ll = acc.to_linear(shape)
    owners = Counter(ll.apply(register=r, lane=l, warp=w)
                     for r in range(ll.num_registers) for l in range(32) for w in range(ll.num_warps))
    assert len(owners) == shape[0] * shape[1] and set(owners.values()) == {1}
    for r in range(0, ll.num_registers, 2):
        r0, c0 = ll.apply(register=r, lane=5, warp=0)
        assert ll.apply(register=r + 1, lane=5, warp=0) == (r0, c0 + 1)


@settings(max_examples=examples(40), deadline=None)
@given(mma_cases(), st.sampled_from([1, 2, 4, 8]))
def test_operand_a_is_shared_by_the_warps_along_n(case, k_width):
    """Operand A of an M x K tensor: every element is held by one lane of each warp
    of its row of warps (the warps along N get the same A: broadcast along K)."""
    acc, shape = case
    m, k = shape[0], 8 * k_width * 2
    ll = DotOperandLayout(0, acc, k_width).to_linear([m, k])
    warps_n = acc.warps_per_cta[1]
    owners = Counter(ll.apply(register=r, lane=l, warp=w)
                     for r in range(ll.num_registers) for l in range(32) for w in range(ll.num_warps))
    assert len(owners) == m * k and set(owners.values()) == {warps_n}


@settings(max_examples=examples(30), deadline=None)
@given(mma_cases())
def test_an_equal_linear_layout_converts_for_free(case):
    """The accumulator written as a #layout.linear is the same layout: conversion kind
    identity, as convert_layout and remove-layout-conversions see it."""
    from tilec.dialects.linear import conversion_kind

    acc, shape = case
    ll = acc.to_linear(shape)
    as_linear = LinearLayout(ll.bases, list(shape))
    assert conversion_kind(ll, as_linear) == "identity"


@pytest.mark.parametrize("warps_m", [1, 2, 4])
@pytest.mark.parametrize("m", [64, 128])
def test_accumulator_is_operand_a_of_the_next_mma(warps_m, m):
    """With warps only along M, the m16n8k16 accumulator of an M x 16 tile *is* the
    kWidth-2 A operand layout (c0..c3 of two adjacent n-tiles are a0..a7): the C -> A
    conversion of chained matmuls (attention) moves nothing. Warps along N break it."""
    from tilec.dialects.linear import conversion_kind

    acc = NvidiaMmaLayout(2, (warps_m, 1), (16, 8))
    assert conversion_kind(acc.to_linear([m, 16]), DotOperandLayout(0, acc, 2).to_linear([m, 16])) == "identity"
    split = NvidiaMmaLayout(2, (warps_m, 2), (16, 8))
    assert conversion_kind(split.to_linear([m, 16]), DotOperandLayout(0, split, 2).to_linear([m, 16])) != "identity"



@pytest.mark.parametrize(
    "kind, operand, count, formula",
    [
        ("bf16", "a", 8, ptx_a_f16), ("f16", "b", 4, ptx_b_f16), ("bf16", "c", 4, ptx_c),
        ("f32", "a", 4, ptx_a_tf32), ("f32", "b", 2, ptx_b_tf32), ("f32", "c", 4, ptx_c),
        ("i8", "a", 16, ptx_a_s8), ("i8", "b", 8, ptx_b_s8), ("i8", "c", 4, ptx_c),
    ],
)
def test_cuda_mma_sync_fragments_are_the_ptx_figures(kind, operand, count, formula):
    """`cuda.mma_sync_fragment` (which the executor gathers and the lowering reads at
    lane 0) against this file's own transcription of the ISA, lane by lane."""
    from tilec.dialects.cuda import mma_sync_fragment

    for lane in range(32):
        for i in range(count):
            assert mma_sync_fragment(kind, operand, lane, i) == formula(lane, i), (lane, i)


def test_nvmma_shared_view_is_its_composed_layout():
    """As a view's layout, #layout.nvmma_shared becomes the #layout.composed it equals
    (what passes and the executor read), and prints back in its own syntax."""
    from tilec.compiler.pipeline import parse_module
    from tilec.dialects.layout_attrs import ComposedLayoutAttr, TensorViewType
    from tilec.dialects.mma_layouts import NvmmaSharedLayoutAttr

    text = "!layout.tensor<bf16, #layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = true, shape = [64, 16]>, smem>"
    m = parse_module(f"func.func private @f(%s: {text})")
    fn = next(op for op in m.walk() if op.name == "func.func")
    view = fn.function_type.inputs.data[0]
    assert isinstance(view, TensorViewType) and isinstance(view.layout, ComposedLayoutAttr)
    nv = NvmmaSharedLayout(64, 16, True)
    assert view.layout.data == nv.composed([64, 16])
    assert text in str(m)
    attr = NvmmaSharedLayoutAttr.get(nv, [64, 16])
    assert attr.offset_layout() == nv.to_linear([64, 16])
    assert attr.view_layout() == view.layout
