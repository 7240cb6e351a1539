"""The `cuda` dialect's atomics and fences (dialects/cuda_atomic.py) as inline PTX."""
from __future__ import annotations

from tilec.dialects import cuda_atomic

from .printer import EmitterBase, emits


class AtomicEmitter(EmitterBase):
    @emits(cuda_atomic.AtomicAddOp)
    def emit_atomic_add(self, op: cuda_atomic.AtomicAddOp):
        """`atom.<order>.<scope>.global.add.u32` through inline PTX (the old value)."""
        self.buffer(op.mem, op)
        addr = f"{self.expr(op.mem)} + {self.expr(op.index)}"
        ctype = self.ctype(op.result.type, op)
        name = self.define(op.result, "old")
        self.line(f"{ctype} {name};")
        self.line(f'asm volatile("atom.{op.order.data}.{op.scope.data}.global.add.u32 %0, [%1], %2;" '
                  f': "=r"({name}) : "l"({addr}), "r"({self.expr(op.value)}) : "memory");')

    @emits(cuda_atomic.FenceOp)
    def emit_fence(self, op: cuda_atomic.FenceOp):
        self.line(f'asm volatile("fence.{op.order.data}.{op.scope.data};" ::: "memory");')
