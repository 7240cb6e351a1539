"""Warp specialisation: `layout.warp_specialize` -> `cuda.warp_specialize`,
`layout.setmaxnreg` -> `cuda.setmaxnreg`, `layout.named_barrier` -> `cuda.named_barrier`
(`bar.sync` / `bar.arrive`, run by every thread of the region) (dialects/layout_roles.py,
dialects/cuda_roles.py).

Each region is lowered into the matching region of the `cuda.warp_specialize` with
the thread id rebased to the region's first thread and the region's thread count:
distributed tensors, the wgmma warpgroup offsets and the elections of block-collective
ops (`tid == 0`: the region's first thread issues its TMA copies) then work as in a
block of the region's size. `mbarrier_arrive` inside a region elects the first thread
of each warpgroup (tma.py: one arrival per warpgroup). A region that only waits,
arrives, issues TMA loads and computes scalars and shared addresses (a producer: the
`warp-specialize` pass's, unrolled, rolled or persistent, with its loops carrying
scalars such as the ring's (stage, phase) or a tile count, or a front end's) runs,
after its leading `setmaxnreg` (a warpgroup collective: every warp executes it),
on the first warp of each warpgroup only; the other warps leave the region at once
(they would only spin in the waits beside it, taking issue slots from the consumers:
CUTLASS's and FlashAttention-3's one producer warp). An op whose lowering needs a
barrier of the whole block (a layout conversion or reduction through shared memory) is
a located error inside a region.
"""

from __future__ import annotations

from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region

from tilec.dialects import cuda_roles, layout_roles

from .base import _fail, lowers
from .context import OpFamily

ONE_WARP_OPS = {
    "layout.mbarrier_arrive",
    "layout.mbarrier_wait",
    "layout.mbarrier_at",
    "layout.tma_load",
    "layout.tile",
    "layout.slice",
    "scf.for",
    "scf.if",
    "scf.yield",
}
"""Ops that act once per region or warpgroup (an elected thread) or compute scalars
and addresses (a global tile's coordinates, a stage of a staged shared buffer or
mbarrier array): a region of only these (and `arith`), none with a distributed tensor
result, needs one warp per warpgroup."""


def _one_warp_suffices(ops: list[Operation]) -> bool:
    """Whether `ops` (and what they hold) are only `arith` and ONE_WARP_OPS, none with a
    result that is a distributed tensor (a `tensor<..., #layout>`, held by every thread
    of the warpgroup): a producer's loops of waits, arrivals and TMA loads, carrying
    scalars at most (the rolled ring's stage and phase, a persistent tile count)."""
    for top in ops:
        for o in top.walk():
            if not (o.name.startswith("arith.") or o.name in ONE_WARP_OPS):
                return False
            if any(isinstance(r.type, TensorType) for r in o.results):
                return False
    return True


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


class RolesLowering(OpFamily):
    @lowers(layout_roles.WarpSpecializeOp)
    def op_warp_specialize(self, op: layout_roles.WarpSpecializeOp):
        blocks = [Block() for _ in op.roles]
        for i, (src, dst) in enumerate(zip(op.roles, blocks)):
            first, n = op.first_thread(i), op.role_threads(i)
            with self.b.at(dst), self.ctx.region_threads(first, n, op.counts[i] if i in op.apart else 0):
                ops = list(src.block.ops)
                head = next(
                    (j for j, o in enumerate(ops) if not isinstance(o, layout_roles.SetMaxNRegOp)), len(ops)
                )
                for o in ops[:head]:
                    self.ctx.lower(o)
                body = dst
                if head < len(ops) and _one_warp_suffices(ops[head:]):
                    # only the first warp of each warpgroup runs the rest: the others
                    # would only wait beside it
                    body = Block()
                    cond = self.b.ssa(self.b.lt_(self.b.and_(self.ctx.tid, layout_roles.WARPGROUP - 1), 32))
                    self.b.add(scf.IfOp(cond, [], Region(body), Region()))
                with self.b.at(body):
                    for o in ops[head:]:
                        before = body.last_op
                        self.ctx.lower(o)
                        _no_block_barrier(o, body, before)
                    if body is not dst:
                        self.b.add(scf.YieldOp())
        self.b.add(cuda_roles.WarpSpecializeOp(op.counts, [Region(blk) for blk in blocks], op.apart))

    @lowers(layout_roles.WarpgroupIndexOp)
    def op_warpgroup_index(self, op: layout_roles.WarpgroupIndexOp):
        if self.ctx.warpgroup_index is None:
            raise _fail(op, "layout.warpgroup_index outside a warp_specialize region run apart")
        self.values.set_index(op.result, self.ctx.warpgroup_index)

    @lowers(layout_roles.SetMaxNRegOp)
    def op_setmaxnreg(self, op: layout_roles.SetMaxNRegOp):
        self.b.add(cuda_roles.SetMaxNRegOp(op.action.data, op.count))

    @lowers(layout_roles.NamedBarrierOp)
    def op_named_barrier(self, op: layout_roles.NamedBarrierOp):
        self.b.add(cuda_roles.NamedBarrierOp(op.index, op.count, arrive=op.arrive))
