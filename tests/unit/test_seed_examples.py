"""The worked numbers of the seed documents (Mojo LayoutTensor / TileTensor guides,
CuTe's Tensor guide), computed with tilec's own layout algebra (`dialects/cute.py`,
`dialects/views.py`), and the examples built from them checked against it.

docs/seeds.md quotes the layouts asserted here ("Where the seeds disagree"): if the
algebra changes, these tests fail before the page goes stale."""

from pathlib import Path

import pytest

from tilec.compiler.pipeline import parse_module
from tilec.dialects import cute, views

EXAMPLES = Path(__file__).parents[2] / "examples"


def L(text: str) -> cute.Layout:
    return cute.parse_layout(text)


def view_types(example: str, op_name: str) -> list:
    """Result types of the ops named `op_name` in examples/`example`, in order."""
    module = parse_module((EXAMPLES / example).read_text(), example)
    return [op.results[0].type for op in module.walk() if op.name == op_name]


def elements(layout: cute.Layout, base: int = 0, vec: cute.Layout | None = None) -> list[int]:
    """The element offsets a view (base + layout, lanes `vec`) reaches, in order."""
    lanes = list(vec.offsets()) if vec is not None else [0]
    return [base + o + lane for o in layout.offsets() for lane in lanes]


# ------------------------------------------------------------------ Mojo (seeds 000, 004)
# tile.vectorize[1, 4]().distribute[row_major(8, 4)](lane_id()) on a 16x16 tile.

TILE = L("(16,16):(16,1)")  # Layout.row_major(16, 16), the guides' tile_layout
WARP = L("(8,4):(4,1)")  # row_major(WARP_SIZE // simd_size, simd_size)


def test_mojo_vectorize_1x4_of_16x16_is_16x4_vectors():
    outer, vec = views.vectorize_layout(TILE, [1, 4])
    assert outer == L("(16,4):(16,4)")
    assert vec == L("(1,4):(16,1)")
    assert views.mode_sizes(outer) == (16, 4)  # seed 004's "16x4", not seed 000's "4x16"


def test_mojo_distribute_8x4_gives_each_lane_2x1_vectors():
    outer, vec = views.vectorize_layout(TILE, [1, 4])
    frag, masked = views.distribute_layout(outer, WARP)
    assert (frag, masked) == (L("(2,1):(128,16)"), False)
    covered = []
    for lane in range(32):
        row, col = views.thread_coord(WARP, lane)
        assert (row, col) == (lane // 4, lane % 4)
        base = row * 16 + col * 4  # the distributed view's base offset, outer(row, col)
        assert base == outer(row, col)
        mine = elements(frag, base, vec)
        # rows lane/4 and lane/4 + 8, the lane%4-th vector of 4 of each
        assert mine == [r * 16 + 4 * col + k for r in (row, row + 8) for k in range(4)]
        covered += mine
    assert sorted(covered) == list(range(256))  # 32 lanes x 8 elements, each once


def test_mojo_4x16_is_the_shape_of_4x1_vectors_which_8x4_threads_do_not_fit():
    outer, vec = views.vectorize_layout(TILE, [4, 1])
    assert (outer, vec) == (L("(4,16):(64,1)"), L("(4,1):(16,1)"))
    frag, masked = views.distribute_layout(outer, WARP)
    assert (frag, masked) == (L("(1,4):(512,4)"), True)  # 8 thread rows over 4 vector rows
    idle = []
    for lane in range(32):
        row, col = views.thread_coord(WARP, lane)
        mask = views.MaskMap.for_tile(TILE, [16, 16], [0, 0]).vectorize([4, 1]).distribute([8, 4], [row, col])
        if not any(mask.valid([0, j], [0, 0]) for j in range(4)):
            idle.append(lane)
    assert idle == list(range(16, 32))  # half the warp would get nothing


def test_mojo_example_types_are_the_algebras():
    ex = "mojo_tile_vectorize_distribute.mlir"
    tile = view_types(ex, "layout.tile")[0].cute_layout
    assert tile == L("(16,16):(128,1)")
    outer, vec = views.vectorize_layout(tile, [1, 4])
    vt = view_types(ex, "layout.vectorize")[0]
    assert (vt.cute_layout, vt.vec.data) == (outer, vec) == (L("(16,4):(128,4)"), L("(1,4):(128,1)"))
    ft = view_types(ex, "layout.distribute")[0]
    assert ft.cute_layout == views.distribute_layout(outer, WARP)[0] == L("(2,1):(1024,16)")


def test_mojo_figure5_4x4_row_major_by_2x2_column_major_threads():
    """The guides' Figure 5 setting (the figure itself is an image, not in the seeds):
    thread N gets the N-th element of each 2x2 tile of threads."""
    data, threads = L("(4,4):(4,1)"), L("(2,2):(1,2)")
    frag, masked = views.distribute_layout(data, threads)
    assert (frag, masked) == (L("(2,2):(8,2)"), False)
    got = {}
    for t in range(4):
        r, c = views.thread_coord(threads, t)
        got[t] = elements(frag, data(r, c))
    assert got == {0: [0, 8, 2, 10], 1: [4, 12, 6, 14], 2: [1, 9, 3, 11], 3: [5, 13, 7, 15]}


# ------------------------------------------------------------------ CuTe (seed 001)
# Tensor A = make_tensor(ptr, make_shape(8,24)); tiled by Shape<_4,_8>.

A = L("(8,24):(1,8)")  # column-major, CuTe's default


def rc(offset: int) -> tuple[int, int]:
    """(row, column) of an offset of A."""
    return offset % 8, offset // 8


def test_cute_zipped_divide_8x24_by_4x8():
    assert cute.zipped_divide(A, (4, 8)) == L("((4,8),(2,3)):((1,8),(4,64))")


@pytest.mark.parametrize("bx, by", [(bx, by) for bx in range(2) for by in range(3)])
def test_cute_local_tile_is_the_tile_op(bx, by):
    """cta_a = tiled_a(make_coord(_,_), make_coord(bx, by)) = local_tile(A, (4,8), (bx,by)):
    rows 4bx..4bx+3, columns 8by..8by+7; layout.tile computes the same view."""
    tile, off = cute.local_tile(A, (4, 8), (bx, by))
    assert (tile, off) == (L("(4,8):(1,8)"), 4 * bx + 64 * by)
    tile_op, masked = views.tile_layout(A, [4, 8])
    assert (tile_op, masked) == (tile, False)
    assert {rc(o) for o in elements(tile, off)} == {
        (r, c) for r in range(4 * bx, 4 * bx + 4) for c in range(8 * by, 8 * by + 8)
    }


OUTER_THREADS = L("(4,8):(1,4)")  # threadIdx.x indexing the (4,8) tile mode


def test_cute_outer_partition_worked_numbers():
    """thr_a = tiled_a(threadIdx.x, make_coord(_,_)): (2,3), element t of each tile."""
    z = cute.zipped_divide(A, (4, 8))
    table = {}
    for t in range(32):
        frag, off = cute.slice_and_offset(z, (t, cute._))
        assert frag == L("((2,3)):((4,64))")
        part, poff = cute.local_partition(A, OUTER_THREADS, t)
        dist, masked = views.distribute_layout(A, OUTER_THREADS)
        assert (part, dist, masked) == (L("(2,3):(4,64)"), part, False)
        r, c = views.thread_coord(OUTER_THREADS, t)
        assert off == poff == A(r, c)
        table[t] = [rc(o) for o in elements(part, poff)]
        assert table[t] == [(t % 4 + 4 * i, t // 4 + 8 * j) for j in range(3) for i in range(2)]
    assert table[0] == [(0, 0), (4, 0), (0, 8), (4, 8), (0, 16), (4, 16)]
    assert table[5] == [(1, 1), (5, 1), (1, 9), (5, 9), (1, 17), (5, 17)]
    assert table[31] == [(3, 7), (7, 7), (3, 15), (7, 15), (3, 23), (7, 23)]
    assert sorted(o for t in table for o in table[t]) == sorted(rc(o) for o in range(192))


TV = L("((2,4),(2,2)):((8,1),(4,16))")  # (T8,V4) -> (M4,N8)


def test_cute_tv_partition_worked_numbers():
    """v = composition(A4x8, tv_layout)(threadIdx.x, _): thread t gets row t/2, columns
    2(t%2) + {0, 1, 4, 5}, whatever the 4x8 tensor's layout (row-major in the guide,
    the column-major tile of the example)."""
    want = {
        0: [(0, 0), (0, 1), (0, 4), (0, 5)],
        1: [(0, 2), (0, 3), (0, 6), (0, 7)],
        2: [(1, 0), (1, 1), (1, 4), (1, 5)],
        3: [(1, 2), (1, 3), (1, 6), (1, 7)],
        4: [(2, 0), (2, 1), (2, 4), (2, 5)],
        5: [(2, 2), (2, 3), (2, 6), (2, 7)],
        6: [(3, 0), (3, 1), (3, 4), (3, 5)],
        7: [(3, 2), (3, 3), (3, 6), (3, 7)],
    }
    for a44, coord in ((L("(4,8):(8,1)"), lambda o: divmod(o, 8)), (L("(4,8):(1,4)"), lambda o: (o % 4, o // 4))):
        tv = cute.composition(a44, TV)
        for t, cells in want.items():
            values, off = cute.slice_and_offset(tv, (t, cute._))
            assert [coord(o) for o in elements(values, off)] == cells
    # the example's tile (4,8):(1,8) of A: the values layout layout.partition verifies
    from tilec.dialects.layout import PartitionOp

    assert PartitionOp.values_layout(L("(4,8):(1,8)"), TV) == L("(2,2):(8,32)")


def test_cute_example_types_are_the_algebras():
    ex = "cute_local_tile_partition.mlir"
    z = cute.zipped_divide(A, (4, 8))
    assert [t.cute_layout for t in view_types(ex, "layout.divide")] == [z, z]
    assert [t.cute_layout for t in view_types(ex, "layout.distribute")] == [L("(2,3):(4,64)")]
    assert [t.cute_layout for t in view_types(ex, "layout.tile")] == [cute.local_tile(A, (4, 8), (0, 0))[0]]
    assert [t.cute_layout for t in view_types(ex, "layout.partition")] == [L("(2,2):(8,32)")] * 2


def test_cute_strided_subtile_tiler_as_one_layout():
    """Tile<Layout<_8,_3>, Layout<_4,_2>> on the column-major 24x16 tensor (which
    examples/cute_tiled_copy_registers.mlir divides by, by mode, as the guide writes it)
    is, over its coordinates, the layout (8,4):(3,48): the same tiles, element for
    element."""
    g = L("(24,16):(1,24)")
    by_mode = cute.zipped_divide(g, (L("8:3"), L("4:2")))
    one = cute.zipped_divide(g, L("(8,4):(3,48)"))
    assert by_mode == L("((8,4),(3,(2,2))):((3,48),(1,(24,192)))")
    assert one == L("((8,4),(3,2,2)):((3,48),(1,24,192))")
    assert list(by_mode.offsets()) == list(one.offsets())
    tile0 = one[0]
    assert sorted(tile0.offsets()) == sorted(r + 24 * c for r in range(0, 24, 3) for c in range(0, 8, 2))
    ex = "cute_tiled_copy_registers.mlir"
    assert [t.cute_layout for t in view_types(ex, "layout.divide")] == [by_mode, by_mode]
    assert [t.cute_layout for t in view_types(ex, "layout.alloc")] == [L("(8,4):(1,8)")]  # make_tensor_like
