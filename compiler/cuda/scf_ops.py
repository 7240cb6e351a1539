"""`scf.for` (unrolled when static), `scf.while`, `scf.if`."""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.ir import Operation, SSAValue

from .printer import EmitterBase, emits


class ScfEmitter(EmitterBase):
    # scf

    @emits(scf.ForOp)
    def emit_for(self, op: scf.ForOp):
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        static = all(
            isinstance(v.owner, arith.ConstantOp) for v in (op.lb, op.ub, op.step)
        )
        results = self.declare_results(op, op.results, op.iter_args, op.body.block.args[1:])
        iv = op.body.block.args[0]
        iv_type = self.ctype(iv.type, op)
        name = self.define(iv, "i")
        if static:
            # unroll whole only loops that stay small: a K loop of a GEMM unrolled 256
            # times is hundreds of KB of code, and runs from instruction-cache misses
            # (docs/benchmarks.md, the GEMM table)
            self.line("#pragma unroll" if _unrolled_size(op) <= UNROLL_LIMIT else "#pragma unroll 1")
        increment = f"++{name}" if step == "1" else f"{name} += {step}"
        self.line(f"for ({iv_type} {name} = {lb}; {name} < {ub}; {increment}) {{")
        with self.indented():
            self.print_block(op.body.block, results)
        self.line("}")

    def declare_results(
        self,
        op: Operation,
        results: Sequence[SSAValue],
        inits: Sequence[SSAValue],
        block_args: Sequence[SSAValue] = (),
    ) -> list[str]:
        """Declare one mutable variable per result of a loop or an if; the loop's
        block arguments (iter_args) are the same variables."""
        names: list[str] = []
        for i, result in enumerate(results):
            ctype = self.ctype(result.type, op)
            hint = result.name_hint or (block_args[i].name_hint if block_args else None)
            name = self.name_table.fresh(hint, "r")
            self.names[result] = name
            if block_args:
                self.names[block_args[i]] = name
            init = f" = {self.expr(inits[i])}" if inits else ""
            self.line(f"{ctype} {name}{init};")
            names.append(name)
        return names

    @emits(scf.WhileOp)
    def emit_while(self, op: scf.WhileOp):
        """`while (true)`: the values entering `before` are variables initialised with
        the operands (what `after` yields assigns them), the results are variables that
        `scf.condition` assigns before it leaves the loop; `after`'s arguments are the
        results' variables."""
        before, after = op.before_region.block, op.after_region.block
        state = self.declare_results(op, before.args, op.arguments)
        results = self.declare_results(op, op.results, (), after.args)
        self.line("while (true) {")
        with self.indented():
            self.print_block(before, results)
            self.print_block(after, state)
        self.line("}")

    @emits(scf.IfOp)
    def emit_if(self, op: scf.IfOp):
        results = self.declare_results(op, op.results, ())
        self.line(f"if ({self.expr(op.cond)}) {{")
        with self.indented():
            self.print_block(op.true_region.block, results)
        if op.false_region.blocks and (
            len(op.false_region.block.ops) > 1
            or not isinstance(op.false_region.block.last_op, scf.YieldOp)
            or op.false_region.block.last_op.operands
        ):
            self.line("} else {")
            with self.indented():
                self.print_block(op.false_region.block, results)
        self.line("}")



UNROLL_LIMIT = 4096
"""Most operations (trip count x operations of the body, nested regions included) a
loop with static bounds may take when the target unrolls it whole."""


def _unrolled_size(op: scf.ForOp) -> int:
    lb, ub, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
    trips = max(0, -(-(ub - lb) // step)) if step > 0 else 0
    body = sum(1 for _ in op.body.walk())
    return trips * body
