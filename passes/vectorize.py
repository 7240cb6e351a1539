"""The `vectorize` pass: the widest legal vector per access."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.arg_spec import ArgSpec

from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.dialects import cute, views
from tilec.dialects.layout import (
    AsyncWaitOp,
    CopyAsyncOp,
    CopyOp,
    DistributeOp,
    LoadOp,
    StoreOp,
    VectorizeOp,
    enclosing_launch,
)
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import (
    BlockedLayoutAttr,
    ComposedLayoutAttr,
    SliceLayoutAttr,
    element_bytes,
    to_linear,
)

from ._analysis import depends_on_thread, leaves, memory_order
from ._vector_legality import view_vector_ok, widest
from .distribute import thread_layout

ASYNC_BYTES = (4, 8, 16)
"""Sizes `cp.async` moves per access."""


@dataclass(frozen=True)
class VectorizePass(ModulePass):
    """Give each access the widest vector that the layouts' contiguity and the buffers' alignment allow.

    * `layout.load` / `layout.store` of a `#layout.blocked` value: the `vector`
      property is set to the number v of consecutive registers of a thread (along the
      layout's fastest `order` dim d, at most sizePerThread[d] and the extent) that are
      consecutive in memory in the view and aligned: mode d of the view has a stride-1
      run that v divides, every other stride of the view and of the views it was tiled
      from is a multiple of v, every tile extent along d is a multiple of v, the root
      pointer's `align` (16 bytes for `layout.alloc` storage) is a multiple of v*E, a
      swizzled view keeps v within one swizzle unit. v*E <= max-bytes; v is a power of
      two, 1 when nothing wider is legal. A dynamic stride counts as a multiple of what
      its `layout.view` promises (`divisible`), else of nothing. A masked view's extent
      (static or dynamic) does not limit v: `lower-to-gpu` masks each lane, so tiles
      inside the tensor move whole vectors and only a tile across its edge falls back
      to per-element accesses. A `#layout.slice` value (a row's weights in a layer
      norm) is bounded instead by the run of its linear form's registers along one dim
      (`register_run`: its parent's sizePerThread along the kept dim, when lanes and
      warps step by multiples of it); a slice with no run wider than 1 gets no `vector`.
    * `layout.copy` of fragments (both sides `layout.distribute` of a tile by the same
      thread layout and thread id, CuTe `local_partition`): both tiles are wrapped in
      `layout.vectorize` with v elements along the mode the threads run along (fastest
      first), under the same conditions on both tiles (a masked tile's extent along
      that mode a static multiple of v: a fragment's vector is masked whole), and then distributed with a
      thread layout of the same number of threads over the vectors (threads along that
      mode first). Each thread then moves whole vectors.
    * Async staging (`async=true`, the default): a thread-level `layout.copy` from gmem
      to smem whose elements (vectors) are 4, 8 or 16 bytes becomes `layout.copy_async`
      followed by `layout.async_wait {pending = 0}` (CuTe `cp.async` + `cp_async_wait<0>`);
      the barrier that makes shared memory visible to other threads stays where it was.
      A copy whose strategy is `async` is made `cp.async` whatever `async` says, and
      is an error where it cannot be (elements not 4, 8 or 16 contiguous bytes); one
      whose strategy is `simt` never is.

    Options:
      max-bytes=B   widest access in bytes, a power of two in [1, 16] (default 16).
      async=BOOL    turn thread-level gmem -> smem copies into cp.async (default true).
    """

    name = "vectorize"

    max_bytes: int = 16
    async_: bool = True

    @classmethod
    def from_spec(cls, spec: ArgSpec):  # `async` is a Python keyword: map it to `async_`
        params = dict(spec.normalize_parameter_names().parameters)
        if "async" in params:
            params["async_"] = params.pop("async")
        return super().from_spec(ArgSpec(spec.name, params))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        b = self.max_bytes
        if b <= 0 or b & (b - 1) or b > 16:
            raise TilecError(f"vectorize: max-bytes={b} must be a power of two in [1, 16]")
        for c in [o for o in op.walk() if isinstance(o, CopyOp)]:
            self._vectorize_fragments(c)
        for c in [o for o in op.walk() if isinstance(o, CopyOp)]:
            if c.strategy_name == "async" or (self.async_ and c.strategy_name is None):
                self._make_async(c)
        for o in op.walk():
            if isinstance(o, LoadOp):
                self._set_vector(o, o.view, o.result.type)
            elif isinstance(o, StoreOp):
                self._set_vector(o, o.view, o.value.type)

    # ------------------------------------------------------------------ load/store

    def _set_vector(self, op: LoadOp | StoreOp, view: SSAValue, value_type) -> None:
        enc = value_type.encoding
        shape = value_type.get_shape()
        if isinstance(enc, BlockedLayoutAttr):
            b = enc.data
            d = b.order[0]
            limit = min(b.size_per_thread[d], shape[d])
        elif isinstance(enc, SliceLayoutAttr):
            try:
                d, limit = register_run(to_linear(enc, list(shape)))
            except LayoutError:
                return
        else:
            return
        eb = element_bytes(view.type.element_type)
        # loads and stores mask each lane: a masked view's edge costs no width
        v = widest(limit, self.max_bytes // eb, lambda v: view_vector_ok(view, d, v, eb, lanes_masked=True))
        if v == 1 and not isinstance(enc, BlockedLayoutAttr):
            return  # nothing wider: a slice keeps the lowering's per-element default
        op.properties["vector"] = IntegerAttr(v, i64)

    # ------------------------------------------------------------------ fragments

    def _vectorize_fragments(self, copy: CopyOp) -> None:
        fs, fd = copy.source.owner, copy.dest.owner
        if not (isinstance(fs, DistributeOp) and isinstance(fd, DistributeOp)):
            return
        if fs.tid != fd.tid or fs.thread_layout != fd.thread_layout:
            return
        ts, td = fs.source, fd.source
        st, dt = ts.type, td.type
        if st.vec_layout is not None or dt.vec_layout is not None:
            return
        if not all(isinstance(t.layout, type(st.layout)) for t in (dt,)) or any(
            isinstance(t.layout, ComposedLayoutAttr) for t in (st, dt)
        ):
            return
        shape = views.mode_sizes(st.cute_layout)
        if shape != views.mode_sizes(dt.cute_layout) or not all(isinstance(n, int) for n in shape):
            return
        thr = fs.thread_layout
        tmodes = views.modes(thr)
        if len(tmodes) != len(shape):
            return
        # the mode the threads run along: the one holding thread stride 1
        d = min(range(len(shape)), key=lambda k: _thread_stride(tmodes[k]))
        eb = element_bytes(st.element_type)
        limit = min(shape[d], 16 // eb)
        v = widest(
            limit,
            self.max_bytes // eb,
            lambda v: shape[d] % v == 0
            and view_vector_ok(ts, d, v, eb)
            and view_vector_ok(td, d, v, eb),
        )
        if v == 1:
            return
        vec = [1] * len(shape)
        vec[d] = v
        lead = dt if dt.memory_space == "gmem" and st.memory_space != "gmem" else st
        order = memory_order(lead.cute_layout, d)
        vshape = list(shape)
        vshape[d] //= v
        new_thr = thread_layout(vshape, order, thr.size())
        vs, vd = VectorizeOp(ts, vec), VectorizeOp(td, vec)
        ns = DistributeOp(vs.result, fs.tid, new_thr)
        nd = DistributeOp(vd.result, fd.tid, new_thr)
        nc = CopyOp(ns.result, nd.result, strategy=copy.strategy)
        new: list[Operation] = [vs, vd, ns, nd, nc]
        copy_loc(copy, *new)
        Rewriter.insert_op(new, InsertPoint.before(copy))
        Rewriter.erase_op(copy)
        for f in {fs, fd}:
            if not f.result.uses:
                Rewriter.erase_op(f)

    # ------------------------------------------------------------------ async

    def _make_async(self, copy: CopyOp) -> None:
        st, dt = copy.source.type, copy.dest.type
        chosen = copy.strategy_name == "async"

        def cannot(why: str) -> None:
            if chosen:  # the program asked for cp.async: say why it cannot be
                raise TilecError(f"vectorize: copy strategy async: {why}", op=copy)

        if not (st.memory_space == "gmem" and dt.memory_space == "smem"):
            return
        if enclosing_launch(copy) is None:
            return cannot("the copy is not inside a layout.launch")
        memo: dict = {}
        if not (depends_on_thread(copy.source, memo) or depends_on_thread(copy.dest, memo)):
            # block level: every thread would issue the whole copy
            return cannot("the copy is still block level (run distribute first)")
        eb = element_bytes(st.element_type)
        run = min(_contiguous_run(st), _contiguous_run(dt)) * eb
        if run not in ASYNC_BYTES:
            # e.g. 2x1 vectors of f16: no cp.async moves them; stays a copy
            return cannot(f"each thread's elements come in runs of {run} contiguous bytes in both views; "
                          "cp.async moves 4, 8 or 16")
        a = CopyAsyncOp(copy.source, copy.dest)
        w = AsyncWaitOp(0)
        copy_loc(copy, a, w)
        Rewriter.replace_op(copy, [a, w], [])


def register_run(ll) -> tuple[int, int]:
    """(d, k) for a linear layout: the largest power of two k such that registers g ..
    g + k - 1 (g a multiple of k) hold k consecutive elements along dim d, the first at
    a coordinate multiple of k: register bases 0 .. log2(k) - 1 are 1, 2, 4, ... along
    d and nothing else, and every other basis (higher registers, lanes, warps) moves
    along d by a multiple of k. (0, 1) when register 1 is not the next element along
    any dim. A slice of a blocked layout (a row's weights, Gluon's
    `SliceLayout(0, parent)`) keeps its parent's sizePerThread run this way."""
    regs = ll.get_bases("register")
    if not regs or sum(1 for c in regs[0] if c) != 1 or max(regs[0]) != 1:
        return 0, 1
    d = next(i for i, c in enumerate(regs[0]) if c)
    bits = 0
    while bits < len(regs) and all(c == (1 << bits if i == d else 0) for i, c in enumerate(regs[bits])):
        bits += 1
    others = regs[bits:] + [bs for name in ("lane", "warp", "block") for bs in ll.get_bases(name)]
    k = 1 << bits
    while k > 1 and any(bs[d] % k for bs in others):
        k //= 2
    return d, k


def _contiguous_run(t) -> int:
    """The widest power of two k such that the lanes of each vector of the view come in
    groups of k contiguous elements starting at multiples of k (a 2x2 vector of a
    row-major tile: 2). The lowering moves each group with one access (one cp.async)."""
    if t.vec_layout is None:
        return 1
    offs = [int(o) for o in views.offsets(t.vec_layout)]
    n = len(offs)

    def fits(k: int) -> bool:
        return n % k == 0 and all(
            offs[q] % k == 0 and offs[q:q + k] == list(range(offs[q], offs[q] + k))
            for q in range(0, n, k)
        )

    k = 1
    while k * 2 <= n and fits(k * 2):
        k *= 2
    return k


def _thread_stride(mode: cute.Layout) -> float:
    ds = [d for s, d in leaves(mode) if s != 1]
    return min(ds) if ds else float("inf")
