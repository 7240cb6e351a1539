"""Pointer tensors: Gluon's and Triton's `ptr + offsets` addressing on distributed tensors.

A *pointer tensor* is a distributed tensor whose elements are `!layout.ptr<T>`, one
global address per element. It is made by splatting a pointer argument
(`layout.splat`), moved by an integer tensor of element offsets (`layout.addptr`,
Triton's `tt.addptr`: `in_ptr + offsets`), and read and written through
(`layout.ptr_load` / `layout.ptr_store`, Gluon's `gl.load(ptrs, mask=, other=)` /
`gl.store(ptrs, value, mask=)`), so that a Gluon kernel translates line by line:

    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<1024x!layout.ptr<f32>, #b>
    %q = layout.addptr %p, %offs : tensor<1024x!layout.ptr<f32>, #b>, tensor<1024xi32, #b>
    %v = layout.ptr_load %q, %zero : f32 mask %m : tensor<1024xi1, #b> : tensor<1024x!layout.ptr<f32>, #b> -> tensor<1024xf32, #b>
    layout.ptr_store %v, %q mask %m : tensor<1024xi1, #b> : tensor<1024xf32, #b>, tensor<1024x!layout.ptr<f32>, #b>

The element type of a pointer tensor is the pointer type without an alignment
(`!layout.ptr<f32>`): the elements are different addresses, and what is known of their
alignment is the business of the `vectorize-pointers` pass (an AxisInfo analysis as
Triton's: contiguity, divisibility and constancy of the addresses, the divisibility of
a pointer argument being its `align`). `layout.splat` of an aligned pointer may drop the
alignment from the type. `layout.addptr` also takes a scalar pointer and a scalar
offset (`x_ptr += pid * stride`).

Element i of a pointer tensor addresses element `offset(i)` of the one argument it
points into (`pointer_root`, which the verifier checks), so pointers move through the
shape ops, `layout.select`, register-only `convert_layout` and `scf.for` iter_args
(Triton's `a_ptrs += BLOCK_K * stride`) as any integer tensor. An access outside the
buffer (where the mask, if any, is true) is an error on the CPU reference executor,
naming the thread and the element. The IR gives no extent to a buffer reached only
through pointer tensors: `--run` takes its size from the function's `tilec.args` (or
`--arg NAME=N`), as for dynamic views. `vector` (set by `vectorize-pointers`) is the
number of consecutive registers moved per access; `uniform_mask` (also set by it) says
the mask is the same over each vector, so one predicate guards it (otherwise a vector
whose lanes disagree falls back to per-lane accesses at run time).
`layout.multiple_of` is Triton's `multiple_of` hint for the analysis."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType, UnitAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .effects import Accesses
from .layout_attrs import PtrType, distributed_tensor_encoding
from .layout_roles import check_block_threads, enclosing_launch_op
from .verifier import check as _check
from .view_syntax import print_operands_types


def pointee(t: Attribute) -> Attribute | None:
    """The element type a pointer or a pointer tensor points to (None: neither)."""
    if isinstance(t, TensorType):
        t = t.element_type
    return t.element_type if isinstance(t, PtrType) else None


def is_pointer_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, PtrType)


def _pointer_tensor(v: SSAValue, what: str) -> TensorType:
    t = v.type
    _check(is_pointer_tensor(t), f"{what} must be a distributed tensor of !layout.ptr, got {t}")
    distributed_tensor_encoding(t)
    return t  # type: ignore[return-value]


def pointer_root(v: SSAValue, within: Operation | None = None) -> SSAValue:
    """The pointer argument a pointer (tensor) points into: followed back through
    `layout.addptr`, `layout.splat` and any op taking pointers (shape ops,
    `convert_layout`, `select`, `scf.for` iter_args), which must all lead to the same
    argument. The executor and the lowering address memory as that argument plus
    the element offsets the pointer values carry. A VerifyException when there is no
    such single argument, or when `within` is given and an op making the pointers lies
    outside it (pointers are made inside the `layout.launch` that uses them)."""
    roots: set[SSAValue] = set()
    seen: set[SSAValue] = set()
    work = [v]
    while work:
        x = work.pop()
        if x in seen:
            continue
        seen.add(x)
        t = x.type
        if not (isinstance(t, PtrType) or is_pointer_tensor(t)):
            raise VerifyException(f"{x.name_hint or 'a value'} of type {t} is not a pointer")
        if isinstance(x, BlockArgument):
            owner = x.owner.parent_op()
            if isinstance(owner, scf.ForOp) and x.index >= 1:
                k = x.index - 1
                work.append(owner.iter_args[k])
                work.append(owner.body.block.last_op.operands[k])
            elif isinstance(t, PtrType) and isinstance(owner, func.FuncOp):
                roots.add(x)
            else:
                raise VerifyException(f"cannot tell which argument the pointer %{x.name_hint or '?'} points into")
            continue
        op = x.owner
        if within is not None and not within.is_ancestor(op):
            raise VerifyException(f"'{op.name}' makes pointers outside the layout.launch that uses them")
        if isinstance(op, scf.ForOp):
            k = op.results.index(x)
            work.append(op.iter_args[k])
            work.append(op.body.block.last_op.operands[k])
            continue
        ptrs = [o for o in op.operands if isinstance(o.type, PtrType) or is_pointer_tensor(o.type)]
        if not ptrs:
            raise VerifyException(f"'{op.name}' makes a pointer that points into no argument")
        work.extend(ptrs)
    if not roots:
        raise VerifyException("cannot tell which argument the pointers point into")
    if len(roots) != 1:
        names = ", ".join(sorted(f"%{r.name_hint or '?'}" for r in roots))
        raise VerifyException(
            f"the pointers may point into several arguments ({names}): each pointer tensor must point into one"
        )
    return roots.pop()


def pointer_conversion_message(kind: str) -> str:
    """Why a `convert_layout` of a pointer tensor that moves data cannot be lowered."""
    return (
        f"convert_layout of a pointer tensor that moves elements between threads ({kind}) is not "
        "supported: convert the offsets before layout.addptr, or the loaded values, instead"
    )


def _check_int(t: Attribute, what: str) -> None:
    _check(
        isinstance(t, IntegerType | IndexType) and not (isinstance(t, IntegerType) and t.width.data == 1),
        f"{what} must be integers (i8..i64 or index), got {t}",
    )


@irdl_op_definition
class AddPtrOp(IRDLOperation):
    """`ptr + offset` in elements of the pointee (Triton's `tt.addptr`): a pointer
    tensor and an integer tensor of the same shape and distributed layout, or a scalar
    pointer and a scalar integer. The result has the pointer operand's type, without
    its alignment (`!layout.ptr<f32, align 16>` + offset is a `!layout.ptr<f32>`).

        %q = layout.addptr %p, %offs : tensor<1024x!layout.ptr<f32>, #b>, tensor<1024xi32, #b>
        %r = layout.addptr %src, %i : !layout.ptr<f32, align 16>, i32"""

    name = "layout.addptr"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[ptr, offset], result_types=[self.result_type_of(ptr.type)])

    @staticmethod
    def result_type_of(t: Attribute) -> Attribute:
        if isinstance(t, TensorType) and isinstance(t.element_type, PtrType):
            return TensorType(PtrType(t.element_type.element_type), t.get_shape(), t.encoding)
        if isinstance(t, PtrType):
            return PtrType(t.element_type)
        raise VerifyException(f"layout.addptr takes a pointer or a tensor of pointers, got {t}")

    @classmethod
    def parse(cls, parser):  # the result type follows from the operands'
        from xdsl.parser import UnresolvedOperand

        p: UnresolvedOperand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        o = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        pt = parser.parse_type()
        parser.parse_punctuation(",")
        ot = parser.parse_type()
        try:
            rt = cls.result_type_of(pt)
        except VerifyException as e:
            parser.raise_error(str(e), pos, parser.pos)
        ptr, off = parser.resolve_operands([p, o], [pt, ot], pos)
        op = cls.create(operands=[ptr, off], result_types=[rt])
        op.attributes.update(attrs)
        return op

    def print(self, printer) -> None:
        print_operands_types(printer, self, self.operands, [self.ptr.type, self.offset.type])

    def verify_(self) -> None:
        pt, ot = self.ptr.type, self.offset.type
        _check(
            self.result.type == self.result_type_of(pt),
            f"the result must be {self.result_type_of(pt)}, got {self.result.type}",
        )
        if isinstance(pt, PtrType):
            _check(
                not isinstance(ot, TensorType),
                "a scalar pointer takes a scalar offset (splat the pointer to add a tensor)",
            )
            _check_int(ot, "the offset")
            return
        t = _pointer_tensor(self.ptr, "the pointer operand")
        _check(isinstance(ot, TensorType), f"a tensor of pointers takes a tensor of offsets, got {ot}")
        _check_int(ot.element_type, "the offsets")
        _check(
            tuple(ot.get_shape()) == tuple(t.get_shape()) and ot.encoding == t.encoding,
            f"the offsets must have the pointers' shape and layout: {t} and {ot}",
        )


def _check_mask(mask: SSAValue | None, t: TensorType) -> None:
    if mask is None:
        return
    m = mask.type
    _check(
        isinstance(m, TensorType)
        and m.element_type == IntegerType(1)
        and tuple(m.get_shape()) == tuple(t.get_shape())
        and m.encoding == t.encoding,
        f"the mask must be a tensor of i1 of the pointers' shape and layout, got {m}",
    )


def _check_vector(op: IRDLOperation) -> None:
    v = op.vector
    if v is not None:
        n = v.value.data
        _check(n >= 1 and n & (n - 1) == 0, f"vector must be a power of two, got {n}")


def _check_root(op: IRDLOperation) -> None:
    pointer_root(op.ptrs, enclosing_launch_op(op))


def _check_access(op: PtrLoadOp | PtrStoreOp, data: Attribute, what: str, other: SSAValue | None = None) -> None:
    """The checks of `ptr_load` and `ptr_store`: `data` (`what`: the result loaded, the
    value stored) is a tensor of the pointee type with the pointers' shape and layout;
    a load's `other` a scalar of that type; mask, vector width, threads and root as
    `_check_mask`, `_check_vector`, `check_block_threads`, `_check_root` say."""
    t = _pointer_tensor(op.ptrs, "the pointers")
    et = pointee(t)
    _check(
        isinstance(data, TensorType)
        and data.element_type == et
        and tuple(data.get_shape()) == tuple(t.get_shape())
        and data.encoding == t.encoding,
        f"{what} must be a tensor of {et} of the pointers' shape and layout, got {data}",
    )
    if other is not None:
        _check(other.type == et, f"`other` must be a scalar of the element type {et}, got {other.type}")
    _check_mask(op.mask, t)
    _check_vector(op)
    check_block_threads(op, t)
    _check_root(op)


@irdl_op_definition
class PtrLoadOp(IRDLOperation):
    """Gluon's `gl.load(ptrs, mask=mask, other=other)`: element i of the result is the
    element `ptrs[i]` points to; where the optional `mask` (a tensor of i1 in the
    pointers' layout) is false nothing is read and the element is `other` (a scalar,
    default 0). The result has the pointers' shape and layout and their pointee type.

        %v = layout.ptr_load %q : tensor<1024x!layout.ptr<f32>, #b> -> tensor<1024xf32, #b>
        %w = layout.ptr_load %q, %z : f32 mask %m : tensor<1024xi1, #b> : tensor<1024x!layout.ptr<f32>, #b> -> tensor<1024xf32, #b>"""

    name = "layout.ptr_load"
    traits = traits_def(Accesses(reads=("ptrs",)))
    ptrs = operand_def(TensorType)
    other = opt_operand_def()
    mask = opt_operand_def(TensorType)
    vector = opt_prop_def(IntegerAttr)
    uniform_mask = opt_prop_def(UnitAttr)
    result = result_def(TensorType)
    assembly_format = (
        "$ptrs (`,` $other^ `:` type($other))? (`mask` $mask^ `:` type($mask))? attr-dict "
        "`:` type($ptrs) `->` type($result)"
    )
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    def __init__(self, ptrs: SSAValue, other: SSAValue | None = None, mask: SSAValue | None = None):
        t: TensorType = ptrs.type  # type: ignore[assignment]
        rt = TensorType(pointee(t), t.get_shape(), t.encoding)
        super().__init__(operands=[ptrs, other, mask], result_types=[rt])

    def verify_(self) -> None:
        _check_access(self, self.result.type, "the result", self.other)


@irdl_op_definition
class PtrStoreOp(IRDLOperation):
    """Gluon's `gl.store(ptrs, value, mask=mask)`: element i of `value` is written where
    `ptrs[i]` points, except where the optional `mask` is false. The value has the
    pointers' shape and layout and their pointee type; an element held by several
    threads (a broadcast layout) is written once.

        layout.ptr_store %v, %q : tensor<1024xf32, #b>, tensor<1024x!layout.ptr<f32>, #b>
        layout.ptr_store %v, %q mask %m : tensor<1024xi1, #b> : tensor<1024xf32, #b>, tensor<1024x!layout.ptr<f32>, #b>"""

    name = "layout.ptr_store"
    traits = traits_def(Accesses(writes=("ptrs",)))
    value = operand_def(TensorType)
    ptrs = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    vector = opt_prop_def(IntegerAttr)
    uniform_mask = opt_prop_def(UnitAttr)
    assembly_format = "$value `,` $ptrs (`mask` $mask^ `:` type($mask))? attr-dict `:` type($value) `,` type($ptrs)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, value: SSAValue, ptrs: SSAValue, mask: SSAValue | None = None):
        super().__init__(operands=[value, ptrs, mask])

    def verify_(self) -> None:
        _check_access(self, self.value.type, "the value")


@irdl_op_definition
class PtrPrefetchOp(IRDLOperation):
    """Each thread asks L2 for the 32-byte sector each of its pointers points into,
    except where the optional `mask` is false (`prefetch.global.L2`, a hint): no value
    is read or changed. A sector that a kernel then writes in part is in L2 before the
    write, so L2 does not fetch it from DRAM to merge the bytes not written (the realign
    strategy's destination rows into a longer pitch, passes/_realign_tile.py). `bulk`:
    each sector asked by a bulk prefetch of the pointer's 16-byte block
    (`cuda.prefetch_global_l2 {bulk}`), which brings the sector only, where
    `prefetch.global.L2` brings its 128-byte line. `edge` (k bytes): a pointer asks only
    where its address plus k is not a multiple of 32 (a row's first element with k = 0, its
    last with k = its size: the sector is the row's in part only where the row's start or end
    is not on a sector boundary), a test of the real address, known at run time only.

        layout.ptr_prefetch %q : tensor<1024x!layout.ptr<f32>, #b>
        layout.ptr_prefetch %q mask %m : tensor<1024xi1, #b> {bulk} : tensor<1024x!layout.ptr<f32>, #b>
        layout.ptr_prefetch %q mask %m : tensor<1024xi1, #b> {bulk, edge = 8 : i64} : tensor<1024x!layout.ptr<i64>, #b>

    `row` (a scalar: elements; with `bulk`, without `edge`): each pointer is a row's first
    element and asks for the sectors the row covers in part, by the real address: the first
    sector unless the row starts on a 32-byte boundary (and does not end inside it), the
    last unless the row ends on one (and does not start inside it), one bulk prefetch of
    both where they are adjacent sectors (`tilec_prefetch_row`).

        layout.ptr_prefetch %q row %n : i32 mask %m : tensor<1024xi1, #b> {bulk} : tensor<1024x!layout.ptr<i64>, #b>"""

    name = "layout.ptr_prefetch"
    # no memory-effect trait, as layout.prefetch: its effect is on the cache
    ptrs = operand_def(TensorType)
    row = opt_operand_def()
    mask = opt_operand_def(TensorType)
    bulk = opt_prop_def(UnitAttr)
    edge = opt_prop_def(IntegerAttr)
    assembly_format = ("$ptrs (`row` $row^ `:` type($row))? (`mask` $mask^ `:` type($mask))? attr-dict "
                       "`:` type($ptrs)")
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    def __init__(self, ptrs: SSAValue, mask: SSAValue | None = None, bulk: bool = False, edge: int | None = None,
                 row: SSAValue | None = None):
        props: dict = {"bulk": UnitAttr()} if bulk else {}
        if edge is not None:
            props["edge"] = IntegerAttr(edge, 64)
        super().__init__(operands=[ptrs, row, mask], properties=props)

    def verify_(self) -> None:
        if self.edge is not None:
            _check(0 <= self.edge.value.data < 32, f"the edge is 0-31 bytes, got {self.edge.value.data}")
        if self.row is not None:
            _check_int(self.row.type, "layout.ptr_prefetch's row")
            _check(self.bulk is not None and self.edge is None, "layout.ptr_prefetch's row takes bulk, not edge")
        t = _pointer_tensor(self.ptrs, "the pointers")
        _check_mask(self.mask, t)
        check_block_threads(self, t)
        _check_root(self)


@irdl_op_definition
class MultipleOfOp(IRDLOperation):
    """Gluon's and Triton's `multiple_of(x, d)`: the integer scalar x, promised to be a
    multiple of `divisor` (a power of two). `vectorize-pointers` believes it (an
    `offsets < n` mask with such an n is the same over each vector; offsets scaled by
    such a stride keep rows aligned); the CPU reference executor checks it, and on the
    GPU a broken promise gives misaligned or wrongly masked accesses, as in Triton.

        %n16 = layout.multiple_of %n {divisor = 16 : i64} : i32"""

    name = "layout.multiple_of"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    value = operand_def(_T)
    divisor = prop_def(IntegerAttr)
    result = result_def(_T)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($value)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, value: SSAValue, divisor: int):
        super().__init__(operands=[value], result_types=[value.type], properties={"divisor": IntegerAttr(divisor, 64)})

    def verify_(self) -> None:
        _check_int(self.value.type, "layout.multiple_of's operand")
        d = self.divisor.value.data
        _check(d >= 1 and d & (d - 1) == 0, f"the divisor must be a power of two, got {d}")


POINTER_OPS = (AddPtrOp, PtrLoadOp, PtrStoreOp, PtrPrefetchOp, MultipleOfOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
