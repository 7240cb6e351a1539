"""TMA copies and mbarriers: `layout.tma_load` / `tma_store` / `tma_store_wait` /
`mbarrier_*` -> `cuda.tma_*` / `cuda.mbarrier_*` (dialects/cuda_tma.py).

The layout ops are block-collective; here thread 0 of the block issues what one
thread must (init, arrive, the copies, the bulk-group waits) and barriers make the
result visible to the block:

- `mbarrier_init`: a `memref<1xi64, 3>` word; thread 0 inits it; `gpu.barrier`.
- `mbarrier_array {count, stages}`: a `memref<stages x i64, 3>`; thread 0 inits each
  word; `gpu.barrier`. `mbarrier_at %bars[%i]`: the word `i`, a `memref.subview`
  (`bars + i` in the CUDA).
- `mbarrier_expect_tx %bar, %bytes`: the thread that arrives (thread 0, or each
  warpgroup's first in a region) expects the bytes, before its arrival.
- `mbarrier_arrive {tx}`: thread 0 arrives, expecting tx bytes; first the block (the
  region) meets where its threads read or wrote shared memory since their last meeting
  (passes/_arrive_order.py: an arrive publishes only the arriving thread's accesses).
- `tma_load %g, %s, %bar`: thread 0 issues `cuda.tma_load` on the tensor map of the
  global view (`outline.py` makes it on the host, a kernel parameter), at the tile's
  coordinates (tile index x tile extent per TMA dimension).
- `cp_async_load %g, %s, %bar`: every thread (of the block or region) issues its
  16-byte `cuda.cp_async` runs, then `cuda.cp_async_mbarrier_arrive` (noinc).
- `cp_async_arrive %bar`: every thread `cuda.cp_async_mbarrier_arrive` (noinc), its
  earlier `copy_chunk_async` copies landing with the phase.
- `mbarrier_wait`: every thread waits (try_wait.parity loop).
- `tma_store %s, %g`: every thread fences its shared writes for the async proxy and
  the block meets; thread 0 issues the store and commits its bulk group.
- `tma_store_wait {pending}`: thread 0 waits for the group reads; the block meets (right
  before a `tma_store`: at the store's meeting, after its fence).
- Inside region i of a `warp_specialize`, "the block" of these two is the region: its
  threads meet at `cuda.named_barrier` i + 1 (`bar.sync i + 1, threads`) and its first
  thread issues the store and the waits (the consumers' TMA-store epilogue).
- `mbarrier_inval`: the block meets (every wait done); thread 0 invalidates.
- `peer_view %s on %cta`: the view with its memref mapped to the peer's
  (`cuda.map_shared_rank`, every thread), the loads and stores of views of it as of `s`.
- `cluster_rank` / `cluster_sync`: `cuda.cluster_rank` / `cuda.cluster_sync` (every
  thread); `mbarrier_arrive on %cta` and `tma_load {multicast}` as above, their
  `cuda` ops carrying the rank and the mask.
- `griddep_wait` / `griddep_launch_dependents`: `cuda.griddep_wait` /
  `cuda.griddep_launch_dependents` (every thread that reaches them).

The shared buffer of a TMA copy is aligned to what the copy engine and the swizzle
need (`TmaGeometry.smem_align`: 128 bytes, 1024 with a 128-byte swizzle), set on its
`memref.alloca`. A copy into (or from) a part of a buffer, a `layout.tile` of it or of a
stage of it, takes a `memref.subview` of the buffer (of the stage's subview, so that the
reference executor checks the part against the stage's bounds), located at the tile. A
`cuda.comment` before each copy tells the choice (box, swizzle, bytes), which the CUDA shows.
"""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, StridedLayoutAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects import cuda, cuda_roles, cuda_tma, layout, layout_roles, layout_tma, views
from tilec.dialects.layout_attrs import element_bytes

from .._arrive_order import unordered_accesses_before
from .._gpu_builder import DynamicIndex
from . import access
from .base import _fail, lowers
from .context import OpFamily
from .view_values import View, _eval_coords, _mode_size

BARRIER_ALIGN = 8


class TmaLowering(OpFamily):
    def _elect(self, *ops: Operation) -> None:
        """`if (tid == 0) { ops }`."""
        b = self.b
        tb = Block()
        c = b.ssa(b.eq0(self.ctx.tid))
        b.add(scf.IfOp(c, [], Region(tb), Region()))
        with b.at(tb):
            for op in ops:
                b.add(op)
            b.add(scf.YieldOp())

    def _arriving_thread(self, op: Operation) -> None:
        """`op` by the thread that arrives on an mbarrier: thread 0 (`_elect`), or in a
        warp_specialize region the first thread of each warpgroup (roles.py)."""
        if self.ctx.role_threads is None:
            self._elect(op)
            return
        b = self.b
        tb = Block()
        c = b.ssa(b.eq0(b.and_(self.ctx.tid, layout_roles.WARPGROUP - 1)))
        b.add(scf.IfOp(c, [], Region(tb), Region()))
        with b.at(tb):
            b.add(op)
            b.add(scf.YieldOp())

    def _bar(self, v: SSAValue) -> SSAValue:
        return self.values.scalar(v)  # the mbarrier's memref

    def _map_and_coords(self, op: layout_tma.TmaLoadOp | layout_tma.TmaStoreOp):
        maps = self.ctx.tma_maps
        if op not in maps:
            raise _fail(op, f"'{op.name}' has no tensor map (the launch was not outlined by lower-to-gpu)")
        tmap = self.values.scalar(maps[op])
        plan = op.plan()
        coords = []
        for m in plan.geometry.order:
            if plan.tile is None:
                coords.append(self.b.const(0))
            else:
                c = self.values.index(plan.tile.coords[m]) * plan.tile.tile_sizes[m]
                coords.append(self.b.ssa(c))
        return tmap, plan, coords

    def _boxes(self, plan, coords: list[SSAValue]) -> list[tuple[list[SSAValue], int]]:
        """(coordinates, shared offset in elements) of each box of a copy."""
        g = plan.geometry
        out = []
        for k in range(g.copies):
            c0 = coords[0] if k == 0 else self.b.ssa(self.b.add_(DynamicIndex(self.b, coords[0]), k * g.box[0]))
            out.append(([c0, *coords[1:]], k * g.copy_elements))
        return out

    def _smem(self, op: Operation, view_value: SSAValue, align: int) -> SSAValue:
        """The shared buffer of a TMA copy, aligned to `align` bytes: the alloc's memref,
        or a stage of it (the view's base, a multiple of `align`, as a subview)."""
        sv = self.values.view(view_value)
        alloca = sv.mem.owner
        eb = element_bytes(view_value.type.element_type)
        # a static stage of a swizzled buffer is an in-swizzle offset: a multiple of
        # the swizzle's repeat, as `align` is, moves the swizzle's pattern unchanged
        start = self.b.add_(sv.base, sv.swz_off)
        if not isinstance(alloca, memref.AllocaOp) or (self.b.div_of(start) * eb) % align:
            raise _fail(op, f"a TMA copy's shared side must be a layout.alloc or a stage of one (at a multiple "
                            f"of {align} bytes)")
        old = alloca.alignment.value.data if alloca.alignment is not None else 0
        if align > old:
            alloca.alignment = IntegerAttr(align, i64)
        if start == 0:
            return sv.mem
        part = view_value.owner
        if not (isinstance(part, Operation) and part.name == "layout.tile"):
            return self._at(sv.mem, self.b.ssa(start), view_value.type.cute_layout.cosize())
        # a part of the buffer (or of a stage of it: the part a subview of the stage's, so that
        # the executor's bounds are the stage's): where it lies is the tile's, so are the errors
        whole, whole_start = sv.mem, 0
        saved = self.b.src_location
        self.b.src_location = part.location
        try:
            if isinstance(part.source.owner, Operation) and part.source.owner.name == "layout.slice":
                st = self.values.view(part.source)
                whole_start = self.b.add_(st.base, st.swz_off)
                whole = self._at(sv.mem, self.b.ssa(whole_start), part.source.type.cute_layout.cosize())
            return self._at(whole, self.b.ssa(self.b.sub_(start, whole_start)), view_value.type.cute_layout.cosize())
        finally:
            self.b.src_location = saved

    def _at(self, mem: SSAValue, offset: SSAValue, n: int) -> SSAValue:
        """The `n` elements of `mem` from element `offset` on (a 1-D shared memref)."""
        t = mem.type
        rt = MemRefType(t.element_type, [n], StridedLayoutAttr([1], None), t.memory_space)
        sub = self.b.add(memref.SubviewOp(mem, [offset], [], [], [DYNAMIC_INDEX], [n], [1], rt))
        return sub.results[0]

    def _comment(self, text: str) -> None:
        self.b.add(cuda.CommentOp(text))

    @lowers(layout_tma.MBarrierInitOp)
    def op_mbarrier_init(self, op: layout_tma.MBarrierInitOp):
        b = self.b
        a = b.add(memref.AllocaOp.get(i64, alignment=BARRIER_ALIGN, shape=[1], memory_space=cuda.SHARED_MEMORY_SPACE))
        a.results[0].name_hint = "mbar"
        bar = a.results[0]
        self._elect(cuda_tma.MBarrierInitOp(bar, op.count.value.data))
        b.add(gpu.BarrierOp())
        self.values.set_scalar(op.result, bar)

    @lowers(layout_tma.MBarrierArrayOp)
    def op_mbarrier_array(self, op: layout_tma.MBarrierArrayOp):
        b = self.b
        n = op.num_stages
        a = b.add(memref.AllocaOp.get(i64, alignment=BARRIER_ALIGN, shape=[n], memory_space=cuda.SHARED_MEMORY_SPACE))
        a.results[0].name_hint = "mbars"
        bars = a.results[0]
        words = []
        for i in range(n):
            t = MemRefType(i64, [1], StridedLayoutAttr([1], i), cuda.SHARED_MEMORY_SPACE)
            words.append(memref.SubviewOp(bars, [], [], [], [i], [1], [1], t))
        self._elect(*words, *(cuda_tma.MBarrierInitOp(w.results[0], op.count.value.data) for w in words))
        b.add(gpu.BarrierOp())
        self.values.set_scalar(op.result, bars)

    @lowers(layout_tma.MBarrierAtOp)
    def op_mbarrier_at(self, op: layout_tma.MBarrierAtOp):
        bars = self.values.scalar(op.bars)
        t = MemRefType(i64, [1], StridedLayoutAttr([1], None), cuda.SHARED_MEMORY_SPACE)
        idx = self.b.ssa(self.values.index(op.index))
        sub = self.b.add(memref.SubviewOp(bars, [idx], [], [], [DYNAMIC_INDEX], [1], [1], t))
        sub.results[0].name_hint = "mbar"
        self.values.set_scalar(op.result, sub.results[0])

    @lowers(layout_tma.ClusterRankOp)
    def op_cluster_rank(self, op: layout_tma.ClusterRankOp):
        r = self.b.add(cuda_tma.ClusterRankOp()).results[0]
        r.name_hint = "crank"
        self.values.set_index(op.result, DynamicIndex(self.b, r))

    @lowers(layout_tma.ClusterSyncOp)
    def op_cluster_sync(self, op: layout_tma.ClusterSyncOp):
        self.b.add(cuda_tma.ClusterSyncOp())

    @lowers(layout_tma.GridDepWaitOp)
    def op_griddep_wait(self, op: layout_tma.GridDepWaitOp):
        self.b.add(cuda_tma.GridDepWaitOp())

    @lowers(layout_tma.GridDepLaunchOp)
    def op_griddep_launch(self, op: layout_tma.GridDepLaunchOp):
        self.b.add(cuda_tma.GridDepLaunchOp())

    @lowers(layout_tma.PeerViewOp)
    def op_peer_view(self, op: layout_tma.PeerViewOp):
        sv = self.values.view(op.source)
        cta = self.b.ssa(self.values.index(op.cta))
        peer = self.b.add(cuda_tma.MapSharedRankOp(sv.mem, cta)).results[0]
        peer.name_hint = "peer"
        self.values.set_view(op.result, replace(sv, mem=peer))

    @lowers(layout_tma.MBarrierArriveOp)
    def op_mbarrier_arrive(self, op: layout_tma.MBarrierArriveOp):
        cta = None if op.cta is None else self.b.ssa(self.values.index(op.cta))
        arrive = cuda_tma.MBarrierArriveExpectTxOp(self._bar(op.bar), op.tx_bytes, cta)
        if unordered_accesses_before(op):  # the elected thread's arrive must publish them
            self._meet(op)
        self._arriving_thread(arrive)

    @lowers(layout_tma.MBarrierExpectTxOp)
    def op_mbarrier_expect_tx(self, op: layout_tma.MBarrierExpectTxOp):
        self._arriving_thread(cuda_tma.MBarrierExpectTxOp(self._bar(op.bar), self.b.ssa(self.values.index(op.bytes))))

    @lowers(layout_tma.MBarrierWaitOp)
    def op_mbarrier_wait(self, op: layout_tma.MBarrierWaitOp):
        self.b.add(cuda_tma.MBarrierWaitOp(self._bar(op.bar), self.b.ssa(self.values.index(op.phase))))

    @lowers(layout_tma.MBarrierInvalOp)
    def op_mbarrier_inval(self, op: layout_tma.MBarrierInvalOp):
        self.b.add(gpu.BarrierOp())
        self._elect(cuda_tma.MBarrierInvalOp(self._bar(op.bar)))

    @lowers(layout_tma.TmaLoadOp)
    def op_tma_load(self, op: layout_tma.TmaLoadOp):
        tmap, plan, coords = self._map_and_coords(op)
        dst = self._smem(op, op.dest, plan.geometry.smem_align)
        self._comment(f"TMA load (cp.async.bulk.tensor): {plan.geometry.describe()}")
        bar = self._bar(op.bar)
        mc = op.multicast_mask
        self._elect(*(cuda_tma.TmaLoadOp(dst, tmap, bar, cs, off, mc) for cs, off in self._boxes(plan, coords)))

    @lowers(layout_tma.CpAsyncArriveOp)
    def op_cp_async_arrive(self, op: layout_tma.CpAsyncArriveOp):
        self.b.add(cuda_tma.CpAsyncMBarrierArriveOp(self._bar(op.bar)))

    @lowers(layout_tma.CpAsyncLoadOp)
    def op_cp_async_load(self, op: layout_tma.CpAsyncLoadOp):
        """Each of the T threads running the op (the block, or its warp_specialize
        region) copies 16-byte runs tid, tid + T, ... of the tile (row-major order of
        runs) with `cuda.cp_async` (`src_bytes` 0 where the run lies outside a masked
        tile: zeros), then `cuda.cp_async_mbarrier_arrive` on the barrier."""
        b = self.b
        s, d = self.values.view(op.source), self.values.view(op.dest)
        w = op.run_elements()
        rows, cols = (views._flat(m)[0][0] for m in views.modes(op.source.type.cute_layout))
        runs = cols // w
        threads = self.ctx.role_threads or self.ctx.nthreads
        if not isinstance(threads, int):
            raise _fail(op, "cp_async_load needs a static thread count")
        if d.swizzle is not None and d.swizzle.zzz_msk & (w - 1):
            raise _fail(op, f"cp_async_load: the shared layout's swizzle moves parts of a {w}-element run")
        lead = views._flat(views.modes(op.dest.type.cute_layout)[1])[0]
        if lead[1] != 1 or lead[0] % w:
            raise _fail(op, f"cp_async_load: the shared rows do not keep {w}-element runs contiguous")
        self._comment(f"cp.async load: {rows}x{cols} in 16-byte runs by {threads} threads, "
                      f"arriving on the mbarrier (noinc)")
        box = None
        src = op.source.owner
        if isinstance(src, layout.TileOp) and not op.source.type.is_masked:
            # an unmasked tile may lie past the end (`layout.tile`'s TMA box): its runs
            # are checked against the tiled view's extents, as the TMA clips a box
            origin = [b.mul_(self.values.index(x), t) for x, t in zip(src.coords, src.tile_sizes)]
            box = (self.values.view(src.source), origin)
        tid = self.ctx.tid
        total = rows * runs
        step = threads // runs if threads % runs == 0 else 0  # rows a trip moves on
        # the first trip's offsets, then each trip's as a constant more where the
        # layouts allow (registers: a thread keeps one address per side, not one a trip)
        moves = self._trip_moves(op, s if box is None else box[0], d, rows, cols, w, step)
        first: dict = {}
        for j in range(-(-total // threads)):
            run = b.add_(tid, j * threads)
            if step:  # the same column each trip
                r = b.add_(b.div_(tid, runs), j * step)
                c = b.mul_(b.rem_(tid, runs), w)
            else:
                r, c = b.div_(run, runs), b.mul_(b.rem_(run, runs), w)

            def copy(r=r, c=c, j=j) -> None:
                if box is None:
                    at, pv = [r, c], s
                    ok = access.valid(b, s, at)
                else:  # a tile as a box: its coordinates in the tiled view, inside its extents
                    pv, origin = box
                    at = [b.add_(origin[0], r), b.add_(origin[1], c)]
                    ok = access.valid(b, pv, at)
                    for x, m in zip(at, pv.layout):
                        ok = b.land(ok, b.lt_(x, _mode_size(b, m)))
                if moves is not None and first:
                    soff, doff = b.add_(first["s"], moves[0] * j), b.add_(first["d"], moves[1][j])
                else:
                    soff = access.offset(b, pv, _eval_coords(b, pv.layout, at))
                    doff = access.offset(b, d, _eval_coords(b, d.layout, [r, c]))
                    first.update(s=soff, d=doff)
                nbytes = None
                if ok is not True:
                    sixteen, zero = b.const(layout_tma.CP_ASYNC_LOAD_BYTES), b.const(0)
                    nbytes = b.add(arith.SelectOp(b.ssa(ok), sixteen, zero)).results[0]
                b.add(cuda.CpAsyncOp(d.mem, b.ssa(doff), s.mem, b.ssa(soff), layout_tma.CP_ASYNC_LOAD_BYTES, nbytes))

            if total % threads and j == total // threads:
                access.guarded(b, b.lt_(run, total), copy)
            else:
                copy()
        b.add(cuda_tma.CpAsyncMBarrierArriveOp(self._bar(op.bar)))

    def _trip_moves(self, op, sv, d, rows: int, cols: int, w: int, step: int):
        """(the global offset a trip of `step` rows adds, the shared offset trip j adds
        for each j) where both are the same for every thread: the global rows' stride
        static, and the shared layout (swizzle included) moving every run of the first
        trip's rows by the same amount at each later trip (a 128-byte swizzle's pattern
        repeats every 8 rows); None otherwise (each trip's offsets computed whole)."""
        b = self.b
        if not step or len(sv.layout[0]) != 1 or not isinstance(sv.layout[0][0][1], int):
            return None
        if not isinstance(d.swz_off, int) or not all(isinstance(x, int) for m in d.layout for leaf in m for x in leaf):
            return None
        flat = View(d.mem, 0, d.layout, None, None, d.space, d.elem, d.align, d.swizzle, d.swz_off)

        def at(r: int, c: int) -> int:
            return access.offset(b, flat, _eval_coords(b, flat.layout, [r, c]))

        trips = -(-rows // step)
        moves = [0]
        for j in range(1, trips):
            deltas = {at(r + j * step, c) - at(r, c) for r in range(min(step, rows - j * step)) for c in range(0, cols, w)}
            if len(deltas) != 1:
                return None
            moves.append(deltas.pop())
        return step * sv.layout[0][0][1], moves

    def _meet(self, op: Operation) -> None:
        """The threads running `op` meet: the block (`gpu.barrier`) or, inside a
        warp_specialize region, the region (`cuda.named_barrier`, id region + 1; a
        region run apart: each warpgroup its own, `WarpSpecializeOp.barrier_id`)."""
        role = layout_roles.role_of(op)
        if role is None:
            self.b.add(gpu.BarrierOp())
            return
        ws, i = role
        offset = self.b.ssa(self.ctx.warpgroup_index) if i in ws.apart else None
        self.b.add(cuda_roles.NamedBarrierOp(ws.barrier_id(i), ws.role_threads(i), offset=offset))

    @lowers(layout_tma.TmaStoreOp)
    def op_tma_store(self, op: layout_tma.TmaStoreOp):
        tmap, plan, coords = self._map_and_coords(op)
        src = self._smem(op, op.source, plan.geometry.smem_align)
        self._comment(f"TMA store (cp.async.bulk.tensor): {plan.geometry.describe()}")
        self.b.add(cuda_tma.FenceProxyAsyncOp())
        self._meet(op)
        stores = [cuda_tma.TmaStoreOp(tmap, cs, src, off) for cs, off in self._boxes(plan, coords)]
        self._elect(*stores, cuda_tma.BulkCommitOp())

    @lowers(layout_tma.TmaStoreWaitOp)
    def op_tma_store_wait(self, op: layout_tma.TmaStoreWaitOp):
        self._elect(cuda_tma.BulkWaitReadOp(op.pending.value.data))
        if not isinstance(op.next_op, layout_tma.TmaStoreOp):  # else the store's meeting follows
            self._meet(op)
