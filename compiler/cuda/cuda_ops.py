"""The `cuda` dialect: cp.async and its groups, comments, warp shuffles."""
from __future__ import annotations


from xdsl.dialects.builtin import (
    IntegerType,
)

from tilec.dialects import cuda

from .printer import EmitterBase, emits


class CudaOpsEmitter(EmitterBase):
    # cuda

    @emits(cuda.CpAsyncOp)
    def emit_cp_async(self, op: cuda.CpAsyncOp):
        self.buffer(op.dst, op)
        self.buffer(op.src, op)
        self.helpers.add("cp_async")
        dst = f"{self.expr(op.dst)} + {self.expr(op.dst_index)}"
        src = f"{self.expr(op.src)} + {self.expr(op.src_index)}"
        self.line(f"tilec_cp_async<{op.bytes.value.data}>({dst}, {src});")

    @emits(cuda.CpAsyncCommitOp)
    def emit_cp_async_commit(self, op: cuda.CpAsyncCommitOp):
        self.helpers.add("cp_async")
        self.line("tilec_cp_async_commit();")

    @emits(cuda.CpAsyncWaitOp)
    def emit_cp_async_wait(self, op: cuda.CpAsyncWaitOp):
        self.helpers.add("cp_async")
        self.line(f"tilec_cp_async_wait<{op.pending.value.data}>();")

    @emits(cuda.CommentOp)
    def emit_comment(self, op: cuda.CommentOp):
        text = " ".join(op.text.data.split())
        self.line(f"// {text}")

    @emits(cuda.ShflIdxOp)
    def emit_shfl_idx(self, op: cuda.ShflIdxOp):
        t = op.result.type
        ctype = self.ctype(t, op)
        value = self.expr(op.value)
        lane = self.expr(op.lane)
        width = op.width.value.data
        small = isinstance(t, IntegerType) and t.width.data < 32
        if small:
            value = f"(int){value}"
        expr = f"__shfl_sync(0xffffffffu, {value}, {lane}, {width})"
        if small:
            expr = f"({ctype}){expr}"
        self.assign(op, op.result, expr, "shfl")


