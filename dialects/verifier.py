"""The one-line refusal of the dialects' verifiers: `check(cond, msg)` raises xDSL's
`VerifyException(msg)` unless `cond` holds (the driver turns it into a located
diagnostic at the op)."""

from __future__ import annotations

from xdsl.utils.exceptions import VerifyException


def check(cond: bool, msg: str) -> None:
    """Refuse the op being verified with `msg` unless `cond`."""
    if not cond:
        raise VerifyException(msg)
