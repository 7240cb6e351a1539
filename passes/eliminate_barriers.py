"""The `eliminate-barriers` pass: a `gpu.barrier` of the GPU-level IR is removed where no memory written on one side of it, before the barriers around it, is accessed on the other."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import gpu, memref, scf, vector
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import MemoryEffectKind, get_effects

from tilec.dialects import cuda

VALUE_DIALECTS = ("arith", "math")
"""Dialects whose ops compute values only (xDSL leaves some, such as `arith.remui`, unmarked)."""

ANY = None
"""The root of an access to memory not known: it may alias every buffer."""

VIEWS = (memref.SubviewOp, memref.ReinterpretCastOp, memref.CastOp, memref.CollapseShapeOp,
         memref.ExpandShapeOp, memref.MemorySpaceCastOp, memref.ViewOp)
"""Ops whose memref result views the memory of their first operand."""

NO_MEMORY = (cuda.CpAsyncCommitOp, cuda.CommentOp, cuda.ShflIdxOp, gpu.ThreadIdOp, gpu.BlockIdOp,
             gpu.BlockDimOp, gpu.GridDimOp, gpu.LaneIdOp, gpu.ReturnOp, scf.YieldOp, memref.AllocaOp)
"""Ops that access no memory other threads see (a shuffle exchanges registers; an
alloca's storage is accessed by the loads and stores of it), where their traits do not say so."""


@dataclass(frozen=True)
class Access:
    """A read or write of the memory `root` (a memref value that is not a view of
    another; ANY: any memory)."""

    write: bool
    root: SSAValue | None


def root(v: SSAValue) -> SSAValue:
    """The memref `v` views, through subviews, casts and reinterpretations."""
    while isinstance(v.owner, VIEWS):
        v = v.owner.operands[0]
    return v


def may_alias(a: SSAValue | None, b: SSAValue | None) -> bool:
    """Whether two roots may be the same memory: one is ANY, they are the same value, or
    neither is an allocation (`memref.alloca` / `memref.alloc`: storage of its own)."""
    if a is None or b is None or a is b:
        return True
    fresh = (memref.AllocaOp, memref.AllocOp)
    return not isinstance(a.owner, fresh) and not isinstance(b.owner, fresh)


def conflict(xs: Iterable[Access], ys: Iterable[Access]) -> bool:
    """Whether an access of `xs` and one of `ys` may touch the same memory, one writing."""
    ys = list(ys)
    return any((x.write or y.write) and may_alias(x.root, y.root) for x in xs for y in ys)


class _Kernel:
    """The accesses of a kernel's ops, and what its `cp.async.wait_group`s complete."""

    def __init__(self, fn: gpu.FuncOp):
        self.async_roots = [root(o.dst) for o in fn.walk() if isinstance(o, cuda.CpAsyncOp)]
        self._memo: dict[Operation, list[Access]] = {}

    def accesses(self, op: Operation) -> list[Access]:
        """The accesses of `op` and the ops nested in it (barriers nested in it order
        nothing here: they may not run; removing one changes no op's accesses, so they
        are kept per op). An op the rules below do not know accesses ANY."""
        if op not in self._memo:
            self._memo[op] = self._accesses(op)
        return self._memo[op]

    def _accesses(self, op: Operation) -> list[Access]:
        if isinstance(op, gpu.BarrierOp):
            return []
        if isinstance(op, (scf.ForOp, scf.IfOp)):
            return [a for r in op.regions for b in r.blocks for o in b.ops for a in self.accesses(o)]
        if op.regions:
            return [Access(True, ANY)]
        if isinstance(op, memref.LoadOp):
            return _seen(False, op.memref)
        if isinstance(op, memref.StoreOp):
            return _seen(True, op.memref)
        if isinstance(op, vector.LoadOp):
            return _seen(False, op.base)
        if isinstance(op, vector.StoreOp):
            return _seen(True, op.base)
        if isinstance(op, cuda.CpAsyncOp):
            return [Access(False, root(op.src)), Access(True, root(op.dst))]
        if isinstance(op, cuda.CpAsyncWaitOp):
            # the copies it waits for land now: writes of their destinations
            return [Access(True, r) for r in self.async_roots]
        if isinstance(op, NO_MEMORY) or isinstance(op, VIEWS) or op.name.split(".")[0] in VALUE_DIALECTS:
            return []
        effects = get_effects(op)
        if effects is not None and all(e.kind == MemoryEffectKind.ALLOC for e in effects):
            return []
        return [Access(True, ANY)]


def _seen(write: bool, mem: SSAValue) -> list[Access]:
    """The access of `mem`, unless it is a thread's own array (an alloca outside shared
    memory: registers or local memory, which no other thread sees)."""
    r = root(mem)
    if isinstance(r.owner, memref.AllocaOp) and r.type.memory_space != cuda.SHARED_MEMORY_SPACE:
        return []
    return [Access(write, r)]


def _is_fence(op: Operation, skip: Operation) -> bool:
    return isinstance(op, gpu.BarrierOp) and op is not skip


def _scan(k: _Kernel, bar: gpu.BarrierOp, forward: bool) -> set[Access] | None:
    """The accesses that may run on one side of `bar` (before it: `forward` False) up to
    the barriers every path from (to) it meets first, ignoring `bar`'s own instances
    (on other trips too: removing it removes them all). None where a region op the
    scan must leave is not a loop, a branch or the kernel."""
    out: set[Access] = set()

    def walk(o: Operation | None) -> bool:
        """Accesses of `o` and the ops after (before) it in its block until a barrier;
        whether a barrier stopped it."""
        while o is not None:
            if _is_fence(o, bar):
                return True
            out.update(k.accesses(o))
            o = o.next_op if forward else o.prev_op
        return False

    cur: Operation = bar
    while True:
        if walk(cur.next_op if forward else cur.prev_op):
            return out
        block = cur.parent_block()
        assert isinstance(block, Block)
        parent = block.parent_op()
        if isinstance(parent, gpu.FuncOp):
            return out
        if isinstance(parent, scf.ForOp):
            # the next (previous) trip, from the body's start (end)
            walk(block.first_op if forward else block.last_op)
        elif not isinstance(parent, scf.IfOp):
            return None
        cur = parent


def redundant(k: _Kernel, bar: gpu.BarrierOp) -> bool:
    """Whether `bar` orders no pair of accesses: none it separates touches memory the
    other side writes, or writes memory the other side touches."""
    before, after = _scan(k, bar, False), _scan(k, bar, True)
    return before is not None and after is not None and not conflict(before, after)


@dataclass(frozen=True)
class EliminateBarriersPass(ModulePass):
    """Remove the `gpu.barrier`s (`__syncthreads`) of GPU-level kernels that order no access to memory.

    A barrier is needed only where an access before it and one after it, by different
    threads, touch the same memory and one of them writes. For each barrier B of a
    `gpu.func`, in program order (each removal changing what the next one sees), the
    pass collects the accesses that may run between B and the barriers that every path
    meets first on each side: going backwards, the ops before B in its block, then
    those of the enclosing blocks: a branch's parent block before the `scf.if`, a loop
    body's end (the previous trip) and the parent block before the `scf.for` (the first
    trip); forwards the same way to the next trip and past the loop. A barrier nested
    in a branch or a loop the scan passes over does not stop it (it may not run), nor
    does B's own instance on another trip. B is removed where no access of one side
    writes memory the other side reads or writes. Memory is known by its root (the
    memref a load, store, vector access or cp.async reads or writes, through views):
    two allocations (`memref.alloca`, shared buffers such as a reduction's partials and
    a stash) are distinct, anything else may alias anything but an allocation; a
    `cp.async.wait_group` is a write of every cp.async destination of the kernel (the
    copies land there); an op whose effects the pass does not know touches all memory.
    Every pair is assumed to be of different threads (no analysis of which thread
    accesses what), so the rule only removes barriers that separate disjoint buffers.

    Softmax's first loop (two reductions a trip, each a write of its partials between
    two barriers, and a stash read behind a cp.async wait and barrier) keeps 3 of its 5
    barriers a trip: the barrier before each reduction's write is redundant, the
    other reduction's barriers separating that write from the reads of the same buffer
    on the trip before.

    Options:
      enabled   remove the barriers above (default true; false keeps every barrier,
                as `prefetch-operands{enabled=false}` does its rewrite).
    """

    name = "eliminate-barriers"

    enabled: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.enabled:
            return
        for fn in [o for o in op.walk() if isinstance(o, gpu.FuncOp)]:
            k = _Kernel(fn)
            for bar in [o for o in fn.walk() if isinstance(o, gpu.BarrierOp)]:
                if redundant(k, bar):
                    Rewriter.erase_op(bar)
