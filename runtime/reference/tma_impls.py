"""TMA copies and mbarriers on the simulator, at the layout level (`layout.tma_load`,
`layout.mbarrier_*`, block-collective) and at the GPU level (`cuda.tma_load`,
`cuda.mbarrier_*`, per thread, and the host's `cuda.tensor_map`).

An mbarrier keeps, per block, its current phase, the arrivals still missing, the
bytes its arrivals expect and the bytes of the copies issued on the phase. A TMA load
reads its source when issued and marks its destination *pending* (reading or writing
it is an error) until a wait sees its phase complete; the copy then lands as the
block's write. A wait on the current phase checks that the phase can complete: every
arrival made (else the wait would hang) and the bytes copied equal to the bytes
expected (fewer: it would hang; more: the phase could complete before a copy lands).
A wait on the other parity while the current phase has work in flight is the classic
wrong-phase bug (it returns at once): an error. Inside a warp_specialize region a wait
is on the region's next phase: the barrier's current one, or the one just completed
where another region's wait saw it complete first and the next has not begun (two
consumer regions waiting on one "full" barrier); a wait on a phase the region has
seen already, or on a completed phase while the next is in flight, is the same bug. An arrival on a phase that has all
its arrivals but that no wait has seen complete reuses the barrier too early: an
error. A TMA store reads shared memory when issued (after the block's barrier that
the op includes) and keeps it *being read* until a `tma_store_wait` covers it:
writing it before is an error. Box elements outside the tensor are zeros for loads
and not written by stores, as the hardware does, and a load counts its whole box's
bytes on the barrier; a box may lie wholly outside (an unmasked `layout.tile` past the
end that only TMA copies use gets its extents' mask: layout_impls.tile_view).

Thread-block clusters (`Grid.cluster`): an arrival on a peer's barrier counts on the
peer's phase, and a multicast TMA load lands in each receiving block, its bytes on each
one's barrier. A block may reach a peer's barrier only after a `cluster_sync` that
follows the barrier's initialisation there, and no block may exit while a peer reached
it (or it a peer) since the last `cluster_sync`. A multicast into a peer's shared
memory must come after the peer's reads of it: the peer's arrivals on the issuing
block's barriers, once a wait of the issuer sees their phase complete, order the peer's
accesses before (as does a `cluster_sync`; `Grid.knows`), and a multicast overwriting
an element the peer read later is reported (the blocks run in lockstep, so without this
check a missing arrival on the peer's barrier would go unseen).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from tilec.dialects import cuda_tma, layout_tma
from tilec.dialects.layout_attrs import element_bytes
from tilec.dialects.tma import box_offsets

from .errors import ExecutionError, check_blocks
from .executor import ReferenceInterpreter, _async_copies, _grid
from .layout_impls import (
    Access,
    View,
    _block_uniform,
    _view,
    element_keys,
    geometry,
    mask_valid,
)
from .memory import SHARED, PeerStorage, Storage, _check_write_races, load, store
from .memory_impls import _mem, thread_indices
from .roles_impls import current_role, note_barrier_change, region_barrier, wait_until
from .simt import Grid, whole_block

# ------------------------------------------------------------------ the barrier


@dataclass(eq=False)
class InFlight:
    """TMA loads of one op not yet landed: per copy (row) its block, actor, keys and
    values (where `sel`)."""

    op: Operation
    storage: Storage
    blocks: np.ndarray
    actors: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    sel: np.ndarray


@dataclass(eq=False)
class MBarrier:
    """The run-time value of an mbarrier: its state in every block."""

    count: int
    num_blocks: int
    live: np.ndarray = field(init=False)
    phase: np.ndarray = field(init=False)
    missing: np.ndarray = field(init=False)
    expected: np.ndarray = field(init=False)
    copied: np.ndarray = field(init=False)
    copies: list[InFlight] = field(default_factory=list)
    heard: dict[tuple[int, int], int] = field(default_factory=dict)
    """(block, peer block) -> the peer's barrier epoch at its latest arrival on this
    block's current phase (`reach_peers`); handed to `Grid.knows` when a wait sees the
    phase complete."""
    init_syncs: np.ndarray = field(init=False)
    """Per block: its cluster barriers passed when it initialised this barrier (a peer
    may reach the barrier only after one more: `reach_peers`)."""
    seen: dict[int, np.ndarray] = field(default_factory=dict)
    """Per warp_specialize region (its first thread): the phases of each block it has
    seen complete through its waits (its next wait is on phase `seen`)."""

    def seen_by(self, region: int) -> np.ndarray:
        if region not in self.seen:
            self.seen[region] = np.zeros(self.num_blocks, np.int64)
        return self.seen[region]

    def __post_init__(self):
        b = self.num_blocks
        self.live = np.zeros(b, bool)
        self.phase = np.zeros(b, np.int64)
        self.missing = np.zeros(b, np.int64)
        self.expected = np.zeros(b, np.int64)
        self.copied = np.zeros(b, np.int64)
        self.init_syncs = np.zeros(b, np.int64)

    def _busy(self, blocks: np.ndarray) -> np.ndarray:
        return (self.missing[blocks] < self.count) | (self.expected[blocks] > 0) | (self.copied[blocks] > 0)

    def _need_live(self, op: Operation, blocks: np.ndarray, what: str) -> None:
        check_blocks(op, ~self.live[blocks],
                     lambda b: f"{what} on an mbarrier of block {b} that is not initialised (or was invalidated)",
                     blocks)

    def init(self, op: Operation, blocks: np.ndarray) -> None:
        check_blocks(op, self.live[blocks] & self._busy(blocks),
                     lambda b: f"mbarrier of block {b} initialised again while its phase {int(self.phase[b])} "
                     "is in flight", blocks)
        if np.unique(blocks).shape[0] != blocks.shape[0]:
            raise ExecutionError(op, "mbarrier initialised by several threads of one block")
        self.live[blocks] = True
        self.phase[blocks] = 0
        for seen in self.seen.values():
            seen[blocks] = 0
        self.missing[blocks] = self.count
        self.expected[blocks] = 0
        self.copied[blocks] = 0

    def arrive(self, op: Operation, blocks: np.ndarray, tx: int) -> None:
        """One arrival per entry of `blocks` (a block may repeat)."""
        self._need_live(op, blocks, "arrival")
        n = np.bincount(blocks, minlength=self.num_blocks)
        check_blocks(op, n > self.missing,
                     lambda b: f"arrival on the mbarrier of block {b} whose phase {int(self.phase[b])} already has "
                     f"all its {self.count} arrivals and has not been seen complete by a wait: the "
                     f"barrier is reused before its phase completes")
        self.missing -= n
        self.expected += n * tx
        note_barrier_change()

    def expect(self, op: Operation, blocks: np.ndarray, nbytes: np.ndarray) -> None:
        """`nbytes` ([k]) more bytes expected on the current phase of each of `blocks` (a
        block may repeat), without an arrival: before the phase's last arrival."""
        self._need_live(op, blocks, "expect_tx")
        check_blocks(op, self.missing[blocks] == 0,
                     lambda b: f"bytes expected on the mbarrier of block {b} after its phase {int(self.phase[b])} "
                     "had all its arrivals: the phase may complete without them", blocks)
        np.add.at(self.expected, blocks, nbytes)
        note_barrier_change()

    def issue(
        self,
        op: Operation,
        grid: Grid,
        blocks: np.ndarray,
        actors: np.ndarray,
        st: Storage,
        keys: np.ndarray,
        values: np.ndarray,
        sel: np.ndarray,
        nbytes: int,
    ) -> None:
        """TMA loads by `actors` ([k], of `blocks`) of `values` to `keys` ([k, n], where
        `sel`) of shared storage `st`, `nbytes` each (or [k], one each) on the current phase."""
        self._need_live(op, blocks, "TMA load completing")
        if st.space != SHARED:
            raise ExecutionError(op, f"TMA load to {st.name}, which is not shared memory")
        if st.tma_pending is None:
            st.tma_pending = np.zeros(st.data.shape[0], dtype=np.int32)
        flat_keys = keys[sel]
        flat_actors = np.broadcast_to(actors[:, None], keys.shape)[sel]
        busy = st.tma_pending[flat_keys] > 0
        if busy.any():
            i = int(np.argmax(busy))
            raise ExecutionError(
                op,
                f"{grid.describe_thread(flat_actors[i])} starts a TMA load to "
                f"{st.describe(flat_keys[i])}, which an earlier TMA load is still writing",
                thread=int(flat_actors[i]),
            )
        from .memory import check_tma_writes

        check_tma_writes(op, grid, st, flat_keys, flat_actors)
        if st.tracked:
            _check_write_races(op, grid, st, flat_keys, flat_actors, values[sel])
        np.add.at(st.tma_pending, flat_keys, 1)
        np.add.at(self.copied, blocks, nbytes)  # (a count, or one a block of `blocks`)
        self.copies.append(InFlight(op, st, blocks, actors, keys, values, sel))
        note_barrier_change()

    def ready(self, blocks: np.ndarray, parity: np.ndarray) -> bool:
        """Whether a wait on `parity` would return now in every one of `blocks`: the
        phase is the current one with all its arrivals and bytes, or the other one
        while nothing is in flight (it completed before)."""
        if not self.live[blocks].all():
            return True  # the wait reports it
        current = (self.phase[blocks] & 1) == parity
        complete = (self.missing[blocks] == 0) & (self.copied[blocks] >= self.expected[blocks])
        return bool(np.where(current, complete, True).all())

    def wait(self, op: Operation, grid: Grid, blocks: np.ndarray, parity: np.ndarray) -> None:
        """A wait by (some threads of) each of `blocks` (unique) on `parity`."""
        self._need_live(op, blocks, "wait")
        current = (self.phase[blocks] & 1) == parity
        stale = ~current & self._busy(blocks)
        if stale.any():
            i = int(np.argmax(stale))
            b = int(blocks[i])
            raise ExecutionError(
                op,
                f"wait on phase parity {int(parity[i])} of the mbarrier of block {b}, whose "
                f"current phase {int(self.phase[b])} (parity {int(self.phase[b]) & 1}) is in flight: "
                f"the wait returns at once (the previous phase is complete) without waiting for it",
                block=b,
            )
        done = blocks[current]
        if done.size == 0:
            return
        check_blocks(op, self.missing[done] > 0,
                     lambda b: f"the wait would never return: phase {int(self.phase[b])} of the mbarrier of block "
                     f"{b} is missing {int(self.missing[b])} of its {self.count} arrivals", done)
        short = self.copied[done] != self.expected[done]
        if short.any():
            b = int(done[np.argmax(short)])
            e, c = int(self.expected[b]), int(self.copied[b])
            why = "the wait would never return" if c < e else "the phase may complete before the copies land"
            raise ExecutionError(
                op,
                f"phase {int(self.phase[b])} of the mbarrier of block {b} expects {e} bytes, but the "
                f"TMA loads on it copy {c}: {why}",
                block=b,
            )
        self._land(op, grid, done)
        if self.heard:  # the peers' arrivals on the completed phases order their accesses before
            hit = {int(b) for b in done}
            for (b, peer), e in list(self.heard.items()):
                if b in hit:
                    r = int(grid.cluster_rank(peer))
                    grid.knows[b, r] = max(grid.knows[b, r], e)
                    del self.heard[(b, peer)]
        self.phase[done] += 1
        self.missing[done] = self.count
        self.expected[done] = 0
        self.copied[done] = 0
        note_barrier_change()

    def _land(self, op: Operation, grid: Grid, done: np.ndarray) -> None:
        rest = []
        for c in self.copies:
            hit = np.isin(c.blocks, done)
            if hit.any():
                sel = c.sel[hit]
                keys = c.keys[hit][sel]
                actors = np.broadcast_to(c.actors[hit][:, None], sel.shape)[sel]
                np.subtract.at(c.storage.tma_pending, keys, 1)
                store(c.op, grid, c.storage, actors, keys, c.values[hit][sel])
            if not hit.all():
                keep = ~hit
                rest.append(
                    InFlight(c.op, c.storage, c.blocks[keep], c.actors[keep], c.keys[keep], c.values[keep], c.sel[keep])
                )
        self.copies = rest

    def inval(self, op: Operation, blocks: np.ndarray) -> None:
        self._need_live(op, blocks, "inval")
        check_blocks(op, self._busy(blocks),
                     lambda b: f"mbarrier of block {b} invalidated while its phase {int(self.phase[b])} is in flight",
                     blocks)
        self.live[blocks] = False


# ------------------------------------------------------------------ TMA stores


@dataclass(eq=False)
class BulkStores:
    """TMA stores still reading shared memory: per store its block, commit number and
    the shared keys it reads."""

    entries: list[tuple[int, int, Storage, np.ndarray]] = field(default_factory=list)
    committed: dict[int, int] = field(default_factory=dict)

    def add(self, block: int, st: Storage, keys: np.ndarray) -> None:
        n = self.committed.get(block, 0)
        self.committed[block] = n + 1
        if st.bulk_reading is None:
            st.bulk_reading = np.zeros(st.data.shape[0], dtype=np.int32)
        np.add.at(st.bulk_reading, keys, 1)
        self.entries.append((block, n, st, keys))

    def wait(self, blocks: np.ndarray, pending: int) -> None:
        wanted = {int(b) for b in blocks}
        rest = []
        for block, n, st, keys in self.entries:
            if block in wanted and n < self.committed[block] - pending:
                np.subtract.at(st.bulk_reading, keys, 1)
            else:
                rest.append((block, n, st, keys))
        self.entries = rest


def _bulk(grid: Grid) -> BulkStores:
    b = getattr(grid, "bulk_stores", None)
    if b is None:
        b = BulkStores()
        grid.bulk_stores = b  # type: ignore[attr-defined]
    return b


# ------------------------------------------------------------------ clusters


def reach_peers(op: Operation, grid: Grid, bar: MBarrier, src: np.ndarray, dst: np.ndarray) -> None:
    """Blocks `src` reach the mbarrier `bar` (and the shared memory beside it) of blocks
    `dst` (one entry each): where `dst` is another block of the cluster, the barrier's
    initialisation in `dst` must be behind a cluster barrier that both have passed,
    and both must meet at another before they exit (`Grid.reached`)."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    remote = src != dst
    if not remote.any():
        return
    s, d = src[remote], dst[remote]
    bad = grid.cluster_syncs[d] <= bar.init_syncs[d]
    if bad.any():
        i = int(np.argmax(bad))
        raise ExecutionError(
            op, f"block {int(s[i])} reaches the mbarrier of block {int(d[i])} of its cluster, whose "
                f"initialisation no cluster_sync has published yet (a cluster_sync between the "
                f"barrier's initialisation and its peers' use)", block=int(s[i]))
    grid.reached[s] = True
    grid.reached[d] = True


def heard_from(grid: Grid, bar: MBarrier, src: np.ndarray, dst: np.ndarray) -> None:
    """Blocks `src` arrive on `bar` of blocks `dst`: where another block of the cluster,
    its accesses so far are ordered before what `dst` does after a wait sees the phase
    complete (`Grid.knows`)."""
    for s, d in zip(np.asarray(src).tolist(), np.asarray(dst).tolist()):
        if s != d:
            bar.heard[(d, s)] = max(bar.heard.get((d, s), -1), int(grid.epoch[s]))


def check_peer_reads(op: Operation, grid: Grid, st: Storage, src: np.ndarray, dst: np.ndarray,
                     keys: np.ndarray) -> None:
    """Blocks `src` ([k]) start writing `keys` ([k, n]) of the shared memory of blocks
    `dst` (a multicast): an error where `dst` read one of them after the last of its
    accesses `src` is ordered after (`Grid.knows`): the peer may still be reading it."""
    if st.writer is None:
        return
    for i, (s, d) in enumerate(zip(np.asarray(src).tolist(), np.asarray(dst).tolist())):
        if s == d:
            continue
        k = keys[i]
        seen = grid.knows[s, int(grid.cluster_rank(d))]
        bad = (st.rblock[k] == d) & (st.repoch[k] > seen)
        if bad.any():
            raise ExecutionError(
                op, f"block {s}'s multicast TMA load overwrites {st.describe(int(k[np.argmax(bad)]))} in block "
                    f"{d} of its cluster, which block {d} read after the last of its accesses block {s} is ordered "
                    f"after (an arrival of block {d} on a barrier of block {s} that block {s} waited on, or a "
                    f"cluster_sync): block {d} may still be reading it", block=s)


def cluster_peers(op: Operation, grid: Grid, blocks: np.ndarray, rank) -> np.ndarray:
    """The block of rank `rank` (per entry or one for all) in the cluster of each of
    `blocks`; an error where a rank is outside the cluster."""
    r = np.broadcast_to(np.asarray(rank, np.int64), np.shape(blocks))
    bad = (r < 0) | (r >= grid.cluster)
    if bad.any():
        raise ExecutionError(op, f"cluster rank {int(r[np.argmax(bad)])} is outside a cluster of "
                                 f"{grid.cluster} blocks")
    return grid.cluster_peer(blocks, r)


def peer_storage(op: Operation, grid: Grid, st: Storage, rank) -> PeerStorage:
    """`st` (shared) as each thread's block reaches it in the cluster's block of rank
    `rank` (per thread, or one for all): `memory.PeerStorage`; an error for a rank
    outside the cluster (of an active thread) or a storage that is not shared."""
    if st.space != SHARED:
        raise ExecutionError(op, f"'{op.name}' of {st.name}, which is not shared memory")
    r = np.broadcast_to(np.asarray(rank, np.int64), grid.block_of.shape)
    if grid.mask is not None:
        r = np.where(grid.mask, r, grid.cluster_rank(grid.block_of))
    inner = st._storage if isinstance(st, PeerStorage) else st
    return PeerStorage(inner, cluster_peers(op, grid, grid.block_of, r))


def multicast_ranks(op: Operation, grid: Grid, mask: int) -> list[int]:
    """The cluster ranks of a multicast mask; an error for a bit outside the cluster."""
    ranks = [r for r in range(16) if mask >> r & 1]
    if not ranks or ranks[-1] >= grid.cluster:
        raise ExecutionError(op, f"multicast mask {mask} names blocks outside a cluster of {grid.cluster}")
    return ranks


def cluster_sync(interp: ReferenceInterpreter, op: Operation, grid: Grid) -> None:
    """Every thread of every block of a cluster meets (`cluster_sync`): a block partly
    there, or a cluster whose blocks do not all come, is an error (on the GPU: a hang);
    the blocks' epochs move on and the peers' reach of each other is settled."""
    from .executor import barrier

    if current_role(interp) is not None:
        raise ExecutionError(op, f"'{op.name}' inside a warp_specialize region: every thread of the "
                                 f"block must reach a cluster barrier")
    barrier(interp, op, grid)
    if grid.mask is None:
        blocks = np.arange(grid.num_blocks)
    else:
        blocks = np.flatnonzero(grid.mask.reshape(grid.num_blocks, grid.threads_per_block).any(axis=1))
    here = np.zeros(grid.num_blocks, bool)
    here[blocks] = True
    absent = ~here[grid.cluster_peer(np.repeat(blocks, grid.cluster), np.tile(np.arange(grid.cluster),
                                                                            blocks.shape[0]))]
    if absent.any():
        b = int(np.repeat(blocks, grid.cluster)[np.argmax(absent)])
        raise ExecutionError(op, f"block {b} waits at a cluster barrier that a block of its cluster does not "
                                 f"reach: it would never return", block=b)
    grid.cluster_syncs[blocks] += 1
    grid.reached[blocks] = False
    for r in range(grid.cluster):  # each block is ordered after its peers' accesses before the barrier
        grid.knows[blocks, r] = grid.epoch[grid.cluster_peer(blocks, r)] - 1
        grid.synced[blocks, r] = grid.knows[blocks, r]


# ------------------------------------------------------------------ layout level


def _collective(interp: ReferenceInterpreter, op: Operation) -> tuple[Grid, np.ndarray]:
    """The grid and the blocks running a block-collective op (all of their threads;
    inside a warp_specialize region, all of the region's threads)."""
    grid = interp.grid
    if grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
    role = current_role(interp)
    if grid.mask is None and role is None:
        return grid, np.arange(grid.num_blocks, dtype=np.int64)
    mask = grid.mask if grid.mask is not None else np.ones(grid.num_threads, bool)
    per = mask.reshape(grid.num_blocks, grid.threads_per_block)
    what, n = "block", grid.threads_per_block
    if role is not None:
        per = per[:, role.first : role.first + role.threads]
        what, n = "warp_specialize region", role.threads
    check_blocks(op, per.any(axis=1) & ~per.all(axis=1),
                 lambda b: f"'{op.name}' is {what}-collective, but only {int(per[b].sum())} of the "
                 f"{n} threads of the {what} in block {b} reach it")
    return grid, np.flatnonzero(per.any(axis=1)).astype(np.int64)


def _running_value(interp: ReferenceInterpreter, op: Operation, v: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """The value of the per-thread `v` in each of `blocks`, as the threads running the
    block-collective `op` hold it (inside a warp_specialize region its threads only,
    under the active mask: the other threads' copies of a loop-carried value are not
    theirs); an error where those threads differ."""
    grid = interp.grid
    per = v.reshape(grid.num_blocks, grid.threads_per_block)
    mask = grid.mask if grid.mask is not None else np.ones(grid.num_threads, bool)
    runs = mask.reshape(per.shape)
    role = current_role(interp)
    if role is not None:
        per = per[:, role.first : role.first + role.threads]
        runs = runs[:, role.first : role.first + role.threads]
    per, runs = per[blocks], runs[blocks]
    first = per[np.arange(blocks.shape[0]), np.argmax(runs, axis=1)]
    if ((per != first[:, None]) & runs).any():
        raise ExecutionError(op, "the phase differs between the threads of a block")
    return first


def _wait(interp: ReferenceInterpreter, op: Operation, grid: Grid, bar: MBarrier, blocks, parity) -> None:
    """A wait; inside a warp_specialize region the other regions run until it can
    return (roles_impls.py), and its completion orders the block's accesses."""
    role = current_role(interp)
    if role is not None:
        bar._need_live(op, blocks, "wait")
        seen = bar.seen_by(role.first)
        done = ((bar.phase[blocks] & 1) != parity) & (bar.phase[blocks] > 0)
        # a phase completed (seen by another region's wait) that is this region's next one:
        # the wait returns at once, as it should (several consumer regions wait on one "full")
        # and whose next phase has not begun (no arrival, no bytes: its waiters have not
        # all released the stage, so it cannot be the one this region means)
        late = done & (seen[blocks] == bar.phase[blocks] - 1) & ~bar._busy(blocks)
        stale = done & ~late
        if stale.any():  # the phase a region waits on is always its next one
            i = int(np.argmax(stale))
            b = int(blocks[i])
            raise ExecutionError(
                op,
                f"wait on phase parity {int(parity[i])} of the mbarrier of block {b}, whose phase "
                f"{int(bar.phase[b]) - 1} (that parity) has completed and been waited on: the wait "
                f"returns at once without waiting for phase {int(bar.phase[b])}",
                block=b,
            )
        if late.any():
            seen[blocks[late]] = bar.phase[blocks[late]]
            grid.epoch[np.unique(blocks[late])] += 1
            blocks, parity = blocks[~late], parity[~late]
            if blocks.size == 0:
                return
    if wait_until(interp, lambda: bar.ready(blocks, parity), lambda: bar.wait(op, grid, blocks, parity)):
        bar.wait(op, grid, blocks, parity)
        grid.epoch[np.unique(blocks)] += 1
        if role is not None:
            bar.seen_by(role.first)[blocks] = bar.phase[blocks]
        return
    bar.wait(op, grid, blocks, parity)
    if role is not None:
        bar.seen_by(role.first)[blocks] = bar.phase[blocks]


def _grid_uniform(interp: ReferenceInterpreter, op: Operation, v: Any, what: str) -> int:
    """The value of `v` in the running threads, which must all agree (a stage index:
    every block of the grid is at the same step of its pipeline)."""
    a = np.asarray(v, dtype=np.int64)
    if a.ndim:
        grid = interp.grid
        if grid is not None and grid.mask is not None:
            a = a[grid.mask]
        if a.size == 0:
            return 0
        if not (a == a.flat[0]).all():
            raise ExecutionError(op, f"{what} differs between the threads of the grid ({int(a.min())} to {int(a.max())})")
        return int(a.flat[0])
    return int(a)


def _bar(op: Operation, v: Any) -> MBarrier:
    if not isinstance(v, MBarrier):
        raise ExecutionError(op, f"expected an mbarrier, got {type(v).__name__}")
    return v


def _cp_async_arrive(interp: ReferenceInterpreter, op: Operation, grid: Grid, bar: MBarrier) -> None:
    """`cp.async.mbarrier.arrive.noinc` by the running threads (`layout.cp_async_arrive`,
    `cuda.cp_async_mbarrier_arrive`): each thread's `cp.async` copies in flight complete
    with the barrier's phase (the block's writes seen by its waiters, as a TMA load's);
    then one arrival a thread."""
    tids = grid.active_tids()
    for c in _async_copies(interp, op).take(tids):
        blocks = grid.block_of[c.rows]
        bar.issue(op, grid, blocks, whole_block(blocks), c.storage, c.keys, c.values, c.sel, 0)
    bar.arrive(op, grid.block_of[tids], 0)


def _tile_copy(op: Operation, grid: Grid, blocks: np.ndarray, gview: View, sview: View):
    """(actors, rows, global keys, shared keys, valid) of a block-collective copy
    between a global tile and a shared buffer: element i of one is element i of the
    other (logical order); `valid` says which global elements exist."""
    for v in (gview, sview):
        if not _block_uniform(grid, v.base) or (
            v.mask is not None and not all(_block_uniform(grid, o) for m in v.mask.chain() for o in m.off)
        ):
            raise ExecutionError(op, f"the view of {v.name} differs between the threads of a block")
    tpb = grid.threads_per_block
    acc = Access(whole_block(blocks), blocks * tpb)
    gg, sg = geometry(gview.layout, None), geometry(sview.layout, None)
    if gg.offsets.shape != sg.offsets.shape:
        raise ExecutionError(op, f"copy between views of {gg.offsets.shape[0]} and {sg.offsets.shape[0]} elements")
    valid = mask_valid(gview.mask, acc.rows, gg.coords, None)
    if valid is None:
        valid = np.ones((blocks.shape[0], gg.offsets.shape[0]), bool)
    valid = np.broadcast_to(valid, (blocks.shape[0], gg.offsets.shape[0]))
    gkeys = element_keys(op, grid, gview, acc, gg.offsets, valid, "reads")
    skeys = element_keys(op, grid, sview, acc, sg.offsets, None, "writes")
    return acc, gkeys, skeys, valid


def _clip_copied(op: layout_tma.TmaLoadOp, g: View, acc: Access) -> np.ndarray:
    """The elements ([k, E]) the copy engine copies for `layout.tma_load {clip}`: the map's
    box cut to `min(box, extent)` along each TMA dimension (the extent: the tensor's, its
    view's root bound), so an element is copied where its index in its box is below both
    (past the tensor's end but inside the cut box: a zero, copied and counted); `tail`: along
    the outermost dimension the cut is the tensor's last box's, `(extent - 1) mod box + 1`."""
    geo = op.plan().geometry
    gg = geometry(g.layout, None)
    copied = np.ones((acc.rows.shape[0], gg.offsets.shape[0]), bool)
    if g.mask is None:
        return copied
    root = g.mask  # the root's bounds (the first map of the chain)
    for d, k in enumerate(geo.order):
        bound = root.bound[k]
        if bound is None:
            continue
        b = np.asarray(bound, dtype=np.int64)
        b = b[acc.rows][:, None] if b.ndim else b
        j = (np.asarray(gg.coords[k], dtype=np.int64) % geo.box[d])[None, :]
        tail = op.tail_clipped and d == len(geo.order) - 1
        copied &= j < ((b - 1) % geo.box[d] + 1 if tail else np.minimum(geo.box[d], b))
    return copied


def _loaded_tile(interp: ReferenceInterpreter, op: Operation, args):
    """What a tile load (`layout.tma_load`, `layout.cp_async_load`: global tile `args[0]`
    into shared tile `args[1]` on mbarrier `args[2]`) reads, before it lands:
    `(grid, blocks, barrier, the actors' accesses, the shared view, its keys, the
    values)`, elements outside the global view zeros."""
    grid, blocks = _collective(interp, op)
    g, s = _view(op, args[0]), _view(op, args[1])
    bar = _bar(op, args[2])
    acc, gkeys, skeys, valid = _tile_copy(op, grid, blocks, g, s)
    rows = np.broadcast_to(acc.actors[:, None], gkeys.shape)
    values = np.zeros(gkeys.shape, dtype=s.storage.data.dtype)
    values[valid] = load(op, grid, g, rows[valid], gkeys[valid])
    return grid, blocks, bar, acc, s, skeys, values


@register_impls
class TmaFunctions(InterpreterFunctions):
    @impl(layout_tma.ClusterRankOp)
    def run_cluster_rank(self, interp: ReferenceInterpreter, op: layout_tma.ClusterRankOp, args):
        grid = _grid(interp, op)
        return (grid.cluster_rank(grid.block_of).astype(np.int64),)

    @impl(layout_tma.GridDepWaitOp)
    def run_griddep_wait(self, interp: ReferenceInterpreter, op: layout_tma.GridDepWaitOp, args):
        return ()  # one kernel at a time: every earlier kernel has completed

    @impl(layout_tma.GridDepLaunchOp)
    def run_griddep_launch(self, interp: ReferenceInterpreter, op: layout_tma.GridDepLaunchOp, args):
        return ()  # a scheduling hint: no ordering of memory

    @impl(cuda_tma.GridDepWaitOp)
    def run_gpu_griddep_wait(self, interp: ReferenceInterpreter, op: cuda_tma.GridDepWaitOp, args):
        return ()

    @impl(cuda_tma.GridDepLaunchOp)
    def run_gpu_griddep_launch(self, interp: ReferenceInterpreter, op: cuda_tma.GridDepLaunchOp, args):
        return ()

    @impl(layout_tma.ClusterSyncOp)
    def run_cluster_sync(self, interp: ReferenceInterpreter, op: layout_tma.ClusterSyncOp, args):
        cluster_sync(interp, op, _grid(interp, op))
        return ()

    @impl(layout_tma.PeerViewOp)
    def run_peer_view(self, interp: ReferenceInterpreter, op: layout_tma.PeerViewOp, args):
        grid = _grid(interp, op)
        v = _view(op, args[0])
        return (replace(v, storage=peer_storage(op, grid, v.storage, args[1])),)

    @impl(layout_tma.MBarrierInitOp)
    def run_init(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierInitOp, args):
        grid, blocks = _collective(interp, op)
        bar = MBarrier(op.count.value.data, grid.num_blocks)
        bar.init(op, blocks)
        bar.init_syncs[blocks] = grid.cluster_syncs[blocks]
        return (bar,)

    @impl(layout_tma.MBarrierArrayOp)
    def run_array(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierArrayOp, args):
        grid, blocks = _collective(interp, op)
        bars = [MBarrier(op.count.value.data, grid.num_blocks) for _ in range(op.num_stages)]
        for bar in bars:
            bar.init(op, blocks)
            bar.init_syncs[blocks] = grid.cluster_syncs[blocks]
        return (bars,)

    @impl(layout_tma.MBarrierAtOp)
    def run_at(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierAtOp, args):
        bars, idx = args
        if not isinstance(bars, list):
            raise ExecutionError(op, f"expected an mbarrier array, got {type(bars).__name__}")
        i = _grid_uniform(interp, op, idx, "the mbarrier index")
        if not 0 <= i < len(bars):
            raise ExecutionError(op, f"mbarrier index {i} is out of range for an array of {len(bars)} barriers")
        return (bars[i],)

    @impl(layout_tma.MBarrierArriveOp)
    def run_arrive(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierArriveOp, args):
        grid, blocks = _collective(interp, op)
        bar = _bar(op, args[0])
        if op.cta is not None:  # on the barrier of the cluster's block of rank cta
            cta = np.asarray(args[1], dtype=np.int64)
            if np.ndim(cta):
                cta = _running_value(interp, op, cta, blocks)
            dst = cluster_peers(op, grid, blocks, cta)
            reach_peers(op, grid, bar, blocks, dst)
            heard_from(grid, bar, blocks, dst)
            blocks = dst
        role = current_role(interp)
        if role is not None:  # one arrival per warpgroup of the region
            blocks = np.repeat(blocks, role.warpgroups)
        bar.arrive(op, blocks, op.tx_bytes)
        return ()

    @impl(layout_tma.MBarrierExpectTxOp)
    def run_expect_tx(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierExpectTxOp, args):
        _, blocks = _collective(interp, op)
        bar = _bar(op, args[0])
        n = np.asarray(args[1], dtype=np.int64)
        n = _running_value(interp, op, n, blocks) if np.ndim(n) else np.full(blocks.shape, int(n), np.int64)
        role = current_role(interp)
        if role is not None:  # each warpgroup of the region (its arriving thread)
            blocks, n = np.repeat(blocks, role.warpgroups), np.repeat(n, role.warpgroups)
        bar.expect(op, blocks, n)
        return ()

    @impl(layout_tma.MBarrierWaitOp)
    def run_wait(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierWaitOp, args):
        grid, blocks = _collective(interp, op)
        phase = np.asarray(args[1], dtype=np.int64)
        if np.ndim(phase):
            phase = _running_value(interp, op, phase, blocks)
        parity = np.broadcast_to(phase & 1, blocks.shape)
        _wait(interp, op, grid, _bar(op, args[0]), blocks, parity)
        return ()

    @impl(layout_tma.MBarrierInvalOp)
    def run_inval(self, interp: ReferenceInterpreter, op: layout_tma.MBarrierInvalOp, args):
        _, blocks = _collective(interp, op)
        _bar(op, args[0]).inval(op, blocks)
        return ()

    @impl(layout_tma.TmaLoadOp)
    def run_tma_load(self, interp: ReferenceInterpreter, op: layout_tma.TmaLoadOp, args):
        grid, blocks, bar, acc, s, skeys, values = _loaded_tile(interp, op, args)
        nbytes = skeys.shape[1] * element_bytes(s.type.element_type)
        if op.clipped:  # the box cut to a shorter tensor: the elements past the cut neither written nor counted
            sel = _clip_copied(op, _view(op, args[0]), acc)
            nb = sel.sum(axis=1).astype(np.int64) * element_bytes(s.type.element_type)
            bar.issue(op, grid, blocks, acc.actors, s.storage, skeys, values, sel, nb)
            return ()
        if op.multicast_mask is not None:
            _multicast(op, grid, bar, blocks, s.storage, skeys, values, nbytes, op.multicast_mask)
            return ()
        bar.issue(op, grid, blocks, acc.actors, s.storage, skeys, values, np.ones(skeys.shape, bool), nbytes)
        return ()

    @impl(layout_tma.CpAsyncLoadOp)
    def run_cp_async_load(self, interp: ReferenceInterpreter, op: layout_tma.CpAsyncLoadOp, args):
        grid, blocks, bar, acc, s, skeys, values = _loaded_tile(interp, op, args)
        # the copies land with the phase (as a TMA load's, no bytes counted), and each
        # thread running the op arrives once (.noinc)
        bar.issue(op, grid, blocks, acc.actors, s.storage, skeys, values, np.ones(skeys.shape, bool), 0)
        role = current_role(interp)
        bar.arrive(op, np.repeat(blocks, role.threads if role is not None else grid.threads_per_block), 0)
        return ()

    @impl(layout_tma.CpAsyncArriveOp)
    def run_cp_async_arrive(self, interp: ReferenceInterpreter, op: layout_tma.CpAsyncArriveOp, args):
        grid, _ = _collective(interp, op)
        _cp_async_arrive(interp, op, grid, _bar(op, args[0]))
        return ()

    @impl(layout_tma.TmaStoreOp)
    def run_tma_store(self, interp: ReferenceInterpreter, op: layout_tma.TmaStoreOp, args):
        grid, blocks = _collective(interp, op)
        region_barrier(interp, op)  # fence.proxy.async + the block's (region's) barrier
        s, g = _view(op, args[0]), _view(op, args[1])
        acc, gkeys, skeys, valid = _tile_copy(op, grid, blocks, g, s)
        rows = np.broadcast_to(acc.actors[:, None], gkeys.shape)
        # the box's elements past the tensor are not stored (clipped), so not read: a masked
        # load before it may have left them unwritten
        values = load(op, grid, s, rows[valid], skeys[valid])
        store(op, grid, g, rows[valid], gkeys[valid], values)
        bulk = _bulk(grid)
        for i, b in enumerate(blocks):
            bulk.add(int(b), s.storage, skeys[i])
        return ()

    @impl(layout_tma.TmaStoreWaitOp)
    def run_tma_store_wait(self, interp: ReferenceInterpreter, op: layout_tma.TmaStoreWaitOp, args):
        grid, blocks = _collective(interp, op)
        _bulk(grid).wait(blocks, op.pending.value.data)
        region_barrier(interp, op)
        return ()

    # ---------------------------------------------------------------- GPU level

    @impl(cuda_tma.TensorMapOp)
    def run_tensor_map(self, interp: ReferenceInterpreter, op: cuda_tma.TensorMapOp, args):
        buf, *sizes = args
        rank = len(op.box_sizes)
        dims = [int(x) for x in sizes[:rank]]
        strides = [1] + [int(x) for x in sizes[rank:]]
        return (TensorMapValue(buf, tuple(dims), tuple(strides), op.box_of(dims), op.swizzle_bytes, op.buffer.type),)

    @impl(cuda_tma.ClusterRankOp)
    def run_gpu_cluster_rank(self, interp: ReferenceInterpreter, op: cuda_tma.ClusterRankOp, args):
        grid = _grid(interp, op)
        return (grid.cluster_rank(grid.block_of).astype(np.int64),)

    @impl(cuda_tma.ClusterSyncOp)
    def run_gpu_cluster_sync(self, interp: ReferenceInterpreter, op: cuda_tma.ClusterSyncOp, args):
        cluster_sync(interp, op, _grid(interp, op))
        return ()

    @impl(cuda_tma.MapSharedRankOp)
    def run_gpu_map_shared_rank(self, interp: ReferenceInterpreter, op: cuda_tma.MapSharedRankOp, args):
        grid = _grid(interp, op)
        m = _mem(op, args[0])
        return (replace(m, storage=peer_storage(op, grid, m.storage, args[1])),)

    @impl(cuda_tma.MBarrierInitOp)
    def run_gpu_init(self, interp: ReferenceInterpreter, op: cuda_tma.MBarrierInitOp, args):
        grid = _grid(interp, op)
        bar = _barrier_of(op, grid, args[0])
        tids = grid.active_tids()
        bar.count = op.count.value.data
        bar.init(op, grid.block_of[tids])
        bar.init_syncs[grid.block_of[tids]] = grid.cluster_syncs[grid.block_of[tids]]
        return ()

    @impl(cuda_tma.MBarrierArriveExpectTxOp)
    def run_gpu_arrive(self, interp: ReferenceInterpreter, op: cuda_tma.MBarrierArriveExpectTxOp, args):
        grid = _grid(interp, op)
        bar = _barrier_of(op, grid, args[0])
        tids = grid.active_tids()
        blocks = grid.block_of[tids]
        if op.cta is not None:  # on the barrier of the cluster's block of rank cta
            (cta,) = thread_indices(grid, tids, (args[1],))
            dst = cluster_peers(op, grid, blocks, np.asarray(cta, dtype=np.int64))
            reach_peers(op, grid, bar, blocks, dst)
            heard_from(grid, bar, blocks, dst)
            blocks = dst
        bar.arrive(op, blocks, op.tx.value.data)
        return ()

    @impl(cuda_tma.MBarrierExpectTxOp)
    def run_gpu_expect_tx(self, interp: ReferenceInterpreter, op: cuda_tma.MBarrierExpectTxOp, args):
        grid = _grid(interp, op)
        bar = _barrier_of(op, grid, args[0])
        tids = grid.active_tids()
        (n,) = thread_indices(grid, tids, (args[1],))
        bar.expect(op, grid.block_of[tids], np.asarray(n, dtype=np.int64))
        return ()

    @impl(cuda_tma.CpAsyncMBarrierArriveOp)
    def run_gpu_cp_async_arrive(self, interp: ReferenceInterpreter, op: cuda_tma.CpAsyncMBarrierArriveOp, args):
        grid = _grid(interp, op)
        _cp_async_arrive(interp, op, grid, _barrier_of(op, grid, args[0]))
        return ()

    @impl(cuda_tma.MBarrierWaitOp)
    def run_gpu_wait(self, interp: ReferenceInterpreter, op: cuda_tma.MBarrierWaitOp, args):
        grid = _grid(interp, op)
        bar = _barrier_of(op, grid, args[0])
        tids = grid.active_tids()
        (parity,) = thread_indices(grid, tids, (args[1],))
        blocks, first = np.unique(grid.block_of[tids], return_index=True)
        par = np.asarray(parity, dtype=np.int64)[first] & 1
        _wait(interp, op, grid, bar, blocks, par)
        return ()

    @impl(cuda_tma.MBarrierInvalOp)
    def run_gpu_inval(self, interp: ReferenceInterpreter, op: cuda_tma.MBarrierInvalOp, args):
        grid = _grid(interp, op)
        bar = _barrier_of(op, grid, args[0])
        bar.inval(op, np.unique(grid.block_of[grid.active_tids()]))
        return ()

    @impl(cuda_tma.TmaLoadOp)
    def run_gpu_tma_load(self, interp: ReferenceInterpreter, op: cuda_tma.TmaLoadOp, args):
        grid = _grid(interp, op)
        dst, tmap, bar_ref, *coords = args
        bar = _barrier_of(op, grid, bar_ref)
        tmap = _tensor_map(op, tmap)
        dst = _mem(op, dst)
        tids = grid.active_tids()
        gkeys, valid, soff = _box(op, grid, tmap, tids, coords)
        gst = _mem(op, tmap.buffer).storage
        rows = np.broadcast_to(tids[:, None], gkeys.shape)
        values = np.zeros(gkeys.shape, dtype=dst.storage.data.dtype)
        values[valid] = load(op, grid, gst, rows[valid], gkeys[valid])
        skeys = _shared_keys(op, grid, dst, tids, soff + op.element_offset)
        nbytes = skeys.shape[1] * dst.storage.data.dtype.itemsize
        # the copy engine writes for the block: what lands is visible to every thread
        # that waits on the barrier (the wait's acquire), as a whole-block write
        blocks = grid.block_of[tids]
        if op.multicast_mask is not None:
            _multicast(op, grid, bar, blocks, dst.storage, skeys, values, nbytes, op.multicast_mask)
            return ()
        bar.issue(op, grid, blocks, whole_block(blocks), dst.storage, skeys, values, np.ones(skeys.shape, bool), nbytes)
        return ()

    @impl(cuda_tma.TmaStoreOp)
    def run_gpu_tma_store(self, interp: ReferenceInterpreter, op: cuda_tma.TmaStoreOp, args):
        grid = _grid(interp, op)
        tmap, *coords, src = args
        tmap = _tensor_map(op, tmap)
        src = _mem(op, src)
        tids = grid.active_tids()
        gkeys, valid, soff = _box(op, grid, tmap, tids, coords)
        skeys = _shared_keys(op, grid, src, tids, soff + op.element_offset)
        rows = np.broadcast_to(tids[:, None], skeys.shape)
        values = load(op, grid, src.storage, rows[valid], skeys[valid])  # (clipped elements: not read)
        gst = _mem(op, tmap.buffer).storage
        store(op, grid, gst, rows[valid], gkeys[valid], values)
        bulk = _bulk(grid)
        for i, t in enumerate(tids):
            bulk.add(_thread_group(grid, int(t)), src.storage, skeys[i])
        return ()

    @impl(cuda_tma.BulkCommitOp)
    def run_gpu_commit(self, interp: ReferenceInterpreter, op: cuda_tma.BulkCommitOp, args):
        return ()  # each cuda.tma_store is its own group in this model

    @impl(cuda_tma.BulkWaitReadOp)
    def run_gpu_bulk_wait(self, interp: ReferenceInterpreter, op: cuda_tma.BulkWaitReadOp, args):
        grid = _grid(interp, op)
        tids = grid.active_tids()
        _bulk(grid).wait(np.asarray([_thread_group(grid, int(t)) for t in tids]), op.pending.value.data)
        return ()

    @impl(cuda_tma.FenceProxyAsyncOp)
    def run_gpu_fence(self, interp: ReferenceInterpreter, op: cuda_tma.FenceProxyAsyncOp, args):
        return ()


def _multicast(op: Operation, grid: Grid, bar: MBarrier, blocks: np.ndarray, st: Storage, skeys: np.ndarray,
               values: np.ndarray, nbytes: int, mask: int) -> None:
    """TMA loads issued by `blocks` ([k]; `skeys` [k, n] in their own shared memory)
    multicast to the cluster's blocks of the ranks in `mask`: each lands in the same
    place of each receiving block's `st`, as that block's write, completing `nbytes`
    on its `bar`."""
    dst, keys, vals = [], [], []
    for r in multicast_ranks(op, grid, mask):
        d = cluster_peers(op, grid, blocks, r)
        reach_peers(op, grid, bar, blocks, d)
        check_peer_reads(op, grid, st, blocks, d, skeys + ((d - blocks) * st.size)[:, None])
        dst.append(d)
        keys.append(skeys + ((d - blocks) * st.size)[:, None])
        vals.append(values)
    d = np.concatenate(dst)
    k = np.concatenate(keys)
    bar.issue(op, grid, d, whole_block(d), st, k, np.concatenate(vals), np.ones(k.shape, bool), nbytes)


def _thread_group(grid: Grid, t: int) -> int:
    """The bulk-group owner key of thread t (groups are per thread; blocks use
    negative keys in the layout-level model, so threads are kept apart)."""
    return grid.num_blocks + t


# ------------------------------------------------------------------ GPU-level helpers


@dataclass(eq=False)
class TensorMapValue:
    """A `!cuda.tensor_map` on the simulator: the buffer, the dims and element strides
    (dimension 0 first), the box and the swizzle."""

    buffer: Any
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    swizzle_bytes: int
    buffer_type: Any = None

    def to_kernel(self, convert) -> TensorMapValue:
        """The map as a kernel sees it: its buffer a global memref of the launch."""
        name = getattr(self.buffer, "name", "buf")
        return replace(self, buffer=convert(self.buffer, self.buffer_type, name))


def _tensor_map(op: Operation, v: Any) -> TensorMapValue:
    if not isinstance(v, TensorMapValue):
        raise ExecutionError(op, f"expected a tensor map, got {type(v).__name__}")
    return v


def _barrier_of(op: Operation, grid: Grid, ref: Any) -> MBarrier:
    """The mbarrier living in the shared-memory word `ref` (a memref<1xi64, 3>, or a
    subview of an array of them: one barrier per word)."""
    m = _mem(op, ref)
    st = m.storage
    if st.space != SHARED:
        raise ExecutionError(op, f"an mbarrier lives in shared memory, not in {st.name}")
    off = m.offset
    if isinstance(off, np.ndarray):
        tids = grid.active_tids()
        a = off[tids]
        if a.size and not (a == a[0]).all():
            raise ExecutionError(op, "the mbarrier differs between the threads of the grid")
        off = int(a[0]) if a.size else 0
    if not 0 <= int(off) < st.size:
        raise ExecutionError(op, f"mbarrier word {int(off)} is outside {st.name} ({st.size} words)")
    bars = getattr(st, "mbarriers", None)
    if bars is None:
        bars = {}
        st.mbarriers = bars  # type: ignore[attr-defined]
    bar = bars.get(int(off))
    if bar is None:
        bar = bars[int(off)] = MBarrier(1, grid.num_blocks)
    return bar


def _box(op: Operation, grid: Grid, tmap: TensorMapValue, tids: np.ndarray, coords: list[Any]):
    """Global keys [k, E] of each thread's box (elements in box order: dimension 0
    fastest), which exist, and the box elements' shared offsets [E]."""
    rank = len(tmap.box)
    cs = thread_indices(grid, tids, tuple(coords))
    idx = np.indices(tmap.box[::-1]).reshape(rank, -1)[::-1]  # per dim, box order
    gkeys = np.zeros((tids.shape[0], idx.shape[1]), np.int64)
    valid = np.ones(gkeys.shape, bool)
    for d in range(rank):
        c = np.asarray(cs[d], dtype=np.int64).reshape(-1, 1) + idx[d][None, :]
        valid &= (c >= 0) & (c < tmap.dims[d])
        gkeys += c * tmap.strides[d]
    gkeys = np.where(valid, gkeys, 0)
    eb = int(_mem(op, tmap.buffer).storage.data.dtype.itemsize)
    soff = box_offsets(tmap.box, tuple(range(rank)), tmap.swizzle_bytes, eb)
    soff = np.transpose(soff, tuple(range(rank))[::-1]).reshape(-1) if rank > 1 else soff.reshape(-1)
    return gkeys, valid, soff


def _shared_keys(op: Operation, grid: Grid, m: Any, tids: np.ndarray, soff: np.ndarray) -> np.ndarray:
    st = m.storage
    if st.space != SHARED:
        raise ExecutionError(op, f"a TMA copy's shared side is {st.name}, not shared memory")
    off = m.offset
    base = np.asarray(off[tids] if isinstance(off, np.ndarray) else off, dtype=np.int64).reshape(-1, 1)
    rel = base + soff[None, :]
    if (rel < 0).any() or (rel >= st.size).any():
        raise ExecutionError(op, f"the TMA box does not fit in {st.name} ({st.size} elements)")
    return rel + np.asarray(st.base(grid, tids)).reshape(-1, 1)
