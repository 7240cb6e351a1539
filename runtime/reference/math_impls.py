"""`math` over uniform and per-thread NumPy values: each function computed in float64
from the operands' values and rounded once to the result type (bf16 through float32, an 8-bit float directly,
as `from_compute` rounds). The GPU's functions are within the bounds of
`tilec.dialects.math_functions` of these results; `fastmath` does not change the
reference (it only allows the GPU a larger error)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from tilec.dialects.math_functions import MATH_FUNCTIONS, MathFunction

from .executor import ReferenceInterpreter
from .values import dtype_of, f32_to_bf16, from_compute, is_bf16, packed_name, to_compute


def _rounded(x: np.ndarray, t) -> object:
    """A float64 result rounded once to the element type of t."""
    if is_bf16(t):
        # through float32, as the GPU rounds its float32 result: the two roundings
        # differ from one only when the float32 value lands exactly on a bf16 tie
        out = f32_to_bf16(np.asarray(x, np.float64).astype(np.float32))
    elif packed_name(t) is not None:  # an 8-bit float: one rounding from float64
        out = np.asarray(from_compute(np.asarray(x, np.float64), t))
    else:
        out = np.asarray(x, np.float64).astype(dtype_of(t))
    return out[()] if out.ndim == 0 else out


def _make(fn: MathFunction):
    @impl(fn.op)
    def run(self, interp: ReferenceInterpreter, op: Operation, args):
        t = op.results[0].type
        xs = [np.asarray(to_compute(a, t), dtype=np.float64) for a in args]
        with np.errstate(all="ignore"):
            return (_rounded(fn.reference(*xs), t),)

    return run


MathFunctions = register_impls(type(
    "MathFunctions",
    (InterpreterFunctions,),
    {"run_" + f.name.split(".")[1]: _make(f) for f in MATH_FUNCTIONS},
))
"""The impls of every op of `MATH_FUNCTIONS`, one generated method each."""
