"""The `vectorize` pass: the widest legal vector per access."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, UnitAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
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
from tilec.dialects.layout_attrs import element_bytes, to_linear

from ._analysis import depends_on_thread, leaves, memory_order
from ._axis_info import AxisInfoAnalysis
from ._vector_legality import mask_obstacle, register_run, vector_obstacle, view_vector_ok, widest
from .distribute import thread_layout

ASYNC_BYTES = (4, 8, 16)
"""Sizes `cp.async` moves per access."""


@dataclass(frozen=True)
class VectorizePass(ModulePass):
    """Give each access the widest vector that the layouts' contiguity and the buffers' alignment allow.

    * `layout.load` / `layout.store` of a distributed value, whatever its encoding
      (blocked, slice, linear, MMA accumulator, dot operand: every
      `DistributedEncoding`, through its linear layout): the `vector` property is
      set to the number v of consecutive registers of a thread that are consecutive
      in memory in the view and aligned. The registers bound v first (`register_run`:
      register bases 1, 2, 4, .. along one dim d and every other basis a multiple of
      v along d; a blocked layout's sizePerThread along its first `order` dim, a
      slice's parent's, an MMA accumulator's pairs of columns); then the view: mode d
      has a stride-1 run that v divides, every other stride of the view and of the
      views it was tiled from is a multiple of v, every tile extent along d is a
      multiple of v, the root pointer's `align` (16 bytes for `layout.alloc`
      storage) is a multiple of v*E, a swizzled view keeps v within one swizzle unit.
      v*E <= max-bytes; v is a power of two. A dynamic stride counts as a multiple of
      what its `layout.view` promises (`divisible`), else of nothing. A masked view's
      extent (static or dynamic, a multiple of v or not) does not limit v.
      A masked access (a masked view, a `mask` operand) with v > 1 gets
      `uniform_mask` where each mask is the same over every vector, so that one
      predicate guards it (`other` filling a whole vector, whatever its value): the
      view's mask `origin + x < bound` agrees over v lanes when v divides the bound
      (the extent the first masked tile was cut from: static, promised by
      `layout.view {divisible}`, or a multiple by AxisInfo), the origins being
      multiples of the tile extents; a `mask` operand when AxisInfo finds it
      constant over runs of v along d (`arange(0, T) < N` with N a multiple of v).
      Otherwise `lower-to-gpu` moves each vector whole where all its lanes hold and
      lane by lane where they do not (the note says why). Where v is 1 the access has no `vector`
      (the lowering's per-element default). Where v is less than the registers'
      run, the op's `tilec.vector_note` attribute says why (`--print-between-passes`
      shows it): the register run of 1, a layout that has no linear form, or the
      first condition on the view that twice v breaks.
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
        # three local rewrites, each a pattern over the whole module in turn (each
        # needs the previous one done everywhere: cp.async stages the vectorized
        # fragments; widths are set on the accesses that remain)
        stage = StageAsync(self.async_)
        for pattern in (
            VectorizeFragments(self.max_bytes),
            stage,
            SetVectorWidth(self.max_bytes, AxisInfoAnalysis()),
        ):
            PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
            if stage.refused:  # raised here, not inside the walk (which would dump the module)
                raise stage.refused[0]


NOTE = "tilec.vector_note"
"""The attribute in which `vectorize` says why an access moves fewer elements than its
registers hold consecutively (shown by `--print-between-passes`; nothing reads it)."""


def _note(op: Operation, text: str) -> None:
    op.attributes[NOTE] = StringAttr(text)


def _mask_obstacle(op: LoadOp | StoreOp, view: SSAValue, d: int, v: int, axis: AxisInfoAnalysis) -> str | None:
    """None when the view's mask and the op's `mask` are each the same over every
    vector of v along d (`uniform_mask`); else why not."""
    if view.type.is_masked:
        why = mask_obstacle(view, d, v, lambda x: axis.get(x).divisibility[0])
        if why is not None:
            return why
    if op.mask is not None:
        k = axis.get(op.mask).constancy[d]
        if k < v:
            return f"the mask operand is known constant over runs of {k} along dim {d} only (AxisInfo)"
    return None


@dataclass
class VectorizeFragments(RewritePattern):
    """A `layout.copy` of two fragments (both sides `layout.distribute` of a tile by the
    same thread layout and thread id) becomes the copy of the same tiles wrapped in
    `layout.vectorize` with the widest legal v along the mode the threads run along,
    distributed over the vectors by as many threads (a swizzled tile, as a plain one,
    where v stays within one swizzle unit: `view_vector_ok`). Not handled (left as
    they are): fragments of vectorized tiles, tiles of dynamic shape, thread layouts of
    another rank, and v = 1."""

    max_bytes: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, copy: CopyOp, rewriter: PatternRewriter) -> None:
        fs, fd = copy.source.owner, copy.dest.owner
        if not (isinstance(fs, DistributeOp) and isinstance(fd, DistributeOp)):
            return
        if fs.tid != fd.tid or fs.thread_layout != fd.thread_layout:
            return
        ts, td = fs.source, fd.source
        st, dt = ts.type, td.type
        if st.vec_layout is not None or dt.vec_layout is not None:
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
        rewriter.insert(new, InsertPoint.before(copy))
        rewriter.erase(copy)
        for f in {fs, fd}:
            if not f.result.uses:
                rewriter.erase(f)


@dataclass
class StageAsync(RewritePattern):
    """A thread-level gmem -> smem `layout.copy` whose elements come in runs of 4, 8 or
    16 contiguous bytes becomes `layout.copy_async` + `layout.async_wait {pending = 0}`
    (with `async_`, or where its strategy is `async`, which refuses, located, a copy
    that cannot be one). Not handled: copies of other spaces, block-level copies, the
    `simt` strategy."""

    async_: bool
    refused: list[TilecError] = field(default_factory=list)
    """Where a copy whose strategy is `async` cannot be made one: why (the pass raises)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, copy: CopyOp, rewriter: PatternRewriter) -> None:
        if not (copy.strategy_name == "async" or (self.async_ and copy.strategy_name is None)):
            return
        st, dt = copy.source.type, copy.dest.type
        chosen = copy.strategy_name == "async"

        def cannot(why: str) -> None:
            if chosen:  # the program asked for cp.async: say why it cannot be
                self.refused.append(TilecError(f"vectorize: copy strategy async: {why}", op=copy))

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
        rewriter.replace(copy, [a, w], [])


@dataclass
class SetVectorWidth(RewritePattern):
    """Sets, in place, the `vector`, `uniform_mask` and `tilec.vector_note` of a
    `layout.load` / `layout.store` (the pass documentation says how); `axis` holds what
    is known of masks and index values, shared by the whole walk."""

    max_bytes: int
    axis: AxisInfoAnalysis

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoadOp | StoreOp, rewriter: PatternRewriter) -> None:
        if isinstance(op, LoadOp):
            self._set(op, op.view, op.result.type)
        else:
            self._set(op, op.view, op.value.type)
        rewriter.notify_op_modified(op)

    def _set(self, op: LoadOp | StoreOp, view: SSAValue, value_type) -> None:
        axis = self.axis
        op.attributes.pop(NOTE, None)
        try:
            ll = to_linear(value_type.encoding, list(value_type.get_shape()))
        except LayoutError as e:
            return _note(op, f"vector 1: no linear layout ({e})")
        d, run = register_run(ll)
        eb = element_bytes(view.type.element_type)
        cap = max(1, self.max_bytes // eb)
        # loads and stores mask each lane: a masked view's edge costs no width
        v = widest(run, cap, lambda v: view_vector_ok(view, d, v, eb, lanes_masked=True))
        if v > 1:
            op.properties["vector"] = IntegerAttr(v, i64)
        else:
            op.properties.pop("vector", None)  # the lowering's per-element default
        op.properties.pop("uniform_mask", None)
        if v > 1 and (view.type.is_masked or op.mask is not None):
            why = _mask_obstacle(op, view, d, v, axis)
            if why is None:
                op.properties["uniform_mask"] = UnitAttr()
            else:
                return _note(op, f"vector {v}, its lanes masked one by one where they disagree: {why}")
        if run == 1:
            return _note(op, "vector 1: register 1 is not the element after register 0 along any dim "
                             "(a register run of 1)")
        if v < min(run, cap):
            why = vector_obstacle(view, d, v * 2, eb, lanes_masked=True)
            _note(op, f"vector {v} of a register run of {run} along dim {d}: {v * 2} is not legal: {why}")


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
