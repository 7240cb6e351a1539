"""`layout.print` (dialects/layout_print.py): thread 0 of block (0, 0, 0) reads the
view's elements one scalar at a time and prints them with `cuda.printf`, one call per
line of `print_plan` (floats widened to f32, integers to i32 unless they are i64)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType, f32, i32

from tilec.dialects import cuda
from tilec.dialects import layout_print as lp

from .base import KernelBase, lowers
from .view_values import View, _eval_coords, _mode_coords


class PrintLowering(KernelBase):
    @lowers(lp.PrintOp)
    def op_layout_print(self, op: lp.PrintOp):
        v: View = self.get(op.view)
        t = op.view.type
        b = self.b
        first = b.eq_(self.tid, 0)
        for a in self.launch.body.block.args[:3]:  # bx, by, bz
            first = b.land(first, b.eq_(self.get(a), 0))
        lanes = t.vector_size if t.vec_layout is not None else 1

        def emit():
            cache: dict[int, object] = {}

            def value(k: int):
                if k not in cache:
                    i, j = divmod(k, lanes)
                    inner = _eval_coords(b, v.layout, _mode_coords(b, v.layout, i))
                    if v.vec is not None:
                        inner = b.add_(inner, _eval_coords(b, v.vec, _mode_coords(b, v.vec, j)))
                    cache[k] = self._printable(self.load_scalar(v, self._offset(v, inner)))
                return cache[k]

            for line in lp.print_plan(t):
                b.add(cuda.PrintfOp(line.format, [value(k) for k in line.values]))

        self._guarded(first, emit)

    def _printable(self, x):
        """x widened to what printf takes: f32 (or f64), i32 (or i64)."""
        t = x.type
        if isinstance(t, AnyFloat) and t.bitwidth < 32:
            return self.b.add(arith.ExtFOp(x, f32)).results[0]
        if isinstance(t, IntegerType) and t.width.data < 32:
            op = arith.ExtUIOp(x, i32) if t.width.data == 1 else arith.ExtSIOp(x, i32)
            return self.b.add(op).results[0]
        return x
