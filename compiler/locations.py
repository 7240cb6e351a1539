"""Source locations of ops.

xDSL ops carry no location, so tilec's parser records where each op began in a side
table (`file:line:col`), and passes that replace an op hand its location on with
`copy_loc`. `lower-to-gpu` writes the location into a `tilec.loc` attribute so that the
CUDA printer can put it in a comment.
"""

from __future__ import annotations

import weakref

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.parser import Parser

_LOCATIONS: weakref.WeakKeyDictionary[Operation, str] = weakref.WeakKeyDictionary()


def get_loc(op: Operation) -> str | None:
    """`file:line:col` where `op` was parsed (or inherited with `copy_loc`)."""
    return _LOCATIONS.get(op)


def set_loc(op: Operation, loc: str | None) -> None:
    if loc is not None:
        _LOCATIONS[op] = loc


def copy_loc(src: Operation, *dsts: Operation) -> None:
    """Give ops made to replace `src` its location (and nested ops without one)."""
    loc = get_loc(src)
    if loc is None:
        return
    for d in dsts:
        for op in d.walk():
            _LOCATIONS.setdefault(op, loc)


class LocatingParser(Parser):
    """An xDSL parser that records where each operation starts."""

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        loc = self._current_token.span.get_location()
        op = super().parse_operation()
        _LOCATIONS[op] = f"{loc.file}:{loc.line + self._line_offset}:{loc.col}"
        return op
