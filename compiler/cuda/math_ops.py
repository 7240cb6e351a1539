"""The `math` ops in the `cuda` target: each calls CUDA's function of its element type
(`expf` for f32, `exp` for f64; f16 and bf16 go through float), and the approximate
intrinsic (`__expf`, ..., or a device helper such as `tilec_ex2_approx_ftz`) only when the op carries `fastmath<afn>` and is f32. The
precision of each is in `tilec.dialects.math_functions` and docs/dialect.md."""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float64Type
from xdsl.ir import Operation

from tilec.dialects.math_functions import BY_OP, MathFunction, is_fast

from .printer import EmitterBase


def _emit_math(fn: MathFunction):
    def emit(self: EmitterBase, op: Operation) -> None:
        t = op.results[0].type
        ctype = self.ctype(t, op)
        args = [self.expr(v) for v in op.operands]
        if isinstance(t, Float64Type):
            name = fn.c_f64
        elif is_fast(op) and fn.fast is not None and not isinstance(t, Float16Type | BFloat16Type):
            name = fn.fast
        else:
            name = fn.c_f32
        if name.startswith("tilec_"):
            self.helpers.add(name.removeprefix("tilec_"))
        if isinstance(t, Float16Type | BFloat16Type):
            inner = ", ".join(f"static_cast<float>({a})" for a in args)
            expr = f"static_cast<{ctype}>({name}({inner}))"
        else:
            expr = f"{name}({', '.join(args)})"
        self.assign(op, op.results[0], expr)

    return emit


MATH_EMITTERS = {cls: _emit_math(fn) for cls, fn in BY_OP.items()}
"""math op type -> its printer (merged into the dispatch table by `cuda/__init__.py`)."""
