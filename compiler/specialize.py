"""Launch-time specialisation of pointer-tensor kernels on their arguments, as Triton
specialises `gl.load` kernels: an integer argument equal to 1 becomes the constant 1,
one divisible by 16 is promised so (`layout.multiple_of`), a pointer whose address is
a multiple of 16 bytes gets `align 16`. The facts are stated in the IR before the
passes run, so `vectorize-pointers` (AxisInfo) picks vector accesses where they hold:
a 2-D copy with run-time strides reads rows of contiguous vectors when its inner
stride is 1 and its row pitch a multiple of 16.

`specialisable(func)` tells which arguments take part; `specialize(func, facts)`
rewrites a layout-level function in place for one key (one fact pair per argument,
None for an argument that takes no part). The launcher (tilec.compiling) computes the
key of each call and compiles one kernel per key."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FunctionType, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, BlockArgument, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import layout
from tilec.dialects import layout_ptr as lp
from tilec.dialects.layout_attrs import PtrType

DIVISOR = 16
"""Triton's divisibility specialisation: integers by 16, pointers by 16 bytes."""

Facts = tuple[bool, bool] | None
"""(equal to 1, divisible by 16) of an integer argument; (aligned, aligned) of a
pointer; None for an argument that takes no part."""


def is_pointer_program(f: func.FuncOp) -> bool:
    """Whether `f` loads or stores through pointer tensors (Gluon's `gl.load` kernels)."""
    return any(isinstance(op, lp.PtrLoadOp | lp.PtrStoreOp) for op in f.walk())


def specialisable(f: func.FuncOp) -> list[str | None]:
    """Per argument of `f`: "int" (specialised on == 1 and % 16 == 0), "ptr" (on its
    address % 16 == 0, where its type promises less) or None."""
    out: list[str | None] = []
    for a in f.body.block.args:
        t = a.type
        if isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data > 1:
            out.append("int")
        elif isinstance(t, PtrType) and t.alignment < DIVISOR:
            out.append("ptr")
        else:
            out.append(None)
    return out


def specialize(f: func.FuncOp, facts: Sequence[Facts]) -> None:
    """Rewrite `f` for one key: uses of an integer argument equal to 1 read the constant
    1; inside each `layout.launch`, uses of one divisible by 16 read
    `layout.multiple_of %arg {divisor = 16}`; a pointer argument known aligned gets the
    type `!layout.ptr<T, align 16>`."""
    block = f.body.block
    for a, fact in zip(list(block.args), facts, strict=True):
        if fact is None:
            continue
        if isinstance(a.type, PtrType):
            if fact[0]:
                Rewriter.replace_value_with_new_type(a, PtrType(a.type.element_type, DIVISOR))
            continue
        one, divisible = fact
        if one:
            c = arith.ConstantOp(IntegerAttr(1, a.type))
            Rewriter.insert_op(c, InsertPoint.at_start(block))
            a.replace_all_uses_with(c.result)
        elif divisible:
            for launch in [op for op in f.walk() if isinstance(op, layout.LaunchOp)]:
                _promise_in(launch, a)
    f.function_type = FunctionType.from_lists([a.type for a in block.args], list(f.function_type.outputs))


def _promise_in(launch: layout.LaunchOp, a: BlockArgument) -> None:
    body: Block = launch.body.block
    uses = [u for u in list(a.uses) if _inside(u.operation, launch)]
    if not uses:
        return
    promise = lp.MultipleOfOp(a, DIVISOR)
    Rewriter.insert_op(promise, InsertPoint.at_start(body))
    for u in uses:
        u.operation.operands[u.index] = promise.result


def _inside(op: Operation, launch: layout.LaunchOp) -> bool:
    """Whether `op` is nested in `launch`'s body (the launch's own operands, its grid,
    stay outside: the promise is defined in the body)."""
    op = op.parent_op()
    while op is not None:
        if op is launch:
            return True
        op = op.parent_op()
    return False
