"""The schedule `software-pipeline` builds (passes/software_pipeline.py has its contract):
`PipelineExpansion` stages a planned loop (passes/_pipeline_plan.py) and emits its
prologue and unrolled steps; `warp-specialize` reuses its pieces (the stage copies of
buffers and barriers, the loads and the compute of one iteration)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tilec.dialects.layout import AsyncWaitOp, BarrierOp, LaunchOp
from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
from tilec.dialects.layout_tma import MBarrierWaitOp, TmaStoreWaitOp
from tilec.support.locations import copy_loc

from ._gpu_builder import index
from ._pipeline_plan import LoopPlan, static_int

CP_ASYNC_PENDING_MAX = 7
"""The most commit groups a step's wait leaves in flight (`cuda.cp_async_wait`'s
range): a deeper ring (6 stages of two groups a step) waits for a group more than it
needs to."""

Stage = int | dict[SSAValue, SSAValue]
"""A stage of the pipeline: a static stage's index (the unrolled form's clones) or the
map from the single-buffered loop's buffers and barrier to a run-time stage's views
(passes/_pipeline_rolled.py)."""


class PipelineExpansion:
    """Builds the pipelined form of one planned loop (passes/software_pipeline.py)."""

    def __init__(self, launch: LaunchOp, plan: LoopPlan, n: int):
        self.launch, self.plan, self.n = launch, plan, n
        self.loop = plan.loop
        self.body = self.loop.body.block
        self.iv = self.body.args[0]
        lb, ub, st = (static_int(v) for v in (self.loop.lb, self.loop.ub, self.loop.step))
        self.trip = None if None in (lb, ub, st) else max(0, -(-(ub - lb) // st))
        self.consts: dict[int, SSAValue] = {}
        self.const_ops: list[Operation] = []
        self.unguarded = self.trip is not None and self.trip % n == 0
        """Whether no unrolled step is guarded: the static trip count is a multiple of S,
        or `run` peels its last trip mod S steps after the loop."""
        self.outer_map: dict[SSAValue, SSAValue] = {}
        """Values of the body's surroundings replaced where an iteration is emitted
        (`warp-specialize`'s persistent tiles: the block coordinates)."""

    # ----------------------------------------------------------------- emission

    def emit(self, ops: list[Operation], op: Operation) -> SSAValue | None:
        copy_loc(self.loop, op)
        ops.append(op)
        return op.results[0] if op.results else None

    def const(self, ops: list[Operation], v: int) -> SSAValue:
        """An index constant, made once before the loop (`ops` is ignored)."""
        if v not in self.consts:
            c = arith.ConstantOp(IntegerAttr(v, index))
            c.result.name_hint = f"c{v}_p"
            self.emit(self.const_ops, c)
            self.consts[v] = c.result
        return self.consts[v]

    def last_iteration(self, ops: list[Operation]) -> SSAValue:
        """The loop's last induction value, lb + ((ub - lb - 1) / step) * step, its ops
        appended to `ops` (used where lb < ub)."""
        loop = self.loop
        span = self.emit(ops, arith.SubiOp(loop.ub, loop.lb))
        span = self.emit(ops, arith.SubiOp(span, self.const(ops, 1)))
        count = self.emit(ops, arith.DivUIOp(span, loop.step))
        return self.emit(ops, arith.AddiOp(loop.lb, self.emit(ops, arith.MuliOp(count, loop.step))))

    def offset(self, ops: list[Operation], base: SSAValue, k: int) -> SSAValue:
        """base + k * step"""
        if k == 0:
            return base
        return self.emit(ops, arith.AddiOp(base, self.emit(ops, arith.MuliOp(self.const(ops, k), self.loop.step))))

    # ------------------------------------------------------------------- stages

    def make_stages(self) -> None:
        """Stage 0 is the original buffers and barrier; stages 1 .. S-1 clones placed
        after the last original buffer (and after the barrier)."""
        lb_block = self.launch.body.block
        self.stage_map: list[dict[SSAValue, SSAValue]] = [{} for _ in range(self.n)]
        for a in self.plan.allocs:
            self.stage_map[0][a.result] = a.result
        last = self.plan.allocs[-1]
        clones: list[Operation] = []
        for s in range(1, self.n):
            for a in self.plan.allocs:
                c = a.clone()
                clones.append(c)
                self.stage_map[s][a.result] = c.result
        lb_block.insert_ops_after(clones, last)
        if self.plan.bar is not None:
            bar = self.plan.bar
            bars = [bar.clone() for _ in range(1, self.n)]
            lb_block.insert_ops_after(bars, bar)
            self.stage_map[0][bar.result] = bar.result
            for s, b in enumerate(bars, 1):
                self.stage_map[s][bar.result] = b.result

    def _stage(self, stage: Stage) -> dict[SSAValue, SSAValue]:
        """The buffers and barrier of `stage`: a static stage's clones, or the map of a
        run-time stage's views (passes/_pipeline_rolled.py)."""
        return stage if isinstance(stage, dict) else self.stage_map[stage]

    def load(self, ops: list[Operation], q: SSAValue, stage: Stage) -> None:
        """The slice and the loads of iteration `q` into `stage`."""
        mapping = {**self.outer_map, **self._stage(stage)}
        mapping[self.iv] = q
        for o in self.body.ops:
            if o in self.plan.slice or o in self.plan.loads:
                c = o.clone(value_mapper=mapping)
                copy_loc(o, c)
                ops.append(c)

    def guarded(self, ops: list[Operation], cond: SSAValue, inner: list[Operation]) -> None:
        inner.append(scf.YieldOp())
        blk = Block()
        blk.add_ops(inner)
        self.emit(ops, scf.IfOp(cond, [], Region(blk), Region()))

    def compute(self, ops: list[Operation], q: SSAValue, stage: Stage,
                carried: list[SSAValue]) -> list[SSAValue]:
        """The compute of iteration `q` on `stage`; returns the values it yields."""
        mapping = {**self.outer_map, **self._stage(stage)}
        mapping[self.iv] = q
        for a, v in zip(self.body.args[1:], carried):
            mapping[a] = v
        chains = self.plan.async_chains
        chain_ops = set(chains.values())
        for o in self.plan.compute:
            if o in chain_ops and isinstance(o, MmaOp):  # sync wgmma -> async + wait 1
                m = MmaOp(mapping[o.a] if o.a in mapping else o.a, mapping.get(o.b, o.b), mapping[o.acc],
                          is_async=True)
                w = MmaWaitOp([m.result], pending=1)
                for x in (m, w):
                    copy_loc(o, x)
                    ops.append(x)
                mapping[o.result] = w.outs[0]
                continue
            c = o.clone(value_mapper=mapping)
            if o in chain_ops and isinstance(c, MmaWaitOp):
                c.pending = IntegerAttr(1, c.pending.type)
            copy_loc(o, c)
            ops.append(c)
            for r, rc in zip(o.results, c.results):
                mapping[r] = rc
        y = self.body.last_op
        return [mapping.get(v, v) for v in y.operands]

    # ---------------------------------------------------------------- schedule

    def step(self, ops: list[Operation], i: SSAValue, k: int, parity: SSAValue | None,
             carried: list[SSAValue]) -> list[SSAValue]:
        """Unrolled step k of the loop at `i` (iteration i + k step, stage k)."""
        n = self.n
        q = self.offset(ops, i, k)
        body: list[Operation] = []
        ahead_stage = (k + n - 1) % n
        out = self.step_body(body, q, k, lambda _ops: ahead_stage, parity, carried)
        if k == 0 or self.unguarded:
            ops.extend(body)
            return out
        # a step past the trip count: skipped, the carried values unchanged
        body.append(scf.YieldOp(*out))
        then = Block()
        then.add_ops(body)
        other = Block()
        if out:
            other.add_op(scf.YieldOp(*carried))
        cond = self.emit(ops, arith.CmpiOp(q, self.loop.ub, "slt"))
        r = self.emit(ops, scf.IfOp(cond, [v.type for v in out], Region(then), Region(other) if out else Region()))
        return list(r.owner.results) if out else []

    def step_body(self, ops: list[Operation], q: SSAValue, cur: Stage,
                  ahead: Callable[[list[Operation]], Stage], phase: SSAValue | None,
                  carried: list[SSAValue]) -> list[SSAValue]:
        """The steady-state step of both forms, appended to `ops`: iteration `q`
        computes on stage `cur` and loads iteration q + (S-1) step into the stage
        `ahead(ops_of_the_load)` gives (called once, where the load is emitted, so a
        run-time stage's views land beside the load). The TMA form waits on `cur`'s
        barrier with `phase`; the cp.async form clamps the iteration ahead to the last.
        Returns the values the compute yields."""
        n, plan = self.n, self.plan
        if plan.kind == "tma":
            bar = self._stage(cur)[plan.bar.result]

            def load_ahead() -> None:
                qa = self.offset(ops, q, n - 1)
                inner: list[Operation] = []
                self.load(inner, qa, ahead(inner))
                self.guarded(ops, self.emit(ops, arith.CmpiOp(qa, self.loop.ub, "slt")), inner)

            if plan.async_chains:  # the stage is free once this step's wait retired the last step's mma
                self.emit(ops, MBarrierWaitOp(bar, phase))
                out = self.compute(ops, q, cur, carried)
                self.emit(ops, BarrierOp())
                load_ahead()
            else:  # every thread is past the last step's compute: its stage is free now
                self.emit(ops, self.step_sync())
                load_ahead()
                self.emit(ops, MBarrierWaitOp(bar, phase))
                out = self.compute(ops, q, cur, carried)
            return out
        # at most CP_ASYNC_PENDING_MAX groups left in flight: waiting for more is safe
        self.emit(ops, AsyncWaitOp(min(CP_ASYNC_PENDING_MAX, (n - 2) * plan.groups)))
        self.emit(ops, BarrierOp())
        qa = self.offset(ops, q, n - 1)
        clamped = self.emit(ops, arith.MinUIOp(qa, self.last))
        self.load(ops, clamped, ahead(ops))
        return self.compute(ops, q, cur, carried)

    def step_sync(self) -> Operation:
        """What starts a step of a loop without wgmma in flight: the block meets (a
        barrier; with TMA stores, their wait, which meets the block too, leaving in
        flight the stores of the steps whose buffers this one does not touch)."""
        stores = self.plan.stores
        if not stores:
            return BarrierOp()
        dests = {o.dest.owner for o in self.plan.loads if hasattr(o, "dest")}
        # a buffer both stored from and loaded into: the load ahead refills the buffer
        # the step before stored, so every store must have read it
        shared = any(st.source.owner in dests for st in stores)
        return TmaStoreWaitOp(0 if shared else min(7, (self.n - 1) * len(stores)))  # at most 7: waiting for more is safe

    def prologue(self, pre: list[Operation], stage_of: Callable[[list[Operation], int], Stage]) -> None:
        """The loads of iterations 0 .. S-2 into stages 0 .. S-2, appended to `pre`;
        `stage_of(ops, q)` gives stage q (its views emitted into `ops`, beside the load).
        cp.async: every load clamped to the last iteration, the whole prologue guarded
        by lb < ub where the trip count is not known (it sets `self.last`); TMA: only
        the iterations that exist, each guarded where the trip count is not known."""
        n, plan, loop = self.n, self.plan, self.loop
        if plan.kind == "cp_async":
            self.last = self.last_iteration(pre)
            prologue: list[Operation] = []
            for q in range(n - 1):
                qv = self.offset(prologue, loop.lb, q)
                stage = stage_of(prologue, q)
                self.load(prologue, self.emit(prologue, arith.MinUIOp(qv, self.last)), stage)
            if self.trip is None:
                self.guarded(pre, self.emit(pre, arith.CmpiOp(loop.lb, loop.ub, "slt")), prologue)
            elif self.trip > 0:
                pre.extend(prologue)
            return
        for q in range(n - 1):
            if self.trip is not None and q >= self.trip:
                break
            qv = self.offset(pre, loop.lb, q)
            inner: list[Operation] = []
            self.load(inner, qv, stage_of(inner, q))
            if self.trip is not None:
                pre.extend(inner)
            else:
                self.guarded(pre, self.emit(pre, arith.CmpiOp(qv, loop.ub, "slt")), inner)

    def loop_body(self, state_types: list[Attribute]) -> Block:
        """The new loop's block: the induction variable, the loop's carried values
        (their name hints kept), then `state_types` (the rolled form's pipeline state)."""
        new_body = Block(arg_types=[index, *(a.type for a in self.body.args[1:]), *state_types])
        new_body.args[0].name_hint = self.iv.name_hint
        for a, b in zip(new_body.args[1:], self.body.args[1:]):
            a.name_hint = b.name_hint
        return new_body

    def replace_loop(self, pre: list[Operation], new_loop: scf.ForOp, results: list[SSAValue],
                     tail: Sequence[Operation] = ()) -> list[SSAValue]:
        """Puts the constants, `pre`, `new_loop` and `tail` (steps peeled after the loop,
        which `results` may come from) where the loop was, then the drain
        after it (the last wgmma groups' wait, cp.async's wait for the copies past the
        end, the TMA stores' wait); the loop's uses take `results` (the new loop's
        values for the old loop's, in order; those the wgmma wait retires replaced by
        its outputs) and the old loop is erased. Returns the values that replaced the
        loop's results."""
        plan, loop = self.plan, self.loop
        copy_loc(loop, new_loop)
        post: list[Operation] = []
        results = list(results)
        if plan.async_chains:  # the loop's last wgmma groups
            idx = sorted(plan.async_chains)
            w = MmaWaitOp([results[j] for j in idx], pending=0)
            self.emit(post, w)
            for j, r in zip(idx, w.outs):
                results[j] = r
        if plan.kind == "cp_async":  # the copies past the end
            self.emit(post, AsyncWaitOp(0))
        if plan.stores:  # the last stores have read their buffers
            self.emit(post, TmaStoreWaitOp(0))
        lb_block = self.launch.body.block
        lb_block.insert_ops_before([*self.const_ops, *pre, new_loop, *tail, *post], loop)
        for old, new in zip(loop.results, results):
            old.replace_all_uses_with(new)
        loop.detach()
        loop.erase()
        return results

    def run(self) -> None:
        n, plan, loop = self.n, self.plan, self.loop
        self.make_stages()
        pre: list[Operation] = []
        self.prologue(pre, lambda _ops, q: q)
        nstep = self.emit(pre, arith.MuliOp(self.const(pre, n), loop.step))
        nstep.name_hint = "nstep"
        # a static trip count above S that S does not divide: the loop runs the whole
        # rounds unguarded, the last trip mod S steps follow it (static stages 0, 1, ...)
        rest = self.trip % n if self.trip is not None and self.trip > n else 0
        ub = loop.ub
        if rest:
            self.unguarded = True
            span = self.emit(pre, arith.MuliOp(self.const(pre, self.trip // n), nstep))
            ub = self.emit(pre, arith.AddiOp(loop.lb, span))
            ub.name_hint = "rounds_end"
        new_body = self.loop_body([])
        i = new_body.args[0]
        ops: list[Operation] = []
        parity = None
        if plan.kind == "tma":
            rnd = self.emit(ops, arith.DivUIOp(self.emit(ops, arith.SubiOp(i, loop.lb)), nstep))
            parity = self.emit(ops, arith.RemUIOp(rnd, self.const(ops, 2)))
            rnd.name_hint, parity.name_hint = "round", "parity"
        carried = list(new_body.args[1:])
        for k in range(n):
            carried = self.step(ops, i, k, parity, carried)
        ops.append(scf.YieldOp(*carried))
        new_body.add_ops(ops)
        new_loop = scf.ForOp(loop.lb, ub, nstep, list(loop.iter_args), Region(new_body))
        tail: list[Operation] = []
        results = list(new_loop.results)
        if rest:  # the last, partial round: its parity is static
            parity = self.const(tail, (self.trip // n) % 2) if plan.kind == "tma" else None
            for k in range(rest):
                results = self.step(tail, ub, k, parity, results)
        if len(results) == 1:
            results[0].name_hint = loop.results[0].name_hint
        self.replace_loop(pre, new_loop, results, tail)
        if len(new_loop.results) > 1:  # printed as %r:N
            for r in new_loop.results:
                r.name_hint = None
