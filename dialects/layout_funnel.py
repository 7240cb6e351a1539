"""`layout.funnel_shift`: a per-row window shift inside each thread's registers.

    %r = layout.funnel_shift %lo, %hi, %sh : tensor<512x16xi8, #l>, tensor<512xi32, #s>
    %b = layout.funnel_shift %lo, %hi, %sh : tensor<512x4xi32, #w>, tensor<512xi32, #s> -> tensor<512x16xi8, #l>

Along the last dimension, each row of the result is the bytes of the row's window
`lo ++ hi` (little-endian, as memory holds them) from the row's shift on, as many as
a row of `lo` holds; the shift counts elements of the result:

    r[i.., :] = bytes(lo[i.., :] ++ hi[i.., :])[sh[i..] * E : sh[i..] * E + B]
    (E the result's element bytes, B a row's bytes; 0 <= sh[i..] < B / E)

With one element type this is r[i.., j] = (lo ++ hi)[i.., j + sh[i..]]: the funnel
shift (CUDA's `__funnelshift_r`, PTX `shf`) widened to a vector. A copy between two
rows whose start addresses differ modulo 16 bytes loads the two aligned 16-byte
vectors that cover the 16 source bytes of an aligned destination chunk and extracts the chunk's elements here (the realign strategy of `layout.copy`,
passes/_realign_tile.py).

`lo` and `hi` share one type; the result (`-> type`, the operands' type when left
out) has their shape but for the last extent, integer elements (or the operands'
type) and rows of as many bytes, and rows held as theirs are: the same lane, warp and
block bases, the last dimension in each thread's registers (no data leaves its
thread). `sh` is a tensor of integers in the slice of the result's layout along the
last dimension (one shift per row). A shift outside [0, B / E) is undefined behaviour
(the reference executor reports it).

The lowering (passes/lower_to_gpu/funnel.py) takes each row as 32-bit words where its
bytes are whole words (at most 16: one C vector), selects the two words each output
word straddles and joins them with a 64-bit right shift (ptxas's `SHF.R`), and takes
the output words as the result's elements; rows of other sizes (one element type)
select elements directly. A unit attribute `bits` (`{bits}`) asks for the words picked
by selects on each bit of the word shift in turn (funnel shifts of one shift over
consecutive vectors then share the shared vector's selects); results never change."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .errors import LayoutError
from .layout_attrs import SliceLayoutAttr, distributed_tensor_encoding, to_linear
from .verifier import check as _check
from .view_syntax import print_operands_types


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

    def __init__(self, lo, hi, shift, result_type=None):
        super().__init__(operands=[lo, hi, shift], result_types=[result_type or lo.type])

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
        rt = parser.parse_type() if parser.parse_optional_punctuation("->") else t
        lo, hi, sh = parser.resolve_operands(ops, [t, t, st], pos)
        op = cls.create(operands=[lo, hi, sh], result_types=[rt])
        op.attributes.update(attrs)
        return op

    def print(self, printer) -> None:
        rt = self.result.type
        print_operands_types(printer, self, self.operands, [self.lo.type, self.shift.type],
                             rt if rt != self.lo.type else None)

    def verify_(self) -> None:
        t, r = self.lo.type, self.result.type
        distributed_tensor_encoding(t)
        distributed_tensor_encoding(r)
        _check(self.hi.type == t, f"lo and hi must have one type, got {t} and {self.hi.type}")
        shape, rshape = list(t.get_shape()), list(r.get_shape())
        _check(len(shape) >= 1, "layout.funnel_shift takes tensors of rank 1 or more")
        last = len(shape) - 1
        _check(
            len(rshape) == len(shape) and rshape[:-1] == shape[:-1],
            f"the result must have the operands' shape but for the last extent, got {r} for {t}",
        )
        if r.element_type != t.element_type:
            _check(
                isinstance(t.element_type, IntegerType) and isinstance(r.element_type, IntegerType),
                f"operands and a result of different element types must be integers, got {t} and {r}",
            )
            _check(
                shape[-1] * t.element_type.width.data == rshape[-1] * r.element_type.width.data,
                f"a row of the result must hold as many bytes as a row of the operands, got {t} and {r}",
            )
        else:
            _check(rshape[-1] == shape[-1], f"the result must have the operands' shape, got {r} for {t}")
        s = self.shift.type
        _check(
            isinstance(s, TensorType)
            and isinstance(s.element_type, IntegerType)
            and s.element_type.width.data > 1
            and list(s.get_shape()) == shape[:-1]
            and isinstance(s.encoding, SliceLayoutAttr)
            and s.encoding.dim_index == last
            and s.encoding.parent == r.encoding,
            f"the shift must be a tensor of integers of shape {shape[:-1]} in "
            f"#layout.slice<{{dim = {last}, parent = <the result's layout>}}>, got {s}",
        )
        lls = []
        for x in (t, r):
            try:
                lls.append(to_linear(x.encoding, list(x.get_shape())))
            except LayoutError as e:
                raise VerifyException(f"cannot make a linear layout of {x}: {e}") from None
            for dim in ("lane", "warp", "block"):
                if any(b[last] for b in lls[-1].get_bases(dim)):
                    raise VerifyException(
                        f"the last dimension must lie in each thread's registers, but a {dim} basis moves along it in {x}"
                    )
        a, b = lls
        rows_a = [x for x in a.get_bases("register") if any(x[:-1])]
        rows_b = [x for x in b.get_bases("register") if any(x[:-1])]
        same = rows_a == rows_b and all(a.get_bases(d) == b.get_bases(d) for d in ("lane", "warp", "block"))
        _check(same, f"the result's rows must be held as the operands' rows are, got {t} and {r}")


FUNNEL_OPS = (FunnelShiftOp,)
"""Registered in the `layout` dialect (dialects/layout.py)."""
