"""Semantics of the atomics and fences (`layout.atomic_add`, `layout.fence`,
dialects/layout_atomic.py, and their GPU-level `cuda.atomic_add`, `cuda.fence`), and
the hand-over of memory between blocks they make (`Handoffs`).

The threads that run an atomic do it in thread order (lower blocks first: blocks run
in lockstep, and this is one of their legal schedules), each getting the value the
element held before its own addition. Atomics are not data races with each other and
are not recorded as plain accesses.

Release and acquire (gpu or sys scope; a cta-scope atomic orders nothing across
blocks): an atomic releases where its order is `release`/`acq_rel`, or where its
thread ran a fence since its previous atomic; the release covers the writes its block
made before the barrier last passed at the release point (the fence's, or the
atomic's). An atomic acquires where its order is `acquire`/`acq_rel` (or, relaxed,
when its thread next runs a fence): its block then sees every release recorded on the
element, from its next barrier on. A read (or write) of an element another block of the
launch wrote is a data race unless such a hand-over covers the write
(memory.py's race checks ask `Handoffs.covers`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import i32
from xdsl.interpreter import InterpreterFunctions, impl, register_impls

from tilec.dialects import cuda_atomic as ca
from tilec.dialects import layout_atomic as lat

from .access_impls import _keys
from .executor import ReferenceInterpreter
from .layout_impls import _grid, _view
from .memory import _storage
from .memory_impls import _access, scatter, thread_values
from .simt import Grid


class Handoffs:
    """The launch's release/acquire state (module docstring), made at the first atomic
    or fence: per thread, the epoch of its last fence (a pending release) and the
    releases it read with a relaxed atomic (a pending acquire); per (storage, element),
    the releases made on it (block -> epoch: its writes before that epoch); per
    (reader block, writer block) the writer's epoch up to which the reader sees its
    writes and the reader's epoch after which it does (`seen`)."""

    def __init__(self, grid: Grid):
        self.grid = grid
        self.fenced: dict[int, int] = {}
        self.pending: dict[int, list[dict[int, int]]] = {}
        self.released: dict[tuple[int, int], dict[int, int]] = {}
        self.seen: dict[tuple[int, int], tuple[int, int]] = {}
        """(reader block, writer block) -> (the writer's epoch before which its writes are
        seen, the reader's epoch after which it sees them); sparse: grids are large."""

    def acquire(self, block: int, releases: dict[int, int]) -> None:
        """Block `block` sees the writes of `releases` (block -> epoch) after its next barrier."""
        now = int(self.grid.epoch[block])
        for w, r in releases.items():
            if w != block and r > self.seen.get((block, w), (-1, 0))[0]:
                self.seen[(block, w)] = (r, now)

    def covers(self, reader_blocks: np.ndarray, writer_blocks: np.ndarray, wepochs: np.ndarray) -> np.ndarray:
        """Per access: whether a hand-over orders the write (of `writer_blocks` at
        `wepochs`) before the access of `reader_blocks` (now)."""
        rb = np.broadcast_to(np.asarray(reader_blocks, np.int64), np.shape(wepochs))
        wb = np.broadcast_to(np.asarray(writer_blocks, np.int64), np.shape(wepochs))
        out = np.zeros(np.shape(wepochs), bool)
        if not self.seen:
            return out
        keep = (rb >= 0) & (wb >= 0) & (rb != wb)
        for r, w in np.unique(np.stack([rb[keep], wb[keep]], axis=1), axis=0).tolist():
            got = self.seen.get((r, w))
            if got is not None and self.grid.epoch[r] > got[1]:
                pair = (rb == r) & (wb == w)
                out |= pair & (np.asarray(wepochs) < got[0])
        return out


def handoffs(grid: Grid) -> Handoffs:
    """The launch's `Handoffs` (made on first use)."""
    h = getattr(grid, "handoffs", None)
    if h is None:
        h = Handoffs(grid)
        grid.handoffs = h  # type: ignore[attr-defined]
    return h


def atomic_add(grid: Grid, storage: Any, tids: np.ndarray, keys: np.ndarray, values: np.ndarray,
               scope: str, order: str) -> np.ndarray:
    """The old values of `storage`'s elements `keys` (one a thread of `tids`) as each
    thread in turn adds its value (i32, wrapping), with the releases and acquires of
    `scope` and `order` (module docstring)."""
    st = _storage(storage)
    h = handoffs(grid)
    data = st.data
    old = np.empty(tids.shape[0], dtype=data.dtype)
    cross = scope != "cta"
    for j in np.argsort(tids, kind="stable"):
        t, key = int(tids[j]), int(keys[j])
        old[j] = data[key]
        data[key] = np.int32((int(data[key]) + int(values[j]) + 2**31) % 2**32 - 2**31)
        if not cross:
            h.fenced.pop(t, None)
            continue
        block = int(grid.actor_block(np.int64(t)))
        recorded = h.released.setdefault((id(st), key), {})
        if lat.acquires(order):
            h.acquire(block, recorded)
        else:
            h.pending.setdefault(t, []).append(dict(recorded))
        fence = h.fenced.pop(t, None)
        if lat.releases(order) or fence is not None:
            at = int(grid.epoch[block]) if lat.releases(order) else fence
            recorded[block] = max(recorded.get(block, -1), at)
    return old


def fence(grid: Grid, tids: np.ndarray) -> None:
    """Each thread of `tids` fences: a release point for its next atomic, and the
    acquire of the releases its relaxed atomics read since its last fence."""
    h = handoffs(grid)
    for t in tids.tolist():
        block = int(grid.actor_block(np.int64(t)))
        h.fenced[t] = int(grid.epoch[block])
        for releases in h.pending.pop(t, []):
            h.acquire(block, releases)


@register_impls
class AtomicFunctions(InterpreterFunctions):
    @impl(lat.AtomicAddOp)
    def run_atomic_add(self, interp: ReferenceInterpreter, op: lat.AtomicAddOp, args):
        value, v, *coords = args
        view = _view(op, v)
        grid, acc, keys = _keys(interp, op, view, coords, "adds to")
        vals = np.asarray(thread_values(grid, acc.actors, value, i32)).reshape(-1)
        old = atomic_add(grid, view, acc.actors, keys[:, 0], vals, op.scope_name, op.order_name)
        return (scatter(grid, acc.actors, old.astype(np.int32)),)

    @impl(lat.FenceOp)
    def run_fence(self, interp: ReferenceInterpreter, op: lat.FenceOp, args):
        grid = _grid(interp)
        fence(grid, grid.active_tids())
        return ()

    @impl(ca.AtomicAddOp)
    def run_gpu_atomic_add(self, interp: ReferenceInterpreter, op: ca.AtomicAddOp, args):
        m, index, value = args
        grid, mem, tids, keys, _ = _access(interp, op, m, [index], "adds to")
        vals = np.asarray(thread_values(grid, tids, value, i32)).reshape(-1)
        old = atomic_add(grid, mem, tids, np.asarray(keys).reshape(-1), vals, op.scope.data, op.order.data)
        return (scatter(grid, tids, old.astype(np.int32)),)

    @impl(ca.FenceOp)
    def run_gpu_fence(self, interp: ReferenceInterpreter, op: ca.FenceOp, args):
        grid = interp.grid
        if grid is not None:
            fence(grid, grid.active_tids())
        return ()
