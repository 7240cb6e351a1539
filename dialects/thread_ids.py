"""Thread and global coordinates in a launch with a 2-D or 3-D block shape, as the seeds
write them (Mojo's `thread_idx.x`, `global_idx.y`; CUDA's threadIdx.y,
blockIdx.x * blockDim.x + threadIdx.x):

    layout.launch grid(%c4, %c4, %c1) threads(8, 8) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      %tx = layout.thread_idx x          // tid % 8
      %gy = layout.global_idx y          // by * 8 + (tid / 8) % 8

In a block of shape (X, Y, Z), `%tid` = x + X * (y + Y * z)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, StringAttr
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .layout_roles import enclosing_launch_op

DIMS = ("x", "y", "z")


class _CoordinateOp(IRDLOperation):
    """Shared form: `layout.<name> x|y|z` -> index, inside a `layout.launch`."""

    dim = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    WHAT: ClassVar[str] = ""

    def __init__(self, dim: str):
        super().__init__(properties={"dim": StringAttr(dim)}, result_types=[IndexType()])

    @property
    def axis(self) -> int:
        return DIMS.index(self.dim.data)

    def launch(self):
        """The enclosing `layout.launch`, or None."""
        return enclosing_launch_op(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim.data}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        d = parser.parse_identifier()
        if d not in DIMS:
            parser.raise_error(f"expected x, y or z, got '{d}'", pos, parser.pos)
        op = cls(d)
        attrs = parser.parse_optional_attr_dict()
        op.attributes.update(attrs)
        return op

    def verify_(self) -> None:
        if self.dim.data not in DIMS:
            raise VerifyException(f"dim must be x, y or z, got '{self.dim.data}'")
        if self.launch() is None:
            raise VerifyException(f"{self.name} must be inside a layout.launch")


@irdl_op_definition
class ThreadIdxOp(_CoordinateOp):
    """The thread's coordinate `dim` in its block (Mojo's `thread_idx.x`)."""

    name = "layout.thread_idx"


@irdl_op_definition
class GlobalIdxOp(_CoordinateOp):
    """block id * block extent + thread coordinate along `dim` (Mojo's `global_idx.x`)."""

    name = "layout.global_idx"


def thread_coordinate(tid, block: tuple[int, int, int], axis: int, div, mod):
    """Coordinate `axis` of thread `tid` in a block of shape `block`, with the given
    division and remainder (ints, NumPy arrays or IR builders alike)."""
    stride = 1
    for a in range(axis):
        stride *= block[a]
    q = div(tid, stride) if stride > 1 else tid
    return mod(q, block[axis]) if axis < 2 else q


THREAD_ID_OPS = (ThreadIdxOp, GlobalIdxOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
