"""The `vectorize-pointers` pass: vector widths of pointer-tensor accesses."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tilec.dialects import layout_ptr as lp
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import element_bytes, to_linear
from tilec.support.diagnostics import TilecError

from ._axis_info import AxisInfoAnalysis, access_width


@dataclass(frozen=True)
class VectorizePointersPass(ModulePass):
    """Give each `layout.ptr_load` / `layout.ptr_store` the widest vector its addresses allow.

    An AxisInfo analysis as Triton's (passes/_axis_info.py) finds, for the pointer
    tensor and the mask, per dimension, the contiguity, divisibility and constancy of
    their elements, from how they were computed (`layout.arange`, `layout.splat` of
    a pointer argument whose `align` is the divisibility of its address, `addi`,
    `muli`, `expand_dims`, `broadcast`, `layout.addptr`, `layout.cmpi`, a loop's
    induction variable, ...). The
    access's `vector` is the number v of consecutive registers of a thread, along the
    dim d its layout's first register bases run along, such that: v <= the
    registers consecutive along d, v <= the contiguity of the addresses along d, the
    address of each vector's first element is a multiple of v * E bytes (the
    divisibility along d), v * E <= max-bytes, a power of two. The CPU reference
    executor checks each vector for contiguity and alignment, so `--check-equivalence`
    tests these claims.

    `uniform_mask` is set when the mask's constancy along d is at least v (Triton's
    mask alignment): one predicate guards each vector. Otherwise the lowering guards
    each vector with the conjunction of its lanes' masks and falls back to per-lane
    accesses where they disagree (so `offsets < n` with an n of unknown divisibility
    still moves whole vectors inside the tensor).

    Options:
      max-bytes=B   widest access in bytes, a power of two in [1, 16] (default 16).
    """

    name = "vectorize-pointers"

    max_bytes: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.apply_tracked(ctx, op)

    def apply_tracked(self, ctx: Context, op: ModuleOp) -> list[Operation]:
        """`apply`, returning the ops it changed (the pipeline verifies only those)."""
        changed: list[Operation] = []
        b = self.max_bytes
        if b <= 0 or b & (b - 1) or b > 16:
            raise TilecError(f"vectorize-pointers: max-bytes={b} must be a power of two in [1, 16]")
        analysis = AxisInfoAnalysis()
        for o in op.walk():
            if isinstance(o, lp.PtrLoadOp | lp.PtrStoreOp):
                t: TensorType = o.ptrs.type  # type: ignore[assignment]
                try:
                    ll = to_linear(t.encoding, list(t.get_shape()))
                except LayoutError as e:
                    raise TilecError(f"cannot make a linear layout of {t}: {e}", op=o) from None
                mask = analysis.get(o.mask) if o.mask is not None else None
                w = access_width(ll, analysis.get(o.ptrs), mask, element_bytes(lp.pointee(t)), b)
                o.properties["vector"] = IntegerAttr(w.vector, i64)
                if o.mask is not None and w.uniform_mask and w.vector > 1:
                    o.properties["uniform_mask"] = UnitAttr()
                else:
                    o.properties.pop("uniform_mask", None)
                changed.append(o)
        return changed
