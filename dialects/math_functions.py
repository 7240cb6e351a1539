"""The `math` functions tilec supports, with their precision: one table shared by the CPU
reference executor (which computes each in float64 and rounds once to the result type),
the CUDA printer (which calls CUDA's function of the element type) and the GPU tests
(which compare within the bound this table gives, never a looser global tolerance).

`ulp_f32` / `ulp_f64` are the maximum errors in units of the last place that the CUDA
C++ Programming Guide (Mathematical Functions appendix, CUDA 12) states for the function
of that precision over its full range. The reference is the float64 result rounded to
the result type (within 0.5 ulp of the exact value, for f32 and narrower), so a GPU
result within the stated bound of the exact value is within the same whole number of
ulps of the reference; for f64 results NumPy's float64 function is itself within an
ulp, so the f64 bound is CUDA's + 1 (`MathFunction.ulp`).
`f16` and `bf16` are computed in float32 and rounded once more, so they are within 1 ulp
of the reference (0 for the exact functions, whose float32 result rounds to the same
half value; fma is 1: its float32 rounding can change the half rounding). `fast` names the intrinsic (or, `tilec_...`, the device helper of
compiler/cuda/device_helpers.py) used when the op carries `fastmath<afn>` (which `fastmath<fast>` includes) and the element type is f32;
its bound depends on the input or is absolute (`fast_note`), so `--check` refuses to
compare such a program with the reference.

`arith.divf` is exact (correctly rounded) unless its flags say otherwise: with
`fastmath<arcp>` (or `fast`) on f32 / f64 it is `x * (1 / y)`, each step rounded, on
both sides (`reciprocal_division`); with `fastmath<afn>` alone on f32 the CUDA target
prints `tilec_div_approx_ftz` (`approximate_division`: PTX `div.approx.ftz.f32`, one
`MUFU.RCP` and a multiply, 2 ulp for |y| in [2^-126, 2^126], 0 for larger |y|,
subnormals flushed to 0), the reference `x / y`, and `--check` refuses the program.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import math as xmath


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in float64: SciPy's where it is installed (the dev install), else math.erf per
    element. SciPy is imported on the first call: importing it costs a tenth of a second
    that every `tilec` run that prints CUDA paid."""
    try:
        from scipy.special import erf
    except ImportError:  # pragma: no cover
        return np.vectorize(math.erf, otypes=[np.float64])(x)
    return erf(x)


@dataclass(frozen=True)
class MathFunction:
    op: type
    """The xDSL `math` op class."""
    c_f32: str
    c_f64: str
    reference: Callable[..., np.ndarray]
    """float64 arrays in, float64 out."""
    ulp_f32: int
    ulp_f64: int
    fast: str | None = None
    fast_note: str = ""

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def arity(self) -> int:
        return 3 if self.op is xmath.FmaOp else (2 if self.op is xmath.PowFOp else 1)

    def ulp(self, element: str) -> int:
        """The GPU-vs-reference bound in ulps of `element` ("f16", "bf16", "f32", "f64").
        For f64 the reference is NumPy's float64 function, itself within 1 ulp (0 for
        the exact ones), so the bound is CUDA's + 1 for the inexact functions."""
        if element == "f64":
            return self.ulp_f64 + (1 if self.ulp_f64 else 0)
        if element == "f32":
            return self.ulp_f32
        if self.op is xmath.FmaOp:
            return 1  # fmaf rounds to float32, then to the half type: twice
        return 0 if self.ulp_f32 == 0 else 1


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once: exact rational arithmetic (Fraction to float rounds
    correctly); inf and NaN operands through float64."""
    from fractions import Fraction

    def one(x, y, z):
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
            return x * y + z
        return float(Fraction(x) * Fraction(y) + Fraction(z))

    return np.asarray(np.frompyfunc(one, 3, 1)(a, b, c), dtype=np.float64)  # (a 0-d result is a Python float)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


MATH_FUNCTIONS: tuple[MathFunction, ...] = (
    MathFunction(xmath.ExpOp, "expf", "exp", np.exp, 2, 1, "__expf", "2 + floor(abs(1.173 x)) ulp"),
    MathFunction(xmath.Exp2Op, "exp2f", "exp2", np.exp2, 2, 1, "tilec_ex2_approx_ftz",
                 "PTX `ex2.approx.ftz.f32`, 2 ulp; subnormal inputs and results flushed to 0"),
    MathFunction(xmath.LogOp, "logf", "log", np.log, 1, 1, "__logf",
                 "2^-21.41 absolute in [0.5, 2], 3 ulp elsewhere"),
    MathFunction(xmath.Log2Op, "log2f", "log2", np.log2, 1, 1, "__log2f",
                 "2^-22 absolute in [0.5, 2], 2 ulp elsewhere"),
    MathFunction(xmath.SqrtOp, "sqrtf", "sqrt", np.sqrt, 0, 0),
    MathFunction(xmath.RsqrtOp, "rsqrtf", "rsqrt", _rsqrt, 2, 1),
    MathFunction(xmath.TanhOp, "tanhf", "tanh", np.tanh, 2, 1, "tilec_tanh_approx",
                 "PTX `tanh.approx.f32` (one `MUFU.TANH`), 2^-10.987 relative (`TANH_APPROX_ERROR`)"),
    MathFunction(xmath.ErfOp, "erff", "erf", _erf, 2, 2),
    MathFunction(xmath.AbsFOp, "fabsf", "fabs", np.abs, 0, 0),
    MathFunction(xmath.FloorOp, "floorf", "floor", np.floor, 0, 0),
    MathFunction(xmath.CeilOp, "ceilf", "ceil", np.ceil, 0, 0),
    MathFunction(xmath.FmaOp, "fmaf", "fma", _fma, 0, 0),
    MathFunction(xmath.PowFOp, "powf", "pow", np.power, 4, 2, "__powf",
                 "as exp2(y * __log2f(x))"),
)
"""Every supported `math` op. fma's reference is exact (rational arithmetic), rounded
once, for every element type."""

BY_OP: dict[type, MathFunction] = {f.op: f for f in MATH_FUNCTIONS}

TANH_APPROX_ERROR = 2.0**-10.987
"""The largest relative error of PTX `tanh.approx.f32` over the whole range (the PTX ISA's
figure for sm_75 and later), so also its largest absolute error (|tanh| <= 1): the bound of
`math.tanh` with `fastmath<afn>` on f32 (tests/gpu/test_compute_fast_paths_gpu.py measures
it) and of the epilogue's `silu_tanh` (api/gemm_programs.py)."""


def is_fast(op) -> bool:
    """Whether `op` asks for approximate functions (`fastmath<afn>`, included in `fast`)."""
    fm = getattr(op, "fastmath", None)
    if fm is None:
        return False
    return any(str(f) == "afn" for f in fm.data)


def reciprocal_division(op) -> bool:
    """Whether `op` is an `arith.divf` of f32 or f64 elements that allows a reciprocal
    (`fastmath<arcp>`, included in `fast`). tilec defines its quotient as `x * (1 / y)`,
    each step rounded to the element type, on every backend: the reference executor
    computes exactly that and the CUDA target prints `x * (1.0f / y)` (the reciprocal of
    one divisor is computed once: a row normalised by its sum takes one division per
    row, not one per element). LLVM's `arcp` allows this rewrite; Triton's `/` on f32
    is approximate (`div.full.f32`) by default."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import Float32Type, Float64Type

    if not isinstance(op, arith.DivfOp):
        return False
    t = op.result.type
    et = getattr(t, "element_type", t)
    return isinstance(et, Float32Type | Float64Type) and any(str(f) == "arcp" for f in op.fastmath.data)


APPROX_DIVISION_NOTE = ("PTX `div.approx.ftz.f32` (one `MUFU.RCP` and a multiply): 2 ulp for |y| in "
                        "[2^-126, 2^126], 0 for larger |y| (NaN where x is infinite); subnormal "
                        "inputs and results flushed to 0; on a distributed tensor whose divisors "
                        "are known numbers of a bounded range, one `rcp.approx` for 2 or 4 "
                        "quotients (`cuda.div_approx_group`): 2^-21 relative")
"""The precision of `approximate_division` (docs/dialect.md's table of `math` functions)."""


def approximate_division(op) -> bool:
    """Whether `op` is an `arith.divf` of f32 elements that asks for the hardware's
    approximate division: `fastmath<afn>` without `arcp` (`fastmath<fast>`, which holds
    both, keeps `reciprocal_division`'s `x * (1 / y)`, which the reference executor
    reproduces bit for bit). The CUDA target prints `tilec_div_approx_ftz(x, y)`
    (`APPROX_DIVISION_NOTE`); the reference executor computes `x / y` rounded once, so
    `--check` cannot bound the difference (`ulp_budget` is None), as for the `fast`
    intrinsics of `MATH_FUNCTIONS`. As LLVM's NVPTX backend takes `afn` on an `fdiv`
    for `div.approx.f32`; one multiprocessor special-function op a quotient where an
    IEEE division takes a Newton step and a slow-path branch."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import Float32Type

    if not isinstance(op, arith.DivfOp) or reciprocal_division(op):
        return False
    t = op.result.type
    return isinstance(getattr(t, "element_type", t), Float32Type) and is_fast(op)


def _element_name(t) -> str:
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float64Type

    e = getattr(t, "element_type", t)
    if isinstance(e, Float64Type):
        return "f64"
    if isinstance(e, Float16Type):
        return "f16"
    if isinstance(e, BFloat16Type):
        return "bf16"
    return "f32"


def ulp_budget(module) -> int | None:
    """How many ulps a GPU result of `module` may be from the reference executor's:
    2 * (the sum of the bounds of the inexact `math` ops it holds) + 1. Each function's
    error reaches an output at most twice in the kernels this is meant for (through the
    element's own path and through a reduction of same-sign terms over its row, as
    exp in softmax), and the arithmetic after it rounds once more. 0 when the module
    holds no inexact function (results are then compared bit for bit); None when an
    op's `fastmath` intrinsic (or an `approximate_division`) has no ulp bound (its
    results cannot be checked)."""
    total = 0
    for op in module.walk():
        if approximate_division(op):
            return None  # type: ignore[return-value]
        fn = BY_OP.get(type(op))
        if fn is None:
            continue
        elem = _element_name(op.results[0].type)
        if is_fast(op) and fn.fast is not None and elem == "f32":
            return None  # type: ignore[return-value]
        else:
            total += fn.ulp(elem)
    return 2 * total + 1 if total else 0


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between float arrays of one dtype (bf16 as its uint16
    bits); NaN and NaN are 0 apart, NaN and a number the largest distance."""
    a, b = np.asarray(a), np.asarray(b)
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    def ordered(x):
        i = x.view(ints).astype(np.int64)
        top = np.int64(1) << (8 * a.dtype.itemsize - 1)
        return np.where(i < 0, -(i + top), i)
    d = np.abs(ordered(a) - ordered(b))
    if a.dtype.kind == "f":
        na, nb = np.isnan(a), np.isnan(b)
    else:  # bf16 bits
        na = (a & 0x7F80 == 0x7F80) & (a & 0x7F != 0)
        nb = (b & 0x7F80 == 0x7F80) & (b & 0x7F != 0)
    d = np.where(na & nb, 0, np.where(na | nb, np.iinfo(np.int64).max, d))
    return d
