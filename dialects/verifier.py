"""The refusals of the dialects' verifiers: `check(cond, msg)` raises xDSL's
`VerifyException(msg)` unless `cond` holds, and `refusing_layout_errors()` turns the
layout algebra's LayoutError into one (the driver makes it a located diagnostic at the
op)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.utils.exceptions import VerifyException

from .errors import LayoutError


def check(cond: bool, msg: str) -> None:
    """Refuse the op being verified with `msg` unless `cond`."""
    if not cond:
        raise VerifyException(msg)


@contextmanager
def refusing_layout_errors() -> Iterator[None]:
    """Refuse the op being verified with the message of a LayoutError raised inside."""
    try:
        yield
    except LayoutError as e:
        raise VerifyException(str(e)) from e
