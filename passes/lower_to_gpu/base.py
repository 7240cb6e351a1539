"""The `@lowers` mark of `lower-to-gpu`'s op lowerings and their located errors.

Each op family (a module of this package) is an `OpFamily` subclass (context.py)
whose methods marked `@lowers(OpType, ...)` lower those ops; kernel.py builds the
dispatch table from the marks."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from tilec.dialects.distributed import MAX_REGISTERS_PER_THREAD
from tilec.support.diagnostics import TilecError

from .._layout_cost import is_distributed, linear_of

Lowering = Callable[..., None]
"""A family's method `(family, op) -> None`, or a function `(ctx, op) -> None`."""


def lowers(*op_types: type[Operation]) -> Callable[[Lowering], Lowering]:
    """Mark a method `(family, op) -> None` of an `OpFamily`, or a function
    `(ctx, op) -> None`, as the lowering of `op_types`."""

    def mark(fn: Lowering) -> Lowering:
        fn.lowers = op_types  # type: ignore[attr-defined]
        return fn

    return mark


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _fail(op: Operation, msg: str) -> TilecError:
    return TilecError(msg, op=op)


def _check_registers(op: Operation) -> None:
    """A located error for a distributed result past MAX_REGISTERS_PER_THREAD."""
    for r in op.results:
        if is_distributed(r.type):
            ll = linear_of(r.type)  # type: ignore[arg-type]
            if ll is not None and ll.num_registers > MAX_REGISTERS_PER_THREAD:
                raise _fail(
                    op,
                    f"each thread would hold {ll.num_registers} elements of {r.type} in registers; "
                    f"lower-to-gpu unrolls at most {MAX_REGISTERS_PER_THREAD} per thread: "
                    "use more threads or smaller tiles",
                )
