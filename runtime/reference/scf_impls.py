"""`scf` with divergence: control flow that depends on a per-thread value runs under a
mask of the threads that take it.

- `scf.if` with a uniform condition runs one side; with a per-thread condition it
  runs each side that some active thread takes, under the mask of those threads, and
  its results are selected per thread.
- `scf.for` with uniform bounds iterates; with per-thread bounds it iterates as many
  times as the longest-running thread, each iteration under the mask of the threads
  still in the loop, their loop-carried values kept by the others.
- `scf.while` runs its `before` region under the mask of the threads still looping.
- A distributed tensor (one value per block) may be chosen by a condition that is the
  same for every thread of a block (an `scf.if` on the block index); a condition that
  differs within a block cannot choose one. So may an accumulator of an async
  `layout.mma` in flight (the blocks' loops running different trip counts): in flight
  until the later of the two groups retires.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.interpreter import (
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation, Region

from tilec.dialects.layout_iter import IterType

from .errors import ExecutionError
from .executor import ReferenceInterpreter
from .memory import MemRef
from .simt import Grid
from .values import InFlight, expand_cond, per_thread


def merge(op: Operation, take: np.ndarray, new: Any, old: Any, t: Attribute, grid: Grid,
          active: np.ndarray | None = None):
    """Per thread: `new` where `take`, else `old`. A distributed tensor (one value per
    block, `[blocks, *shape]` or `[*shape]`) is chosen per block, which needs `take` to
    be the same for every thread of a block that runs the op: `active` (None: all)
    says which do (a `layout.warp_specialize` region's threads; the others never read
    the result)."""
    if new is old:
        return new
    if isinstance(new, InFlight) or isinstance(old, InFlight):
        # chosen per block as a tensor is (blocks whose loops run different trip counts);
        # in flight until the later of the two groups retires
        flights = [x for x in (new, old) if isinstance(x, InFlight)]
        try:
            if len({x.scope for x in flights}) > 1 or not isinstance(t, TensorType):
                raise ExecutionError(op, "")
            value = merge(op, take, new.value if isinstance(new, InFlight) else new,
                          old.value if isinstance(old, InFlight) else old, t, grid, active)
        except ExecutionError:
            raise ExecutionError(op, "an accumulator of an asynchronous layout.mma still in flight, chosen per thread "
                                     "by divergent control flow, is not supported (wait for it first: "
                                     "layout.mma_wait)") from None
        return InFlight(value, flights[0].scope, max(x.group for x in flights))
    if isinstance(t, IterType):  # an iterator: its position, per thread
        if new.origin is not old.origin:
            raise ExecutionError(op, "an iterator carried through control flow must stay one iterator "
                                     "(advanced by layout.iter_next)")
        return new.at(merge(op, take, new.pos, old.pos, IndexType(), grid))
    if isinstance(t, TensorType) and not isinstance(new, MemRef) and not isinstance(old, MemRef):
        per_block = np.asarray(take, dtype=bool).reshape(grid.num_blocks, grid.threads_per_block)
        runs = (np.ones_like(per_block) if active is None
                else np.broadcast_to(np.asarray(active, dtype=bool), (grid.num_threads,)).reshape(per_block.shape))
        first = per_block[np.arange(grid.num_blocks), np.argmax(runs, axis=1)] & runs.any(axis=1)
        if ((per_block == first[:, None]) | ~runs).all():
            shape = (grid.num_blocks, *t.get_shape())
            pick = first.reshape((-1,) + (1,) * len(t.get_shape()))
            return np.where(pick, _per_block(new, shape), _per_block(old, shape))
    if isinstance(new, MemRef) or isinstance(old, MemRef) or isinstance(t, TensorType):
        raise ExecutionError(
            op,
            f"a {t} chosen per thread by divergent control flow is not supported",
        )
    n = grid.num_threads
    return np.where(expand_cond(take, new, t), per_thread(new, t, n), per_thread(old, t, n))


def _per_block(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """A distributed tensor as `[blocks, *shape]` (a block-uniform `[*shape]` repeated)."""
    return np.broadcast_to(np.asarray(value), shape)


def _mask_or_none(mask: np.ndarray, outer: np.ndarray | None) -> np.ndarray | None:
    """A mask as the grid keeps it: None when it is every thread."""
    if outer is None and mask.all():
        return None
    return mask


def _run(interp: ReferenceInterpreter, region: Region, args: PythonValues, name: str):
    if not region.blocks:
        return ()
    return interp.run_ssacfg_region(region, args, name)


@register_impls
class ScfFunctions(InterpreterFunctions):
    @impl(scf.IfOp)
    def run_if(self, interp: ReferenceInterpreter, op: scf.IfOp, args: PythonValues):
        (cond,) = args
        if np.ndim(cond) == 0:
            region = op.true_region if bool(cond) else op.false_region
            return _run(interp, region, (), "scf.if")
        grid = interp.grid
        assert grid is not None
        outer = grid.mask
        c = np.asarray(cond, dtype=bool)
        then_mask = c if outer is None else c & outer
        else_mask = ~c if outer is None else ~c & outer
        then_res = else_res = None
        try:
            if then_mask.any():
                grid.mask = _mask_or_none(then_mask, outer)
                then_res = _run(interp, op.true_region, (), "scf.if")
            if else_mask.any() and op.false_region.blocks:
                grid.mask = _mask_or_none(else_mask, outer)
                else_res = _run(interp, op.false_region, (), "scf.if")
        finally:
            grid.mask = outer
        if not op.results:
            return ()
        if then_res is None:
            return else_res
        if else_res is None:
            return then_res
        return tuple(
            merge(op, c, a, b, r.type, grid)
            for a, b, r in zip(then_res, else_res, op.results)
        )

    @impl(scf.ForOp)
    def run_for(self, interp: ReferenceInterpreter, op: scf.ForOp, args: PythonValues):
        lb, ub, step, *carried = args
        if np.ndim(lb) == 0 and np.ndim(ub) == 0 and np.ndim(step) == 0:
            if int(step) <= 0:
                raise ExecutionError(op, f"scf.for with step {int(step)} never ends")
            make = np.asarray(lb).dtype.type
            values = tuple(carried)
            for i in range(int(lb), int(ub), int(step)):
                values = interp.run_ssacfg_region(op.body, (make(i), *values), "scf.for")
            return values
        grid = interp.grid
        assert grid is not None
        n = grid.num_threads
        t = op.lb.type
        lb_a, ub_a, st_a = (per_thread(v, t, n) for v in (lb, ub, step))
        outer = grid.mask
        active = np.ones(n, bool) if outer is None else outer
        bad = active & (st_a <= 0)
        if bad.any():
            tid = int(np.argmax(bad))
            raise ExecutionError(
                op,
                f"scf.for with step {int(st_a[tid])} never ends "
                f"({grid.describe_thread(tid)})",
                thread=tid,
            )
        safe = np.where(st_a > 0, st_a, 1)
        trips = np.where(active, np.maximum(0, -((lb_a - ub_a) // safe)), 0)
        values = tuple(carried)
        try:
            for k in range(int(trips.max(initial=0))):
                take = trips > k
                grid.mask = _mask_or_none(take, outer)
                iv = lb_a + k * st_a
                new = interp.run_ssacfg_region(op.body, (iv, *values), "scf.for")
                values = tuple(
                    merge(op, take, a, b, r.type, grid, active)
                    for a, b, r in zip(new, values, op.results)
                )
        finally:
            grid.mask = outer
        return values

    @impl(scf.WhileOp)
    def run_while(self, interp: ReferenceInterpreter, op: scf.WhileOp, args):
        grid = interp.grid
        values = tuple(args)
        if grid is None:
            while True:
                cond, *fwd = interp.run_ssacfg_region(op.before_region, values, "while")
                if not bool(cond):
                    return tuple(fwd)
                values = interp.run_ssacfg_region(op.after_region, tuple(fwd), "while")
        outer = grid.mask
        active = np.ones(grid.num_threads, bool) if outer is None else outer.copy()
        results: list[Any] | None = None
        try:
            while True:
                grid.mask = _mask_or_none(active, outer)
                cond, *fwd = interp.run_ssacfg_region(op.before_region, values, "while")
                stay = (
                    active & bool(cond)
                    if np.ndim(cond) == 0
                    else active & np.asarray(cond, bool)
                )
                leave = active & ~stay
                if results is None:
                    results = list(fwd)
                else:
                    results = [
                        merge(op, leave, f, r, res.type, grid)
                        for f, r, res in zip(fwd, results, op.results)
                    ]
                if not stay.any():
                    return tuple(results)
                active = stay
                grid.mask = _mask_or_none(active, outer)
                values = interp.run_ssacfg_region(op.after_region, tuple(fwd), "while")
        finally:
            grid.mask = outer

    @impl(scf.ExecuteRegionOp)
    def run_execute_region(self, interp: ReferenceInterpreter, op, args):
        return interp.run_ssacfg_region(op.region, (), "scf.execute_region")

    @impl(scf.IndexSwitchOp)
    def run_index_switch(self, interp: ReferenceInterpreter, op: scf.IndexSwitchOp, args):
        (index,) = args
        if np.ndim(index) != 0:
            raise ExecutionError(op, "a per-thread scf.index_switch is not supported")
        cases = op.cases.get_values()
        if int(index) in cases:
            return interp.run_ssacfg_region(
                op.case_regions[cases.index(int(index))], (), "scf.index_switch"
            )
        return interp.run_ssacfg_region(op.default_region, (), "scf.index_switch")

    @impl_terminator(scf.YieldOp)
    def run_yield(self, interp, op, args) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl_terminator(scf.ConditionOp)
    def run_condition(self, interp, op, args) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()
