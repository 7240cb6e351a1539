"""Errors of the reference executor, the one way a check over many threads, elements
or blocks fails (`fail_first`), and how an op's source location is found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    NameLoc,
    StringAttr,
)
from xdsl.ir import Attribute, Operation

from tilec.support.diagnostics import LOC_ATTR, TilecError
from tilec.support.locations import get_loc


class ExecutionError(TilecError):
    """A program did something that has no defined result on a GPU.

    Raised instead of computing a value silently: out-of-bounds accesses, reads of
    uninitialised shared or register memory, data races, threads that miss a barrier,
    misaligned vector accesses, division by zero. `str(error)` is
    `file:line:col: error: 'op.name': message`, the message naming the offending thread
    and index; `location`, `reason` and `details` (thread, index, ...) keep the same
    facts for tests.
    """

    def __init__(self, op: Operation | None, message: str, **details: object):
        self.location = location_of(op) if op is not None else None
        self.reason = message
        self.details = details
        super().__init__(message, op=op, loc=self.location)


def fail_first(op: Operation | None, bad: np.ndarray, message: Callable[[int], str],
               **details: Callable[[int], Any]) -> None:
    """The one way every check over many elements, threads or blocks fails: where `bad`
    holds anywhere, raise an `ExecutionError` of `op` at the first such entry `i`, with
    `message(i)` and each detail `name=f` as `name=f(i)`; return otherwise."""
    if bad.any():
        i = int(np.argmax(bad))
        raise ExecutionError(op, message(i), **{k: f(i) for k, f in details.items()})


def check_blocks(op: Operation | None, bad: np.ndarray, message: Callable[[int], str],
                 blocks: np.ndarray | None = None) -> None:
    """`fail_first` over blocks: `bad[k]` speaks of block `blocks[k]` (of block k where
    `blocks` is None); the error at the first bad block `b` has `message(b)` and
    `block=b` in its details."""
    block = (lambda k: k) if blocks is None else (lambda k: int(blocks[k]))
    fail_first(op, bad, lambda k: message(block(k)), block=block)


def _loc_text(loc: Attribute) -> str | None:
    match loc:
        case FileLineColLoc():
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        case NameLoc():
            inner = _loc_text(loc.location)
            return inner if inner is not None else loc.desc.data
        case CallSiteLoc():
            return _loc_text(loc.callee)
        case FusedLoc():
            for sub in loc.locations.data:  # type: ignore[attr-defined]
                text = _loc_text(sub)
                if text is not None:
                    return text
            return None
        case _:
            return None


def location_of(op: Operation) -> str | None:
    """`file:line:col` of an op, or of its closest ancestor that has one: its
    `tilec.loc` attribute, the position tilec's parser recorded, or an MLIR
    `loc(...)` written in the text."""
    cur: Operation | None = op
    while cur is not None:
        attr = cur.attributes.get(LOC_ATTR)
        if isinstance(attr, StringAttr):
            return attr.data
        if (text := get_loc(cur)) is not None:
            return text
        if (text := _loc_text(cur.location)) is not None:
            return text
        cur = cur.parent_op()
    return None
