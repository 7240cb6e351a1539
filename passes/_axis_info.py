"""AxisInfo: what is known of the integers and addresses of a kernel, as Triton's
AxisInfo analysis knows it, and the vector width of a pointer access that follows.

For a value (a scalar, or a distributed tensor: one entry per dimension d):

- contiguity[d] = C: along d, the elements form runs of C consecutive integers
  (x, x+1, ..., x+C-1), each run starting at an index multiple of C;
- divisibility[d] = D: the first element of each such run is a multiple of D (for
  pointers: its address, in bytes, is);
- constancy[d] = K: along d, the elements are equal over runs of K starting at index
  multiples of K.

All three are powers of two (1 when nothing is known). A scalar is a rank-1 value of
one element. Where a value is constant its integer value is kept too (`value`). The
rules are Triton's (lib/Analysis/AxisInfo.cpp) for the ops a pointer kernel computes
its offsets and masks with: constants, `layout.arange`, `layout.splat`, casts,
`arith.addi`/`subi`/`muli`, `layout.expand_dims`/`broadcast`/`convert_layout`,
`layout.cmpi` (a contiguous run compared against a constant: equal over runs of the
gcd of the divisibilities), `arith.andi`/`ori` of masks, `layout.select`,
`layout.addptr`, `layout.multiple_of` (a promise), the induction variable of an
`scf.for` (a multiple of what its lower bound and step both are: a loop over chunks,
`range(0, n, BLOCK)`, keeps its offsets' divisibility) and the values an `scf.for`
carries (a fixed point over its initial and yielded values). Anything else is unknown
(all ones). A pointer argument's divisibility is its `align`; the block ids, the
thread id and index arguments are unknown."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, TensorType
from xdsl.ir import BlockArgument, SSAValue

from tilec.dialects import layout
from tilec.dialects import layout_compute as lc
from tilec.dialects import layout_ptr as lp
from tilec.dialects.layout_attrs import PtrType, element_bytes

from ._vector_legality import register_run

MAX_DIV = 1 << 30
"""The divisibility of 0 (Triton's highest power of two)."""


def pow2_factor(n: int) -> int:
    """The largest power of two dividing n (MAX_DIV for 0)."""
    n = abs(int(n))
    return MAX_DIV if n == 0 else min(n & -n, MAX_DIV)


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    value: int | None = None
    """The value, when every element is this known integer."""

    @property
    def rank(self) -> int:
        return len(self.contiguity)

    def element_div(self, d: int) -> int:
        """Divisibility of every element along d (a run x, x+1, .. has elements odd)."""
        return self.div_at(d, 1)

    def div_at(self, d: int, run: int) -> int:
        """Divisibility of the elements at index multiples of `run` along d: the run
        starts when the runs are no longer than `run`, else x + j*run inside them."""
        c, dv = self.contiguity[d], self.divisibility[d]
        return dv if c <= run else min(dv, run)

    @staticmethod
    def unknown(rank: int) -> AxisInfo:
        return AxisInfo((1,) * rank, (1,) * rank, (1,) * rank)

    @staticmethod
    def constant(value: int, shape: tuple[int, ...]) -> AxisInfo:
        n = len(shape)
        return AxisInfo((1,) * n, (pow2_factor(value),) * n, tuple(shape), value)


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return tuple(t.get_shape()) if isinstance(t, TensorType) else (1,)


def _cap(x: int) -> int:
    return min(x, MAX_DIV)


class AxisInfoAnalysis:
    """AxisInfo of SSA values, computed on demand and memoized (uses before definitions
    never happen in the SSA values a pointer access depends on, except loop-carried
    values, which are unknown)."""

    def __init__(self):
        self.info: dict[SSAValue, AxisInfo] = {}

    def get(self, v: SSAValue) -> AxisInfo:
        if v not in self.info:
            self.info[v] = self._compute(v)
        return self.info[v]

    # ------------------------------------------------------------------ rules
    def _compute(self, v: SSAValue) -> AxisInfo:
        shape = _shape(v)
        rank = len(shape)
        if isinstance(v, BlockArgument):
            loop = v.owner.parent_op()
            if isinstance(loop, scf.ForOp) and v.index >= 1:
                return self._loop_carried(loop, v.index - 1)
            if isinstance(loop, scf.ForOp):  # the induction variable: lb, lb + step, ...
                dv = min(self.get(loop.lb).divisibility[0], self.get(loop.step).divisibility[0])
                return AxisInfo((1,), (dv,), (1,))
            if isinstance(v.type, PtrType):
                return AxisInfo((1,), (v.type.alignment,), (1,))
            return AxisInfo.unknown(rank)
        op = v.owner
        if isinstance(op, scf.ForOp):
            return self._loop_carried(op, op.results.index(v))
        if isinstance(op, arith.ConstantOp):
            val = op.value
            if isinstance(val, IntegerAttr):
                return AxisInfo.constant(val.value.data, shape)
            if isinstance(val, DenseIntOrFPElementsAttr) and val.is_splat():
                x = val.get_values()[0]
                if isinstance(x, int):
                    return AxisInfo.constant(x, shape)
            return AxisInfo.unknown(rank)
        if isinstance(
            op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | lc.ExtSIOp | lc.ExtUIOp | layout.ConvertLayoutOp
        ):
            return self.get(op.operands[0])
        if isinstance(op, lp.MultipleOfOp):
            x = self.get(op.value)
            d = op.divisor.value.data
            return AxisInfo(x.contiguity, tuple(max(v, d) for v in x.divisibility), x.constancy, x.value)
        if isinstance(op, layout.ArangeOp):
            s, e = op.start.value.data, op.end.value.data
            return AxisInfo((e - s,), (pow2_factor(s),), (1,), s if e - s == 1 else None)
        if isinstance(op, layout.SplatOp):
            x = self.get(op.value)
            return AxisInfo((1,) * rank, (x.divisibility[0],) * rank, shape, x.value)
        if isinstance(op, layout.ExpandDimsOp):
            x = self.get(op.source)
            ax = op.axis.value.data
            every = min([x.element_div(d) for d in range(x.rank)] or [MAX_DIV])
            ins = lambda t, a: t[:ax] + (a,) + t[ax:]
            return AxisInfo(ins(x.contiguity, 1), ins(x.divisibility, every), ins(x.constancy, 1), x.value)
        if isinstance(op, layout.BroadcastOp):
            x = self.get(op.source)
            src = _shape(op.source)
            c, dv, k = list(x.contiguity), list(x.divisibility), list(x.constancy)
            for d, (a, b) in enumerate(zip(src, shape)):
                if a == 1 and b != 1:
                    c[d], dv[d], k[d] = 1, x.element_div(d), b
            return AxisInfo(tuple(c), tuple(dv), tuple(k), x.value)
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            return self._add(self.get(op.lhs), self.get(op.rhs), isinstance(op, arith.SubiOp), 1)
        if isinstance(op, lp.AddPtrOp):
            eb = element_bytes(lp.pointee(op.ptr.type))
            return self._add(self.get(op.ptr), self.get(op.offset), False, eb)
        if isinstance(op, arith.MuliOp):
            return self._mul(self.get(op.lhs), self.get(op.rhs))
        if isinstance(op, lc.CmpiOp):
            return self._cmp(op.predicate_name, self.get(op.lhs), self.get(op.rhs), shape)
        if isinstance(op, arith.AndIOp | arith.OrIOp | arith.XOrIOp):
            a, b = self.get(op.lhs), self.get(op.rhs)
            k = tuple(min(x, y) for x, y in zip(a.constancy, b.constancy))
            return AxisInfo((1,) * rank, (1,) * rank, k)
        if isinstance(op, lc.SelectOp):
            c, a, b = self.get(op.cond), self.get(op.lhs), self.get(op.rhs)
            k = tuple(min(x, y, z) for x, y, z in zip(c.constancy, a.constancy, b.constancy))
            dv = tuple(min(a.element_div(d), b.element_div(d)) for d in range(rank))
            return AxisInfo((1,) * rank, dv, k)
        return AxisInfo.unknown(rank)

    def _loop_carried(self, loop: scf.ForOp, k: int) -> AxisInfo:
        """An iter_arg (and result) of a loop: the facts its initial value and every
        yielded value share, found by iterating from the initial value's to a fixed
        point (each step can only lower them; unknown after a few)."""
        arg = loop.body.block.args[k + 1]
        guess = self.get(loop.iter_args[k])
        yielded = loop.body.block.last_op.operands[k]
        for _ in range(4):
            again = AxisInfoAnalysis()
            again.info[arg] = guess
            new = _meet(guess, again.get(yielded))
            if new == guess:
                return guess
            guess = new
        return AxisInfo.unknown(guess.rank)

    @staticmethod
    def _add(a: AxisInfo, b: AxisInfo, sub: bool, scale: int) -> AxisInfo:
        """a + b (a - b with `sub`); b's units are `scale` of a's divisibility units (an
        element offset added to a pointer whose divisibility is in bytes)."""
        c, dv, k = [], [], []
        for d in range(a.rank):
            cd = min(a.contiguity[d], b.constancy[d])
            if not sub:
                cd = max(cd, min(a.constancy[d], b.contiguity[d]))
            c.append(cd)
            dv.append(_cap(min(a.div_at(d, cd), b.div_at(d, cd) * scale)))
            k.append(min(a.constancy[d], b.constancy[d]))
        value = None
        if a.value is not None and b.value is not None:
            value = a.value - b.value if sub else a.value + b.value
        return AxisInfo(tuple(c), tuple(dv), tuple(k), value)

    @staticmethod
    def _mul(a: AxisInfo, b: AxisInfo) -> AxisInfo:
        c, dv, k = [], [], []
        for d in range(a.rank):
            if b.value == 1:
                c.append(a.contiguity[d])
                dv.append(a.divisibility[d])
            elif a.value == 1:
                c.append(b.contiguity[d])
                dv.append(b.divisibility[d])
            else:
                c.append(1)
                dv.append(_cap(a.element_div(d) * b.element_div(d)))
            k.append(min(a.constancy[d], b.constancy[d]))
        value = a.value * b.value if a.value is not None and b.value is not None else None
        return AxisInfo(tuple(c), tuple(dv), tuple(k), value)

    @staticmethod
    def _cmp(pred: str, a: AxisInfo, b: AxisInfo, shape) -> AxisInfo:
        """Constancy of a comparison: equal runs of both sides stay equal; a run x, x+1,
        .. compared as `x < n` / `x >= n` against an n constant over the run keeps
        its value over groups of gcd(run, div(x), div(n))."""
        k = []
        lhs_run = pred in ("slt", "ult", "sge", "uge")  # x on the left
        rhs_run = pred in ("sgt", "ugt", "sle", "ule")  # x on the right (n > x)
        for d in range(a.rank):
            kd = min(a.constancy[d], b.constancy[d])
            if lhs_run and a.contiguity[d] > 1 and b.constancy[d] > 1:
                kd = max(kd, min(a.contiguity[d], b.constancy[d], a.divisibility[d], b.divisibility[d]))
            if rhs_run and b.contiguity[d] > 1 and a.constancy[d] > 1:
                kd = max(kd, min(b.contiguity[d], a.constancy[d], b.divisibility[d], a.divisibility[d]))
            k.append(min(kd, shape[d]))
        return AxisInfo((1,) * a.rank, (1,) * a.rank, tuple(k))


def _meet(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """What holds of both a and b."""
    return AxisInfo(
        tuple(map(min, a.contiguity, b.contiguity)),
        tuple(map(min, a.divisibility, b.divisibility)),
        tuple(map(min, a.constancy, b.constancy)),
        a.value if a.value == b.value else None,
    )


@dataclass(frozen=True)
class AccessWidth:
    vector: int
    """Consecutive registers moved per access."""
    uniform_mask: bool
    """Whether the mask is the same over each vector (one predicate per vector)."""
    dim: int
    """The tensor dimension the vector runs along."""


def access_width(ll, ptrs: AxisInfo, mask: AxisInfo | None, elem_bytes: int, max_bytes: int) -> AccessWidth:
    """The widest vector of consecutive registers of a thread that are consecutive,
    aligned addresses: at most the layout's register run along its dim d
    (`_vector_legality.register_run`: bases 1, 2, 4, .. of d, every other basis a
    multiple of it, so a vector starts at a multiple of its size), at most the
    contiguity of the addresses along d, with the first address of each vector a
    multiple of its size (divisibility), at most `max_bytes`."""
    d, v = register_run(ll)
    v = min(v, ptrs.contiguity[d], max(1, max_bytes // elem_bytes))
    while v > 1 and ptrs.divisibility[d] % (v * elem_bytes):
        v //= 2
    uniform = mask is None or mask.constancy[d] >= v
    return AccessWidth(v, uniform, d)
