"""The `cuda` dialect: cp.async and its groups, comments, warp shuffles."""
from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
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

    @emits(cuda.MmaSyncOp)
    def emit_mma_sync(self, op: cuda.MmaSyncOp):
        """`mma.sync.aligned.m16n8k16.row.col.f32.T.T.f32` as inline PTX: fragment pairs
        (a0,a1), (a2,a3), ... packed into 32-bit registers, low element first."""
        bf16 = isinstance(op.operand_type, BFloat16Type)
        t, pack = ("bf16", "tilec_pack_bf16x2") if bf16 else ("f16", "tilec_pack_f16x2")
        self.ctype(op.operand_type, op)  # includes the header of the type
        self.helpers.add(pack[len("tilec_"):])
        outs = [self.define(r, "d") for r in op.outs]
        self.line(f"float {', '.join(outs)};")
        frag = [self.expr(v) for v in op.fragments]
        regs = [f'"r"({pack}({frag[i]}, {frag[i + 1]}))' for i in range(0, 12, 2)]
        regs += [f'"f"({x})' for x in frag[12:]]
        self.line(
            f'asm("mma.sync.aligned.m16n8k16.row.col.f32.{t}.{t}.f32 '
            '{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"'
        )
        constraints = ", ".join(f'"=f"({o})' for o in outs)
        self.line(f"    : {constraints}")
        self.line(f"    : {', '.join(regs)});")
