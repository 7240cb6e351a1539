"""Atomics and memory fences: how blocks of one launch hand data to each other through
global memory (CUTLASS's serial split-K and stream-K fixups: each block writes its
partial, then counts its arrival on a counter; the block that arrives last reads the
others' partials).

    %old = layout.atomic_add %one, %Ctr[%t] {scope = "gpu", order = "relaxed"}
        : i32, !layout.tensor<i32, #layout.cute<(64):(1)>, gmem> -> i32
    layout.fence {scope = "gpu"}

- `layout.atomic_add`: adds the i32 `value` to the element of a global view at the
  coordinate (one index per top-level mode, or one for the whole view, as
  `layout.read` takes them) as one indivisible read-modify-write, and gives the value
  the element held before (PTX `atom.add.u32` with its `.sem` and `.scope`). Each
  thread that runs it does its own atomic. `scope` (`cta`, `gpu`, `sys`): the threads
  it is atomic and ordered with (`cta` its block's only); `order` (`relaxed`,
  `acquire`, `release`, `acq_rel`): a `release` atomic makes the memory its block wrote
  before the block's last barrier visible to a thread that later reads the element
  with an `acquire` atomic (or a relaxed one followed by a fence) of the same scope,
  and to that thread's block after its next barrier.
- `layout.fence`: a memory fence of `scope` (PTX `fence.acq_rel.<scope>`, `sc`:
  `fence.sc.<scope>`). A fence before a relaxed atomic makes it a release, a fence
  after a relaxed atomic makes it an acquire (PTX's release and acquire patterns).

The reference executor runs atomics in thread order (threads of lower blocks first:
one legal order) and checks the protocol: a block reading memory another block of
the same launch wrote is a data race unless a release and an acquire of one counter
ordered them (runtime/reference/memory.py); without the fence before a relaxed
arrival, the last block's reads of the others' partials are reported."""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, StringAttr, i32
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .effects import Accesses, Synchronizes
from .layout_attrs import TensorViewType
from .layout_roles import enclosing_launch_op

SCOPES = ("cta", "gpu", "sys")
"""The scopes of an atomic or a fence (PTX's `.cta`, `.gpu`, `.sys`)."""

ORDERS = ("relaxed", "acquire", "release", "acq_rel")
"""The memory orders of an atomic (PTX's `.sem`)."""

FENCE_ORDERS = ("acq_rel", "sc")
"""The memory orders of a fence (PTX's `fence.acq_rel`, `fence.sc`)."""


def check_one_of(what: str, choices: tuple[str, ...], got: str) -> None:
    """A VerifyException naming `choices` where the keyword `got` is not one of them."""
    if got not in choices:
        raise VerifyException(f"{what} must be {', '.join(choices[:-1])} or {choices[-1]}, got {got!r}")


def releases(order: str) -> bool:
    """Whether an atomic of `order` is a release by itself."""
    return order in ("release", "acq_rel")


def acquires(order: str) -> bool:
    """Whether an atomic of `order` is an acquire by itself."""
    return order in ("acquire", "acq_rel")


@irdl_op_definition
class AtomicAddOp(IRDLOperation):
    """`old = view[coords]; view[coords] = old + value`, indivisibly, for each thread
    that runs it (the module docstring): an i32 element of a global view, one index
    per top-level mode or one for the whole view; `scope` (default `gpu`) and `order`
    (default `relaxed`).

        %old = layout.atomic_add %one, %Ctr[%t] {scope = "gpu", order = "acq_rel"}
            : i32, !layout.tensor<i32, #layout.cute<(64):(1)>, gmem> -> i32"""

    name = "layout.atomic_add"
    value = operand_def(i32)
    view = operand_def(TensorViewType)
    coords = var_operand_def(IndexType)
    scope = opt_prop_def(StringAttr)
    order = opt_prop_def(StringAttr)
    result = result_def(i32)
    traits = traits_def(Accesses(reads=("view",), writes=("view",)))
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, value: SSAValue, view: SSAValue, coords, scope: str = "gpu", order: str = "relaxed"):
        super().__init__(operands=[value, view, list(coords)], result_types=[i32],
                         properties={"scope": StringAttr(scope), "order": StringAttr(order)})

    @property
    def scope_name(self) -> str:
        return self.scope.data if self.scope is not None else "gpu"

    @property
    def order_name(self) -> str:
        return self.order.data if self.order is not None else "relaxed"

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.view)
        printer.print_string("[")
        printer.print_list(self.coords, printer.print_operand)
        printer.print_string("]")
        props = dict(self.properties)
        if props:
            printer.print_string(" {")
            printer.print_list(props.items(), lambda kv: printer.print_string(f'{kv[0]} = "{kv[1].data}"'))
            printer.print_string("}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.view.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicAddOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        coords = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        props = {k: attrs.pop(k) for k in ("scope", "order") if k in attrs}
        parser.parse_punctuation(":")
        xt = parser.parse_type()
        parser.parse_punctuation(",")
        vt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        op = cls.create(operands=[parser.resolve_operand(value, xt), parser.resolve_operand(view, vt),
                                  *(parser.resolve_operand(c, IndexType()) for c in coords)],
                        result_types=[rt], properties=props, attributes=attrs)
        return op

    def verify_(self) -> None:
        from . import views
        from .layout_access import coordinate_form

        check_one_of("atomic_add scope", SCOPES, self.scope_name)
        check_one_of("atomic_add order", ORDERS, self.order_name)
        t = self.view.type
        assert isinstance(t, TensorViewType)
        if t.space.data != "gmem":
            raise VerifyException(f"layout.atomic_add takes a view of global memory (gmem), got {t.space.data}")
        if t.element_type != i32:
            raise VerifyException(f"layout.atomic_add adds to i32 elements, the view's are {t.element_type}")
        if t.vec_layout is not None or t.is_masked:
            raise VerifyException("layout.atomic_add takes a view that is neither vectorized nor masked")
        n = len(self.coords)
        rank = len(views.modes(t.cute_layout))
        if n not in (1, rank):
            raise VerifyException(f"layout.atomic_add takes one index per top-level mode ({rank}) or one, got {n}")
        coordinate_form(t.cute_layout, n)
        if enclosing_launch_op(self) is None:
            raise VerifyException("layout.atomic_add must be inside a layout.launch")


@irdl_op_definition
class FenceOp(IRDLOperation):
    """A memory fence of this thread (the module docstring): `scope` (default `gpu`)
    and `order` (`acq_rel`, the default, or `sc`).

        layout.fence {scope = "gpu"}
        layout.fence {scope = "sys", order = "sc"}"""

    name = "layout.fence"
    scope = opt_prop_def(StringAttr)
    order = opt_prop_def(StringAttr)
    traits = traits_def(Synchronizes())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, scope: str = "gpu", order: str = "acq_rel"):
        super().__init__(properties={"scope": StringAttr(scope), "order": StringAttr(order)})

    @property
    def scope_name(self) -> str:
        return self.scope.data if self.scope is not None else "gpu"

    @property
    def order_name(self) -> str:
        return self.order.data if self.order is not None else "acq_rel"

    def verify_(self) -> None:
        check_one_of("fence scope", SCOPES, self.scope_name)
        check_one_of("fence order", FENCE_ORDERS, self.order_name)
        if enclosing_launch_op(self) is None:
            raise VerifyException("layout.fence must be inside a layout.launch")


ATOMIC_OPS = [AtomicAddOp, FenceOp]
