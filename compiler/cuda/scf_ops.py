"""`scf.for` (unrolled when static), `scf.while`, `scf.if`."""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type
from xdsl.ir import Operation, SSAValue

from tilec.dialects import cuda_tma
from tilec.dialects.cuda import UNROLL_ATTR

from .printer import EmitterBase, emits


class ScfEmitter(EmitterBase):
    # scf

    @emits(scf.ForOp)
    def emit_for(self, op: scf.ForOp):
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        pairs = _packed_pairs(op.iter_args)
        if pairs:
            results = self.declare_packed(op, pairs)
        else:
            results = self.declare_results(op, op.results, op.iter_args, op.body.block.args[1:])
        iv = op.body.block.args[0]
        iv_type = self.ctype(iv.type, op)
        name = self.define(iv, "i")
        pragma = unroll_pragma(op)
        if pragma is not None:
            self.line(pragma)
        increment = f"++{name}" if step == "1" else f"{name} += {step}"
        self.line(f"for ({iv_type} {name} = {lb}; {name} < {ub}; {increment}) {{")
        with self.indented():
            self.unpack_halves(op, op.body.block.args[1:], results)
            self.print_block(op.body.block, results)
        self.line("}")
        self.unpack_halves(op, op.results, results)

    def declare_packed(self, op: scf.ForOp, pairs: set[int]) -> list:
        """The loop's variables when some iter_args travel in pairs (`_packed_pairs`):
        one `unsigned` per pair, initialised with the two packed (low half first), and
        one variable per other iter_arg as in `declare_results`. A pair's entry in the
        returned targets is `(name, half, pack)` (see `print_assign`)."""
        targets: list = []
        block_args = op.body.block.args[1:]
        i = 0
        while i < len(op.iter_args):
            if i in pairs:
                t = op.iter_args[i].type
                self.ctype(t, op)  # includes the header of the type
                pack = _HALVES[type(t)][1]
                self.helpers.add(pack)
                hint = op.results[i].name_hint or block_args[i].name_hint
                name = self.name_table.fresh(hint, "r")
                lo, hi = (self.expr(v) for v in op.iter_args[i : i + 2])
                self.line(f"unsigned {name} = tilec_{pack}({lo}, {hi});")
                targets += [(name, 0, pack), (name, 1, pack)]
                i += 2
            else:
                targets += self.declare_results(op, op.results[i : i + 1], op.iter_args[i : i + 1], block_args[i : i + 1])
                i += 1
        return targets

    def unpack_halves(self, op: Operation, values: Sequence[SSAValue], targets: Sequence) -> None:
        """Name `values[i]` (the loop's block arguments, or its results) after the
        half of a packed variable that holds it: `const bf16 x = <low/high 16 bits>`."""
        for v, target in zip(values, targets, strict=True):
            if isinstance(target, tuple):
                name, half, _ = target
                bits = f"({name} & 0xffffu)" if half == 0 else f"({name} >> 16)"
                from_bits = _HALVES[type(v.type)][0]
                self.assign(op, v, f"{from_bits}((unsigned short){bits})", "x")

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
        """`if (c) { ... } else { ... }` assigning the results' variables; a result that
        is a vector of sub-word elements is joined as its words (`word_ctype`: a
        variable `i32xN w`, the branches assigning their value's bits, then `const
        i8x16 r = tilec_bitcast<i8x16>(w)`), so that NVVM keeps it packed."""
        words = [self.word_ctype(r.type, op) for r in op.results]
        results: list = []
        for r, word in zip(op.results, words):
            if word is None:
                results += self.declare_results(op, [r], ())
            else:
                name = self.name_table.fresh((r.name_hint or "r") + "_w", "w")
                self.line(f"{word} {name};")
                results.append((name, word))
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
        for r, target in zip(op.results, results):
            if isinstance(target, tuple):
                self.assign(op, r, f"tilec_bitcast<{self.ctype(r.type, op)}>({target[0]})", "r")



UNROLL_LIMIT = 16384
"""Most values (trip count x the body's size, `_unrolled_size`) a loop with static
bounds may take when the target unrolls it whole: 4096 operations of two operands
and a result."""


def _unrolled_size(op: scf.ForOp) -> int:
    """The size of `op` unrolled whole: trip count x the values its body's operations
    touch (one per operation, plus its operands and results, nested regions included).

    Values, not operations, measure what NVRTC compiles: a warpgroup MMA is one
    operation with 64 accumulator operands and 64 results, one 64-register asm
    statement. Counted as one operation, the K loop of the warp-specialised Hopper
    GEMM (16 trips of 32 wgmma at K = 4000) was unrolled whole, 512 wgmma in one
    straight line, and NVRTC took 11-25 s over it (ptxas most of that); a loop, it
    compiles in about 1 s (benchmarks/compile_time.py --gemm)."""
    lb, ub, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
    trips = max(0, -(-(ub - lb) // step)) if step > 0 else 0
    body = sum(1 + len(o.operands) + len(o.results) for o in op.body.walk())
    return trips * body


UNROLL_BRANCH_LIMIT = 128
"""Most branches (trip count x the body's branching operations, `_unrolled_branches`)
a loop with static bounds may take when the target unrolls it whole."""

BRANCHING_OPS = (cuda_tma.MBarrierWaitOp,)
"""Operations without regions that the target prints as a loop (an mbarrier wait spins
on `try_wait`)."""


def _unrolled_branches(op: scf.ForOp) -> int:
    """The branches of `op` unrolled whole: trip count x the operations of its body that
    branch (those with regions, `scf.if` and loops, and `BRANCHING_OPS`).

    Each is basic blocks for ptxas to schedule and allocate across, and unrolling one
    folds nothing that a trip needs: the producer loop of the warp-specialised GEMM
    (a wait, an `if` and the TMA loads of each stage: 20-24 of them a trip, 16-56 trips)
    took NVRTC 0.6-2.5 s unrolled and 0.2 s as a loop, while the straight-line loops
    that gain from unrolling (register tiles, masks of element loops) have a few."""
    lb, ub, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
    trips = max(0, -(-(ub - lb) // step)) if step > 0 else 0
    return trips * sum(1 for o in op.body.walk() if o.regions or isinstance(o, BRANCHING_OPS))


def unroll_pragma(op: scf.ForOp) -> str | None:
    """The `#pragma unroll` line of `op`: the IR's `tilec.unroll` where it states one
    (dialects/cuda.py); for static bounds, whole only loops that stay small (a K loop of
    a GEMM unrolled 256 times is hundreds of KB of code, and runs from instruction-cache
    misses: benchmarks/NOTES.md, the GEMM table; NVRTC takes seconds over it), else
    `unroll 1`; none for run-time bounds."""
    unroll = op.attributes.get(UNROLL_ATTR)
    if unroll is not None:
        return f"#pragma unroll {unroll.value.data}"
    if all(isinstance(v.owner, arith.ConstantOp) for v in (op.lb, op.ub, op.step)):
        return "#pragma unroll" if _unrolls_whole(op) else "#pragma unroll 1"
    return None


def stays_rolled(op: scf.ForOp) -> bool:
    """Whether the CUDA keeps `op` rolled: `#pragma unroll 1`, or run-time bounds."""
    return unroll_pragma(op) in ("#pragma unroll 1", None)


def _unrolls_whole(op: scf.ForOp) -> bool:
    """Whether a loop with static bounds is unrolled whole (`#pragma unroll`): it stays
    under both `UNROLL_LIMIT` values and `UNROLL_BRANCH_LIMIT` branches."""
    return _unrolled_size(op) <= UNROLL_LIMIT and _unrolled_branches(op) <= UNROLL_BRANCH_LIMIT


_HALVES = {BFloat16Type: ("__ushort_as_bfloat16", "pack_bf16x2"), Float16Type: ("__ushort_as_half", "pack_f16x2")}
"""16-bit float type -> (C function from its bits, the helper that packs two)."""


def _packed_pairs(iter_args: Sequence[SSAValue]) -> set[int]:
    """The iter_args i that travel with i+1 in one 32-bit variable: consecutive runs
    of the same 16-bit float type, in pairs from the run's start. A distributed
    tensor of bf16 or f16 is carried as one value per register element (lower-to-gpu);
    carried in pairs, mma.sync fragments (two elements per register, in the carrier's
    order) stay in the registers `ldmatrix` filled, and NVRTC folds their unpacking
    into the `mma.sync` that packs them again. Measured on the GEMM whose K loop
    carries its next operand fragments (examples/gemm_bf16.mlir's configuration at
    8192^3): carried one by one, ptxas repacks them every step, the cubin grows 12%
    (111743 bytes against 99327) and 4 bytes spill at its 255 registers."""
    pairs: set[int] = set()
    i = 0
    while i + 1 < len(iter_args):
        t = iter_args[i].type
        if type(t) in _HALVES and iter_args[i + 1].type == t:
            pairs.add(i)
            i += 2
        else:
            i += 1
    return pairs
