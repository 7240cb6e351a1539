"""`arith` over uniform and per-thread NumPy values.

Integers wrap as two's complement of their width (NumPy's fixed-width arithmetic);
unsigned ops reinterpret the bits. `i1` is NumPy `bool`. Division by zero, and shifts
by the bit width or more, are errors for the threads that execute them (threads
masked off by control flow compute garbage that is never observed, and are not
checked).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
)
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Attribute, Operation

from tilec.dialects.math_functions import reciprocal_division

from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .values import (
    dtype_of,
    expand_cond,
    f32_to_bf16,
    from_compute,
    is_bf16,
    is_per_thread,
    pack_constant,
    packed_name,
    shape_of,
    to_compute,
    unsigned_dtype,
)


def check_active(
    interp: ReferenceInterpreter,
    op: Operation,
    bad: Any,
    t: Attribute,
    message: Callable[[str], str],
) -> None:
    """Raise if `bad` holds for a thread that runs `op` (or for a uniform value)."""
    bad = np.asarray(bad)
    if not bad.any():
        return
    grid = interp.grid
    if grid is None or not is_per_thread(bad, t):
        raise ExecutionError(op, message("the program"))
    per_thread = bad.reshape(bad.shape[0], -1).any(axis=1)
    if grid.mask is not None:
        per_thread &= grid.mask
    if per_thread.any():
        tid = int(np.argmax(per_thread))
        raise ExecutionError(op, message(grid.describe_thread(tid)), thread=tid)


def constant_value(attr: Attribute, t: Attribute) -> Any:
    dt = dtype_of(t)
    if isinstance(attr, IntegerAttr):
        return _int_scalar(attr.value.data, dt)
    if isinstance(attr, FloatAttr):
        if packed_name(t) is not None:
            return pack_constant(attr.value.data, t)[()]
        return dt.type(attr.value.data)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        shape = tuple(attr.get_shape() or ())
        vals = list(attr.get_values())
        if packed_name(t) is not None:
            arr = pack_constant(np.array(vals, dtype=np.float64), t)
        elif dt.kind in "iub":
            arr = np.array([_int_scalar(int(v), dt) for v in vals], dtype=dt)
        else:
            arr = np.array(vals, dtype=dt)
        if arr.size == 1 and int(np.prod(shape)) != 1:
            return np.broadcast_to(arr.reshape(()), shape)
        return arr.reshape(shape)
    raise ExecutionError(None, f"unsupported constant {attr}")


def _int_scalar(v: int, dt: np.dtype) -> Any:
    if dt == np.bool_:
        return np.bool_(v & 1)
    bits = dt.itemsize * 8
    v &= (1 << bits) - 1
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return dt.type(v)


def _u(a: Any) -> Any:
    a = np.asarray(a)
    return a.astype(unsigned_dtype(a.dtype))


def _s(a: Any, dt: np.dtype) -> Any:
    return np.asarray(a).astype(dt)


def _ret(v: Any, t: Attribute) -> Any:
    """A result as the dtype of t (NumPy may have widened it)."""
    dt = dtype_of(t)
    if isinstance(v, np.ndarray):
        if v.dtype != dt:
            v = v.astype(dt)
        return v[()] if v.ndim == 0 else v
    return dt.type(v)


def _bool_int(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """i1 arithmetic modulo 2 (NumPy's bool + bool is a logical or)."""

    def g(a: Any, b: Any) -> Any:
        a = np.asarray(a)
        if a.dtype == np.bool_:
            r = f(a.astype(np.uint8), np.asarray(b).astype(np.uint8))
            return (np.asarray(r) & 1).astype(np.bool_)
        return f(a, b)

    return g


def _int_binary(op_type: type[Operation], fn: Callable[[Any, Any], Any]):
    fn = _bool_int(fn)

    @impl(op_type)
    def run(self, interp: ReferenceInterpreter, op: Operation, args):
        a, b = args
        return (_ret(fn(a, b), op.results[0].type),)

    return run


def _divisor(interp, op: Operation, b: Any) -> Any:
    t = op.results[0].type
    check_active(interp, op, np.asarray(b) == 0, t, lambda who: f"division by zero by {who}")
    b = np.asarray(b)
    return np.where(b == 0, np.ones_like(b), b) if b.ndim else b


def _div_binary(op_type: type[Operation], fn: Callable[[Any, Any], Any]):
    @impl(op_type)
    def run(self, interp: ReferenceInterpreter, op: Operation, args):
        a, b = args
        b = _divisor(interp, op, b)
        return (_ret(fn(np.asarray(a), b), op.results[0].type),)

    return run


def _trunc_div(a: Any, b: Any) -> Any:
    q = a // b
    r = a - q * b
    return q + ((r != 0) & ((a < 0) != (b < 0)))


def _udiv(a: Any, b: Any) -> Any:
    return _u(a) // _u(b)


def _urem(a: Any, b: Any) -> Any:
    return _u(a) % _u(b)


def _uceil(a: Any, b: Any) -> Any:
    ua, ub = _u(a), _u(b)
    return ua // ub + (ua % ub != 0)


def _shift(op_type: type[Operation], fn: Callable[[Any, Any], Any]):
    @impl(op_type)
    def run(self, interp: ReferenceInterpreter, op: Operation, args):
        a, b = args
        t = op.results[0].type
        bits = 1 if dtype_of(t) == np.bool_ else dtype_of(t).itemsize * 8
        ub = _u(b)
        check_active(
            interp,
            op,
            ub >= bits,
            t,
            lambda who: f"shift by {bits} bits or more (by {who}), which has no value",
        )
        return (_ret(fn(np.asarray(a), np.minimum(ub, bits - 1)), t),)

    return run


def _maximumf(a: Any, b: Any) -> Any:
    """arith.maximumf: NaN if either is NaN, and max(-0, +0) = +0 (np.maximum returns
    its first operand for equal zeros)."""
    with np.errstate(invalid="ignore"):
        return np.where((a == 0) & (b == 0), a + b, np.maximum(a, b))[()]


def _minimumf(a: Any, b: Any) -> Any:
    """arith.minimumf: NaN if either is NaN, and min(-0, +0) = -0."""
    with np.errstate(invalid="ignore"):
        return np.where((a == 0) & (b == 0), -(-a - b), np.minimum(a, b))[()]


def _float_binary(op_type: type[Operation], fn: Callable[[Any, Any], Any]):
    @impl(op_type)
    def run(self, interp: ReferenceInterpreter, op: Operation, args):
        t = op.results[0].type
        a, b = (to_compute(x, t) for x in args)
        return (from_compute(fn(a, b), t),)

    return run


_CMPI: dict[int, Callable[[Any, Any], Any]] = {
    0: lambda a, b: a == b,
    1: lambda a, b: a != b,
    2: lambda a, b: a < b,
    3: lambda a, b: a <= b,
    4: lambda a, b: a > b,
    5: lambda a, b: a >= b,
    6: lambda a, b: _u(a) < _u(b),
    7: lambda a, b: _u(a) <= _u(b),
    8: lambda a, b: _u(a) > _u(b),
    9: lambda a, b: _u(a) >= _u(b),
}


def _ord(a: Any, b: Any) -> Any:
    return ~(np.isnan(a) | np.isnan(b))


_CMPF: dict[int, Callable[[Any, Any], Any]] = {
    0: lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    1: lambda a, b: a == b,
    2: lambda a, b: a > b,
    3: lambda a, b: a >= b,
    4: lambda a, b: a < b,
    5: lambda a, b: a <= b,
    6: lambda a, b: _ord(a, b) & (a != b),
    7: _ord,
    8: lambda a, b: ~_ord(a, b) | (a == b),
    9: lambda a, b: ~(a <= b),
    10: lambda a, b: ~(a < b),
    11: lambda a, b: ~(a >= b),
    12: lambda a, b: ~(a > b),
    13: lambda a, b: a != b,
    14: lambda a, b: ~_ord(a, b),
    15: lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}


def _bool_result(v: Any) -> Any:
    v = np.asarray(v, dtype=np.bool_)
    return v[()] if v.ndim == 0 else v


def _sext_bool(a: Any) -> Any:
    """i1 true sign-extends to -1."""
    a = np.asarray(a)
    return -(a.astype(np.int64)) if a.dtype == np.bool_ else a


@register_impls
class ArithFunctions(InterpreterFunctions):
    @impl(arith.ConstantOp)
    def run_constant(self, interp: ReferenceInterpreter, op: arith.ConstantOp, args):
        try:
            return (constant_value(op.value, op.result.type),)
        except ExecutionError as e:
            raise ExecutionError(op, e.reason) from None

    run_addi = _int_binary(arith.AddiOp, lambda a, b: a + b)
    run_subi = _int_binary(arith.SubiOp, lambda a, b: a - b)
    run_muli = _int_binary(arith.MuliOp, lambda a, b: a * b)
    run_andi = _int_binary(arith.AndIOp, lambda a, b: a & b)
    run_ori = _int_binary(arith.OrIOp, lambda a, b: a | b)
    run_xori = _int_binary(arith.XOrIOp, lambda a, b: a ^ b)
    run_minsi = _int_binary(arith.MinSIOp, np.minimum)
    run_maxsi = _int_binary(arith.MaxSIOp, np.maximum)
    run_minui = _int_binary(arith.MinUIOp, lambda a, b: np.where(_u(a) <= _u(b), a, b))
    run_maxui = _int_binary(arith.MaxUIOp, lambda a, b: np.where(_u(a) >= _u(b), a, b))

    run_divsi = _div_binary(arith.DivSIOp, _trunc_div)
    run_remsi = _div_binary(arith.RemSIOp, np.fmod)
    run_floordivsi = _div_binary(arith.FloorDivSIOp, lambda a, b: a // b)
    run_ceildivsi = _div_binary(arith.CeilDivSIOp, lambda a, b: -((-a) // b))
    run_divui = _div_binary(arith.DivUIOp, _udiv)
    run_remui = _div_binary(arith.RemUIOp, _urem)
    run_ceildivui = _div_binary(arith.CeilDivUIOp, _uceil)

    run_shli = _shift(arith.ShLIOp, lambda a, b: a << b.astype(a.dtype))
    run_shrsi = _shift(arith.ShRSIOp, lambda a, b: a >> b.astype(a.dtype))
    run_shrui = _shift(arith.ShRUIOp, lambda a, b: _u(a) >> b.astype(_u(a).dtype))

    run_addf = _float_binary(arith.AddfOp, lambda a, b: a + b)
    run_subf = _float_binary(arith.SubfOp, lambda a, b: a - b)
    run_mulf = _float_binary(arith.MulfOp, lambda a, b: a * b)
    @impl(arith.DivfOp)
    def run_divf(self, interp: ReferenceInterpreter, op: arith.DivfOp, args):
        """`a / b`; with `fastmath<arcp>` on f32/f64 `a * (1 / b)`, each rounded
        (dialects/math_functions.reciprocal_division), as the CUDA target prints it."""
        t = op.results[0].type
        a, b = (to_compute(x, t) for x in args)
        if reciprocal_division(op):
            return (from_compute(a * (np.ones_like(b) / b), t),)
        return (from_compute(a / b, t),)
    run_maximumf = _float_binary(arith.MaximumfOp, _maximumf)
    run_minimumf = _float_binary(arith.MinimumfOp, _minimumf)
    run_maxnumf = _float_binary(arith.MaxnumfOp, np.fmax)
    run_minnumf = _float_binary(arith.MinnumfOp, np.fmin)

    @impl(arith.NegfOp)
    def run_negf(self, interp, op: arith.NegfOp, args):
        t = op.result.type
        if packed_name(t) is not None:  # flip the sign bit
            dt = dtype_of(t)
            return (np.asarray(args[0], dt) ^ dt.type(1 << (dt.itemsize * 8 - 1)),)
        return (-args[0],)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp, op: arith.CmpiOp, args):
        a, b = args
        return (_bool_result(_CMPI[op.predicate.value.data](a, b)),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interp, op: arith.CmpfOp, args):
        t = op.lhs.type
        a, b = (np.asarray(to_compute(x, t)) for x in args)
        return (_bool_result(_CMPF[op.predicate.value.data](a, b)),)

    @impl(arith.MulUIExtendedOp)
    def run_mului_extended(self, interp, op: arith.MulUIExtendedOp, args):
        """The low and high halves of the unsigned product of two integers, exactly
        (Python integers: a 64-bit product has 128 bits)."""
        t = op.lhs.type
        dt = dtype_of(t)
        w = np.dtype(dt).itemsize * 8
        ua, ub = (np.asarray(_u(x)) for x in args)
        prod = np.vectorize(lambda x, y: int(x) * int(y), otypes=[object])(ua, ub)
        mask = (1 << w) - 1
        low = np.vectorize(lambda p: p & mask, otypes=[object])(prod).astype(unsigned_dtype(np.dtype(dt)))
        high = np.vectorize(lambda p: p >> w, otypes=[object])(prod).astype(unsigned_dtype(np.dtype(dt)))
        return (_ret(low.astype(dt), t), _ret(high.astype(dt), t))

    @impl(arith.SelectOp)
    def run_select(self, interp: ReferenceInterpreter, op: arith.SelectOp, args):
        cond, a, b = args
        t = op.result.type
        if np.ndim(cond) == 0:
            return (a if bool(cond) else b,)
        if shape_of(op.cond.type) == () and interp.grid is not None:
            cond = expand_cond(np.asarray(cond), a, t)
        return (np.where(cond, a, b),)

    # ------------------------------------------------------------------- casts
    @impl(arith.IndexCastOp)
    def run_index_cast(self, interp, op: arith.IndexCastOp, args):
        return (_ret(_sext_bool(args[0]), op.result.type),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp, op: arith.ExtSIOp, args):
        return (_ret(_sext_bool(args[0]), op.result.type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interp, op: arith.ExtUIOp, args):
        return (_ret(_u(args[0]), op.result.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interp, op: arith.TruncIOp, args):
        dt = dtype_of(op.result.type)
        a = np.asarray(args[0])
        if dt == np.bool_:
            return (_ret((a & 1).astype(np.bool_), op.result.type),)
        return (_ret(a.astype(dt), op.result.type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interp, op: arith.SIToFPOp, args):
        t = op.result.type
        a = np.asarray(_sext_bool(args[0]))
        return (from_compute(a.astype(np.float64 if packed_name(t) is not None else dtype_of(t)), t),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interp, op: arith.UIToFPOp, args):
        t = op.result.type
        a = _u(args[0])
        return (from_compute(a.astype(np.float64 if packed_name(t) is not None else dtype_of(t)), t),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interp, op: arith.FPToSIOp, args):
        a = np.asarray(to_compute(args[0], op.input.type))
        return (_ret(np.trunc(a).astype(dtype_of(op.result.type)), op.result.type),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interp, op: arith.FPToUIOp, args):
        a = np.asarray(to_compute(args[0], op.input.type))
        dt = dtype_of(op.result.type)
        return (_ret(np.trunc(a).astype(unsigned_dtype(dt)).astype(dt), op.result.type),)

    @impl(arith.ExtFOp)
    def run_extf(self, interp, op: arith.ExtFOp, args):
        a = np.asarray(to_compute(args[0], op.input.type))
        return (from_compute(a, op.result.type),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interp, op: arith.TruncFOp, args):
        t = op.result.type
        a = np.asarray(to_compute(args[0], op.input.type))
        if is_bf16(t):
            return (f32_to_bf16(a.astype(np.float32)),)
        return (from_compute(a, t),)  # to an 8-bit float: one rounding

    @impl(arith.BitcastOp)
    def run_bitcast(self, interp, op: arith.BitcastOp, args):
        a = np.ascontiguousarray(args[0])
        out = a.view(dtype_of(op.result.type))
        return (out[()] if out.ndim == 0 else out,)
