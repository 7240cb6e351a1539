"""Source locations of ops.

tilec's parser records where each op began in the op's own `location` (an xDSL
`FileLineColLoc`; clones keep it), and passes that replace an op hand its location on
with `copy_loc`. `lower-to-gpu` writes the location into a `tilec.loc` attribute so that the
CUDA printer can put it in a comment.
"""

from __future__ import annotations

import math
import re

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.parser import MLIRTokenKind, Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.mlir_lexer import MLIRLexer

MAX_DENSE_ELEMENTS = 2**24
"""Elements a `dense<...>` attribute may have (xDSL stores one value per element)."""


def get_loc(op: Operation) -> str | None:
    """`file:line:col` where `op` was parsed (or inherited with `copy_loc`)."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return None


def _location(file: str, line: int, col: int) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))


def set_loc(op: Operation, loc: str | None) -> None:
    """Give `op` the location `file:line:col` (None: leave it as it is)."""
    if loc is not None:
        file, line, col = loc.rsplit(":", 2)
        op.location = _location(file, int(line), int(col))


def copy_loc(src: Operation, *dsts: Operation) -> None:
    """Give ops made to replace `src` its location (and nested ops without one)."""
    copy_loc_from(src.location, *dsts)


def copy_loc_from(loc: Attribute, *dsts: Operation) -> None:
    """Give `dsts` (and the ops nested in them) without a location `loc`, where it is
    a file location."""
    if not isinstance(loc, FileLineColLoc):
        return
    for d in dsts:
        for op in d.walk():
            if not isinstance(op.location, FileLineColLoc):
                op.location = loc


# xDSL 0.74 lexes a string literal with `"(?:[^"...]+|\\...)*"`: a repetition of a
# repetition, whose backtracking on an unterminated literal (a file cut inside a string)
# doubles with every character, so tilec hung on `"` followed by 30 characters and no
# closing quote (found by tests/fuzz/test_cli_fuzz.py's prefixes). The same language,
# one character at a time: each character matches one way, so a failure is linear.
MLIRLexer._unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


class LocatingParser(Parser):
    """An xDSL parser that records where each operation starts.

    Every failure of `parse_module` is a `ParseError`, so that it has a line and a
    column: dense literals of more than MAX_DENSE_ELEMENTS elements (which xDSL would
    materialise), input nested too deeply for Python's stack (`RecursionError`, e.g. a
    thousand nested brackets) and errors raised while an alias (`#a = ...`,
    `!T = ...`) is built are reported at the token the parser had reached. Input with
    alias definitions but no operation is an empty module, as in MLIR."""

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        loc = self._current_token.span.get_location()
        op = super().parse_operation()
        op.location = _location(loc.file, loc.line + self._line_offset, loc.col)
        return op

    def _parse_dense_literal_type(self):
        # xDSL repeats a splat `dense<0.0>` into one Python value per element of the
        # type: a tensor<2^40xf32> would exhaust memory before any verifier runs.
        start = self._current_token.span
        type = super()._parse_dense_literal_type()
        count = math.prod(type.get_shape())
        if count > MAX_DENSE_ELEMENTS:
            raise ParseError(
                start,
                f"dense literal of {count} elements: tilec holds at most 2^24 elements in a dense attribute",
            )
        return type

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
