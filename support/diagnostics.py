"""Diagnostics: the one exception type that ends in a message for the user.

A `TilecError` says what is wrong and, when it is about an op, which op and where it came
from: the `tilec.loc` attribute (`file:line:col` of the source op) when the op carries
one. The driver prints `str(error)` and exits with status 1; a traceback reaching a user
is a bug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # xDSL is imported only where an op is at hand: the copy front end's
    from xdsl.ir import Operation  # hot and first-call paths never import it

LOC_ATTR = "tilec.loc"
"""Name of the attribute that holds an op's source location, `file:line:col`."""


def op_location(op: Operation | None) -> str | None:
    """The `tilec.loc` of `op` or of its closest ancestor that has one."""
    if op is None:
        return None
    from xdsl.dialects.builtin import StringAttr

    from tilec.support.locations import get_loc

    while op is not None:
        loc = op.attributes.get(LOC_ATTR)
        if isinstance(loc, StringAttr):
            return loc.data
        if (parsed := get_loc(op)) is not None:
            return parsed
        op = op.parent_op()
    return None


class TilecError(Exception):
    """A user-facing error, optionally about one op (and so one source location)."""

    def __init__(
        self, message: str, *, op: Operation | None = None, loc: str | None = None
    ):
        self.message = message
        self.op = op
        self.loc = loc if loc is not None else op_location(op)
        super().__init__(message)

    def __str__(self) -> str:
        text = self.message
        if self.op is not None and f"'{self.op.name}'" not in text:
            text = f"'{self.op.name}': {text}"
        if self.loc:
            text = f"{self.loc}: error: {text}"
        return text
