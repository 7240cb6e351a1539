"""Tile iterators (dialects/layout_iter.py) on the simulator.

An iterator is its origin (the view it walks and how) and a position, one per thread
(an int, or int64 [T] inside a launch). `iter_get` takes the tile at the position the
way `layout.tile` does (tiled iterators) or at `position * cosize(tile)` of the buffer
(buffer iterators); a circular iterator wraps the position around its tiles, any other
reports a position outside them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from tilec.dialects import layout_iter as li

from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .layout_impls import View, _norm, _view, tile_view
from .simt import first_offender


@dataclass(frozen=True)
class IterValue:
    origin: li.TiledIteratorOp | li.BufferIteratorOp
    source: View
    coords: tuple  # a tiled iterator's start coordinates (per thread)
    pos: Any  # int, or int64 [T]

    def at(self, pos: Any) -> IterValue:
        return replace(self, pos=pos)


def _position(op: Operation, it: IterValue, interp: ReferenceInterpreter) -> Any:
    """The iterator's position among its tiles: wrapped if circular, else checked."""
    n = it.origin.tile_count()
    pos = np.asarray(it.pos, dtype=np.int64)
    if it.origin.is_circular:
        pos = np.mod(pos, n)
    elif isinstance(it.origin, li.BufferIteratorOp):
        bad = (pos < 0) | (pos >= n)
        grid = interp.grid
        if (i := first_offender(grid, bad)) is not None:
            who = f"{grid.describe_thread(i)}: " if grid is not None and np.ndim(bad) else ""
            p = int(pos[i]) if np.ndim(pos) else int(pos)
            raise ExecutionError(op, f"{who}iterator position {p} is outside its {n} tiles "
                                     "(a `circular` iterator wraps around)")
    return _norm(pos)


@register_impls
class IterFunctions(InterpreterFunctions):
    @impl(li.TiledIteratorOp)
    def run_tiled_iterator(self, interp: ReferenceInterpreter, op: li.TiledIteratorOp, args):
        src, *coords = args
        return (IterValue(op, _view(op, src), tuple(coords), 0),)

    @impl(li.BufferIteratorOp)
    def run_buffer_iterator(self, interp: ReferenceInterpreter, op: li.BufferIteratorOp, args):
        return (IterValue(op, _view(op, args[0]), (), 0),)

    @impl(li.IterNextOp)
    def run_iter_next(self, interp: ReferenceInterpreter, op: li.IterNextOp, args):
        it, *off = args
        step = np.asarray(off[0], dtype=np.int64) if off else 1
        return (it.at(_norm(np.asarray(it.pos, dtype=np.int64) + step)),)

    @impl(li.IterGetOp)
    def run_iter_get(self, interp: ReferenceInterpreter, op: li.IterGetOp, args):
        (it,) = args
        if not isinstance(it, IterValue):
            raise ExecutionError(op, f"expected an iterator, got {type(it).__name__}")
        pos = _position(op, it, interp)
        rt = op.result.type
        o = it.origin
        if isinstance(o, li.TiledIteratorOp):
            coords = list(it.coords)
            coords[o.axis_value] = np.asarray(coords[o.axis_value], dtype=np.int64) + pos
            return (tile_view(interp, op, it.source, [_norm(c) for c in coords], o.tile_sizes, rt),)
        v = it.source
        return (View(v.storage, _norm(v.base + np.asarray(pos, dtype=np.int64) * o.step), o.tile_layout,
                     None, None, rt, v.align),)
