"""tilec's `canonicalize` (passes/_canonicalize.py) on small GPU-level functions: the
fast path (dead ops erased, constants moved right by xDSL's own pattern) leaves the IR
xDSL's `CanonicalizePass` leaves, also where the swapped op carries properties (an
overflow flag the swap drops, as xDSL's pattern does), and reports the ops to verify."""

from __future__ import annotations

from xdsl.transforms.canonicalize import CanonicalizePass

from tilec.compiler.pipeline import make_context, parse_module
from tilec.passes._canonicalize import Canonicalize, _scan

SWAPS = """
func.func @f(%x: index, %y: index, %m: memref<4xindex>) {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %a = arith.addi %c3, %x overflow<nsw> : index
  %b = arith.muli %c5, %y : index
  %dead = arith.addi %a, %b : index
  %dead2 = arith.muli %dead, %x : index
  %s = arith.subi %c3, %y : index
  %c0 = arith.constant 0 : index
  memref.store %a, %m[%c0] : memref<4xindex>
  memref.store %b, %m[%c0] : memref<4xindex>
  memref.store %s, %m[%c0] : memref<4xindex>
  func.return
}
"""


def test_fast_path_equals_xdsl_canonicalize():
    ours, theirs = parse_module(SWAPS), parse_module(SWAPS)
    assert _scan(ours) is not None  # the fast path applies
    touched = Canonicalize().apply_tracked(make_context(), ours)
    CanonicalizePass().apply(make_context(), theirs)
    assert str(ours) == str(theirs)
    text = str(ours)
    assert "%dead" not in text and "arith.addi %x, %c3 : index" in text and "arith.muli %y, %c5" in text
    assert "arith.subi %c3, %y" in text  # not commutative: stays
    names = sorted(o.name for o in touched)
    assert names == ["arith.addi", "arith.muli", "func.func"]  # the two swapped ops, the erased ops' parent
