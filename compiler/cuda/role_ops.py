"""`cuda.warp_specialize` (an if / else-if chain on the thread id, one branch per
region) and `cuda.setmaxnreg` (inline PTX, sm_90a)."""

from __future__ import annotations

from tilec.dialects import cuda_roles

from .printer import EmitterBase, emits


class RoleEmitter(EmitterBase):
    @emits(cuda_roles.WarpSpecializeOp)
    def emit_warp_specialize(self, op: cuda_roles.WarpSpecializeOp):
        last = len(op.roles) - 1
        for i, r in enumerate(op.roles):
            end = op.first_thread(i + 1) if i < last else None
            head = "if" if i == 0 else "} else if"
            if end is None:
                self.line(f"}} else {{  // warpgroups {sum(op.counts[:i])}..{sum(op.counts) - 1}")
            else:
                self.line(f"{head} (threadIdx.x < {end}) {{  // warpgroups {sum(op.counts[:i])}..{sum(op.counts[: i + 1]) - 1}")
            with self.indented():
                self.print_block(r.block, [])
        self.line("}")

    @emits(cuda_roles.SetMaxNRegOp)
    def emit_setmaxnreg(self, op: cuda_roles.SetMaxNRegOp):
        self.line(f'asm volatile("setmaxnreg.{op.action.data}.sync.aligned.u32 {op.count};\\n" ::: "memory");')
