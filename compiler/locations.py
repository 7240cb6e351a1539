"""Source locations of ops.

xDSL ops carry no location, so tilec's parser records where each op began in a side
table (`file:line:col`), and passes that replace an op hand its location on with
`copy_loc`. `lower-to-gpu` writes the location into a `tilec.loc` attribute so that the
CUDA printer can put it in a comment.
"""

from __future__ import annotations

import weakref

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import MLIRTokenKind, Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

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
    """An xDSL parser that records where each operation starts.

    Every failure of `parse_module` is a `ParseError`, so that it has a line and a
    column: input nested too deeply for Python's stack (`RecursionError`, e.g. a
    thousand nested brackets) and errors raised while an alias (`#a = ...`,
    `!T = ...`) is built are reported at the token the parser had reached. Input with
    alias definitions but no operation is an empty module, as in MLIR."""

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        loc = self._current_token.span.get_location()
        op = super().parse_operation()
        _LOCATIONS[op] = f"{loc.file}:{loc.line + self._line_offset}:{loc.col}"
        return op

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            # Only alias definitions and comments, all parsed (xDSL wants an op): an
            # empty module, as MLIR reads it.
            if (
                allow_implicit_module
                and self._current_token.kind == MLIRTokenKind.EOF
                and e.msg == "Could not parse entire input!"
            ):
                return ModuleOp([])
            raise
        except RecursionError:
            # The stack has unwound to here; the token shows where nesting got too deep.
            raise ParseError(
                self._current_token.span,
                "input nested too deeply (brackets, attributes or regions)",
            ) from None
        except (DiagnosticException, ValueError, ArithmeticError) as e:
            text = str(e).strip()
            msg = text.splitlines()[0] if text else type(e).__name__
            raise ParseError(self._current_token.span, msg) from None
