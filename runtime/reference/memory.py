"""Memory of the simulated GPU, with the checks that make the reference an oracle.

A `Storage` is one allocation: a global buffer (an array given to `run`), a shared
memory allocation (one instance per block) or a register array (one instance per
thread). A `MemRef` is the run-time value of a memref SSA value: a storage plus a
strided view of it (shape, strides, offset; the offset may differ per thread).

Every access goes through `load` / `store`, vectorised over the threads that perform
it, and is checked:

- bounds, per dimension of the view, and of the storage itself;
- shared and register memory: reading an element never written is an error (an
  initialised bit per element); reading an element a cp.async is still writing is an
  error (a pending count per element, cleared by `cuda.cp_async_wait`);
- shared and global memory: data races. Per element the storage keeps its last
  writer (thread, barrier epoch) and its readers since the last barrier (one thread,
  or "several"; for global memory also whether threads of several blocks read it).
  Within a launch two accesses by different threads conflict when at least one writes
  and they are not ordered: in different blocks, or in one block with no barrier
  between them (same epoch). A conflicting read after a write is an error; a
  conflicting write is an error when it changes the element's value (writing the
  value already there is benign whatever the order). Accesses of two blocks are
  ordered where a release and an acquire of one atomic counter hand the writer's
  block's memory over to the accessing block (atomic_impls.py's `Handoffs`), and,
  for two blocks of one thread-block cluster, where a `cluster_sync` orders the other's
  accesses of that epoch before the accessing block's (`Grid.synced`; an arrival on a
  peer's mbarrier releases at the block's scope only, so it does not). A block reaches
  a peer's shared memory through a `PeerStorage` (`layout.peer_view`,
  `cuda.map_shared_rank`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from .errors import ExecutionError, fail_first
from .simt import Grid
from .values import bits_equal

GLOBAL = "global"
SHARED = "shared"
PRIVATE = "private"

_SPACE_WORDS = {GLOBAL: "global memory", SHARED: "shared memory", PRIVATE: "registers"}

NONE = -1
MULTI = -2


@dataclass
class WriteAudit:
    """What `audit_writes` collects while a program runs.

    `written[name]`: which elements of the global buffer `name` (as `%name`) any store
    wrote. With `strict`, two unordered threads writing one element is an error even
    when they write the same value (normally benign), so a lowering that writes an
    element twice, or writes a neighbour's element with the right value, is caught."""

    strict: bool
    written: dict[str, np.ndarray] = field(default_factory=dict)


_AUDIT: ContextVar[WriteAudit | None] = ContextVar("tilec_reference_write_audit", default=None)


@contextmanager
def audit_writes(strict: bool = True) -> Iterator[WriteAudit]:
    """Record the global elements written by the runs inside the `with` block (and with
    `strict`, refuse an element written by two unordered threads)."""
    audit = WriteAudit(strict)
    token = _AUDIT.set(audit)
    try:
        yield audit
    finally:
        _AUDIT.reset(token)


class Storage:
    """One allocation; `data` is flat, `instances` copies of `size` elements each
    (1 for global memory, one per block for shared, one per thread for registers)."""

    def __init__(self, name: str, space: str, data: np.ndarray, size: int):
        self.name = name
        self.space = space
        self.data = data
        self.size = size
        n = data.shape[0]
        self.init: np.ndarray | None = None if space == GLOBAL else np.zeros(n, bool)
        self.pending: np.ndarray | None = None
        self.tma_pending: np.ndarray | None = None
        """Per element: TMA loads in flight to it (landed by `mbarrier_wait`)."""
        self.bulk_reading: np.ndarray | None = None
        """Per element: TMA stores still reading it (until `tma_store_wait`)."""
        self.wgmma_reading: np.ndarray | None = None
        """Per element: wgmma ops still reading it (until a `wgmma.wait_group` retires
        their group; wgmma_impls.py)."""
        self.writer: np.ndarray | None = None
        self.tracked = space != PRIVATE

    def _track(self) -> None:
        if self.writer is None:
            n = self.data.shape[0]
            self.writer = np.full(n, NONE, dtype=np.int64)
            self.wepoch = np.zeros(n, dtype=np.int32)
            self.reader = np.full(n, NONE, dtype=np.int64)
            self.repoch = np.zeros(n, dtype=np.int32)
            self.rblock = np.full(n, NONE, dtype=np.int64)
            self.rsync = np.zeros(n, dtype=np.int64)
            """Per element: the `cluster_sync`s its last readers' blocks had passed (the
            largest; the readers of a shared instance are blocks of one cluster, whose
            counts move together): a write after a later `cluster_sync` is ordered after
            every such read, whichever blocks of the cluster made them."""

    def base(self, grid: Grid, tids: np.ndarray) -> np.ndarray | int:
        if self.space == SHARED:
            return grid.actor_block(tids) * self.size
        if self.space == PRIVATE:
            return tids * self.size
        return 0

    def describe(self, key: int) -> str:
        return f"{self.name}[{int(key) % self.size}]"

    @property
    def words(self) -> str:
        return _SPACE_WORDS[self.space]


class PeerStorage(Storage):
    """A shared `Storage` as the blocks of a cluster see their peers' instances of it
    (`layout.peer_view`, `cuda.map_shared_rank`): every state (data, writers, readers,
    pending copies) is the storage's own, only `base` differs: an actor's accesses land
    in the instance of its block's peer `peer[t]` (per thread t of the grid; an actor of
    a whole block takes its first thread's). Reaching another block marks both
    (`Grid.reached`): they must meet at a `cluster_sync` before either exits."""

    def __init__(self, storage: Storage, peer: np.ndarray):
        object.__setattr__(self, "_storage", storage)
        object.__setattr__(self, "_peer", np.asarray(peer, np.int64))

    def __getattr__(self, name: str):
        return getattr(object.__getattribute__(self, "_storage"), name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._storage, name, value)

    def base(self, grid: Grid, tids: np.ndarray) -> np.ndarray | int:
        a = np.asarray(tids, np.int64)
        own = grid.actor_block(a)
        first = np.where(a >= 0, a, own * grid.threads_per_block)
        peer = self._peer[first]
        far = peer != own
        if far.any():
            grid.reached[own[far]] = True
            grid.reached[peer[far]] = True
        return peer * self._storage.size


@dataclass(eq=False)
class MemRef:
    storage: Storage
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: Any  # int, or int64 array [T] when it differs per thread
    type: MemRefType

    @property
    def name(self) -> str:
        return self.storage.name


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides: list[int] = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    return tuple(reversed(strides))


def _fmt_index(idx: list[np.ndarray], i: int) -> str:
    return ", ".join(str(int(a[i])) for a in idx)


def _check_elements(
    op: Operation, st: Storage, bad: np.ndarray, flat_keys: np.ndarray, flat_actors: np.ndarray,
    message: Callable[[int], str], **details: Callable[[int], Any],
) -> None:
    """`fail_first` for an access to the elements `flat_keys` of `st` by the actors
    `flat_actors` (one entry per element accessed; the same check for global, shared
    and register memory): the error names the actor (`thread`) and the element's index
    in its instance (`index`)."""
    fail_first(
        op, bad, message, thread=lambda i: int(flat_actors[i]), index=lambda i: int(flat_keys[i]) % st.size, **details
    )


def resolve(
    op: Operation,
    grid: Grid,
    mem: MemRef,
    tids: np.ndarray,
    indices: list[np.ndarray],
    verb: str,
    vector: int = 0,
    check_alignment: bool = False,
    lanes: np.ndarray | None = None,
) -> np.ndarray:
    """Storage keys of an access by threads `tids` at `indices` (one array [k] per
    dimension): shape [k], or [k, vector] for a vector of that many elements along the
    last dimension (`lanes`, bool [k, vector], says which elements a masked access
    touches: only those are checked). Raises on an index out of bounds or a
    misaligned vector."""
    rank = len(mem.shape)
    if len(indices) != rank:
        raise ExecutionError(op, f"{rank}-d memref accessed with {len(indices)} indices")
    n = max(vector, 1)
    if lanes is not None:
        lo_lane = np.where(lanes.any(axis=1), np.argmax(lanes, axis=1), 0)
        hi_lane = np.where(
            lanes.any(axis=1), n - 1 - np.argmax(lanes[:, ::-1], axis=1), 0
        )
        touched = lanes.any(axis=1)
    else:
        lo_lane = 0
        hi_lane = n - 1
        touched = None
    for d in range(rank):
        idx = indices[d]
        if d == rank - 1:
            bad = (idx + lo_lane < 0) | (idx + hi_lane >= mem.shape[d])
        else:
            bad = (idx < 0) | (idx >= mem.shape[d])
        if touched is not None:
            bad &= touched

        def outside(i: int) -> str:
            where = f"[{_fmt_index(indices, i)}]"
            what = f"a vector of {n} elements at {mem.name}{where}" if vector else f"{mem.name}{where}"
            return (
                f"out-of-bounds access: {grid.describe_thread(tids[i])} {verb} "
                f"{what}, outside a memref of shape {list(mem.shape)} ({mem.type})"
            )

        fail_first(op, bad, outside, thread=lambda i: int(tids[i]),
                    index=lambda i: tuple(int(a[i]) for a in indices))
    off = mem.offset
    flat = np.asarray(off[tids] if isinstance(off, np.ndarray) else off, dtype=np.int64)
    for d in range(rank):
        flat = flat + indices[d] * mem.strides[d]
    flat = np.broadcast_to(flat, tids.shape)
    size = mem.storage.size
    last = mem.strides[-1] if rank else 1
    bad = (flat + lo_lane * last < 0) | (flat + hi_lane * last >= size)
    if touched is not None:
        bad &= touched
    at = {"thread": lambda i: int(tids[i]), "index": lambda i: int(flat[i])}
    fail_first(
        op, bad,
        lambda i: f"out-of-bounds access: {grid.describe_thread(tids[i])} {verb} element "
        f"{int(flat[i])} of {mem.name}, which has {size} elements",
        **at,
    )
    if check_alignment and vector > 1:
        fail_first(
            op, flat % vector != 0,
            lambda i: f"misaligned vector access: {grid.describe_thread(tids[i])} {verb} "
            f"{vector} elements at offset {int(flat[i])} of {mem.name}, "
            f"not a multiple of {vector}",
            **at,
        )
    keys = flat + mem.storage.base(grid, tids)
    if vector:
        keys = keys[:, None] + np.arange(vector, dtype=np.int64) * last
    return keys


def fmt_value(v: object) -> str:
    """A NumPy scalar as plain text (0.125, not np.float32(0.125))."""
    return str(np.asarray(v)[()])


def _flat_tids(tids: np.ndarray, keys: np.ndarray) -> np.ndarray:
    if keys.ndim == 1:
        return tids
    return np.broadcast_to(tids[:, None], keys.shape).ravel()


def _storage(mem: Any) -> Storage:
    return mem if isinstance(mem, Storage) else mem.storage


def load(op: Operation, grid: Grid, mem: Any, tids: np.ndarray, keys: np.ndarray):
    """Values at `keys` read by `tids` (threads, or `simt.whole_block` actors) from
    the storage of `mem` (a Storage, or a value that has one); shape of keys."""
    st = _storage(mem)
    flat_keys = keys.ravel()
    flat_actors = _flat_tids(tids, keys)
    for pending, writer, wait in ((st.pending, "a cp.async", "cuda.cp_async_wait for its group"),
                                  (st.tma_pending, "a TMA load", "mbarrier wait on the phase its copy completes")):
        if pending is not None:
            _check_elements(
                op, st, pending[flat_keys] > 0, flat_keys, flat_actors,
                lambda i, writer=writer, wait=wait: f"{grid.describe_thread(flat_actors[i])} reads "
                f"{st.describe(flat_keys[i])} while {writer} is still writing it (no {wait} before the read)",
            )
    if st.init is not None:
        _check_elements(
            op, st, ~st.init[flat_keys], flat_keys, flat_actors,
            lambda i: f"read of uninitialised {st.words}: {grid.describe_thread(flat_actors[i])} "
            f"reads {st.describe(flat_keys[i])}, which no thread has written",
        )
    if st.tracked and grid.num_threads > 1:  # one thread cannot race
        _check_read_races(op, grid, st, flat_keys, flat_actors)
        _record_reads(grid, st, flat_keys, flat_actors)
    return st.data[keys]


def _check_read_races(op, grid: Grid, st: Storage, flat_keys, flat_actors) -> None:
    if st.writer is None:
        return
    w = st.writer[flat_keys]
    other = (w != NONE) & ~((w == flat_actors) & (flat_actors >= 0))
    if not other.any():
        return
    tb = grid.actor_block(flat_actors)
    wb = grid.actor_block(w)
    own_block = (w <= -2) & (wb == tb)  # every thread of the block wrote it: so did this one
    conflict = other & ~own_block & ((wb != tb) | (st.wepoch[flat_keys] == grid.epoch[tb]))
    if conflict.any():
        conflict &= ~_handed_over(grid, tb, wb, st.wepoch[flat_keys])
    _check_elements(
        op, st, conflict, flat_keys, flat_actors,
        lambda i: f"data race on {st.words}: {grid.describe_thread(flat_actors[i])} reads "
        f"{st.describe(flat_keys[i])}, which {grid.describe_thread(int(w[i]))} wrote "
        + _unordered(grid, int(w[i]), int(flat_actors[i])),
        other_thread=lambda i: int(w[i]),
    )


def _handed_over(grid: Grid, tb: np.ndarray, wb: np.ndarray, wepoch: np.ndarray) -> np.ndarray:
    """Per access: whether a release/acquire hand-over (atomic_impls.py) orders the
    write of block `wb` at `wepoch` before the access of block `tb`, or the cluster
    (`_cluster_ordered`)."""
    out = _cluster_ordered(grid, tb, wb, wepoch)
    h = getattr(grid, "handoffs", None)
    if h is None:
        return out
    return out | ((wb != tb) & h.covers(tb, wb, wepoch))


def _cluster_ordered(grid: Grid, tb: np.ndarray, ob: np.ndarray, epoch: np.ndarray) -> np.ndarray:
    """Per access: whether block `tb` is ordered after the accesses of another block
    `ob` of its thread-block cluster at barrier epoch `epoch` (`Grid.synced`: a
    `cluster_sync` since)."""
    shape = np.shape(epoch)
    if grid.cluster == 1:
        return np.zeros(shape, bool)
    tb = np.broadcast_to(np.asarray(tb, np.int64), shape)
    ob = np.broadcast_to(np.asarray(ob, np.int64), shape)
    ok = (tb >= 0) & (ob >= 0) & (tb != ob)
    rank = grid.cluster_rank(np.where(ok, ob, 0))
    same = ok & (grid.cluster_peer(np.where(ok, tb, 0), rank) == ob)
    return same & (grid.synced[np.where(ok, tb, 0), rank] >= epoch)


def _unordered(grid: Grid, a: int, b: int) -> str:
    ba, bb = int(grid.actor_block(a)), int(grid.actor_block(b))
    if ba != bb and grid.cluster > 1 and int(grid.cluster_peer(ba, grid.cluster_rank(bb))) == bb:
        return "(blocks of one cluster are ordered by a cluster_sync between them)"
    if ba != bb:
        if getattr(grid, "handoffs", None) is not None:
            return ("(blocks do not synchronise within a launch, and no release (a fence or a release atomic) "
                    "and acquire of one atomic counter hand the writer's memory over)")
        return "(blocks do not synchronise within a launch)"
    return "with no barrier in between (a missing barrier?)"


def _record_reads(grid: Grid, st: Storage, flat_keys, flat_actors) -> None:
    st._track()
    order = np.lexsort((flat_actors, flat_keys))
    sk = flat_keys[order]
    stid = flat_actors[order]
    start = np.empty(sk.shape[0], dtype=bool)
    if sk.shape[0] == 0:
        return
    start[0] = True
    np.not_equal(sk[1:], sk[:-1], out=start[1:])
    last = np.empty_like(start)
    last[:-1] = start[1:]
    last[-1] = True
    ukeys = sk[start]
    first_t = stid[start]
    last_t = stid[last]
    tb = grid.actor_block(first_t)
    op_multi = (first_t != last_t) | ((first_t <= -2) & (grid.threads_per_block > 1))
    op_multi_block = tb != grid.actor_block(last_t)
    E = grid.epoch[tb]
    r = st.reader[ukeys]
    re = st.repoch[ukeys]
    rb = st.rblock[ukeys]
    # reads of other blocks ordered before this one (a cluster_sync since) are ordered
    # before whatever is ordered after it: the record starts again from this read
    before = _reads_synced(grid, st, tb, ukeys) | ((rb >= 0) & (rb != tb) & _cluster_ordered(grid, tb, rb, re))
    cross = op_multi_block | (((rb == MULTI) | ((rb >= 0) & (rb != tb))) & ~before)
    stale = (rb == NONE) | (re != E) | before
    single = ~op_multi & (stale | (r == first_t))
    st.reader[ukeys] = np.where(single, first_t, MULTI)
    st.repoch[ukeys] = E
    st.rblock[ukeys] = np.where(cross, MULTI, tb)
    st.rsync[ukeys] = np.maximum(np.where(before, 0, st.rsync[ukeys]), grid.cluster_syncs[tb])


def _reads_synced(grid: Grid, st: Storage, tb: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Per element: whether its readers of several blocks (`MULTI`) of a shared
    instance are all ordered before block `tb`'s accesses now: a `cluster_sync` since
    the last of those reads (`Storage.rsync`). Readers of several blocks of global
    memory may lie in other clusters: never."""
    if grid.cluster == 1 or st.space != SHARED:
        return np.zeros(np.shape(keys), bool)
    return (st.rblock[keys] == MULTI) & (grid.cluster_syncs[tb] > st.rsync[keys])


def store(
    op: Operation,
    grid: Grid,
    mem: Any,
    tids: np.ndarray,
    keys: np.ndarray,
    values: np.ndarray,
) -> None:
    """`tids` (threads, or whole-block actors) write `values` (shape of keys) at
    `keys` of the storage of `mem`."""
    st = _storage(mem)
    flat_keys = keys.ravel()
    flat_actors = _flat_tids(tids, keys)
    flat_values = np.asarray(values, dtype=st.data.dtype).reshape(-1)
    if flat_values.shape[0] != flat_keys.shape[0]:
        flat_values = np.broadcast_to(np.asarray(values, dtype=st.data.dtype), keys.shape).ravel()
    if st.pending is not None:
        _check_elements(
            op, st, st.pending[flat_keys] > 0, flat_keys, flat_actors,
            lambda i: f"data race on {st.words}: {grid.describe_thread(flat_actors[i])} writes "
            f"{st.describe(flat_keys[i])} while a cp.async is still writing it",
        )
    check_tma_writes(op, grid, st, flat_keys, flat_actors)
    audit = _AUDIT.get()
    strict = audit is not None and audit.strict
    if st.tracked and grid.num_threads > 1:
        _check_write_races(op, grid, st, flat_keys, flat_actors, flat_values, strict)
    if audit is not None and st.space == GLOBAL:
        mask = audit.written.setdefault(st.name, np.zeros(st.data.shape[0], bool))
        mask[flat_keys] = True
    st.data[flat_keys] = flat_values
    if st.init is not None:
        st.init[flat_keys] = True
    if st.tracked and grid.num_threads > 1:
        st._track()
        st.writer[flat_keys] = flat_actors
        st.wepoch[flat_keys] = grid.epoch[grid.actor_block(flat_actors)]


def _check_write_races(op, grid: Grid, st: Storage, flat_keys, flat_actors, flat_values, strict: bool = False) -> None:
    """Unordered writes of different values (and, with `strict`, of any values) to one
    element by different threads, and writes over unordered reads."""
    # Several threads of this one op write one element.
    if flat_keys.shape[0] > 1:
        order = np.argsort(flat_keys, kind="stable")
        sk = flat_keys[order]
        dup = sk[1:] == sk[:-1]
        if dup.any():
            pos = np.flatnonzero(dup)
            a = order[pos]
            b = order[pos + 1]
            differ = flat_actors[a] != flat_actors[b]
            if not strict:
                differ &= ~bits_equal(flat_values[a], flat_values[b])
            what = "both write" if strict else "write different values"
            # element j of `differ` is the pair (a[j], b[j]) of positions in the access
            _check_elements(
                op, st, differ, flat_keys[a], flat_actors[a],
                lambda j: f"data race on {st.words}: {grid.describe_thread(flat_actors[a[j]])} and "
                f"{grid.describe_thread(flat_actors[b[j]])} {what} "
                f"({fmt_value(flat_values[a[j]])} and {fmt_value(flat_values[b[j]])}) "
                f"to {st.describe(flat_keys[a[j]])}",
                other_thread=lambda j: int(flat_actors[b[j]]),
            )
    if st.writer is None:
        return
    tb = grid.actor_block(flat_actors)
    E = grid.epoch[tb]
    changes = np.ones(flat_keys.shape[0], bool) if strict else ~bits_equal(st.data[flat_keys], flat_values)
    if not changes.any():
        return
    w = st.writer[flat_keys]
    ww = (
        changes
        & (w != NONE)
        & ~((w == flat_actors) & (flat_actors >= 0))
        & ((grid.actor_block(w) != tb) | (st.wepoch[flat_keys] == E))
    )
    if ww.any():
        ww &= ~_handed_over(grid, tb, grid.actor_block(w), st.wepoch[flat_keys])
    _check_elements(
        op, st, ww, flat_keys, flat_actors,
        lambda i: f"data race on {st.words}: {grid.describe_thread(flat_actors[i])} writes "
        f"{fmt_value(flat_values[i])} to {st.describe(flat_keys[i])}, which "
        f"{grid.describe_thread(int(w[i]))} wrote ({fmt_value(st.data[flat_keys[i]])}) "
        + _unordered(grid, int(w[i]), int(flat_actors[i])),
        other_thread=lambda i: int(w[i]),
    )
    rb = st.rblock[flat_keys]
    r = st.reader[flat_keys]
    war = changes & (
        ((rb == MULTI) & ~_reads_synced(grid, st, tb, flat_keys))
        | ((rb >= 0) & (rb != tb) & ~_cluster_ordered(grid, tb, rb, st.repoch[flat_keys]))
        | ((rb == tb) & (st.repoch[flat_keys] == E) & ((r == MULTI) | ((r >= 0) & (r != flat_actors))))
    )

    def overwrites(i: int) -> str:
        reader = int(r[i])
        if reader >= 0 and reader != int(flat_actors[i]):
            who = grid.describe_thread(reader)
            why = _unordered(grid, reader, int(flat_actors[i]))
        elif rb[i] >= 0 and rb[i] != tb[i]:
            who = f"a thread of block {int(rb[i])}"
            why = _unordered(grid, int(rb[i]) * grid.threads_per_block, int(flat_actors[i]))
        elif rb[i] == MULTI and st.space == SHARED and grid.cluster > 1:  # blocks of its cluster
            who = "threads of several blocks of its cluster"
            why = "(blocks of one cluster are ordered by a cluster_sync between them)"
        else:
            who = "other threads"
            why = _unordered(grid, int(flat_actors[i]), int(flat_actors[i])) if rb[i] == tb[i] else (
                "(blocks do not synchronise within a launch)"
            )
        return (
            f"data race on {st.words}: {grid.describe_thread(flat_actors[i])} overwrites "
            f"{st.describe(flat_keys[i])}, which {who} read {why}"
        )

    _check_elements(op, st, war, flat_keys, flat_actors, overwrites)


def check_tma_writes(op: Operation, grid: Grid, st: Storage, flat_keys: np.ndarray, flat_actors: np.ndarray) -> None:
    """A write of elements a TMA load is still writing, or a TMA store or a wgmma still
    reading."""
    for pending, what in (
        (st.wgmma_reading, "while a wgmma is still reading it (no wgmma.wait_group or layout.mma_wait retiring its group before the write)"),
        (st.tma_pending, "while a TMA load is still writing it"),
        (st.bulk_reading, "while a TMA store is still reading it (no tma_store_wait before the write)"),
    ):
        if pending is not None:
            _check_elements(
                op, st, pending[flat_keys] > 0, flat_keys, flat_actors,
                lambda i, what=what: f"data race on {st.words}: {grid.describe_thread(flat_actors[i])} writes "
                f"{st.describe(flat_keys[i])} {what}",
            )


class WgmmaReads:
    """The shared elements wgmma ops still read, per warpgroup (a key: the grid-wide id
    of `cuda.wgmma`'s warpgroup, or the warpgroups of a block that run a version-3
    `layout.mma`): those of the ops not yet committed, and per committed group its
    number and elements. A write of an element still read is a data race
    (`check_tma_writes`)."""

    def __init__(self):
        self.open: dict[int, list] = {}
        self.groups: dict[int, list] = {}
        self.commits: dict[int, int] = {}

    def issue(self, wg: int, st, keys: np.ndarray) -> None:
        if st.wgmma_reading is None:
            st.wgmma_reading = np.zeros(st.data.shape[0], dtype=np.int32)
        np.add.at(st.wgmma_reading, keys, 1)
        self.open.setdefault(wg, []).append((st, keys))

    def commit(self, wg: int) -> None:
        n = self.commits.get(wg, 0)
        self.commits[wg] = n + 1
        for st, keys in self.open.pop(wg, []):
            self.groups.setdefault(wg, []).append((n, st, keys))

    def wait(self, wg: int, pending: int) -> None:
        limit = self.commits.get(wg, 0) - pending
        keep = []
        for n, st, keys in self.groups.get(wg, []):
            if n < limit:
                np.subtract.at(st.wgmma_reading, keys, 1)
            else:
                keep.append((n, st, keys))
        self.groups[wg] = keep


def wgmma_reads(grid: Grid) -> WgmmaReads:
    """The grid's record of shared reads by wgmma in flight (made on first use)."""
    r = getattr(grid, "wgmma_reads", None)
    if r is None:
        r = grid.wgmma_reads = WgmmaReads()
    return r


# --------------------------------------------------------------------- cp.async


@dataclass
class AsyncCopy:
    """cp.async copies issued by one op, not yet landed: `actors` [k] (threads, or
    whole blocks) copy `values` [k, n] to `keys` [k, n] of `storage` where `sel`
    [k, n]; `group` [k] is the commit group of each (its thread's commit count when
    the copy was issued) and `rows` [k] that thread."""

    op: Operation
    storage: Storage
    actors: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    group: np.ndarray
    sel: np.ndarray
    rows: np.ndarray


class AsyncCopies:
    """The cp.async state of one launch: each thread's count of committed groups and
    the copies issued and not yet landed. The executor makes one per launch
    (`ReferenceInterpreter.async_copies`)."""

    def __init__(self, grid: Grid):
        self.grid = grid
        self.committed = np.zeros(grid.num_threads, dtype=np.int32)
        self.in_flight: list[AsyncCopy] = []

    def commit(self, tids: np.ndarray) -> None:
        """`cp.async.commit_group` by threads `tids`: their copies issued so far form a group."""
        self.committed[tids] += 1

    def issue(
        self,
        op: Operation,
        st: Storage,
        actors: np.ndarray,
        keys: np.ndarray,
        values: np.ndarray,
        sel: np.ndarray,
        rows: np.ndarray,
    ) -> None:
        """Start copies of `values` to `keys` ([k, n]; only where `sel`) of shared
        storage `st` by `actors` ([k]; `rows`: a thread of each, whose commit count
        names the group). The destination is pending until the copy lands."""
        grid = self.grid
        if st.pending is None:
            st.pending = np.zeros(st.data.shape[0], dtype=np.int32)
        dst_keys = keys[sel]
        dst_actors = np.broadcast_to(actors[:, None], keys.shape)[sel]
        fail_first(
            op, st.pending[dst_keys] > 0,
            lambda i: f"{grid.describe_thread(dst_actors[i])} starts a cp.async to {st.describe(dst_keys[i])}, "
            f"which an earlier cp.async is still writing",
            thread=lambda i: int(dst_actors[i]),
        )
        if st.tracked:
            _check_write_races(op, grid, st, dst_keys, dst_actors, values[sel])
        np.add.at(st.pending, dst_keys, 1)
        self.in_flight.append(AsyncCopy(op, st, actors, keys, values, self.committed[rows].copy(), sel, rows))

    def land(self, keep_groups: int) -> None:
        """`cp.async.wait_group keep_groups` by the active threads: their copies of all
        but the `keep_groups` most recent committed groups land (are written)."""
        grid = self.grid
        remaining = []
        for c in self.in_flight:
            running = np.ones(c.rows.shape, bool) if grid.mask is None else grid.mask[c.rows]
            done = running & (c.group < self.committed[c.rows] - keep_groups)
            if done.any():
                sel = c.sel[done]
                keys = c.keys[done][sel]
                actors = np.broadcast_to(c.actors[done][:, None], sel.shape)[sel]
                assert c.storage.pending is not None
                np.subtract.at(c.storage.pending, keys, 1)
                store(c.op, grid, c.storage, actors, keys, c.values[done][sel])
            if not done.all():
                rest = ~done
                remaining.append(
                    AsyncCopy(
                        c.op, c.storage, c.actors[rest], c.keys[rest], c.values[rest],
                        c.group[rest], c.sel[rest], c.rows[rest],
                    )
                )
        self.in_flight = remaining

    def take(self, tids: np.ndarray) -> list[AsyncCopy]:
        """The copies in flight of threads `tids` (every group, committed or not),
        removed from this queue and no longer pending here: a
        `cp.async.mbarrier.arrive` hands them to an mbarrier, whose phase lands them
        (tma_impls.py)."""
        taken, remaining = [], []
        for c in self.in_flight:
            mine = np.isin(c.rows, tids)
            if mine.any():
                assert c.storage.pending is not None
                np.subtract.at(c.storage.pending, c.keys[mine][c.sel[mine]], 1)
                taken.append(AsyncCopy(c.op, c.storage, c.actors[mine], c.keys[mine], c.values[mine],
                                       c.group[mine], c.sel[mine], c.rows[mine]))
            if not mine.all():
                keep = ~mine
                remaining.append(AsyncCopy(c.op, c.storage, c.actors[keep], c.keys[keep], c.values[keep],
                                           c.group[keep], c.sel[keep], c.rows[keep]))
        self.in_flight = remaining
        return taken
