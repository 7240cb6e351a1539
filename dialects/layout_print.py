"""`layout.print`: a debug print of a small view's values (CuTe's `print_tensor`,
Mojo's `print(tile)`).

    layout.print %tile : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, smem>

prints, once per launch (by thread 0 of block (0, 0, 0), as CuTe's
`if (thread0()) print_tensor(t)`), a header naming the memory, element width and
layout, then the elements as a matrix: row r holds the elements whose mode-0 index is r,
column c those whose index over the remaining modes (colexicographic) is c; a view of
rank 1 is one row. An element of a vectorized view is its vector, `[a b c d]`.

    smem_ptr[32b] o (4,8):(8,1):
             0          1          2 ...

Floats print as `%10.4g`, integers as `%6d` (`%6lld` for i64), separated by a space.
The reference executor writes the text to stdout; on the GPU it is `printf` (CUDA's
device printf, whose buffer the host prints at the next synchronisation). Both
produce the text from the same plan (`print_plan`), so they agree character for
character. A thread other than thread 0 of block 0 prints nothing, and neither does
thread 0 when control flow keeps it from the op.

A distributed tensor (`tensor<4x8xf32, #layout.blocked<...>>`, in registers) prints as
Gluon's `gl.device_print` does: every thread of block 0 prints each element it holds,
one line per register, with the element's coordinate; thread 0 first prints a header.

    layout.print %x : tensor<4x8xf32, #blocked>

    tensor<4x8xf32, #layout.blocked<...>> in block 0, per thread:
    tid   0 idx (0, 0):     0.1257
    ...

The reference executor prints threads in order, registers in order; on the GPU the
lines of different threads come in the order the hardware gives (compare them sorted).
An element held by several threads (a broadcast layout) is printed by each.

The verifier accepts views with static extents, no mask (a partial tile has no value to
print past its edge: print the tile before it leaves its tensor, or a view inside it)
and at most `PRINT_LIMIT` scalar values (a debug print of a tile, not of a tensor), and
distributed tensors of at most `PRINT_LIMIT` held elements (threads x registers), of
float or integer elements, inside a `layout.launch`."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from . import cute, views
from .effects import Accesses, Synchronizes
from .layout_attrs import (
    ELEMENT_TYPES,
    DistributedLayoutAttr,
    TensorViewType,
    element_bytes,
    threads_per_block,
    to_linear,
)
from .layout_roles import enclosing_launch_op

PRINT_LIMIT = 1024
"""The most scalar values one `layout.print` prints."""

PRINTF_VALUES = 24
"""The most values one printf call takes (CUDA's device printf takes at most 32
arguments): a row is printed in pieces of whole elements."""


def value_format(t: Attribute) -> str:
    """The printf conversion of one value of element type t (after the widening the
    lowering does: floats to f32 or f64, integers to i32 or i64)."""
    if isinstance(t, IntegerType):
        return "%6lld" if t.width.data > 32 else "%6d"
    return "%10.4g"


def _layout_text(t: TensorViewType) -> str:
    s = str(t.layout)
    return s[s.index("<") + 1: -1]


def header(t: TensorViewType) -> str:
    """CuTe's `ptr[32b](address) o layout:` without the address (run to run the same);
    a vectorized view adds its vector layout."""
    bits = 8 * element_bytes(t.element_type)
    vec = "" if t.vec_layout is None else f" vec {t.vec_layout}"
    return f"{t.memory_space}_ptr[{bits}b] o {_layout_text(t)}{vec}:"


@dataclass(frozen=True)
class PrintLine:
    """One printf: its format (C, `%%` for a percent sign) and the scalar values it
    takes, as flat indices into the view's values (element-major, lanes minor: element
    i's lane j is i * lanes + j)."""

    format: str
    values: tuple[int, ...]


def print_plan(t: TensorViewType) -> list[PrintLine]:
    """The printf calls that print view type t: the header, then each row in pieces of
    whole elements of at most PRINTF_VALUES values (a newline ends a row's last)."""
    lay = t.cute_layout
    ms = views.modes(lay)
    n = int(lay.size())
    rows = int(ms[0].size()) if len(ms) > 1 else 1
    cols = n // rows
    lanes = t.vector_size if t.vec_layout is not None else 1
    spec = value_format(t.element_type)
    elem = spec if t.vec_layout is None else "[" + " ".join([spec] * lanes) + "]"
    out = [PrintLine(header(t).replace("%", "%%") + "\n", ())]
    for r in range(rows):
        piece: list[str] = []
        vals: list[int] = []
        for c in range(cols):
            i = r + rows * c  # colexicographic: mode 0 fastest
            if vals and len(vals) + lanes > PRINTF_VALUES:
                out.append(PrintLine(" ".join(piece) + " ", tuple(vals)))
                piece, vals = [], []
            piece.append(elem)
            vals.extend(i * lanes + j for j in range(lanes))
        out.append(PrintLine(" ".join(piece) + "\n", tuple(vals)))
    return out


def distributed_header(t: TensorType) -> str:
    """The header line thread 0 prints before the per-thread lines."""
    return f"{t} in block 0, per thread:\n".replace("%", "%%")


def distributed_line(t: TensorType) -> str:
    """The format of one held element: thread id, coordinate (one per dim), value."""
    rank = len(t.get_shape())
    return "tid %3d idx (" + ", ".join(["%d"] * rank) + "): " + value_format(t.element_type) + "\n"


def render_distributed(t: TensorType, values, coords, held) -> str:
    """The text of block 0's distributed tensor `values` (its shape), each thread's held
    registers in order: `coords` [threads, registers, rank], `held` [threads, registers]
    (`reference.layout_impls.ownership`)."""
    out = [distributed_header(t) % ()]
    line = distributed_line(t)
    for tid in range(coords.shape[0]):
        for r in range(coords.shape[1]):
            if held[tid, r]:
                c = tuple(int(x) for x in coords[tid, r])
                out.append(line % (tid, *c, py_scalar(values[c])))
    return "".join(out)


def render(t: TensorViewType, values) -> str:
    """The text `print_plan` prints for flat scalar `values` (Python's `%` formats as C's
    printf does for these conversions)."""
    out = []
    for line in print_plan(t):
        out.append(line.format % tuple(py_scalar(values[k]) for k in line.values))
    return "".join(out)


def py_scalar(x):
    """A NumPy scalar as the Python int or float that `%` formats."""
    import numpy as np

    x = np.asarray(x)
    return float(x) if x.dtype.kind == "f" else int(x)


@irdl_op_definition
class PrintOp(IRDLOperation):
    """Print a small view's values (CuTe's `print_tensor`, Mojo's `print(tile)`), once
    per launch, by thread 0 of block 0 (module docstring):

        layout.print %tile : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, smem>"""

    name = "layout.print"
    source = operand_def(TensorViewType | TensorType)
    traits = traits_def(Accesses(reads=("view",)), Synchronizes())  # output: never erased
    assembly_format = "$source attr-dict `:` type($source)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source):
        super().__init__(operands=[source])

    @property
    def view(self):
        """The printed view (None for a distributed tensor: Accesses reads nothing)."""
        return self.source if isinstance(self.source.type, TensorViewType) else None

    def verify_(self) -> None:
        t = self.source.type
        et = t.element_type
        if not isinstance(et, ELEMENT_TYPES):
            raise VerifyException(f"layout.print prints float or integer elements, not {et}")
        if enclosing_launch_op(self) is None:
            raise VerifyException("layout.print runs inside a layout.launch (thread 0 of block 0 prints)")
        if isinstance(t, TensorType):
            if not isinstance(t.encoding, DistributedLayoutAttr):
                raise VerifyException(f"layout.print prints a view or a distributed tensor, not {t}")
            n = threads_per_block(t.encoding) * to_linear(t.encoding, list(t.get_shape())).num_registers
            if n > PRINT_LIMIT:
                raise VerifyException(f"layout.print prints at most {PRINT_LIMIT} values (a debug print of a tile); "
                                      f"the threads of {t} hold {n}")
            return
        if any(views.is_dynamic(s) for s in cute.flatten(t.cute_layout.shape)):
            raise VerifyException(f"layout.print needs static extents, not {t.cute_layout}")
        if t.is_masked:
            raise VerifyException("layout.print of a masked view: its elements past the tensor's edge have no "
                                  "value; print a view inside the tensor")
        n = int(t.cute_layout.size()) * (t.vector_size if t.vec_layout is not None else 1)
        if n > PRINT_LIMIT:
            raise VerifyException(f"layout.print prints at most {PRINT_LIMIT} values (a debug print of a tile); "
                                  f"this view has {n}: print a tile or slice of it")


PRINT_OPS = (PrintOp,)
"""Registered in the `layout` dialect (dialects/layout.py)."""
