"""A TMA load of a box narrower than its swizzle row (`TmaGeometry.pad`): an 8 x 32 f16 tile (64-byte rows) into
the first 32 columns of an 8 x 64 panel of a 128-byte swizzle, whose rows lie 128 bytes apart, as the copy engine
lands such a box (each row padded to the swizzle row; `gemm_hopper_ws(b_fill=True)`'s chunk left). Built with
`tilec.Program` (tests/helpers/tma_programs.py); on the reference executor before and after the default pipeline
(lowered: a 2-d map of box 32 x 8, the rows landing a swizzle row apart), the tile past N's end (N = 80: its last
16 columns) zeros; the geometry: padded rows only for a box narrower than its row, a compact narrow tile refused."""

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
    assert "cp.async.bulk.tensor.2d.shared" in cuda
    assert "box 32x8 (dims [1, 0] of the view), its rows padded x2 to the swizzle row, swizzle 128B, 512 bytes" in cuda


def test_a_compact_narrow_tile_is_refused():
    """Rows of 64 bytes packed under the 128-byte swizzle: not what the copy engine writes."""
    compact = ComposedLayout(PANEL.swizzle, 0, parse_layout(f"({M},{BN}):({BN},1)"))
    assert "not the box stored compact" in tma_geometry(GLOBAL, [M, BN], 2, 16, {}, compact)


def test_the_geometry_pads_only_a_box_narrower_than_its_swizzle_row():
    """The panel's first 32 columns: a box of 32 x 8 padded x2 (512 bytes copied); its offsets are the whole
    panel's box's first half; the whole panel (64 columns) is not padded."""
    g = tma_geometry(GLOBAL, [M, BN], 2, 16, {}, PART)
    assert (g.order, g.box, g.pad, g.total_bytes) == ((1, 0), (BN, M), 2, 512)
    whole = box_offsets((64, M), (1, 0), 128, 2)
    np.testing.assert_array_equal(box_offsets((BN, M), (1, 0), 128, 2), whole[:, :BN])
    assert tma_geometry(GLOBAL, [M, 64], 2, 16, {}, PANEL).pad == 1
