"""`layout.funnel_shift`: a per-row window shift inside each thread's registers.

    %r = layout.funnel_shift %lo, %hi, %sh : tensor<512x16xi8, #l>, tensor<512xi32, #s>

Along the last dimension (of extent V), each row of the result is V consecutive
elements of the row's 2V-element window `lo ++ hi`, starting at the row's shift:

    r[i.., j] = (lo[i.., :] ++ hi[i.., :])[j + sh[i..]]      0 <= sh[i..] < V

It is the funnel shift (CUDA's `__funnelshift_r`, PTX `shf`) widened to a vector: a
copy between two rows whose start addresses differ modulo 16 bytes loads the two
aligned 16-byte vectors that cover the 16 source bytes of an aligned destination
chunk and extracts them here (api/copy_realign.py). `lo`, `hi` and the result share
one type; `sh` is a tensor of integers of the slice of their layout along the last
dimension (one shift per row), and the last dimension must lie in each thread's
registers (no lane or warp moves along it): no data leaves its thread. A shift outside
[0, V) is undefined behaviour (the reference executor reports it).

The lowering (passes/lower_to_gpu/funnel.py) reinterprets each row's registers as
32-bit words where they pack into whole words, selects the two words each output word
straddles and joins them with a 64-bit right shift (ptxas's `SHF.R`); rows of wider
elements (or ones that do not fill words) select elements directly."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .errors import LayoutError
from .layout_attrs import SliceLayoutAttr, distributed_tensor_encoding, to_linear


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise VerifyException(msg)


@irdl_op_definition
class FunnelShiftOp(IRDLOperation):
    """Each row (the last dimension) of the result is the window `lo ++ hi` of that row
    shifted left by `sh` elements (module doc)."""

    name = "layout.funnel_shift"
    lo = operand_def(TensorType)
    hi = operand_def(TensorType)
    shift = operand_def(TensorType)
    result = result_def(TensorType)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, lo, hi, shift):
        super().__init__(operands=[lo, hi, shift], result_types=[lo.type])

    @classmethod
    def parse(cls, parser):
        from xdsl.parser import UnresolvedOperand

        ops: list[UnresolvedOperand] = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            ops.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        parser.parse_punctuation(",")
        st = parser.parse_type()
        lo, hi, sh = parser.resolve_operands(ops, [t, t, st], pos)
        op = cls.create(operands=[lo, hi, sh], result_types=[t])
        op.attributes.update(attrs)
        return op

    def print(self, printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lo)
        printer.print_string(", ")
        printer.print_operand(self.hi)
        printer.print_string(", ")
        printer.print_operand(self.shift)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lo.type)
        printer.print_string(", ")
        printer.print_attribute(self.shift.type)

    def verify_(self) -> None:
        t = self.lo.type
        distributed_tensor_encoding(t)
        _check(
            self.hi.type == t and self.result.type == t,
            f"lo, hi and the result must have one type, got {t}, {self.hi.type} and {self.result.type}",
        )
        shape = list(t.get_shape())
        _check(len(shape) >= 1, "layout.funnel_shift takes tensors of rank 1 or more")
        s = self.shift.type
        last = len(shape) - 1
        _check(
            isinstance(s, TensorType)
            and isinstance(s.element_type, IntegerType)
            and s.element_type.width.data > 1
            and list(s.get_shape()) == shape[:-1]
            and isinstance(s.encoding, SliceLayoutAttr)
            and s.encoding.dim_index == last
            and s.encoding.parent == t.encoding,
            f"the shift must be a tensor of integers of shape {shape[:-1]} in "
            f"#layout.slice<{{dim = {last}, parent = <the values' layout>}}>, got {s}",
        )
        try:
            ll = to_linear(t.encoding, shape)
        except LayoutError as e:
            raise VerifyException(f"cannot make a linear layout of {t}: {e}") from None
        for dim in ("lane", "warp", "block"):
            if any(b[last] for b in ll.get_bases(dim)):
                raise VerifyException(
                    f"the last dimension must lie in each thread's registers, but a {dim} basis moves along it in {t}"
                )


FUNNEL_OPS = (FunnelShiftOp,)
"""Registered in the `layout` dialect (dialects/layout.py)."""
