"""The elementwise ops of a converting copy (`layout.copy {convert = ...}`): what
`distribute` puts between the load and the store. The chain of steps comes from
`tilec.dialects.conversions.conversion_steps` (PyTorch's conversions, spelled as casts)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.dialects import layout_compute as lc
from tilec.dialects.conversions import conversion_steps, parse_convert
from tilec.dialects.dtypes import ELEMENTS
from tilec.dialects.layout import SplatOp

_TYPES: dict[str, Attribute] = {"i1": IntegerType(1), **{e.name: e.attr() for e in ELEMENTS.values()}}


_CASTS = {
    "extsi": lc.ExtSIOp,
    "extui": lc.ExtUIOp,
    "trunci": lc.TruncIOp,
    "sitofp": lc.SIToFPOp,
    "uitofp": lc.UIToFPOp,
    "fptosi": lc.FPToSIOp,
}


def conversion_ops(value: SSAValue, convert: str) -> tuple[list[Operation], SSAValue]:
    """Ops that convert the distributed tensor `value` as `convert` ("SRC->DST")
    says, and the converted value (`value` itself when the bits stay)."""
    src, dst = parse_convert(convert)
    ops: list[Operation] = []
    for step, name in conversion_steps(src, dst):
        t: TensorType = value.type  # type: ignore[assignment]
        out = TensorType(_TYPES[name], t.get_shape(), t.encoding)
        if step == "nonzero":
            e = t.element_type
            if isinstance(e, IntegerType):
                zero = arith.ConstantOp(IntegerAttr(0, e))
            else:
                zero = arith.ConstantOp(FloatAttr(0.0, e))
            splat = SplatOp.build(operands=[zero.result], result_types=[t])
            cmp = (lc.CmpiOp(value, splat.result, "ne") if isinstance(e, IntegerType)
                   else lc.CmpfOp(value, splat.result, "une"))
            ops += [zero, splat, cmp]
        elif step == "extf":
            cmp = arith.ExtFOp(value, out)
            ops.append(cmp)
        elif step == "truncf":
            cmp = arith.TruncFOp(value, out)
            ops.append(cmp)
        else:
            cmp = _CASTS[step](value, out)
            ops.append(cmp)
        value = cmp.results[0]
    return ops, value


_SCALAR_CASTS = {
    "extsi": arith.ExtSIOp,
    "extui": arith.ExtUIOp,
    "trunci": arith.TruncIOp,
    "sitofp": arith.SIToFPOp,
    "uitofp": arith.UIToFPOp,
    "fptosi": arith.FPToSIOp,
    "extf": arith.ExtFOp,
    "truncf": arith.TruncFOp,
}


def scalar_conversion_ops(value: SSAValue, convert: str) -> tuple[list[Operation], SSAValue]:
    """The ops of `conversion_ops` for one scalar element inside a kernel (a box
    kernel's phase 2 converts each element it reads from shared memory before it puts
    it into the destination's vector): the same chain of steps as `arith` ops on
    scalars, and the converted value (`value` itself when the bits stay)."""
    src, dst = parse_convert(convert)
    ops: list[Operation] = []
    for step, name in conversion_steps(src, dst):
        if step == "nonzero":
            e = value.type
            if isinstance(e, IntegerType):
                zero = arith.ConstantOp(IntegerAttr(0, e))
                cmp = arith.CmpiOp(value, zero.result, "ne")
            else:
                zero = arith.ConstantOp(FloatAttr(0.0, e))
                cmp = arith.CmpfOp(value, zero.result, "une")
            ops += [zero, cmp]
        else:
            cmp = _SCALAR_CASTS[step](value, _TYPES[name])
            ops.append(cmp)
        value = cmp.results[0]
    return ops, value
