"""The `tma` pass: block-level tile copies between global and shared memory become TMA
bulk tensor copies where the views allow it."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tilec.dialects.errors import LayoutError
from tilec.dialects.layout import CopyOp, LaunchOp
from tilec.dialects.layout_tma import (
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierWaitOp,
    TmaLoadOp,
    TmaStoreOp,
    TmaStoreWaitOp,
    tma_plan,
)
from tilec.dialects.tma import DEFAULT_L2_PROMOTION, L2_PROMOTIONS
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._gpu_builder import index
from ._pipeline_plan import stages_of
from ._tma_ring import MAX_STAGES, ring_loop, staged_loop_copies


@dataclass(frozen=True)
class TmaPass(ModulePass):
    """Turn each block-level `layout.copy` directly in a `layout.launch` body between a
    global tile and a shared allocation into a TMA copy, when the target has TMA
    (sm_90) and `tma_plan` accepts the views (dialects/tma.py: a `layout.tile` of a
    `layout.view` of a pointer aligned to 16 bytes, strides multiples of 16 bytes,
    box extents <= 256, the contiguous box extent a multiple of 16 bytes, the shared
    buffer a `layout.alloc` holding the box compact or swizzled by 32/64/128 bytes;
    a tile wider than its swizzle, as an NVMMA tile across the columns, is copied as
    several boxes side by side).
    Other copies stay as they are (`distribute` and `vectorize` make them `cp.async`
    or vector accesses).

    gmem -> smem: `mbarrier_init {count = 1}`, `mbarrier_arrive {tx = tile bytes}`,
    `tma_load`, `mbarrier_wait` on phase 0 (one barrier per copy, used once).
    smem -> gmem: `tma_store` then `tma_store_wait {pending = 0}` (the store orders
    the block's writes of the buffer itself).

    A tile at the edge of its tensor (a masked tile) needs no mask: the TMA fills the
    box elements outside the tensor with zeros and does not store them. Converting
    copies are left alone, and so are copies inside loops unless `stages` > 1 makes a
    ring of the loop (whose tiles must not be masked). Where a copy stays, nothing is
    printed; where it becomes TMA, the CUDA shows a `// TMA load (cp.async.bulk.tensor):
    box ...` comment (`lower-to-gpu`).

    A loop directly in a launch body that asks for a software pipeline
    (`{tilec.num_stages = N}`, N >= 2: the builder's `range(..., num_stages=N)`) has its
    global-to-shared copies made TMA loads too, on an mbarrier of its own waited on the
    step's parity (passes/_tma_ring.py `staged_loop_copies`): the single-buffered form
    `software-pipeline` stages after `vectorize` (the loop `accelerate-matmul` leaves
    of a `layout.dot` is one).

    The copy's strategy (`#layout.copy_strategy<...>`, CuTe's TiledCopy) decides where
    the program gave one: `tma` must become a TMA copy (a located error says why it
    cannot: the views, a disabled pass, a target without TMA), `async` and `simt` stay
    copies (`distribute` / `vectorize` move them).

    Options:
      enable=BOOL   make TMA copies (default true; false leaves every copy).
      l2_promotion=N  the L2 promotion of the TMA loads' tensor maps, in bytes (0, 64,
                    128 or 256; default 128): how much the L2 fetches around each request.
      stages=N      also pipeline loops over tiles (default 1: leave them): an `scf.for`
                    directly in a launch body that copies one tile into a shared buffer
                    per iteration (and at most one shared buffer out) becomes a ring of N
                    shared buffers (2 <= N <= 8) whose TMA loads run N - 1 tiles ahead,
                    with an mbarrier per stage waited on phase parity (round mod 2) and
                    the stores' bulk groups waited for before a buffer comes round again
                    (passes/_tma_ring.py shows the form). A loop that does not qualify is
                    left as it is and its copies stay cp.async.
      rolled=true   the ring in `software-pipeline`'s rolled form (a staged buffer, an
                    mbarrier array, the stage and phase carried by the loop, its step
                    once; passes/_pipeline_rolled.py); default false.
    """

    name = "tma"

    enable: bool = True
    stages: int = 1
    l2_promotion: int = DEFAULT_L2_PROMOTION
    rolled: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.enable or not target_of(op).has("tma"):
            _check_no_tma_strategy(op, "the tma pass is disabled (enable=false)" if not self.enable
                                   else f"the target ({target_of(op).arch}) has no TMA (sm_90 has)")
            return
        if not 1 <= self.stages <= MAX_STAGES:
            raise TilecError(f"tma: stages must be in [1, {MAX_STAGES}], got {self.stages}")
        if self.l2_promotion not in L2_PROMOTIONS:
            raise TilecError(f"tma: l2_promotion must be 0, 64, 128 or 256 (bytes), got {self.l2_promotion}")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            for copy in [o for o in launch.body.block.ops if isinstance(o, CopyOp)]:
                _rewrite(launch, copy, self.l2_promotion)
            for loop in [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]:
                if stages_of(loop, 1) > 1:  # software-pipeline stages it after vectorize
                    staged_loop_copies(launch, loop, self.l2_promotion)
                elif self.stages > 1:
                    ring_loop(launch, loop, self.stages, self.l2_promotion, self.rolled)
        _check_no_tma_strategy(op, "it is not a block-level copy directly in a layout.launch body (or in a "
                                   "loop that stages > 1 makes a ring of)")


def _check_no_tma_strategy(module: ModuleOp, why: str) -> None:
    """A copy whose strategy is tma that is still a copy: a located error."""
    for c in module.walk():
        if isinstance(c, CopyOp) and c.strategy_name == "tma":
            raise TilecError(f"tma: copy strategy tma, but this copy cannot be a TMA copy: {why}", op=c)


def _rewrite(launch: LaunchOp, copy: CopyOp, l2_promotion: int) -> None:
    if copy.convert is not None or copy.strategy_name in ("async", "simt"):
        return
    s, d = copy.source.type.memory_space, copy.dest.type.memory_space
    try:
        if (s, d) == ("gmem", "smem"):
            plan = tma_plan(copy.source, copy.dest)
            init = MBarrierInitOp(1)
            zero = arith.ConstantOp(IntegerAttr(0, index))
            ops: list[Operation] = [
                init,
                MBarrierArriveOp(init.result, plan.geometry.total_bytes),
                TmaLoadOp(copy.source, copy.dest, init.result, l2_promotion),
                zero,
                MBarrierWaitOp(init.result, zero.result),
            ]
        elif (s, d) == ("smem", "gmem"):
            tma_plan(copy.dest, copy.source)
            ops = [TmaStoreOp(copy.source, copy.dest), TmaStoreWaitOp(0)]
        else:
            return
    except LayoutError as e:
        if copy.strategy_name == "tma":
            raise TilecError(f"tma: copy strategy tma, but this copy cannot be a TMA copy: {e}", op=copy) from None
        return
    for o in ops:
        copy_loc(copy, o)
    launch.body.block.insert_ops_before(ops, copy)
    copy.detach()
    copy.erase()
