"""The `distribute` pass: split block-level copies between the threads of a block."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.traits import Pure
from xdsl.rewriter import Rewriter

from tilec.dialects import cute, views
from tilec.dialects.distributed import MAX_REGISTERS_PER_THREAD, BlockedLayout
from tilec.dialects.layout import (
    BarrierOp,
    ConvertLayoutOp,
    CopyOp,
    DistributeOp,
    LaunchOp,
    LoadOp,
    StoreOp,
    enclosing_launch,
)
from tilec.dialects.layout_attrs import (
    BlockedLayoutAttr,
    CuteLayoutAttr,
    TensorViewType,
    element_bytes,
)
from tilec.dialects.layout_roles import role_of
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._analysis import contiguous_mode, depends_on_thread, is_pow2, memory_order
from ._convert_ops import conversion_ops
from ._vector_legality import view_vector_ok, widest


@dataclass(frozen=True)
class DistributePass(ModulePass):
    """Split each block-level `layout.copy` inside a `layout.launch` between the block's threads.

    A copy inside a launch whose views do not depend on the thread id is done
    redundantly by every thread; this pass gives each thread its share:

      * gmem -> gmem (Gluon style): `%v = layout.load %src` into a distributed tensor
        with a `#layout.blocked` layout L coalesced for the source, `layout.store %v,
        %dst`. When the destination is contiguous along another mode (a transpose, Gluon
        in/out layouts) the store uses a second blocked layout L' coalesced for the
        destination, and a `layout.convert_layout` L -> L' moves the data between
        threads (later lowered through shared memory).
      * a copy with a shared-memory side (gmem <-> smem, smem -> smem; Mojo style): both
        views are partitioned with the same thread layout (`layout.distribute`, CuTe
        `local_partition`) and the thread-level fragments are copied with
        `layout.copy`, which `vectorize` widens and turns into `cp.async` where it
        can. Chosen over load/store so that a gmem -> smem copy can become
        asynchronous; a swizzled shared view uses load/store instead (its bank-
        conflict-free swizzle was chosen for that access; `layout.distribute` of a
        swizzled view, written by hand as in the swizzled GEMM, works too). A `layout.barrier` follows each copy into shared
        memory, since other threads now wrote part of it, unless the program's own
        barrier already follows it, after at most other copies from global into shared
        memory, loads from global memory and pure ops (`accelerate-matmul`'s copy A,
        copy B, barrier).
      * a block-level copy of tiles whose extents are not powers of two (no blocked
        layout covers them) also uses fragments.

    A copy whose strategy is `async` (`#layout.copy_strategy<async>`) always becomes
    fragments (what `vectorize` makes `cp.async`); the fragments' copy keeps the
    copy's strategy.

    Copies whose views depend on the thread id (already thread level) or live in
    registers are left alone.

    Options:
      threads=N      the block size the layouts are built for; 0 (default) takes the
                     enclosing launch's `threads`; any other value must equal it.
      vector-bytes=B the most bytes each thread holds consecutively along the
                     contiguous mode (default 16, the widest access); a power of two.
      pack=P         a transpose's load layout also holds P / E consecutive elements
                     along the destination's contiguous mode (E = element bytes; none
                     where P / E < 2, or P = 0), as long as the tile gives each thread
                     that many, and its lanes along the source's contiguous mode cover
                     one 128-byte line: the shared-memory write of its conversion then
                     moves P bytes at a time (`lower-convert-layout` puts those
                     registers first) instead of one 1- or 2-byte element. Default 4
                     (one bank word: an int8 128x128 tile's thread writes 16 words
                     instead of 64 bytes; H200, Program path, ratio to cudaMemcpy:
                     int8 8192^2 0.936 -> 0.951, NHWC->NCHW f16 0.980 -> 1.004,
                     NCHW->NHWC f16 0.996 -> 1.010, f16 8192^2 0.965 -> 0.962; 8: f16
                     8-byte writes, 1.013 / 1.004 / 0.955). A power of two, at most 16.

    Blocked layout heuristic, for a tile of shape S whose view is contiguous along
    mode c (E = element bytes, T threads): order = modes from fastest to slowest in
    memory (c first; dynamic strides last); sizePerThread[c] = the widest vector
    (in elements, at most B/E and S[c]) that `vectorize` can prove legal for the view
    along c (contiguity, alignment of the buffer and of every tile offset; so 1 for a
    row-major tile whose row length is odd), the narrower of the two views' widths when
    both are contiguous along c (a view with no stride-1 mode takes the other's); 1
    elsewhere; the 32 lanes of a warp go along `order` (as many along c as S[c] has
    room for, so a warp reads whole 128-byte lines), the T/32 warps along the slowest
    modes first. Lanes or warps left over once the tile is covered go to the slowest
    mode (they hold duplicates). A view with no stride-1 mode uses the other view's
    order. The fragment thread layout is built the same way with one element per
    thread: threads along the gmem side's contiguous mode first, compact.
    """

    name = "distribute"

    threads: int = 0
    vector_bytes: int = 16
    pack: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.threads < 0 or self.threads > 1024:
            raise TilecError(f"distribute: threads={self.threads} must be in [0, 1024]")
        if self.pack and (not is_pow2(self.pack) or self.pack > 16):
            raise TilecError(f"distribute: pack={self.pack} must be 0 or a power of two of at most 16")
        if not is_pow2(self.vector_bytes):
            raise TilecError(f"distribute: vector-bytes={self.vector_bytes} must be a power of two")
        for c in [o for o in op.walk() if isinstance(o, CopyOp)]:
            launch = enclosing_launch(c)
            if launch is None or not self._block_level(c):
                continue
            if role_of(c) is not None:
                raise TilecError(
                    "distribute: a block-level layout.copy inside a layout.warp_specialize region "
                    "(it would be spread over the whole block's threads, but only the region's run "
                    "it): copy per thread, through distributed tensors, or with layout.tma_load",
                    op=c,
                )
            if self.threads and self.threads != launch.num_threads:
                raise TilecError(
                    f"distribute: threads={self.threads} but the enclosing launch has "
                    f"{launch.num_threads} threads",
                    op=c,
                )
            self._distribute(c, launch)

    @staticmethod
    def _block_level(c: CopyOp) -> bool:
        st, dt = c.source.type, c.dest.type
        if "rmem" in (st.memory_space, dt.memory_space):
            return False
        memo: dict = {}
        return not (depends_on_thread(c.source, memo) or depends_on_thread(c.dest, memo))

    def _distribute(self, copy: CopyOp, launch: LaunchOp) -> None:
        st: TensorViewType = copy.source.type
        dt: TensorViewType = copy.dest.type
        T = launch.num_threads
        shape = views.mode_sizes(st.cute_layout)
        dshape = views.mode_sizes(dt.cute_layout)
        if any(not isinstance(n, int) for n in shape + dshape):
            raise TilecError("distribute: a block-level copy needs static extents (tile it first)", op=copy)
        plain = all(isinstance(t.layout, CuteLayoutAttr) for t in (st, dt))
        loadable = (
            shape == dshape
            and all(is_pow2(n) for n in shape)
            and is_pow2(T)
            and st.vec_layout is None
            and dt.vec_layout is None
            # through registers only while lower-to-gpu can unroll a thread's share
            and prod(shape) // T <= MAX_REGISTERS_PER_THREAD
        )
        smem = "smem" in (st.memory_space, dt.memory_space)
        if copy.convert is not None and not (loadable and not smem):
            raise TilecError(
                "distribute: a converting copy (convert = ...) is distributed between "
                "global views of power-of-two extents (tile it first)",
                op=copy,
            )
        if copy.strategy_name == "async":
            new = self._fragments(copy, T)  # cp.async moves fragments (vectorize)
        elif loadable and (not smem or not plain):
            new = self._load_store(copy, T)
        elif plain:
            new = self._fragments(copy, T)
        else:
            raise TilecError(
                "distribute: cannot distribute a copy of a swizzled view whose extents "
                "are not powers of two",
                op=copy,
            )
        if dt.memory_space == "smem" and not _barrier_follows(copy):
            new.append(BarrierOp())
        copy_loc(copy, *new)
        Rewriter.replace_op(copy, new, [])

    def _load_store(self, copy: CopyOp, T: int) -> list[Operation]:
        st: TensorViewType = copy.source.type
        dt: TensorViewType = copy.dest.type
        sl, dl = st.cute_layout, dt.cute_layout
        shape = views.mode_sizes(sl)
        eb = element_bytes(st.element_type)
        cs, cd = contiguous_mode(sl), contiguous_mode(dl)
        s_order = memory_order(sl, cs) if cs is not None else memory_order(dl, cd)
        d_order = memory_order(dl, cd) if cd is not None else s_order
        # a view with no stride-1 mode cannot be coalesced by its run: size it for the other
        s_bytes = self._run_bytes(copy.source, s_order[0], shape, eb) if cs is not None else None
        deb = element_bytes(dt.element_type)  # differs from eb in a converting copy
        d_bytes = self._run_bytes(copy.dest, d_order[0], shape, deb) if cd is not None else None
        s_bytes = s_bytes or d_bytes or self.vector_bytes
        d_bytes = d_bytes or s_bytes
        if d_order[0] == s_order[0]:
            # one run length for both sides, in elements (a converting copy's sides
            # differ in bytes): the shorter, so neither side's lanes stride
            run = min(s_bytes // eb, d_bytes // deb) or 1
            s_bytes, d_bytes = run * eb, run * deb
        cross = None
        if d_order[0] != s_order[0] and self.pack // eb >= 2:
            # a transpose: P / E elements along the destination's contiguous mode per
            # thread, where the tile has them for every thread
            n = min(self.pack // eb, shape[d_order[0]])
            if n >= 2 and prod(shape) // T >= n * max(1, min(s_bytes // eb, shape[s_order[0]])):
                cross = (d_order[0], n)
        ls = blocked_layout(shape, s_order, eb, T, s_bytes, cross)
        ld = ls
        if d_order[0] != s_order[0]:
            ld = blocked_layout(shape, d_order, deb, T, d_bytes)
        ts = TensorType(st.element_type, shape, BlockedLayoutAttr(ls))
        load = LoadOp(copy.source, ts)
        ops: list[Operation] = [load]
        value = load.result
        # a converting copy converts in registers: before the layout conversion when
        # the destination's elements are not wider (less shared memory), else after
        narrow = deb <= eb
        if copy.convert is not None and narrow:
            cast, value = conversion_ops(value, copy.convert.data)
            ops += cast
        if ld != ls:
            t = value.type
            conv = ConvertLayoutOp(value, TensorType(t.element_type, shape, BlockedLayoutAttr(ld)))
            ops.append(conv)
            value = conv.result
        if copy.convert is not None and not narrow:
            cast, value = conversion_ops(value, copy.convert.data)
            ops += cast
        ops.append(StoreOp(value, copy.dest))
        return ops

    def _run_bytes(self, view, d: int, shape: Sequence[int], eb: int) -> int:
        """Bytes each thread holds consecutively along mode d of `view`: `vector-bytes`,
        narrowed to the widest vector `vectorize` will be able to use there. A run wider
        than the legal vector would make each lane's scalar accesses strided (a warp
        instruction touching four times the lines it needs); a narrower one keeps the
        lanes of a warp on consecutive elements."""
        v = widest(shape[d], self.vector_bytes // eb, lambda v: view_vector_ok(view, d, v, eb, lanes_masked=True))
        return v * eb

    def _fragments(self, copy: CopyOp, T: int) -> list[Operation]:
        st: TensorViewType = copy.source.type
        dt: TensorViewType = copy.dest.type
        # coalesce the global side (the source when both are in the same space)
        lead = dt if dt.memory_space == "gmem" and st.memory_space != "gmem" else st
        other = st if lead is dt else dt
        ll = lead.cute_layout
        c = contiguous_mode(ll)
        if c is None:
            c = contiguous_mode(other.cute_layout)
        order = memory_order(ll, c)
        thr = thread_layout(views.mode_sizes(ll), order, T)
        launch = enclosing_launch(copy)
        assert launch is not None
        fs = DistributeOp(copy.source, launch.thread_id, thr)
        fd = DistributeOp(copy.dest, launch.thread_id, thr)
        return [fs, fd, CopyOp(fs.result, fd.result, strategy=copy.strategy)]


LINE = 128
"""Bytes of a global memory line (a warp's lanes along the contiguous mode of a packed
transpose's load cover one)."""


def blocked_layout(
    shape: Sequence[int], order: Sequence[int], eb: int, threads: int, vector_bytes: int = 16,
    cross: tuple[int, int] | None = None,
) -> BlockedLayout:
    """The blocked layout of `distribute` for a tile of `shape` (powers of two) whose
    memory order is `order` (fastest first), `threads` a power of two; `cross` = (mode,
    n): each thread also holds n consecutive elements along that mode (the `pack`
    option)."""
    r = len(shape)
    spt, tpw, wpc = [1] * r, [1] * r, [1] * r
    c = order[0]
    spt[c] = max(1, min(vector_bytes // eb, shape[c]))
    if cross is not None and cross[0] != c:
        spt[cross[0]] = cross[1]
    rem = [n // s for n, s in zip(shape, spt)]
    lanes = min(32, threads)
    warps = threads // lanes
    left = lanes
    for k in order:
        t = min(left, rem[k])
        if cross is not None and k == c:
            # one 128-byte line along the contiguous mode per warp row, the other lanes
            # along the cross mode: their packed shared writes then fall in distinct banks
            t = min(t, max(1, LINE // (spt[c] * eb)))
        tpw[k], rem[k], left = t, rem[k] // t, left // t
    tpw[order[-1]] *= left
    left = warps
    for k in reversed(order):
        w = min(left, rem[k])
        wpc[k], rem[k], left = w, rem[k] // w, left // w
    wpc[order[-1]] *= left
    return BlockedLayout(spt, tpw, wpc, list(order))


def thread_layout(shape: Sequence[int], order: Sequence[int], threads: int) -> cute.Layout:
    """A compact thread layout (one mode per view mode) of exactly `threads` threads,
    consecutive threads along `order[0]` first; threads past a mode's extent go to the
    slowest mode (their fragments are masked)."""
    r = len(shape)
    t = [1] * r
    left = threads
    for k in order:
        n = max(d for d in range(1, left + 1) if left % d == 0 and d <= max(shape[k], 1))
        t[k], left = n, left // n
    t[order[-1]] *= left
    stride = [0] * r
    acc = 1
    for k in order:
        stride[k] = acc
        acc *= t[k]
    if r == 1:
        return cute.make_layout(t[0], 1)
    return cute.make_layout(tuple(t), tuple(stride))


def _barrier_follows(copy: CopyOp) -> bool:
    """Whether a `layout.barrier` follows `copy` in its block with nothing but
    global -> shared `layout.copy`s, `layout.load`s of global views and pure ops (view
    and index arithmetic) between: they read no shared memory, so one barrier after
    them all orders every write of it before any read."""
    op = copy.next_op
    while (isinstance(op, CopyOp) and op.source.type.memory_space == "gmem" and op.dest.type.memory_space == "smem") or (
            isinstance(op, LoadOp) and op.view.type.memory_space == "gmem") or (
            op is not None and op.has_trait(Pure) and not op.regions):
        op = op.next_op
    return isinstance(op, BarrierOp)
