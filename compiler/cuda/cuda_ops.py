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

    @emits(cuda.MmaSyncOp)
    def emit_mma_sync(self, op: cuda.MmaSyncOp):
        """`mma.sync.aligned.m16n8kK.row.col...` as inline PTX: the operand fragments
        packed into 32-bit registers, low element first (`tilec_pack_*`; a tf32 is the
        f32's bits), the accumulators as "f" (f32) or "r" (s32) operands."""
        name, kind = op.kind_name, op.kind
        self.ctype(op.operand_type, op)  # includes the header of the type
        frag = [self.expr(v) for v in op.fragments]
        n = kind.a + kind.b
        if kind.per_register == 1:
            regs = [f'"r"(__float_as_uint({x}))' for x in frag[:n]]
        else:
            pack = {"bf16": "pack_bf16x2", "f16": "pack_f16x2", "i8": "pack_s8x4"}[name]
            self.helpers.add(pack)
            step = kind.per_register
            regs = [f'"r"(tilec_{pack}({", ".join(frag[i:i + step])}))' for i in range(0, n, step)]
        acc = "r" if name == "i8" else "f"
        regs += [f'"{acc}"({x})' for x in frag[n:]]
        outs = [self.define(r, "d") for r in op.outs]
        self.line(f"{'int' if name == 'i8' else 'float'} {', '.join(outs)};")
        na, nb = kind.a // kind.per_register, kind.b // kind.per_register
        places = iter(range(4 + na + nb + 4))

        def group(k: int) -> str:
            return "{" + ", ".join(f"%{next(places)}" for _ in range(k)) + "}"

        operands = ", ".join(group(k) for k in (4, na, nb, 4))
        self.line(f'asm("{kind.ptx} {operands};"')
        constraints = ", ".join(f'"={acc}"({o})' for o in outs)
        self.line(f"    : {constraints}")
        self.line(f"    : {', '.join(regs)});")
