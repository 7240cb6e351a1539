"""`layout.print` (dialects/layout_print.py): thread 0 of block (0, 0, 0) reads the
view's elements one scalar at a time and prints them with `cuda.printf`, one call per
line of `print_plan` (floats widened to f32, integers to i32 unless they are i64).
A distributed tensor: every thread of block 0 prints one line per register."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType, TensorType, f32, i32

from tilec.dialects import cuda
from tilec.dialects import layout_print as lp

from .._gpu_builder import IndexValue
from . import access, registers
from .base import lowers
from .context import OpFamily
from .view_values import View, _eval_coords, _mode_coords


class PrintLowering(OpFamily):
    @lowers(lp.PrintOp)
    def op_layout_print(self, op: lp.PrintOp):
        b = self.b
        block0: IndexValue = True
        for a in self.ctx.launch.body.block.args[:3]:  # bx, by, bz
            block0 = b.land(block0, b.eq_(self.values.index(a), 0))
        if isinstance(op.source.type, TensorType):
            self._print_distributed(op, block0)
            return
        v: View = self.values.view(op.source)
        t = op.source.type
        first = b.land(b.eq_(self.ctx.tid, 0), block0)
        lanes = t.vector_size if t.vec_layout is not None else 1

        def emit():
            cache: dict[int, object] = {}

            def value(k: int):
                if k not in cache:
                    i, j = divmod(k, lanes)
                    inner = _eval_coords(b, v.layout, _mode_coords(b, v.layout, i))
                    if v.vec is not None:
                        inner = b.add_(inner, _eval_coords(b, v.vec, _mode_coords(b, v.vec, j)))
                    cache[k] = self._printable(access.load_scalar(self.b, v, access.offset(self.b, v, inner)))
                return cache[k]

            for line in lp.print_plan(t):
                b.add(cuda.PrintfOp(line.format, [value(k) for k in line.values]))

        access.guarded(self.b, first, emit)

    def _print_distributed(self, op: lp.PrintOp, block0: IndexValue):
        """Each thread of block 0 prints each register: its id, the element's
        coordinate (register bits XOR the thread's lane and warp bits) and value."""
        b = self.b
        t: TensorType = op.source.type
        xs = self.values.registers(op.source)
        ll = registers.linear(t, op)
        tco = registers.thread_coords(self.ctx, ll, op)
        line = lp.distributed_line(t)

        def i32_(x: IndexValue):
            return b.add(arith.IndexCastOp(b.ssa(x), i32)).results[0]

        def emit():
            access.guarded(self.b, b.eq_(self.ctx.tid, 0), lambda: b.add(cuda.PrintfOp(lp.distributed_header(t))))
            tid = i32_(self.ctx.tid)
            for r, rc in enumerate(registers.reg_coords(ll)):
                cs = [i32_(b.xor_(tco[d], rc[d])) for d in range(ll.rank)]
                b.add(cuda.PrintfOp(line, [tid, *cs, self._printable(xs[r])]))

        access.guarded(self.b, block0, emit)

    def _printable(self, x):
        """x widened to what printf takes: f32 (or f64), i32 (or i64)."""
        t = x.type
        if isinstance(t, AnyFloat) and t.bitwidth < 32:
            return self.b.add(arith.ExtFOp(x, f32)).results[0]
        if isinstance(t, IntegerType) and t.width.data < 32:
            op = arith.ExtUIOp(x, i32) if t.width.data == 1 else arith.ExtSIOp(x, i32)
            return self.b.add(op).results[0]
        return x
