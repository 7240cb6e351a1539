"""Unit tests of the CuTe layout algebra: text form, evaluation, worked examples.

The worked examples come from the CuTe documentation (layout, layout algebra,
tensor) and the seed documents (CuTe Tensor guide, Mojo LayoutTensor and
TileTensor).
"""

import pickle
import statistics
import timeit

import pytest

from tilec.dialects import cute
from tilec.dialects.cute import (
    DYN, Layout, LayoutError, _, blocked_product, coalesce, col_major, complement,
    composition, contiguity, cosize, crd2idx, depth, dice, filter_layout, flat_divide,
    flat_product, flatten, idx2crd, left_inverse, local_partition, local_tile,
    logical_divide, logical_product, make_layout, make_ordered_layout,
    max_common_layout, max_common_vector, parse_int_tuple, parse_layout, raked_product,
    rank, right_inverse, row_major, size, slice_, slice_and_offset, tiled_divide,
    tiled_product, zipped_divide, zipped_product,
)
from tilec.dialects.swizzle import (
    ComposedLayout, Swizzle, parse_composed_layout, parse_swizzle,
)

L = parse_layout


# ---------------------------------------------------------------------------
# Text form
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "8:1", "1:0", "(4):(1)", "(4,8):(1,4)", "(4,(2,3)):(1,(4,8))",
    "((2,2),((3,1),4)):((1,2),((4,0),-12))", "(?,4):(1,?)", "?:?", "():()",
    "(((2,3),(4,5)),6):(((1,2),(6,24)),120)",
])
def test_print_parse_round_trip(text):
    layout = L(text)
    assert str(layout) == text
    assert L(str(layout)) == layout
    assert eval(repr(layout), {"Layout": Layout, "DYN": DYN}) == layout


def test_parse_accepts_cute_spelling_and_spaces():
    assert L("(_4,_8):(_1,_4)") == Layout((4, 8), (1, 4))
    assert L(" ( 4 , (2,3) ) : ( 1 , (4, 8) ) ") == L("(4,(2,3)):(1,(4,8))")
    assert parse_int_tuple("(2,(?,3))") == (2, (DYN, 3))
    assert str(DYN) == "?"


@pytest.mark.parametrize("text, fragment", [
    ("(4,8):(1)", "not congruent"),
    ("(4,8) 3", "end of text"),  # a bare shape is a layout (LayoutLeft); what follows it is not
    ("(4,8:(1,4)", "expected ',' or ')'"),
    ("(4,8):(1,4) x", "end of text"),
    ("(0,8):(1,4)", "positive"),
    ("(a,8):(1,4)", "an integer"),
])
def test_parse_errors(text, fragment):
    with pytest.raises(LayoutError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        L(text)


def test_layout_is_immutable_hashable_picklable():
    a = L("(4,(2,3)):(1,(4,8))")
    with pytest.raises(AttributeError):
        a.shape = (1,)
    assert {a: 1}[L("(4,(2,3)):(1,(4,8))")] == 1
    assert pickle.loads(pickle.dumps(a)) == a
    assert pickle.loads(pickle.dumps(DYN)) is DYN
    assert a != L("(4,6):(1,4)")
    assert issubclass(LayoutError, ValueError)


# ---------------------------------------------------------------------------
# Construction and evaluation
# ---------------------------------------------------------------------------

def test_construction():
    assert make_layout((4, 8)) == L("(4,8):(1,4)")
    assert col_major((4, 8)) == L("(4,8):(1,4)")
    assert row_major((4, 8)) == L("(4,8):(8,1)")
    assert make_layout((4, 8), (8, 1)) == row_major((4, 8))
    assert make_layout((4, (2, 3))) == L("(4,(2,3)):(1,(4,8))")
    assert row_major(((2, 3), 4)) == L("((2,3),4):((12,4),1)")
    # CuTe gives extent-1 modes stride 0 in compact layouts
    assert make_layout((1, 4)) == L("(1,4):(0,1)")
    assert make_layout(L("4:1"), L("3:4")) == L("(4,3):(1,4)")
    assert make_layout(L("4:1")) == L("(4):(1)")
    assert make_ordered_layout((2, 2, 2, 2), (0, 2, 3, 1)) == L("(2,2,2,2):(1,4,8,2)")
    assert make_ordered_layout((4, (2, 3)), (1, 0)) == L("(4,(2,3)):(6,(1,2))")
    assert make_layout((4, DYN)) == L("(4,?):(1,4)")
    assert make_layout((DYN, 4)) == L("(?,4):(1,?)")


def test_evaluation_and_queries():
    a = L("(4,(2,3)):(1,(4,8))")
    assert size(a) == 24 and a.size() == 24
    assert cosize(a) == 3 + 4 + 16 + 1
    assert rank(a) == 2 and len(a) == 2 and depth(a) == 2
    assert a(0) == 0 and a(5) == 5 and a(4) == 4 and a(8) == 8
    assert a(3, (1, 2)) == 3 + 4 + 16
    assert a((3, (1, 2))) == 23
    assert a(3, 5) == 3 + 4 + 16  # coordinate coarser than the shape
    assert [a(i) for i in range(24)] == list(a.offsets())
    assert a[1] == L("(2,3):(4,8)") and a[1, 1] == L("3:8") and a[0] == L("4:1")
    assert list(a) == a.modes() == [L("4:1"), L("(2,3):(4,8)")]
    assert flatten(a) == L("(4,2,3):(1,4,8)")
    assert idx2crd(17, (4, (2, 3))) == (1, (0, 2))
    assert crd2idx((1, (0, 2)), (4, (2, 3))) == 17
    assert a.idx2crd(17) == (1, (0, 2))
    assert list(L("(2,2):(1,2)").coords()) == [(0, 0), (1, 0), (0, 1), (1, 1)]
    # an index past the size continues along the last mode (CuTe)
    assert L("(2,3):(1,10)")(7) == 1 + 30
    assert L("(4,8):(8,1)").get_hier_coord(9) == (1, 1)
    assert L("(4,8):(8,1)").get_flat_coord(9) == (1, 1)
    with pytest.raises(LayoutError, match="does not match"):
        a((1, 2, 3))
    with pytest.raises(LayoutError, match="rank 2"):
        a[2]


def test_tensor_slicing_examples_from_the_cute_tensor_guide():
    a = L("((3,2),(2,5,2)):((4,1),(2,13,100))")
    assert a(2, _) == L("((2,5,2)):((2,13,100))")
    assert a(_, 5) == L("((3,2)):((4,1))")
    assert a((_, _), 5) == L("(3,2):(4,1)")
    assert a((_, 1), (0, _, 1)) == L("(3,5):(4,13)")
    assert a((2, _), (_, 3, _)) == L("(2,2,2):(1,2,100)")
    sub, off = slice_and_offset(a, ((_, 1), (0, _, 1)))
    assert (sub, off) == (L("(3,5):(4,13)"), 1 + 100)
    assert slice_and_offset(((_, 1), (0, _, 1)), a) == (sub, off)  # CuTe order
    assert slice_(a, (_, 5)) == a(_, 5)
    assert dice(a, (2, _)) == L("((3,2)):((4,1))")
    assert dice((1, _, 1), (128, 64, 32)) == (128, 32)


# ---------------------------------------------------------------------------
# Coalesce, filter
# ---------------------------------------------------------------------------

def test_coalesce():
    assert coalesce(L("(2,(1,6)):(1,(6,2))")) == L("12:1")
    assert coalesce(L("(2,(1,6)):(1,(6,2))"), (1, 1)) == L("(2,6):(1,2)")
    assert coalesce(L("(4,1):(1,0)")) == L("4:1")
    assert coalesce(L("(1,1):(3,0)")) == L("1:0")
    assert coalesce(L("(4,3):(3,1)")) == L("(4,3):(3,1)")
    assert coalesce(L("(4,?,2):(1,4,?)")) == L("(4,?,2):(1,4,?)")  # ? never merges
    assert filter_layout(L("(4,2,3):(1,0,4)")) == L("12:1")
    assert cute.filter(L("(2,1):(0,0)")) == L("1:0")


# ---------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, r", [
    ("(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"),
    ("20:2", "(5,4):(4,1)", "(5,4):(8,2)"),
    ("(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"),
    ("(3,6,2,8):(1,10,100,1000)", "16:9", "(2,2,4):(30,100,1000)"),  # the doc's (w,x,y,z)
    ("(4,6):(1,4)", "5:1", "5:1"),            # A coalesces to 24:1
    ("(4,6):(1,5)", "3:1", "3:1"),
    ("(4,6):(1,5)", "2:3", "2:3"),            # 3 does not divide 4, but 2 elements fit
    ("(4,6):(1,5)", "8:0", "8:0"),
    ("(2,2):(1,4)", "8:1", "(2,4):(1,4)"),    # B runs past A along the last mode
    ("(2,2,1):(1,4,0)", "8:1", "(2,4):(1,4)"),  # ... of coalesce(A) (pycute)
])
def test_composition_examples(a, b, r):
    assert composition(L(a), L(b)) == L(r)


def test_composition_by_mode_tiler():
    a = L("(12,(4,8)):(59,(13,1))")
    assert composition(a, (L("3:4"), L("8:2"))) == L("(3,(2,4)):(236,(26,1))")
    assert composition(a, (3, _)) == L("(3,(4,8)):(59,(13,1))")
    assert composition(a, (3,)) == L("(3,(4,8)):(59,(13,1))")
    with pytest.raises(LayoutError, match="tiler has 3 modes"):
        composition(a, (1, 2, 3))


@pytest.mark.parametrize("a, b, fragment", [
    ("(4,6):(1,5)", "5:1", "shape divisibility"),
    ("(4,6):(1,5)", "6:3", "stride divisibility"),
    ("(4,6):(1,5)", "2:6", "stride divisibility"),
    ("(?,4):(1,?)", "8:1", "requires a static value"),
])
def test_composition_errors(a, b, fragment):
    with pytest.raises(LayoutError, match=fragment) as info:
        composition(L(a), L(b))
    assert f"composition({a}, {b})" in str(info.value)


# ---------------------------------------------------------------------------
# Complement and inverses
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("a, m, r", [
    ("4:1", 24, "6:4"),
    ("6:4", 24, "4:1"),
    ("(4,6):(1,4)", 24, "1:0"),
    ("4:2", 24, "(2,3):(1,8)"),
    ("(2,4):(1,6)", 24, "3:2"),
    ("(2,2):(1,6)", 24, "(3,2):(2,12)"),
    ("2:2", 12, "(2,3):(1,4)"),
    ("(2,2):(1,6)", None, "3:2"),
    ("4:0", 8, "8:1"),
])
def test_complement_examples(a, m, r):
    assert complement(L(a), m) == L(r)


def test_complement_errors_and_dynamic():
    with pytest.raises(LayoutError, match="not a multiple"):
        complement(L("(2,3):(1,3)"), 24)
    with pytest.raises(LayoutError, match="negative stride"):
        complement(L("4:-1"), 8)
    assert complement(L("128:1"), DYN) == L("?:128")
    with pytest.raises(LayoutError, match="requires a static value"):
        complement(L("(4,4):(1,?)"), 64)


def test_inverses():
    assert right_inverse(L("(4,(2,3)):(1,(4,8))")) == L("24:1")
    assert right_inverse(L("(4,8):(8,1)")) == L("(8,4):(4,1)")
    assert right_inverse(L("4:2")) == L("1:0")
    assert right_inverse(L("(2,4):(1,4)")) == L("2:1")
    assert left_inverse(L("(4,8):(8,1)")) == L("(8,4):(4,1)")
    assert left_inverse(L("4:2")) == L("(2,4):(0,1)")
    tv = L("((2,4),(2,2)):((8,1),(4,16))")  # the CuTe Tensor guide's TV layout
    inv = left_inverse(tv)
    assert all(inv(tv(i)) == i for i in range(size(tv)))
    with pytest.raises(LayoutError, match="left inverse divisibility"):
        left_inverse(L("(2,2):(2,3)"))


# ---------------------------------------------------------------------------
# Divide and product
# ---------------------------------------------------------------------------

def test_divide_examples_from_the_layout_algebra_doc():
    a = L("(4,2,3):(2,1,8)")
    assert logical_divide(a, L("4:2")) == L("((2,2),(2,3)):((4,1),(2,8))")
    a2 = L("(9,(4,8)):(59,(13,1))")
    tiler = (L("3:3"), L("(2,4):(1,8)"))
    assert logical_divide(a2, tiler) == L("((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))")
    assert zipped_divide(a2, tiler) == L("((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))")
    assert tiled_divide(a2, tiler) == L("((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))")
    assert flat_divide(a2, tiler) == L("(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))")


def test_product_examples_from_the_layout_algebra_doc():
    assert logical_product(L("(2,2):(4,1)"), L("6:1")) == L("((2,2),(2,3)):((4,1),(2,8))")
    assert logical_product(L("(2,2):(4,1)"), 6) == L("((2,2),(2,3)):((4,1),(2,8))")
    block, tiler = L("(2,5):(5,1)"), L("(3,4):(1,3)")
    assert logical_product(block, tiler) == L("((2,5),(3,4)):((5,1),(10,30))")
    assert blocked_product(block, tiler) == L("((2,3),(5,4)):((5,10),(1,30))")
    assert raked_product(block, tiler) == L("((3,2),(4,5)):((10,5),(30,1))")
    # by-mode products repeat each mode within its own cosize (CuTe semantics)
    assert zipped_product(block, (3, 4)) == L("((2,5),(3,4)):((5,1),(1,5))")
    assert tiled_product(block, (3, 4)) == L("((2,5),3,4):((5,1),1,5)")
    assert flat_product(block, (3, 4)) == L("(2,5,3,4):(5,1,1,5)")
    assert blocked_product(L("4:1"), L("3:1")) == L("((4,3)):((1,4))")


def test_dynamic_tiling_by_mode():
    gmem = make_layout((DYN, DYN), (1, DYN))  # column-major, dynamic extents and ld
    assert logical_divide(gmem, (128, 64)) == L("((128,?),(64,?)):((1,128),(?,?))")
    assert zipped_divide(gmem, (128, 64)) == L("((128,64),(?,?)):((1,?),(128,?))")
    tile, off = local_tile(gmem, (128, 64), (1, 2))
    assert tile == L("(128,64):(1,?)") and off is DYN
    assert not gmem.is_static() and tile.size() == 128 * 64
    # run-time block and thread indices: the layout is static, the offset is ?
    tile, off = local_tile(make_layout((1024, 512)), (128, 64), (DYN, DYN))
    assert tile == L("(128,64):(1,1024)") and off is DYN
    frag, off = local_partition(tile, row_major((8, 32)), DYN)
    assert frag == L("(16,2):(8,32768)") and off is DYN
    assert L("(4,(2,3)):(0,(4,8))")(DYN, (0, 1)) == 8
    assert idx2crd(DYN, (4, (1, 3))) == (DYN, (0, DYN))


# ---------------------------------------------------------------------------
# Partitioning: the seed documents' examples
# ---------------------------------------------------------------------------

def test_cute_tensor_guide_8x24_tiled_by_4x8():
    a = make_layout((8, 24))
    tiled = zipped_divide(a, (4, 8))
    assert tiled == L("((4,8),(2,3)):((1,8),(4,64))")
    for bx in range(2):
        for by in range(3):
            tile, off = local_tile(a, (4, 8), (bx, by))
            assert tile == L("(4,8):(1,8)") and off == 4 * bx + 64 * by
            assert (tile, off) == slice_and_offset(tiled, ((_, _), (bx, by)))
    thr = make_layout((4, 8))
    seen = set()
    for t in range(32):
        frag, off = local_partition(a, thr, t)
        assert frag == L("(2,3):(4,64)")
        assert (frag, off) == slice_and_offset(tiled, (t, (_, _)))
        seen.update(off + v for v in frag.offsets())
    assert seen == set(range(8 * 24))


def test_cute_tensor_guide_tv_layout_partition():
    tv = L("((2,4),(2,2)):((8,1),(4,16))")  # (T8,V4) -> (M4,N8)
    a = row_major((4, 8))
    composed = composition(a, tv)
    assert size(composed) == 32
    vals = []
    for t in range(8):
        v, off = slice_and_offset(composed, (t, _))
        assert size(v) == 4
        vals.extend(off + x for x in v.offsets())
    assert sorted(vals) == list(range(32))


def test_mojo_distribute_4x4_row_major_over_2x2_column_major_threads():
    tensor = row_major((4, 4))
    threads = col_major((2, 2))
    frags = {t: sorted(off + v for v in f.offsets())
             for t in range(4) for f, off in [local_partition(tensor, threads, t)]}
    # thread 1 is at (row 1, col 0): rows 1 and 3, columns 0 and 2
    assert frags[1] == [4, 6, 12, 14]
    assert frags[0] == [0, 2, 8, 10]
    assert sorted(sum(frags.values(), [])) == list(range(16))


def test_mojo_tile_64x128_row_major_by_32x32():
    tile, off = local_tile(row_major((64, 128)), (32, 32), (0, 1))
    assert tile == L("(32,32):(128,1)") and off == 32
    tile, off = local_tile(row_major((64, 128)), (32, 32), (1, 3))
    assert off == 32 * 128 + 96


def test_local_tile_projection():
    a = make_layout((64, 32))  # (M,K)
    tile, off = local_tile(a, (16, 8, 4), (1, 2, 3), proj=(1, _, 1))
    assert tile == L("(16,4):(1,64)") and off == 16 + 3 * 4 * 64


def test_vectorize_and_contiguity():
    a = row_major((8, 16))
    vec = zipped_divide(a, (1, 4))
    assert vec[0] == L("(1,4):(16,1)")
    assert contiguity(vec[0]) == 4
    assert contiguity(a) == 1             # L(1) == 16: index order runs down columns
    assert contiguity(col_major((8, 16))) == 128
    assert contiguity(L("(4,8):(1,5)")[0]) == 4
    assert contiguity(L("(4,8):(1,5)")) == 4
    assert contiguity(L("4:2")) == 1
    assert contiguity(L("(4,?):(1,4)")) == 4
    assert max_common_vector(row_major((8, 16)), row_major((8, 16))) == 128
    assert max_common_vector(row_major((8, 16)), col_major((8, 16))) == 1
    assert max_common_vector(L("(8,16):(16,1)"), L("(8,16):(32,1)")) == 16
    assert max_common_layout(L("(8,16):(16,1)"), L("(8,16):(32,1)")) == L("16:8")


def test_large_layouts_are_not_materialised():
    big = make_layout((1 << 20, 1 << 20))
    assert coalesce(big) == L(f"{1 << 40}:1")
    t = zipped_divide(big, (128, 64))
    assert t == L(f"((128,64),({(1 << 20) // 128},{(1 << 20) // 64})):((1,{1 << 20}),(128,{1 << 26}))")
    assert composition(row_major((1 << 20, 1 << 20)), big).size() == 1 << 40
    assert right_inverse(row_major((1 << 20, 1 << 20))) == L(f"({1 << 20},{1 << 20}):({1 << 20},1)")


# ---------------------------------------------------------------------------
# Swizzle
# ---------------------------------------------------------------------------

def test_swizzle():
    sw = Swizzle(3, 4, 3)
    assert str(sw) == "Swizzle<3,4,3>" and parse_swizzle("Sw<3,4,3>") == sw
    assert sw.yyy_msk == 0b111 << 7 and sw.zzz_msk == 0b111 << 4
    assert sw(0b0010000000) == 0b0010010000
    assert Swizzle(2, 0, -3)(0b00011) == 0b11011
    assert sorted(sw(x) for x in range(sw.size())) == list(range(sw.size()))
    with pytest.raises(LayoutError, match="shift"):
        Swizzle(3, 4, 2)


def test_composed_layout():
    c = ComposedLayout(Swizzle(3, 0, 3), 0, row_major((8, 8)))
    assert str(c) == "Swizzle<3,0,3> o 0 o (8,8):(8,1)"
    assert parse_composed_layout(str(c)) == c
    assert c.size() == 64 and c.cosize() == 64 and c.rank() == 2
    # row r, column k lands in column k ^ r: each column of the tile hits 8 banks
    assert [c(r, 0) % 8 for r in range(8)] == list(range(8))
    assert sorted(c.offsets()) == list(range(64))
    row, off = c.slice_and_offset((3, _))
    assert off == 0 and [row(k) for k in range(8)] == [c(3, k) for k in range(8)]
    with pytest.raises(LayoutError):
        parse_composed_layout("Swizzle<3,0,3> o (8,8):(8,1)")


# ---------------------------------------------------------------------------
# Performance
# ---------------------------------------------------------------------------

def _median_seconds(fn, number=200, repeat=7):
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def test_algebra_is_fast():
    """4-mode, depth-3 operands: composition and divide stay well under 1 ms."""
    leaves = ((2, (2, 2)), (4, (2, 2)), (2, 4), 8)
    a = row_major(leaves)                                   # 9 non-mergeable modes
    b = make_layout(((2, 2), (2, (4, 2)), (2, 2), (4, 8)))  # 4 modes, depth 3
    assert depth(a) == depth(b) == 3 and rank(a) == rank(b) == 4
    tiler = (L("(2,2):(1,2)"), L("(2,(2,2)):(1,(4,2))"), 2, 4)
    assert size(composition(a, b)) == size(b)
    times = {
        "composition": _median_seconds(lambda: composition(a, b)),
        "logical_divide": _median_seconds(lambda: logical_divide(a, b)),
        "zipped_divide": _median_seconds(lambda: zipped_divide(a, tiler)),
        "logical_product": _median_seconds(lambda: logical_product(b, L("(4,2):(2,1)"))),
    }
    for name, t in times.items():
        assert t < 1e-3, f"{name} takes {t * 1e6:.0f} us"


def test_a_bare_shape_is_compact_column_major():
    """CuTe's `make_layout(shape)` / `make_tensor(ptr, Int<8>{})`: LayoutLeft strides,
    as the `#layout.cute<shape>` attribute reads it (issue 18)."""
    assert cute.parse_layout("8") == cute.Layout(8, 1)
    assert cute.parse_layout("(4,8)") == cute.Layout((4, 8), (1, 4))
    assert cute.parse_layout("((2,2),8)") == cute.Layout(((2, 2), 8), ((1, 2), 4))
    import tilec

    p = tilec.Program("f")
    assert str(p.view(p.pointer("a", "f32"), "(4,8)").type.cute_layout) == "(4,8):(1,4)"


def test_dice_keeps_the_modes_a_coordinate_fixes_and_refuses_another_rank():
    """`dice` (the complement of `slice_`) on a flat profile keeps the modes whose
    coordinate is not `_`; a coordinate of another rank is an error, not a truncation."""
    from tilec.dialects.errors import LayoutError

    assert cute.dice((1, cute._, 1), (128, 64, 32)) == (128, 32)
    assert cute.dice((1, cute._, (1, cute._)), (128, 64, (32, 4))) == (128, 32)
    with pytest.raises(LayoutError, match="does not match"):
        cute.dice((1, cute._), (128, 64, 32))
