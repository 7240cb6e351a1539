"""`layout.thread_idx` / `layout.global_idx` (dialects/thread_ids.py) on the simulator:
the launch runs with its block shape, so each thread's coordinates are the grid's."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import thread_ids as ti

from .errors import ExecutionError
from .executor import ReferenceInterpreter


def _grid(interp: ReferenceInterpreter, op):
    if interp.grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
    return interp.grid


@register_impls
class ThreadIdFunctions(InterpreterFunctions):
    @impl(ti.ThreadIdxOp)
    def run_thread_idx(self, interp: ReferenceInterpreter, op: ti.ThreadIdxOp, args):
        return (_grid(interp, op).thread_id[op.axis].copy(),)

    @impl(ti.GlobalIdxOp)
    def run_global_idx(self, interp: ReferenceInterpreter, op: ti.GlobalIdxOp, args):
        g = _grid(interp, op)
        return (g.block_id[op.axis] * g.block[op.axis] + g.thread_id[op.axis],)
