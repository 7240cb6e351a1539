"""`#layout.auto`: a distributed layout the program leaves open for the compiler to choose.

A program states the tensor's rank and the block's warps and nothing else:

    %x = layout.load %tile : !T -> tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 4}>>
    %m = layout.reduce %x {axis = 1 : i64, kind = "max"}
        : tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 4}>>
        -> tensor<1xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 4}>}>>

The `coalesce` pass (passes/coalesce.py) replaces every `#layout.auto` of a launch by
the `#layout.blocked` layout it picks from the memory facts of the accesses that use it
(Triton's Coalesce): which mode is contiguous, how wide a vector the views' alignment
allows, the element size and the tile. Every tensor with one `#layout.auto` attribute
gets one layout, so a program's types stay consistent; slices of it follow.

Until that pass runs, a `#layout.auto` is a valid layout of its own (so the verifiers,
the reference executor and `lower-to-gpu` take it as they take any layout): Triton's
default blocked layout, one element per thread, the 32 lanes and then the warps along
the last dim (`sizePerThread = [1, .., 1]`, `threadsPerWarp = [1, .., 32]`,
`warpsPerCTA = [1, .., warps]`, `order = [rank - 1, .., 0]`). A `#layout.blocked`
written by the author is never changed: an explicit layout wins."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .distributed import BlockedLayout
from .encoding import DistributedEncoding
from .layout_attrs import _parse_struct, _verified

MAX_WARPS = 32
"""A block has at most 1024 threads: 32 warps."""


@irdl_attr_definition
class AutoLayoutAttr(DistributedEncoding, ParametrizedAttribute):
    """`#layout.auto<{rank = R, warps = W}>`: a distributed layout of rank R over W warps
    that the `coalesce` pass chooses (module docstring); until then Triton's default
    blocked layout (one element per thread, lanes then warps along the last dim)."""

    name = "layout.auto"
    rank: IntAttr = param_def()
    warps: IntAttr = param_def()

    def __init__(self, rank: int, warps: int):
        super().__init__(IntAttr(rank), IntAttr(warps))

    def encoding_rank(self) -> int:
        return self.rank.data

    def linear_layout(self, shape: Sequence[int]):
        return self.algebra().to_linear(list(shape))

    def thread_count(self) -> int:
        return 32 * self.warps.data

    def algebra(self) -> BlockedLayout:
        """The default blocked layout this stands for until `coalesce` chooses."""
        r, w = self.rank.data, self.warps.data
        last = [1] * (r - 1)
        return BlockedLayout([1] * r, last + [32], last + [w], list(range(r - 1, -1, -1)))

    def verify(self) -> None:
        r, w = self.rank.data, self.warps.data
        if r < 1:
            raise VerifyException(f"#layout.auto rank must be at least 1, got {r}")
        if w < 1 or w > MAX_WARPS or w & (w - 1):
            raise VerifyException(f"#layout.auto warps must be a power of two in [1, {MAX_WARPS}], got {w}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        pos = parser.pos
        with parser.in_angle_brackets():
            f = _parse_struct(
                parser,
                {
                    "rank": lambda: parser.parse_integer(allow_boolean=False),
                    "warps": lambda: parser.parse_integer(allow_boolean=False),
                },
            )
        return _verified(parser, pos, cls, (IntAttr(f["rank"]), IntAttr(f["warps"])))  # type: ignore[arg-type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{{rank = {self.rank.data}, warps = {self.warps.data}}}>")


def is_auto(attr) -> bool:
    """Whether a distributed layout is `#layout.auto` or a slice (of a slice ..) of one."""
    from .layout_attrs import SliceLayoutAttr

    while isinstance(attr, SliceLayoutAttr):
        attr = attr.parent
    return isinstance(attr, AutoLayoutAttr)
