"""Random programs that sum partials across a thread-block cluster through distributed
shared memory (`layout.peer_view`, lowered to `cuda.map_shared_rank`: PTX `mapa`), as
`gemm_hopper_ws(cluster_split=True)` sums a tile's split-K partials, for the fuzz tests
and for `dev/device/sanitize.sh`, built with the typed Python builder, never as IR
text: valid ones, which must run on the CPU reference executor (its cluster and race
checks pass), compile through the default pipeline with `--check-equivalence` and print
CUDA that NVRTC compiles; and invalid ones, each with one injected defect the executor
must report as a located diagnostic, at the same op before and after the pipeline.

`random_dsmem_kernel` draws `ClusterSum`: clusters of C = 2 or 4 blocks (1 or 2
clusters); each round (1 to 3) every block loads its unit's tile (R x W elements, rows
of 16 to 128 bytes; `x` or `x + x`) and stores it into a shared buffer of its own
(`mine`: row-major, or column-major with padding between the columns, as the GEMM's
partial lies); the cluster meets (`cluster_sync`); then the partials are summed in a
fixed order s = 0 .. C-1 (the same bits on the GPU as on the executor):

* `split`: the block of rank r sums rows r R/C .. (r + 1) R/C - 1 of the C partials,
  each read from its block's buffer (`peer_view(mine, peer)`, then its tile), and
  stores them (the GEMM's form);
* `all`: every block sums the whole tile (an all-reduce: each block its own output);
* `root`: the block of rank 0 alone sums the whole tile (the others only meet);
* `push`: each block stores part j of its partial into slot r of block j's `inbox`
  (stores through `peer_view`), the cluster meets, and each block sums its own inbox's
  C slots (`split`'s rows, by the pushing side).

The peer of turn s is the constant s, or (rank + s) mod C computed at run time (each
block its own order, the block itself first), possibly kept in a register by
`cuda.opaque` (`peer="kept"`: `mapa` of a value NVVM cannot see through); a peer's part is taken as a tile of the
peer's view (`peer_view` then `tile`) or as the peer's view of a tile (`tile` then
`peer_view`). The cluster meets again after the reads of each round: before the next
round overwrites the partials the peers read, and before any block exits while a peer
may still reach its buffer.

`random_invalid_dsmem_kernel` injects one of `DEFECTS`: a peer rank past the cluster
(rank + C, a run-time value the verifier cannot see), the peers read (or pushed into)
before the cluster barrier that publishes the partials (a block barrier in its place), a block exiting without the
last `cluster_sync` (a peer may still read its buffer), the next round's partial
stored with only a block barrier after the peers' reads of the last one (it overwrites
what they read), and the first barrier replaced by arrivals on every peer's mbarrier
(an mbarrier arrival releases at the block's scope: it does not order the peer's
shared-memory writes before the reads). `InvalidProgram.message` is a regular
expression the diagnostic must match.

Everything drawn comes from the `random.Random` passed in: a seed gives one program.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from generate_mbarrier import InvalidProgram, MbarrierProgram, _text, spec_summary

DTYPES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i16": 2}
"""Element types of the partials and their bytes (sums of C partials: order matters
for the floats, which `--check-equivalence` and `--run gpu --check` compare bit for bit)."""

PAD = 4
"""Elements between the columns of a column-major partial (`CLUSTER_SPLIT_PAD`'s role)."""


@dataclass(frozen=True)
class ClusterSum:
    """The drawn shape of a `random_dsmem_kernel` program (module docstring)."""

    dtype: str
    cluster: int  # C: blocks per cluster
    clusters: int
    rows: int  # R: rows of a partial (a multiple of C)
    cols: int  # W: columns (rows of 16 to 128 bytes)
    lay: str  # "rows" (row-major) | "cols" (column-major, padded)
    mode: str  # "split" | "all" | "root" | "push"
    peer: str  # "const" | "rotated" | "kept" (rotated, through cuda.opaque)
    form: str  # "view-tile" | "tile-view"
    rounds: int
    warps: int
    double: bool  # x + x on the way in
    defect: str | None = None

    @property
    def grid(self) -> int:
        return self.cluster * self.clusters

    @property
    def eb(self) -> int:
        return DTYPES[self.dtype]

    @property
    def part(self) -> int:
        """Rows each rank sums (`split`, `push`)."""
        return self.rows // self.cluster


def draw_dsmem(rng: random.Random) -> ClusterSum:
    dtype = rng.choice(list(DTYPES))
    eb = DTYPES[dtype]
    cluster = rng.choice([2, 4])
    rows = cluster * rng.choice([1, 2, 4, 8])
    cols = rng.choice([16, 32, 64, 128]) // eb
    while rows * cols * eb > 8192:
        rows //= 2
    rows = max(rows, cluster)
    return ClusterSum(dtype, cluster, rng.choice([1, 1, 2]), rows, cols, rng.choice(["rows", "cols"]),
                      rng.choice(["split", "split", "all", "root", "push"]), rng.choice(["const", "rotated", "kept"]),
                      rng.choice(["view-tile", "tile-view"]), rng.choice([1, 1, 2, 3]), rng.choice([1, 2, 4]),
                      rng.random() < 0.4)


def _layout(warps: int, rows: int, cols: int, eb: int):
    """A blocked layout of `warps` warps over rows x cols, up to 16-byte vectors along
    the rows (threads past the tile hold copies: a tile smaller than the block)."""
    import tilec

    v = max(1, min(16 // eb, cols))
    tc = min(32, cols // v)
    return tilec.BlockedLayout([1, v], [32 // tc, tc], [warps, 1], [1, 0])


def dsmem_program(s: ClusterSum) -> str:
    """The MLIR text of the cluster sum `s` (with `s.defect` injected, if any)."""
    from tilec.compiler.builder import Program
    from tilec.dialects.cuda import OpaqueOp

    d = s.defect
    C, R, W, eb, P = s.cluster, s.rows, s.cols, s.eb, s.part
    units = s.rounds * s.grid
    out_rows = {"split": R * s.clusters, "push": R * s.clusters, "root": R * s.clusters, "all": R * s.grid}[s.mode]
    p = Program("dsmem")
    src = p.view(p.pointer("src", s.dtype), f"({units * R},{W}):({W},1)")
    dst = p.view(p.pointer("dst", s.dtype), f"({s.rounds * out_rows},{W}):({W},1)")
    shared = f"({R},{W}):({W},1)" if s.lay == "rows" else f"({R},{W}):(1,{R + PAD})"
    with p.launch(grid=(s.grid, 1, 1), threads=32 * s.warps, cluster=C) as k:
        rank = p.cluster_rank()
        cl = p.divui(k.bx, p.constant(C))
        mine = p.alloc(shared, s.dtype, "smem")
        inbox = p.alloc(f"({C * P},{W}):({W},1)", s.dtype, "smem") if s.mode == "push" else None
        bar = None
        if d == "arrive-for-sync":
            bar = p.mbarrier_init(C)
            p.cluster_sync()  # the barriers initialised before the peers arrive on them
        tile_all = _layout(s.warps, R, W, eb)
        tile_part = _layout(s.warps, P, W, eb)

        def dest(j: int):
            """The rank of turn j: a constant, or (rank + j) mod C (the block itself first; kept
            in a register by `cuda.opaque` with `peer="kept"`)."""
            if s.peer == "const":
                return p.constant(j)
            r = p.remui(rank + p.constant(j), p.constant(C))
            return p.insert(OpaqueOp(r.ssa)).results[0] if s.peer == "kept" else r

        def reach(view, j: int, r):
            """`view` in the shared memory of block `r` (turn j; the defect's rank past the cluster
            in the last turn: a run-time value, which only the executor can see)."""
            return p.peer_view(view, r + p.constant(C) if d == "rank-past" and j == C - 1 else r)

        def part_of(view, j: int, row0, rows):
            """Rows row0 .. row0 + rows - 1 of `view` in the shared memory of turn j's block."""
            if rows == R:
                return reach(view, j, dest(j))
            if s.form == "view-tile":
                return p.tile(reach(view, j, dest(j)), [row0, c0], [rows, W])
            return reach(p.tile(view, [row0, c0], [rows, W]), j, dest(j))

        c0 = p.constant(0)
        for i in range(s.rounds):
            unit = k.bx + p.constant(i * s.grid)
            if s.mode == "push":  # part r of this block's partial into its slot of block r's inbox
                for j in range(C):
                    r = dest(j)
                    x = p.load(p.tile(src, [unit * p.constant(C) + r, c0], [P, W]), tile_part)
                    p.store(x + x if s.double else x, reach(p.tile(inbox, [rank, c0], [P, W]), j, r))
            else:
                x = p.load(p.tile(src, [unit, c0], [R, W]), tile_all)
                p.store(x + x if s.double else x, mine)
            if d == "arrive-for-sync" and i == 0:  # instead of the cluster barrier: arrivals on every peer
                p.barrier()
                for j in range(C):
                    p.mbarrier_arrive(bar, cta=p.constant(j))
                p.mbarrier_wait(bar, c0)
            elif d == "no-first-sync" and i == 0:
                p.barrier()  # the block's barrier instead of the cluster's
            else:
                p.cluster_sync()  # every partial stored before a peer reads it
            first_row = p.constant(i * s.clusters * C) + cl * p.constant(C) + rank  # in parts of P rows
            if s.mode == "push":
                acc = None
                for j in range(C):  # slot j: block j's part, in rank order
                    v = p.load(p.tile(inbox, [p.constant(j), c0], [P, W]), tile_part)
                    acc = v if acc is None else acc + v
                p.store(acc, p.tile(dst, [first_row, c0], [P, W]))
            elif s.mode == "split":
                acc = None
                for j in range(C):
                    v = p.load(part_of(mine, j, rank, P), tile_part)
                    acc = v if acc is None else acc + v
                p.store(acc, p.tile(dst, [first_row, c0], [P, W]))
            else:
                def total(at):
                    acc = None
                    for j in range(C):
                        v = p.load(part_of(mine, j, c0, R), tile_all)
                        acc = v if acc is None else acc + v
                    p.store(acc, p.tile(dst, [at, c0], [R, W]))

                if s.mode == "all":
                    total(unit)
                else:
                    with p.if_(rank.eq(c0)):
                        total(cl + p.constant(i * s.clusters))
            last = i == s.rounds - 1
            if d == "no-round-sync" and i == 0:
                p.barrier()  # the block's barrier instead of the cluster's
            elif not (d == "no-exit-sync" and last):
                p.cluster_sync()  # the peers' reads done: before the next round's stores, and before exit
    return _text(p)


def random_dsmem_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid cluster sum through distributed shared memory (module docstring), through
    the default pipeline."""
    s = draw_dsmem(rng)
    return MbarrierProgram(dsmem_program(s), "default", _summary(s), "dsmem", mbarriers=None)


_RACE = r"data race on shared memory: .*\(blocks of one cluster are ordered by a cluster_sync between them\)"
DEFECTS: dict[str, str] = {
    "rank-past": r"cluster rank \d+ is outside a cluster of \d+ blocks",
    "no-first-sync": _RACE,
    "no-exit-sync": r"exits while a block of its cluster may still reach",
    "no-round-sync": _RACE,
    "arrive-for-sync": _RACE,
}
"""The defects `random_invalid_dsmem_kernel` injects and what the diagnostic says."""


def defects_of(s: ClusterSum) -> list[str]:
    """The defects that make `s` wrong for certain: an overwrite of the last round's
    partials needs a next round; a block that pushes its parts reaches no peer after
    the last round's first barrier (its exit without the last one is no defect)."""
    out = ["rank-past", "no-first-sync", "arrive-for-sync"]
    if s.mode != "push":
        out.append("no-exit-sync")
    if s.rounds > 1:
        out.append("no-round-sync")
    return out


def random_invalid_dsmem_kernel(rng: random.Random) -> InvalidProgram:
    """A cluster sum with one defect (DEFECTS) the executor reports."""
    s = draw_dsmem(rng)
    defect = rng.choice(defects_of(s))
    s = replace(s, defect=defect)
    return InvalidProgram(dsmem_program(s), f"{defect}: {_summary(s)}", defect, DEFECTS[defect])


def _summary(s: ClusterSum) -> str:
    return spec_summary("dsmem", s)
