"""What the layout-conversion passes share: the linear form of a distributed tensor type,
layout equivalence, the kind of a conversion and the cost model that compares moving
elements between threads with recomputing them.

Costs are in *element operations per block*: one unit is one ALU operation on one register
element of one thread. A conversion through shared memory writes every source register
and reads every destination register (`smem` units each); a warp shuffle costs `shuffle`
units per destination register; a register permutation and an identity cost nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.dialects import layout
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import (
    DistributedLayoutAttr,
    threads_per_block,
    to_linear,
)
from tilec.dialects.linear import LinearLayout, conversion_kind, equivalent


def is_distributed(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayoutAttr)


def with_encoding(t: TensorType, enc: Attribute) -> TensorType:
    """`t` with another distributed layout."""
    return TensorType(t.element_type, t.get_shape(), enc)


@lru_cache(maxsize=4096)
def _linear(enc: Attribute, shape: tuple[int, ...]) -> LinearLayout | None:
    try:
        return to_linear(enc, shape)
    except (LayoutError, ValueError, Exception):  # non power-of-two shapes and the like
        return None


def linear_of(t: TensorType) -> LinearLayout | None:
    """The linear layout of a distributed tensor type (None when it has none)."""
    return _linear(t.encoding, tuple(t.get_shape()))


def same_layout(a: TensorType, b: TensorType) -> bool:
    """Whether two distributed types of one shape place every element identically."""
    if a.encoding == b.encoding:
        return True
    la, lb = linear_of(a), linear_of(b)
    return la is not None and lb is not None and equivalent(la, lb)


def kind_of(src: TensorType, dst: TensorType) -> str:
    """identity | register | warp_shuffle | shared (see `linear.conversion_kind`)."""
    if src.encoding == dst.encoding:
        return "identity"
    la, lb = linear_of(src), linear_of(dst)
    if la is None or lb is None:
        return "shared"
    try:
        return conversion_kind(la, lb)
    except LayoutError:
        return "shared"


def registers(t: TensorType) -> int:
    """Register elements of `t` summed over the threads of a block (copies included)."""
    ll = linear_of(t)
    n = 1
    for s in t.get_shape():
        n *= s
    if ll is None:
        return n
    return ll.num_registers * threads_per_block(t.encoding)


@dataclass(frozen=True)
class CostModel:
    """Units per register element: `alu` per recomputed op, `shuffle` per shuffled
    element, `smem` per element written to or read from shared memory."""

    alu: float = 1.0
    shuffle: float = 2.0
    smem: float = 2.0

    def conversion(self, src: TensorType, dst: TensorType) -> float:
        k = kind_of(src, dst)
        if k in ("identity", "register"):
            return 0.0
        if k == "warp_shuffle":
            return self.shuffle * registers(dst)
        return self.smem * (registers(src) + registers(dst))

    def recompute(self, op: Operation) -> float:
        """Cost of running `op` once more (constants, splats and reshapes are free)."""
        if isinstance(op, arith.ConstantOp | layout.SplatOp | layout.BroadcastOp | layout.ExpandDimsOp):
            return 0.0
        return self.alu * sum(registers(r.type) for r in op.results if is_distributed(r.type))


@dataclass(frozen=True, order=True)
class Cost:
    """What a rewrite costs, compared lexicographically: units, then conversions that
    move data, then identity conversions left in the IR."""

    units: float = 0.0
    moving: int = 0
    identities: int = 0

    def __add__(self, o: Cost) -> Cost:
        return Cost(self.units + o.units, self.moving + o.moving, self.identities + o.identities)

    def __sub__(self, o: Cost) -> Cost:
        return Cost(self.units - o.units, self.moving - o.moving, self.identities - o.identities)


def conversion_cost(model: CostModel, src: TensorType, dst: TensorType) -> Cost:
    if src == dst:
        return Cost()
    k = kind_of(src, dst)
    if k == "identity":
        return Cost(0.0, 0, 1)
    return Cost(model.conversion(src, dst), 1, 0)


# ----------------------------------------------------------------------------- ops


def is_elementwise(op: Operation) -> bool:
    """An `arith` op on distributed tensors, every tensor operand and result of one shape
    and one layout (scalars allowed as operands)."""
    if not op.name.startswith("arith.") or isinstance(op, arith.ConstantOp) or op.regions:
        return False
    if not op.results:
        return False
    tys = [v.type for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)]
    if not all(is_distributed(r.type) for r in op.results):
        return False
    if not all(is_distributed(t) for t in tys):
        return False
    enc = op.results[0].type.encoding
    shape = op.results[0].type.get_shape()
    return all(t.encoding == enc and t.get_shape() == shape for t in tys)


def retyped_clone(op: Operation, operands: list[SSAValue], enc: Attribute) -> Operation:
    """A copy of a layout-polymorphic op (elementwise arith, constant, splat, arange,
    broadcast, expand_dims) whose results are in layout `enc`, on `operands`."""
    rtypes = [with_encoding(r.type, enc) if is_distributed(r.type) else r.type for r in op.results]
    props = dict(op.properties)
    if isinstance(op, arith.ConstantOp):
        v = op.value
        assert isinstance(v, DenseIntOrFPElementsAttr)
        props["value"] = DenseIntOrFPElementsAttr(rtypes[0], v.data)
    new = type(op).create(
        operands=operands,
        result_types=rtypes,
        properties=props,
        attributes=dict(op.attributes),
    )
    return new


def operand_targets(op: Operation, enc: Attribute) -> list[Attribute | None] | None:
    """For a cheap op recomputed with its result in layout `enc`, the layout each operand
    must have (None: a scalar, used as is), or None when the op cannot be recomputed."""
    from xdsl.dialects.builtin import IntAttr

    from tilec.dialects.layout_attrs import SliceLayoutAttr

    if isinstance(op, arith.ConstantOp):
        return [] if isinstance(op.value, DenseIntOrFPElementsAttr) else None
    if isinstance(op, layout.SplatOp | layout.ArangeOp):
        return [None] * len(op.operands)
    if isinstance(op, layout.BroadcastOp):
        return [enc]
    if isinstance(op, layout.ExpandDimsOp):
        return [SliceLayoutAttr(IntAttr(op.axis.value.data), enc)]
    if is_elementwise(op):
        return [enc if is_distributed(o.type) else None for o in op.operands]
    return None
