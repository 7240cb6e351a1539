"""Warp specialisation on the simulator: `layout.warp_specialize` and
`cuda.warp_specialize` run their regions *concurrently*, `setmaxnreg` is checked and
does nothing.

Each region runs on the threads of its warpgroups (in every block, the blocks still in
lockstep) in a Python thread of its own; one region runs at a time (a baton passed
between them), so the interpreter's state is never shared: the running region's scope
and active-thread mask are put in place when it takes the baton. A region gives the
baton away only at an mbarrier wait whose phase cannot complete yet (arrivals or
copied bytes missing): another region runs until it, in turn, waits. When every
region still running waits and no barrier has changed since each of them looked, the
program hangs on the GPU: the first waiter's "the wait would never return" error is
reported. The order in which the regions run is one legal schedule; the mbarrier
checks (tma_impls.py: wrong phase, reuse before completion, a read of a stage
before its wait) do not depend on it.

An mbarrier wait that completes a phase inside a region orders, for the race checks,
the block's accesses before it before those after it (the block's barrier epoch moves
on): the arrivals the phase collected are what made the wait return (an
over-approximation of the release/acquire pairs: it can hide a race between two
regions that an mbarrier orders only for other data).

A barrier of one region's threads (`cuda.named_barrier`, and the meeting of a
region's threads in `layout.tma_store` / `tma_store_wait`) requires every thread of
the region (in each block that runs it) and moves the block's epoch on: the same
over-approximation for the other regions' accesses.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation, Region

from tilec.dialects import cuda_roles, layout_roles

from .errors import ExecutionError
from .executor import ReferenceInterpreter, barrier

STACK_BYTES = 256 << 20
"""Stack of each region's Python thread (the interpreter recurses per nested region)."""


class _Abort(BaseException):
    """Another region failed: this one stops where it waits."""


@dataclass(frozen=True)
class Role:
    """The region running now: its first thread, thread count and warpgroups."""

    first: int
    threads: int

    @property
    def warpgroups(self) -> int:
        return self.threads // layout_roles.WARPGROUP


_changes = 0


def note_barrier_change() -> None:
    """An mbarrier's state changed (tma_impls.py): a waiting region may look again."""
    global _changes
    _changes += 1


def barrier_changes() -> int:
    """How many times any mbarrier's state changed."""
    return _changes


@dataclass(eq=False)
class Scheduler:
    """The baton between the regions of one warp_specialize op."""

    interp: ReferenceInterpreter
    op: Operation
    n: int
    cv: threading.Condition = field(default_factory=threading.Condition)
    turn: int = 0
    done: list[bool] = field(default_factory=list)
    stuck: list[int | None] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    error: BaseException | None = None

    def __post_init__(self):
        self.done = [False] * self.n
        self.stuck = [None] * self.n
        self.states = [None] * self.n

    def _next(self, i: int) -> int | None:
        for d in range(1, self.n + 1):
            j = (i + d) % self.n
            if not self.done[j]:
                return j
        return None

    def _save(self, i: int) -> None:
        g = self.interp.grid
        self.states[i] = (self.interp._ctx, g.mask if g is not None else None, getattr(g, "role", None))

    def _restore(self, i: int) -> None:
        ctx, mask, role = self.states[i]
        self.interp._ctx = ctx
        if self.interp.grid is not None:
            self.interp.grid.mask = mask
            self.interp.grid.role = role  # type: ignore[attr-defined]
        self.interp.scheduler = self  # type: ignore[attr-defined]

    def _hand_over(self, i: int, j: int) -> None:
        """Region i (running) gives the baton to j and waits to get it back."""
        self._save(i)
        with self.cv:
            self.turn = j
            self.cv.notify_all()
            self.cv.wait_for(lambda: self.turn == i or self.error is not None)
            if self.error is not None:
                raise _Abort()
        self._restore(i)

    def stall(self, ready: Callable[[], bool], fail: Callable[[], None]) -> None:
        """Give the baton away until `ready()`; `fail()` (raises) on a hang."""
        i = self.turn
        while not ready():
            v = barrier_changes()
            self.stuck[i] = v
            others = [j for j in range(self.n) if j != i and not self.done[j]]
            if all(self.stuck[j] == v for j in others):
                self.stuck[i] = None
                fail()
                raise AssertionError("unreachable: fail() returned")
            j = next(j for j in (self._next(i),) if j is not None)
            # skip regions stuck at this very state: they cannot move either
            k = j
            while self.stuck[k] == v:
                k = self._next(k)
            self._hand_over(i, k)
        self.stuck[i] = None

    def run(self, regions: list[Region], masks: list[np.ndarray], roles: list[Role]) -> None:
        interp = self.interp
        base_ctx = interp._ctx
        outer_role = getattr(interp.grid, "role", None)
        outer_sched = getattr(interp, "scheduler", None)
        outer_mask = interp.grid.mask if interp.grid is not None else None
        for i in range(self.n):
            self.states[i] = (base_ctx, masks[i], roles[i])

        def body(i: int) -> None:
            with self.cv:
                self.cv.wait_for(lambda: self.turn == i or self.error is not None)
                if self.error is not None:
                    return
            try:
                self._restore(i)
                interp.run_ssacfg_region(regions[i], (), self.op.name)
            except _Abort:
                pass
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
                with self.cv:
                    if self.error is None:
                        self.error = e
            finally:
                with self.cv:
                    self.done[i] = True
                    nxt = self._next(i)
                    if nxt is not None:
                        self.turn = nxt
                    self.cv.notify_all()

        old = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            # each thread in a copy of this one's context: NumPy's error state and the
            # write audit (memory.audit_writes) are context variables
            threads = [
                threading.Thread(target=contextvars.copy_context().run, args=(body, i), daemon=True)
                for i in range(self.n)
            ]
        finally:
            threading.stack_size(old)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        interp._ctx = base_ctx
        interp.scheduler = outer_sched  # type: ignore[attr-defined]
        if interp.grid is not None:
            interp.grid.mask = outer_mask
            interp.grid.role = outer_role  # type: ignore[attr-defined]
        if self.error is not None:
            raise self.error


def current_role(interp: ReferenceInterpreter) -> Role | None:
    """The warp_specialize region running now (None: the whole block)."""
    return getattr(interp.grid, "role", None)


def wait_until(interp: ReferenceInterpreter, ready: Callable[[], bool], fail: Callable[[], None]) -> bool:
    """Inside a warp_specialize region: let the other regions run until `ready()` (or
    `fail()` on a hang) and say True (the wait completes a phase there: the caller
    moves the epochs on). Outside: False, nothing done."""
    sched = getattr(interp, "scheduler", None)
    if sched is None:
        return False
    sched.stall(ready, fail)
    return True


def region_barrier(interp: ReferenceInterpreter, op: Operation) -> None:
    """The threads of the running warp_specialize region meet (outside one: the
    block's barrier, executor.barrier). A region whose threads are only partly active
    in a block (divergent control flow) is an error."""
    grid = interp.grid
    if grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a launch")
    role = current_role(interp)
    if role is None:
        barrier(interp, op, grid)
        return
    mask = grid.mask if grid.mask is not None else np.ones(grid.num_threads, bool)
    per = mask.reshape(grid.num_blocks, grid.threads_per_block)[:, role.first : role.first + role.threads]
    count = per.sum(axis=1)
    partial = (count > 0) & (count < role.threads)
    if partial.any():
        b = int(np.argmax(partial))
        t = b * grid.threads_per_block + role.first + int(np.argmin(per[b]))
        raise ExecutionError(
            op,
            f"{grid.describe_thread(t)} does not reach the barrier of its warp_specialize region "
            f"({int(count[b])} of the region's {role.threads} threads in block {b} do)",
            thread=t,
            block=b,
        )
    grid.epoch += (count > 0).astype(np.int32)


def _run(interp: ReferenceInterpreter, op: Operation, counts: tuple[int, ...], regions: list[Region]) -> None:
    grid = interp.grid
    if grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a launch")
    if getattr(interp, "scheduler", None) is not None:
        raise ExecutionError(op, f"'{op.name}' inside a warp_specialize region")
    wg = layout_roles.WARPGROUP
    if grid.threads_per_block != wg * sum(counts):
        raise ExecutionError(
            op,
            f"the regions' {sum(counts)} warpgroups need {wg * sum(counts)} threads, the block has "
            f"{grid.threads_per_block}",
        )
    outer = grid.mask if grid.mask is not None else np.ones(grid.num_threads, bool)
    masks, roles, first = [], [], 0
    for c in counts:
        masks.append(outer & (grid.local >= first) & (grid.local < first + wg * c))
        roles.append(Role(first, wg * c))
        first += wg * c
    Scheduler(interp, op, len(counts)).run(regions, masks, roles)


def _check_setmaxnreg(interp: ReferenceInterpreter, op: Operation) -> None:
    role = current_role(interp)
    if role is None:
        raise ExecutionError(op, "setmaxnreg outside a warp_specialize region")
    grid = interp.grid
    if grid is not None and grid.mask is not None:
        per = grid.mask.reshape(grid.num_blocks, grid.threads_per_block)
        local = per[:, role.first : role.first + role.threads]
        partial = local.any(axis=1) & ~local.all(axis=1)
        if partial.any():
            raise ExecutionError(op, "setmaxnreg is reached by only part of a warpgroup (it must be warpgroup-uniform)")


@register_impls
class RoleFunctions(InterpreterFunctions):
    @impl(layout_roles.WarpSpecializeOp)
    def run_ws(self, interp: ReferenceInterpreter, op: layout_roles.WarpSpecializeOp, args):
        _run(interp, op, op.counts, list(op.roles))
        return ()

    @impl(cuda_roles.WarpSpecializeOp)
    def run_gpu_ws(self, interp: ReferenceInterpreter, op: cuda_roles.WarpSpecializeOp, args):
        _run(interp, op, op.counts, list(op.roles))
        return ()

    @impl(layout_roles.SetMaxNRegOp)
    def run_setmaxnreg(self, interp: ReferenceInterpreter, op: layout_roles.SetMaxNRegOp, args):
        _check_setmaxnreg(interp, op)
        return ()

    @impl(cuda_roles.NamedBarrierOp)
    def run_named_barrier(self, interp: ReferenceInterpreter, op: cuda_roles.NamedBarrierOp, args):
        grid = interp.grid
        if grid is None:
            raise ExecutionError(op, f"'{op.name}' outside a launch")
        role = current_role(interp)
        want = role.threads if role is not None else grid.threads_per_block
        if op.count != want:
            where = "its warp_specialize region" if role is not None else "the block"
            raise ExecutionError(op, f"bar.sync {op.index} counts {op.count} threads, but {where} has {want}")
        region_barrier(interp, op)
        return ()

    @impl(cuda_roles.SetMaxNRegOp)
    def run_gpu_setmaxnreg(self, interp: ReferenceInterpreter, op: cuda_roles.SetMaxNRegOp, args):
        _check_setmaxnreg(interp, op)
        return ()
