"""Tensor-core layout attributes of the `layout` dialect (algebra in `mma.py`).

    #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
    #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
    #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<...>, kWidth = 2>
    #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>

`nvidia_mma` (the accumulator of `mma.sync` / `wgmma`) and `dot_op` (an MMA operand)
are distributed layouts: they implement `encoding.DistributedEncoding`, so a
`tensor<16x8xf32, #layout.nvidia_mma<...>>` converts, loads, stores, prints with
`tilec show-layout` and takes part in `remove-layout-conversions` like a blocked one.
A slice of either (`#layout.slice<{dim = 0, parent = #layout.nvidia_mma<...>}>`)
works too.

`nvmma_shared` is the shared-memory layout that `wgmma` and `ldmatrix` read (Triton's
`NVMMASharedEncodingAttr`), for a tensor of `shape`: a view layout (it *is* a
`#layout.composed` swizzled layout, which every pass and the executor already know),
usable as the layout of `layout.alloc`:

    %a = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 128,
             elementBitWidth = 16, transposed = false, shape = [64, 64]>, smem>

Invalid parameters are parse errors at the attribute, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Attribute, Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from .encoding import AlgebraEncoding
from .errors import LayoutError
from .layout_attrs import ComposedLayoutAttr, _parse_int_list, _print_int_list, element_bytes
from .mma import DotOperandLayout, NvidiaMmaLayout, NvmmaSharedLayout
from .swizzle import ComposedLayout

__all__ = [
    "NvidiaMmaLayoutAttr",
    "DotOperandLayoutAttr",
    "NvmmaSharedLayoutAttr",
    "MMA_ATTRIBUTES",
]


def _parse_fields(
    parser: AttrParser, fields: dict[str, Callable[[], object]]
) -> dict[str, object]:
    """Parse `<key = value, ...>` (every key of `fields` exactly once, any order)."""
    out: dict[str, object] = {}

    def one() -> None:
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in fields:
            parser.raise_error(f"unknown field '{key}', expected one of {', '.join(fields)}", pos)
        if key in out:
            parser.raise_error(f"field '{key}' given twice", pos)
        parser.parse_punctuation("=")
        out[key] = fields[key]()

    parser.parse_comma_separated_list(parser.Delimiter.ANGLE, one)
    missing = [k for k in fields if k not in out]
    if missing:
        parser.raise_error(f"missing field(s) {', '.join(missing)}")
    return out


def _int(parser: AttrParser) -> Callable[[], int]:
    return lambda: parser.parse_integer(allow_boolean=False)


def _mma_text(m: NvidiaMmaLayout) -> str:
    return (
        f"#layout.nvidia_mma<version = {m.version}, warpsPerCTA = "
        f"{_print_int_list(m.warps_per_cta)}, instrShape = {_print_int_list(m.instr_shape)}>"
    )


@irdl_attr_definition
class NvidiaMmaLayoutAttr(AlgebraEncoding, Data[NvidiaMmaLayout]):
    """The accumulator layout of `mma.sync.m16n8k*` (version 2) or `wgmma` (version 3):
    Triton's `#ttg.nvidia_mma`, for f32 and i32 accumulators alike.

        #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
        #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>

    One warp owns a 16 x 8 tile (version 2) or 16 x N rows of a `wgmma` `M x N`
    (version 3; `M = 64` is a warpgroup of 4 warps stacked along M, the same ownership
    as `M = 16`): lane `l` holds elements `(l/4 + 8*(i/2), 2*(l%4) + i%2)` in registers
    `i = 0..3` (the PTX ISA's C/D fragment), repeated every 8 columns. Warps tile the
    CTA row-major (version 2) or column-major (version 3); a larger tensor repeats the
    CTA tile in registers, a smaller one broadcasts. Version 2 takes `instrShape =
    [16, 8]` (or `[1, 16, 8]` with a batch dim); version 3 `[16|64, N, K]` with N a power
    of two up to 256, K in {8, 16, 32}, and whole warpgroups."""

    name = "layout.nvidia_mma"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> NvidiaMmaLayout:
        pos = parser.pos
        f = _parse_fields(
            parser,
            {
                "version": _int(parser),
                "warpsPerCTA": lambda: _parse_int_list(parser),
                "instrShape": lambda: _parse_int_list(parser),
            },
        )
        try:
            return NvidiaMmaLayout(f["version"], f["warpsPerCTA"], f["instrShape"])  # type: ignore[arg-type]
        except LayoutError as e:
            parser.raise_error(f"invalid nvidia_mma layout: {e}", pos, parser.pos)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(_mma_text(self.data)[len("#layout.nvidia_mma"):])



@irdl_attr_definition
class DotOperandLayoutAttr(AlgebraEncoding, Data[DotOperandLayout]):
    """Operand A (`opIdx = 0`, `M x K`) or B (`opIdx = 1`, `K x N`) of the MMA whose
    accumulator layout is `parent`, `kWidth` consecutive K elements per thread:
    Triton's `#ttg.dot_op`.

        #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<...>, kWidth = 2>

    One warp's tile is `16 x 8*kWidth` (A) or `8*kWidth x 8` (B): 4 lanes along K,
    8 along M (A) or N (B). `kWidth` 2, 1 and 4 give the PTX ISA fragments of
    `mma.m16n8k16` (f16/bf16), `m16n8k8` (tf32) and `m16n8k32` (s8). Warps are the
    parent's, broadcast along K. A version-3 parent has only operand A in registers."""

    name = "layout.dot_op"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> DotOperandLayout:
        pos = parser.pos
        f = _parse_fields(
            parser,
            {"opIdx": _int(parser), "parent": parser.parse_attribute, "kWidth": _int(parser)},
        )
        parent = f["parent"]
        if not isinstance(parent, NvidiaMmaLayoutAttr):
            parser.raise_error(
                f"invalid dot_op layout: the parent must be a #layout.nvidia_mma, got {parent}",
                pos,
                parser.pos,
            )
        try:
            return DotOperandLayout(f["opIdx"], parent.data, f["kWidth"])  # type: ignore[arg-type]
        except LayoutError as e:
            parser.raise_error(f"invalid dot_op layout: {e}", pos, parser.pos)

    def print_parameter(self, printer: Printer) -> None:
        d = self.data
        printer.print_string(
            f"<opIdx = {d.op_idx}, parent = {_mma_text(d.parent)}, kWidth = {d.k_width}>"
        )

    @property
    def parent(self) -> NvidiaMmaLayoutAttr:
        return NvidiaMmaLayoutAttr(self.data.parent)



class NvmmaComposed(ComposedLayout):
    """The `ComposedLayout` of an NVMMA shared layout on a tensor of `shape`, which
    remembers where it came from: a view whose `#layout.composed` carries one prints it
    as `#layout.nvmma_shared<...>` and checks its element width (`view_error`)."""

    __slots__ = ("nvmma", "tensor_shape")

    def __init__(self, nvmma: NvmmaSharedLayout, shape: Sequence[int]):
        c = nvmma.composed(shape)
        super().__init__(c.swizzle, c.offset, c.layout)
        object.__setattr__(self, "nvmma", nvmma)
        object.__setattr__(self, "tensor_shape", tuple(shape))

    def __reduce__(self):
        return (NvmmaComposed, (self.nvmma, self.tensor_shape))

    def attr_text(self) -> str:
        """`#layout.nvmma_shared<...>`."""
        nv = self.nvmma
        return (
            f"#layout.nvmma_shared<swizzle = {nv.swizzle_bytes}, elementBitWidth = "
            f"{nv.element_bits}, transposed = {str(nv.transposed).lower()}, "
            f"shape = {_print_int_list(self.tensor_shape)}>"
        )

    def view_error(self, element_type: Attribute, space: str) -> str | None:
        """Why a view with this layout, elements and memory space is invalid, or None."""
        if space != "smem":
            return f"#layout.nvmma_shared is a shared-memory layout, the view is in {space}"
        bits = element_bytes(element_type) * 8
        if bits != self.nvmma.element_bits:
            return (
                f"#layout.nvmma_shared has elementBitWidth = {self.nvmma.element_bits} but the "
                f"elements are {element_type} ({bits} bits)"
            )
        return None


@irdl_attr_definition
class NvmmaSharedLayoutAttr(Data[NvmmaComposed]):
    """Triton's `#ttg.nvmma_shared` for a tensor of `shape`: the swizzled shared-memory
    layout that `wgmma` and `ldmatrix` read.

        #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>

    Tiles of 8 rows x `swizzle` bytes; 16-byte chunk `c` of row `r` of a tile is stored
    at chunk `c ^ (r / (128 / swizzle)) % (swizzle / 16)`; tiles stack down the rows,
    then across the columns (`transposed`: dim 0 is the contiguous one). Swizzle 0 is
    plain row-major. In CuTe terms: `Swizzle<log2(swizzle/16), log2(128/bits), 3> o 0 o
    layout` in elements (128 bytes of bf16: `Swizzle<3,3,3>`). As the layout of a
    `!layout.tensor` (e.g. of `layout.alloc`) it becomes the `#layout.composed` it
    equals, so views, copies, passes and the executor use it unchanged; the view prints
    it back in this syntax, and checks that it is in smem with elements of
    `elementBitWidth` bits."""

    name = "layout.nvmma_shared"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> NvmmaComposed:
        pos = parser.pos
        f = _parse_fields(
            parser,
            {
                "swizzle": _int(parser),
                "elementBitWidth": _int(parser),
                "transposed": parser.parse_boolean,
                "shape": lambda: _parse_int_list(parser),
            },
        )
        try:
            nv = NvmmaSharedLayout(f["swizzle"], f["elementBitWidth"], f["transposed"])  # type: ignore[arg-type]
            if (why := nv.shape_error(f["shape"])) is not None:  # type: ignore[arg-type]
                raise LayoutError(why)
            return NvmmaComposed(nv, f["shape"])  # type: ignore[arg-type]
        except LayoutError as e:
            parser.raise_error(f"invalid nvmma_shared layout: {e}", pos, parser.pos)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(self.data.attr_text()[len("#layout.nvmma_shared"):])

    @staticmethod
    def get(nvmma: NvmmaSharedLayout, shape: Sequence[int]) -> NvmmaSharedLayoutAttr:
        """The attribute of `nvmma` on a tensor of `shape` (LayoutError when it does not fit)."""
        if (why := nvmma.shape_error(shape)) is not None:
            raise LayoutError(why)
        return NvmmaSharedLayoutAttr(NvmmaComposed(nvmma, shape))

    @property
    def nvmma(self) -> NvmmaSharedLayout:
        return self.data.nvmma

    def offset_layout(self):
        """`offset` -> `(dim0, dim1)`, Triton's conversion of the shared layout."""
        return self.nvmma.to_linear(self.data.tensor_shape)

    def view_layout(self) -> ComposedLayoutAttr:
        """The `#layout.composed` a view with this layout carries."""
        return ComposedLayoutAttr(self.data)


MMA_ATTRIBUTES = [NvidiaMmaLayoutAttr, DotOperandLayoutAttr, NvmmaSharedLayoutAttr]

