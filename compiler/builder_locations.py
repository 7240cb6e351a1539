"""Where a Python-built program's ops come from: the user's `file:line:col`.

`user_location()` is the innermost frame of the caller outside tilec's own packages
(and outside `contextlib`, for `with p.if_():`). `located(cls)` wraps the public
methods and operators of a builder class so that what cannot be built (an xDSL
`VerifyException`, a `LayoutError`, a `TilecError` without a place) ends as a
`TilecError` at the user's line, never a traceback from inside the builder."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any, TypeVar

from xdsl.utils.exceptions import DiagnosticException

from tilec.dialects.errors import LayoutError
from tilec.support.diagnostics import TilecError

_PACKAGE = Path(__file__).resolve().parents[1]
_OWN = tuple(str(_PACKAGE / d) + "/" for d in ("api", "compiler", "dialects", "passes", "runtime", "support", "tools"))
_SKIP = (*_OWN, str(Path(contextlib.__file__).resolve()))


def user_location() -> str | None:
    """`file:line:col` of the innermost caller frame outside tilec and contextlib."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_SKIP) and name != _SKIP[-1]:
            columns = _columns(frame.f_code)
            i = frame.f_lasti // 2
            col = columns[i] + 1 if 0 <= i < len(columns) and columns[i] is not None else 1
            return f"{name}:{frame.f_lineno}:{col}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


@functools.lru_cache(maxsize=256)
def _columns(code: CodeType) -> tuple[int | None, ...]:
    """The start column of each instruction of `code` (`co_positions`), read once a code
    object: a program builds hundreds of ops from one caller, and listing the positions
    of a large caller for each (matmul_bench's `main`: 3470) cost more than the build."""
    return tuple(p[2] for p in code.co_positions())


def locate_in_built_ops(e: TilecError, locs: dict[Any, str | None]) -> None:
    """Give `e` (a verifier error on `e.op` of a built module) the user's line of the
    innermost op around `e.op` the builder noted in `locs`, where it has no location."""
    op = e.op
    while e.loc is None and op is not None:
        e.loc = locs.get(op)
        op = op.parent_op()


F = TypeVar("F", bound=Callable[..., Any])


def _locating(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TilecError as e:
            if e.loc is not None:
                raise
            raise TilecError(str(e), loc=user_location()) from None
        except (DiagnosticException, LayoutError) as e:
            message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise TilecError(f"cannot build this: {message}", loc=user_location()) from None

    return wrapper  # type: ignore[return-value]


C = TypeVar("C", bound=type)

_OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__mod__",
              "__truediv__", "__rtruediv__", "__and__", "__or__", "__lt__", "__le__", "__gt__", "__ge__",
              "__getitem__", "__setitem__", "__iadd__", "__rfloordiv__", "__rmod__", "__rand__", "__ror__",
              "__neg__", "__bool__", "__index__", "__iter__", "__isub__", "__imul__")


def located(cls: C) -> C:
    """Wrap `cls`'s public methods and operators (those it defines) in `_locating`."""
    for name, fn in list(vars(cls).items()):
        if callable(fn) and (not name.startswith("_") or name in _OPERATORS):
            setattr(cls, name, _locating(fn))
    return cls
