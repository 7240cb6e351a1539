"""The range of a float value, from the ops that compute it: an interval [lo, hi] that
holds every value it takes, and whether it may be NaN. A small backward walk over
elementwise `arith` / `math` ops on scalars or distributed tensors (constants, splats,
broadcasts and layout conversions, add, sub, mul, neg, abs, exp / exp2, the min / max
ops); any other op gives the whole line, maybe NaN (`UNKNOWN`). Lowerings ask it what
they may assume of an operand: lower-to-gpu's grouped approximate division
(`cuda.div_approx_group`) needs divisors that are never NaN and whose products stay
within `rcp.approx`'s normal range.

Bounds are computed in float64 and widened by a relative 2^-20 (and by the smallest
normal f32) so that f32 roundings and the approximate functions' errors (`ex2.approx`:
2 ulp) stay inside them: a range is a promise about values, so it errs wide."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr
from xdsl.ir import Operation, SSAValue

from tilec.dialects import layout

_SLACK = 2.0**-20
_TINY = 2.0**-126
DEPTH = 16
"""How many defining ops back the walk goes before calling a value unknown."""


@dataclass(frozen=True)
class FloatRange:
    """Every value a float SSA value takes lies in [lo, hi] (either may be infinite),
    or is NaN where `nan`."""

    lo: float
    hi: float
    nan: bool

    def within(self, lo: float, hi: float) -> bool:
        """Whether every value is a number in [lo, hi]."""
        return not self.nan and lo <= self.lo and self.hi <= hi


UNKNOWN = FloatRange(-math.inf, math.inf, True)


def _widen(lo: float, hi: float, nan: bool) -> FloatRange:
    """[lo, hi] with room for the roundings of the f32 op that computed it."""
    if not math.isinf(lo):
        lo = lo - abs(lo) * _SLACK - _TINY
    if not math.isinf(hi):
        hi = hi + abs(hi) * _SLACK + _TINY
    return FloatRange(lo, hi, nan)


def _constant(op: Operation) -> FloatRange | None:
    if isinstance(op, arith.ConstantOp):
        val = op.value
        if isinstance(val, FloatAttr):
            v = float(val.value.data)
        elif isinstance(val, DenseIntOrFPElementsAttr) and val.is_splat():
            v = float(val.get_values()[0])
        else:
            return None
        return UNKNOWN if math.isnan(v) else FloatRange(v, v, False)
    return None


def _infinite(a: FloatRange) -> bool:
    return math.isinf(a.lo) or math.isinf(a.hi)


def _mul(a: FloatRange, b: FloatRange) -> FloatRange:
    # inf * 0 is NaN: where one range reaches an infinity and the other holds 0
    nan = a.nan or b.nan or _infinite(a) and b.lo <= 0 <= b.hi or _infinite(b) and a.lo <= 0 <= a.hi
    corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    corners = [c for c in corners if not math.isnan(c)] or [0.0]
    return _widen(min(corners), max(corners), nan)


def _add(a: FloatRange, b: FloatRange) -> FloatRange:
    # inf - inf is NaN
    nan = a.nan or b.nan or a.hi == math.inf and b.lo == -math.inf or a.lo == -math.inf and b.hi == math.inf
    lo, hi = a.lo + b.lo, a.hi + b.hi
    return _widen(-math.inf if math.isnan(lo) else lo, math.inf if math.isnan(hi) else hi, nan)


def _exp(a: FloatRange, base: float) -> FloatRange:
    def f(x: float) -> float:
        try:
            return base**x
        except OverflowError:
            return math.inf

    return _widen(f(a.lo), f(a.hi), a.nan)


def float_range(value: SSAValue, depth: int = DEPTH) -> FloatRange:
    """The range of `value` (`FloatRange`), from its defining ops: `UNKNOWN` past `depth`
    of them, at a block argument or at any op the walk does not know."""
    op = value.owner
    if depth == 0 or not isinstance(op, Operation):
        return UNKNOWN
    if (c := _constant(op)) is not None:
        return c
    if isinstance(op, layout.SplatOp | layout.ConvertLayoutOp | layout.BroadcastOp | layout.ExpandDimsOp):
        return float_range(op.operands[0], depth - 1)
    known = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.NegfOp, xmath.AbsFOp, xmath.Exp2Op, xmath.ExpOp,
             arith.MaximumfOp, arith.MaxnumfOp, arith.MinimumfOp, arith.MinnumfOp)
    if not isinstance(op, known):
        return UNKNOWN
    args = [float_range(o, depth - 1) for o in op.operands]
    if isinstance(op, arith.AddfOp):
        return _add(*args)
    if isinstance(op, arith.SubfOp):
        b = args[1]
        return _add(args[0], FloatRange(-b.hi, -b.lo, b.nan))
    if isinstance(op, arith.MulfOp):
        return _mul(*args)
    if isinstance(op, arith.NegfOp):
        (a,) = args
        return FloatRange(-a.hi, -a.lo, a.nan)
    if isinstance(op, xmath.AbsFOp):
        (a,) = args
        lo = 0.0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
        return FloatRange(lo, max(abs(a.lo), abs(a.hi)), a.nan)
    if isinstance(op, xmath.Exp2Op | xmath.ExpOp):
        return _exp(args[0], 2.0 if isinstance(op, xmath.Exp2Op) else math.e)
    a, b = args  # the min / max ops
    pick = max if isinstance(op, arith.MaximumfOp | arith.MaxnumfOp) else min
    lo, hi = pick(a.lo, b.lo), pick(a.hi, b.hi)
    if isinstance(op, arith.MaximumfOp | arith.MinimumfOp):  # NaN if either is
        return FloatRange(lo, hi, a.nan or b.nan)
    # maxnumf / minnumf: NaN only if both are; where one is, the other comes out
    for maybe_nan, other in ((a, b), (b, a)):
        if maybe_nan.nan:
            lo, hi = min(lo, other.lo), max(hi, other.hi)
    return FloatRange(lo, hi, a.nan and b.nan)
