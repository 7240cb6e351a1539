"""What `lower-to-gpu` settles before lowering kernels: `layout.static_assert`s are
erased (the verifier proved them), with the ops computing their conditions once
nothing else uses them; a `layout.rank/depth/size/cosize` outside a launch whose answer
is static becomes an `arith.constant`, one whose value nothing uses is erased (inside a
launch the kernel lowering answers); `layout.make_tensor_like/make_fragment_like`
become the `layout.alloc` of their type."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from tilec.dialects import layout
from tilec.dialects.layout_like import LIKE_OPS
from tilec.dialects.layout_query import QueryOp
from tilec.dialects.layout_static_assert import StaticAssertOp


def _in_launch(op: Operation) -> bool:
    p = op.parent_op()
    while p is not None and not isinstance(p, layout.LaunchOp):
        p = p.parent_op()
    return p is not None


def _erase_unused(op: Operation | None) -> None:
    """Erase `op` and, in turn, the ops that only it used, when they are conditions'
    arithmetic or queries (no effects)."""
    if op is None or not isinstance(op, QueryOp | arith.ConstantOp | arith.CmpiOp | arith.AddiOp | arith.SubiOp
                                    | arith.MuliOp | arith.DivSIOp | arith.RemSIOp | arith.AndIOp
                                    | arith.OrIOp | arith.XOrIOp | arith.IndexCastOp | arith.ExtSIOp
                                    | arith.ExtUIOp):
        return
    if any(r.uses for r in op.results):
        return
    owners = [o.owner for o in op.operands]
    op.detach()
    op.erase()
    for o in owners:
        _erase_unused(o if isinstance(o, Operation) else None)


def settle_compile_time(module: ModuleOp) -> None:
    for like in [o for o in module.walk() if isinstance(o, LIKE_OPS)]:
        Rewriter.replace_op(like, layout.AllocOp(like.result.type))
    for a in [o for o in module.walk() if isinstance(o, StaticAssertOp)]:
        cond = a.condition.owner
        a.detach()
        a.erase()
        _erase_unused(cond if isinstance(cond, Operation) else None)
    host = [o for o in module.walk() if isinstance(o, QueryOp) and not _in_launch(o)]
    derived: list[Operation] = []  # ops computing from host-level queries, in order
    seen: set[Operation] = set()
    for o in module.walk():
        if o in host or any(isinstance(x.owner, Operation) and x.owner in seen for x in o.operands):
            if isinstance(o, QueryOp) or o in host or not _in_launch(o):
                seen.add(o)
                derived.append(o)
    for o in reversed(derived):  # what computes only unused values goes
        if o.parent is not None:
            _erase_unused(o)
    for q in [o for o in module.walk() if isinstance(o, QueryOp) and not _in_launch(o)]:
        v = q.static_value()
        if v is not None:
            Rewriter.replace_op(q, arith.ConstantOp(IntegerAttr(v, IndexType())))
