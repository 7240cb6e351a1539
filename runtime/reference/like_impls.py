"""`layout.make_tensor_like` / `layout.make_fragment_like` (dialects/layout_like.py) on
the simulator: the `layout.alloc` of the result type (registers of each thread)."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import layout_like as ll

from .executor import ReferenceInterpreter
from .layout_impls import LayoutFunctions


@register_impls
class LikeFunctions(InterpreterFunctions):
    @impl(ll.MakeTensorLikeOp)
    def run_make_tensor_like(self, interp: ReferenceInterpreter, op: ll.MakeTensorLikeOp, args):
        return LayoutFunctions.run_alloc(self, interp, op, args).values  # type: ignore[arg-type]

    @impl(ll.MakeFragmentLikeOp)
    def run_make_fragment_like(self, interp: ReferenceInterpreter, op: ll.MakeFragmentLikeOp, args):
        return LayoutFunctions.run_alloc(self, interp, op, args).values  # type: ignore[arg-type]
