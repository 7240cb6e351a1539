"""Element types and layouts as the Python builder takes them (`"f32"`, `"(8,4):(4,1)"`)."""

from __future__ import annotations

from xdsl.ir import Attribute

from tilec.dialects import cute
from tilec.dialects.dtypes import DTYPES, ELEMENTS
from tilec.support.diagnostics import TilecError

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
