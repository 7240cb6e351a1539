"""Warp specialisation: `layout.warp_specialize` -> `cuda.warp_specialize`,
`layout.setmaxnreg` -> `cuda.setmaxnreg` (dialects/layout_roles.py,
dialects/cuda_roles.py).

Each region is lowered into the matching region of the `cuda.warp_specialize` with
the thread id rebased to the region's first thread and the region's thread count:
distributed tensors, the wgmma warpgroup offsets and the elections of block-collective
ops (`tid == 0`: the region's first thread issues its TMA copies) then work as in a
block of the region's size. `mbarrier_arrive` inside a region elects the first thread
of each warpgroup (tma.py: one arrival per warpgroup).
"""

from __future__ import annotations

from xdsl.ir import Block, Region

from tilec.dialects import cuda_roles, layout_roles

from .base import KernelBase, lowers


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
                        self.lower(o)
        finally:
            self.tid, self.nthreads, self.role_threads = saved
        self.b.add(cuda_roles.WarpSpecializeOp(op.counts, [Region(blk) for blk in blocks]))

    @lowers(layout_roles.SetMaxNRegOp)
    def op_setmaxnreg(self, op: layout_roles.SetMaxNRegOp):
        self.b.add(cuda_roles.SetMaxNRegOp(op.action.data, op.count))
