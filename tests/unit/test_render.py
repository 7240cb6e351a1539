"""Text renderings, compared verbatim with the Gluon layouts tutorial and with CuTe's print_layout."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tilec.dialects.distributed import BlockedLayout, SliceLayout
from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import parse_linear_layout
from tilec.dialects.render import (
    render_cta_tiles,
    render_cute_layout,
    render_distributed,
    render_thread_tile,
    render_thread_value,
    render_warp_threads,
    render_warp_tile,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for helpers
from helpers.gluon_tables import (  # noqa: E402
    BROADCAST_32x8,
    BROADCAST_32x8_AS_PRINTED,
    CTA_TILES_128x128,
    SLICE_COLLAPSED_ROWS,
    SLICE_DIM1,
    THREAD_TILE_COL_MAJOR,
    THREAD_TILE_ROW_MAJOR,
    TUTORIAL_BLOCKED,
    WARP_THREADS,
    WARP_TILE,
)

TUT = BlockedLayout(*TUTORIAL_BLOCKED)  # the Gluon tutorial's layout


def test_thread_tile():
    assert render_thread_tile(TUT) == THREAD_TILE_ROW_MAJOR
    assert render_thread_tile(BlockedLayout([2, 4], [16, 2], [2, 2], [0, 1])) == THREAD_TILE_COL_MAJOR


def test_warp_tile_of_threads():
    assert render_warp_threads(TUT, rows=(2, 2)) == WARP_THREADS


def test_warp_tile_over_elements():
    assert render_warp_tile(TUT, rows=(4, 4)) == WARP_TILE
    # the same table, spelled with render_distributed on the one-warp layout
    one_warp = BlockedLayout([2, 4], [16, 2], [1, 1], [1, 0])
    assert render_distributed(one_warp, [32, 8], rows=(4, 4)) == WARP_TILE
    # and it is the top-left corner of the full 64x16 block
    full = render_distributed(TUT, [64, 16], rows=(4, 0), cols=(8, 0)).splitlines()
    assert ["".join(line.replace(", ...", "").split()) for line in full[:4]] == [
        "".join(line.split()) for line in WARP_TILE.splitlines()[:4]
    ]


def test_block_repetition_over_128x128():
    assert render_cta_tiles(TUT, [128, 128]) == CTA_TILES_128x128


def test_broadcast_over_32x8():
    assert render_distributed(TUT, [32, 8], rows=(2, 2), cols=(1, 1)) == BROADCAST_32x8
    assert BROADCAST_32x8 != BROADCAST_32x8_AS_PRINTED  # the one typo, and only it
    assert BROADCAST_32x8.replace(",", "") == BROADCAST_32x8_AS_PRINTED.replace(",", "")


def test_slice_layout_tables():
    warp = TUT.warp_tile()
    assert render_distributed(warp, [32, 8], rows=(4, 4), collapse=1) == SLICE_COLLAPSED_ROWS
    assert render_distributed(SliceLayout(1, warp), [32], rows=(4, 4)) == SLICE_DIM1


def test_render_without_elision_and_of_linear_layouts():
    # thread = warp * lanes_per_warp + lane, here 4 lanes per warp; warp 1 broadcasts
    text = render_distributed(parse_linear_layout("lane=[[1],[2]], warp=[[0]], shape=[4]"))
    assert text == "[ T0:0|T4:0,\n  T1:0|T5:0,\n  T2:0|T6:0,\n  T3:0|T7:0]"
    # elements nobody holds are drawn "-"
    text = render_distributed(parse_linear_layout("register=[[1]], shape=[4]"))
    assert text == "[ T0:0,\n  T0:1,\n     -,\n     -]"


def test_render_errors():
    with pytest.raises(LayoutError, match="needs a tensor shape"):
        render_distributed(TUT)
    with pytest.raises(LayoutError, match="1D and 2D"):
        render_distributed(BlockedLayout([1, 1, 1], [2, 4, 4], [1, 1, 1], [2, 1, 0]), [2, 4, 4])
    with pytest.raises(LayoutError, match="collapse"):
        render_distributed(TUT, [64, 16], collapse=2)
    with pytest.raises(LayoutError, match="smaller than the CTA block"):
        render_cta_tiles(TUT, [32, 8])


# ---------------------------------------------------------------------------
# CuTe print_layout, captured from cute::print_layout (CUTLASS headers, nvcc).
# CuTe prints static strides as "_1"; the grid below the title is compared verbatim.

CUTE_4x8_COL = """\
(4,8):(_1,4)
       0    1    2    3    4    5    6    7 
    +----+----+----+----+----+----+----+----+
 0  |  0 |  4 |  8 | 12 | 16 | 20 | 24 | 28 |
    +----+----+----+----+----+----+----+----+
 1  |  1 |  5 |  9 | 13 | 17 | 21 | 25 | 29 |
    +----+----+----+----+----+----+----+----+
 2  |  2 |  6 | 10 | 14 | 18 | 22 | 26 | 30 |
    +----+----+----+----+----+----+----+----+
 3  |  3 |  7 | 11 | 15 | 19 | 23 | 27 | 31 |
    +----+----+----+----+----+----+----+----+
"""

CUTE_NESTED = """\
(2,(2,2)):(4,(1,2))
      0   1   2   3 
    +---+---+---+---+
 0  | 0 | 1 | 2 | 3 |
    +---+---+---+---+
 1  | 4 | 5 | 6 | 7 |
    +---+---+---+---+
"""

CUTE_3x5_ROW = """\
(3,5):(5,1)
       0    1    2    3    4 
    +----+----+----+----+----+
 0  |  0 |  1 |  2 |  3 |  4 |
    +----+----+----+----+----+
 1  |  5 |  6 |  7 |  8 |  9 |
    +----+----+----+----+----+
 2  | 10 | 11 | 12 | 13 | 14 |
    +----+----+----+----+----+
"""


class FakeCute:
    """Duck-typed CuTe layout with flat or nested modes."""

    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def __str__(self):
        return f"{_s(self.shape)}:{_s(self.stride)}"

    def __call__(self, *crd):
        return sum(_off(c, s, d) for c, s, d in zip(crd, self.shape, self.stride))


def _s(x):
    return "(" + ",".join(_s(y) for y in x) + ")" if isinstance(x, tuple) else str(x)


def _size(s):
    if isinstance(s, tuple):
        p = 1
        for x in s:
            p *= _size(x)
        return p
    return s


def _off(c, s, d):
    if isinstance(s, tuple):
        total = 0
        for x, dd in zip(s, d):
            total += _off(c % _size(x), x, dd)
            c //= _size(x)
        return total
    return c * d


@pytest.mark.parametrize(
    "layout, expected",
    [
        (FakeCute((4, 8), (1, 4)), CUTE_4x8_COL),
        (FakeCute((2, (2, 2)), (4, (1, 2))), CUTE_NESTED),
        (FakeCute((3, 5), (5, 1)), CUTE_3x5_ROW),
    ],
)
def test_cute_print_layout_verbatim(layout, expected):
    got = render_cute_layout(layout)
    title, _, grid = expected.partition("\n")
    assert got.partition("\n")[0] == str(layout)
    assert got.partition("\n")[2] + "\n" == grid
    assert str(layout) == title.replace("_", "")


def test_cute_print_layout_with_tilec_cute_layout():
    cute = pytest.importorskip("tilec.dialects.cute")
    lay = cute.Layout((4, 8), (1, 4))
    assert render_cute_layout(lay).partition("\n")[2] + "\n" == CUTE_4x8_COL.partition("\n")[2]


def test_cute_print_layout_needs_rank_2():
    with pytest.raises(LayoutError, match="rank-2"):
        render_cute_layout(FakeCute((4, 2, 2), (1, 4, 8)))


# ---------------------------------------------------------------------------
# Thread-value grids

TV_CUTE = """\
((2,2),2):((1,4),2)
         0      1      2      3 
    +------+------+------+------+
 0  | T0V0 | T0V1 | T2V0 | T2V1 |
    +------+------+------+------+
 1  | T1V0 | T1V1 | T3V0 | T3V1 |
    +------+------+------+------+"""


def test_thread_value_grid_of_a_cute_tv_layout():
    # 4 threads x 2 values over a 2x4 tile, column-major tile index m + 2n:
    # thread t = t0 + 2 t1 -> (m, n) = (t0, 2 t1); value v -> n + v.
    tv = FakeCute(((2, 2), 2), ((1, 4), 2))
    assert render_thread_value(tv, (2, 4)) == TV_CUTE


def test_thread_value_grid_of_a_distributed_layout():
    lay = BlockedLayout([1, 2], [2, 2], [1, 1], [1, 0])
    text = render_thread_value(lay, [2, 4])
    assert text == (
        "blocked<spt=[1,2], tpw=[2,2], wpc=[1,1], order=[1,0]>\n"
        "         0      1      2      3 \n"
        "    +------+------+------+------+\n"
        " 0  | T0V0 | T0V1 | T1V0 | T1V1 |\n"
        "    +------+------+------+------+\n"
        " 1  | T2V0 | T2V1 | T3V0 | T3V1 |\n"
        "    +------+------+------+------+"
    )
    # broadcast: the lowest thread is named
    bcast = render_thread_value(TUT, [32, 8])
    assert "\n 0  |  T0V0 |  T0V1 |" in bcast


def test_thread_value_errors():
    with pytest.raises(LayoutError, match="tile shape"):
        render_thread_value(FakeCute((4, 2), (1, 4)))
    with pytest.raises(LayoutError, match="outside"):
        render_thread_value(FakeCute((4, 2), (1, 4)), (2, 2))
