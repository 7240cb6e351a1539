"""Identity tensors (dialects/layout_identity.py) on the simulator.

`layout.make_identity_tensor` is a view of no memory (an empty storage): the view ops
transform it as any view, and no access reaches it (the verifier refuses them).
`layout.read_coord` computes each thread's coordinate with the dialect's
`coordinates`, on NumPy: the tile coordinates, thread ids and slice indices of the
view ops between the identity tensor and the read are read from the interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import layout_identity as li
from tilec.dialects import views

from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .layout_impls import View, _bind, _uniform_int
from .memory import GLOBAL, Storage


def _value(x: Any) -> Any:
    a = np.asarray(x, dtype=np.int64)
    return int(a) if a.ndim == 0 else a


@register_impls
class IdentityFunctions(InterpreterFunctions):
    @impl(li.MakeIdentityTensorOp)
    def run_make_identity_tensor(self, interp: ReferenceInterpreter, op: li.MakeIdentityTensorOp, args):
        extents = [_uniform_int(op, v, "an extent of an identity tensor") for v in args]
        if any(e < 1 for e in extents):
            raise ExecutionError(op, f"the extents of an identity tensor are positive, got {extents}")
        it = iter(extents)
        shape = [next(it) if s is li.cute.DYN else s for s in op.shape]
        t = op.result.type
        # the layout's `?` values in order: the extents, then the strides they make
        bound = li.identity_layout(shape)
        strides = [d for (_, d), (_, want) in zip(views._flat(bound), views._flat(t.cute_layout))
                   if want is li.cute.DYN]
        lay = _bind(t.cute_layout, [*extents, *strides])
        hint = op.result.name_hint
        st = Storage(f"%{hint}" if hint else "identity tensor", GLOBAL, np.zeros(0, np.int64), 0)
        return (View(st, 0, lay, None, None, t, 1),)

    @impl(li.ReadCoordOp)
    def run_read_coord(self, interp: ReferenceInterpreter, op: li.ReadCoordOp, args):
        root, chain = li.identity_chain(op.view)
        coords = li.coordinates(root, chain, lambda v: _value(interp.get_values([v])[0]), op.view.type,
                                [_value(a) for a in args[1:]])
        return tuple(_value(c) for c in coords)
