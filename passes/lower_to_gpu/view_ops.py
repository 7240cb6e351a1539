"""View ops: `layout.view`, `alloc`, `tile`, `vectorize`, `distribute`, `slice`,
`divide`, `partition` become index arithmetic on run-time views (dialects/views.py
semantics)."""


from __future__ import annotations

from dataclasses import replace

from xdsl.dialects import memref

from tilec.dialects import cuda, layout, views
from tilec.dialects.layout_ptr import AddPtrOp, pointer_root
from tilec.dialects.layout_attrs import (
    ComposedLayoutAttr,
    PtrType,
    TensorViewType,
)

from .._tile_bounds import coord_limit, covers_grid
from .base import (
    _fail,
    lowers,
)
from .context import OpFamily
from .view_values import (
    View,
    _eval_coords,
    _eval_mode,
    _is_static,
    _map_mask,
    _mode_coords,
    _mode_size,
    _value_layout,
    _uneven_bounds,
)


class ViewOpsLowering(OpFamily):
    # -------------------------------------------------------------- views
    @lowers(layout.ViewOp)
    def op_layout_view(self, op: layout.ViewOp):
        rt: TensorViewType = op.result.type
        src = op.source
        dyn = [self.values.index(d) for d in op.dynamic]
        if isinstance(src.type, PtrType):
            # a pointer argument, or one moved by scalar `layout.addptr`s (lowered to its
            # offset in elements: the view starts there in the argument's memory)
            moved = isinstance(src.owner, AddPtrOp)
            mem = self.values.scalar(pointer_root(src) if moved else src)
            base = self.values.index(src) if moved else 0
            self.values.set_view(op.result, View(mem, base, _value_layout(rt.cute_layout, dyn), None, None, "gmem",
                                                 rt.element_type, src.type.alignment))
            return
        sv: View = self.values.view(src)
        swz, soff = self._swizzle(rt)
        self.values.set_view(op.result, replace(sv, layout=_value_layout(rt.cute_layout, dyn), vec=None, mask=None,
                                                swizzle=swz, swz_off=soff))

    def _swizzle(self, t: TensorViewType):
        if isinstance(t.layout, ComposedLayoutAttr):
            c = t.layout.data
            if not c.swizzle.is_identity():
                return c.swizzle, c.offset
            return None, c.offset
        return None, 0

    @lowers(layout.AllocOp)
    def op_layout_alloc(self, op: layout.AllocOp):
        t: TensorViewType = op.result.type
        swz, soff = self._swizzle(t)
        n = t.cute_layout.cosize() + soff
        if swz is not None:
            sz = swz.size()
            n = -(-n // sz) * sz
        n *= t.vector_size
        space = cuda.SHARED_MEMORY_SPACE if t.memory_space == "smem" else None
        a = self.b.add(memref.AllocaOp.get(t.element_type, shape=[n], memory_space=space) if space else memref.AllocaOp.get(t.element_type, shape=[n]))
        a.results[0].name_hint = "smem" if space else "regs"
        vec = _value_layout(t.vec_layout) if t.vec_layout is not None else None
        self.values.set_view(op.result, View(a.results[0], 0, _value_layout(t.cute_layout), vec, None, t.memory_space,
                                             t.element_type, 16, swz, soff))

    def _shift(self, sv: View, delta) -> dict:
        """The fields of a sub-view of `sv` `delta` elements further (for a plain view,
        `delta` is already the new base: its offsets were added to the base in the
        order they always were, so the emitted code is unchanged); a swizzled one adds
        it inside the swizzle (CuTe's ComposedLayout folds
        a sub-view's offset in the same way), except a dynamic delta that is a known
        multiple of the swizzle's period (swizzle(x + delta) == swizzle(x) + delta),
        which stays in the base so the in-swizzle offset stays static where it can."""
        b = self.b
        if sv.swizzle is None:
            return {"base": delta}
        if isinstance(delta, int) or b.div_of(delta) % sv.swizzle.size():
            return {"swz_off": b.add_(sv.swz_off, delta)}
        return {"base": b.add_(sv.base, delta)}

    def _need_plain(self, op, sv: View):
        if sv.swizzle is not None or sv.swz_off:
            raise _fail(op, "view ops on swizzled layouts are not supported")

    @lowers(layout.TileOp)
    def op_layout_tile(self, op: layout.TileOp):
        b = self.b
        sv: View = self.values.view(op.source)
        rt: TensorViewType = op.result.type
        tile = op.tile_sizes
        coords = [self.values.index(c) for c in op.coords]
        base = sv.base if sv.swizzle is None else 0
        for m, c, t in zip(sv.layout, coords, tile):
            base = b.add_(base, _eval_mode(b, m, b.mul_(c, t)))
        new_modes = []
        rmodes = _value_layout(rt.cute_layout, partial=True)  # read for static modes only
        for k, (m, t) in enumerate(zip(sv.layout, tile)):
            if all(isinstance(s, int) and isinstance(d, int) for s, d in m):
                new_modes.append(rmodes[k])
            elif len(m) == 1:
                new_modes.append([(t, m[0][1])])
            else:
                raise _fail(op, "tiling a hierarchical mode with dynamic values is not supported")
        limits = [coord_limit(c, op) for c in op.coords]
        if not rt.is_masked:
            for k, (m, t, lim) in enumerate(zip(sv.layout, tile, limits)):
                n = _mode_size(b, m)
                if isinstance(n, int) and lim is not None and lim > n // t:
                    raise _fail(
                        op,
                        f"tile coordinate {k} takes {lim} values but mode {k} of {n} "
                        f"elements has {n // t} tiles of {t}: the last tiles lie outside "
                        "the tensor; make the result type `masked` (they are then empty) "
                        f"or launch {n // t} blocks along it",
                    )
        mask = sv.mask
        if rt.is_masked:
            if mask is None:
                # an extent the tile does not divide, or a mode whose tiles an
                # over-provisioned grid (or a dynamic coordinate) may take past the end
                # no check where no block can leave the mode: a constant grid within it,
                # or a block id over a view of as many rows as the grid has (`covers_grid`)
                bounds = [
                    None if covers_grid(op, k)
                    else bd if bd is not None
                    or (lim is not None and isinstance(n, int) and lim <= n // t)
                    else n
                    for k, (bd, lim, t, n) in enumerate(zip(
                        _uneven_bounds(b, sv.layout, tile), limits, tile,
                        [_mode_size(b, m) for m in sv.layout]))
                ]
                mask = views.MaskMap(
                    [b.mul_(c, t) for c, t in zip(coords, tile)], [1] * len(tile), [1] * len(tile), bounds)
            else:
                mask = _map_mask(mask, lambda m: views.MaskMap(
                    [b.add_(o, b.mul_(s, b.mul_(c, t))) for o, s, c, t in zip(m.off, m.scale, coords, tile)],
                    m.scale, m.lscale, m.bound))
        self.values.set_view(op.result, replace(sv, layout=new_modes, mask=mask, **self._shift(sv, base)))

    @lowers(layout.VectorizeOp)
    def op_layout_vectorize(self, op: layout.VectorizeOp):
        b = self.b
        sv: View = self.values.view(op.source)
        rt: TensorViewType = op.result.type
        vecs = op.vector_sizes
        if _is_static(sv.layout):
            outer, inner = _value_layout(rt.cute_layout), _value_layout(rt.vec_layout)
        else:
            outer, inner = [], []
            for m, v in zip(sv.layout, vecs):
                if len(m) != 1 or not isinstance(m[0][0], int):
                    raise _fail(op, "vectorizing a hierarchical or dynamic-extent mode with dynamic strides is not supported")
                n, d = m[0]
                outer.append([(n // v, b.mul_(d, v))])
                inner.append([(v, d)])
        mask = sv.mask
        if mask is not None:
            mask = _map_mask(mask, lambda m: views.MaskMap(
                m.off, [s * v for s, v in zip(m.scale, vecs)], list(m.scale), m.bound))
        self.values.set_view(op.result, replace(sv, layout=outer, vec=inner, mask=mask))

    @lowers(layout.DistributeOp)
    def op_layout_distribute(self, op: layout.DistributeOp):
        b = self.b
        sv: View = self.values.view(op.source)
        rt: TensorViewType = op.result.type
        thr = op.thread_layout
        tid = self.values.index(op.tid)
        lim = coord_limit(op.tid, op)
        if lim is not None and lim > thr.size():
            raise _fail(
                op,
                f"the thread id takes {lim} values but the thread layout {thr} has "
                f"{thr.size()} threads (the CPU executor refuses the others too): "
                f"distribute by the id within a group of {thr.size()} threads "
                f"(tid % {thr.size()}) or by a thread layout of {lim} threads",
            )
        tco = views.thread_coord(thr, tid)
        counts = [t.size() for t in views.modes(thr)]
        base = sv.base if sv.swizzle is None else 0
        for m, c in zip(sv.layout, tco):
            base = b.add_(base, _eval_mode(b, m, c))
        if _is_static(sv.layout):
            new = _value_layout(rt.cute_layout)
        else:
            new = []
            for m, t in zip(sv.layout, counts):
                if len(m) != 1 or not isinstance(m[0][0], int):
                    raise _fail(op, "distributing a hierarchical mode with dynamic strides is not supported")
                n, d = m[0]
                new.append([(-(-n // t), b.mul_(d, t))])
        mask = sv.mask
        if rt.is_masked:
            bounds = _uneven_bounds(b, sv.layout, counts)
            local = views.MaskMap(list(tco), list(counts), [0] * len(counts), bounds)
            if mask is None:
                mask = local
            else:
                mask = _map_mask(mask, lambda m: views.MaskMap(
                    [b.add_(o, b.mul_(s, c)) for o, s, c in zip(m.off, m.scale, tco)],
                    [s * t for s, t in zip(m.scale, counts)], m.lscale, m.bound))
                if any(n is not None for n in bounds):
                    # threads that do not divide the view's extents: its own extents
                    # bound the fragment too, not only the tensor it was tiled from
                    mask = mask.conjoin(local)
        if lim is None:
            # a thread id of unknown range: threads past the layout own nothing (the
            # CPU executor refuses them)
            r = len(new)
            guard = views.MaskMap([tid] + [0] * (r - 1), [0] * r, [0] * r, [thr.size()] + [None] * (r - 1))
            mask = guard if mask is None else mask.conjoin(guard)
        self.values.set_view(op.result, replace(sv, layout=new, mask=mask, **self._shift(sv, base)))

    @lowers(layout.SliceOp)
    def op_layout_slice(self, op: layout.SliceOp):
        b = self.b
        sv: View = self.values.view(op.source)
        it = iter(op.coords)
        # a swizzled view: the fixed coordinates' offset goes inside the swizzle (_shift)
        base = sv.base if sv.swizzle is None else 0
        kept = []
        for leaf in op.leaves(op.source.type.cute_layout):
            m = sv.layout[leaf.top][leaf.lo : leaf.hi]
            if leaf.p == layout.WILDCARD:
                kept.append(m)
                continue
            c = self.values.index(next(it)) if leaf.p == layout.DYNAMIC else leaf.p
            base = b.add_(base, _eval_mode(b, m, c))
        # one top-level mode per `_`, as the result type has (views.sliced_layout)
        self.values.set_view(op.result, replace(sv, layout=kept, **self._shift(sv, base)))

    @lowers(layout.DivideOp, layout.ComposeOp)
    def op_relayout(self, op: layout.DivideOp | layout.ComposeOp):
        """A divide or a composition: the same storage and base, the result type's layout."""
        sv: View = self.values.view(op.source)
        self._need_plain(op, sv)
        if not _is_static(sv.layout):
            what = op.name.removeprefix("layout.")
            raise _fail(op, f"{what} of a view with dynamic values is not supported")
        self.values.set_view(op.result, replace(sv, layout=_value_layout(op.result.type.cute_layout)))

    @lowers(layout.PartitionOp)
    def op_layout_partition(self, op: layout.PartitionOp):
        b = self.b
        sv: View = self.values.view(op.source)
        self._need_plain(op, sv)
        if not _is_static(sv.layout):
            raise _fail(op, "partition of a view with dynamic values is not supported")
        tv = op.tv.data
        tid = self.values.index(op.tid)
        thr_mode = _value_layout(tv[0])[0] if tv[0].rank() <= 1 else [leaf for m in _value_layout(tv[0]) for leaf in m]
        logical = _eval_mode(b, thr_mode, tid)
        base = b.add_(sv.base, _eval_coords(b, sv.layout, _mode_coords(b, sv.layout, logical)))
        self.values.set_view(op.result, replace(sv, base=base, layout=_value_layout(op.result.type.cute_layout)))

