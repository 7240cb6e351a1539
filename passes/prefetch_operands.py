"""The `prefetch-operands` pass: a pipelined mma.sync loop loads the first operand
fragments of each K step under the last MMAs of the step before (Triton's Prefetch
pass, CUTLASS's register double buffering across the stage boundary)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import MemoryEffectKind, get_effects

from tilec.dialects.cuda import UNROLL_ATTR
from tilec.dialects.layout import (
    DERIVED_VIEW_OPS,
    DYNAMIC,
    WILDCARD,
    AllocOp,
    AsyncWaitOp,
    BarrierOp,
    ConvertLayoutOp,
    CopyAsyncOp,
    LaunchOp,
    LoadOp,
    SliceOp,
)
from tilec.dialects.layout_attrs import ComposedLayoutAttr
from tilec.dialects.layout_mma import MmaOp
from tilec.support.locations import copy_loc

from ._pipeline_plan import root_alloc, static_int


@dataclass(frozen=True)
class PrefetchOperandsPass(ModulePass):
    """Move each cp.async step boundary of a pipelined loop (`layout.async_wait`, then
    `layout.barrier`) and the shared-memory loads of the next step's first MMA operands
    above the last MMAs of the step before, so the fragments of the next step load
    while those MMAs run (Triton's Prefetch pass; the hand-written mma.sync GEMM,
    examples/python/gemm_bf16.py, does this).

    `software-pipeline`'s cp.async form leaves each step as `async_wait; barrier;
    copy_async (the tile S-1 ahead); load slice 0; load slice 1; mma 0; ...; mma last`
    (`accelerate-matmul` loads slice j + 1 before the mma of slice j), so after each
    barrier the first MMA waits for its `ldmatrix`. A boundary is rewritten where:

    - the ops right before its `async_wait` are a run of ops without memory effects
      and without regions (the *tail* of the step before: its last `layout.mma`s of
      registers, index arithmetic; a `layout.convert_layout`, which may go through
      shared memory, ends the run) with at least one `layout.mma`;
    - the *first operands* are the `layout.load`s, after the barrier, of the operands
      of the first `layout.mma` after it; with the pure ops they need from between
      the tail and them (view tiles, constants), they move;
    - every op they jump over writes no memory, or is a `layout.copy_async` into
      another allocation than the ones they read (a copy into the stage the step
      before read: a different allocation in the unrolled form), or into another
      stage of the same staged allocation (the rolled form's `layout.slice
      %buf[%i, _, ...]` at indices that provably differ, `ahead = select(stage == 0,
      S - 1, stage - 1)` against `stage`, where the stage stride covers a stage and
      is a multiple of the swizzle's period).

    The wait, the barrier and the first operands then come before the tail. The
    barrier still follows every read of the step before (the tail reads no memory),
    so the copies after it still refill a stage no warp reads, and the wait still
    covers the stage the first operands read: the schedule's meaning is unchanged.

    Across the back edge of an `scf.for` with a static trip count of at least one
    (`rotate=true`) the loop is rotated: where its body starts with such a boundary
    (only pure ops before the wait) and ends with such a tail before the `scf.yield`,
    the wait, the barrier and the first operands move before the loop (the induction
    value at `lb`, each carried value it needs, e.g. the rolled form's stage, at its
    init) and to before the tail (at `iv + step` and at the values the body yields,
    their pure ops moved above the tail), the loads' results carried as iter_args;
    the last iteration's are loaded and not used (they read a stage the pipeline's
    clamped copies filled). A boundary after the loop (a peeled step) keeps its own
    loads. With `software-pipeline`'s rolled form (its default for cp.async loops) this
    is the hand-written kernel's schedule, one K step per iteration.

    A loop that stays rolled (`{tilec.unroll = 1}`: `software-pipeline`'s rolled ring,
    one step per iteration, whose only boundary is at the back edge) is rotated
    by default; an unrolled one only with `rotate=true`: there the fragments carried
    round the back edge made NVRTC's ptxas spill the 128x256 GEMM tiles (52-344 bytes,
    where the boundaries inside the unrolled body alone spill none); the rolled form
    with its rotation spills none.

    Options:
      enabled=false   leave every loop as it is (the A/B switch of the benchmarks).
      rotate=true     also rotate the back edges of unrolled loops (default false:
                      only those of rolled loops).
    """

    name = "prefetch-operands"

    enabled: bool = True
    rotate: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.enabled:
            return
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            blocks = [b for o in launch.walk() for r in o.regions for b in r.blocks]
            for blk in blocks:
                while _prefetch_one(blk):
                    pass
            for loop in [o for o in launch.walk() if isinstance(o, scf.ForOp)]:
                if self.rotate or _rolled(loop):
                    _rotate(loop)


# ------------------------------------------------------------------ analysis


def _rolled(loop: scf.ForOp) -> bool:
    """Whether the loop stays rolled in the CUDA (`{tilec.unroll = 1}`, as
    `software-pipeline{rolled=true}` marks its ring): one step per iteration, so its
    only boundary is at the back edge."""
    a = loop.attributes.get(UNROLL_ATTR)
    return getattr(getattr(a, "value", None), "data", None) == 1


def _memory_free(op: Operation) -> bool:
    """No memory effect, no region, and not a conversion that may go through shared
    memory when it is lowered."""
    if op.regions or isinstance(op, ConvertLayoutOp | scf.YieldOp):
        return False
    effects = get_effects(op)
    return effects is not None and not effects


def _static(v: SSAValue) -> int | None:
    """The value of an index built of constants by `arith.addi` / `arith.muli`
    (`software-pipeline`'s step, S x step), or None."""
    o = v.owner
    if isinstance(o, arith.AddiOp | arith.MuliOp):
        x, y = _static(o.lhs), _static(o.rhs)
        if x is None or y is None:
            return None
        return x + y if isinstance(o, arith.AddiOp) else x * y
    return static_int(v)


def _tail_start(ops: list[Operation], end: int) -> int | None:
    """The index of the last `layout.mma` of the run of memory-free ops ending before
    `end` (the tail starts there: the MMAs before it keep the operands loaded before
    them company, so a thread holds the fragments of two slices at most), or None
    where the run has no `layout.mma`."""
    start = end
    while start > 0 and _memory_free(ops[start - 1]):
        start -= 1
    return next((i for i in range(end - 1, start - 1, -1) if isinstance(ops[i], MmaOp)), None)


def _first_operands(ops: list[Operation], after: int) -> list[LoadOp] | None:
    """The `layout.load`s after index `after` that give the operands of the first
    `layout.mma` after it (at least one), or None."""
    pos = {o: i for i, o in enumerate(ops)}
    mma = next((o for o in ops[after + 1:] if isinstance(o, MmaOp)), None)
    if mma is None:
        return None
    loads = []
    for v in (mma.a, mma.b):
        o = v.owner
        if isinstance(o, LoadOp) and pos.get(o, -1) > after and o not in loads:
            loads.append(o)
    return loads or None


def _moved_set(ops: list[Operation], loads: list[LoadOp], lo: int,
               allowed_args: tuple[SSAValue, ...] = ()) -> set[Operation] | None:
    """`loads` and the ops of `ops` at index >= lo they need (pure ones only), or None
    where one they need is not pure or is a block argument of the block not in
    `allowed_args` (a loop's carried value)."""
    blk = ops[0].parent_block() if ops else None
    need = _closure([v for o in loads for v in o.operands], ops, lo, blk, allowed_args)
    return None if need is None else need | set(loads)


def _jumped_ok(jumped: list[Operation], loads: list[LoadOp]) -> bool:
    """Whether the loads may move above `jumped`: none writes memory, but copies into
    allocations they do not read."""
    roots = {root_alloc(ld.view) for ld in loads}
    if None in roots:
        return False
    for o in jumped:
        if isinstance(o, CopyAsyncOp):
            dest = root_alloc(o.dest)
            if dest is None:
                return False
            same = [ld for ld in loads if root_alloc(ld.view) is dest]
            if not all(_other_stages(ld.view, o.dest) for ld in same):
                return False
            continue
        if o.regions:
            return False
        effects = get_effects(o)
        if effects is None or any(e.kind == MemoryEffectKind.WRITE for e in effects):
            return False
    return True


def _stage_slice(v: SSAValue) -> SliceOp | None:
    """The `layout.slice` taken of an allocation on the chain of views that made `v`
    (a stage of a staged buffer), or None."""
    while isinstance(v.owner, DERIVED_VIEW_OPS):
        o = v.owner
        if isinstance(o, SliceOp) and isinstance(o.source.owner, AllocOp):
            return o
        v = o.operands[0]
    return None


def _other_stages(a: SSAValue, b: SSAValue) -> bool:
    """Whether views `a` and `b` lie in different stages of one staged allocation
    (`software-pipeline{rolled=true}`'s `(S, ...)` buffers): each is within a slice
    `%buf[%i, _, ...]` of the allocation, the two indices provably differ
    (`_differ`), and the stages cannot overlap: the stage stride is at least a
    stage's cosize and a multiple of the swizzle's period (so the swizzle keeps each
    stage's offsets in their own range)."""
    sa, sb = _stage_slice(a), _stage_slice(b)
    if sa is None or sb is None or sa.source is not sb.source:
        return False
    pattern = sa.pattern_values
    if pattern != sb.pattern_values or not pattern or pattern[0] != DYNAMIC or any(
            x != WILDCARD for x in pattern[1:]) or len(sa.coords) != 1 or len(sb.coords) != 1:
        return False
    t = sa.source.type
    modes = t.cute_layout.modes() if isinstance(t.cute_layout.shape, tuple) else []
    if len(modes) < 2 or not isinstance(modes[0].stride, int):
        return False
    stride = modes[0].stride
    if stride <= 0 or sa.result.type.cute_layout.cosize() > stride:
        return False
    if isinstance(t.layout, ComposedLayoutAttr):
        c = t.layout.data
        if c.offset != 0 or c.swizzle.shift < 0 or stride % (1 << (c.swizzle.base + c.swizzle.bits)):
            return False
    return _differ(sa.coords[0], sb.coords[0]) or _differ(sb.coords[0], sa.coords[0])


def _differ(x: SSAValue, y: SSAValue) -> bool:
    """Whether y != x whatever x is, for y = select(x == a, b, x - d) with b != a and
    d != 0 (the stage a pipeline loads ahead into), or y = select(e == a, b, e) with
    e = x + d or x - d, d != 0 and b != x where e == a (the next stage)."""
    sel = y.owner
    if not isinstance(sel, arith.SelectOp):
        return False
    cmp = sel.cond.owner
    if not isinstance(cmp, arith.CmpiOp) or cmp.predicate.value.data != 0:  # eq
        return False
    a, b = static_int(cmp.rhs), static_int(sel.lhs)
    if a is None or b is None:
        return False

    def shift(e: SSAValue) -> int | None:  # d where e = x + d, d != 0
        o = e.owner
        if isinstance(o, arith.AddiOp | arith.SubiOp) and o.lhs is x:
            d = static_int(o.rhs)
            if d:
                return d if isinstance(o, arith.AddiOp) else -d
        return None

    if cmp.lhs is x:  # select(x == a, b, x + d)
        return b != a and shift(sel.rhs) is not None
    d = shift(cmp.lhs)  # select(x + d == a, b, x + d)
    return d is not None and sel.rhs is cmp.lhs and b != a - d


def _boundary(ops: list[Operation], b: int) -> tuple[int, list[LoadOp]] | None:
    """For the barrier at index b (after an async_wait): the index of the wait and the
    first operands after it, where they may move (the pass docstring)."""
    if b == 0 or not isinstance(ops[b - 1], AsyncWaitOp):
        return None
    loads = _first_operands(ops, b)
    if loads is None:
        return None
    return b - 1, loads


# ------------------------------------------------------------------ rewrites


def _prefetch_one(blk: Block) -> bool:
    """Rewrite the first boundary of `blk` that qualifies and is not yet rewritten;
    whether one was."""
    ops = list(blk.ops)
    for b, op in enumerate(ops):
        if not isinstance(op, BarrierOp):
            continue
        found = _boundary(ops, b)
        if found is None:
            continue
        w, loads = found
        t0 = _tail_start(ops, w)
        if t0 is None:
            continue
        moved = _moved_set(ops, loads, t0, tuple(blk.args))
        if moved is None:
            continue
        last = max(ops.index(ld) for ld in loads)
        jumped = [o for o in ops[b + 1:last] if o not in moved]
        if not _jumped_ok(jumped, loads):
            continue
        head = [ops[w], op] + [o for o in ops[t0:] if o in moved]
        for o in head:
            o.detach()
        blk.insert_ops_before(head, ops[t0])
        return True
    return False


def _rotate(loop: scf.ForOp) -> bool:
    """Rotate the boundary at the top of `loop`'s body round the back edge (the pass
    docstring); whether it was."""
    lb, ub, st = (_static(v) for v in (loop.lb, loop.ub, loop.step))
    if None in (lb, ub, st) or st <= 0 or ub <= lb:
        return False
    body = loop.body.block
    ops = list(body.ops)
    iv, y = body.args[0], ops[-1]
    b = next((i for i, o in enumerate(ops) if not (_memory_free(o) and not isinstance(o, MmaOp))), None)
    if b is None or not isinstance(ops[b], AsyncWaitOp) or b + 1 >= len(ops) or not isinstance(ops[b + 1], BarrierOp):
        return False
    w, b = b, b + 1
    loads = _first_operands(ops, b)
    if loads is None:
        return False
    moved = _moved_set(ops, loads, 0, tuple(body.args))
    if moved is None:
        return False
    last = max(ops.index(ld) for ld in loads)
    if not _jumped_ok([o for o in ops[b + 1:last] if o not in moved], loads):
        return False
    t0 = _tail_start(ops, len(ops) - 1)
    if t0 is None or t0 <= last:
        return False
    group = [o for o in ops if o in moved]
    used_args = {x for o in group for x in o.operands if x in body.args}
    # the next iteration's carried values the loads need, computed before the tail
    early = _closure([y.operands[a.index - 1] for a in used_args if a is not iv], ops, t0)
    if early is None:
        return False
    wait, bar = ops[w], ops[b]

    def clone_group(at: dict[SSAValue, SSAValue]) -> tuple[list[Operation], dict[SSAValue, SSAValue]]:
        mapping = dict(at)
        out = [wait.clone(), bar.clone()]
        for o in group:
            c = o.clone(value_mapper=mapping)
            copy_loc(o, c)
            for r, rc in zip(o.results, c.results):
                mapping[r] = rc
            out.append(c)
        return out, mapping

    carried = list(zip(body.args[1:], loop.iter_args, y.operands))
    # before the loop: the first iteration's (iv = lb, the carried values' inits)
    pre, pre_map = clone_group({iv: loop.lb, **{a: init for a, init, _ in carried}})
    parent = loop.parent_block()
    parent.insert_ops_before(pre, loop)
    # before the tail: the next iteration's (iv + step, the values the body yields)
    head: list[Operation] = [o for o in ops if o in early]
    for o in head:
        o.detach()
    at = {a: nxt for a, _, nxt in carried}
    if iv in used_args:
        step_op = arith.AddiOp(iv, loop.step)
        copy_loc(loop, step_op)
        head.append(step_op)
        at[iv] = step_op.result
    again, again_map = clone_group(at)
    body.insert_ops_before([*head, *again], ops[t0])
    # the body's own loads take the carried values
    for ld in loads:
        a = body.insert_arg(ld.result.type, len(body.args))
        a.name_hint = ld.result.name_hint
        ld.result.replace_all_uses_with(a)
    for o in (*loads, wait, bar):
        o.detach()
        o.erase()
    for o in reversed(group):  # the pure ops only the loads needed
        if o.parent is not None and not any(r.uses for r in o.results):
            o.detach()
            o.erase()
    y.operands = [*y.operands, *(again_map[ld.result] for ld in loads)]
    # the loop with the carried fragments
    region = loop.detach_region(loop.body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *(pre_map[ld.result] for ld in loads)],
                         region)
    new_loop.attributes.update(loop.attributes)
    copy_loc(loop, new_loop)
    parent.insert_op_before(new_loop, loop)
    for old, new in zip(loop.results, new_loop.results):
        old.replace_all_uses_with(new)
        new.name_hint = old.name_hint
    loop.detach()
    loop.erase()
    return True


def _closure(values: list[SSAValue], ops: list[Operation], t0: int, blk: Block | None = None,
             allowed_args: tuple[SSAValue, ...] = ()) -> set[Operation] | None:
    """The ops at index >= t0 of `ops` that compute `values` (they move before index
    t0), or None where one of them is not pure or (with `blk`) a value is an argument
    of `blk` not in `allowed_args`."""
    pos = {o: i for i, o in enumerate(ops)}
    need: set[Operation] = set()
    todo = list(values)
    while todo:
        v = todo.pop()
        o = v.owner
        if isinstance(o, Block):
            if blk is not None and o is blk and v not in allowed_args:
                return None
            continue
        if pos.get(o, -1) < t0 or o in need:
            continue
        if o.regions or get_effects(o) != set():
            return None
        need.add(o)
        todo.extend(o.operands)
    return need
