"""Adding and removing the values that cross an `scf.if` or `scf.for` boundary (results,
loop-carried slots), for `remove-layout-conversions` (not a pass).

xDSL ops have a fixed list of results, so each edit builds a new op that takes the old
op's regions, hands the old results' uses to the new results, and erases the old op."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.support.locations import copy_loc


def _replace(old: Operation, new: Operation, keep: Sequence[int]) -> None:
    """`new` takes `old`'s place: its attributes and location, result i of `old` for i
    in `keep` becoming `new`'s k-th (uses and name); `old` (whose other results are
    unused) is erased."""
    new.attributes.update(old.attributes)
    Rewriter.insert_op(new, InsertPoint.before(old))
    copy_loc(old, new)
    for k, i in enumerate(keep):
        old.results[i].replace_all_uses_with(new.results[k])
        if old.results[i].name_hint:
            new.results[k].name_hint = old.results[i].name_hint
    Rewriter.erase_op(old)


def rebuild_if(
    op: scf.IfOp, keep: Sequence[int], extra: Sequence[tuple[SSAValue, SSAValue]]
) -> scf.IfOp:
    """`op` with results `keep` (indices, in order) followed by one result per
    (then value, else value) of `extra`; results not kept must be unused."""
    yt, yf = op.true_region.block.last_op, op.false_region.block.last_op
    assert isinstance(yt, scf.YieldOp) and isinstance(yf, scf.YieldOp)
    yt.operands = [*(yt.operands[i] for i in keep), *(a for a, _ in extra)]
    yf.operands = [*(yf.operands[i] for i in keep), *(b for _, b in extra)]
    types: list[Attribute] = [op.results[i].type for i in keep] + [a.type for a, _ in extra]
    then_region, else_region = op.true_region, op.false_region
    new = scf.IfOp(op.cond, types, op.detach_region(then_region), op.detach_region(else_region))
    _replace(op, new, keep)
    return new


def rebuild_for(loop: scf.ForOp, keep: Sequence[int], inits: Sequence[SSAValue]) -> scf.ForOp:
    """`loop` with carried slots `keep` (indices, in order) followed by one new slot per
    value of `inits`, whose body argument is appended to the body and whose yielded value
    is, until the caller sets it, the init itself. Slots not kept must be unused (their
    body argument and result)."""
    body = loop.body.block
    y = body.last_op
    assert isinstance(y, scf.YieldOp)
    drop = [i for i in range(len(loop.iter_args)) if i not in keep]
    y.operands = [*(y.operands[i] for i in keep), *inits]
    for i in reversed(drop):
        body.erase_arg(body.args[1 + i])
    for v in inits:
        body.insert_arg(v.type, len(body.args))
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [*(loop.iter_args[i] for i in keep), *inits],
                    loop.detach_region(loop.body))
    _replace(loop, new, keep)
    return new


def rebuild_while(
    op: scf.WhileOp,
    keep_iter: Sequence[int],
    inits: Sequence[SSAValue],
    keep_fwd: Sequence[int],
    forwarded: Sequence[SSAValue],
) -> scf.WhileOp:
    """`op` with the values entering `before` `keep_iter` followed by one per value of
    `inits` (which `after` yields until the caller sets it), and the values that
    `scf.condition` forwards (to `after` and to the results) `keep_fwd` followed by
    `forwarded` (values of `before`). Dropped ones must be unused."""
    before, after = op.before_region.block, op.after_region.block
    cond, y = before.last_op, after.last_op
    assert isinstance(cond, scf.ConditionOp) and isinstance(y, scf.YieldOp)
    cond.operands = [cond.condition, *(cond.args[j] for j in keep_fwd), *forwarded]
    y.operands = [*(y.operands[i] for i in keep_iter), *inits]
    for i in reversed([i for i in range(len(before.args)) if i not in keep_iter]):
        before.erase_arg(before.args[i])
    for v in inits:
        before.insert_arg(v.type, len(before.args))
    for j in reversed([j for j in range(len(after.args)) if j not in keep_fwd]):
        after.erase_arg(after.args[j])
    for v in forwarded:
        after.insert_arg(v.type, len(after.args))
    types = [op.results[j].type for j in keep_fwd] + [v.type for v in forwarded]
    before_region, after_region = op.before_region, op.after_region
    new = scf.WhileOp([*(op.arguments[i] for i in keep_iter), *inits], types,
                      op.detach_region(before_region), op.detach_region(after_region))
    _replace(op, new, keep_fwd)
    return new
