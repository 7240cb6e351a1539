"""LinearLayout over GF(2): construction, text form, algebra, conversions."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import (
    LinearLayout,
    conversion_kind,
    conversion_map,
    equivalent,
    fit_to_shape,
    parse_linear_layout,
)

# The tutorial's BlockedLayout([2,4],[16,2],[2,2],[1,0]) on a 64x16 tensor.
TUTORIAL = LinearLayout(
    {
        "register": [(0, 1), (0, 2), (1, 0)],
        "lane": [(0, 4), (2, 0), (4, 0), (8, 0), (16, 0)],
        "warp": [(0, 8), (32, 0)],
    },
    [64, 16],
)


# ------------------------------------------------------------------ basics
def test_apply_xors_the_bases_of_set_bits():
    assert TUTORIAL.apply() == (0, 0)
    assert TUTORIAL.apply(register=1) == (0, 1)
    assert TUTORIAL.apply(register=4) == (1, 0)
    assert TUTORIAL.apply(register=5, lane=3) == (1 ^ 2, 1 ^ 4)
    assert TUTORIAL.apply(register=7, lane=31, warp=3) == (63, 15)
    assert TUTORIAL(lane=1) == (0, 4)


def test_apply_rejects_out_of_range_and_unknown_inputs():
    with pytest.raises(LayoutError, match="out of range"):
        TUTORIAL.apply(register=8)
    with pytest.raises(LayoutError, match="no input dim"):
        TUTORIAL.apply(offset=1)


def test_counts_and_dims():
    assert TUTORIAL.in_dims == ("register", "lane", "warp", "block")
    assert TUTORIAL.out_dims == ("dim0", "dim1")
    assert TUTORIAL.out_shape == (64, 16)
    assert (TUTORIAL.num_registers, TUTORIAL.num_lanes, TUTORIAL.num_warps, TUTORIAL.num_blocks) == (8, 32, 4, 1)
    assert TUTORIAL.threads_per_cta == 128
    assert TUTORIAL.total_in_bits == 10 and TUTORIAL.total_out_bits == 10


def test_out_shape_is_inferred_from_bases():
    ll = LinearLayout({"lane": [(1,), (2,), (4,)], "warp": [(8,)]})
    assert ll.out_shape == (16,)
    assert LinearLayout({"register": [(0, 3)]}).out_shape == (1, 4)


@pytest.mark.parametrize(
    "bases, shape, msg",
    [
        ({"register": [(0, 16)]}, [64, 16], "out of range"),
        ({"register": [(0, 1, 0)]}, [64, 16], "3 components"),
        ({"register": [(0, 1)]}, [64, 12], "not a power of two"),
        ({"register": [(-1, 0)]}, [64, 16], "out of range"),
        ({"bad name": [(0, 1)]}, [64, 16], "identifier"),
    ],
)
def test_invalid_layouts(bases, shape, msg):
    with pytest.raises(LayoutError, match=msg):
        LinearLayout(bases, shape)


def test_equality_ignores_empty_extra_dims_and_hash_agrees():
    a = LinearLayout({"register": [(1,)], "lane": [(2,)]}, [4])
    b = LinearLayout({"lane": [(2,)], "register": [(1,)], "offset": []}, [4])
    assert a == b and hash(a) == hash(b)
    assert a != LinearLayout({"register": [(2,)], "lane": [(1,)]}, [4])
    assert a != LinearLayout({"register": [(1,)], "lane": [(2,)]}, [8])
    assert len({a, b}) == 1


# ------------------------------------------------------------------- text
def test_str_form():
    assert str(TUTORIAL) == (
        "linear<register=[[0,1],[0,2],[1,0]], lane=[[0,4],[2,0],[4,0],[8,0],[16,0]], "
        "warp=[[0,8],[32,0]], block=[], shape=[64,16]>"
    )


@pytest.mark.parametrize(
    "text",
    [
        "linear<register=[[0,1],[0,2],[1,0]], lane=[[0,4],[2,0],[4,0],[8,0],[16,0]], warp=[[0,8],[32,0]], block=[], shape=[64,16]>",
        "register=[], lane=[[1],[2],[4],[8],[16]], warp=[[32],[64]], block=[], shape=[128]",
        "#layout.linear<lane = [ [1] ], shape = [2]>",
        "linear<offset=[[1,0],[0,1]], out=[dim1:2, dim0:2]>",
        "linear<shape=[]>",
    ],
)
def test_parse_round_trips(text):
    ll = parse_linear_layout(text)
    assert parse_linear_layout(str(ll)) == ll
    assert LinearLayout.parse(str(ll)) == ll
    assert eval(repr(ll), {"parse_linear_layout": parse_linear_layout}) == ll


def test_parse_gluon_distributed_linear_layout_of_the_tutorial():
    ll = parse_linear_layout("register=[], lane=[[1], [2], [4], [8], [16]], warp=[[32], [64]], block=[], shape=[128]")
    assert ll.num_registers == 1 and ll.num_lanes == 32 and ll.num_warps == 4
    # "a 7x7 identity matrix over the bits of the 1D tensor element index"
    for lane in range(32):
        for warp in range(4):
            assert ll.apply(lane=lane, warp=warp) == (warp * 32 + lane,)
    assert ll == LinearLayout.identity_1d(32, "lane", "dim0") * LinearLayout.identity_1d(4, "warp", "dim0")


@pytest.mark.parametrize(
    "text, msg",
    [
        ("linear<register=[[0,1]]>", "missing shape"),
        ("linear<register=[[0,1]], shape=[2,2]", "expected '>'"),
        ("linear<register=[[0,1]], shape=[2,2]> x", "trailing"),
        ("linear<register=[[0,1]], register=[], shape=[2,2]>", "given twice"),
        ("linear<register=[[0;1]], shape=[2,2]>", "unexpected character"),
        ("linear<register=[[0,2]], shape=[2,2]>", "out of range"),
    ],
)
def test_parse_errors(text, msg):
    with pytest.raises(LayoutError, match=msg):
        parse_linear_layout(text)


def test_parse_error_names_the_column():
    with pytest.raises(LayoutError, match="column 20"):
        parse_linear_layout("linear<register=[[0;1]], shape=[2,2]>")


# ---------------------------------------------------------------- algebra
def test_surjective_injective_and_free_variables():
    assert TUTORIAL.is_surjective() and TUTORIAL.is_injective() and TUTORIAL.is_invertible()
    bcast = fit_to_shape(TUTORIAL, [32, 8])  # the tutorial's 32x8 broadcast
    assert bcast.is_surjective() and not bcast.is_injective()
    assert bcast.free_variable_masks() == {"register": 0, "lane": 0, "warp": 0b11, "block": 0}
    # A dependent (non-zero) basis is free too, as in Triton.
    dep = LinearLayout({"lane": [(1,), (2,), (3,)]}, [4])
    assert dep.free_variable_masks()["lane"] == 0b100
    partial = LinearLayout({"register": [(1,)]}, [4])
    assert partial.is_injective() and not partial.is_surjective()


def test_invert():
    inv = TUTORIAL.invert()
    assert inv.out_dims == ("register", "lane", "warp")
    assert inv.apply(dim0=63, dim1=15) == (7, 31, 3)
    for r, l, w in itertools.product(range(8), range(32), range(4)):
        d0, d1 = TUTORIAL.apply(register=r, lane=l, warp=w)
        assert inv.apply(dim0=d0, dim1=d1) == (r, l, w)
    assert inv.invert() == TUTORIAL


def test_invert_requires_a_bijection():
    with pytest.raises(LayoutError, match="not injective"):
        fit_to_shape(TUTORIAL, [32, 8]).invert()
    with pytest.raises(LayoutError, match="not surjective"):
        LinearLayout({"register": [(1,)]}, [4]).invert()
    with pytest.raises(LayoutError, match="not surjective"):
        LinearLayout({"register": [(1,)]}, [4]).pseudo_invert()


def test_pseudo_invert_picks_the_lowest_owner():
    bcast = fit_to_shape(TUTORIAL, [32, 8])
    p = bcast.pseudo_invert()
    for d0, d1 in itertools.product(range(32), range(8)):
        r, l, w = p.apply(dim0=d0, dim1=d1)
        assert w == 0  # warps are free variables: warp 0 is chosen
        assert bcast.apply(register=r, lane=l, warp=w) == (d0, d1)


def test_compose_is_function_composition():
    # lane/warp bits -> element index -> (row, col) of a 8x16 row-major tile.
    flat = LinearLayout({"lane": [(1,), (2,), (4,), (8,), (16,)], "warp": [(32,), (64,)]}, [128])
    to_2d = LinearLayout({"dim0": [(0, 1), (0, 2), (0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]}, [8, 16])
    both = flat.compose(to_2d)
    for lane in range(32):
        for warp in range(4):
            i = warp * 32 + lane
            assert both.apply(lane=lane, warp=warp) == (i // 16, i % 16)
    with pytest.raises(LayoutError, match="does not fit"):
        flat.compose(LinearLayout({"dim0": [(1,)]}, [2]))


def test_product_and_identity():
    ll = LinearLayout.identity_1d(4, "register", "dim1") * LinearLayout.identity_1d(2, "register", "dim0")
    assert ll.out_dims == ("dim1", "dim0") and ll.out_shape == (4, 2)
    assert ll.bases["register"] == [(1, 0), (2, 0), (0, 1)]
    assert ll.transpose_outs(["dim0", "dim1"]) == LinearLayout({"register": [(0, 1), (0, 2), (1, 0)]}, [2, 4])
    assert LinearLayout.zeros_1d(4, "warp", "dim0").bases["warp"] == [(0,), (0,)]
    ident = LinearLayout.identity({"dim0": 4, "dim1": 2})
    assert ident.apply(dim0=3, dim1=1) == (3, 1)


def test_invert_and_compose():
    src = BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0]).to_linear([128, 128])
    dst = BlockedLayout([1, 1], [32, 1], [4, 1], [0, 1]).to_linear([128, 128])
    c = dst.invert_and_compose(src)
    for h in range(0, dst.total_in_size, 37):
        ins = dst.split_flat_input(h)
        outs = dict(zip(c.out_dims, c.apply(**ins)))
        assert src.apply(**outs) == dst.apply(**ins)
    with pytest.raises(LayoutError, match="not an image"):
        LinearLayout({"register": [(1,)]}, [2]).invert_and_compose(LinearLayout({"register": []}, [2]))


# ---------------------------------------------------- equivalence, conversion
def test_equivalent_ignores_representation():
    a = LinearLayout({"register": [(1, 0)], "lane": [(0, 1)]}, {"dim0": 2, "dim1": 2})
    b = LinearLayout({"lane": [(1, 0)], "register": [(0, 1)], "offset": []}, {"dim1": 2, "dim0": 2})
    assert a != b and equivalent(a, b)
    assert not equivalent(a, LinearLayout({"register": [(0, 1)], "lane": [(1, 0)]}, [2, 2]))
    with pytest.raises(LayoutError, match="needs a tensor shape"):
        equivalent(BlockedLayout([1], [32], [4], [0]), a)


def _bl(spt, tpw, wpc, order, shape):
    return BlockedLayout(spt, tpw, wpc, order).to_linear(shape)


def test_conversion_kinds_by_example():
    shape = [128, 128]
    row = _bl([1, 1], [1, 32], [1, 4], [1, 0], shape)
    col = _bl([1, 1], [32, 1], [4, 1], [0, 1], shape)
    assert conversion_kind(row, row) == "identity"
    # The tutorial's in/out layouts: data crosses warps.
    assert conversion_kind(row, col) == "shared"
    # Same threads, registers renumbered: spt [2,4] walked in another order.
    a = _bl([2, 4], [16, 2], [2, 2], [1, 0], [64, 16])
    b = LinearLayout(
        {"register": [(1, 0), (0, 1), (0, 2)], "lane": a.get_bases("lane"), "warp": a.get_bases("warp")}, [64, 16]
    )
    assert conversion_kind(a, b) == "register"
    # Warps hold different parts of the tensor.
    c = _bl([1, 1], [4, 8], [2, 2], [1, 0], [8, 16])
    d = _bl([1, 1], [8, 4], [1, 4], [0, 1], [8, 16])
    assert conversion_kind(c, d) == "shared"
    # Warps keep their rows; inside a warp, lanes walk dim0 first vs dim1 first.
    e = _bl([1, 1], [8, 4], [4, 1], [0, 1], [32, 4])
    f = _bl([1, 1], [8, 4], [4, 1], [1, 0], [32, 4])
    assert conversion_kind(e, f) == "warp_shuffle"
    # Distributed layouts with a shape are accepted directly.
    assert conversion_kind(BlockedLayout([1], [32], [4], [0]), BlockedLayout([1], [32], [4], [0]), [128]) == "identity"


def test_conversion_from_a_broadcast_layout_needs_no_movement():
    # Every warp holds the whole 32x8 tensor: going to any layout of the same
    # lanes that keeps each element in its lane only renames registers.
    bcast = _bl([2, 4], [16, 2], [2, 2], [1, 0], [32, 8])
    assert conversion_kind(bcast, bcast) == "identity"
    spread = _bl([1, 1], [8, 4], [4, 1], [1, 0], [32, 8])  # warps split the rows
    assert conversion_kind(bcast, spread) == "warp_shuffle"
    # ... but the other way, warps must exchange data.
    assert conversion_kind(spread, bcast) == "shared"


def test_conversion_kinds_across_ctas():
    """Two CTAs of a 16x32 tensor; the layouts have equal register, lane and warp
    bases and differ in the block basis only. Block 1 of `dst` then holds what block 1
    of `src` holds moved by the difference of the two block bases: a register
    renaming only where that difference is a register basis, a shuffle where it is a
    lane's, shared memory where it is a warp's (never "register" because the
    thread-level bases agree)."""
    shape = [16, 32]
    lanes = [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16)]

    def layout(block):
        return LinearLayout({"register": [(1, 0)], "lane": lanes, "warp": [(2, 0), (4, 0)], "block": [block]}, shape)

    src = layout((8, 0))
    assert src.num_blocks == 2
    assert conversion_kind(src, layout((8, 0))) == "identity"
    assert conversion_kind(src, layout((9, 0))) == "register"
    assert conversion_kind(src, layout((8, 1))) == "warp_shuffle"
    assert conversion_kind(src, layout((10, 0))) == "shared"
    assert conversion_kind(layout((10, 0)), src) == "shared"


def test_conversion_kind_errors():
    a = _bl([1], [32], [4], [0], [128])
    with pytest.raises(LayoutError, match="same shape"):
        conversion_kind(a, _bl([1], [32], [4], [0], [256]))
    with pytest.raises(LayoutError, match="warp counts differ"):
        conversion_kind(a, _bl([1], [32], [2], [0], [128]))


# ------------------------------------------------------------- properties
def _bits_matrix_strategy(n_bits):
    """Random invertible n x n matrix over GF(2) as column ints (identity + XOR row ops)."""
    return st.lists(st.tuples(st.integers(0, n_bits - 1), st.integers(0, n_bits - 1)), max_size=3 * n_bits).flatmap(
        lambda ops: st.permutations(range(n_bits)).map(lambda perm: (ops, perm))
    )


@st.composite
def bijective_layouts(draw):
    out_bits = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(1, 3)))]
    n = sum(out_bits)
    ops, perm = draw(_bits_matrix_strategy(max(n, 1)))
    cols = [1 << perm[i] for i in range(n)]
    for a, b in ops:
        if a != b and a < n and b < n:
            cols[a] ^= cols[b]
    # split the columns over register/lane/warp
    cut1 = draw(st.integers(0, n))
    cut2 = draw(st.integers(cut1, n))
    offs = [sum(out_bits[:k]) for k in range(len(out_bits))]

    def unpack(v):
        return tuple((v >> o) & ((1 << b) - 1) for o, b in zip(offs, out_bits))

    bases = {
        "register": [unpack(c) for c in cols[:cut1]],
        "lane": [unpack(c) for c in cols[cut1:cut2]],
        "warp": [unpack(c) for c in cols[cut2:]],
    }
    return LinearLayout(bases, [1 << b for b in out_bits])


@settings(max_examples=60, deadline=None)
@given(bijective_layouts())
def test_invert_composes_to_identity(ll):
    assert ll.is_invertible()
    inv = ll.invert()
    in_sizes = {n: ll.in_dim_size(n) for n in ll.in_dims if ll.get_bases(n)}
    assert ll.compose(inv) == LinearLayout.identity(in_sizes)
    assert inv.compose(ll) == LinearLayout.identity(dict(zip(ll.out_dims, ll.out_shape)))


@st.composite
def layout_between(draw, in_dims, out_dims):
    """A random (not necessarily invertible) layout between named dims of given sizes."""
    bases = {}
    for name, size in in_dims.items():
        bases[name] = [
            tuple(draw(st.integers(0, s - 1)) for s in out_dims.values()) for _ in range(size.bit_length() - 1)
        ]
    return LinearLayout(bases, out_dims)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_compose_is_associative(data):
    x = {"register": 4, "lane": 8}
    y = {"dim0": 8, "dim1": 4}
    z = {"a": 16, "b": 2}
    w = {"c": 4, "d": 8}
    f = data.draw(layout_between(x, y))
    g = data.draw(layout_between(y, z))
    h = data.draw(layout_between(z, w))
    assert f.compose(g).compose(h) == f.compose(g.compose(h))
    for r in range(4):
        for l in range(8):
            mid = dict(zip(f.out_dims, f.apply(register=r, lane=l)))
            assert f.compose(g).apply(register=r, lane=l) == g.apply(**mid)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pseudo_invert_is_a_right_inverse(data):
    ll = data.draw(layout_between({"register": 8, "lane": 4, "warp": 4}, {"dim0": 4, "dim1": 4}))
    if not ll.is_surjective():
        with pytest.raises(LayoutError):
            ll.pseudo_invert()
        return
    p = ll.pseudo_invert()
    for d0 in range(4):
        for d1 in range(4):
            hw = dict(zip(p.out_dims, p.apply(dim0=d0, dim1=d1)))
            assert ll.apply(**hw) == (d0, d1)


def test_conversion_map_pulls_each_destination_element_from_a_source_location():
    src = BlockedLayout([2, 4], [16, 2], [2, 2], [1, 0]).to_linear([32, 8])  # broadcast over warps
    dst = BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0]).to_linear([32, 8])
    cmap = conversion_map(src, dst)
    assert cmap.in_dims[:3] == ("register", "lane", "warp") and cmap.out_dims == ("register", "lane", "warp")
    for h in range(dst.total_in_size):
        ins = dst.split_flat_input(h)
        assert cmap.apply(**ins)[2] == 0  # every warp holds everything: read from warp 0
        assert src.apply(**dict(zip(cmap.out_dims, cmap.apply(**ins)))) == dst.apply(**ins)
    with pytest.raises(LayoutError, match="not an image"):
        conversion_map(LinearLayout({"register": [(1,)]}, [4]), LinearLayout({"register": [(2,)]}, [4]))
