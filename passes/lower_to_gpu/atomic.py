"""`layout.atomic_add` / `layout.fence` (dialects/layout_atomic.py): one `cuda.atomic_add`
at the element's storage index (addressed as `layout.read` addresses it,
element_access.py), one `cuda.fence`."""

from __future__ import annotations

from tilec.dialects import cuda_atomic as ca
from tilec.dialects import layout_atomic as lat

from .base import lowers
from .element_access import ElementAccessLowering
from .view_values import View


class AtomicLowering(ElementAccessLowering):
    """The atomics: element addresses as the element accesses' (the base class)."""

    @lowers(lat.AtomicAddOp)
    def op_layout_atomic_add(self, op: lat.AtomicAddOp):
        v: View = self.values.view(op.view)
        offs, _ = self.element_address(op, v, [self.values.index(c) for c in op.coords])
        x = self.ctx.ssa(op.value)
        r = self.b.add(ca.AtomicAddOp(v.mem, self.b.ssa(offs[0]), x, op.scope_name, op.order_name)).results[0]
        self.values.set_scalar(op.result, r)

    @lowers(lat.FenceOp)
    def op_layout_fence(self, op: lat.FenceOp):
        self.b.add(ca.FenceOp(op.scope_name, op.order_name))
