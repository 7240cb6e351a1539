"""tilec's `canonicalize` (passes/_canonicalize.py) on small GPU-level functions: the
fast path (dead ops erased, constants moved right by xDSL's own pattern) leaves the IR
xDSL's `CanonicalizePass` leaves, also where the swapped op carries properties (an
overflow flag the swap drops, as xDSL's pattern does), and reports the ops to verify."""

from __future__ import annotations

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Region
from xdsl.transforms.canonicalize import CanonicalizePass

from tilec.compiler.pipeline import make_context
from tilec.passes._canonicalize import Canonicalize, _scan

def swaps() -> ModuleOp:
    """@f(%x, %y: index, %m: memref<4xindex>): `3 + x` (nsw) and `5 * y` with the
    constant on the left, two dead ops, `3 - y` (not commutative), three stores."""
    idx = IndexType()
    block = Block(arg_types=[idx, idx, MemRefType(idx, [4])])
    x, y, m = block.args
    x.name_hint, y.name_hint, m.name_hint = "x", "y", "m"

    def add(op, name=None):
        block.add_op(op)
        if name:
            op.results[0].name_hint = name
        return op.results[0] if op.results else None

    c3 = add(arith.ConstantOp(IntegerAttr(3, idx)), "c3")
    c5 = add(arith.ConstantOp(IntegerAttr(5, idx)), "c5")
    a = add(arith.AddiOp(c3, x, overflow=arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])), "a")
    b = add(arith.MuliOp(c5, y), "b")
    dead = add(arith.AddiOp(a, b), "dead")
    add(arith.MuliOp(dead, x), "dead2")
    s = add(arith.SubiOp(c3, y), "s")
    c0 = add(arith.ConstantOp(IntegerAttr(0, idx)), "c0")
    for v in (a, b, s):
        add(memref.StoreOp.get(v, m, [c0]))
    add(func.ReturnOp())
    module = ModuleOp([func.FuncOp("f", ([idx, idx, MemRefType(idx, [4])], []), Region(block))])
    module.verify()
    return module


def test_fast_path_equals_xdsl_canonicalize():
    ours, theirs = swaps(), swaps()
    assert _scan(ours) is not None  # the fast path applies
    touched = Canonicalize().apply_tracked(make_context(), ours)
    CanonicalizePass().apply(make_context(), theirs)
    assert str(ours) == str(theirs)
    text = str(ours)
    assert "%dead" not in text and "arith.addi %x, %c3 : index" in text and "arith.muli %y, %c5" in text
    assert "arith.subi %c3, %y" in text  # not commutative: stays
    names = sorted(o.name for o in touched)
    assert names == ["arith.addi", "arith.muli", "func.func"]  # the two swapped ops, the erased ops' parent
