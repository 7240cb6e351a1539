"""The `gpu` ops: thread and block ids, barriers, return."""
from __future__ import annotations

from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from .printer import EmitterBase, emits

WARP_BITS = 5
"""log2 of the warp size: `threadIdx.x >> k` for k >= WARP_BITS is one value per warp
where the block's x extent is a multiple of 32."""


def warp_shift(op: Operation) -> int | None:
    """k where `op` is `arith.shrui(tid, k)` by a constant k >= WARP_BITS, else None."""
    if not isinstance(op, arith.ShRUIOp):
        return None
    c = op.rhs.owner
    if not isinstance(c, arith.ConstantOp) or not isinstance(c.value, IntegerAttr):
        return None
    k = c.value.value.data
    return k if k >= WARP_BITS else None


class GpuEmitter(EmitterBase):
    # gpu

    @emits(gpu.ThreadIdOp)
    def emit_thread_id(self, op: gpu.ThreadIdOp):
        """`threadIdx`; in x, in a kernel that issues wgmma, where the block's x extent is a
        multiple of 32, the op is at the kernel's top level (every lane converged) and a
        use shifts it right by 5 or more (a warp's or warpgroup's index: the layouts' warp
        bits, the warpgroup's offset in a wgmma operand), also the warp index
        `threadIdx.x >> 5` broadcast from lane 0 (`__shfl_sync`), which those shifts read
        (`emit_binary`): the same value, but ptxas knows it is one per warp and keeps what
        is computed from it on the uniform datapath, where from `threadIdx.x` it
        recomputes it in every lane and moves it to a uniform register (R2UR) at each
        wgmma whose descriptor reads it (16 per KV step in the attention kernel). Other
        kernels keep `threadIdx.x` (unmeasured there)."""
        self.special(op, "threadIdx", "tid")
        if (
            str(op.dimension.data) == "x"
            and self.wgmma
            and self.block_size is not None
            and self.block_size[0] % 32 == 0
            and isinstance(op.parent_op(), gpu.FuncOp)
            and any(warp_shift(u.operation) is not None and u.index == 0 for u in op.result.uses)
        ):
            t = self.index_ctype
            name = self.name_table.fresh("warp", "warp")
            self.line(f"const {t} {name} = ({t})__shfl_sync(0xffffffffu, (int)(threadIdx.x >> {WARP_BITS}), 0);"
                      "  // the warp's index, uniform")
            self.warp_index[op.result] = name

    @emits(gpu.BlockIdOp)
    def emit_block_id(self, op: gpu.BlockIdOp):
        self.special(op, "blockIdx", "bid")

    @emits(gpu.BlockDimOp)
    def emit_block_dim(self, op: gpu.BlockDimOp):
        self.special(op, "blockDim", "ntid")

    @emits(gpu.GridDimOp)
    def emit_grid_dim(self, op: gpu.GridDimOp):
        self.special(op, "gridDim", "nctaid")

    def special(
        self,
        op: gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp,
        register: str,
        default: str,
    ) -> None:
        dim = str(op.dimension.data)
        self.assign(op, op.result, f"({self.index_ctype}){register}.{dim}", default)

    @emits(gpu.GlobalIdOp)
    def emit_global_id(self, op: gpu.GlobalIdOp):
        dim = str(op.dimension.data)
        t = self.index_ctype
        expr = f"({t})blockIdx.{dim} * ({t})blockDim.{dim} + ({t})threadIdx.{dim}"
        self.assign(op, op.result, expr, "gid")

    @emits(gpu.LaneIdOp)
    def emit_lane_id(self, op: gpu.LaneIdOp):
        self.helpers.add("lane_id")
        self.assign(op, op.result, f"({self.index_ctype})tilec_lane_id()", "lane")

    @emits(gpu.BarrierOp)
    def emit_barrier(self, op: gpu.BarrierOp):
        self.line("__syncthreads();")

    @emits(gpu.ReturnOp)
    def emit_return(self, op: gpu.ReturnOp):
        self.line("return;")

