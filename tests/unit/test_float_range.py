"""passes/_float_range.py: the ranges of float values that lower-to-gpu's grouped
approximate division (`cuda.div_approx_group`) relies on, and its group-size rule."""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import FloatAttr, f32
from xdsl.ir import Block

from tilec.dialects.cuda import div_group_size
from tilec.passes._float_range import UNKNOWN, float_range


def _const(v: float):
    return arith.ConstantOp(FloatAttr(v, f32)).result


def _arg():
    return Block(arg_types=[f32]).args[0]


def test_an_argument_is_unknown_and_a_constant_exact():
    assert float_range(_arg()) == UNKNOWN
    r = float_range(_const(-150.0))
    assert (r.lo, r.hi, r.nan) == (-150.0, -150.0, False)


def test_silus_divisor_is_a_number_in_one_to_two():
    """1 + 2^maxnumf(|y| (-log2 e), -150) for any y, NaN included: in [1, 2] (widened by
    the roundings' slack), never NaN."""
    y = _arg()
    t = arith.MulfOp(xmath.AbsFOp(y).result, _const(-1.4426950408889634)).result
    floored = arith.MaxnumfOp(t, _const(-150.0)).result
    d = arith.AddfOp(xmath.Exp2Op(floored).result, _const(1.0)).result
    r = float_range(d)
    assert not r.nan and 1 - 2.0**-19 < r.lo <= 1 and 2 <= r.hi < 2 + 2.0**-18
    assert div_group_size(r.lo, r.hi) == 4


def test_a_nan_propagating_floor_leaves_the_divisor_maybe_nan():
    y = _arg()
    t = arith.MaximumfOp(arith.MulfOp(xmath.AbsFOp(y).result, _const(-1.0)).result, _const(-150.0)).result
    d = arith.AddfOp(xmath.Exp2Op(t).result, _const(1.0)).result
    assert float_range(d).nan


def test_minnumf_caps_and_clears_nan():
    """minnumf(y, 40): at most 40, never NaN (a NaN y gives 40); 1 + 2^that lies within
    [1, 2^40 + 1]: pairs of divisors share a reciprocal, not fours."""
    r = float_range(arith.AddfOp(xmath.Exp2Op(arith.MinnumfOp(_arg(), _const(40.0)).result).result,
                                 _const(1.0)).result)
    assert not r.nan and r.lo >= 1 - 2.0**-19 and 2.0**40 < r.hi < 2.0**40 * (1 + 2.0**-18)
    assert div_group_size(r.lo, r.hi) == 2


def test_products_sums_and_their_nans():
    """inf * 0 and inf - inf are NaN; products take the corners; exp overflows to inf."""
    big = arith.MulfOp(_const(1e30), _const(1e30)).result  # 1e60: fine in float64's walk
    assert float_range(big).lo > 0 and not float_range(big).nan
    inf = xmath.ExpOp(_const(1000.0)).result
    assert float_range(inf).hi == math.inf and float_range(inf).lo == math.inf
    assert float_range(arith.MulfOp(inf, _const(0.0)).result).nan
    assert float_range(arith.SubfOp(inf, inf).result).nan
    r = float_range(arith.MulfOp(_const(-2.0), _const(3.0)).result)
    assert r.lo < -6 < r.hi and not r.nan
    n = float_range(arith.NegfOp(_const(3.0)).result)
    assert (n.lo, n.hi) == (-3.0, -3.0)


def test_the_group_size_rule():
    """G = 4 where four divisors' product stays within 2^+-124, else 2 where two's does,
    else 1."""
    assert div_group_size(1.0, 2.0) == 4
    assert div_group_size(2.0**-31, 2.0**31) == 4
    assert div_group_size(1.0, 2.0**31 * 1.01) == 2
    assert div_group_size(2.0**-62, 2.0**62) == 2
    assert div_group_size(1.0, 2.0**63) == 1
    assert div_group_size(2.0**-63, 1.0) == 1
