"""The `software-pipeline` pass: a loop that loads its step's tiles into shared buffers
and computes on them becomes a `num_stages`-deep pipeline (passes/_pipeline_plan.py
says which loops qualify, passes/_pipeline_expand.py builds the schedule)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tilec.dialects.layout import AllocOp, LaunchOp
from tilec.dialects.layout_attrs import element_bytes
from tilec.support.diagnostics import TilecError
from tilec.support.target import target_of

from ._pipeline_expand import PipelineExpansion
from ._pipeline_rolled import RolledPipeline, staged_type
from ._pipeline_plan import MAX_STAGES, STAGES_ATTR, WS_ATTR, LoopPlan, plan_loop, stages_of
from .split_accumulator import split_launch


@dataclass(frozen=True)
class SoftwarePipelinePass(ModulePass):
    """Pipeline the loops that load tiles into shared memory and compute on them (a
    GEMM's main loop): the loads of step k + S - 1 are issued before the compute of
    step k, into S stages of each shared buffer (S = `num_stages`), so the copies of
    S - 1 steps are in flight under each step's compute. Triton's pipeliner (latency
    assignment, a modulo schedule, prologue expansion), CUTLASS's PipelineTmaAsync.

    The input is the plain single-buffered loop a user writes by hand (an `scf.for`
    directly in a `layout.launch` body, iter_args allowed, e.g. the accumulator):
    per step, the TMA loads of its tiles on one mbarrier (`mbarrier_arrive {tx}`,
    `tma_load`s, `mbarrier_wait`), or its `layout.copy_async`s and one
    `layout.async_wait {pending = 0}`, then the compute (`layout.mma` on the shared
    tiles); passes/_pipeline_plan.py has the exact form. Loops of another form are
    left as they are.

    The schedule (modulo variable expansion: the loop is unrolled by S, so each
    unrolled step's stage is static and the phase it waits on is the round's
    parity `((i - lb) / (S step)) mod 2`): the allocations and the mbarrier get S - 1
    copies (stage s of iteration j is j mod S); a prologue loads iterations
    0 .. S-2; step j of the loop

      TMA:      mbarrier_wait bar[s], parity; compute j; layout.barrier;
                if (j + S - 1 < trip) { arrive; tma_load j + S - 1 into stage (j-1) mod S }
                (where no wgmma stays in flight, the barrier and the load come first:
                the last step's compute is done with its stage)
      cp.async: async_wait {pending = min(7, (S - 2) * groups)}; layout.barrier;
                copy_async of min(j + S - 1, last) into stage (j-1) mod S; compute j
                (a compute that writes no memory keeps none of its barriers: that
                step-top barrier already orders its reads before the refill, so the
                fragment loads of step j run on under the mma of step j - 1)

    (where no wgmma stays in flight, TMA stores of the compute from shared buffers of
    their own are allowed: those buffers are staged too, each step starts with
    `tma_store_wait {pending = (S - 1) x stores}` instead of the barrier, 0 after the
    loop; the `tma` pass's ring, passes/_tma_ring.py, is this schedule);
    (cp.async counts commit groups, so every step issues its copies, past the end
    the last tile again; an `async_wait {pending = 0}` after the loop drains them).
    The unrolled steps past the trip count are skipped (`scf.if`, yielding the
    carried values), unless the trip count is static: a multiple of S needs no guard,
    and one above S that S does not divide is peeled (the loop runs its whole rounds
    unguarded, to `lb + (trip / S) S step`; its last trip mod S steps follow it,
    unrolled, on stages 0, 1, ...), so no branch parts the steady state's steps.

    Where a step's version-3 (wgmma) `layout.mma` accumulates into a carried value
    read by nothing else (sync, or `{async}` waited with `pending = 0` and only
    yielded), it becomes `{async}` followed by `layout.mma_wait {pending = 1}`: it
    runs on under the next step's wait (the stage it reads is refilled only after
    the next step's wait and barrier); one `layout.mma_wait {pending = 0}` after the
    loop gives the results.

    The depth of a loop is its `{tilec.num_stages = N}` attribute (the builder's
    `range(..., num_stages=N)`, Triton's `tl.range(..., num_stages=N)`: the program
    states it per loop), else the option. In the default pipeline the pass runs after
    `vectorize`, where both forms are there (the block-level copies of the cp.async
    form are then `layout.copy_async`). A launch with a loop that asks for warp
    specialisation (`{tilec.warp_specialize}`, `range(..., warp_specialize=True)`) is
    left to the default pipeline's later `warp-specialize{marked=true}`.

    The rolled form (passes/_pipeline_rolled.py; CUTLASS's
    `PipelineState`): the same schedule without clones or unrolling. Each buffer
    becomes one staged allocation with a leading stage mode (`(S, ...)`, stages
    1024-byte aligned) and a step's buffer is `layout.slice %buf[%stage, _, ...]`; the
    mbarrier becomes `layout.mbarrier_array {stages = S}` and a step's barrier
    `layout.mbarrier_at %bars[%stage]`; the loop keeps its step and carries the stage
    (0 first, `stage + 1 == S ? 0 : stage + 1`) and, with TMA, the phase (0 first,
    flipped where the stage wraps) as iter_args; the load ahead goes into stage
    `stage == 0 ? S - 1 : stage - 1`; no step is guarded but the load ahead. The loop
    says it stays rolled in the CUDA (`{tilec.unroll = 1}`: `#pragma unroll 1`), so its
    step appears once: the plain Hopper GEMM's CUDA and its NVRTC time no longer grow
    with S (examples/python/gemm_plain.py `--rolled`). By default (`rolled=auto`) a
    cp.async loop takes the rolled form and a TMA loop the unrolled one: on an H200 the
    sm_80 plain-loop GEMM (examples/python/gemm_dot.py, 4096^3 bf16) ran faster rolled
    (128x256x64, 8 warps, 3 stages: 0.60 of cuBLAS against 0.46 unrolled; with
    `prefetch-operands` rotating the rolled loop's back edge), while the Hopper
    kernels were tuned with the unrolled CUDA and were not measured rolled. Under
    `auto` a cp.async loop whose staged buffers (stages on 1024 bytes) would pass the
    target's shared memory where the clones fit stays unrolled.

    Options:
      num_stages=N   the depth of loops that state none (default 1: leave them;
                     2 <= N <= 8). The shared buffers grow N-fold: a located error
                     where they pass the target's shared memory.
      rolled=auto|true|false   the form (default auto: rolled for cp.async loops,
                     unrolled for TMA loops, as above); true or false for every loop.
      split=false    keep the loops' accumulators as they are; by default (true) a
                     launch's wgmma accumulators are first split into column chunks
                     where `split-accumulator`'s `auto` decides so
                     (passes/split_accumulator.py: a C buffer for `tma-epilogue` fits
                     beside the stages only in chunks), so the stages are made of the
                     chunks' buffers.
    """

    name = "software-pipeline"

    num_stages: int = 1
    rolled: bool | str = "auto"
    split: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 1 <= self.num_stages <= MAX_STAGES:
            raise TilecError(f"software-pipeline: num_stages must be in [1, {MAX_STAGES}], got {self.num_stages}")
        if not isinstance(self.rolled, bool) and self.rolled != "auto":
            raise TilecError(f"software-pipeline: rolled must be auto, true or false, got '{self.rolled}'")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            if any(WS_ATTR in o.attributes for o in launch.body.block.ops if isinstance(o, scf.ForOp)):
                continue  # asked to be warp-specialised: `warp-specialize{marked=true}` pipelines it
            if self.split:  # column chunks before the stages are made of their buffers
                split_launch(launch, self.num_stages if self.num_stages > 1 else 0)
            for loop in [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]:
                n = stages_of(loop, self.num_stages)
                if not 1 <= n <= MAX_STAGES:
                    raise TilecError(f"software-pipeline: {STAGES_ATTR} must be in [1, {MAX_STAGES}], got {n}",
                                     op=loop)
                if n == 1:
                    continue
                plan = plan_loop(launch, loop)
                if isinstance(plan, LoopPlan):
                    rolled = self._rolled(launch, plan, n)
                    check_smem(launch, plan, n, rolled)
                    (RolledPipeline if rolled else PipelineExpansion)(launch, plan, n).run()

    def _rolled(self, launch: LaunchOp, plan: LoopPlan, n: int) -> bool:
        """The form of this loop: the option where it says true or false; under auto,
        rolled for a cp.async loop whose staged buffers fit where its clones do."""
        if isinstance(self.rolled, bool):
            return self.rolled
        if plan.kind != "cp_async":
            return False
        limit = target_of(launch).smem_per_block
        return smem_need(launch, plan, n, True) <= limit or smem_need(launch, plan, n, False) > limit


def _alloc_bytes(a: AllocOp) -> int:
    return _bytes(a.result.type)


def _bytes(t) -> int:
    return t.cute_layout.cosize() * t.vector_size * element_bytes(t.element_type)


def smem_need(launch: LaunchOp, plan: LoopPlan, n: int, rolled: bool) -> int:
    """The bytes of shared memory of the launch once `n` stages of the loop's buffers
    are there (as clones, or as staged allocations whose stages start on 1024 bytes)."""
    have = sum(_alloc_bytes(a) for a in launch.body.block.ops if isinstance(a, AllocOp)
               and a.result.type.memory_space == "smem")
    if rolled:
        return have + sum(_bytes(staged_type(a.result.type, n)) - _alloc_bytes(a) for a in plan.allocs)
    return have + (n - 1) * sum(_alloc_bytes(a) for a in plan.allocs)


def check_smem(launch: LaunchOp, plan: LoopPlan, n: int, rolled: bool = False) -> None:
    """A located error where `n` stages of the loop's buffers (`smem_need`) pass the
    target's shared memory."""
    need = smem_need(launch, plan, n, rolled)
    limit = target_of(launch).smem_per_block
    if need > limit:
        raise TilecError(
            f"software-pipeline: {n} stages of this loop's shared buffers need {need} bytes of shared memory, "
            f"more than the {limit // 1024} KiB of a block: fewer stages (num_stages) or smaller tiles",
            op=plan.loop,
        )
