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
(and leaves it), or None after rewriting it.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects.errors import LayoutError
from tilec.dialects.layout import AllocOp, BarrierOp, CopyOp, LaunchOp
from tilec.dialects.layout_tma import (
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierWaitOp,
    TmaLoadOp,
    TmaStoreOp,
    TmaStoreWaitOp,
    tma_plan,
)
from tilec.dialects.tma import DEFAULT_L2_PROMOTION
from tilec.support.locations import copy_loc

from ._gpu_builder import index

MAX_STAGES = 8
"""tma_store_wait's `pending` is at most 7."""


def _alloc_in(v: SSAValue, block: Block) -> AllocOp | None:
    o = v.owner
    return o if isinstance(o, AllocOp) and o.parent_block() is block else None


def _uses_only_inside(v: SSAValue, loop: Operation) -> bool:
    return all(loop.is_ancestor(u.operation) for u in v.uses)


def _pure(op: Operation) -> bool:
    return not op.regions and (op.name.startswith("arith.") or op.name == "layout.tile")


def _slice(v: SSAValue, body: Block) -> list[Operation] | str:
    """The ops of `body` (top level) that `v` is computed by, in body order."""
    need: set[Operation] = set()
    todo = [v]
    while todo:
        o = todo.pop().owner
        if not isinstance(o, Operation) or o.parent_block() is not body or o in need:
            continue
        if not _pure(o):
            return f"the in-copy's source depends on '{o.name}', which is not pure index arithmetic"
        need.add(o)
        todo.extend(o.operands)
    return [o for o in body.ops if o in need]


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
        if not _uses_only_inside(smem, loop):
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


def ring_loop(launch: LaunchOp, loop: scf.ForOp, stages: int, l2_promotion: int = DEFAULT_L2_PROMOTION) -> str | None:
    """Rewrite `loop` (directly in `launch`'s body) into a `stages`-deep TMA ring, or say
    why not (the loop is then left as it is); its loads ask `l2_promotion` bytes."""
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
    iv = body.args[0]
    src_slice = _slice(cin.source, body)
    if isinstance(src_slice, str):
        return src_slice
    n = stages
    tx = tma_plan(cin.source, cin.dest).geometry.total_bytes

    pre: list[Operation] = []

    def emit(ops: list[Operation], op: Operation) -> SSAValue:
        copy_loc(loop, op)
        ops.append(op)
        return op.results[0] if op.results else None

    def const(ops: list[Operation], v: int) -> SSAValue:
        return emit(ops, arith.ConstantOp(IntegerAttr(v, index)))

    def offset(ops: list[Operation], base: SSAValue, k: int) -> SSAValue:
        """base + k * step"""
        if k == 0:
            return base
        kk = const(ops, k)
        return emit(ops, arith.AddiOp(base, emit(ops, arith.MuliOp(kk, loop.step))))

    def clone_alloc(a: AllocOp) -> SSAValue:
        c = a.clone()
        pre.append(c)
        return c.results[0]

    s_alloc = cin.dest.owner
    o_alloc = cout.source.owner if cout is not None else None
    S = [cin.dest] + [clone_alloc(s_alloc) for _ in range(n - 1)]
    if cout is None:
        O: list[SSAValue] = []
    elif cout.source is cin.dest:  # a round trip through one buffer: its stages are S's
        O = S
    else:
        O = [cout.source] + [clone_alloc(o_alloc) for _ in range(n - 1)]
    B = [emit(pre, MBarrierInitOp(1)) for _ in range(n)]

    def prefetch(ops: list[Operation], q: SSAValue, stage: int) -> None:
        """if (q < ub) { arrive B_stage; tma_load src(q) -> S_stage }"""
        cond = emit(ops, arith.CmpiOp(q, loop.ub, "slt"))
        blk = Block()
        mapping: dict[SSAValue, SSAValue] = {iv: q}
        inner: list[Operation] = []
        emit(inner, MBarrierArriveOp(B[stage], tx))
        for o in src_slice:
            c = o.clone(value_mapper=mapping)
            inner.append(c)
        emit(inner, TmaLoadOp(mapping.get(cin.source, cin.source), S[stage], B[stage], l2_promotion))
        inner.append(scf.YieldOp())
        blk.add_ops(inner)
        emit(ops, scf.IfOp(cond, [], Region(blk), Region()))

    for q in range(n - 1):
        prefetch(pre, offset(pre, loop.lb, q), q)

    nstep = emit(pre, arith.MuliOp(const(pre, n), loop.step))
    new_body = Block(arg_types=[index])
    i = new_body.args[0]
    ops: list[Operation] = []
    rnd = emit(ops, arith.DivUIOp(emit(ops, arith.SubiOp(i, loop.lb)), nstep))
    parity = emit(ops, arith.RemUIOp(rnd, const(ops, 2)))
    body_ops = [o for o in body.ops if not isinstance(o, scf.YieldOp)]
    if body_ops and isinstance(body_ops[-1], BarrierOp):
        body_ops.pop()  # the next step (or the loop's end) starts with the block's barrier
    after_in = cin.next_op
    if isinstance(after_in, BarrierOp):
        body_ops.remove(after_in)  # the mbarrier wait orders the tile's landing for every thread
    before_out = cout.prev_op if cout is not None else None
    if isinstance(before_out, BarrierOp) and before_out in body_ops:
        body_ops.remove(before_out)  # the TMA store fences and meets the block itself
    for k in range(n):
        q = offset(ops, i, k)
        step_ops: list[Operation] = []
        # the store of N tiles ago used O_k; with one buffer (O = S), the load below
        # refills the buffer of the tile just stored: every store must have read it
        pending = 0 if O is S else n - 1
        emit(step_ops, TmaStoreWaitOp(pending) if cout is not None else BarrierOp())
        prefetch(step_ops, offset(step_ops, q, n - 1), (k + n - 1) % n)
        emit(step_ops, MBarrierWaitOp(B[k], parity))
        mapping: dict[SSAValue, SSAValue] = {iv: q, S[0]: S[k]}
        if cout is not None:
            mapping[O[0]] = O[k]
        for o in body_ops:
            if o is cin:
                continue
            if o is cout:
                emit(step_ops, TmaStoreOp(mapping[cout.source], mapping.get(cout.dest, cout.dest)))
                continue
            step_ops.append(o.clone(value_mapper=mapping))
        if k == 0:  # the loop's own condition
            ops.extend(step_ops)
            continue
        step_ops.append(scf.YieldOp())
        blk = Block()
        blk.add_ops(step_ops)
        emit(ops, scf.IfOp(emit(ops, arith.CmpiOp(q, loop.ub, "slt")), [], Region(blk), Region()))
    ops.append(scf.YieldOp())
    new_body.add_ops(ops)
    new_loop = scf.ForOp(loop.lb, loop.ub, nstep, [], Region(new_body))
    copy_loc(loop, new_loop)
    post: list[Operation] = [new_loop]
    if cout is not None:
        emit(post, TmaStoreWaitOp(0))
    lb_block.insert_ops_before(pre + post, loop)
    loop.detach()
    loop.erase()
    return None
