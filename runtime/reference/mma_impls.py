"""`layout.mma` (dialects/layout_mma.py) on the reference executor.

Distributed values are whole tensors (shape [blocks, M, K] or uniform [M, K]), so the
op is a (batched) matrix product: integers exactly (i8 products summed in int64, then
wrapped to i32 as the hardware's accumulator wraps), floats with the operands widened
to f32 (exact for f16/bf16), products and sums in f32 (NumPy's float32 matmul; its
summation order is not the GPU's, which is why float results are compared with
`layout_mma.mma_error_bound`).

Operands in shared memory (a version-3, wgmma, accumulator) are read whole, by each
block's first thread (`read_block_view`), after the barrier that must precede them.

Each float MMA records, on the interpreter, the largest `|acc| + |a| @ |b|` it saw and
its K and operand type (`interp.mma_records`), from which `api.mma_tolerance` bounds
how far two correct evaluations of the program may differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects.layout_attrs import TensorViewType
from tilec.dialects.layout_mma import MmaOp, _type_name

from .executor import ReferenceInterpreter
from .layout_impls import read_block_view
from .values import from_compute, to_compute


@dataclass
class MmaRecord:
    """What one execution of a float `layout.mma` contributes to the tolerance."""

    k: int
    operand_type: str
    magnitude: float
    """max over elements of |acc| + sum_k |a| |b| (f64)."""
    products: float
    """max over elements of sum_k |a| |b| (f64)."""


def _matrix(v, t) -> np.ndarray:
    return np.asarray(to_compute(v, t.element_type))


@register_impls
class MmaFunctions(InterpreterFunctions):
    @impl(MmaOp)
    def run_mma(self, interp: ReferenceInterpreter, op: MmaOp, args):
        a_t, b_t, c_t = op.a.type, op.b.type, op.acc.type
        args = [
            read_block_view(interp, op, v) if isinstance(t, TensorViewType) else v
            for v, t in zip(args, (a_t, b_t, c_t))
        ]
        a, b, c = (_matrix(v, t) for v, t in zip(args, (a_t, b_t, c_t)))
        if a.dtype.kind == "i":
            d = np.matmul(a.astype(np.int64), b.astype(np.int64)) + c.astype(np.int64)
            return (from_compute(d.astype(np.int32), c_t.element_type),)
        a32, b32, c32 = (x.astype(np.float32) for x in (a, b, c))
        d = np.matmul(a32, b32) + c32
        prods = np.matmul(np.abs(a32).astype(np.float64), np.abs(b32).astype(np.float64))
        mag = prods + np.abs(c32).astype(np.float64)
        records = getattr(interp, "mma_records", None)
        if records is None:
            records = interp.mma_records = []  # type: ignore[attr-defined]
        finite = np.isfinite(mag)
        records.append(
            MmaRecord(
                int(b_t.shape[0] if isinstance(b_t, TensorViewType) else b_t.get_shape()[0]),
                _type_name(a_t.element_type),
                float(mag[finite].max()) if finite.any() else 0.0,
                float(prods[np.isfinite(prods)].max()) if np.isfinite(prods).any() else 0.0,
            )
        )
        return (from_compute(d.astype(np.float32), c_t.element_type),)
