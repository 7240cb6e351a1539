"""`layout.print` and `cuda.printf` on the simulator: the text goes to stdout.

`layout.print` reads the view as thread 0 of block 0 sees it (when that thread is
active at the op) and writes `layout_print.render` of its values; `cuda.printf` formats
its values for each active thread, threads in order (on a GPU the order of different
threads' lines is not defined; the `layout.print` lowering guards it to one thread).
Both use the C conversions that Python's `%` shares with printf, so the two levels
print the same text."""

from __future__ import annotations

import sys

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import cuda
from tilec.dialects import layout_print as lp

from .executor import ReferenceInterpreter, _grid
from .layout_impls import Access, _dist_rank, _view, element_keys, geometry, ownership
from .memory import load
from .values import per_thread, to_compute


def _active(grid, t: int) -> bool:
    return grid.mask is None or bool(grid.mask[t])


def _print_distributed(grid, op, t: TensorType, value) -> None:
    """Block 0's threads that are active at the op print their held elements."""
    block = np.asarray(value)[0] if _dist_rank(value, t) else np.asarray(value)
    block = to_compute(block, t.element_type)
    coords, held = ownership(t.encoding, tuple(t.get_shape()))
    active = np.ones(coords.shape[0], bool) if grid.mask is None else grid.mask[: coords.shape[0]]
    if not active.any():
        return
    sys.stdout.write(lp.render_distributed(t, block, coords, held & active[:, None]))


@register_impls
class PrintFunctions(InterpreterFunctions):
    @impl(lp.PrintOp)
    def run_print(self, interp: ReferenceInterpreter, op: lp.PrintOp, args):
        grid = _grid(interp, op)
        t = op.source.type
        if isinstance(t, TensorType):
            _print_distributed(grid, op, t, args[0])
            return ()
        if not _active(grid, 0):
            return ()
        view = _view(op, args[0])
        first = np.zeros(1, np.int64)
        geom = geometry(view.layout, view.vec)
        keys = element_keys(op, grid, view, Access(first, first), geom.offsets, None, "reads")
        vals = load(op, grid, view, np.zeros(keys.size, np.int64), keys.ravel())
        vals = to_compute(vals, view.type.element_type)
        sys.stdout.write(lp.render(view.type, vals))
        return ()

    @impl(cuda.PrintfOp)
    def run_printf(self, interp: ReferenceInterpreter, op: cuda.PrintfOp, args):
        grid = _grid(interp, op)
        n = len(grid.block_of)
        cols = [per_thread(a, v.type, n) for a, v in zip(args, op.values)]
        fmt = op.format.data
        for t in grid.active_tids():
            sys.stdout.write(fmt % tuple(lp.py_scalar(c[t]) for c in cols))
        return ()
