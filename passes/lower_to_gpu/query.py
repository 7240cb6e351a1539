"""`layout.rank/depth/size/cosize` (dialects/layout_query.py): a constant when the type
decides the answer, else index arithmetic over the view's run-time layout
(size: the product of the extents; cosize: `1 + sum((s-1)*d)`, the strides of a bound
view being non-negative)."""

from __future__ import annotations

from tilec.dialects import layout_query as lq

from .base import lowers
from .context import OpFamily
from .view_values import View


class QueryLowering(OpFamily):
    @lowers(lq.RankOp, lq.DepthOp, lq.SizeOp, lq.CosizeOp)
    def op_layout_query(self, op: lq.QueryOp):
        static = op.static_value()
        if static is not None:
            self.values.set_index(op.result, static)
            return
        b = self.b
        v: View = self.values.view(op.source)
        modes = v.layout if op.mode_index is None else [v.layout[op.mode_index]]
        leaves = [leaf for m in modes for leaf in m]
        out = 1
        if op.KIND == "size":
            for s, _ in leaves:
                out = b.mul_(out, s)
        else:  # cosize
            for s, d in leaves:
                out = b.add_(out, b.mul_(b.sub_(s, 1), d))
        self.values.set_index(op.result, out)
