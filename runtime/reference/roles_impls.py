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

A barrier of one region's threads (the meeting of a region's threads in
`layout.tma_store` / `tma_store_wait`) requires every thread of the region (in each
block that runs it) and moves the block's epoch on: the same over-approximation for
the other regions' accesses.

Hardware barriers (`layout.named_barrier`, `cuda.named_barrier`: `bar.sync` /
`bar.arrive`) are counted (`NamedBarriers`): each block's barrier `id` collects the
threads that arrive in its current phase (whole warps; the phase's thread count set
by its first arrival); the arrival that reaches the count completes the phase. A
`sync` gives the baton away until its phase has completed in each of its blocks, then
moves their epochs on; `arrive` goes on at once. Reported: a thread count other than
the phase's, more arrivals than the count, part of a warp arriving, and a `sync` that
would never return (every region waiting, as for mbarriers).
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

from .errors import ExecutionError, check_blocks
from .executor import ReferenceInterpreter, barrier

STACK_BYTES = 256 << 20
"""Stack of each region's Python thread (the interpreter recurses per nested region)."""


class _Abort(BaseException):
    """Another region failed: this one stops where it waits."""


@dataclass(frozen=True)
class Role:
    """The region running now: its first thread, thread count and warpgroups; `index`:
    in a region run apart, the warpgroup's among the region's (`layout.warpgroup_index`)."""

    first: int
    threads: int
    index: int = 0

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
    block's barrier, executor.barrier). The caller has checked that the op is reached
    by all of the region's threads of a block or by none (tma_impls' `_collective`
    reports a region only partly there), so the region's blocks with any thread
    active move to their next epoch."""
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
    grid.epoch += (count > 0).astype(np.int32)


@dataclass
class NamedBarriers:
    """The hardware barriers (`bar.sync` ids) of each block of a launch: per id, the
    threads arrived in the current phase, the phase's thread count (0: no phase in
    progress) and the phases completed."""

    blocks: int
    arrived: dict[int, np.ndarray] = field(default_factory=dict)
    expected: dict[int, np.ndarray] = field(default_factory=dict)
    phase: dict[int, np.ndarray] = field(default_factory=dict)

    def _ensure(self, i: int) -> None:
        if i not in self.arrived:
            self.arrived[i] = np.zeros(self.blocks, np.int64)
            self.expected[i] = np.zeros(self.blocks, np.int64)
            self.phase[i] = np.zeros(self.blocks, np.int64)

    def arrive(self, op: Operation, i: int, threads: int, blocks: np.ndarray, count: np.ndarray) -> np.ndarray:
        """`count[k]` threads of block `blocks[k]` arrive at barrier `i` whose phase counts
        `threads`; returns the phase each block's arrival belongs to."""
        self._ensure(i)
        arrived, expected, phase = self.arrived[i], self.expected[i], self.phase[i]
        mode = "arrive" if getattr(op, "arrive", False) else "sync"
        check_blocks(op, (expected[blocks] != 0) & (expected[blocks] != threads),
                     lambda b: f"bar.{mode} {i} counts {threads} threads, but the phase in progress of barrier {i} "
                     f"in block {b} counts {int(expected[b])} (its earlier arrivals)", blocks)
        expected[blocks] = threads
        arrived[blocks] += count
        check_blocks(op, arrived[blocks] > threads,
                     lambda b: f"bar.{mode} {i}: {int(arrived[b])} threads arrive at barrier {i} in block {b}, "
                     f"whose phase counts {threads} (the phase completes early and the rest count towards the next)",
                     blocks)
        mine = phase[blocks].copy()
        full = blocks[arrived[blocks] == threads]
        phase[full] += 1
        arrived[full] = 0
        expected[full] = 0
        note_barrier_change()
        return mine

    def passed(self, i: int, blocks: np.ndarray, mine: np.ndarray) -> bool:
        return bool((self.phase[i][blocks] > mine).all())

    def hang(self, op: Operation, i: int, threads: int, blocks: np.ndarray, mine: np.ndarray) -> None:
        waiting = self.phase[i][blocks] <= mine
        b = int(blocks[np.argmax(waiting)])
        raise ExecutionError(
            op,
            f"the bar.sync {i} would never return: {int(self.arrived[i][b])} of the {threads} threads of "
            f"barrier {i}'s phase arrive in block {b}",
            block=b,
        )


def named_barrier(interp: ReferenceInterpreter, op: Operation, i: int, threads: int, arrive: bool) -> None:
    """`bar.sync` / `bar.arrive` of barrier `i` counting `threads`, by the active threads of
    the running region (of the block outside warp_specialize): NamedBarriers."""
    grid = interp.grid
    if grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a launch")
    role = current_role(interp)
    first, n = (role.first, role.threads) if role is not None else (0, grid.threads_per_block)
    mask = grid.mask if grid.mask is not None else np.ones(grid.num_threads, bool)
    per = mask.reshape(grid.num_blocks, grid.threads_per_block)[:, first : first + n]
    warps = per.reshape(grid.num_blocks, -1, 32)
    partial = warps.any(axis=2) & ~warps.all(axis=2)
    if partial.any():
        b, w = (int(x) for x in np.argwhere(partial)[0])
        t = b * grid.threads_per_block + first + 32 * w + int(np.argmin(warps[b, w]))
        raise ExecutionError(
            op,
            f"{grid.describe_thread(t)} does not reach the bar.{'arrive' if arrive else 'sync'} {i} that other "
            "threads of its warp reach (bar.sync and bar.arrive count whole warps)",
            thread=t,
            block=b,
        )
    count = per.sum(axis=1)
    blocks = np.flatnonzero(count > 0)
    if blocks.size == 0:
        return
    bars = getattr(grid, "named_barriers", None)
    if bars is None:
        bars = NamedBarriers(grid.num_blocks)
        grid.named_barriers = bars  # type: ignore[attr-defined]
    mine = bars.arrive(op, i, threads, blocks, count[blocks])
    if arrive:
        return
    ready = lambda: bars.passed(i, blocks, mine)  # noqa: E731
    fail = lambda: bars.hang(op, i, threads, blocks, mine)  # noqa: E731
    if not ready() and not wait_until(interp, ready, fail):
        fail()
    grid.epoch[blocks] += 1


def _run(interp: ReferenceInterpreter, op: Operation, counts: tuple[int, ...], regions: list[Region],
         apart: tuple[int, ...] = ()) -> None:
    """The regions of `op` run concurrently, each on its warpgroups; a region in `apart`
    once for each of its warpgroups, as a region of that warpgroup's own."""
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
    masks, roles, runs, first = [], [], [], 0
    for i, (c, region) in enumerate(zip(counts, regions)):
        for j, (at, threads) in enumerate([(first + wg * j, wg) for j in range(c)] if i in apart
                                          else [(first, wg * c)]):
            masks.append(outer & (grid.local >= at) & (grid.local < at + threads))
            roles.append(Role(at, threads, j))
            runs.append(region)
        first += wg * c
    Scheduler(interp, op, len(runs)).run(runs, masks, roles)


def _uniform(interp: ReferenceInterpreter, op: Operation, value: Any) -> int:
    """A per-thread index (`cuda.named_barrier`'s offset) the running threads share."""
    if np.ndim(value) == 0:
        return int(value)
    grid = interp.grid
    mask = grid.mask if grid is not None and grid.mask is not None else None
    vals = np.unique(np.asarray(value)[mask] if mask is not None and np.size(value) == mask.size else value)
    if vals.size > 1:
        raise ExecutionError(op, f"the barrier's offset differs between the threads that reach it: {vals.tolist()}")
    return int(vals[0]) if vals.size else 0


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
        _run(interp, op, op.counts, list(op.roles), op.apart)
        return ()

    @impl(cuda_roles.WarpSpecializeOp)
    def run_gpu_ws(self, interp: ReferenceInterpreter, op: cuda_roles.WarpSpecializeOp, args):
        _run(interp, op, op.counts, list(op.roles), op.apart)
        return ()

    @impl(layout_roles.WarpgroupIndexOp)
    def run_warpgroup_index(self, interp: ReferenceInterpreter, op: layout_roles.WarpgroupIndexOp, args):
        role = current_role(interp)
        if role is None:
            raise ExecutionError(op, "layout.warpgroup_index outside a warp_specialize region")
        return (role.index,)

    @impl(layout_roles.SetMaxNRegOp)
    def run_setmaxnreg(self, interp: ReferenceInterpreter, op: layout_roles.SetMaxNRegOp, args):
        _check_setmaxnreg(interp, op)
        return ()

    @impl(cuda_roles.NamedBarrierOp)
    def run_named_barrier(self, interp: ReferenceInterpreter, op: cuda_roles.NamedBarrierOp, args):
        named_barrier(interp, op, op.index + (_uniform(interp, op, args[0]) if args else 0), op.count, op.arrive)
        return ()

    @impl(layout_roles.NamedBarrierOp)
    def run_layout_named_barrier(self, interp: ReferenceInterpreter, op: layout_roles.NamedBarrierOp, args):
        named_barrier(interp, op, op.index, op.count, op.arrive)
        return ()

    @impl(cuda_roles.SetMaxNRegOp)
    def run_gpu_setmaxnreg(self, interp: ReferenceInterpreter, op: cuda_roles.SetMaxNRegOp, args):
        _check_setmaxnreg(interp, op)
        return ()
