"""`cuda.warp_specialize` (an if / else-if chain on the thread id, one branch per
region) and `cuda.setmaxnreg` (inline PTX, sm_90a), `cuda.named_barrier` (`bar.sync` / `bar.arrive`)."""

from __future__ import annotations

from tilec.dialects import cuda_roles

from .printer import EmitterBase, emits


class RoleEmitter(EmitterBase):
    @emits(cuda_roles.WarpSpecializeOp)
    def emit_warp_specialize(self, op: cuda_roles.WarpSpecializeOp):
        last = len(op.roles) - 1
        for i, r in enumerate(op.roles):
            lo, hi = sum(op.counts[:i]), sum(op.counts[: i + 1]) - 1
            which = f"warpgroup {lo}" if lo == hi else f"warpgroups {lo}..{hi}"
            if i == 0:
                self.line(f"if (threadIdx.x < {op.first_thread(1)}) {{  // {which}")
            elif i < last:
                self.line(f"}} else if (threadIdx.x < {op.first_thread(i + 1)}) {{  // {which}")
            else:
                self.line(f"}} else {{  // {which}")
            with self.indented():
                self.print_block(r.block, [])
        self.line("}")

    @emits(cuda_roles.SetMaxNRegOp)
    def emit_setmaxnreg(self, op: cuda_roles.SetMaxNRegOp):
        self.line(f'asm volatile("setmaxnreg.{op.action.data}.sync.aligned.u32 {op.count};\\n" ::: "memory");')

    @emits(cuda_roles.NamedBarrierOp)
    def emit_named_barrier(self, op: cuda_roles.NamedBarrierOp):
        mode = "arrive" if op.arrive else "sync"
        if op.offset is not None:  # a region run apart: each warpgroup's own barrier
            self.line(f'asm volatile("bar.{mode} %0, {op.count};" :: "r"((int)({op.index} + {self.expr(op.offset)})) '
                      ': "memory");')
            return
        self.line(f'asm volatile("bar.{mode} {op.index}, {op.count};" ::: "memory");')
