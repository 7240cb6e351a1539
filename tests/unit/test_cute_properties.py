"""Property tests of the CuTe layout algebra (hypothesis).

Each test states the defining property of one operation and checks it on
random hierarchical layouts small enough to enumerate (size <= 512).
"""

from hypothesis import HealthCheck, event, given, settings, strategies as st

from tilec.dialects.cute import (
    DYN, Layout, LayoutError, _, blocked_product, coalesce, complement, composition,
    contiguity, cosize, depth, filter_layout, flat_divide, idx2crd, left_inverse,
    logical_divide, logical_product, make_layout, max_common_layout, max_common_vector,
    parse_layout, raked_product, right_inverse, size, slice_and_offset, tiled_divide,
    unflatten, zipped_divide,
)
from tilec.dialects.swizzle import ComposedLayout, Swizzle

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

POW2 = st.sampled_from([1, 2, 2, 4, 4, 8])
SMALL = st.sampled_from([1, 2, 2, 3, 4, 4, 5, 6, 8])


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

@st.composite
def shapes(draw, extents=SMALL, max_depth=3, max_rank=4, max_size=256):
    """A nested shape (int or tuple, depth <= max_depth) of size <= max_size."""
    budget = [max_size]

    def leaf():
        e = draw(extents)
        if e is DYN:
            return e
        if e > budget[0]:
            e = 1
        budget[0] //= e
        return e

    def node(d):
        if d == 0 or draw(st.integers(0, 2)) == 0:
            return leaf()
        return tuple(node(d - 1) for _i in range(draw(st.integers(1, max_rank))))

    return node(max_depth)


def _with_strides(draw, shape, strides):
    flat = [draw(strides) for _i in range(len(_leaves(shape)))]
    return Layout(shape, unflatten(flat, shape))


def _leaves(t):
    return sum((_leaves(e) for e in t), ()) if type(t) is tuple else (t,)


@st.composite
def layouts(draw, extents=SMALL, strides=st.integers(0, 40), **kw):
    """Any static layout (strides may repeat, be 0 or interleave)."""
    return _with_strides(draw, draw(shapes(extents=extents, **kw)), strides)


@st.composite
def injective_layouts(draw, extents=SMALL, gaps=st.sampled_from([1, 1, 1, 2, 3]), **kw):
    """Injective layouts whose sorted strides each are a multiple of the span
    below them (the layouts complement and left_inverse are defined on)."""
    shape = draw(shapes(extents=extents, **kw))
    flat = _leaves(shape)
    order = draw(st.permutations(range(len(flat))))
    strides = [0] * len(flat)
    span = 1
    for i in order:
        strides[i] = span * draw(gaps)
        span = strides[i] * flat[i]
    return Layout(shape, unflatten(strides, shape))


def offsets(layout):
    return [layout(i) for i in range(size(layout))]


# ---------------------------------------------------------------------------
# Text form
# ---------------------------------------------------------------------------

@SETTINGS
@given(shapes(extents=st.sampled_from([1, 2, 3, 4, 1000, DYN]), max_size=10**9),
       st.data())
def test_print_parse_round_trip(shape, data):
    layout = _with_strides(data.draw, shape, st.one_of(st.integers(-100, 100), st.just(DYN)))
    assert parse_layout(str(layout)) == layout


# ---------------------------------------------------------------------------
# Coalesce and filter
# ---------------------------------------------------------------------------

@SETTINGS
@given(layouts(strides=st.integers(-8, 40)))
def test_coalesce_preserves_function_and_size(layout):
    c = coalesce(layout)
    assert size(c) == size(layout)
    assert depth(c) <= 1
    assert offsets(c) == offsets(layout)
    assert coalesce(c) == c


@SETTINGS
@given(layouts(strides=st.sampled_from([0, 0, 1, 2, 3, 4, 8, 16])))
def test_filter_keeps_the_image(layout):
    f = filter_layout(layout)
    assert set(offsets(f)) == set(offsets(layout))
    assert f == Layout(1, 0) or 0 not in _leaves(f.stride)


# ---------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------

@SETTINGS
@given(layouts(extents=POW2, strides=st.sampled_from([0, 1, 2, 4, 8, 16, 64]), max_size=512),
       layouts(extents=POW2, strides=st.sampled_from([0, 1, 2, 4, 8, 32]), max_size=64))
def test_composition_of_power_of_two_layouts_always_exists(a, b):
    r = composition(a, b)
    _check_composition(a, b, r)


def _refines(b_shape, r_shape) -> bool:
    """Each leaf of ``b_shape`` is an int or a tuple of the same size in ``r_shape``."""
    if type(b_shape) is tuple:
        return (type(r_shape) is tuple and len(r_shape) == len(b_shape)
                and all(_refines(x, y) for x, y in zip(b_shape, r_shape)))
    return size(r_shape) == b_shape


def _check_composition(a, b, r):
    """``r == a o b``: ``r(i) == a(b(i))``, where ``a`` extends past its size
    along the last mode of ``coalesce(a)``."""
    assert _refines(b.shape, r.shape)
    ca = coalesce(a)
    bs = offsets(b)
    if len(set(bs)) == len(bs) or type(b.shape) is int:
        assert offsets(r) == [ca(x) for x in bs]
        assert all(r(i) == a(x) for i, x in enumerate(bs) if x < size(a))
    else:  # CuTe's definition: right distributivity over the modes of b
        for i, m in enumerate(b.modes()):
            assert r[i] == composition(a, m)


@SETTINGS
@given(layouts(strides=st.integers(-6, 30), max_size=512),
       layouts(strides=st.integers(0, 12), max_size=64))
def test_composition_is_exact_or_raises_layout_error(a, b):
    try:
        r = composition(a, b)
    except LayoutError as e:
        assert str(e).startswith(f"composition({a}, {b}): ")
        event("inadmissible")
        return
    event("admissible")
    _check_composition(a, b, r)


@SETTINGS
@given(layouts(extents=POW2, strides=st.sampled_from([1, 2, 4, 8, 16]), max_size=512), st.data())
def test_composition_by_mode(a, data):
    tiler = tuple(
        data.draw(st.sampled_from([_, 1, 2, m.size(), Layout(min(2, m.size()), 1)]))
        for m in a.modes()[: data.draw(st.integers(1, a.rank()))])
    r = composition(a, tiler)
    assert r.rank() == a.rank()
    for i, t in enumerate(tiler):
        expect = a[i] if t is _ else composition(a[i], t)
        assert r[i] == expect


# ---------------------------------------------------------------------------
# Complement and inverses
# ---------------------------------------------------------------------------

@SETTINGS
@given(injective_layouts(gaps=st.sampled_from([1, 1, 1, 2]), max_size=32), st.integers(1, 200))
def test_complement_is_disjoint_and_covering(a, cotarget):
    r = complement(a, cotarget)
    ra = offsets(r)
    assert ra == sorted(ra) and len(set(ra)) == len(ra)            # ordered, injective
    assert set(ra) & set(offsets(a)) == {0}                       # disjoint from a
    both = make_layout(a, r)
    assert sorted(offsets(both)) == list(range(size(both)))         # covers a prefix
    assert size(both) >= cotarget


@SETTINGS
@given(layouts(strides=st.integers(0, 24), max_size=64), st.integers(1, 200))
def test_complement_is_exact_or_raises(a, cotarget):
    try:
        r = complement(a, cotarget)
    except LayoutError:
        event("inadmissible")
        return
    event("admissible")
    f = filter_layout(a)
    both = make_layout(f, r)
    if len(set(offsets(f))) == size(f):
        assert sorted(offsets(both)) == list(range(size(both)))


@SETTINGS
@given(layouts(strides=st.integers(-4, 24)))
def test_right_inverse(layout):
    r = right_inverse(layout)
    assert all(layout(r(i)) == i for i in range(size(r)))


@SETTINGS
@given(injective_layouts())
def test_left_inverse_of_injective_layouts(layout):
    r = left_inverse(layout)
    assert all(r(layout(i)) == i for i in range(size(layout)))


@SETTINGS
@given(injective_layouts(gaps=st.just(1)))
def test_inverses_of_bijections_agree(layout):
    assert cosize(layout) == size(layout)
    r = right_inverse(layout)
    assert size(r) == size(layout)
    assert offsets(r) == offsets(left_inverse(layout))


# ---------------------------------------------------------------------------
# Divide and product
# ---------------------------------------------------------------------------

@SETTINGS
@given(layouts(extents=POW2, strides=st.integers(0, 20), max_size=256),
       injective_layouts(extents=POW2, gaps=st.sampled_from([1, 2]), max_size=16))
def test_logical_divide_rearranges_a(a, b):
    span = max([s * d for s, d in zip(_leaves(b.shape), _leaves(b.stride))] + [1])
    if size(a) % span:
        return
    d = logical_divide(a, b)
    assert size(d) == size(a)
    assert d[0] == composition(a, b)
    assert sorted(offsets(d)) == sorted(offsets(a))
    for f in (zipped_divide, tiled_divide, flat_divide):
        assert sorted(offsets(f(a, b))) == sorted(offsets(a))


@SETTINGS
@given(layouts(extents=POW2, strides=st.integers(0, 20), max_size=256), st.data())
def test_by_mode_divide_keeps_every_element(a, data):
    tiler = tuple(data.draw(st.sampled_from([d for d in (1, 2, 4) if m.size() % d == 0]))
                  for m in a.modes())
    for f in (logical_divide, zipped_divide, tiled_divide, flat_divide):
        d = f(a, tiler)
        assert size(d) == size(a)
        assert sorted(offsets(d)) == sorted(offsets(a))


@SETTINGS
@given(injective_layouts(gaps=st.just(1), max_size=32), injective_layouts(max_size=16))
def test_logical_product_of_compact_block_is_injective(a, b):
    p = logical_product(a, b)
    assert size(p) == size(a) * size(b)
    assert p[0] == a
    vals = offsets(p)
    assert len(set(vals)) == len(vals)
    if a.rank() == b.rank():
        for f in (blocked_product, raked_product):
            assert sorted(offsets(f(a, b))) == sorted(vals)


# ---------------------------------------------------------------------------
# Slicing
# ---------------------------------------------------------------------------

def _coord_strategy(shape):
    """Coordinates congruent to ``shape`` or coarser, with some ``_``."""
    wild_or_int = st.one_of(st.just(_), st.integers(0, size(shape) - 1))
    if type(shape) is tuple:
        return st.one_of(wild_or_int, st.tuples(*[_coord_strategy(s) for s in shape]))
    return wild_or_int


def _fill(coord, values):
    """Replace the ``_`` of ``coord`` in order by ``values`` (an iterator)."""
    if type(coord) is tuple:
        return tuple(_fill(c, values) for c in coord)
    return next(values) if coord is _ else coord


@SETTINGS
@given(layouts(strides=st.integers(-5, 30)), st.data())
def test_slicing_agrees_with_evaluation(layout, data):
    coord = data.draw(_coord_strategy(layout.shape))
    sub, off = slice_and_offset(layout, coord)
    for k in range(size(sub)):
        sc = idx2crd(k, sub.shape)
        full = sc if coord is _ else _fill(coord, iter(sc))
        assert layout(full) == off + sub(sc)


# ---------------------------------------------------------------------------
# Vectorisation helpers
# ---------------------------------------------------------------------------

@SETTINGS
@given(layouts(strides=st.sampled_from([0, 1, 1, 2, 4, 8, 16, 32])))
def test_contiguity(layout):
    n = contiguity(layout)
    assert all(layout(i) == i for i in range(n))
    assert n == size(layout) or layout(n) != n


@SETTINGS
@given(injective_layouts(gaps=st.just(1), extents=POW2), st.data())
def test_max_common_vector(b, data):
    flat = _leaves(b.shape)
    order = data.draw(st.permutations(range(len(flat))))
    a = make_layout(b.shape, unflatten(_compact_in_order(flat, order), b.shape))
    n = max_common_vector(a, b)
    r = max_common_layout(a, b)
    assert size(r) == n
    assert all(a(r(i)) == i and b(r(i)) == i for i in range(n))


def _compact_in_order(flat, order):
    strides, span = [0] * len(flat), 1
    for i in order:
        strides[i] = span
        span *= flat[i]
    return strides


# ---------------------------------------------------------------------------
# Swizzle
# ---------------------------------------------------------------------------

@st.composite
def swizzles(draw):
    bits = draw(st.integers(0, 3))
    base = draw(st.integers(0, 4))
    shift = draw(st.integers(bits, 5)) * draw(st.sampled_from([1, -1]))
    if abs(shift) < bits:
        shift = bits
    return Swizzle(bits, base, shift)


@SETTINGS
@given(swizzles(), st.lists(st.integers(0, 1 << 20), max_size=50))
def test_swizzle_is_an_involution(sw, xs):
    for x in xs:
        assert sw(sw(x)) == x


@SETTINGS
@given(swizzles(), st.integers(0, 3))
def test_swizzle_permutes_aligned_blocks(sw, block):
    n = sw.size()
    lo = block * n
    assert sorted(sw(x) for x in range(lo, lo + n)) == list(range(lo, lo + n))


@SETTINGS
@given(swizzles(), st.data())
def test_swizzled_compact_layout_is_a_permutation(sw, data):
    n = sw.size()
    rows = data.draw(st.sampled_from([d for d in (1, 2, 4, 8) if n % d == 0]))
    layout = make_layout((rows, n // rows), (n // rows, 1))
    c = ComposedLayout(sw, 0, layout)
    assert sorted(c.offsets()) == list(range(n))
