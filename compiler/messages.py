"""Rewrites of xDSL's generic diagnostics into messages that name what the user wrote
and why it is wrong (issue 18): a constraint failure keeps its reason (xDSL puts it on
a second line, which one-line diagnostics cut off), and a constraint named after an
xDSL base attribute says which type was expected, of which op."""

from __future__ import annotations

import re

_BASE_NAMES = {
    "integer_type": "an integer type (i1, i8, i16, i32, i64)",
    "index": "index",
    "f32": "f32",
}

_EXPECTED_ATTR = re.compile(r"^Expected attribute (.+) but got (.+)$")
_BASE_ATTR = re.compile(r"^(.+) should be of base attribute (\w+)$")
_OP_NAME = re.compile(r"(?:^|[\s=])\"?([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*)\"?")


def verify_message(text: str) -> str:
    """One line from a VerifyException's text: its first line, and the reason xDSL
    gives on the lines after a first line ending in ':'."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return text
    msg = lines[0].removeprefix("Operation does not verify: ")
    if msg.endswith(":") and len(lines) > 1:
        reason = lines[1]
        m = _EXPECTED_ATTR.match(reason)
        if m:
            reason = f"expected {m.group(1)}, got {m.group(2)}"
        msg = f"{msg} {reason}"
    return msg


_TENSOR_CASTS = ("extsi", "extui", "trunci", "sitofp", "uitofp", "fptosi", "fptoui")
"""The integer casts that dialects/layout_compute.py defines on distributed tensors."""

TENSOR_COUNTERPARTS = (*_TENSOR_CASTS, "cmpi", "cmpf", "select")
"""The `arith` ops that take scalars only in xDSL and whose distributed-tensor form is
the `layout` op of the same name (dialects/layout_compute.py)."""


def tensor_hint(op_name: str) -> str:
    """What to use instead of the scalar-only `arith` op `op_name` on a distributed
    tensor ("" where `arith` itself is right)."""
    name = op_name.removeprefix("arith.")
    if not op_name.startswith("arith.") or name not in TENSOR_COUNTERPARTS:
        return ""
    return f"takes scalars, not tensors; on a distributed tensor use 'layout.{name}'"


def parse_message(msg: str, source_line: str, col: int = 0) -> str:
    """A parse error's message, with xDSL's base-attribute constraints spelled out and
    the op named (read from the source line the op starts on). `col` (1-based) is
    where the error points: xDSL 0.74's lexer writes "after {first_char}" unformatted,
    and the character there is the one it means (`%`, `#`, `!` or `^`)."""
    if "{first_char}" in msg and 0 < col <= len(source_line):
        msg = msg.replace("{first_char}", f"'{source_line[col - 1]}'")
    m = _BASE_ATTR.match(msg.strip())
    if not m:
        return msg
    got, base = m.group(1), m.group(2)
    want = _BASE_NAMES.get(base, base)
    op = _OP_NAME.search(source_line)
    where = f"'{op.group(1)}' takes" if op else "expected"
    text = f"{where} {want}, got {got}"
    if got.startswith("tensor<") and op and op.group(1).startswith("arith."):
        text += f": '{op.group(1)}' (xDSL's arith cast) takes scalars, not tensors"
        name = op.group(1).removeprefix("arith.")
        if name in _TENSOR_CASTS:
            text += f"; on a distributed tensor use 'layout.{name}'"
    return text
