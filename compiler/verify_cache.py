"""Verification of single ops, remembering what already passed.

Contract: `verify_op(op)` raises exactly when `op.verify(verify_nested_ops=False)`
raises (it calls that whenever it cannot show the answer is a pass) and returns None
otherwise. `compiler/pipeline.verify_module` uses it after every pass.

`state(module)` is everything of a module that verification reads (below); two equal
states verify alike, so `compiler/pipeline.run_pipeline` does not verify again a module
whose state after a pass is the state it verified in after the pass before (most passes
of a pipeline leave most programs as they were: 22 of the default pipeline's 27 leave the
3000 x 5000 x 7000 GEMM's 500 ops as they were, and verifying them again after each was
0.7 of its passes' 1.16 s on the H200's host).

The GPU-level IR is mostly thousands of ops of a few classes (arith index arithmetic,
vector/memref loads and stores) that differ only in their operands. For the classes in
`_SIGNATURE_ONLY`, xDSL 0.74's verification (IRDL constraints, the traits' `verify`, the
class's own `verify_`; reviewed) reads nothing but the op's class, its operand and
result types, its properties and its attributes: an op whose signature (that tuple)
already passed passes again. The structural checks of `Operation.verify` (erased
operands, successors, terminators) depend on the op's place instead, so only an op
that has no regions, no successors, no erased operand and is not the last op of its
block is answered from the cache. A failure is never cached: it is always found, and
reported, by xDSL's own verifier."""

from __future__ import annotations

from xdsl.dialects import arith, memref, vector
from xdsl.ir import ErasedSSAValue, Operation
from xdsl.traits import OpTrait

_SIGNATURE_ONLY: frozenset[type[Operation]] = frozenset(
    {
        arith.ConstantOp,
        arith.AddiOp,
        arith.SubiOp,
        arith.MuliOp,
        arith.DivUIOp,
        arith.DivSIOp,
        arith.RemUIOp,
        arith.RemSIOp,
        arith.AndIOp,
        arith.OrIOp,
        arith.XOrIOp,
        arith.ShLIOp,
        arith.ShRUIOp,
        arith.ShRSIOp,
        arith.CmpiOp,
        arith.SelectOp,
        vector.ExtractOp,
        vector.InsertOp,
        vector.BroadcastOp,
        vector.LoadOp,
        vector.StoreOp,
        memref.LoadOp,
        memref.StoreOp,
    }
)
"""Op classes whose verification reads only (class, operand types, result types,
properties, attributes)."""

_MAX_ENTRIES = 1 << 16
_passed: set[tuple] = set()
_checked: dict[type, bool] = {}


def _cacheable_class(cls: type[Operation]) -> bool:
    """In `_SIGNATURE_ONLY`, and still with only the traits reviewed: traits whose
    `verify` is the default one or an interface trait's (which returns at once)."""
    ok = _checked.get(cls)
    if ok is None:
        ok = cls in _SIGNATURE_ONLY and all(
            type(t).verify is OpTrait.verify
            or type(t).__name__ in ("_HasFolderInterfaceTrait", "_ConditionallySpeculatableInterfaceTrait")
            for t in cls.traits
        )
        _checked[cls] = ok
    return ok


def state(module: Operation) -> list[tuple]:
    """What verification reads of `module`, op by op in walk order: the op itself (its
    class; the object, held, so that no other op can take its place), its block, its
    operands (the value objects: their owners are ops or blocks of this list), its
    results' types, properties, attributes and successors, and its regions' blocks with
    their arguments' types. Attributes are immutable, so the references say their
    values; the values' types are read as well (xDSL keeps them in a field a rewrite
    could set). Compared with `==` (identical objects compare equal at once)."""
    return [
        (
            op,
            op.parent,
            tuple(op.operands),
            tuple([r.type for r in op.results]),
            tuple(op.properties.items()),
            tuple(op.attributes.items()),
            tuple(op.successors),
            tuple([tuple([(b, tuple([a.type for a in b.args])) for b in r.blocks]) for r in op.regions]),
        )
        for op in module.walk()
    ]


def clear() -> None:
    """Forget every signature (what a fresh process starts with)."""
    _passed.clear()


def verify_op(op: Operation) -> None:
    """`op.verify(verify_nested_ops=False)`, answered from the cache where it can be."""
    cls = type(op)
    key = None
    if (
        _cacheable_class(cls)
        and not op.regions
        and not op.successors
        and (op.parent is None or op.parent.last_op is not op)
        and not any(isinstance(v, ErasedSSAValue) for v in op.operands)
    ):
        try:
            key = (
                cls,
                tuple([v.type for v in op.operands]),
                tuple([r.type for r in op.results]),
                tuple(op.properties.items()),
                tuple(op.attributes.items()),
            )
            if key in _passed:
                return
        except TypeError:  # an unhashable attribute: no caching
            key = None
    op.verify(verify_nested_ops=False)
    if key is not None:
        if len(_passed) >= _MAX_ENTRIES:
            _passed.clear()
        _passed.add(key)
