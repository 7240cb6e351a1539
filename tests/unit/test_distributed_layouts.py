"""Gluon distributed layouts: every worked example of the Gluon layouts tutorial."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilec.dialects.distributed import (
    BlockedLayout,
    SliceLayout,
    cute_to_linear,
    parse_distributed_layout,
)
from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import LinearLayout, conversion_kind, equivalent, parse_linear_layout

# gl.BlockedLayout(size_per_thread=[2, 4], threads_per_warp=[16, 2], warps_per_cta=[2, 2], order=[1, 0])
TUT = BlockedLayout([2, 4], [16, 2], [2, 2], [1, 0])


def owner(shape, coord, layout=TUT):
    return layout.owner_map(shape)[coord]


# ------------------------------------------------------------ 64x16: one block
def test_block_shape_and_counts():
    assert TUT.shape_per_cta == (64, 16)
    assert TUT.shape_per_warp == (32, 8)
    assert TUT.num_warps == 4 and TUT.lanes_per_warp == 32 and TUT.threads_per_cta == 128
    assert TUT.elements_per_thread([64, 16]) == 8


def test_thread_tile_registers_increment_over_the_inner_dim():
    # [[T:0, T:1, T:2, T:3], [T:4, T:5, T:6, T:7]]
    om = TUT.owner_map([64, 16])
    for i in range(2):
        for j in range(4):
            assert om[(i, j)] == [(0, 0, 4 * i + j)]
    # order=[0,1]: [[T:0, T:2, T:4, T:6], [T:1, T:3, T:5, T:7]]
    col = BlockedLayout([2, 4], [16, 2], [2, 2], [0, 1]).owner_map([64, 16])
    for i in range(2):
        for j in range(4):
            assert col[(i, j)] == [(0, 0, 2 * j + i)]


def test_warp_tile_of_threads():
    # [[T0, T1], [T2, T3], ..., [T30, T31]]: thread t owns the 2x4 tile at (2*(t//2), 4*(t%2)).
    om = TUT.owner_map([64, 16])
    for t in range(32):
        r0, c0 = 2 * (t // 2), 4 * (t % 2)
        assert {om[(r0 + i, c0 + j)][0][1] for i in range(2) for j in range(4)} == {t}
    # T28:0 is at row 28, T31:7 at (31, 7).
    assert om[(28, 0)] == [(0, 28, 0)]
    assert om[(31, 7)] == [(0, 31, 7)]


def test_warps_tile_the_block_in_order():
    om = TUT.owner_map([64, 16])
    # warps_per_cta=[2, 2], order=[1, 0]: warp 1 is to the right, warp 2 below.
    assert om[(0, 8)] == [(1, 0, 0)]
    assert om[(32, 0)] == [(2, 0, 0)]
    assert om[(32, 8)] == [(3, 0, 0)]


def test_block_sized_tensor_has_one_owner_per_element():
    om = TUT.owner_map([64, 16])
    assert all(len(v) == 1 for v in om.values())
    assert len({o for v in om.values() for o in v}) == 128 * 8


def test_linear_form_of_the_block():
    assert TUT.to_linear([64, 16]) == parse_linear_layout(
        "register=[[0,1],[0,2],[1,0]], lane=[[0,4],[2,0],[4,0],[8,0],[16,0]], warp=[[0,8],[32,0]], block=[], shape=[64,16]"
    )


# ----------------------------------------------- 128x128: register repetition
def test_larger_tensor_repeats_the_block_through_registers():
    # "we obtain a [2, 8] tiling of the block ... each thread owns 8 * 16 = 128 registers"
    assert TUT.elements_per_thread([128, 128]) == 128
    ll = TUT.to_linear([128, 128])
    assert ll.num_lanes == 32 and ll.num_warps == 4 and ll.is_invertible()
    om = TUT.owner_map([128, 128])
    assert all(len(v) == 1 for v in om.values())
    # Copy B_k of the block lives in registers 8k..8k+7; B0..B7 along the row, then B8.
    for k in range(16):
        i, j = divmod(k, 8)
        w, lane, r = om[(64 * i, 16 * j)][0]
        assert (w, lane, r) == (0, 0, 8 * k)
        # and the copy is the block's layout shifted
        assert om[(64 * i + 33, 16 * j + 13)] == [(o[0], o[1], o[2] + 8 * k) for o in om[(33, 13)]]


# --------------------------------------------------------- 32x8: broadcasting
def test_smaller_tensor_is_broadcast_over_warps():
    # "each warp has a full copy of the tensor, mapped to its lanes in the same way"
    om = TUT.owner_map([32, 8])
    assert TUT.elements_per_thread([32, 8]) == 8  # still 8 registers: 1024 in the program
    assert TUT.to_linear([32, 8]).get_bases("warp") == [(0, 0), (0, 0)]
    for coord, owners in om.items():
        assert [w for w, _, _ in owners] == [0, 1, 2, 3]
        assert len({(lane, r) for _, lane, r in owners}) == 1
    # [[ T0:0| T32:0| T64:0| T96:0, ..., T1:3| T33:3| T65:3| T97:3], ...]
    assert om[(0, 0)] == [(w, 0, 0) for w in range(4)]
    assert om[(0, 7)] == [(w, 1, 3) for w in range(4)]
    assert om[(31, 0)] == [(w, 30, 4) for w in range(4)]
    assert om[(31, 7)] == [(w, 31, 7) for w in range(4)]


def test_broadcast_goes_warps_then_lanes_then_registers():
    # 16x4 still uses every register of a thread's 2x4 tile, and lanes broadcast.
    ll = TUT.to_linear([16, 4])
    assert ll.get_bases("register") == [(0, 1), (0, 2), (1, 0)]
    assert ll.get_bases("lane") == [(0, 0), (2, 0), (4, 0), (8, 0), (0, 0)]
    assert ll.get_bases("warp") == [(0, 0), (0, 0)]
    # 1x2 is smaller than a thread's tile: registers broadcast too.
    tiny = TUT.to_linear([1, 2])
    assert tiny.get_bases("register") == [(0, 1), (0, 0), (0, 0)]
    assert tiny.num_registers == 8
    assert Counter(len(v) for v in tiny.owner_map().values()) == Counter({128 * 4: 2})


# ------------------------------------------------------------------ slices
def test_slice_layout_of_the_tutorial():
    # SliceLayout(dim=1, parent=TUT): rows collapse, duplicate registers go away,
    # "each element in the reduction result would be broadcasted to two threads".
    s = SliceLayout(1, TUT)
    assert s.rank == 1 and s.num_warps == 4 and s.threads_per_cta == 128
    assert s.to_linear([64]) == parse_linear_layout(
        "register=[[1]], lane=[[0],[2],[4],[8],[16]], warp=[[0],[32]], block=[], shape=[64]"
    )
    om = s.owner_map([64])
    assert s.elements_per_thread([64]) == 2
    # in warp 0: [T0:0|T1:0, T0:1|T1:1, T2:0|T3:0, T2:1|T3:1, ...]
    in_warp0 = {i: [(lane, r) for w, lane, r in om[(i,)] if w == 0] for i in range(32)}
    assert in_warp0[0] == [(0, 0), (1, 0)]
    assert in_warp0[1] == [(0, 1), (1, 1)]
    assert in_warp0[2] == [(2, 0), (3, 0)]
    assert in_warp0[31] == [(30, 1), (31, 1)]
    # warps 0 and 1 (side by side in the parent) hold the same rows.
    assert [w for w, _, _ in om[(0,)]] == [0, 0, 1, 1]
    assert [w for w, _, _ in om[(32,)]] == [2, 2, 3, 3]


def test_slice_along_dim0():
    s = SliceLayout(0, TUT)
    ll = s.to_linear([16])
    assert ll == parse_linear_layout("register=[[1],[2]], lane=[[4],[0],[0],[0],[0]], warp=[[8],[0]], shape=[16]")
    # the columns of the parent: element j is held by every thread of that column
    om = s.owner_map([16])
    assert len(om[(0,)]) == 16 * 2  # 16 lanes x 2 warps
    assert all((w, lane) in {(o[0], o[1]) for o in om[(0,)]} for w in (0, 2) for lane in range(0, 32, 2))


def test_slice_then_expand_round_trip():
    # indices_x = arange(0, XBLOCK, layout=SliceLayout(1, layout))
    s = SliceLayout(1, TUT)
    par = TUT.owner_map([64, 16])
    sl = s.owner_map([64])
    # every owner of row i in the parent holds element i in the slice (as some register)
    for i in range(64):
        threads_parent = {(w, lane) for j in range(16) for w, lane, _ in par[(i, j)]}
        threads_slice = {(w, lane) for w, lane, _ in sl[(i,)]}
        assert threads_parent == threads_slice


def test_nested_slice():
    p3 = BlockedLayout([1, 2, 2], [2, 4, 4], [1, 2, 2], [2, 1, 0])
    s = SliceLayout(0, SliceLayout(2, p3))
    assert s.rank == 1
    ll = s.to_linear([8])
    assert ll.num_lanes == 32 and ll.num_warps == 4 and ll.out_shape == (8,)


# ------------------------------------------------------ equivalent layouts
def test_equivalent_blocked_slice_and_linear():
    blocked = BlockedLayout([1], [32], [4], [0])
    sliced = SliceLayout(1, BlockedLayout([1, 1], [32, 1], [4, 1], [1, 0]))
    linear = LinearLayout(
        {"register": [], "lane": [[1], [2], [4], [8], [16]], "warp": [[32], [64]], "block": []}, [128]
    )
    assert blocked.to_linear([128]) == sliced.to_linear([128]) == linear
    assert equivalent(blocked, sliced, [128]) and blocked.equivalent(linear, [128])
    assert blocked.owner_map([128]) == sliced.owner_map([128]) == linear.owner_map()
    assert conversion_kind(blocked, sliced, [128]) == "identity"
    # "a 7x7 identity matrix over the bits of the 1D tensor element index"
    assert linear.is_invertible()
    assert linear == LinearLayout.identity_1d(32, "lane", "dim0") * LinearLayout.identity_1d(4, "warp", "dim0")


def test_linear_layout_as_a_distributed_layout():
    linear = parse_linear_layout("lane=[[1],[2],[4],[8],[16]], warp=[[32],[64]], shape=[128]")
    assert linear.to_linear([128]) is linear
    assert linear.to_linear([256]).num_registers == 2  # repetition
    assert SliceLayout(0, parse_linear_layout("lane=[[0,1],[1,0]], shape=[2,2]")).to_linear([2]) == (
        parse_linear_layout("lane=[[1],[0]], shape=[2]")
    )


# ---------------------------------------------------------- the memcpy layouts
@pytest.mark.parametrize("R", [1, 2, 4, 8, 16])
def test_1d_memcpy_layouts(R):
    lay = BlockedLayout([R], [32], [4], [0])
    om = lay.owner_map([2048])
    assert lay.elements_per_thread([2048]) == 2048 // 128
    # each thread's R registers are contiguous elements; R=16 leaves no redundancy
    assert om[(0,)] == [(0, 0, 0)] and om[(R,)] == [(0, 1, 0)]
    assert om[(R - 1,)] == [(0, 0, R - 1)]
    assert all(len(v) == 1 for v in om.values())


def test_gmem_access_layouts_need_a_shared_memory_conversion():
    row = BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])
    col = BlockedLayout([1, 1], [32, 1], [4, 1], [0, 1])
    assert conversion_kind(row, col, [128, 128]) == "shared"
    assert conversion_kind(row, row, [128, 128]) == "identity"


def test_reduction_friendly_layout_owns_whole_rows():
    lay = BlockedLayout([1, 128], [32, 1], [4, 1], [0, 1])
    om = lay.owner_map([128, 128])
    for i in range(0, 128, 7):
        assert len({(w, lane) for j in range(128) for w, lane, _ in om[(i, j)]}) == 1
    loads = BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0]).owner_map([128, 128])
    assert len({(w, lane) for j in range(128) for w, lane, _ in loads[(0, j)]}) == 128


# -------------------------------------------------------------- text forms
@pytest.mark.parametrize(
    "text",
    [
        "blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0]>",
        "slice<dim=0, parent=blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0]>>",
        "slice<dim=1, parent=slice<dim=0, parent=blocked<spt=[1,1,1], tpw=[1,4,8], wpc=[1,2,2], order=[2,1,0]>>>",
        "slice<dim=0, parent=linear<register=[], lane=[[0,1],[1,0]], warp=[], block=[], shape=[2,2]>>",
        "linear<register=[], lane=[[1],[2]], warp=[], block=[], shape=[4]>",
    ],
)
def test_text_round_trip(text):
    lay = parse_distributed_layout(text)
    assert str(lay) == text
    assert parse_distributed_layout("#layout." + text) == lay


def test_parse_accepts_long_names_and_any_order():
    lay = parse_distributed_layout(
        "blocked<order=[0], warps_per_cta=[4], threads_per_warp=[32], size_per_thread=[1]>"
    )
    assert lay == BlockedLayout([1], [32], [4], [0])
    assert BlockedLayout.parse(str(lay)) == lay
    assert SliceLayout.parse(str(SliceLayout(0, TUT))) == SliceLayout(0, TUT)
    with pytest.raises(LayoutError, match="is not a slice layout"):
        SliceLayout.parse(str(lay))
    with pytest.raises(LayoutError, match="is not a blocked layout"):
        BlockedLayout.parse(str(SliceLayout(0, TUT)))
    assert repr(TUT) == "BlockedLayout([2, 4], [16, 2], [2, 2], [1, 0])"
    assert hash(TUT) == hash(BlockedLayout([2, 4], [16, 2], [2, 2], [1, 0]))


@pytest.mark.parametrize(
    "text, msg",
    [
        ("blocked<spt=[2,4], tpw=[16,2], wpc=[2,2]>", "misses order"),
        ("blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0], spt=[1,1]>", "given twice"),
        ("blocked<spt=[3,4], tpw=[16,2], wpc=[2,2], order=[1,0]>", "not a power of two"),
        ("blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,1]>", "not a permutation"),
        ("blocked<spt=[2], tpw=[16,2], wpc=[2,2], order=[1,0]>", "rank"),
        ("blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], odr=[1,0]>", "unknown blocked parameter"),
        ("slice<dim=2, parent=blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0]>>", "out of range"),
        ("slice<dim=0>", "needs dim= and parent="),
        ("mma<>", "expected blocked"),
        ("blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0]> extra", "trailing"),
    ],
)
def test_parse_errors(text, msg):
    with pytest.raises(LayoutError, match=msg):
        parse_distributed_layout(text)


def test_shape_errors():
    with pytest.raises(LayoutError, match="rank"):
        TUT.to_linear([64])
    with pytest.raises(LayoutError, match="not a power of two"):
        TUT.to_linear([64, 12])
    with pytest.raises(LayoutError, match="not a power of two"):
        SliceLayout(0, TUT).to_linear([24])


# ------------------------------------------------------------------- CuTe
class FakeCute:
    """A duck-typed CuTe layout: ``.shape``, ``.stride``, ``size()``, ``__call__``."""

    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def size(self):
        return _size(self.shape)

    def __call__(self, *coord):
        if len(coord) == 1:
            coord = _idx2crd(coord[0], self.shape)
        return _crd2off(coord, self.shape, self.stride)


def _size(s):
    if isinstance(s, tuple):
        p = 1
        for x in s:
            p *= _size(x)
        return p
    return s


def _idx2crd(i, shape):
    if isinstance(shape, tuple):
        out = []
        for s in shape:
            out.append(_idx2crd(i % _size(s), s))
            i //= _size(s)
        return tuple(out)
    return i


def _crd2off(c, shape, stride):
    if isinstance(shape, tuple):
        if isinstance(c, int):
            c = _idx2crd(c, shape)
        return sum(_crd2off(x, s, d) for x, s, d in zip(c, shape, stride))
    return c * stride


@pytest.mark.parametrize(
    "shape, stride",
    [
        ((4, 8), (1, 4)),
        ((4, 8), (8, 1)),
        ((2, (2, 4)), (8, (1, 2))),
        (((2, 2), (4, 2)), ((1, 16), (2, 64))),
        ((8, 4), (0, 1)),  # broadcast mode
        (16, 2),
    ],
)
def test_cute_to_linear_matches_offsets(shape, stride):
    lay = FakeCute(shape, stride)
    ll = cute_to_linear(lay)
    assert cute_to_linear(shape, stride) == ll
    modes = shape if isinstance(shape, tuple) else (shape,)
    for idx in range(lay.size()):
        crd = _idx2crd(idx, shape) if isinstance(shape, tuple) else (idx,)
        ins = {f"dim{k}": _flat_mode_index(c, m) for k, (c, m) in enumerate(zip(crd, modes))}
        assert ll.apply(**ins) == (lay(idx),)


def _flat_mode_index(c, mode):
    if isinstance(mode, tuple):
        i, mul = 0, 1
        for x, s in zip(c, mode):
            i += _flat_mode_index(x, s) * mul
            mul *= _size(s)
        return i
    return c


def test_cute_to_linear_inverse_is_the_shared_memory_form():
    ll = cute_to_linear(FakeCute((4, 8), (8, 1)))  # row-major 4x8
    assert ll.out_dims == ("offset",) and ll.out_shape == (32,)
    inv = ll.invert()
    assert inv.out_dims == ("dim0", "dim1")
    for off in range(32):
        assert inv.apply(offset=off) == (off // 8, off % 8)


def test_cute_thread_value_layout_against_a_blocked_layout():
    # ((lanes 32, warps 4), values 8) -> row-major 64x16 tile of the tutorial's layout.
    # thread t = warp*32 + lane; lane (l0 | l1..l4) -> col 4*l0, row 2*(l>>1); warps -> col 8, row 32
    tv = FakeCute(
        ((2, 16, 2, 2), (4, 2)),
        ((4, 2 * 16, 8, 32 * 16), (1, 16)),
    )
    ll = cute_to_linear(
        tv,
        in_dims=[("lane", 32), ("warp", 4), ("register", 8)],
        out_dims=[("dim1", 16), ("dim0", 64)],
    ).transpose_outs(["dim0", "dim1"])
    assert equivalent(ll, TUT, [64, 16])


def test_cute_to_linear_errors():
    with pytest.raises(LayoutError, match="not a power of two"):
        cute_to_linear(FakeCute((3, 4), (1, 3)))
    with pytest.raises(LayoutError, match="not linear over GF"):
        cute_to_linear(FakeCute((4, 4), (1, 3)))
    with pytest.raises(LayoutError, match="negative"):
        cute_to_linear(FakeCute((4, 4), (1, -4)))
    with pytest.raises(LayoutError, match="do not fit"):
        cute_to_linear(FakeCute((4, 4), (1, 4)), out_dims=[("dim1", 4), ("dim0", 2)])
    with pytest.raises(LayoutError, match="values"):
        cute_to_linear(FakeCute((4, 4), (1, 4)), in_dims=[("lane", 8)])
    with pytest.raises(LayoutError, match="no .shape"):
        cute_to_linear(object())


def test_cute_to_linear_with_tilec_cute_layout():
    cute = pytest.importorskip("tilec.dialects.cute")
    lay = cute.Layout((4, (2, 4)), (2, (1, 8)))
    ll = cute_to_linear(lay)
    for m in range(4):
        for n in range(8):
            assert ll.apply(dim0=m, dim1=n) == (lay(m, n),)


# -------------------------------------------------------------- properties
@st.composite
def blocked_pair(draw, rank=None):
    """Two blocked layouts with the same lanes and warps, and a tensor shape."""
    rank = rank or draw(st.integers(1, 3))
    lane_bits = draw(st.integers(0, 4))
    warp_bits = draw(st.integers(0, 2))

    def split(bits):
        cuts = sorted(draw(st.lists(st.integers(0, bits), min_size=rank - 1, max_size=rank - 1)))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, bits])]
        return [1 << p for p in parts]

    def one():
        spt = [1 << draw(st.integers(0, 2)) for _ in range(rank)]
        return BlockedLayout(spt, split(lane_bits), split(warp_bits), draw(st.permutations(range(rank))))

    shape = [1 << draw(st.integers(0, 5 if rank == 1 else 3)) for _ in range(rank)]
    return one(), one(), shape


@settings(max_examples=150, deadline=None)
@given(blocked_pair())
def test_linear_equality_agrees_with_owner_equality(pair):
    a, b, shape = pair
    same_linear = a.to_linear(shape) == b.to_linear(shape)
    assert same_linear == (a.owner_map(shape) == b.owner_map(shape))
    assert same_linear == equivalent(a, b, shape)


@settings(max_examples=60, deadline=None)
@given(blocked_pair(), st.integers(0, 2))
def test_layouts_differing_only_on_size_one_dims_are_equal(pair, d):
    a, _, shape = pair
    d = d % a.rank
    # Moving a dim whose spt, tpw and wpc are all 1 around in `order` changes nothing
    # when the tensor is not larger than the block along it.
    spt, tpw, wpc = list(a.size_per_thread), list(a.threads_per_warp), list(a.warps_per_cta)
    lanes, warps = a.lanes_per_warp, a.num_warps
    spt[d], tpw[d], wpc[d] = 1, 1, 1
    # put the removed lanes/warps on another dim (or drop the test in 1D)
    if a.rank == 1:
        return
    o = (d + 1) % a.rank
    tpw[o] *= lanes // _prod(tpw)
    wpc[o] *= warps // _prod(wpc)
    shape = list(shape)
    shape[d] = 1
    base = BlockedLayout(spt, tpw, wpc, a.order)
    order = [x for x in a.order if x != d]
    for pos in range(a.rank):
        moved = BlockedLayout(spt, tpw, wpc, order[:pos] + [d] + order[pos:])
        assert moved.to_linear(shape) == base.to_linear(shape)
        assert moved.owner_map(shape) == base.owner_map(shape)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _reference_kind(a, b, shape):
    """Classify a conversion from the owner maps alone (pull: what each dst owner needs)."""
    oa, ob = a.owner_map(shape), b.owner_map(shape)
    if oa == ob:
        return "identity"
    if all({(w, l) for w, l, _ in ob[c]} <= {(w, l) for w, l, _ in oa[c]} for c in oa):
        return "register"
    if all({w for w, _, _ in ob[c]} <= {w for w, _, _ in oa[c]} for c in oa):
        return "warp_shuffle"
    return "shared"


@settings(max_examples=200, deadline=None)
@given(blocked_pair())
def test_conversion_kind_agrees_with_owner_maps(pair):
    a, b, shape = pair
    assert conversion_kind(a, b, shape) == _reference_kind(a, b, shape)
    assert conversion_kind(b, a, shape) == _reference_kind(b, a, shape)


@settings(max_examples=100, deadline=None)
@given(blocked_pair(rank=2), st.integers(0, 1))
def test_conversion_kind_with_slices(pair, d):
    a, b, shape = pair
    sa, sb = SliceLayout(d, a), SliceLayout(d, b)
    sshape = [shape[1 - d]]
    assert conversion_kind(sa, sb, sshape) == _reference_kind(sa, sb, sshape)


# ------------------------------------------------- owners from Gluon's definition
def gluon_owner_threads(layout_args, shape, coord):
    """The (warp, lane) pairs that hold element `coord`, from the definition of Gluon's
    BlockedLayout alone (no tilec code): along dim d, position p of the layout's tile
    (spt*tpw*wpc elements, repeated over a larger tensor, wrapped over a smaller one)
    belongs to lane (p // spt) % tpw and warp (p // (spt*tpw)) % wpc of that dim; lane
    and warp ids are mixed-radix numbers over the dims in `order`, fastest first."""
    spt, tpw, wpc, order = layout_args
    per_dim = []
    for d, c in enumerate(coord):
        tile = spt[d] * tpw[d] * wpc[d]
        positions = [c] if shape[d] >= tile else range(c, tile, shape[d])
        per_dim.append({((p // spt[d]) % tpw[d], (p // (spt[d] * tpw[d])) % wpc[d]) for p in positions})
    owners = set()
    for choice in _product(per_dim):
        lane = warp = 0
        lane_radix = warp_radix = 1
        for d in order:
            lane += choice[d][0] * lane_radix
            warp += choice[d][1] * warp_radix
            lane_radix *= tpw[d]
            warp_radix *= wpc[d]
        owners.add((warp, lane))
    return owners


def _product(sets):
    import itertools

    return itertools.product(*[sorted(s) for s in sets])


@st.composite
def full_warp_blocked(draw):
    """A blocked layout with 32 lanes per warp, 1-4 warps, and a tensor shape that may be
    smaller (broadcast) or larger (repeated) than its tile."""
    rank = draw(st.integers(1, 3))

    def split(bits):
        cuts = sorted(draw(st.lists(st.integers(0, bits), min_size=rank - 1, max_size=rank - 1)))
        return [1 << (b - a) for a, b in zip([0, *cuts], [*cuts, bits])]

    spt = [1 << draw(st.integers(0, 2)) for _ in range(rank)]
    args = (spt, split(5), split(draw(st.integers(0, 2))), list(draw(st.permutations(range(rank)))))
    shape = [1 << draw(st.integers(0, 6 if rank == 1 else 4)) for _ in range(rank)]
    return args, shape


@settings(max_examples=200, deadline=None)
@given(full_warp_blocked())
def test_owner_map_follows_gluons_definition(case):
    args, shape = case
    om = BlockedLayout(*args).owner_map(shape)
    for coord, owners in om.items():
        assert {(w, lane) for w, lane, _ in owners} == gluon_owner_threads(args, shape, coord), coord
