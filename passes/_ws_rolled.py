"""The rolled form of `warp-specialize` (`warp-specialize{rolled=true}`; the pass's
docstring has the contract): the producer and consumer loops keep the K loop's step
once, on the staged buffers and mbarrier arrays of `software-pipeline`'s rolled form
(passes/_pipeline_rolled.py), each loop carrying its own (stage, phase):

    full = mbarrier_array {count = 1, stages = S}; empty = mbarrier_array {count = C, stages = S}
    producer: scf.for %i = lb to ub step st iter_args(%stage = 0, %phase = 0) {
                if (i >= lb + S st) mbarrier_wait empty[stage], phase ^ 1   // the stage is handed back
                arrive full[stage] {tx}; tma_load ... into stage
              } {tilec.unroll = 1}
    consumers: scf.for %i = ... iter_args(..., %stage = 0, %phase = 0) {
                mbarrier_wait full[stage], phase; compute on stage (wgmma {async} + wait 1)
                if (i != lb) mbarrier_arrive empty[stage == 0 ? S-1 : stage-1]
              } {tilec.unroll = 1}; mma_wait {pending = 0}; the epilogue

Round r of a stage completes phase r of its full barrier (parity r mod 2 = phase) and,
once handed back, phase r of its empty one; the producer's r-th refill (r >= 1) waits
for phase r - 1 of the empty barrier, parity `phase ^ 1`. Persistent tiles are not
taken in this form."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects.cuda import UNROLL_ATTR
from tilec.dialects.layout_mma import MmaWaitOp
from tilec.dialects.layout_roles import WARPGROUP, SetMaxNRegOp, WarpSpecializeOp
from tilec.dialects.layout_tma import MBarrierArrayOp, MBarrierArriveOp, MBarrierAtOp, MBarrierWaitOp, TmaStoreWaitOp
from tilec.support.locations import copy_loc

from ._gpu_builder import index
from ._pipeline_rolled import RolledPipeline


class RolledSpecialization(RolledPipeline):
    """Builds the rolled producer and consumer regions of one planned loop (the
    unrolled builder is passes/warp_specialize.py's `_Specialization`)."""

    def __init__(self, launch, plan, n: int, prod_regs: int, cons_regs: int, consumers: int):
        super().__init__(launch, plan, n)
        self.prod_regs, self.cons_regs, self.consumers = prod_regs, cons_regs, consumers

    def _advance(self, ops: list[Operation], stage: SSAValue, phase: SSAValue) -> list[SSAValue]:
        nxt = self.emit(ops, arith.AddiOp(stage, self.const(ops, 1)))
        wrap = self.emit(ops, arith.CmpiOp(nxt, self.const(ops, self.n), "eq"))
        flipped = self.emit(ops, arith.XOrIOp(phase, self.const(ops, 1)))
        return [self.emit(ops, arith.SelectOp(wrap, self.const(ops, 0), nxt)),
                self.emit(ops, arith.SelectOp(wrap, flipped, phase))]

    def _loop(self, body: Block, inits: list[SSAValue]) -> scf.ForOp:
        f = scf.ForOp(self.loop.lb, self.loop.ub, self.loop.step, inits, Region(body))
        copy_loc(self.loop, f)
        f.attributes[UNROLL_ATTR] = IntegerAttr(1, i64)
        return f

    def _state_args(self, body: Block) -> tuple[SSAValue, SSAValue]:
        stage, phase = body.args[-2], body.args[-1]
        stage.name_hint, phase.name_hint = "stage", "phase"
        return stage, phase

    def producer_loop(self) -> scf.ForOp:
        body = Block(arg_types=[index, index, index])
        i = body.args[0]
        i.name_hint = self.iv.name_hint
        stage, phase = self._state_args(body)
        ops: list[Operation] = []
        first_round_end = self.offset(ops, self.loop.lb, self.n)
        later = self.emit(ops, arith.CmpiOp(i, first_round_end, "uge"))
        wait = Block()
        eph = MBarrierWaitOp(self._at(wait, self.empty, stage),
                             self.emit_into(wait, arith.XOrIOp(phase, self.const(ops, 1))))
        wait.add_ops([eph, scf.YieldOp()])
        self.emit(ops, scf.IfOp(later, [], Region(wait), Region()))
        self.load(ops, i, self.stage_views(ops, stage))
        ops.append(scf.YieldOp(*self._advance(ops, stage, phase)))
        body.add_ops(ops)
        zero = self.const(ops, 0)
        return self._loop(body, [zero, zero])

    def emit_into(self, blk: Block, op: Operation) -> SSAValue:
        copy_loc(self.loop, op)
        blk.add_op(op)
        return op.results[0]

    def _at(self, blk: Block, bars: SSAValue, idx: SSAValue) -> SSAValue:
        at = MBarrierAtOp(bars, idx)
        at.result.name_hint = "empty"
        return self.emit_into(blk, at)

    def consumer_ops(self, after: list[Operation]) -> list[Operation]:
        n, loop, plan = self.n, self.loop, self.plan
        body = Block(arg_types=[index, *(a.type for a in self.body.args[1:]), index, index])
        i = body.args[0]
        i.name_hint = self.iv.name_hint
        nc = len(self.body.args) - 1
        for a, b in zip(body.args[1:1 + nc], self.body.args[1:]):
            a.name_hint = b.name_hint
        stage, phase = self._state_args(body)
        ops: list[Operation] = []
        cur = self.stage_views(ops, stage)
        self.emit(ops, MBarrierWaitOp(cur[plan.bar.result], phase))
        if plan.stores:  # the stores of n steps back have read this stage (warp_specialize.store_wait)
            self.emit(ops, TmaStoreWaitOp(min(7, (n - 1) * len(plan.stores))))
        out = self.compute(ops, i, cur, list(body.args[1:1 + nc]))
        later = self.emit(ops, arith.CmpiOp(i, loop.lb, "ne"))
        is0 = self.emit(ops, arith.CmpiOp(stage, self.const(ops, 0), "eq"))
        prev = self.emit(ops, arith.SelectOp(is0, self.const(ops, n - 1),
                                             self.emit(ops, arith.SubiOp(stage, self.const(ops, 1)))))
        hand = Block()
        hand.add_ops([MBarrierArriveOp(self._at(hand, self.empty, prev)), scf.YieldOp()])
        self.emit(ops, scf.IfOp(later, [], Region(hand), Region()))
        ops.append(scf.YieldOp(*out, *self._advance(ops, stage, phase)))
        body.add_ops(ops)
        zero = self.const(ops, 0)
        new_loop = self._loop(body, [*loop.iter_args, zero, zero])
        res: list[Operation] = [new_loop]
        results = list(new_loop.results[:nc])
        for r in new_loop.results:
            r.name_hint = None
        if plan.async_chains:
            idx = sorted(plan.async_chains)
            w = MmaWaitOp([results[x] for x in idx], pending=0)
            copy_loc(loop, w)
            res.append(w)
            for x, r in zip(idx, w.outs):
                results[x] = r
        if plan.stores:  # the last stores have read their buffers
            res.append(TmaStoreWaitOp(0))
        for old, new in zip(loop.results, results):
            old.replace_all_uses_with(new)
        for o in after:
            o.detach()
            res.append(o)
        return res

    def build(self, moved: list[Operation], after: list[Operation]) -> tuple[Block, Block]:
        """(consumers' block, producer's block); the staged buffers and barrier arrays
        made in the launch body."""
        self.make_staged()
        empty = MBarrierArrayOp(self.consumers, self.n)
        empty.result.name_hint = "empty"
        copy_loc(self.loop, empty)
        self.launch.body.block.insert_op_after(empty, self.bars)
        self.empty = empty.result
        cons = Block()
        cons.add_op(SetMaxNRegOp("inc", self.cons_regs))
        for o in moved:
            o.detach()
            cons.add_op(o)
        cons.add_ops(self.consumer_ops(after))
        prod = Block()
        prod.add_ops([SetMaxNRegOp("dec", self.prod_regs), self.producer_loop()])
        return cons, prod

    def run_split(self, moved: list[Operation], after: list[Operation]) -> None:
        """The launch body: the loop replaced by the `layout.warp_specialize` of the
        consumers (the tensor constants `moved` into them, the epilogue `after` the
        loop with them) and the producer; the block grows by a warpgroup."""
        loop, launch = self.loop, self.launch
        cons, prod = self.build(moved, after)
        ws = WarpSpecializeOp([self.consumers, 1], [Region(cons), Region(prod)])
        copy_loc(loop, ws)
        launch.body.block.insert_ops_before([*self.const_ops, ws], loop)
        loop.detach()
        loop.erase()
        self.erase_single_buffered()
        launch.threads = IntegerAttr(launch.num_threads + WARPGROUP, i64)

    def erase_single_buffered(self) -> None:
        """The single-buffered buffers and barrier, replaced by the staged ones."""
        for a, _ in self.staged:
            a.detach()
            a.erase()
        self.plan.bar.detach()
        self.plan.bar.erase()
