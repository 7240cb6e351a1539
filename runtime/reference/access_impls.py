"""`layout.read` / `layout.write` (dialects/layout_access.py) on the simulator.

Each active thread (the one thread of the host level outside a launch) accesses the
element at its own coordinate. The coordinate becomes one 1-D index per top-level mode,
checked against the mode's extent; the element's lanes (a vectorized view) lie at
`base + layout(c) + vec(j)` (swizzled as the view says); an element that the view's
mask puts outside its tensor is an error, as is any address outside the storage."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from tilec.dialects import views
from tilec.dialects import layout_access as la
from tilec.dialects.swizzle import ComposedLayout

from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .layout_impls import Access, View, _grid, _view, element_keys, mask_valid
from .memory import SHARED, load, store
from .memory_impls import scatter, thread_values
from .values import dtype_of


def _mode_indices(op: Operation, view: View, coords: list[np.ndarray]) -> list[np.ndarray]:
    """One 1-D index per top-level mode of the view (arrays [k]), from the op's
    coordinate in any of its forms; an index outside its mode is an error."""
    inner = view.inner
    ms = views.modes(inner)
    profile = la.profile_of(op)  # type: ignore[arg-type]
    form = "nested" if profile else la.coordinate_form(view.type.cute_layout, len(coords))
    if form == "nested":
        for k, n in enumerate(la.nested_leaf_sizes(view.type.cute_layout, profile)):
            bad = (coords[k] < 0) | (n is not None and coords[k] >= n)
            if np.any(bad):
                raise ExecutionError(op, f"index {int(coords[k][np.argmax(bad)])} of the nested coordinate is out "
                                         f"of range for its sub-mode of {n} elements ({view.type})")
        idx = [sum((coords[k] * w for k, w in terms), np.zeros_like(coords[0]))
               for terms in la.nested_mode_terms(view.type.cute_layout, profile)]
    elif form == "modes":
        idx = list(coords)
    elif form == "linear":
        (i,) = coords
        if np.any((i < 0) | (i >= int(inner.size()))):
            raise ExecutionError(op, f"index {int(i.ravel()[0])} out of range for a view of {inner.size()} elements")
        idx = [np.asarray(c, dtype=np.int64) for c in views.mode_coords(inner, i)]
    else:
        idx, k = [], 0
        for ws in la.leaf_multipliers(view.type.cute_layout):
            idx.append(sum(coords[k + j] * w for j, w in enumerate(ws)))
            k += len(ws)
    for d, (m, i) in enumerate(zip(ms, idx)):
        bad = (i < 0) | (i >= int(m.size()))
        if np.any(bad):
            raise ExecutionError(op, f"coordinate {int(i[np.argmax(bad)])} out of range for mode {d} "
                                     f"({m}) of the view {view.type}")
    return idx


def _keys(interp: ReferenceInterpreter, op: Operation, view: View, coord_args: list[Any], verb: str):
    """(grid, access, keys [k, lanes]) of the element each active thread addresses."""
    grid = _grid(interp)
    tids = grid.active_tids()
    coords = [np.asarray(thread_values(grid, tids, c, None), dtype=np.int64).reshape(-1) for c in coord_args]
    idx = _mode_indices(op, view, coords)
    off: Any = np.zeros(tids.shape, np.int64)
    for m, i in zip(views.modes(view.inner), idx):
        off = off + np.asarray(views.eval_mode(m, i), dtype=np.int64)
    n = 1 if view.vec is None else int(view.vec.size())
    lane = np.arange(n, dtype=np.int64)
    off = off[:, None] + (np.asarray(views.eval_layout(view.vec, lane), dtype=np.int64) if view.vec is not None else 0)
    width = la.width_of(op)
    if width is not None:  # Mojo's load[N](x, y): N elements along the contiguous mode
        k = la.contiguous_mode(view.type.cute_layout)
        extent = int(views.modes(view.inner)[k].size())
        bad = idx[k] + width > extent
        if np.any(bad):
            r = int(np.argmax(bad))
            raise ExecutionError(op, f"{grid.describe_thread(tids[r])} {verb} {width} contiguous elements from "
                                     f"index {int(idx[k][r])} of mode {k}, which has {extent}: the last lie "
                                     "past the mode", thread=int(tids[r]))
        n = width
        off = off + np.arange(width, dtype=np.int64)[None, :]
    if isinstance(view.layout, ComposedLayout):
        off = np.asarray(view.layout.swizzle.apply(view.layout.offset + off), dtype=np.int64)
    acc = Access(tids, tids)
    lanes = None
    if view.vec is not None:
        lanes = tuple(np.asarray(c, dtype=np.int64)[None, :] for c in views.mode_coords(view.vec, lane))
    valid = mask_valid(view.mask, tids, [i[:, None] for i in idx], lanes)
    if valid is not None and not np.all(valid):
        r = int(np.argmax(~np.broadcast_to(valid, off.shape).all(axis=1)))
        raise ExecutionError(op, f"{grid.describe_thread(tids[r])} {verb} an element of {view.type} "
                                 f"that lies outside its tensor (coordinate {[int(i[r]) for i in idx]})",
                             thread=int(tids[r]))
    # element_keys takes offsets from each actor's base: per-thread offsets [k, n]
    keys = element_keys(op, grid, view, acc, np.zeros(n, np.int64), None, verb) + off
    base = np.asarray(view.storage.base(grid, tids)).reshape(-1, 1)
    rel = keys - base
    bad = (rel < 0) | (rel >= view.storage.size)
    if np.any(bad):
        r, e = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise ExecutionError(op, f"out-of-bounds access: {grid.describe_thread(tids[r])} {verb} element "
                                 f"{int(rel[r, e])} of {view.name}, which has {view.storage.size} elements",
                             thread=int(tids[r]), index=int(rel[r, e]))
    return grid, acc, keys


@register_impls
class AccessFunctions(InterpreterFunctions):
    @impl(la.ReadOp)
    def run_read(self, interp: ReferenceInterpreter, op: la.ReadOp, args):
        view = _view(op, args[0])
        grid, acc, keys = _keys(interp, op, view, list(args[1:]), "reads")
        rows = np.broadcast_to(acc.actors[:, None], keys.shape)
        vals = load(op, grid, view, rows.ravel(), keys.ravel()).reshape(keys.shape)
        vals = vals.astype(dtype_of(view.type.element_type), copy=False)
        out = vals if view.vec is not None or la.width_of(op) is not None else vals[:, 0]
        if interp.grid is None:
            return (out[0],)
        return (scatter(grid, acc.actors, out),)

    @impl(la.WriteOp)
    def run_write(self, interp: ReferenceInterpreter, op: la.WriteOp, args):
        value, v, *coords = args
        view = _view(op, v)
        grid, acc, keys = _keys(interp, op, view, coords, "writes")
        vals = np.asarray(thread_values(grid, acc.actors, value, op.value.type)).reshape(keys.shape)
        rows = np.broadcast_to(acc.actors[:, None], keys.shape)
        store(op, grid, view, rows.ravel(), keys.ravel(), vals.ravel())
        return ()

    @impl(la.CopyChunkAsyncOp)
    def run_copy_chunk_async(self, interp: ReferenceInterpreter, op: la.CopyChunkAsyncOp, args):
        """Each active thread reads its chunk of the source when it issues the copy and
        marks its destination chunk pending (the launch's cp.async state); the copy
        commits one group (or none: `uncommitted`), and lands at a `layout.async_wait`
        that covers it."""
        if interp.grid is None or interp.async_copies is None:
            raise ExecutionError(op, "layout.copy_chunk_async outside a layout.launch")
        ns = len(op.src_coords)
        src, dst = _view(op, args[0]), _view(op, args[1 + ns])
        if dst.storage.space != SHARED:
            raise ExecutionError(op, f"copy_chunk_async to {dst.name}, which is not shared memory")
        grid, acc, skeys = _keys(interp, op, src, list(args[1:1 + ns]), "reads")
        _, _, dkeys = _keys(interp, op, dst, list(args[2 + ns:]), "writes")
        rows = np.broadcast_to(acc.actors[:, None], skeys.shape)
        values = load(op, grid, src, rows.ravel(), skeys.ravel()).reshape(skeys.shape)
        sel = np.ones(dkeys.shape, bool)
        interp.async_copies.issue(op, dst.storage, acc.actors, dkeys, values, sel, acc.actors)
        if op.uncommitted is None:
            interp.async_copies.commit(grid.active_tids())  # each call commits one group
        return ()

    @impl(la.DimOp)
    def run_dim(self, interp: ReferenceInterpreter, op: la.DimOp, args):
        view = _view(op, args[0])
        size = int(views.modes(view.inner)[op.axis].size())
        return (views.valid_extent(size, view.mask, op.axis),)
