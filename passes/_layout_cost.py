"""What the layout-conversion passes share: the linear form of a distributed tensor type,
layout equivalence, the kind of a conversion and the cost model that compares moving
data between threads with loading or recomputing it.

Costs are in *bytes moved per block*, weighted by where the bytes go: a conversion
through shared memory writes every source register and reads every destination register
(`smem` per byte); a warp shuffle moves each destination register as a 32-bit word at
least (`shuffle` per byte); a register permutation and an identity move nothing; a
`layout.load` moves every register's bytes from memory (`gmem` per byte); recomputing an
op costs `alu` per register element. Code in a loop counts its trip count times.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tilec.dialects import layout
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import (
    DistributedLayoutAttr,
    element_bytes,
    threads_per_block,
    to_linear,
)
from tilec.dialects.linear import LinearLayout, conversion_kind

from ._analysis import constant_index


def is_distributed(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.encoding, DistributedLayoutAttr)


def with_encoding(t: TensorType, enc: Attribute) -> TensorType:
    """`t` with another distributed layout."""
    return TensorType(t.element_type, t.get_shape(), enc)


@lru_cache(maxsize=4096)
def _linear(enc: Attribute, shape: tuple[int, ...]) -> LinearLayout | None:
    try:
        return to_linear(enc, shape)
    except LayoutError:  # non power-of-two shapes and the like
        return None


def linear_of(t: TensorType) -> LinearLayout | None:
    """The linear layout of a distributed tensor type (None when it has none)."""
    return _linear(t.encoding, tuple(t.get_shape()))


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


def elem_bytes(t: TensorType) -> int:
    """Bytes of one element in registers (an i1 mask: one byte)."""
    et = t.element_type
    if isinstance(et, IntegerType) and et.width.data == 1:
        return 1
    try:
        return element_bytes(et)
    except VerifyException:  # an element type the layout dialect does not store: 4 bytes
        return 4


def register_bytes(t: TensorType) -> int:
    """Bytes of `t` held in registers over the threads of a block (copies included)."""
    return registers(t) * elem_bytes(t)


@dataclass(frozen=True)
class CostModel:
    """Weights per byte moved (`smem`, `shuffle`, `gmem`) and per register element
    computed (`alu`); `trips` is the trip count assumed for a loop whose bounds are not
    constants."""

    alu: float = 2.0
    shuffle: float = 1.0
    smem: float = 1.0
    gmem: float = 1.0
    trips: int = 16

    def conversion(self, src: TensorType, dst: TensorType) -> float:
        """Bytes a conversion moves, weighted by its kind: none for an identity or a
        register permutation; a warp shuffle moves every destination register as a
        32-bit word at least; shared memory writes every source register and reads
        every destination register."""
        k = kind_of(src, dst)
        if k in ("identity", "register"):
            return 0.0
        if k == "warp_shuffle":
            return self.shuffle * registers(dst) * max(4, elem_bytes(dst))
        return self.smem * (register_bytes(src) + register_bytes(dst))

    def load(self, t: TensorType) -> float:
        """Memory traffic of a `layout.load` into `t`: every register's bytes."""
        return self.gmem * register_bytes(t)

    def recompute(self, op: Operation) -> float:
        """Cost of running `op` once more (constants, splats and reshapes are free;
        a load is memory traffic)."""
        if isinstance(op, arith.ConstantOp | layout.SplatOp | layout.BroadcastOp | layout.ExpandDimsOp):
            return 0.0
        if isinstance(op, layout.LoadOp):
            return self.load(op.result.type)
        return self.alu * sum(registers(r.type) for r in op.results if is_distributed(r.type))


@dataclass(frozen=True, order=True)
class Cost:
    """What a rewrite costs, compared lexicographically (the tie rule): weighted bytes
    (`units`, each branch of an `scf.if` counted in full, a loop body times its trip
    count), then the expected weighted bytes (`expected`: each branch counted half),
    then conversions that move data, then identity conversions left in the IR. A
    rewrite applies only when the cost after is strictly smaller, so ties keep the IR
    as it is and every decision is deterministic."""

    units: float = 0.0
    expected: float = 0.0
    moving: int = 0
    identities: int = 0

    def __add__(self, o: Cost) -> Cost:
        return Cost(self.units + o.units, self.expected + o.expected,
                    self.moving + o.moving, self.identities + o.identities)

    def __sub__(self, o: Cost) -> Cost:
        return Cost(self.units - o.units, self.expected - o.expected,
                    self.moving - o.moving, self.identities - o.identities)

    def scaled(self, w: tuple[float, float]) -> Cost:
        """This cost at a program point of weight `w` (see `point_weight`)."""
        return Cost(self.units * w[0], self.expected * w[1], self.moving, self.identities)


def work(units: float) -> Cost:
    return Cost(units, units, 0, 0)


def conversion_cost(model: CostModel, src: TensorType, dst: TensorType) -> Cost:
    if src == dst:
        return Cost()
    k = kind_of(src, dst)
    if k == "identity":
        return Cost(0.0, 0.0, 0, 1)
    u = model.conversion(src, dst)
    return Cost(u, u, 1, 0)


def trip_count(model: CostModel, loop: Operation) -> int:
    """A loop's static trip count, or `model.trips` when it is not known."""
    if isinstance(loop, scf.ForOp):
        lb, ub, st = (constant_index(v) for v in (loop.lb, loop.ub, loop.step))
        if lb is not None and ub is not None and st is not None and st > 0:
            return max(1, -((lb - ub) // st))
    return model.trips


def point_weight(model: CostModel, block: Block | None) -> tuple[float, float]:
    """(worst-case, expected) weight of code in `block`: the trip counts of the
    enclosing loops multiplied, and for the expected weight 1/2 per enclosing branch."""
    w, e = 1.0, 1.0
    while block is not None:
        op = block.parent_op()
        if op is None or isinstance(op, layout.LaunchOp):
            break
        if isinstance(op, scf.ForOp | scf.WhileOp):
            n = trip_count(model, op)
            w, e = w * n, e * n
        elif isinstance(op, scf.IfOp):
            e = e / 2
        block = op.parent
    return w, e


def op_cost(model: CostModel, op: Operation) -> Cost:
    """What `op` costs where it is (a conversion, a load or a recomputable op, at the
    weight of its block; anything else nothing): what a rewrite saves by removing it."""
    if isinstance(op, layout.ConvertLayoutOp):
        c = conversion_cost(model, op.source.type, op.result.type)
    elif isinstance(op, layout.LoadOp) and is_distributed(op.result.type):
        c = work(model.load(op.result.type))
    elif is_elementwise(op) or isinstance(op, layout.ArangeOp):
        c = work(model.recompute(op))
    else:
        return Cost()
    return c.scaled(point_weight(model, op.parent))


def program_cost(model: CostModel, root: Operation) -> Cost:
    """What every conversion, load and recomputable op under `root` costs, each at the
    weight of its block: the measure that region rewrites must make smaller."""
    total = Cost()
    for op in root.walk():
        total = total + op_cost(model, op)
    return total


# ----------------------------------------------------------------------------- ops


# The layout dialect's elementwise ops on distributed tensors (dialects/layout_compute.py):
# each result element from the operands' elements at the same coordinate.
_LAYOUT_ELEMENTWISE = frozenset({
    "layout.cmpi", "layout.cmpf", "layout.select", "layout.extsi", "layout.extui",
    "layout.trunci", "layout.sitofp", "layout.uitofp", "layout.fptosi", "layout.fptoui",
})


def is_elementwise(op: Operation) -> bool:
    """An `arith` op, or an elementwise op of the layout dialect (compare, select, cast),
    on distributed tensors, every tensor operand and result of one shape and one layout
    (scalars allowed as operands)."""
    if not (op.name.startswith("arith.") or op.name in _LAYOUT_ELEMENTWISE) \
            or isinstance(op, arith.ConstantOp) or op.regions:
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
