"""`layout.static_assert`: a condition the compiler proves (CuTe's
`CUTE_STATIC_ASSERT_V(rank(t) == Int<2>{})`, Mojo's `comptime assert t.rank == 2`).

    %r = layout.rank %t : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
    %two = arith.constant 2 : index
    %ok = arith.cmpi eq, %r, %two : index
    layout.static_assert %ok, "the tile is a matrix"

The verifier evaluates the `i1` condition at compile time, through `compile_time_value`:
constants, the static answers of `layout.rank/depth/size/cosize`
(dialects/layout_query.py), and integer arith over them (add, sub, mul, div, rem, and,
or, xor, comparisons, casts). A condition that is false is an error located at the op
carrying the user's message; one the compiler cannot evaluate (it depends on a run-time
value, as the size of a `?` extent) is an error too. The op has no run-time effect:
`lower-to-gpu` erases it first, and the executor does nothing."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i1
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException

from .layout_query import QueryOp

_BINARY = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.AndIOp: lambda a, b: a & b,
    arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b,
}

_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
        "uge": lambda a, b: a >= b}


def compile_time_value(v: SSAValue) -> int | None:
    """The integer value of `v` when the compiler knows it (an i1 is 0 or 1), else None."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        x = op.value.value.data
        return int(x != 0) if op.value.type == i1 else x
    if isinstance(op, QueryOp):
        return op.static_value()
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        return compile_time_value(op.operands[0])
    args = [compile_time_value(o) for o in op.operands] if isinstance(op, IRDLOperation) else [None]
    if any(a is None for a in args):
        return None
    if type(op) in _BINARY:
        return _BINARY[type(op)](*args)
    if isinstance(op, arith.DivSIOp | arith.RemSIOp) and args[1] != 0:
        q = abs(args[0]) // abs(args[1]) * (1 if (args[0] < 0) == (args[1] < 0) else -1)
        return q if isinstance(op, arith.DivSIOp) else args[0] - q * args[1]
    if isinstance(op, arith.CmpiOp):
        pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        return int(_CMP[pred](*args))
    return None


@irdl_op_definition
class StaticAssertOp(IRDLOperation):
    """A condition checked at compile time, `message` the error when it is false (module
    docstring):

        layout.static_assert %ok, "the tile is a matrix\""""

    name = "layout.static_assert"
    condition = operand_def(i1)
    message = prop_def(StringAttr)
    assembly_format = "$condition `,` $message attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, condition: SSAValue, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        v = compile_time_value(self.condition)
        if v is None:
            raise VerifyException(
                f"static assertion \"{self.message.data}\": the condition is not known at compile time "
                "(it depends on a run-time value; test it with scf.if)")
        if not v:
            raise VerifyException(f"static assertion failed: {self.message.data}")


STATIC_ASSERT_OPS = (StaticAssertOp,)
"""Registered in the `layout` dialect (dialects/layout.py)."""
