"""A TMA load padded to its swizzle row (`layout.tma_load {fill}`, `TmaGeometry.fill`): an 8 x 32 f16 tile (64
bytes a row) into the first 32 columns of an 8 x 64 panel of a 128-byte swizzle, whose rows lie 128 bytes apart.
The box is padded by a tensor-map dimension of extent 1 after dimension 0 (box 2: its second half outside the
tensor), so the copy engine writes the panel's other half with zeros, reads nothing for it and counts its bytes
(`gemm_hopper_ws(b_fill=True)`'s chunk left). Built with `tilec.Program` (tests/helpers/tma_programs.py); on the reference executor before and
after the default pipeline (lowered: the 3-d map and its box, the padding's zeros and bytes, as the executor
models the TMA), the tile past N's end (N = 80: its last 16 columns) zeros; the geometry only where asked."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.tma_programs import fill_into_panel

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.cute import parse_layout
from tilec.dialects.mma import NvmmaSharedLayout
from tilec.dialects.swizzle import ComposedLayout
from tilec.dialects.tma import box_offsets, tma_geometry
from tilec.runtime.reference import run

M, N, BN = 8, 80, 32
PANEL = NvmmaSharedLayout(128, 16, False).composed([M, 64])  # 64 columns of f16: one 128-byte swizzle row (8: its repeat)
PART = ComposedLayout(PANEL.swizzle, 0, parse_layout(f"({M},{BN}):(64,1)"))  # its first 32 columns
GLOBAL = parse_layout(f"({M},{N}):({N},1)")


def test_the_padded_box_lands_in_the_panel_before_and_after_the_pipeline():
    """(~2-3 s on 2 shared cores: the default pipeline and both levels' executor on 3 blocks.)"""
    x = np.random.default_rng(0).standard_normal(M * N).astype(np.float16)
    m = fill_into_panel(M, N, BN)
    lowered = m.clone()
    run_pipeline(lowered, "default")
    for module in (m, lowered):
        got = run(module, {"src": x.copy(), "dst": np.zeros_like(x)})["dst"]
        np.testing.assert_array_equal(got, x)
    cuda = emit(lowered, "cuda")
    assert "cp.async.bulk.tensor.3d.shared" in cuda
    assert "box 32x8 (dims [1, 0] of the view), its rows padded x2 to the swizzle row, swizzle 128B, 1024 bytes" in cuda


def test_the_padding_lands_as_zeros_in_the_lowered_kernel():
    """The whole panel stored back (`fill_into_panel(whole=True)`), lowered: each block's first 32 columns its
    tile, the other 32 the padding's zeros (the GPU-level executor's TMA writes them; the layout level leaves
    them unwritten, so only the lowered kernel reads them)."""
    x = np.random.default_rng(1).standard_normal((M, N)).astype(np.float16)
    m = fill_into_panel(M, N, BN, whole=True)
    run_pipeline(m, "default")
    got = run(m, {"src": x.ravel().copy(), "dst": np.full(3 * M * 64, np.nan, np.float16)})["dst"].reshape(3, M, 64)
    want = np.zeros((M, 3 * BN), np.float16)
    want[:, :N] = x
    np.testing.assert_array_equal(got[:, :, :BN], want.reshape(M, 3, BN).transpose(1, 0, 2))
    assert not got[:, :, BN:].any()


def test_without_fill_the_tile_is_refused():
    assert "not the box stored compact" in tma_geometry(GLOBAL, [M, BN], 2, 16, {}, PART)


def test_the_geometry_pads_only_a_box_narrower_than_its_swizzle_row():
    """The panel's first 32 columns: a box of 32 x 8 padded x2 (the map's box 32 x 2 x 8, 1 KiB); its offsets
    are the compact box of 64 columns' first half; the whole panel needs no padding."""
    g = tma_geometry(GLOBAL, [M, BN], 2, 16, {}, PART, fill=True)
    assert (g.order, g.box, g.fill, g.map_box, g.total_bytes) == ((1, 0), (BN, M), 2, (BN, 2, M), 1024)
    whole = box_offsets((64, M), (1, 0), 128, 2)
    np.testing.assert_array_equal(box_offsets((BN, M), (1, 0), 128, 2, fill=2), whole[:, :BN])
    assert tma_geometry(GLOBAL, [M, 64], 2, 16, {}, PANEL, fill=True).fill == 1
