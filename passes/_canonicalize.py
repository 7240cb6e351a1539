"""xDSL's `canonicalize`, fast on the GPU-level IR that `lower-to-gpu` produces.

Contract: `Canonicalize().apply(ctx, module)` leaves `module` exactly as xDSL's
`CanonicalizePass` would (same ops, order, operands, attributes, properties and name
hints, so the same printed MLIR and CUDA), for every input:

- First a read-only scan classifies every op by the canonicalization patterns and the
  folder its class has in xDSL and by its operands. On the IR of the default pipeline
  the only rewrites that apply are (measured over the benchmark cases and examples):
    * erasing trivially dead ops (no used results, no side effects), repeatedly;
    * moving a constant operand to the right of a commutative integer op
      (`SignlessIntegerBinaryOperationConstantProp` builds `type(op)(rhs, lhs)`: no
      attributes, default properties, the old result's name hint).
  The dead ops are erased by a hand-written fixpoint (a global walk, as xDSL's
  `region_dce`); the swaps are xDSL's own pattern, applied by a `PatternRewriter` to
  the ops the scan found (a `PatternRewriteWalker` visiting every op to find them
  costs 50-100 ms on a kernel of 2000 ops, more than the rest of the pass).
- Anything else that could fire (a foldable op: both operands constant, a unit or
  absorbing constant on the right; an `scf.if` on a constant; `cmpi` of a value with
  itself; a float op with a constant operand; an op class with patterns or a folder
  not listed here; a region with several blocks) makes the scan answer "unknown",
  and the generic `CanonicalizePass` runs on the untouched module instead.

`apply_tracked` does the same and returns the ops whose verification may have changed
(the swapped ops and the parents of erased ops), or None after the generic
pass: `compiler/pipeline.run_pipeline` verifies only those again."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, OpResult
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener
from xdsl.traits import (
    Commutative,
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    HasFolder,
)
from xdsl.transforms.canonicalization_patterns.arith import (
    ApplyCmpiPredicateToEqualOperands,
    FoldConstConstOp,
    FoldConstsByReassociation,
    SignlessIntegerBinaryOperationConstantProp,
    SignlessIntegerBinaryOperationZeroOrUnitRight,
)
from xdsl.transforms.canonicalization_patterns.scf import IfPropagateConstantCondition
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.dead_code_elimination import is_trivially_dead

# what canonicalize may do to an op of a class, judged from its patterns and folder
_DCE_ONLY = 0  # no patterns, no folder (or constant-like): only dead-code elimination
_INT_BINARY = 1  # arith integer binary op: folds, zero/unit on the right, constant left
_FLOAT_BINARY = 2  # arith float binary op: folds of constant operands
_CMPI = 3  # arith.cmpi: a comparison of a value with itself
_IF = 4  # scf.if: a constant condition
_UNKNOWN = 5

_INT_PATTERNS = {
    SignlessIntegerBinaryOperationConstantProp,
    SignlessIntegerBinaryOperationZeroOrUnitRight,
}
_FLOAT_PATTERNS = {FoldConstConstOp, FoldConstsByReassociation}

_kinds: dict[type, tuple[int, bool]] = {}


def _kind(cls: type[Operation]) -> tuple[int, bool]:
    """(what canonicalize may do to ops of `cls`, whether `cls` is commutative)."""
    got = _kinds.get(cls)
    if got is None:
        got = _kinds[cls] = (_classify(cls), _has_trait(cls, Commutative))
    return got


def _has_trait(cls: type[Operation], trait: type) -> bool:
    return issubclass(cls, IRDLOperation) and cls.has_trait(trait)


def _classify(cls: type[Operation]) -> int:
    if not issubclass(cls, IRDLOperation):
        return _UNKNOWN  # unregistered ops: xDSL guesses their traits
    patterns = {
        type(p)
        for t in cls.traits
        if isinstance(t, HasCanonicalizationPatternsTrait)
        for p in t.get_patterns(cls)
    }
    folder = _has_trait(cls, HasFolder) and not _has_trait(cls, ConstantLike)
    if not patterns and not folder:
        return _DCE_ONLY
    if (
        issubclass(cls, arith.SignlessIntegerBinaryOperation)
        and patterns <= _INT_PATTERNS
        and cls.fold is arith.SignlessIntegerBinaryOperation.fold
    ):
        return _INT_BINARY
    if folder:
        return _UNKNOWN
    if issubclass(cls, arith.FloatingPointLikeBinaryOperation) and patterns <= _FLOAT_PATTERNS:
        return _FLOAT_BINARY
    if cls is arith.CmpiOp and patterns == {ApplyCmpiPredicateToEqualOperands}:
        return _CMPI
    if cls is scf.IfOp and patterns == {IfPropagateConstantCondition}:
        return _IF
    return _UNKNOWN


_NOT_CONSTANT = object()
_OTHER_CONSTANT = object()


def _constant(v) -> object:
    """The IntegerAttr of an `arith.constant` integer operand, _NOT_CONSTANT for a value
    no constant-like op defines, _OTHER_CONSTANT for any other constant."""
    if not isinstance(v, OpResult):
        return _NOT_CONSTANT
    owner = v.op
    if type(owner) is arith.ConstantOp:
        return owner.value if isinstance(owner.value, IntegerAttr) else _OTHER_CONSTANT
    if _has_trait(type(owner), ConstantLike) or not isinstance(owner, IRDLOperation):
        return _OTHER_CONSTANT
    return _NOT_CONSTANT


def _scan(module: ModuleOp) -> list[Operation] | None:
    """The commutative ops to swap, or None when canonicalize may do anything else
    than swapping those and erasing dead ops."""
    swaps: list[Operation] = []
    for op in module.body.walk():
        kind, commutative = _kind(type(op))
        if kind == _DCE_ONLY:
            pass
        elif kind == _INT_BINARY:
            lhs, rhs = _constant(op.operands[0]), _constant(op.operands[1])
            if lhs is _OTHER_CONSTANT or rhs is _OTHER_CONSTANT:
                return None
            if lhs is _NOT_CONSTANT and rhs is _NOT_CONSTANT:
                pass
            elif lhs is not _NOT_CONSTANT and rhs is not _NOT_CONSTANT:
                return None  # folds
            else:
                c = rhs if lhs is _NOT_CONSTANT else lhs
                if lhs is _NOT_CONSTANT or commutative:
                    # a constant on the right (after the swap): folds away when it is
                    # the op's unit, becomes that constant when absorbing
                    if op.is_right_unit(c) or op.is_right_zero(c):
                        return None
                if lhs is not _NOT_CONSTANT and commutative:
                    swaps.append(op)
        elif kind == _FLOAT_BINARY:
            if any(_constant(v) is not _NOT_CONSTANT for v in op.operands):
                return None
        elif kind == _CMPI:
            if op.operands[0] is op.operands[1] or op.operands[0] == op.operands[1]:
                return None
        elif kind == _IF:
            if _constant(op.cond) is not _NOT_CONSTANT:
                return None
        else:
            return None
        for region in op.regions:
            if len(region.blocks) > 1:
                return None  # region_dce may erase blocks
    return swaps


def _erase_dead(module: ModuleOp, touched: list[Operation]) -> set[Operation]:
    """Erase trivially dead ops until none is left (the fixpoint the greedy driver and
    `region_dce` reach on single-block regions); their parents go to `touched`.
    Returns the erased ops (nested ones included)."""
    work = [op for op in module.body.walk() if all(r.first_use is None for r in op.results)]
    work.reverse()  # (any order reaches the same fixpoint)
    erased: set[Operation] = set()
    while work:
        op = work.pop()
        if op in erased or op.parent is None or not is_trivially_dead(op):
            continue
        defs: list[Operation] = []
        for inner in op.walk():
            erased.add(inner)
            for v in inner.operands:
                if isinstance(v, OpResult):
                    defs.append(v.op)
        parent = op.parent_op()
        op.parent.erase_op(op)
        if parent is not None:
            touched.append(parent)
        for d in defs:
            if d not in erased and all(r.first_use is None for r in d.results):
                work.append(d)
    return erased


class _Touched(PatternRewriterListener):
    """Collects the ops a rewrite inserted (the swapped commutative ops)."""

    def __init__(self):
        super().__init__()
        self.touched: list[Operation] = []
        self.operation_insertion_handler.append(self.touched.append)


class Canonicalize(CanonicalizePass):
    """Applies all canonicalization patterns.

    xDSL's canonicalize; on the IR of the default pipeline it erases dead ops and
    moves constants to the right of commutative ops directly, which gives the same IR
    (passes/_canonicalize.py)."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.apply_tracked(ctx, op)

    def apply_tracked(self, ctx: Context, op: ModuleOp) -> list[Operation] | None:
        """Canonicalize; the ops to verify again, or None: all of them."""
        swaps = _scan(op)
        if swaps is None:
            super().apply(ctx, op)
            return None
        touched: list[Operation] = []
        erased = _erase_dead(op, touched)
        # the constants moved right by xDSL's own pattern, on the ops the scan found
        # (a walker over every op costs more than the rest of the pass: see the module doc)
        seen = _Touched()
        swap = SignlessIntegerBinaryOperationConstantProp()
        for o in swaps:
            if o not in erased:
                rewriter = PatternRewriter(o)
                rewriter.extend_from_listener(seen)
                swap.match_and_rewrite(o, rewriter)
        return [o for o in dict.fromkeys(touched + seen.touched) if o not in erased]
