"""Warp specialisation: `layout.warp_specialize` -> `cuda.warp_specialize`,
`layout.setmaxnreg` -> `cuda.setmaxnreg` (dialects/layout_roles.py,
dialects/cuda_roles.py).

Each region is lowered into the matching region of the `cuda.warp_specialize` with
the thread id rebased to the region's first thread and the region's thread count:
distributed tensors, the wgmma warpgroup offsets and the elections of block-collective
ops (`tid == 0`: the region's first thread issues its TMA copies) then work as in a
block of the region's size. `mbarrier_arrive` inside a region elects the first thread
of each warpgroup (tma.py: one arrival per warpgroup). An op whose lowering needs a
barrier of the whole block (a layout conversion or reduction through shared memory) is
a located error inside a region.
"""

from __future__ import annotations

from xdsl.dialects import gpu
from xdsl.ir import Block, Operation, Region

from tilec.dialects import cuda_roles, layout_roles

from .base import KernelBase, _fail, lowers


def _no_block_barrier(op: Operation, dst: Block, before: Operation | None) -> None:
    """A located error if lowering `op` (its ops after `before` in `dst`) needed a
    barrier of the whole block: only the region's threads would reach it (a hang)."""
    ops = list(dst.ops)
    new = ops if before is None else ops[ops.index(before) + 1 :]
    for top in new:
        for inner in top.walk():
            if isinstance(inner, gpu.BarrierOp):
                raise _fail(
                    op,
                    f"'{op.name}' lowers through a barrier of the whole block (shared memory between "
                    "warps), which a layout.warp_specialize region cannot have: only its threads reach it",
                )


class RolesLowering(KernelBase):
    role_threads: int | None = None
    """Threads of the warp_specialize region being lowered (None: the whole block)."""

    @lowers(layout_roles.WarpSpecializeOp)
    def op_warp_specialize(self, op: layout_roles.WarpSpecializeOp):
        blocks = [Block() for _ in op.roles]
        saved = (self.tid, self.nthreads, self.role_threads)
        try:
            for i, (src, dst) in enumerate(zip(op.roles, blocks)):
                first, n = op.first_thread(i), layout_roles.WARPGROUP * op.counts[i]
                with self.b.at(dst):
                    self.tid = saved[0] - first if first else saved[0]
                    self.nthreads, self.role_threads = n, n
                    for o in src.block.ops:
                        before = dst.last_op
                        self.lower(o)
                        _no_block_barrier(o, dst, before)
        finally:
            self.tid, self.nthreads, self.role_threads = saved
        self.b.add(cuda_roles.WarpSpecializeOp(op.counts, [Region(blk) for blk in blocks]))

    @lowers(layout_roles.SetMaxNRegOp)
    def op_setmaxnreg(self, op: layout_roles.SetMaxNRegOp):
        self.b.add(cuda_roles.SetMaxNRegOp(op.action.data, op.count))
