"""`layout.mma` (dialects/layout_mma.py) on the reference executor.

Distributed values are whole tensors (shape [blocks, M, K] or uniform [M, K]), so the
op is a (batched) matrix product: integers exactly (i8 products summed in int64, then
wrapped to i32 as the hardware's accumulator wraps), floats with the operands widened
to f32 (exact for f16/bf16), products and sums in f32 (NumPy's float32 matmul; its
summation order is not the GPU's, which is why float results are compared with
`layout_mma.mma_error_bound`).

Operands in shared memory (a version-3, wgmma, accumulator) are read whole, by each
block's first thread (`read_block_view`), after the barrier that must precede them.

Asynchrony (version 3). Each version-3 `layout.mma` is one group of the warpgroups
that run it (its *scope*: those of the block, or of the `layout.warp_specialize`
region). An `{async}` one computes at issue but returns its result as
`values.InFlight` (the executor reports any read of it but as an accumulator, by
`layout.mma_wait` or passed through `scf.yield`/`scf.for`), and keeps the shared
elements it read *being read* (`memory.WgmmaReads`, the same record as
`cuda.wgmma`'s) until a `layout.mma_wait {pending = N}` of its scope retires its group
(all but the N most recent): a write of them before is a data race. The wait gives
back each operand complete when its group is retired, else still in flight. A
synchronous version-3 mma waits for all its scope's groups (`wait_group 0`).

`layout.dot` (dialects/layout_dot.py) is its own definition: k = 0 .. K-1 in order,
`acc = f32(acc + f32(a[:, k] * b[k, :]))` (exact against NumPy doing the same); with
f16/bf16 operands it also records its magnitudes, as a float MMA does, since a
tensor-core lowering of it sums in another order.

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

from tilec.dialects.layout_dot import DotOp
from tilec.dialects.layout_mma import MmaWaitOp
from tilec.dialects.layout_roles import WARPGROUP

from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .layout_impls import read_block_view
from .memory import WgmmaReads, wgmma_reads
from .values import InFlight, from_compute, to_compute


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


def _scope(interp: ReferenceInterpreter, op) -> tuple[int, ...]:
    """The warpgroups (within a block) that run `op` now."""
    grid = interp.grid
    if grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
    tids = grid.active_tids()
    return tuple(sorted({int(w) for w in (tids % grid.threads_per_block) // WARPGROUP}))


def _groups(interp: ReferenceInterpreter) -> WgmmaReads:
    return wgmma_reads(interp.grid)


@register_impls
class MmaFunctions(InterpreterFunctions):
    @impl(MmaOp)
    def run_mma(self, interp: ReferenceInterpreter, op: MmaOp, args):
        a_t, b_t, c_t = op.a.type, op.b.type, op.acc.type
        for i in (0, 1):
            if isinstance(args[i], InFlight):
                raise ExecutionError(op, f"operand {'ab'[i]} is the result of an asynchronous layout.mma "
                                         "still in flight: read the result of a layout.mma_wait")
        args = list(args)
        if isinstance(args[2], InFlight):  # the tensor cores chain an accumulator in flight
            args[2] = args[2].value
        reads: list | None = [] if isinstance(b_t, TensorViewType) else None
        args = [
            read_block_view(interp, op, v, reads) if isinstance(t, TensorViewType) else v
            for v, t in zip(args, (a_t, b_t, c_t))
        ]
        d = self._product(interp, op, args, a_t, b_t, c_t)
        if reads is None:
            return (d,)
        scope, groups = _scope(interp, op), _groups(interp)
        if op.is_async:
            for st, keys in reads:
                groups.issue(scope, st, keys)
        groups.commit(scope)
        if op.is_async:
            return (InFlight(d, scope, groups.commits[scope] - 1),)
        groups.wait(scope, 0)
        return (d,)

    @impl(MmaWaitOp)
    def run_mma_wait(self, interp: ReferenceInterpreter, op: MmaWaitOp, args):
        scope, groups = _scope(interp, op), _groups(interp)
        pending = op.pending_groups
        groups.wait(scope, pending)
        limit = groups.commits.get(scope, 0) - pending
        out = []
        for v in args[:len(op.values)]:  # `after` orders the wait on the GPU only
            if isinstance(v, InFlight):
                if v.scope != scope:
                    raise ExecutionError(
                        op, f"waits in warpgroups {list(scope)} for a layout.mma that warpgroups "
                            f"{list(v.scope)} issued (a warpgroup waits for its own groups)")
                out.append(v.value if v.group < limit else v)
            else:
                out.append(v)
        return tuple(out)

    @impl(DotOp)
    def run_dot(self, interp: ReferenceInterpreter, op: DotOp, args):
        a_t, b_t, c_t = op.a.type, op.b.type, op.acc.type
        a, b, c = (_matrix(v, t).astype(np.float32) for v, t in zip(args, (a_t, b_t, c_t)))
        d = np.array(c, dtype=np.float32, copy=True)
        d = np.broadcast_to(d, np.broadcast_shapes(d.shape, a.shape[:-1] + (b.shape[-1],))).copy()
        with np.errstate(all="ignore"):
            for k in range(a.shape[-1]):
                prod = (a[..., :, k:k + 1] * b[..., k:k + 1, :]).astype(np.float32)
                d = (d + prod).astype(np.float32)
        kind = _type_name(a_t.element_type)
        if kind in ("f16", "bf16"):
            _record(interp, a, b, c, int(a_t.get_shape()[-1]), kind)
        return (from_compute(d, c_t.element_type),)

    @staticmethod
    def _product(interp: ReferenceInterpreter, op: MmaOp, args, a_t, b_t, c_t):
        """`acc + a @ b` of the operand values (views already read)."""
        a, b, c = (_matrix(v, t) for v, t in zip(args, (a_t, b_t, c_t)))
        if a.dtype.kind == "i":
            d = np.matmul(a.astype(np.int64), b.astype(np.int64)) + c.astype(np.int64)
            return from_compute(d.astype(np.int32), c_t.element_type)
        a32, b32, c32 = (x.astype(np.float32) for x in (a, b, c))
        d = np.matmul(a32, b32) + c32
        _record(interp, a32, b32, c32,
                int(b_t.shape[0] if isinstance(b_t, TensorViewType) else b_t.get_shape()[0]),
                _type_name(a_t.element_type))
        return from_compute(d.astype(np.float32), c_t.element_type)


def _record(interp: ReferenceInterpreter, a32, b32, c32, k: int, operand_type: str) -> None:
    """Note on `interp.mma_records` what one float product `c + a @ b` contributes to
    the tolerance (`MmaRecord`)."""
    prods = np.matmul(np.abs(a32).astype(np.float64), np.abs(b32).astype(np.float64))
    mag = prods + np.abs(c32).astype(np.float64)
    records = getattr(interp, "mma_records", None)
    if records is None:
        records = interp.mma_records = []  # type: ignore[attr-defined]
    finite = np.isfinite(mag)
    records.append(
        MmaRecord(
            k,
            operand_type,
            float(mag[finite].max()) if finite.any() else 0.0,
            float(prods[np.isfinite(prods)].max()) if np.isfinite(prods).any() else 0.0,
        )
    )
