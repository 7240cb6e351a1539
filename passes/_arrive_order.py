"""Whether an elected `layout.mbarrier_arrive` publishes every access its scope made.

`layout.mbarrier_arrive` is collective at the layout level (the block, or one arrival per
warpgroup of a `layout.warp_specialize` region), and lower-to-gpu lets one thread arrive.
An mbarrier arrive releases only what the *arriving* thread did: shared-memory reads and
writes of the scope's other threads (even the other lanes of its warp) are not ordered
before it, so the thread that waits on the barrier may see a buffer half written, or
overwrite one still being read (compute-sanitizer's racecheck reports both). The
lowering then makes the scope's threads meet first; `unordered_accesses_before` says
when that is needed: some op that threads of the scope run reads or writes shared memory
through the generic proxy (`layout.load` / `store` / `copy` of a shared view, pointer
loads and stores, element accesses) on a path to the arrive with no barrier of the scope
between (`layout.barrier`, a `layout.named_barrier` sync, `layout.tma_store` and
`layout.tma_store_wait`, which meet). The TMA's copies and wgmma's operand reads are
the async proxy's, completed by mbarrier phases and `layout.mma_wait`, as CUTLASS's
pipelines release them: they need no meeting.

The walk is backwards from the arrive through its block, round a loop's back edge (the
loop body after the arrive, run by the previous iteration) and out into the enclosing
blocks up to the launch or the warp_specialize region. An `scf.if` on the way is walked
into: backwards through each branch, it is a meeting where every branch meets after its
last access, passes the walk on (to the ops before it) where no branch holds an
unordered access (a branch that meets, or holds nothing, or is absent), and is an access
where some branch holds one after its last meeting. Any other nested op that holds an
access anywhere counts as one (conservative)."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Operation
from xdsl.traits import MemoryEffect, MemoryEffectKind, RecursiveMemoryEffect

from tilec.dialects import layout, layout_mma, layout_roles, layout_tma
from tilec.dialects.layout_attrs import TensorViewType

_ASYNC_PROXY = (layout_tma.TmaLoadOp, layout_mma.MmaOp)
"""Ops whose shared accesses are the async proxy's (TMA copies, wgmma operands)."""


def _meets(op: Operation) -> bool:
    """Whether every thread of the scope meets at `op` (a barrier that orders memory)."""
    if isinstance(op, layout_roles.NamedBarrierOp):
        return not op.arrive
    return isinstance(op, (layout.BarrierOp, layout_tma.TmaStoreOp, layout_tma.TmaStoreWaitOp))


def _shared_generic_access(op: Operation) -> bool:
    """Whether `op` itself reads or writes a shared view through the generic proxy."""
    if isinstance(op, _ASYNC_PROXY):
        return False
    for trait in op.get_traits_of_type(MemoryEffect):
        if isinstance(trait, RecursiveMemoryEffect):  # its nested ops are walked themselves
            continue
        for effect in trait.get_effects(op) or ():
            if effect.kind not in (MemoryEffectKind.READ, MemoryEffectKind.WRITE):
                continue
            t = getattr(effect.value, "type", None)
            if isinstance(t, TensorViewType) and t.memory_space == "smem":
                return True
    return False


def _holds_access(op: Operation) -> bool:
    return any(_shared_generic_access(o) for o in op.walk())


def _branches(op: scf.IfOp) -> bool | None:
    """An `scf.if` walked backwards (module docstring): True where some branch has an
    access after its last meeting, False where every branch meets (an absent else never
    does), else None (the walk goes on before it)."""
    found = [_scan(list(r.block.ops)) if r.blocks else None for r in op.regions]
    if any(f is True for f in found):
        return True
    return False if all(f is False for f in found) else None


def _scan(ops: list[Operation]) -> bool | None:
    """Walking `ops` backwards: True at an access, False at a meeting, None if neither."""
    for o in reversed(ops):
        if _meets(o):
            return False
        if isinstance(o, scf.IfOp):
            found = _branches(o)
            if found is not None:
                return found
            continue
        if _holds_access(o):
            return True
    return None


def _is_scope_root(op: Operation) -> bool:
    return isinstance(op, (layout.LaunchOp, layout_roles.WarpSpecializeOp))


def unordered_accesses_before(arrive: Operation) -> bool:
    """Whether some shared access of the arrive's scope may precede `arrive` with no
    meeting of the scope between them (module docstring)."""
    op = arrive
    while True:
        block = op.parent_block()
        if block is None:
            return False
        ops = list(block.ops)
        i = ops.index(op)
        found = _scan(ops[:i])
        if found is not None:
            return found
        parent = block.parent_op()
        if parent is None or _is_scope_root(parent):
            return False
        if isinstance(parent, scf.ForOp):
            found = _scan(ops[i + 1:])  # the previous iteration, round the back edge
            if found is not None:
                return found
        op = parent
