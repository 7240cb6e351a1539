"""The `tma` pass's ring: a loop over tiles that copies each tile into a shared buffer
(and a shared buffer out to a global tile) becomes a software pipeline of `stages`
shared buffers, whose TMA loads run `stages - 1` tiles ahead of the tile being worked
on and whose TMA stores are waited for only when their buffer comes round again.

What the user writes (directly in a `layout.launch` body; a persistent transpose:
`%t` runs over the tiles of block `%bx`):

    %s = layout.alloc : !S                      // the tile as loaded
    %o = layout.alloc : !O                      // the tile to store (optional)
    scf.for %t = %bx to %ntiles step %nblocks {
      ... pure index arithmetic, layout.tile %a[..], layout.tile %b[..] ...
      layout.copy %ta, %s                        // gmem -> smem, TMA-able
      ... reads of %s, writes of %o ...
      layout.copy %o, %tb                        // smem -> gmem, TMA-able (optional)
    }

What it becomes (N = stages; S_0 = %s, O_0 = %o, the others clones of their allocs
(O_k = S_k when the body copies %s itself out: then the store wait takes pending = 0,
since the load ahead refills the buffer of the tile stored just before);
iteration q = lb + (N r + k) step uses stage k in round r, parity r mod 2):

    B_k = mbarrier_init {count = 1}                       k = 0 .. N-1
    if (lb + q step < ub) { arrive B_q {tx}; tma_load src(q), S_q, B_q }   q = 0 .. N-2
    scf.for %i = lb to ub step N*step {
      parity = ((%i - lb) / (N step)) mod 2
      // step k = 0 .. N-1, iteration q = %i + k step:
      if (q < ub) {                      // (k = 0: no test, the loop's own)
        tma_store_wait {pending = N-1}   // O_k's store of N tiles ago has read it
                                         // (without an out copy: layout.barrier);
                                         // the block meets: S_{k-1} is read out
        if (q + (N-1) step < ub) { arrive B_{k-1} {tx}; tma_load src(q + (N-1) step), S_{k-1}, B_{k-1} }
        mbarrier_wait B_k, parity
        <the body with %t = q, %s = S_k, %o = O_k; the out copy a tma_store; a
         barrier ending the body dropped: the next step starts with one; a barrier
         right after the in-copy dropped: the mbarrier wait stands for it; one right
         before the out-copy too: the TMA store meets the block itself>
      }
    }
    tma_store_wait {pending = 0}

The loop must have no results; the body one top-level in-copy (not converting, gmem
to smem into a `layout.alloc` of the launch body, which nothing in the body touches
before the copy) and at most one top-level out-copy (smem to gmem from such an
alloc); both allocs used only inside the loop; the in-copy's source computed in the
body from the induction variable by pure ops only (`arith`, `layout.tile`), so that it
can be recomputed for a tile ahead. `ring_loop` returns why a loop does not qualify
(and leaves it), or None after rewriting it: it turns the copies into the single-buffered
TMA form (an arrive, a TMA load and a wait on an mbarrier of the loop's own; a TMA
store) and has `software-pipeline`'s expansion (passes/_pipeline_expand.py) build the
ring, so both passes share one pipeliner (the stages' clones, the prologue, the
guarded steps, the phases; the store wait at each step's start, `pending = N - 1`, or
0 where one buffer is stored from and loaded into).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects.errors import LayoutError
from tilec.dialects.layout import AllocOp, CopyOp, LaunchOp
from tilec.dialects.layout_tma import (
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierWaitOp,
    TmaLoadOp,
    TmaStoreOp,
    tma_plan,
)
from tilec.dialects.tma import DEFAULT_L2_PROMOTION
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._gpu_builder import index
from ._pipeline_expand import PipelineExpansion
from ._pipeline_plan import MAX_STAGES, LoopPlan, backward_slice, plan_loop, uses_only_inside
from ._pipeline_rolled import RolledPipeline

__all__ = ["MAX_STAGES", "ring_loop"]



def _alloc_in(v: SSAValue, block: Block) -> AllocOp | None:
    o = v.owner
    return o if isinstance(o, AllocOp) and o.parent_block() is block else None


def _pure(op: Operation) -> bool:
    return not op.regions and (op.name.startswith("arith.") or op.name == "layout.tile")


def _slice(v: SSAValue, body: Block) -> list[Operation] | str:
    """The ops of `body` (top level) that `v` is computed by, in body order."""
    return backward_slice([v], body, _pure, lambda o: (
        f"the in-copy's source depends on '{o.name}', which is not pure index arithmetic"))


def _copies(loop: scf.ForOp, launch_block: Block) -> tuple[CopyOp, CopyOp | None] | str:
    body = loop.body.block
    ins = [c for c in body.ops if isinstance(c, CopyOp) and c.dest.type.memory_space == "smem"]
    outs = [c for c in body.ops if isinstance(c, CopyOp) and c.source.type.memory_space == "smem"]
    ins = [c for c in ins if c.source.type.memory_space == "gmem"]
    outs = [c for c in outs if c.dest.type.memory_space == "gmem"]
    if len(ins) != 1:
        return f"the loop body has {len(ins)} global-to-shared copies, the ring takes one"
    if len(outs) > 1:
        return f"the loop body has {len(outs)} shared-to-global copies, the ring takes at most one"
    cin, cout = ins[0], (outs[0] if outs else None)
    for c, smem, g in ((cin, cin.dest, cin.source), (cout, cout.source if cout else None, None)):
        if c is None:
            continue
        if c.convert is not None:
            return "a converting copy"
        if c.strategy_name in ("async", "simt"):
            return f"a copy whose strategy is {c.strategy_name}"
        if (c.source if g is not None else c.dest).type.is_masked:
            return "the global tile is masked (a tile at the tensor's edge)"
        if _alloc_in(smem, launch_block) is None:
            return "the shared buffer is not a layout.alloc of the launch body"
        if not uses_only_inside(smem, loop):
            return "the shared buffer is used outside the loop"
        try:
            tma_plan(c.source, c.dest) if g is not None else tma_plan(c.dest, c.source)
        except LayoutError as e:
            return f"TMA cannot copy the views: {e}"
    for o in body.ops:
        if o is cin:
            break
        if any(x is cin.dest for x in o.operands) or any(
            x is cin.dest for r in o.regions for b in r.blocks for n in b.walk() for x in n.operands
        ):
            return "the shared buffer is used before the in-copy"
    return cin, cout


def ring_loop(launch: LaunchOp, loop: scf.ForOp, stages: int, l2_promotion: int = DEFAULT_L2_PROMOTION,
              rolled: bool = False) -> str | None:
    """Rewrite `loop` (directly in `launch`'s body) into a `stages`-deep TMA ring, or say
    why not (the loop is then left as it is); its loads ask `l2_promotion` bytes; with
    `rolled`, the ring in the pipeline's rolled form (passes/_pipeline_rolled.py).

    The copies become the single-buffered TMA form `software-pipeline` takes (the
    in-copy an arrive, a TMA load and a wait on an mbarrier of its own, the out-copy a
    TMA store), which `PipelineExpansion` (passes/_pipeline_expand.py) stages: one
    pipeliner for both passes."""
    lb_block = launch.body.block
    if loop.parent_block() is not lb_block:
        return "the loop is not directly in the launch body"
    if loop.results:
        return "the loop carries values (iter_args)"
    found = _copies(loop, lb_block)
    if isinstance(found, str):
        return found
    cin, cout = found
    body = loop.body.block
    src_slice = _slice(cin.source, body)
    if isinstance(src_slice, str):
        return src_slice
    tx = tma_plan(cin.source, cin.dest).geometry.total_bytes
    bar = MBarrierInitOp(1)
    bar.result.name_hint = "full"  # stage k's: full_k
    copy_loc(loop, bar)
    lb_block.insert_op_before(bar, loop)
    zero = arith.ConstantOp(IntegerAttr(0, index))  # the wait's phase: the pipeline sets its own
    load = [MBarrierArriveOp(bar.result, tx), TmaLoadOp(cin.source, cin.dest, bar.result, l2_promotion), zero,
            MBarrierWaitOp(bar.result, zero.result)]
    _replace(body, cin, load)
    if cout is not None:
        _replace(body, cout, [TmaStoreOp(cout.source, cout.dest)])
    plan = plan_loop(launch, loop)
    if not isinstance(plan, LoopPlan):
        raise TilecError(f"tma: internal error: the ring's loop is not the pipeline's form: {plan}", op=loop)
    (RolledPipeline if rolled else PipelineExpansion)(launch, plan, stages).run()
    return None


def _replace(body: Block, old: Operation, new: list[Operation]) -> None:
    for o in new:
        copy_loc(old, o)
    body.insert_ops_before(new, old)
    old.detach()
    old.erase()


def staged_loop_copies(launch: LaunchOp, loop: scf.ForOp, l2_promotion: int = DEFAULT_L2_PROMOTION) -> str | None:
    """The global-to-shared block-level copies directly in the body of `loop` (a loop
    that asks `software-pipeline` for stages: `{tilec.num_stages = N}`, N >= 2) as the
    single-buffered TMA form it takes, or why not (the loop is then left): one mbarrier
    of the loop's own (made before it), an arrive with all the copies' bytes before
    the first copy, a TMA load per copy, the wait after the last on the step's parity
    ((iv - lb) / step mod 2), so the loop is right as it is and `software-pipeline`
    (after `vectorize`) stages it. Each copy: not converting, strategy neither async
    nor simt, an unmasked TMA-able global tile into a `layout.alloc` of the launch body
    used only in the loop, its source computed in the body by pure ops."""
    lb_block = launch.body.block
    body = loop.body.block
    copies = [c for c in body.ops if isinstance(c, CopyOp) and c.source.type.memory_space == "gmem"
              and c.dest.type.memory_space == "smem"]
    if not copies:
        return "no global-to-shared copy in the loop body"
    tx = 0
    for c in copies:
        if c.convert is not None or c.strategy_name in ("async", "simt"):
            return "a converting copy, or one whose strategy is async or simt"
        if c.source.type.is_masked:
            return "the global tile is masked (a tile at the tensor's edge)"
        if _alloc_in(c.dest, lb_block) is None or not uses_only_inside(c.dest, loop):
            return "the shared buffer is not a layout.alloc of the launch body used only in the loop"
        try:
            tx += tma_plan(c.source, c.dest).geometry.total_bytes
        except LayoutError as e:
            return f"TMA cannot copy the views: {e}"
        sl = _slice(c.source, body)
        if isinstance(sl, str):
            return sl
    bar = MBarrierInitOp(1)
    bar.result.name_hint = "full"
    copy_loc(loop, bar)
    lb_block.insert_op_before(bar, loop)
    first, last = copies[0], copies[-1]
    arrive = MBarrierArriveOp(bar.result, tx)
    copy_loc(first, arrive)
    body.insert_op_before(arrive, first)
    iv = body.args[0]
    c2 = arith.ConstantOp(IntegerAttr(2, index))
    off = arith.SubiOp(iv, loop.lb)
    step = arith.DivUIOp(off.result, loop.step)
    phase = arith.RemUIOp(step.result, c2.result)
    wait = MBarrierWaitOp(bar.result, phase.result)
    after = [c2, off, step, phase, wait]
    for o in after:
        copy_loc(last, o)
    body.insert_ops_after(after, last)
    for c in copies:
        _replace(body, c, [TmaLoadOp(c.source, c.dest, bar.result, l2_promotion)])
    return None
