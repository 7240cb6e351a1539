"""`layout.rank/depth/size/cosize` (dialects/layout_query.py) on the simulator: the
answer for the view's run-time layout (its `?` bound), the same for every thread.
`layout.static_assert` (dialects/layout_static_assert.py) does nothing: the verifier
proved it."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import layout_query as lq
from tilec.dialects import layout_static_assert as lsa

from .executor import ReferenceInterpreter
from .layout_impls import _view


def _run(op: lq.QueryOp, v) -> tuple[int]:
    lay = lq.queried(_view(op, v).inner, op.mode_index)
    return (int(lq.answer(op.KIND, lay)),)


@register_impls
class QueryFunctions(InterpreterFunctions):
    @impl(lq.RankOp)
    def run_rank(self, interp: ReferenceInterpreter, op: lq.RankOp, args):
        return _run(op, args[0])

    @impl(lq.DepthOp)
    def run_depth(self, interp: ReferenceInterpreter, op: lq.DepthOp, args):
        return _run(op, args[0])

    @impl(lq.SizeOp)
    def run_size(self, interp: ReferenceInterpreter, op: lq.SizeOp, args):
        return _run(op, args[0])

    @impl(lq.CosizeOp)
    def run_cosize(self, interp: ReferenceInterpreter, op: lq.CosizeOp, args):
        return _run(op, args[0])

    @impl(lsa.StaticAssertOp)
    def run_static_assert(self, interp: ReferenceInterpreter, op: lsa.StaticAssertOp, args):
        return ()
