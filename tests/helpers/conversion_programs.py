"""Random programs for `remove-layout-conversions`: what the unit tests check the pass on
and what `benchmarks/conversion_removal.py` measures it with.

`programs()` draws straight-line programs on 32x32 f32 tiles (a load, conversions,
elementwise math with constants and splats, two stores); `region_programs()` draws the
shapes Triton's RemoveLayoutConversions is tested on: an accumulator loop (scf.for or
scf.while) over loads in one layout, a uniform scf.if whose branches load or make a
value, a small load, an f16 value widened by extf, each with conversions between layouts
drawn from `POOL`; `loop_branch_programs()` draws issue 41's shapes (ifs in loops, nested
loops, scf.while, dead loop-carried values, one-branch conversions) with the weighted
bytes a program must keep. All are modules built with `tilec.Program` (the loops with
`range` and `while_`, the branches with `if_else`)."""

from __future__ import annotations

from functools import lru_cache

from hypothesis import strategies as st

from tilec.dialects.distributed import BlockedLayout, SliceLayout
from tilec.dialects.layout_attrs import LinearBases, LinearLayoutAttr

POOL = [
    BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]),
    BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1]),
    BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0]),
    BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1]),
    BlockedLayout([2, 2], [8, 4], [2, 2], [1, 0]),
    LinearLayoutAttr(LinearBases(register=((0, 2), (0, 1), (16, 0), (0, 16), (0, 8), (0, 4)),
                                 lane=((1, 0), (2, 0), (4, 0), (8, 0), (8, 8)), warp=((0, 0), (0, 0)), block=())),
]


@st.composite
def programs(draw):
    """A straight-line program on 32x32 f32 values (a module built with
    `tilec.Program`): a load, conversions, elementwise math with constants and splats,
    stores of the last value and of one intermediate."""
    import tilec

    p = tilec.Program("random")
    a, b, c = (p.view(p.pointer(name, "f32", align=None), "(32,32):(32,1)") for name in ("p", "q", "s"))
    f = p.constant(0.75, "f32")
    with p.launch(threads=128):
        vals = []  # (value, layout index)

        def convert(v, k):
            value, k0 = v
            if k0 == k and draw(st.booleans()):
                return v
            return (p.convert_layout(value, POOL[k]), k)

        k0 = draw(st.integers(0, len(POOL) - 1))
        vals.append((p.load(a, POOL[k0]), k0))
        for _ in range(draw(st.integers(1, 8))):
            what = draw(st.sampled_from(["convert", "neg", "binary", "constant", "splat"]))
            v = draw(st.sampled_from(vals))
            k = draw(st.integers(0, len(POOL) - 1))
            if what == "convert":
                vals.append(convert(v, k))
            elif what == "neg":
                vals.append((-v[0], v[1]))
            else:
                if what == "binary":
                    w = convert(draw(st.sampled_from(vals)), v[1])
                elif what == "constant":
                    w = convert((p.full([32, 32], 1.5, "f32", POOL[k], dense=True), k), v[1])
                else:
                    w = convert((p.splat(f, [32, 32], POOL[k]), k), v[1])
                op = draw(st.sampled_from(["addf", "mulf", "subf"]))
                r = v[0] + w[0] if op == "addf" else v[0] * w[0] if op == "mulf" else v[0] - w[0]
                vals.append((r, v[1]))
        last = convert(vals[-1], draw(st.integers(0, len(POOL) - 1)))
        p.store(last[0], b)
        mid = draw(st.sampled_from(vals))
        p.store(mid[0], c)
    return p.module


_LAYOUTS_2D = POOL[:5]


class _Kernel:
    """A `tilec.Program` @random of one launch of 128 threads, whose buffers are added
    as they are drawn (f32 pointers `p0`, `p1`, ... viewed as `layout`), with
    `first` / `second` (block x / y is 0: uniform conditions) and the helpers the
    generators share."""

    def __init__(self):
        import tilec

        self.p = tilec.Program("random")
        self._launch = self.p.launch(threads=128)
        k = self._launch.__enter__()
        self.first, self.second = k.bx.eq(0), k.by.eq(0)
        self.buffers = 0

    def buffer(self, layout="(32,32):(32,1)", elem="f32"):
        ptr = self.p.pointer(f"p{self.buffers}", elem, align=None)
        self.buffers += 1
        return self.p.view(ptr, layout)

    def convert(self, v, k0, k, layouts=None):
        """`v` (in layout k0 of `layouts`, default the 2-D ones) in layout k."""
        layouts = layouts or _LAYOUTS_2D
        return v if k0 == k else self.p.convert_layout(v, layouts[k])

    def zeros(self, k, value=0.0):
        return self.p.full([32, 32], value, "f32", _LAYOUTS_2D[k], dense=True)

    def result_of(self, k):
        """A Value to carry as an scf.if's result of layout k that both branches assign:
        a placeholder whose op `drop` erases once the branches no longer use it."""
        return self.zeros(k)

    @staticmethod
    def drop(placeholder):
        op = placeholder.ssa.owner
        assert not placeholder.ssa.uses
        op.detach()
        op.erase()

    @staticmethod
    def copy(v):
        """A second Value for `v`'s SSA value (carried as an if's result, `v` stays)."""
        from tilec.compiler.kernel_builder import Value

        return Value(v.program, v.ssa)

    def module(self):
        self._launch.__exit__(None, None, None)
        return self.p.module


_SLICES = [SliceLayout(1, k) for k in _LAYOUTS_2D]
_TILES = "(128,32):(32,1)"


@st.composite
def region_programs(draw):
    """One to three of the region patterns, each on its own buffers, in one launch
    (a module built with `tilec.Program`)."""
    layouts = st.integers(0, len(_LAYOUTS_2D) - 1)
    kb = _Kernel()
    p, L = kb.p, _LAYOUTS_2D
    f = p.constant(0.75, "f32")
    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["for", "while", "if", "small", "extf"]))
        k1, k2, k3 = draw(layouts), draw(layouts), draw(layouts)
        if what in ("for", "while"):
            src, dst = kb.buffer(_TILES), kb.buffer()
            acc = kb.zeros(k1)

            def body(i):
                x = p.load(p.tile(src, [i, 0], [32, 32]), L[k2])
                acc.assign(acc + kb.convert(x, k2, k1))

            if what == "for":
                with p.range(0, 4, carry=[acc]) as i:
                    body(i)
            else:
                j = p.constant(0)
                with p.while_(lambda: j < 4, carry=[acc, j]):
                    body(j)
                    j += 1
            p.store(kb.convert(acc, k1, k3), dst)
        elif what == "if":
            src, dst = kb.buffer(), kb.buffer()
            placeholder = kb.result_of(k2)
            res = kb.copy(placeholder)
            then, otherwise = p.if_else(kb.first, carry=[res])
            with then:
                res.assign(kb.convert(p.load(src, L[k1]), k1, k2))
            make = draw(st.sampled_from(["constant", "splat"]))
            with otherwise:
                res.assign(kb.zeros(k2, 1.5) if make == "constant" else p.splat(f, [32, 32], L[k2]))
            kb.drop(placeholder)
            p.store(kb.convert(res, k2, k3), dst)
        elif what == "small":
            src, dst = kb.buffer("(32):(1)"), kb.buffer("(32):(1)")
            p.store(kb.convert(p.load(src, _SLICES[k1]), k1, k2, _SLICES), dst)
        else:
            src, dst = kb.buffer(elem="f16"), kb.buffer()
            x = p.load(src, L[k1])
            p.store(kb.convert(x.cast("f32"), k1, k2), dst)
    return kb.module()


@lru_cache(maxsize=None)
def _floor(a: str, b: str, shape: tuple[int, ...] = (32, 32)) -> float:
    """Weighted bytes of one conversion from layout `a` to `b` outside loops and
    branches (the cost model's), 0 for equal layouts."""
    from xdsl.dialects.builtin import Float32Type, TensorType

    from tilec.compiler.builder_types import encoding_attr
    from tilec.passes._layout_cost import CostModel, conversion_cost

    if a == b:
        return 0.0
    x, y = (TensorType(Float32Type(), list(shape), encoding_attr(k)) for k in (a, b))
    return conversion_cost(CostModel(), x, y).units


@st.composite
def loop_branch_programs(draw):
    """Issue 41's shapes, one to three per launch, each on its own buffers, with
    conversions between layouts drawn from `POOL`: a uniform scf.if in an scf.for (also
    nested in an outer scf.for, or in an scf.while) that loads a tile in one layout and
    yields it converted to the layout the loop carries (the other branch yields the
    carried value or a zero; the loop adds it to the carried value or carries it as it
    is), the result stored in a third layout; a dead loop-carried value (scf.for or
    scf.while) that a conversion initialises; an scf.if whose one branch yields a
    conversion and the other a constant, its result reduced (max) or yielded by a
    second such if, then stored.

    Returns (module built with `tilec.Program`, floor): the floor is the weighted bytes
    of the conversions a program of these shapes cannot do without (the cost model's,
    `CostModel()`): per shape one conversion, outside loops and branches, from the
    loaded layout to the stored one (the cheaper of before and after a reduction), none
    for a dead value."""
    layouts = st.integers(0, len(_LAYOUTS_2D) - 1)
    kb = _Kernel()
    p, L = kb.p, _LAYOUTS_2D
    floor = 0.0

    def if_in_loop(i, acc, k1, k2, src):
        """An scf.if on `i > 0` loading tile `i` in k2, yielding it in k1 (or the
        carried value / a zero); the loop's next carried value."""
        r = kb.copy(acc)
        then, otherwise = p.if_else(i > 0, carry=[r])
        with then:
            r.assign(kb.convert(p.load(p.tile(src, [i, 0], [32, 32]), L[k2]), k2, k1))
        if not draw(st.booleans()):
            with otherwise:
                r.assign(kb.zeros(k1))
        if draw(st.booleans()):
            return acc + r
        return r

    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["loop_if", "nested", "while_if", "dead_for", "dead_while",
                                     "if_reduce", "two_ifs"]))
        k1, k2, k3 = draw(layouts), draw(layouts), draw(layouts)
        if what in ("loop_if", "nested", "while_if"):
            src, dst = kb.buffer(_TILES), kb.buffer()
            acc = kb.zeros(k1)
            if what == "loop_if":
                with p.range(0, 4, carry=[acc]) as i:
                    acc.assign(if_in_loop(i, acc, k1, k2, src))
            elif what == "nested":
                with p.range(0, 2, carry=[acc]):
                    with p.range(0, 4, carry=[acc]) as i:
                        acc.assign(if_in_loop(i, acc, k1, k2, src))
            else:
                j = p.constant(0)
                with p.while_(lambda: j < 4, carry=[acc, j]):
                    acc.assign(if_in_loop(j, acc, k1, k2, src))
                    j += 1
            p.store(kb.convert(acc, k1, k3), dst)
            floor += _floor(L[k2], L[k3])
        elif what in ("dead_for", "dead_while"):
            src, dst = kb.buffer(_TILES), kb.buffer()
            acc = kb.zeros(k1)
            d = kb.convert(p.load(dst, L[k1]), k1, k2)

            def body(i):
                x = p.load(p.tile(src, [i, 0], [32, 32]), L[k1])
                acc.assign(acc + x)
                d.assign(d * d)

            if what == "dead_for":
                with p.range(0, 4, carry=[acc, d]) as i:
                    body(i)
            else:
                j = p.constant(0)
                with p.while_(lambda: j < 4, carry=[acc, d, j]):
                    body(j)
                    j += 1
            p.store(acc, dst)
        else:
            srcs = [kb.buffer() for _ in range(1 if what == "if_reduce" else 2)]
            dst = kb.buffer("(32):(1)" if what == "if_reduce" else "(32,32):(32,1)")
            prev = None
            for src, cond in zip(srcs, (kb.first, kb.second)):
                placeholder = kb.result_of(k2) if prev is None else None
                r = kb.copy(prev if prev is not None else placeholder)
                then, otherwise = p.if_else(cond, carry=[r])
                with then:
                    r.assign(kb.convert(p.load(src, L[k1]), k1, k2))
                if prev is None:
                    with otherwise:
                        r.assign(kb.zeros(k2, 1.5))
                    kb.drop(placeholder)
                prev = r
            if what == "if_reduce":
                m = p.reduce(prev, 1, "max")
                p.store(kb.convert(m, k2, k3, _SLICES), dst)
                floor += min(_floor(L[k1], L[k3]), _floor(_SLICES[k1], _SLICES[k3], (32,)))
            else:
                p.store(kb.convert(prev, k2, k3), dst)
                floor += _floor(L[k1], L[k3])
    return kb.module(), floor
