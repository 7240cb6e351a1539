"""The `warp-specialize` pass: the plain TMA loop of `software-pipeline` split into a
producer warpgroup that fills a ring of stages and consumer warpgroups that compute on
them (CUTLASS's sm90 warp-specialised kernel, Triton's automatic warp
specialisation)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tilec.dialects.layout import ConvertLayoutOp, CopyOp, LaunchOp, StoreOp
from tilec.dialects.layout_mma import MmaWaitOp
from tilec.dialects.layout_roles import BLOCK_WIDE, WARPGROUP, SetMaxNRegOp, WarpSpecializeOp
from tilec.dialects.layout_tma import MBarrierArriveOp, MBarrierInitOp, MBarrierWaitOp, TmaStoreWaitOp
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._gpu_builder import index
from ._pipeline_expand import PipelineExpansion
from ._pipeline_plan import MAX_STAGES, PERSISTENT_ATTR, STAGES_ATTR, WS_ATTR, LoopPlan, plan_loop, stages_of
from ._ws_rolled import RolledSpecialization
from .software_pipeline import check_smem
from ._column_chunks import EPILOGUE_ATTR
from .split_accumulator import split_launch
from .tma_epilogue import stage_launch

REGISTERS = 65536
"""Registers of a multiprocessor's block (sm_90)."""


@dataclass(frozen=True)
class WarpSpecializePass(ModulePass):
    """Split a launch whose work is one plain TMA loop (the form `software-pipeline`
    takes: per step, TMA loads of its tiles on one mbarrier, the wait, the compute on
    the shared tiles, e.g. a wgmma `layout.mma` into the carried accumulator) into a
    producer warpgroup and the launch's warpgroups as consumers
    (`layout.warp_specialize warpgroups(C, 1)`, the block grows by 128 threads):

      producer (`setmaxnreg dec`): for each step j, from the second round on, wait
        on stage s = j mod S's "empty" mbarrier (parity (j / S - 1) mod 2), then
        the arrive with the stage's bytes and the TMA loads on its "full" one;
      consumers (`setmaxnreg inc`): for each step, wait on "full" (parity
        (j / S) mod 2), compute (a version-3 mma as `{async}` + `mma_wait {pending
        = 1}`), then hand the previous step's stage back (`mbarrier_arrive` on its
        "empty" barrier, one arrival per consumer warpgroup); after the loop
        `mma_wait {pending = 0}` and what followed the loop (the epilogue).

    A loop whose compute stores with the TMA from buffers of its own (the form
    `software-pipeline` stages): those buffers join the ring, each consumer step
    starts, after its "full" wait, with `tma_store_wait {pending = (S - 1) x stores}`
    (the stores of the step S back, the last to read the stage, are done), and the
    consumers wait for every store after the loop; a store from a buffer the TMA
    also loads into leaves the launch as it is.

    The loop is unrolled by S as `software-pipeline` unrolls it (static stages; steps
    past the trip count skipped). What the launch body does before the loop stays
    there (index arithmetic, views, the buffers and barriers) except tensor constants,
    which move into the consumers; nothing else may precede the loop, nothing that
    meets the whole block may be in or after it. Launches of another form are left as
    they are.

    Options:
      num_stages=N      the ring's depth where the loop states none (its
                        `{tilec.num_stages}`, as `software-pipeline` reads it; default 1:
                        leave such launches; 2 <= N <= 8).
      producer_regs=R   the producer's `setmaxnreg dec` (default 40).
      consumer_regs=R   the consumers' `setmaxnreg inc` (default: what the block's
                        registers leave them, at most 256; 232 for two consumer
                        warpgroups and a producer of 40).
      persistent=P      a grid of min(P, tiles) blocks (P: the GPU's multiprocessors),
                        block b taking tiles b, b + P, ... of the launch's (gx, gy)
                        grid (tile t at block coordinates (t / gy, t % gy); what the
                        program computes from them before the loop, e.g. a grouped
                        tile order, is recomputed per tile), the ring's
                        phases running on across them (the producer loads the next
                        tile's stages while the consumers finish the last; the K loop's
                        trip count must be static and a multiple of N); default 0: one
                        tile per block.
      rolled=true       the rolled form (passes/_ws_rolled.py): the ring's stages as
                        staged buffers and "full"/"empty" mbarrier arrays
                        (`software-pipeline{rolled=true}`'s), the producer's and the
                        consumers' loops each keeping the K step once and carrying
                        (stage, phase); no persistent tiles. Default false.
      split=false       keep the loop's accumulators as they are; by default
                        (true) a launch it specialises first has its accumulators
                        split into column chunks where `split-accumulator`'s `auto`
                        decides so (passes/split_accumulator.py: a `bm x bn` C buffer
                        for `tma-epilogue` does not fit beside the ring of N stages, one
                        of `bm x bc` does), so the ring is made of the chunks' buffers.
      marked=true       only the launches whose loop asks for it (`{tilec.warp_specialize}`,
                        the builder's `range(..., warp_specialize=True)`, Triton's
                        `tl.range(..., warp_specialize=True)`), over the loop's
                        `{tilec.persistent = P}` blocks where it states them; such a
                        loop that cannot be specialised is an error. The default
                        pipeline runs the pass so after `remove-layout-conversions`
                        (`software-pipeline` leaves those launches), where a loop of
                        tile loads and `layout.dot` has become the plain TMA loop
                        (`accelerate-matmul`, `tma`) with its accumulator in the MMA
                        layout; the layout conversion before a store of the
                        accumulator after the loop is dropped (the store writes from the
                        MMA layout) and, the default's `tma-epilogue` being past, the
                        pass stages such a launch's epilogue itself (stmatrix + TMA
                        store, passes/tma_epilogue.py). Default false: every launch of
                        the form.
    """

    name = "warp-specialize"

    num_stages: int = 1
    producer_regs: int = 40
    consumer_regs: int = 0
    persistent: int = 0
    rolled: bool = False
    split: bool = True
    marked: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 1 <= self.num_stages <= MAX_STAGES:
            raise TilecError(f"warp-specialize: num_stages must be in [1, {MAX_STAGES}], got {self.num_stages}")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            loops = [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]
            asked = [o for o in loops if WS_ATTR in o.attributes]
            if self.marked and not asked:
                continue
            if asked and len(loops) != 1:
                raise TilecError("warp-specialize: a loop asks for warp specialisation ({tilec.warp_specialize}) "
                                 "but its launch has other loops", op=asked[0])
            if len(loops) != 1:
                continue
            n = stages_of(loops[0], self.num_stages)
            if not 2 <= n <= MAX_STAGES:
                if asked:
                    raise TilecError(f"warp-specialize: a loop asking for warp specialisation needs "
                                     f"{STAGES_ATTR} in [2, {MAX_STAGES}], got {n}", op=asked[0])
                continue
            if asked:
                _store_in_place(launch, loops[0])
            pa = loops[0].attributes.get(PERSISTENT_ATTR)
            persistent = pa.value.data if isinstance(pa, IntegerAttr) else self.persistent
            if self.split:  # column chunks before the ring is made of their buffers
                split_launch(launch, n)
                loops = [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]
            plan = plan_loop(launch, loops[0])
            why = (plan if isinstance(plan, str) else "its loads are not TMA loads" if plan.kind != "tma"
                   else _refusal(launch, plan))
            if why is not None:
                if asked:
                    raise TilecError(f"warp-specialize: the loop asks for warp specialisation but cannot have "
                                     f"it: {why}", op=asked[0])
                continue
            if persistent:
                why = _persistent_refusal(launch, plan, n)
                if why is not None:
                    raise TilecError(f"warp-specialize: persistent={persistent}: {why}", op=plan.loop)
            check_smem(launch, plan, n, self.rolled)
            if self.rolled:
                if persistent:
                    raise TilecError("warp-specialize: rolled=true takes no persistent tiles (persistent=0)",
                                     op=plan.loop)
                ops = list(launch.body.block.ops)
                at = ops.index(plan.loop)
                RolledSpecialization(launch, plan, n, *self._regs(launch), launch.num_threads // WARPGROUP).run_split(
                    [o for o in ops[:at] if _moves(o)], ops[at + 1:])
            else:
                _Specialization(launch, plan, n, *self._regs(launch), persistent).run()
            if asked:  # past the default pipeline's tma-epilogue: the epilogue staged here
                _tma_epilogue(launch)

    def _regs(self, launch: LaunchOp) -> tuple[int, int]:
        """(producer, consumer) registers per thread (`setmaxnreg`)."""
        c = launch.num_threads // WARPGROUP
        at_launch = REGISTERS // (WARPGROUP * (c + 1)) // 8 * 8
        pool = (c + 1) * at_launch
        prod = self.producer_regs
        cons = self.consumer_regs or min(256, (pool - prod) // c // 8 * 8)
        for what, r in (("producer_regs", prod), ("consumer_regs", cons)):
            if not (24 <= r <= 256 and r % 8 == 0):
                raise TilecError(f"warp-specialize: {what} must be a multiple of 8 in [24, 256], got {r}", op=launch)
        if c * cons + prod > pool:
            raise TilecError(
                f"warp-specialize: {c} x {cons} + {prod} registers per thread of a warpgroup exceed the block's "
                f"{pool} ({c + 1} x {at_launch} at launch): setmaxnreg inc would wait forever",
                op=launch,
            )
        return prod, cons


def _store_in_place(launch: LaunchOp, loop: scf.ForOp) -> None:
    """Drop the `layout.convert_layout` between each value and its `layout.store` after
    `loop` in `launch`'s body: the store writes the same elements from the value's own
    layout (the accumulator's wgmma layout), without the shared-memory exchange (and its
    block-wide barriers) of a conversion, which a consumer role could not hold; the
    store is then `tma-epilogue`'s to take (`_tma_epilogue`)."""
    body = launch.body.block
    for st in [o for o in body.ops if isinstance(o, StoreOp)]:
        cv = st.value.owner
        if (body.get_operation_index(st) > body.get_operation_index(loop) and isinstance(cv, ConvertLayoutOp)
                and st.mask is None):
            st.operands[0] = cv.source
            st.attributes.pop("vector", None)  # `vectorize`'s width was the other layout's
            if not cv.result.uses:
                cv.detach()
                cv.erase()


def _tma_epilogue(launch: LaunchOp) -> None:
    """`tma-epilogue` on a specialised launch whose loop asked for it (the default
    pipeline ran that pass before this one): its marked stores of the accumulator go
    through a shared buffer and the TMA (passes/tma_epilogue.py); the marks removed."""
    stage_launch(launch)
    for st in launch.walk():
        if isinstance(st, StoreOp):
            st.attributes.pop(EPILOGUE_ATTR, None)


def _refusal(launch: LaunchOp, plan: LoopPlan) -> str | None:
    """Why the launch cannot be split (None: it can)."""
    n = launch.num_threads
    if launch.block is not None or n % WARPGROUP or n + WARPGROUP > 1024:
        return "the block is not 1-D whole warpgroups with room for one more"
    loop = plan.loop
    body = launch.body.block
    before = True
    for o in body.ops:
        if o is loop:
            before = False
            continue
        if before:
            if _stays(o) or _moves(o):
                continue
            return f"'{o.name}' before the loop"
        if any(x.name in BLOCK_WIDE or isinstance(x, CopyOp) for x in o.walk()):
            return f"'{o.name}' after the loop meets the block"
    for o in plan.compute:
        if any(x.name in BLOCK_WIDE or isinstance(x, CopyOp) for x in o.walk()):
            return f"'{o.name}' in the loop meets the block"
    dests = {o.dest.owner for o in plan.loads if hasattr(o, "dest")}
    if any(st.source.owner in dests for st in plan.stores):
        # the producer would refill it once the consumers hand the stage back, with
        # the store still reading it
        return "a TMA store's buffer is also a TMA load's"
    return None


def store_wait(plan: LoopPlan, n: int) -> TmaStoreWaitOp | None:
    """What starts a consumer step of a loop that stores with the TMA (None: it does
    not): the wait until the stores of the step n steps back (the last to use this
    step's stage of their staged buffers) have read them, the stores of the n - 1
    steps between left in flight (at most 7: waiting for more is safe). The body's own
    store waits are the plan's `dropped` ops (software-pipeline's `step_sync`)."""
    return TmaStoreWaitOp(min(7, (n - 1) * len(plan.stores))) if plan.stores else None


def _persistent_refusal(launch: LaunchOp, plan: LoopPlan, n: int) -> str | None:
    """Why the launch cannot be made persistent (None: it can)."""
    trip = PipelineExpansion(launch, plan, n).trip
    if trip is None or trip % n:
        return (f"the K loop's trip count must be static and a multiple of num_stages ({n}): the ring's "
                "phases run on from tile to tile")
    gz = launch.grid_z.owner
    if not (isinstance(gz, arith.ConstantOp) and gz.value.value.data == 1):
        return "the grid's z extent must be the constant 1"
    return None


def _coordinate_ops(launch: LaunchOp, loop: Operation) -> list[Operation]:
    """The ops before the loop computed from the block coordinates (a tile order's
    arithmetic): the persistent form recomputes them per tile."""
    coords = set(launch.body.block.args[:3])
    out: list[Operation] = []
    for o in launch.body.block.ops:
        if o is loop:
            break
        if any(x in coords for x in o.operands):
            out.append(o)
            coords.update(o.results)
    return out


def _stays(o: Operation) -> bool:
    """Ops before the loop that stay before the regions: buffers, barriers, scalars and
    views."""
    if o.name in ("layout.alloc", "layout.mbarrier_init"):
        return True
    return not o.regions and (o.name.startswith("arith.") or o.name in ("layout.view", "layout.tile")) and not any(
        isinstance(r.type, TensorType) for r in o.results
    )


def _moves(o: Operation) -> bool:
    """Tensor constants before the loop: built by the consumers."""
    return isinstance(o, arith.ConstantOp) and isinstance(o.result.type, TensorType)


class _Specialization(PipelineExpansion):
    """Builds the producer and consumer regions of one planned loop."""

    def __init__(self, launch: LaunchOp, plan: LoopPlan, n: int, prod_regs: int, cons_regs: int,
                 persistent: int = 0):
        super().__init__(launch, plan, n)
        self.prod_regs, self.cons_regs = prod_regs, cons_regs
        self.consumers = launch.num_threads // WARPGROUP
        self.persistent = persistent

    def _global(self, ops: list[Operation], rnd: SSAValue, j: SSAValue | None) -> SSAValue:
        """The ring's round of the block's K steps: this tile's `rnd` after the `j`
        tiles before it (their trip counts a multiple of the stages)."""
        if j is None:
            return rnd
        done = self.emit(ops, arith.MuliOp(j, self.const(ops, self.trip // self.n)))
        g = self.emit(ops, arith.AddiOp(done, rnd))
        g.name_hint = "kround"
        return g

    def _tiles(self, ops: list[Operation], emit_tile) -> None:
        """`emit_tile(ops, j)` once (j None), or (persistent) in a loop over the block's
        tiles t = pid, pid + nprog, ... with the block coordinates of tile t mapped
        and j its index among the block's tiles."""
        if not self.persistent:
            emit_tile(ops, None)
            return
        body = Block(arg_types=[index])
        t = body.args[0]
        t.name_hint = "tile"
        tops: list[Operation] = []
        pid = self.launch.body.block.args[0]
        j = self.emit(tops, arith.DivUIOp(self.emit(tops, arith.SubiOp(t, pid)), self.nprog))
        bx = self.emit(tops, arith.DivUIOp(t, self.gy))
        by = self.emit(tops, arith.RemUIOp(t, self.gy))
        j.name_hint, bx.name_hint, by.name_hint = "j", "bx", "by"
        self.outer_map = {pid: bx, self.launch.body.block.args[1]: by}
        for o in _coordinate_ops(self.launch, self.loop):  # the program's tile order, per tile
            c = o.clone(value_mapper=self.outer_map)
            tops.append(c)
            self.outer_map.update(zip(o.results, c.results))
        emit_tile(tops, j)
        tops.append(scf.YieldOp())
        body.add_ops(tops)
        f = scf.ForOp(pid, self.tiles, self.nprog, [], Region(body))
        copy_loc(self.loop, f)
        ops.append(f)

    def _rounds(self, ops: list[Operation], i: SSAValue, nstep: SSAValue) -> SSAValue:
        r = self.emit(ops, arith.DivUIOp(self.emit(ops, arith.SubiOp(i, self.loop.lb)), nstep))
        r.name_hint = "round"
        return r

    def _skip(self, k: int) -> bool:
        """Whether unrolled step k may lie past the trip count."""
        return k > 0 and not (self.trip is not None and self.trip % self.n == 0)

    def producer(self, nstep: SSAValue) -> Block:
        blk = Block()
        ops: list[Operation] = [SetMaxNRegOp("dec", self.prod_regs)]
        self._tiles(ops, lambda tops, j: tops.append(self._producer_loop(nstep, j)))
        blk.add_ops(ops)
        return blk

    def _producer_loop(self, nstep: SSAValue, j: SSAValue | None) -> scf.ForOp:
        n, loop = self.n, self.loop
        body = Block(arg_types=[index])
        i = body.args[0]
        i.name_hint = self.iv.name_hint
        bops: list[Operation] = []
        rnd = self._global(bops, self._rounds(bops, i, nstep), j)
        first = self.emit(bops, arith.CmpiOp(rnd, self.const(bops, 0), "eq"))
        prev = self.emit(bops, arith.SubiOp(rnd, self.const(bops, 1)))
        eparity = self.emit(bops, arith.RemUIOp(prev, self.const(bops, 2)))
        first.name_hint, eparity.name_hint = "first", "eparity"
        for k in range(n):
            q = self.offset(bops, i, k)
            inner: list[Operation] = []
            wait = Block()
            wait.add_ops([MBarrierWaitOp(self.empty[k], eparity), scf.YieldOp()])
            self.emit(inner, scf.IfOp(first, [], Region(Block([scf.YieldOp()])), Region(wait)))
            self.load(inner, q, k)
            if self._skip(k):
                self.guarded(bops, self.emit(bops, arith.CmpiOp(q, loop.ub, "slt")), inner)
            else:
                bops.extend(inner)
        bops.append(scf.YieldOp())
        body.add_ops(bops)
        return self._loop(nstep, body, [])

    def _loop(self, nstep: SSAValue, body: Block, inits: list[SSAValue]) -> scf.ForOp:
        f = scf.ForOp(self.loop.lb, self.loop.ub, nstep, inits, Region(body))
        copy_loc(self.loop, f)
        return f

    def consumer(self, nstep: SSAValue, moved: list[Operation], after: list[Operation]) -> Block:
        blk = Block()
        ops: list[Operation] = [SetMaxNRegOp("inc", self.cons_regs)]
        for o in moved:
            o.detach()
            ops.append(o)
        self._tiles(ops, lambda tops, j: self._consumer_tile(tops, nstep, j, after))
        blk.add_ops(ops)
        return blk

    def _consumer_tile(self, ops: list[Operation], nstep: SSAValue, j: SSAValue | None,
                       after: list[Operation]) -> None:
        n, loop, plan = self.n, self.loop, self.plan
        body = Block(arg_types=[index, *(a.type for a in self.body.args[1:])])
        i = body.args[0]
        i.name_hint = self.iv.name_hint
        for a, b in zip(body.args[1:], self.body.args[1:]):
            a.name_hint = b.name_hint
        bops: list[Operation] = []
        parity = self.emit(bops, arith.RemUIOp(self._global(bops, self._rounds(bops, i, nstep), j),
                                               self.const(bops, 2)))
        parity.name_hint = "parity"
        later = self.emit(bops, arith.CmpiOp(i, loop.lb, "ne"))
        later.name_hint = "later"
        carried = list(body.args[1:])
        for k in range(n):
            q = self.offset(bops, i, k)
            step: list[Operation] = []
            self.emit(step, MBarrierWaitOp(self.stage_map[k][plan.bar.result], parity))
            if (sw := store_wait(plan, n)) is not None:
                self.emit(step, sw)
            out = self.compute(step, q, k, carried)
            if k:
                self.emit(step, MBarrierArriveOp(self.empty[k - 1]))
            else:
                self.guarded(step, later, [MBarrierArriveOp(self.empty[n - 1])])
            if not self._skip(k):
                bops.extend(step)
                carried = out
                continue
            step.append(scf.YieldOp(*out))
            then = Block()
            then.add_ops(step)
            other = Block([scf.YieldOp(*carried)])
            cond = self.emit(bops, arith.CmpiOp(q, loop.ub, "slt"))
            r = self.emit(bops, scf.IfOp(cond, [v.type for v in out], Region(then), Region(other)))
            carried = list(r.owner.results) if out else []
        bops.append(scf.YieldOp(*carried))
        body.add_ops(bops)
        new_loop = self._loop(nstep, body, list(loop.iter_args))
        ops.append(new_loop)
        results = list(new_loop.results)
        if plan.async_chains:
            idx = sorted(plan.async_chains)
            w = MmaWaitOp([results[x] for x in idx], pending=0)
            self.emit(ops, w)
            for x, r in zip(idx, w.outs):
                results[x] = r
        if plan.stores:  # the last stores have read their buffers
            self.emit(ops, TmaStoreWaitOp(0))
        if j is not None:  # the tile's last stage is read: the next tile's first step does not hand it back
            self.emit(ops, MBarrierArriveOp(self.empty[n - 1]))
            mapping = {**self.outer_map, **dict(zip(loop.results, results))}
            for o in after:  # the epilogue, once per tile (the originals go with the loop)
                c = o.clone(value_mapper=mapping)
                ops.append(c)
                for r, rc in zip(o.results, c.results):
                    mapping[r] = rc
            return
        for old, new in zip(loop.results, results):
            old.replace_all_uses_with(new)
        for o in after:
            o.detach()
            ops.append(o)

    def _persistent_grid(self) -> None:
        """The launch's grid becomes min(persistent, tiles) blocks; tile t of the old
        (gx, gy) grid is block coordinates (t / gy, t % gy)."""
        launch = self.launch
        host: list[Operation] = []
        self.tiles = self.emit(host, arith.MuliOp(launch.grid_x, launch.grid_y))
        p = self.emit(host, arith.ConstantOp(IntegerAttr(self.persistent, index)))
        self.nprog = self.emit(host, arith.MinUIOp(p, self.tiles))
        one = self.emit(host, arith.ConstantOp(IntegerAttr(1, index)))
        self.tiles.name_hint, self.nprog.name_hint = "tiles", "nprog"
        self.gy = launch.grid_y
        launch.parent_block().insert_ops_before(host, launch)
        launch.operands = (self.nprog, one, launch.grid_z)

    def run(self) -> None:
        n, loop, launch = self.n, self.loop, self.launch
        lb_block = launch.body.block
        if self.persistent:
            self._persistent_grid()
        self.make_stages()
        last_full = self.stage_map[n - 1][self.plan.bar.result].owner
        empties = [MBarrierInitOp(self.consumers) for _ in range(n)]
        for e in empties:
            copy_loc(loop, e)
            e.result.name_hint = "empty"
        lb_block.insert_ops_after(empties, last_full)
        self.empty = [e.result for e in empties]
        ops = list(lb_block.ops)
        at = ops.index(loop)
        moved = [o for o in ops[:at] if _moves(o)]
        after = ops[at + 1:]
        pre: list[Operation] = []
        nstep = self.emit(pre, arith.MuliOp(self.const(pre, n), loop.step))
        nstep.name_hint = "nstep"
        cons = self.consumer(nstep, moved, after)
        prod = self.producer(nstep)
        ws = WarpSpecializeOp([self.consumers, 1], [Region(cons), Region(prod)])
        copy_loc(loop, ws)
        lb_block.insert_ops_before([*self.const_ops, *pre, ws], loop)
        if self.persistent:  # the epilogue was cloned per tile
            for o in reversed(after):
                o.detach()
                o.erase()
        loop.detach()
        loop.erase()
        launch.threads = IntegerAttr(launch.num_threads + WARPGROUP, i64)
