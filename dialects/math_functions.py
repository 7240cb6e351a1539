"""The `math` functions tilec supports, with their precision: one table shared by the CPU
reference executor (which computes each in float64 and rounds once to the result type),
the CUDA printer (which calls CUDA's function of the element type) and the GPU tests
(which compare within the bound this table gives, never a looser global tolerance).

`ulp_f32` / `ulp_f64` are the maximum errors in units of the last place that the CUDA
C++ Programming Guide (Mathematical Functions appendix, CUDA 12) states for the function
of that precision over its full range. The reference is the float64 result rounded to
the result type (within 0.5 ulp of the exact value), so a GPU result within the stated
bound of the exact value is within the same whole number of ulps of the reference.
`f16` and `bf16` are computed in float32 and rounded once, so they are within 1 ulp of
the reference (0 for the exact functions). `fast` names the intrinsic used when the op
carries `fastmath<afn>` (which `fastmath<fast>` includes) and the element type is f32; `ulp_fast` its bound
(None: an absolute or input-dependent bound, given in `fast_note`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import math as xmath

try:  # erf in float64; SciPy is a dependency of the dev install only
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover
    _erf = np.vectorize(math.erf, otypes=[np.float64])


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
    ulp_fast: int | None = None
    fast_note: str = ""

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def arity(self) -> int:
        return 3 if self.op is xmath.FmaOp else (2 if self.op is xmath.PowFOp else 1)

    def ulp(self, element: str) -> int:
        """The GPU-vs-reference bound in ulps of `element` ("f16", "bf16", "f32", "f64")."""
        if element == "f64":
            return self.ulp_f64
        if element == "f32":
            return self.ulp_f32
        return 0 if self.ulp_f32 == 0 else 1


def _rsqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


MATH_FUNCTIONS: tuple[MathFunction, ...] = (
    MathFunction(xmath.ExpOp, "expf", "exp", np.exp, 2, 1, "__expf", None, "2 + floor(abs(1.173 x)) ulp"),
    MathFunction(xmath.Exp2Op, "exp2f", "exp2", np.exp2, 2, 1),
    MathFunction(xmath.LogOp, "logf", "log", np.log, 1, 1, "__logf", None,
                 "2^-21.41 absolute in [0.5, 2], 3 ulp elsewhere"),
    MathFunction(xmath.Log2Op, "log2f", "log2", np.log2, 1, 1, "__log2f", None,
                 "2^-22 absolute in [0.5, 2], 2 ulp elsewhere"),
    MathFunction(xmath.SqrtOp, "sqrtf", "sqrt", np.sqrt, 0, 0),
    MathFunction(xmath.RsqrtOp, "rsqrtf", "rsqrt", _rsqrt, 2, 1),
    MathFunction(xmath.TanhOp, "tanhf", "tanh", np.tanh, 2, 1),
    MathFunction(xmath.ErfOp, "erff", "erf", _erf, 2, 2),
    MathFunction(xmath.AbsFOp, "fabsf", "fabs", np.abs, 0, 0),
    MathFunction(xmath.FloorOp, "floorf", "floor", np.floor, 0, 0),
    MathFunction(xmath.CeilOp, "ceilf", "ceil", np.ceil, 0, 0),
    MathFunction(xmath.FmaOp, "fmaf", "fma", lambda a, b, c: a * b + c, 0, 0),
    MathFunction(xmath.PowFOp, "powf", "pow", np.power, 4, 2, "__powf", None,
                 "as exp2(y * __log2f(x))"),
)
"""Every supported `math` op. fma's float64 reference `a * b + c` is exact for f32
and narrower (the product of two f32 fits a float64), so it is one rounding as fma;
for f64 inputs the reference rounds twice (documented in docs/dialect.md)."""

BY_OP: dict[type, MathFunction] = {f.op: f for f in MATH_FUNCTIONS}


def is_fast(op) -> bool:
    """Whether `op` asks for approximate functions (`fastmath<afn>`, included in `fast`)."""
    fm = getattr(op, "fastmath", None)
    if fm is None:
        return False
    return any(str(f) == "afn" for f in fm.data)
