"""Identity tensors (dialects/layout_identity.py): no memory, so the lowering of a
coordinate is index arithmetic. `layout.make_identity_tensor` becomes a run-time view
of nothing (the view ops lower it as any view; no access reaches it), and
`layout.read_coord` the dialect's `coordinates` over the lowered tile coordinates,
thread ids and slice indices, with the builder's arithmetic."""

from __future__ import annotations

from tilec.dialects import layout_identity as li

from .base import lowers
from .context import OpFamily
from .view_values import View, _value_layout


class IdentityLowering(OpFamily):
    @lowers(li.MakeIdentityTensorOp)
    def op_make_identity_tensor(self, op: li.MakeIdentityTensorOp):
        b = self.b
        t = op.result.type
        extents = [self.values.index(e) for e in op.extents]
        it = iter(extents)
        shape = [next(it) if s is li.cute.DYN else s for s in op.shape]
        # the layout's `?` values in order: the extents, then the strides they make
        strides, acc = [], 1
        for (_, want), s in zip(((m.shape, m.stride) for m in li.views.modes(t.cute_layout)), shape):
            if want is li.cute.DYN:
                strides.append(acc)
            acc = b.mul_(acc, s)
        self.values.set_view(op.result, View(op.result, 0, _value_layout(t.cute_layout, [*extents, *strides]), None,
                                             None, "coord", t.element_type, 1))

    @lowers(li.ReadCoordOp)
    def op_read_coord(self, op: li.ReadCoordOp):
        root, chain = li.identity_chain(op.view)
        index = self.values.index
        coords = li.coordinates(root, chain, index, op.view.type, [index(i) for i in op.indices], self.b.arith)
        for r, c in zip(op.coords, coords):
            self.values.set_index(r, c)
