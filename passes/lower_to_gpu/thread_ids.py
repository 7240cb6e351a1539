"""`layout.thread_idx` / `layout.global_idx`: a coordinate of the thread in its block's
2-D/3-D shape, computed from the (1-D) hardware thread id; the global coordinate adds
the block id times the block's extent."""

from __future__ import annotations

from tilec.dialects import thread_ids as ti

from .base import lowers
from .context import OpFamily


class ThreadIdsLowering(OpFamily):
    def thread_coordinate(self, axis: int):
        b = self.b
        return ti.thread_coordinate(self.ctx.tid, self.ctx.launch.block_shape, axis, b.div_, b.rem_)

    @lowers(ti.ThreadIdxOp)
    def op_layout_thread_idx(self, op: ti.ThreadIdxOp):
        self.values.set_index(op.result, self.thread_coordinate(op.axis))

    @lowers(ti.GlobalIdxOp)
    def op_layout_global_idx(self, op: ti.GlobalIdxOp):
        b = self.b
        block_id = self.values.index(self.ctx.launch.block_ids[op.axis])
        extent = self.ctx.launch.block_shape[op.axis]
        self.values.set_index(op.result, b.add_(b.mul_(block_id, extent), self.thread_coordinate(op.axis)))



