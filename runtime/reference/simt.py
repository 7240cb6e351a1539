"""The simulated grid: thread and block ids, the active-thread mask, barrier epochs.
(The cp.async copies in flight are memory-model state: `memory.AsyncCopies`.)

All threads of all blocks run in lockstep, one op at a time over arrays of shape
`[T]` (T = blocks x threads per block), thread t being thread `t % tpb` of block
`t // tpb` (ids linearised x fastest, as CUDA does). Divergent control flow runs each
side under a mask of active threads. Blocks never synchronise with each other, so
running them in lockstep is one of their legal schedules; inside a block, the race
checks of `memory.py` make the outcome independent of the schedule (a program whose
result would depend on it is reported, not run).

Blocks of one thread-block cluster (`cluster`, consecutive along x) run in lockstep as
all blocks do; what they do to each other's shared memory (an mbarrier arrival on a
peer's barrier, a TMA load multicast to several blocks) is recorded as done for the
receiving block, and a `cluster_sync` moves the epochs of all of the cluster's blocks.

Each block has a barrier *epoch*: the number of barriers it has passed. Two accesses
of one block are ordered iff a barrier lies between them, i.e. iff their epochs
differ; accesses of two blocks are never ordered within a launch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WARP_SIZE = 32


def whole_block(blocks: np.ndarray) -> np.ndarray:
    """Actor ids for "every thread of block b, doing the same thing": -2 - b.

    An op whose operands are the same for all threads of a block (a layout-level
    copy between block tiles) is done redundantly by each of them; the memory model
    records it once per block with this actor instead of once per thread."""
    return -2 - np.asarray(blocks, dtype=np.int64)


def first_offender(grid: Grid | None, bad) -> int | None:
    """The first thread that runs the current op and for which `bad` holds (`bad` one
    bool per thread of `grid`, or one bool for all: then 0), or None when none does."""
    if grid is not None and np.ndim(bad) and grid.mask is not None:
        bad = bad & grid.mask
    if not np.any(bad):
        return None
    return int(np.argmax(bad)) if np.ndim(bad) else 0


@dataclass
class Grid:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    mask: np.ndarray | None = None
    """bool [T] of the threads that run the current op; None when all do."""
    cluster: int = 1
    """Blocks per thread-block cluster, consecutive along x (`tilec.cluster_dims`)."""

    def __post_init__(self):
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        self.num_blocks = gx * gy * gz
        self.threads_per_block = bx * by * bz
        self.num_threads = self.num_blocks * self.threads_per_block
        t = np.arange(self.num_threads, dtype=np.int64)
        self.tid = t
        self.block_of = t // self.threads_per_block
        self.local = t % self.threads_per_block
        loc = self.local
        self.thread_id = (loc % bx, (loc // bx) % by, loc // (bx * by))
        b = self.block_of
        self.block_id = (b % gx, (b // gx) % gy, b // (gx * gy))
        self.epoch = np.zeros(self.num_blocks, dtype=np.int32)
        self.cluster_syncs = np.zeros(self.num_blocks, dtype=np.int64)
        """Per block: the cluster barriers it has passed (`cluster_sync`)."""
        self.knows = np.zeros((self.num_blocks, self.cluster), dtype=np.int64) - 1
        """Per block b and rank r: the last barrier epoch of b's peer of rank r whose
        accesses b is ordered after (through the peer's arrivals on b's mbarriers whose
        phases b's waits saw complete, or a cluster_sync); -1: none. A write by b into the
        peer's shared memory (a multicast) conflicts with the peer's reads of a later epoch."""
        self.synced = np.zeros((self.num_blocks, self.cluster), dtype=np.int64) - 1
        """Per block b and rank r: the last barrier epoch of b's peer of rank r whose
        accesses a `cluster_sync` orders before b's (its release and acquire are the
        cluster's, so they order data as well: `memory._cluster_ordered`); -1: none."""
        self.reached = np.zeros(self.num_blocks, dtype=bool)
        """Per block: whether a block of its cluster reached its shared memory (an arrival
        on its barrier, a multicast into it), or it a peer's, since its last cluster
        barrier: such a block may not exit before one (`executor.launch` checks)."""

    def cluster_rank(self, blocks: np.ndarray) -> np.ndarray:
        """The rank of each of `blocks` in its cluster (CUDA's `%cluster_ctarank`:
        the clusters run along x, so it is the block's x modulo the cluster size)."""
        return (np.asarray(blocks) % self.grid[0]) % self.cluster

    def cluster_peer(self, blocks: np.ndarray, rank) -> np.ndarray:
        """The block of rank `rank` (per entry, or one for all) in the cluster of each of `blocks`."""
        b = np.asarray(blocks)
        return b - self.cluster_rank(b) + np.asarray(rank, dtype=np.int64)

    def active_tids(self) -> np.ndarray:
        if self.mask is None:
            return self.tid
        return np.flatnonzero(self.mask)

    def actor_block(self, actors: np.ndarray) -> np.ndarray:
        """Block of each actor: a thread id (>= 0), or `whole_block(b)` (<= -2)."""
        a = np.asarray(actors)
        return np.where(a >= 0, a // self.threads_per_block, -2 - a)

    def describe_thread(self, t: int) -> str:
        """'thread 37 of block 5', with (x, y, z) coordinates for 2-D/3-D shapes."""
        t = int(t)
        if t <= -2:
            return f"every thread of block {-2 - t} (redundantly)"
        local = int(self.local[t])
        blk = int(self.block_of[t])
        text = f"thread {local}"
        if self.block[1] * self.block[2] > 1:
            text += f" ({self._coords(self.thread_id, self.block, t)})"
        text += f" of block {blk}"
        if self.grid[1] * self.grid[2] > 1:
            text += f" ({self._coords(self.block_id, self.grid, t)})"
        return text

    @staticmethod
    def _coords(ids: tuple[np.ndarray, ...], dims: tuple[int, int, int], t: int) -> str:
        rank = 3 if dims[2] > 1 else 2
        return ", ".join(f"{n}={int(a[t])}" for n, a in list(zip("xyz", ids))[:rank])
