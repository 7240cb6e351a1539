"""`Operand`s for the copy planner's tests: row-major strides unless given."""

from __future__ import annotations

from tilec.copy_plan import Operand


def operand(shape, strides=None, dtype="float32", ptr=0, device=None) -> Operand:
    """An `Operand` of `shape` at `ptr`; `strides` (in elements) default to row-major."""
    if strides is None:
        strides, step = [], 1
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    return Operand(ptr, dtype, tuple(shape), tuple(strides), device)
