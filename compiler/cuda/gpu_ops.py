"""The `gpu` ops: thread and block ids, barriers, return."""
from __future__ import annotations

from xdsl.dialects import gpu

from .printer import EmitterBase, emits


class GpuEmitter(EmitterBase):
    # gpu

    @emits(gpu.ThreadIdOp)
    def emit_thread_id(self, op: gpu.ThreadIdOp):
        self.special(op, "threadIdx", "tid")

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

