"""What `software-pipeline` reads of a loop (Triton's AssignLatencies, reduced to the
two latencies that matter for a GEMM main loop: a load into shared memory is long, the
rest is short): which ops of the body *load* the step's tiles into shared buffers,
where the body *waits* for them, and which ops *compute* on them.

A loop qualifies in one of two forms, written single-buffered (one shared buffer per
operand, one step's tiles at a time), as a user writes them by hand:

TMA (sm_90):

    %bar = layout.mbarrier_init {count = 1}          // in the launch body
    %sa = layout.alloc : !SA   %sb = layout.alloc : !SB
    %r = scf.for %k = %lb to %ub step %st iter_args(%acc = %init) {
      <pure index arithmetic and layout.tile of %k: the tiles of step %k>
      layout.mbarrier_arrive %bar {tx = N}
      layout.tma_load %ta, %sa, %bar
      layout.tma_load %tb, %sb, %bar
      layout.mbarrier_wait %bar, %phase           // whatever %phase: the pass sets it
      <compute: reads %sa, %sb, e.g. %d = layout.mma %sa, %sb, %acc>
      layout.barrier                              // the buffers are read (optional)
      scf.yield %d
    }

cp.async (sm_80): the same with `layout.copy_async` (each one commit group) into views
of the allocations (`layout.tile` / `vectorize` / `distribute` of them), waited for by
`layout.async_wait`s (the last `{pending = 0}`, after every copy; `vectorize` puts one
after each copy) and a `layout.barrier` before the compute. Where that compute writes
no memory (it reads the buffers into registers and computes on them, e.g.
`accelerate-matmul`'s `load sa; load sb; barrier; mma`), its barriers only order its
reads of the buffers before the next step's copies into them: the schedule's barrier
at the top of each step does that (a stage is refilled only after the next step's
barrier), so they are dropped too.

The TMA form's compute may also store shared buffers of its own with the TMA
(`layout.tma_store`, the `tma` pass's ring); the body's `tma_store_wait`s are the
schedule's to place.

The loads are the arrive, the TMA loads or the async copies; their *slice* is the
pure ops of the body that compute their operands from the induction variable (so the
pass can recompute them for a step ahead). Buffers and the barrier are allocated in
the launch body and used only inside the loop; nothing touches a buffer before the
wait. `plan_loop` returns why a loop does not qualify, or its `LoopPlan`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects

from tilec.dialects.layout import DERIVED_VIEW_OPS, AllocOp, AsyncWaitOp, BarrierOp, CopyAsyncOp, LaunchOp
from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
from tilec.dialects.layout_tma import (
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierWaitOp,
    TmaLoadOp,
    TmaStoreOp,
    TmaStoreWaitOp,
)

STAGES_ATTR = "tilec.num_stages"
"""The loop attribute that asks for a pipeline depth (`{tilec.num_stages = N : i64}`;
the builder's `range(..., num_stages=N)`, Triton's `tl.range(..., num_stages=N)`)."""

WS_ATTR = "tilec.warp_specialize"
"""The loop attribute that asks for the warp-specialised pipeline (`{tilec.warp_specialize}`;
the builder's `range(..., warp_specialize=True)`, Triton's `tl.range(...,
warp_specialize=True)`): `software-pipeline` leaves such a loop to the default
pipeline's `warp-specialize{marked=true}`."""

PERSISTENT_ATTR = "tilec.persistent"
"""With `WS_ATTR`, the persistent blocks asked of the loop's launch (`{tilec.persistent =
P : i64}`: `warp-specialize`'s `persistent=P` for that launch)."""

MAX_STAGES = 8
"""The deepest pipeline (a TMA store wait's `pending` is at most 7)."""


def stages_of(loop: scf.ForOp, default: int) -> int:
    """The depth asked of `loop`: its `tilec.num_stages`, else `default`."""
    a = loop.attributes.get(STAGES_ATTR)
    v = getattr(getattr(a, "value", None), "data", None)
    return v if isinstance(v, int) else default


@dataclass
class LoopPlan:
    """A qualifying loop, its ops sorted by role (all top-level ops of its body)."""

    loop: scf.ForOp
    kind: str
    """"tma" or "cp_async"."""
    loads: list[Operation]
    """The arrive and the TMA loads, or the async copies, in body order."""
    slice: list[Operation]
    """The pure ops the loads' operands are computed by, in body order."""
    allocs: list[AllocOp]
    """The shared buffers the loads fill, in launch-body order."""
    bar: MBarrierInitOp | None
    """The mbarrier (TMA form)."""
    dropped: list[Operation]
    """The waits and barriers the schedule replaces by its own."""
    compute: list[Operation]
    """Every other op of the body but the yield, in body order."""
    groups: int = 0
    """Commit groups per step (cp.async form: its async copies)."""
    stores: list[Operation] = field(default_factory=list)
    """The TMA stores of the compute (TMA form), each from a shared buffer of its own
    that is staged as the loads' buffers are."""
    async_chains: dict[int, Operation] = field(default_factory=dict)
    """iter_arg index -> the op whose result is yielded there and may stay in flight
    (a version-3 `layout.mma`, or the `layout.mma_wait {pending = 0}` of an async one)."""


def _in(op: Operation, block: Block) -> bool:
    return op.parent_block() is block


def uses_only_inside(v: SSAValue, loop: Operation) -> bool:
    """Whether every use of `v` is inside `loop`."""
    return all(loop.is_ancestor(u.operation) for u in v.uses)


def _pure(op: Operation) -> bool:
    return not op.regions and (op.name.startswith("arith.") or isinstance(op, DERIVED_VIEW_OPS))


def backward_slice(values: Iterable[SSAValue], body: Block, pure: Callable[[Operation], bool],
                   refusal: Callable[[Operation], str]) -> list[Operation] | str:
    """The ops of `body` (top level) that `values` are computed by, in body order (what
    a pipeline re-emits to compute an iteration's operands), or `refusal(op)` for the
    first op of the slice that is not `pure` (the loop is then not pipelined)."""
    need: set[Operation] = set()
    todo = list(values)
    while todo:
        o = todo.pop().owner
        if not isinstance(o, Operation) or not _in(o, body) or o in need:
            continue
        if not pure(o):
            return refusal(o)
        need.add(o)
        todo.extend(o.operands)
    return [o for o in body.ops if o in need]


def root_alloc(v: SSAValue) -> AllocOp | None:
    """The `layout.alloc` a view is derived from (through DERIVED_VIEW_OPS), or None."""
    while isinstance(v.owner, DERIVED_VIEW_OPS):
        v = v.owner.operands[0]
    return v.owner if isinstance(v.owner, AllocOp) else None


def _writes_memory(op: Operation) -> bool:
    """Whether `op` (or an op nested in it) may write memory: a write effect, or effects
    it does not state (a region op without effects of its own is its nested ops)."""
    for o in op.walk():
        effects = get_effects(o)
        if effects is None:
            if o.regions or isinstance(o, scf.YieldOp):
                continue
            return True
        if any(e.kind == MemoryEffectKind.WRITE for e in effects):
            return True
    return False


def _touches(op: Operation, values: set[SSAValue]) -> bool:
    return any(x in values for o in op.walk() for x in o.operands)


def plan_loop(launch: LaunchOp, loop: scf.ForOp) -> LoopPlan | str:
    """The loop's `LoopPlan`, or why it does not qualify (module docstring)."""
    lb_block = launch.body.block
    if loop.parent_block() is not lb_block:
        return "the loop is not directly in the launch body"
    body = loop.body.block
    ops = [o for o in body.ops if not isinstance(o, scf.YieldOp)]
    tma = [o for o in ops if isinstance(o, (TmaLoadOp, MBarrierArriveOp))]
    cps = [o for o in ops if isinstance(o, CopyAsyncOp)]
    if tma and cps:
        return "the loop body mixes TMA loads and async copies"
    if not tma and not cps:
        return "the loop body loads nothing into shared memory (no layout.tma_load or layout.copy_async)"
    if any(isinstance(o, (TmaLoadOp, MBarrierArriveOp, MBarrierWaitOp, CopyAsyncOp, AsyncWaitOp))
           for o in body.walk() if not _in(o, body)):
        return "a load or wait inside a region of the loop body"
    dropped: list[Operation] = []
    bar: MBarrierInitOp | None = None
    if tma:
        kind, loads = "tma", tma
        bars = {o.bar for o in tma}
        waits = [o for o in ops if isinstance(o, MBarrierWaitOp)]
        if len(bars) != 1 or len(waits) != 1 or waits[0].bar not in bars:
            return "the loads must complete on one mbarrier, waited for once in the body"
        bv = next(iter(bars))
        bar = bv.owner if isinstance(bv.owner, MBarrierInitOp) and _in(bv.owner, lb_block) else None
        if bar is None or not uses_only_inside(bv, loop):
            return "the mbarrier must be made in the launch body and used only in the loop"
        wait = waits[0]
        if not any(isinstance(o, MBarrierArriveOp) for o in tma):
            return "no mbarrier_arrive expects the loads' bytes"
        dests = [o.dest for o in tma if isinstance(o, TmaLoadOp)]
        if any(ops.index(o) > ops.index(wait) for o in tma):
            return "a load comes after the wait"
        dropped.append(wait)
        groups = 0
    else:
        kind, loads = "cp_async", cps
        if any(c.token is not None for c in cps):
            return "an async copy with a token (the pipeline counts commit groups)"
        waits = [o for o in ops if isinstance(o, AsyncWaitOp)]
        if not waits or any(w.pending is None for w in waits):
            return "the body must wait for its async copies with layout.async_wait {pending = N}"
        wait = waits[-1]
        if wait.pending.value.data != 0:
            return "the body's last async_wait must wait for every copy ({pending = 0})"
        if any(ops.index(o) > ops.index(wait) for o in cps):
            return "an async copy comes after the wait"
        dests = [o.dest for o in cps]
        dropped.extend(waits)  # `vectorize` waits after each copy: one wait stands for them
        groups = len(cps)
    allocs: list[AllocOp] = []
    for d in dests:
        a = root_alloc(d)
        if a is None or not _in(a, lb_block) or a.result.type.memory_space != "smem":
            return "a load's destination is not (a view of) a shared layout.alloc of the launch body"
        if not uses_only_inside(a.result, loop):
            return "a shared buffer is used outside the loop"
        if a not in allocs:
            allocs.append(a)
    allocs.sort(key=lambda a: lb_block.get_operation_index(a))
    sl = backward_slice([x for o in loads for x in o.operands], body, _pure, lambda o: (
        f"a load's operand depends on '{o.name}', which is not pure index or view arithmetic"))
    if isinstance(sl, str):
        return sl
    if any(o in loads for o in sl):
        return "a load feeds another"
    # nothing reads or writes a buffer (or a view of one) before the wait
    buf_views: set[SSAValue] = {a.result for a in allocs}
    for o in sl:
        if any(x in buf_views for x in o.operands):
            buf_views.update(o.results)
    w = ops.index(wait)
    for o in ops[:w]:
        if o in loads or o in sl:
            continue
        if _touches(o, buf_views):
            return f"'{o.name}' uses a shared buffer before the wait"
    # the barriers among the loads and right after the wait: the schedule meets the block there
    dropped.extend(o for o in ops[:w] if isinstance(o, BarrierOp))
    after = wait.next_op
    while isinstance(after, BarrierOp):
        dropped.append(after)
        after = after.next_op
    if isinstance(ops[-1], BarrierOp) and ops[-1] not in dropped:
        dropped.append(ops[-1])  # the buffers are read: the schedule meets the block itself
    if kind == "cp_async" and not any(_writes_memory(o) for o in ops[w + 1:] if not isinstance(o, BarrierOp)):
        # a compute that writes no memory: its barriers only order its reads of the
        # buffers before their refill, which the schedule's own barrier does
        dropped.extend(o for o in ops[w + 1:] if isinstance(o, BarrierOp) and o not in dropped)
    stores = [o for o in ops if isinstance(o, TmaStoreOp)]
    if stores:
        why = _stores(stores, ops, loop, lb_block, kind, allocs, dropped)
        if why is not None:
            return why
    dead = _dead_without(ops, set(loads) | set(dropped))
    compute = [o for o in ops if o not in loads and o not in dropped and o not in dead]
    plan = LoopPlan(loop, kind, loads, sl, allocs, bar, dropped, compute, groups, stores)
    if kind == "tma":
        plan.async_chains = _async_chains(loop)
        if stores and plan.async_chains:
            return "a loop that stores with the TMA and leaves wgmma in flight"
    return plan


def _stores(stores: list[Operation], ops: list[Operation], loop: scf.ForOp, lb_block: Block, kind: str,
            allocs: list[AllocOp], dropped: list[Operation]) -> str | None:
    """Checks the TMA stores of a TMA loop; stages their buffers (`allocs`) and drops
    the body's store waits and the barriers right before a store (the schedule waits
    for the stores, a TMA store meets the block itself)."""
    if kind != "tma":
        return "TMA stores in a cp.async loop"
    for st in stores:
        a = st.source.owner
        if not isinstance(a, AllocOp) or not _in(a, lb_block) or not uses_only_inside(a.result, loop):
            return "a TMA store's buffer is not a layout.alloc of the launch body used only in the loop"
        if a not in allocs:
            allocs.append(a)
        if isinstance(st.prev_op, BarrierOp) and st.prev_op not in dropped:
            dropped.append(st.prev_op)
    allocs.sort(key=lambda a: lb_block.get_operation_index(a))
    dropped.extend(o for o in ops if isinstance(o, TmaStoreWaitOp))
    return None


def _dead_without(ops: list[Operation], gone: set[Operation]) -> set[Operation]:
    """The pure ops whose results serve only `gone` (the loads, the waits the schedule
    replaces) or each other: left out of the compute (the loads clone their slice)."""
    dead: set[Operation] = set()
    for o in reversed(ops):
        if _pure(o) and o.results and all(
            u.operation in gone or u.operation in dead for r in o.results for u in r.uses
        ):
            dead.add(o)
    return dead


def _async_chains(loop: scf.ForOp) -> dict[int, Operation]:
    """iter_arg i -> the op yielded at i that may stay in flight across the next step:
    a version-3 `layout.mma` (sync) whose accumulator is iter_arg i and whose result
    only the yield reads, or the `layout.mma_wait {pending = 0}` of one value after an
    async such mma, only yielded. The iter_arg is read by that mma alone."""
    body = loop.body.block
    y = body.last_op
    out: dict[int, Operation] = {}
    if not isinstance(y, scf.YieldOp):
        return out
    for i, v in enumerate(y.operands):
        arg = body.args[1 + i]
        o = v.owner
        if not isinstance(o, Operation) or not _in(o, body) or len(list(v.uses)) != 1:
            continue
        mma = o
        if isinstance(o, MmaWaitOp):
            if o.pending_groups != 0 or len(o.values) != 1:
                continue
            mma = o.values[0].owner
            if not isinstance(mma, MmaOp) or not mma.is_async or len(list(mma.result.uses)) != 1:
                continue
        elif not isinstance(o, MmaOp) or o.is_async:
            continue
        if not _in(mma, body) or mma.acc is not arg or not _is_wgmma(mma):
            continue
        if any(u.operation is not mma for u in arg.uses):
            continue
        out[i] = o
    return out


def _is_wgmma(op: MmaOp) -> bool:
    e = getattr(op.acc.type, "encoding", None)
    return getattr(getattr(e, "data", None), "version", None) == 3


def static_int(v: SSAValue) -> int | None:
    """The value of an `arith.constant` index, or None."""
    o = v.owner
    if isinstance(o, arith.ConstantOp):
        x = getattr(o.value, "value", None)
        return getattr(x, "data", None)
    return None
