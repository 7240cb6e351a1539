"""Element types and layouts as the Python builder takes them (`"f32"`, `"(8,4):(4,1)"`)."""

from __future__ import annotations

from xdsl.ir import Attribute

from tilec.dialects import cute
from tilec.dialects.dtypes import DTYPES, ELEMENTS
from tilec.support.diagnostics import TilecError

ARGS_ATTR = "tilec.args"
"""A function's attribute `{n = 100 : index}` giving index arguments the values a run
takes where none are given (what the reference executor's `random_inputs` reads:
runtime/reference/api.py); the builders' `index(name, value=...)` write it."""

ELEMENT_TYPES: dict[str, Attribute] = {e.name: e.attr() for e in ELEMENTS.values()}
_ALIASES = {d.name: d.element.name for d in DTYPES.values() if not d.unsigned}
"""NumPy dtype names the builder also takes (`"float32"` for `"f32"`)."""


def element_type(name: str | Attribute) -> Attribute:
    """`"f32"` -> f32 (also accepts NumPy dtype names such as `"float32"`)."""
    if isinstance(name, Attribute):
        return name
    key = _ALIASES.get(str(name), str(name))
    if key not in ELEMENT_TYPES:
        raise TilecError(f"unknown element type '{name}' (expected one of {', '.join(ELEMENT_TYPES)})")
    return ELEMENT_TYPES[key]


def as_layout(layout: str | cute.Layout) -> cute.Layout:
    if isinstance(layout, cute.Layout):
        return layout
    try:
        return cute.parse_layout(layout)
    except Exception as e:
        raise TilecError(f"invalid layout '{layout}': {e}") from None


def parse_encoding(text: object) -> Attribute:
    """A distributed layout from its text (`#layout.blocked<{...}>`); a TilecError that
    quotes the text where it is not one (never xDSL's ParseError)."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    from .pipeline import make_context

    if not isinstance(text, str):
        raise TilecError(f"a layout encoding is a layout object (tilec.BlockedLayout(...)) or its text, e.g. "
                         f"\"#layout.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
                         f"warpsPerCTA = [4, 1], order = [1, 0]}}>\", not {text!r}")
    try:
        return Parser(make_context(), text).parse_attribute()
    except ParseError as e:
        why = str(e).strip().splitlines()[-1] if str(e).strip() else "not an attribute"
        raise TilecError(f"cannot read the layout encoding {text!r}: {why}") from None


def encoding_attr(layout: object) -> Attribute:
    """The IR attribute of a distributed layout given as a Python object
    (`tilec.BlockedLayout`, `SliceLayout`, `NvidiaMmaLayout`, `DotOperandLayout`), as
    its text, or as an attribute already."""
    from xdsl.dialects.builtin import IntAttr

    from tilec.dialects.distributed import BlockedLayout, SliceLayout
    from tilec.dialects.layout_attrs import BlockedLayoutAttr, SliceLayoutAttr
    from tilec.dialects.mma import DotOperandLayout, NvidiaMmaLayout
    from tilec.dialects.mma_layouts import DotOperandLayoutAttr, NvidiaMmaLayoutAttr

    if isinstance(layout, Attribute):
        return layout
    if isinstance(layout, BlockedLayout):
        return BlockedLayoutAttr(layout)
    if isinstance(layout, SliceLayout):
        return SliceLayoutAttr(IntAttr(layout.dim), encoding_attr(layout.parent))
    if isinstance(layout, NvidiaMmaLayout):
        return NvidiaMmaLayoutAttr(layout)
    if isinstance(layout, DotOperandLayout):
        return DotOperandLayoutAttr(layout)
    return parse_encoding(layout)


def view_layout_attr(layout: object) -> Attribute:
    """A view's layout as the builder takes it: CuTe text or a `cute.Layout`, a swizzled
    `ComposedLayout` (`tilec.ComposedLayout(tilec.Swizzle(3, 4, 3), 0, layout)`), the text
    of a layout attribute (`#layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>`), or an
    attribute already."""
    from tilec.dialects.layout_attrs import ComposedLayoutAttr, CuteLayoutAttr
    from tilec.dialects.swizzle import ComposedLayout

    if isinstance(layout, Attribute):
        return layout
    if isinstance(layout, ComposedLayout):
        return ComposedLayoutAttr(layout)
    if isinstance(layout, str) and layout.lstrip().startswith("#"):
        return parse_encoding(layout)
    return CuteLayoutAttr(as_layout(layout))  # type: ignore[arg-type]
