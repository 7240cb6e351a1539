"""The rolled form of `software-pipeline`'s schedule (`software-pipeline{rolled=true}`;
passes/software_pipeline.py has the contract): CUTLASS's `PipelineState`, Triton's
pipelined loops. Where `PipelineExpansion` (passes/_pipeline_expand.py) clones each
shared buffer and the mbarrier per stage and unrolls the loop by the stages, this
form keeps the steady-state step once:

- each shared buffer the loads fill becomes one *staged* allocation, a leading stage
  mode of S stages before its layout (`(S, L...)`, the stage stride the buffer's
  cosize rounded up to 1024 bytes: a stage starts where a 128-byte swizzle and the
  TMA want it), and a step's buffer is its stage, `layout.slice %buf[%stage, _, ...]`;
- the mbarrier becomes `layout.mbarrier_array {stages = S}`, a step's barrier
  `layout.mbarrier_at %bars[%stage]`;
- the loop keeps its step and carries the pipeline state besides its own values:
  the stage of the step (0 first, `stage = stage + 1 == S ? 0 : stage + 1`) and, in
  the TMA form, the parity of the phase its barrier completes (0 first, flipped when
  the stage wraps round);
- the stage a step loads ahead into is the one the step before read,
  `stage == 0 ? S - 1 : stage - 1`.

A step of the loop, prologue and epilogue are those of the unrolled form (the same
waits, barriers, async wgmma and guards), with the stage a run-time value:

    prologue: loads of iterations 0 .. S-2 into stages 0 .. S-2
    scf.for %i = lb to ub step st iter_args(..., %stage = 0, %phase = 0) {
      TMA, wgmma in flight: mbarrier_wait bars[stage], phase; compute on stage;
                            layout.barrier; if (i + (S-1) st < ub) { load it into ahead }
      TMA, else:            barrier (or the TMA stores' wait); if (...) { load ahead };
                            mbarrier_wait bars[stage], phase; compute
      cp.async:             async_wait {pending = (S-2) groups}; layout.barrier;
                            copy_async of min(i + (S-1) st, last) into ahead; compute
      yield ..., next stage, next phase
    } {tilec.unroll = 1}           // the CUDA keeps the loop rolled (#pragma unroll 1)
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64
from xdsl.ir import Operation, Region, SSAValue

from tilec.dialects import cute
from tilec.dialects.cuda import UNROLL_ATTR
from tilec.dialects.layout import AllocOp, SliceOp
from tilec.dialects.layout_attrs import ComposedLayoutAttr, CuteLayoutAttr, TensorViewType, element_bytes
from tilec.dialects.layout_tma import MBarrierArrayOp, MBarrierAtOp
from tilec.dialects.swizzle import ComposedLayout
from tilec.dialects.views import DYNAMIC, WILDCARD
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._gpu_builder import index
from ._pipeline_expand import PipelineExpansion

STAGE_ALIGN_BYTES = 1024
"""Where each stage of a staged buffer starts: a multiple of this many bytes (the
128-byte swizzle's repeat, which TMA and wgmma need of their shared buffers)."""


def staged_type(t: TensorViewType, stages: int) -> TensorViewType:
    """The type of `stages` copies of a shared buffer of type `t` side by side: a
    leading stage mode `stages : stride` before its layout (the stride its cosize
    rounded up to `STAGE_ALIGN_BYTES`), its swizzle kept."""
    inner = t.cute_layout
    unit = element_bytes(t.element_type) * t.vector_size
    align = max(1, STAGE_ALIGN_BYTES // unit)
    stride = -(-inner.cosize() // align) * align
    modes = inner.modes() if isinstance(inner.shape, tuple) else [inner]
    lay = cute.Layout((stages, *(m.shape for m in modes)), (stride, *(m.stride for m in modes)))
    if isinstance(t.layout, ComposedLayoutAttr):
        c = t.layout.data
        return t.with_(layout=ComposedLayoutAttr(ComposedLayout(c.swizzle, c.offset, lay)))
    return t.with_(layout=CuteLayoutAttr(lay))


class RolledPipeline(PipelineExpansion):
    """Builds the rolled pipelined form of one planned loop (module docstring)."""

    def make_staged(self) -> None:
        """One staged allocation per buffer, in place of the buffer; one mbarrier array
        in place of the barrier (the old ops are erased once the loop is rebuilt)."""
        lb_block = self.launch.body.block
        self.staged: list[tuple[AllocOp, AllocOp]] = []
        for a in self.plan.allocs:
            s = AllocOp(staged_type(a.result.type, self.n))
            s.result.name_hint = a.result.name_hint
            copy_loc(a, s)
            lb_block.insert_op_before(s, a)
            self.staged.append((a, s))
        self.bars: MBarrierArrayOp | None = None
        if self.plan.bar is not None:
            bar = self.plan.bar
            self.bars = MBarrierArrayOp(bar.count.value.data, self.n)
            self.bars.result.name_hint = bar.result.name_hint
            copy_loc(bar, self.bars)
            lb_block.insert_op_before(self.bars, bar)

    def stage_views(self, ops: list[Operation], stage: SSAValue) -> dict[SSAValue, SSAValue]:
        """The buffers and the barrier of stage `stage` (emitted into `ops`), as a map
        from the single-buffered loop's values."""
        out: dict[SSAValue, SSAValue] = {}
        for a, s in self.staged:
            pattern = [DYNAMIC] + [WILDCARD] * _rank(a.result.type.cute_layout)
            sl = SliceOp.create(operands=[s.result, stage],
                                properties={"pattern": DenseArrayBase.from_list(i64, pattern)},
                                result_types=[a.result.type])
            sl.result.name_hint = a.result.name_hint
            out[a.result] = self.emit(ops, sl)
        if self.bars is not None:
            at = MBarrierAtOp(self.bars.result, stage)
            at.result.name_hint = self.plan.bar.result.name_hint
            out[self.plan.bar.result] = self.emit(ops, at)
        return out

    def step_rolled(self, ops: list[Operation], i: SSAValue, stage: SSAValue, phase: SSAValue | None,
                    carried: list[SSAValue]) -> list[SSAValue]:
        """One step of the rolled loop at iteration `i` on `stage`: its yields."""
        n = self.n
        cur = self.stage_views(ops, stage)
        is0 = self.emit(ops, arith.CmpiOp(stage, self.const(ops, 0), "eq"))
        ahead_stage = self.emit(ops, arith.SelectOp(is0, self.const(ops, n - 1),
                                                    self.emit(ops, arith.SubiOp(stage, self.const(ops, 1)))))
        ahead_stage.name_hint = "ahead"
        return self.step_body(ops, i, cur, lambda at: self.stage_views(at, ahead_stage), phase, carried)

    def run(self) -> None:
        n, plan, loop = self.n, self.plan, self.loop
        self.make_staged()
        pre: list[Operation] = []
        self.prologue(pre, lambda at, q: self.stage_views(at, self.const(at, q)))
        state = [self.const(pre, 0)] + ([self.const(pre, 0)] if plan.kind == "tma" else [])
        new_body = self.loop_body([index for _ in state])
        i = new_body.args[0]
        nc = len(self.body.args) - 1
        stage = new_body.args[1 + nc]
        stage.name_hint = "stage"
        phase = new_body.args[2 + nc] if plan.kind == "tma" else None
        if phase is not None:
            phase.name_hint = "phase"
        ops: list[Operation] = []
        out = self.step_rolled(ops, i, stage, phase, list(new_body.args[1:1 + nc]))
        nxt = self.emit(ops, arith.AddiOp(stage, self.const(ops, 1)))
        wrap = self.emit(ops, arith.CmpiOp(nxt, self.const(ops, n), "eq"))
        new_state = [self.emit(ops, arith.SelectOp(wrap, self.const(ops, 0), nxt))]
        if phase is not None:
            flipped = self.emit(ops, arith.XOrIOp(phase, self.const(ops, 1)))
            new_state.append(self.emit(ops, arith.SelectOp(wrap, flipped, phase)))
        ops.append(scf.YieldOp(*out, *new_state))
        new_body.add_ops(ops)
        new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *state], Region(new_body))
        new_loop.attributes[UNROLL_ATTR] = IntegerAttr(1, i64)  # its step is written once: kept once
        hint = loop.results[0].name_hint if len(loop.results) == 1 else None
        results = self.replace_loop(pre, new_loop, list(new_loop.results[:nc]))
        for r in new_loop.results:
            r.name_hint = None
        if len(results) == 1:
            results[0].name_hint = hint
        for a, _ in self.staged:
            if a.result.uses:
                raise TilecError("software-pipeline: internal error: a buffer is still used after rolling", op=a)
            a.detach()
            a.erase()
        if self.plan.bar is not None:
            self.plan.bar.detach()
            self.plan.bar.erase()


def _rank(lay: cute.Layout) -> int:
    """The number of top-level modes of `lay` (1 for a single mode `n:d`)."""
    return len(lay.modes()) if isinstance(lay.shape, tuple) else 1


__all__ = ["RolledPipeline", "staged_type"]
