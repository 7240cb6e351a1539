"""The gather strategy of a whole-tensor copy (`#layout.copy_strategy<gather>`), as the
`tile` pass writes it: a `layout.launch` over pointer tensors.

    ops = gather_launch(copy, facts, target, bits)   # replaces the copy

Each thread owns `R` runs (the `tile` pass's option `runs`, default
`GATHER_RUNS_PER_THREAD`) of `V` consecutive destination
elements (in the row-major order of the modes; where the destination is compact that is
one `V`-element vector store, `vectorize-pointers` proves it) and gathers their sources.
In Gluon's terms: a `[rows x V]` tensor in `#layout.blocked<{sizePerThread = [1, V],
threadsPerWarp = [32, 1], warpsPerCTA = [threads/32, 1], order = [1, 0]}>`, rows
`threads * R`, and block `b` holds the flat indices `b * rows * V + row * V + j`.

Where every run is one aligned source vector (`_copy_cost.vector_runs`: a broadcast
row, rows of a padded source repeated) the run index itself is decomposed, the last
mode counted in runs, so each run's source offset is `V` times a sum and
`vectorize-pointers` makes the load one vector. Otherwise offsets are computed
incrementally, not by `rank` divisions per element: a run's first
flat index is decomposed over the extents once (coordinates `c_k`, source offset `so`),
then element `j` of the run is at `so + j * s_last`, plus `W` where `c_last + j` wrapped
past `n_last`. `W` is the offset change of a wrap of the last mode, the carry rippling
through the modes whose coordinate is at its last value:

    E_0 = s_0;  E_k = s_k if c_k + 1 < n_k else E_(k-1) - (n_k - 1) * s_k
    W   = E_(r-2) - n_last * s_last

At most one wrap fits a run because `n_last >= V` (`_copy_cost.gather_vector`: `V` is at
most half the last mode's known extent class). The destination's offsets are the flat
index where it is compact, else computed the same way. Elements past the end are
masked. Offsets are `i<bits>`; with 32-bit offsets, a division of the ids by a run-time
extent is a multiplication by its magic multiplier, computed on the host
(`fast_divisor`), and a shift. A converting copy converts in registers between the
gather and the store (`_convert_ops.conversion_ops`, as `distribute` does).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue

from tilec.dialects import layout_compute as lc
from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.layout import (
    ArangeOp,
    BroadcastOp,
    CopyOp,
    ExpandDimsOp,
    LaunchOp,
    SplatOp,
)
from tilec.dialects.layout_attrs import BlockedLayoutAttr, PtrType, SliceLayoutAttr
from tilec.dialects.layout_ptr import AddPtrOp, MultipleOfOp, PtrLoadOp, PtrStoreOp
from tilec.support.target import Target

from ._convert_ops import conversion_ops
from ._copy_cost import GATHER_RUNS_PER_THREAD, GATHER_THREADS, CopyFacts, Value, _static, gather_vector, vector_runs

index = IndexType()
i1 = IntegerType(1)
INDEX32_LIMIT = 2**31


FAST_DIVISOR_SHIFT = 62
"""`fast_divisor`'s scale: the magic multiplier of `d` is `ceil(2**62 / d)`."""


def fast_divisor(host: list[Operation], d: SSAValue) -> SSAValue:
    """Host ops appended to `host` computing the magic multiplier (an i64) of a run-time
    divisor `d` (an index, at least 1; 0 is taken as 1): `m = (2**62 - 1) / d + 1 = ceil(2**62
    / d)` (`d` not a power of two; `2**62 / d` where it is), at most 2**62. For every
    `x < 2**31` and `d < 2**31`, `x / d` is the high half of the 64-bit product
    `4 x * m` (`x m / 2**62`: `m d - 2**62 < d`, so the product overshoots `x / d` by
    less than `x / 2**62 < 1 / d`, never reaching the next integer). (CUTLASS's
    FastDivmod, with a fixed shift instead of one per divisor.)"""
    one = arith.ConstantOp.from_int_and_width(1, index)
    top = arith.ConstantOp.from_int_and_width((1 << FAST_DIVISOR_SHIFT) - 1, index)
    at_least_one = arith.MaxUIOp(d, one.result)
    q = arith.DivUIOp(top.result, at_least_one.result)
    m = arith.AddiOp(q.result, one.result)
    # an i64 kernel parameter: a kernel of 32-bit indices passes its index values as 32 bits
    wide = arith.IndexCastOp(m.result, IntegerType(64))
    host.extend([one, top, at_least_one, q, m, wide])
    return wide.result


MAGIC64 = True
"""Whether kernels of 64-bit offsets divide their ids by a run-time divisor as a
multiplication (`magic_divmod64`: the host's `fast_divisor`, the high half of a 64 x 64-bit
product, one correction) instead of a 64-bit division (a subroutine of some 40
instructions on the FP64 and integer pipes); the `tile` pass's `magic64=`. H200, the
strided set's 64-bit gathers (benchmarks/NOTES.md, slice41), ratio to cudaMemcpy: 07 0.425
-> 0.568, 43 0.481 -> 0.494, 37 0.628 -> 0.630."""


def magic(d: int) -> tuple[int, int]:
    """(m, s) with floor(x * m / 2**s) == x // d for every 0 <= x < 2**31 (d >= 1):
    l = ceil(log2 d), s = 31 + l, m = ceil(2**s / d) <= 2**32, so x * m < 2**63.
    (m * d = 2**s + e with 0 <= e < d <= 2**l: x * m / 2**s = x / d + x * e /
    (d * 2**s), the second term below 1/d, which cannot carry x / d past the next
    integer.) The kernel computes the same pair on the host for a run-time divisor
    (`host_magic`)."""
    d = max(1, d)
    s = 31 + (d - 1).bit_length()
    return -(-(1 << s) // d), s


def host_magic(x: Value, ops: list[Operation]) -> tuple[SSAValue, SSAValue]:
    """`magic(d)` of a divisor `x` as index values (0 taken as 1), its ops appended to `ops` (host
    ops: a static divisor folds to constants): l = bit_length(d - 1) by halving steps,
    s = 31 + l, m = ceil(2**s / d)."""

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def const(v: int) -> SSAValue:
        return add(arith.ConstantOp.from_int_and_width(v, index))

    k = _static(x)
    if k is not None:
        m, sh = magic(k)
        return const(m), const(sh)
    d = add(arith.MaxUIOp(x if not isinstance(x, int) else const(x), const(1)))  # 0 as 1 (`magic`)
    rest = add(arith.SubiOp(d, const(1)))
    bits = const(0)
    for step in (16, 8, 4, 2, 1):
        big = add(arith.CmpiOp(rest, const(1 << step), "uge"))
        rest = add(arith.SelectOp(big, add(arith.ShRUIOp(rest, const(step))), rest))
        bits = add(arith.SelectOp(big, add(arith.AddiOp(bits, const(step))), bits))
    nonzero = add(arith.CmpiOp(rest, const(0), "ne"))
    bits = add(arith.SelectOp(nonzero, add(arith.AddiOp(bits, const(1))), bits))
    sh = add(arith.AddiOp(bits, const(31)))
    return add(arith.CeilDivUIOp(add(arith.ShLIOp(const(1), sh)), d)), sh


def host_magic_i64(x: Value, ops: list[Operation]) -> tuple[SSAValue, SSAValue]:
    """`host_magic` with m as an i64 host value: m reaches 2**32, past a 32-bit index
    parameter of a kernel with 32-bit offsets (the launcher refused 2**31 and up)."""
    m, sh = host_magic(x, ops)
    cast = arith.IndexCastOp(m, IntegerType(64))
    ops.append(cast)
    return cast.results[0], sh


DIV32 = True
"""Whether kernels of 32-bit offsets divide their ids by a run-time extent as a 32-bit
multiply-high and a shift (`divmod32`: `host_magic`'s pair, m below 2**32,
q = umulhi(2 x, m) >> (s - 31)) instead of the high half of a 64 x 64-bit product
(`fast_divisor`); the `tile` pass's `div32=`. H200, the strided set's 32-bit gathers in
turns (benchmarks/NOTES.md, gat43): 38 0.708 -> 0.768 of cudaMemcpy, the rest within the
spread."""


NARROW32_RUN = 8
"""The run length (elements) at which kernels of 32-bit offsets take the narrow element
form too (`narrow32_rule`: each element's wrap and bound one comparison of `j` against a
run's clamped bound, its offset one of two per-run bases plus `j`), as 64-bit ones with
`magic64` do; the `tile` pass's `narrow32=` forces it either way. H200, the strided set's
32-bit gathers in turns (benchmarks/NOTES.md, gat43): runs of 8 (2-byte elements) 38
0.665 -> 0.708, 13 0.906 -> 0.941, 25 0.768 -> 0.784; runs of 16 (1-byte) 14 1.000 ->
0.985, 20 -0.6%; runs of 2 and 4 within the spread or slower (44 0.995 -> 0.975)."""


INBOUNDS_RUN: int | None = None
"""The shortest run (elements) at which gather copies load their sources unmasked by
default (`inbounds_rule`; None: never), every element's source offset in bounds by
construction (`gather_launch`'s `inbounds`: a run past the end decomposed as the last
element, the last row's wrapped elements taken from the row itself), the element mask
on the stores only; the `tile` pass's `inbounds=` forces it either way. H200, the strided
set's gathers in turns (benchmarks/NOTES.md, gat44): static SASS -17% on 38 (its 13 `P2R`
spills gone) yet 38 x0.996, 13 x0.976, 25 x0.980, 07 x0.978, the rest within the spread:
off."""


def inbounds_rule(v: int) -> bool:
    """Whether a gather of runs of `v` elements loads its sources unmasked by default
    (`INBOUNDS_RUN`)."""
    return INBOUNDS_RUN is not None and v >= INBOUNDS_RUN


def narrow32_rule(v: int) -> bool:
    """Whether a gather of 32-bit offsets and runs of `v` elements takes the narrow element
    form by default (`NARROW32_RUN`)."""
    return v == NARROW32_RUN


def magic_divmod64(b: "_Body", x: SSAValue, d: SSAValue, magic: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(x / d, x % d) of an i64 tensor `x` of values 0 <= x < 2**62 by the splat i64
    divisor tensor `d` (1 <= d), given `magic` = `fast_divisor(d)` = ceil(2**62 / d) (an
    i64 scalar): the estimate q' = high half of (4 x) * m, i.e. floor(x m / 2**62) =
    floor(x / d + x e / (d 2**62)) with m d = 2**62 + e, 0 <= e < d, whose second term is
    below x / 2**62 < 1, so q' is x / d or one more; r' = x - q' d, and where r' < 0 the
    quotient is q' - 1 and the remainder r' + d. Exact for every such x and d (the 32-bit
    ids' form needs x d < 2**62 and no correction)."""
    typ = x.type
    i64 = IntegerType(64)
    m = b.splat(magic, typ)  # type: ignore[arg-type]
    two = b.splat(b.const(2, i64), typ)  # type: ignore[arg-type]
    x4 = b.add(arith.ShLIOp(x, two))
    q = b.add(arith.MulUIExtendedOp(x4, m)).owner.results[1]
    r = b.subi(x, b.muli(q, d))
    zero = b.splat(b.const(0, i64), typ)  # type: ignore[arg-type]
    one = b.splat(b.const(1, i64), typ)  # type: ignore[arg-type]
    over = b.cmp("slt", r, zero)
    return b.select(over, b.subi(q, one), q), b.select(over, b.addi(r, d), r)


def static_index_bits(facts: CopyFacts, block: int) -> int | None:
    """32 where every extent and stride is static and every flat index (a block past
    the end included) and every offset of both views fits a signed 32-bit integer; 64
    where one does not; None where something is dynamic."""
    ns = [_static(m.extent) for m in facts.modes]
    ss = [_static(m.src_stride) for m in facts.modes]
    ds = [_static(m.dst_stride) for m in facts.modes]
    if None in ns or None in ss or None in ds:
        return None
    total = 1
    for n in ns:
        total *= n
    fits = total + block < INDEX32_LIMIT
    for view in (ss, ds):
        reach = sum(n * abs(s) for n, s in zip(ns, view)) + max(abs(s) for s in view)
        fits = fits and reach < INDEX32_LIMIT
    return 32 if fits else 64


class _Body:
    """The ops of the launch body and the types they share (module doc)."""

    def __init__(self, it: IntegerType, rows: int, v: int, threads: int):
        self.it, self.rows, self.v = it, rows, v
        self.ops: list[Operation] = []
        self.l = BlockedLayoutAttr(BlockedLayout([1, v], [32, 1], [threads // 32, 1], [1, 0]))
        self.r = SliceLayoutAttr(IntAttr(1), self.l)
        self.j = SliceLayoutAttr(IntAttr(0), self.l)
        self.R = TensorType(it, [rows], self.r)
        self.J = TensorType(it, [v], self.j)
        self.T = TensorType(it, [rows, v], self.l)
        self._consts: dict[tuple[int, IntegerType], SSAValue] = {}

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, v: int, it: IntegerType | None = None) -> SSAValue:
        """The constant `v` of the offset type (or `it`), one op per value and type."""
        key = (v, it or self.it)
        if key not in self._consts:
            self._consts[key] = self.add(arith.ConstantOp(IntegerAttr(v, key[1])))
        return self._consts[key]

    def scalar(self, x: Value) -> SSAValue:
        """A static int or an index value in the offset type."""
        if isinstance(x, int) or _static(x) is not None:
            return self.const(_static(x))  # type: ignore[arg-type]
        return self.add(arith.IndexCastOp(x, self.it))

    def splat(self, x: SSAValue, typ: TensorType | None = None) -> SSAValue:
        return self.add(SplatOp.build(operands=[x], result_types=[typ or self.R]))

    def arange(self, n: int, typ: TensorType) -> SSAValue:
        i32 = IntegerType(32)
        props = {"start": IntegerAttr(0, 64), "end": IntegerAttr(n, 64)}
        if self.it == i32:
            return self.add(ArangeOp.build(properties=props, result_types=[typ]))
        a = self.add(ArangeOp.build(properties=props, result_types=[TensorType(i32, [n], typ.encoding)]))
        return self.add(lc.ExtSIOp(a, typ))

    def full(self, x: SSAValue, axis: int) -> SSAValue:
        """A [rows] (axis 1) or [V] (axis 0) tensor broadcast to [rows x V]."""
        mid_shape = [1, self.v] if axis == 0 else [self.rows, 1]
        elem = x.type.element_type  # type: ignore[attr-defined]
        mid = self.add(ExpandDimsOp.build(operands=[x], properties={"axis": IntegerAttr(axis, 64)},
                                          result_types=[TensorType(elem, mid_shape, self.l)]))
        return self.add(BroadcastOp.build(operands=[mid], result_types=[TensorType(elem, [self.rows, self.v], self.l)]))

    def muli(self, a, b):
        return self.add(arith.MuliOp(a, b))

    def divmod(self, x: SSAValue, d: SSAValue, magic) -> tuple[SSAValue, SSAValue]:
        """(x mod d, x / d) of non-negative ids `x` (a [rows] tensor) by `d` (a scalar
        of the offset type): unsigned divisions, or where the host gave `d`'s magic
        multiplier (`fast_divisor`; 32-bit ids below 2**31), the quotient the high
        half of the 64-bit product `4 x * magic`, the remainder `x - q d`; where it
        gave `host_magic`'s pair (m, s) (`DIV32`), the quotient `umulhi(2 x, m) >> (s - 31)`
        in 32 bits (`divmod32`)."""
        dd = self.splat(d, x.type)  # type: ignore[arg-type]
        if magic is None:
            return self.add(arith.RemUIOp(x, dd)), self.add(arith.DivUIOp(x, dd))
        if isinstance(magic, tuple):
            q = divmod32(self, x, magic)
            return self.subi(x, self.muli(q, dd)), q
        i64 = IntegerType(64)
        if x.type.element_type == i64:  # type: ignore[attr-defined]
            q, r = magic_divmod64(self, x, dd, magic)
            return r, q
        wide = TensorType(i64, x.type.get_shape(), x.type.encoding)  # type: ignore[attr-defined]
        m = self.splat(magic, wide)
        four = self.splat(self.const(2, i64), wide)
        x4 = self.add(arith.ShLIOp(self.add(lc.ExtUIOp(x, wide)), four))
        q = self.add(lc.TruncIOp(self.add(arith.MulUIExtendedOp(x4, m)).owner.results[1], x.type))
        return self.subi(x, self.muli(q, dd)), q

    def addi(self, a, b):
        return self.add(arith.AddiOp(a, b))

    def subi(self, a, b):
        return self.add(arith.SubiOp(a, b))

    def cmp(self, pred: str, a, b):
        return self.add(lc.CmpiOp(a, b, pred))

    def select(self, c, a, b):
        return self.add(lc.SelectOp(c, a, b))


def divmod32(b: "_Body", x: SSAValue, magic: tuple[SSAValue, SSAValue]) -> SSAValue:
    """x / d of an i32 tensor `x` of values 0 <= x < 2**31, given `host_magic(d)`'s
    pair (m an i64 below 2**32, s = 31 + l an index; d below 2**31): the quotient is
    floor(x m / 2**s) (`magic`), i.e. the high half of the 32-bit product
    (2 x) m (2 x < 2**32) shifted right by l: one shift, one multiply-high, one shift."""
    m, s = magic
    i32 = IntegerType(32)
    typ = x.type
    m32 = b.add(arith.TruncIOp(m, i32))
    el = b.add(arith.SubiOp(b.add(arith.IndexCastOp(s, i32)), b.const(31, i32)))
    x2 = b.add(arith.ShLIOp(x, b.splat(b.const(1, i32), typ)))  # type: ignore[arg-type]
    hi = b.add(arith.MulUIExtendedOp(x2, b.splat(m32, typ))).owner.results[1]  # type: ignore[arg-type]
    return b.add(arith.ShRUIOp(hi, b.splat(el, typ)))  # type: ignore[arg-type]


class Narrow:
    """A chunk's (or a gather run's) element tests in 32 bits: per-row bounds of any width clamped to [0, V]
    (`bound`) and truncated, compared with the elements' 32-bit indices (`index`), so
    that a kernel of 64-bit offsets tests each element with one 32-bit comparison, not
    two (a 64-bit one)."""

    def __init__(self, b: "_Body", v: int):
        self.b, self.v = b, v
        self.i32 = IntegerType(32)
        self.R32 = TensorType(self.i32, [b.rows], b.r)
        self.J32 = TensorType(self.i32, [b.v], b.j)

    def bound(self, x: SSAValue) -> SSAValue:
        """A [rows] tensor clamped to [0, V], as i32."""
        b = self.b
        c = b.add(arith.MinSIOp(b.add(arith.MaxSIOp(x, b.splat(b.const(0)))), b.splat(b.const(self.v))))
        return c if b.it == self.i32 else b.add(lc.TruncIOp(c, self.R32))

    def index(self, at: int) -> SSAValue:
        """The [rows x b.v] tensor of element indices at + j, as i32."""
        b = self.b
        props = {"start": IntegerAttr(at, 64), "end": IntegerAttr(at + b.v, 64)}
        return b.full(b.add(ArangeOp.build(properties=props, result_types=[self.J32])), 0)


def _run_offsets(b: _Body, facts: CopyFacts, n: list[SSAValue], r_ids: SSAValue, pid_i: SSAValue,
                 jj: SSAValue, magic: dict[int, SSAValue]) -> SSAValue:
    """The source offsets where every run is one aligned source vector (`vector_runs`):
    the run index (not the flat one) decomposed over the extents, the last counted in
    runs, and the run's offset written as `V` times a sum, so that the pointers' axis
    analysis sees `V` contiguous elements from a multiple of `V` (one vector load)."""
    last = facts.rank - 1
    v = b.const(b.v)
    rbase = b.addi(r_ids, b.splat(b.muli(pid_i, b.const(b.rows))))
    nlv = b.add(arith.DivUIOp(n[last], v))
    coords: list[SSAValue] = [rbase] * facts.rank
    rest = rbase
    for k in range(last, 0, -1):
        # run ids and extents are non-negative: unsigned (no sign fix-up per division)
        coords[k], rest = b.divmod(rest, nlv if k == last else n[k], None if k == last else magic.get(k))
    coords[0] = rest
    so = coords[last]
    for k in range(last):
        s = facts.modes[k].src_stride
        if _static(s) == 0:
            continue
        # a multiple of V (vector_runs)
        q = b.add(arith.DivSIOp(b.scalar(s), v))
        so = b.addi(so, b.muli(coords[k], b.splat(q)))
    return b.addi(b.full(b.muli(so, b.splat(v)), 1), jj)


def _count_divisor(facts: CopyFacts) -> int:
    """What the element count is known a multiple of: the product of each mode's static
    or exact extent, or of the power of two its `divisible` promises."""
    out = 1
    for m in facts.modes:
        k = m.bound if m.exact and m.bound is not None else _static(m.extent)
        out *= k if k is not None else m.divisor & -m.divisor
    return out


def gather_launch(copy: CopyOp, facts: CopyFacts, target: Target, bits: int, threads: int = GATHER_THREADS,
                  runs: int = GATHER_RUNS_PER_THREAD, magic64: bool = MAGIC64,
                  narrow32: bool | None = None, div32: bool = DIV32,
                  narrow_count: bool = False, inbounds: bool | None = None,
                  run_bytes: int = 0) -> list[Operation]:
    """The host ops and the `layout.launch` of the gather strategy of `copy` (module
    doc), with `bits`-bit offsets, `threads` per block (a power of two, at least a
    warp) and `runs` runs per thread (a power of two); the caller puts them in the
    copy's place. `magic64`: with 64-bit offsets too, each division of the ids by a
    run-time extent a multiplication by its magic multiplier (`magic_divmod64`).
    `narrow32`: with 32-bit offsets, the narrow element form too (None: `narrow32_rule`). `div32`:
    with 32-bit offsets, each such division a 32-bit multiply-high (`DIV32`).
    `narrow_count`: the narrow form's count test (`j` against the run's clamped share of
    the count) also where the count is known a multiple of the run. `inbounds`: the
    source loads unmasked, every element's source offset in bounds (None:
    `inbounds_rule`), the mask on the stores only (not with vector runs, nor where an
    extent is known 0). `run_bytes`: a run's destination bytes (0: a widest vector,
    `_copy_cost.gather_vector`)."""
    rank = facts.rank
    last = rank - 1
    v = gather_vector(facts, target, run_bytes)
    rows = threads * runs
    block = rows * v
    host: list[Operation] = []

    def hconst(x: int) -> SSAValue:
        c = arith.ConstantOp.from_int_and_width(x, index)
        host.append(c)
        return c.result

    def hval(x: Value) -> SSAValue:
        return hconst(x) if isinstance(x, int) else x

    statics = [_static(m.extent) for m in facts.modes]
    if None not in statics:
        total_n = 1
        for n in statics:
            total_n *= n  # type: ignore[operator]
        grid = hconst(max(1, -(-total_n // block)))
    else:
        acc = hval(facts.modes[0].extent)
        for m in facts.modes[1:]:
            op = arith.MuliOp(acc, hval(m.extent))
            host.append(op)
            acc = op.result
        op = arith.CeilDivUIOp(acc, hconst(block))
        host.append(op)
        grid = op.result
    one = hconst(1)
    launch = LaunchOp([grid, one, one], threads)
    pid = launch.block_ids[0]

    # a run-time extent the ids are divided by: its magic multiplier computed on the
    # host (`fast_divisor`), each division in the kernel a multiplication (32-bit ids)
    magic: dict[int, SSAValue | tuple[SSAValue, SSAValue]] = {}
    if bits == 32 or magic64:
        for k in range(1, rank):
            m = facts.modes[k]
            if not (m.exact and m.bound is not None) and _static(m.extent) is None:
                magic[k] = host_magic_i64(m.extent, host) if div32 and bits == 32 \
                    else fast_divisor(host, m.extent)  # type: ignore[arg-type]
    b = _Body(IntegerType(bits), rows, v, threads)
    R, T = b.R, b.T
    # an extent the views promise exactly (`at_most` and `divisible` the same) is that
    # constant: its divisions become multiplications; a run-time extent promised a
    # multiple of a power of two (`divisible`) is stated so (`layout.multiple_of`), so
    # that the element count is known a multiple of the run where it is and each run's
    # mask is one test (`vectorize-pointers`: one vector store), as a static count shows it
    n = [b.scalar(m.bound if m.exact and m.bound is not None else m.extent) for m in facts.modes]
    for k, m in enumerate(facts.modes):
        d = m.divisor & -m.divisor
        if d > 1 and _static(m.extent) is None and not (m.exact and m.bound is not None):
            n[k] = b.add(MultipleOfOp(n[k], d))
    total = n[0]
    for k in range(1, rank):
        total = b.muli(total, n[k])
    pid_i = b.add(arith.IndexCastOp(pid, b.it))
    start = b.muli(pid_i, b.const(block))
    r_ids = b.arange(rows, R)
    base = b.addi(b.muli(r_ids, b.splat(b.const(v))), b.splat(start))
    jj = b.full(b.arange(v, b.J), 0)
    if inbounds is None:
        inbounds = inbounds_rule(v)
    inbounds = inbounds and not vector_runs(facts, v) and not any(_static(m.extent) == 0 for m in facts.modes)
    # `inbounds`: the source's coordinates of a run past the end those of the last element
    src_base = b.add(arith.MinSIOp(base, b.splat(b.subi(total, b.const(1))))) if inbounds else base
    coords: list[SSAValue] = [src_base] * rank
    rest = src_base
    for k in range(last, 0, -1):
        # element ids and extents are non-negative: unsigned (no sign fix-up per division)
        coords[k], rest = b.divmod(rest, n[k], magic.get(k))
    coords[0] = rest
    zero_r, one_r = b.splat(b.const(0)), b.splat(b.const(1))
    # `magic64` with 64-bit offsets and a last extent known below 2**31: each element's
    # tests in 32 bits (a run's bounds clamped to [0, V] and truncated) and its offset
    # one of two per-run bases (wrapped or not) plus a constant (`narrow`); with 32-bit
    # offsets where `narrow32` asks
    last_known = facts.modes[last].bound if facts.modes[last].exact else _static(facts.modes[last].extent)
    if narrow32 is None:
        narrow32 = narrow32_rule(v)
    narrow = (narrow32 and bits == 32) or \
        (magic64 and bits == 64 and last_known is not None and last_known < INDEX32_LIMIT)
    if narrow:
        nb = Narrow(b, v)
        j32 = nb.index(0)
        # element j wraps where j >= n_last - c_last
        wrapped = b.cmp("sge", j32, b.full(nb.bound(b.subi(b.splat(n[last]), coords[last])), 1))
    else:
        wrapped = b.cmp("sge", b.addi(b.full(coords[last], 1), jj), b.splat(n[last], T))
    zero_t = b.splat(b.const(0), T)

    # `inbounds`: a run of the tensor's last row wraps back into its own row (the carry
    # E taken as 0), not past the end
    last_row = b.cmp("sge", b.addi(b.subi(src_base, coords[last]), b.splat(n[last])), b.splat(total)) \
        if inbounds else None

    def offsets(strides: list[Value], in_row: SSAValue | None = None) -> SSAValue:
        """Per element, its offset in the view of `strides` (module doc); where `in_row`
        holds, a wrapped element's offset is its row's (E taken as 0)."""
        st: list[SSAValue | None] = [None if _static(s) == 0 else b.scalar(s) for s in strides]
        unit = [_static(s) == 1 for s in strides]
        so = zero_r
        for k in range(rank):
            if st[k] is None:
                continue
            term = coords[k] if unit[k] else b.muli(coords[k], b.splat(st[k]))
            so = b.addi(so, term)
        e = b.splat(st[0]) if st[0] is not None else zero_r
        for k in range(1, last):
            inside = b.cmp("slt", b.addi(coords[k], one_r), b.splat(n[k]))
            if st[k] is None:
                step = back = zero_r
            else:
                step = b.splat(st[k])
                back = b.splat(b.muli(b.subi(n[k], b.const(1)), st[k]))
            e = b.select(inside, step, b.subi(e, back))
        wrap_back = zero_r if st[last] is None else b.splat(b.muli(n[last], st[last]))
        if in_row is not None:
            e = b.select(in_row, zero_r, e)
        if narrow:  # one of two bases a run, plus j s_last
            based = b.select(wrapped, b.full(b.addi(so, b.subi(e, wrap_back)), 1), b.full(so, 1))
            if st[last] is None:
                return based
            return b.addi(based, jj if unit[last] else b.muli(jj, b.splat(st[last], T)))
        wsel = b.select(wrapped, b.full(b.subi(e, wrap_back), 1), zero_t)
        so_full = b.full(so, 1)
        if st[last] is None:
            return b.addi(so_full, wsel)
        step_j = jj if unit[last] else b.muli(jj, b.splat(st[last], T))
        return b.addi(b.addi(so_full, step_j), wsel)

    if vector_runs(facts, v):
        soffs = _run_offsets(b, facts, n, r_ids, pid_i, jj, magic)
    else:
        soffs = offsets([m.src_stride for m in facts.modes], last_row)
    flat = b.addi(b.full(base, 1), jj)
    # j < total - base in 32 bits (one comparison of a constant j a element); the flat
    # index's test where the count is known a multiple of the run (`vectorize-pointers`
    # then stores each run whole, no element-wise fallback) and the offsets are 32-bit
    if narrow and (narrow_count or not (bits == 32 and _count_divisor(facts) % v == 0)):
        mask = b.cmp("slt", j32, b.full(nb.bound(b.subi(b.splat(total), base)), 1))
    else:
        mask = b.cmp("slt", flat, b.splat(total, T))
    st_elem = facts.src_ptr.type.element_type  # type: ignore[attr-defined]
    dt_elem = facts.dst_ptr.type.element_type  # type: ignore[attr-defined]
    sptrs = b.add(AddPtrOp(b.splat(facts.src_ptr, TensorType(PtrType(st_elem), [rows, v], b.l)), soffs))
    val = b.add(PtrLoadOp(sptrs, None, None if inbounds else mask))
    if copy.convert is not None:
        ops, val = conversion_ops(val, copy.convert.data)
        b.ops += ops
    doffs = flat if facts.dst_compact else offsets([m.dst_stride for m in facts.modes])
    dptrs = b.add(AddPtrOp(b.splat(facts.dst_ptr, TensorType(PtrType(dt_elem), [rows, v], b.l)), doffs))
    b.ops.append(PtrStoreOp(val, dptrs, mask))
    launch.body.block.add_ops(b.ops)
    host.append(launch)
    return host
