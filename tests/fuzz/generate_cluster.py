"""Random thread-block cluster rings (`launch(cluster=C)`: `tilec.cluster_dims`,
`layout.cluster_rank`, `layout.cluster_sync`, `layout.mbarrier_arrive ... on %cta`,
`layout.tma_load {multicast}`) for the fuzz tests and for `dev/device/sanitize.sh`,
built with the typed Python builder, never as IR text: valid ones, which must run on
the CPU reference executor (its mbarrier, byte-count, cluster and race checks pass),
compile through their pipeline with `--check-equivalence` and print CUDA that NVRTC
compiles; and invalid ones, each with one injected defect the executor must report as
a located diagnostic.

`random_cluster_kernel` draws `ClusterRing`: clusters of C = 2 or 4 blocks (1 or 2
clusters), each block warp-specialised into a producer warpgroup and 1 or 2 consumer
warpgroups on a ring of S stages ("full" and "empty" mbarrier arrays), as
`gemm_hopper_ws(cluster=2)` runs it. The cluster's blocks form sharing groups of g = 2
or C ranks (contiguous ranks, or strided: rank r with r + C/g, ...); the blocks of a
group share an operand B: each round its tile of g x Rp rows is loaded in g parts, part
j by the group's j-th rank, multicast to the whole group (`tma_load(multicast=mask)`,
masks such as 0b11, 0b1100, 0b0101, 0b1111), into a shared buffer of its own a part or,
where each part starts at the copy engine's 128-byte alignment, into its part of one
buffer of the whole tile (`parts="tile"`: a `layout.tile` of the stage, as
`gemm_hopper_ws(box_parts=True)` loads it; swizzled as wide as its rows, 32, 64 or 128
bytes, where a part is the swizzle's repeat of 8 rows), and each block may load an
operand A of its own (a plain TMA load). A stage's "full" barrier expects every byte that lands in
the block (its A and the whole B tile: the peers' parts land on it too); its "empty"
barrier counts the consumers of the whole group (K g), and each consumer warpgroup
arrives on its own and on its group's peers' "empty" barriers (`mbarrier_arrive(cta=)`,
the peer's rank computed at run time), so that no block multicasts into a stage a
peer still reads. The producer waits for "empty" under an `scf.if` (from the second
round on) or on the opposite parity from the start; the consumers store A and B to
`dst_a` and `dst_b` (each block its own rows). The cluster meets (`cluster_sync`)
after the barriers' initialisation and before the blocks exit.

`random_invalid_cluster_kernel` injects one of `DEFECTS`: a consumer that forgets its
peers (it arrives on its own "empty" barrier only, which counts its own block's
consumers: a peer's multicast overwrites a stage it still reads), a block that exits
without the last `cluster_sync` (a peer may still multicast into it or arrive on its
barriers), no `cluster_sync` between the barriers' initialisation and the peers' use,
"full" barriers expecting only the block's own part of B (wrong byte counts), and, with
parts as tiles of one buffer, the group's last part loaded one part further, past its
stage (its coordinate a run-time value: the executor reports the tile at both levels).
`InvalidProgram.message` is a regular expression the diagnostic must match.

Everything drawn comes from the `random.Random` passed in: a seed gives one program.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from generate_mbarrier import (
    PIPELINES,
    TMA_TYPES,
    InvalidProgram,
    MbarrierProgram,
    _blocked,
    _stage_elements,
    _text,
    _tile_cols,
    spec_summary,
)


@dataclass(frozen=True)
class ClusterRing:
    """The drawn shape of a `random_cluster_kernel` program (module docstring)."""

    dtype: str
    cluster: int  # C: blocks per cluster
    clusters: int  # clusters in the grid
    group: int  # g: blocks sharing B (a divisor of C, 2 or more)
    strided: bool  # a group's ranks r, r + C/g, ... (else g consecutive ranks)
    own: bool  # an operand A of each block's own
    rows_a: int
    cols_a: int
    part_rows: int  # Rp: rows of B a rank loads (the B tile has g Rp rows)
    cols_b: int
    trips: int
    stages: int
    consumers: int  # consumer warpgroups
    empty_wait: str  # "guard" | "parity"
    parts: str = "buffers"  # "buffers" (a buffer a part) | "tile" (one buffer, each part a tile of its stage)
    swizzle: int = 0  # bytes of the TMA swizzle of the one buffer of `parts="tile"` (0: none)
    defect: str | None = None

    @property
    def grid(self) -> int:
        return self.cluster * self.clusters

    @property
    def groups(self) -> int:
        """Sharing groups in the grid."""
        return self.grid // self.group

    @property
    def eb(self) -> int:
        return TMA_TYPES[self.dtype]

    @property
    def part_bytes(self) -> int:
        return self.part_rows * self.cols_b * self.eb

    @property
    def a_bytes(self) -> int:
        return self.rows_a * self.cols_a * self.eb if self.own else 0

    def members(self, rank: int) -> list[int]:
        """The ranks of `rank`'s sharing group, in part order."""
        if self.strided:
            step = self.cluster // self.group
            return [rank % step + j * step for j in range(self.group)]
        base = rank - rank % self.group
        return [base + j for j in range(self.group)]

    def mask(self, rank: int) -> int:
        """The multicast mask of `rank`'s loads: its whole group."""
        return sum(1 << r for r in self.members(rank))


def draw_cluster(rng: random.Random) -> ClusterRing:
    dtype = rng.choice(list(TMA_TYPES))
    eb = TMA_TYPES[dtype]
    cluster = rng.choice([2, 4])
    group = rng.choice([g for g in (2, 4) if g <= cluster])
    cols_a, cols_b = _tile_cols(rng, eb), _tile_cols(rng, eb)
    rows_a = rng.choice([1, 4, 8, 16])
    part_rows = rng.choice([1, 2, 4, 8])
    while group * part_rows * cols_b > 1024:
        part_rows //= 2
    # parts as tiles of one buffer where each starts at the copy engine's 128-byte alignment
    parts = rng.choice(["buffers", "tile"]) if part_rows * cols_b * eb % 128 == 0 else "buffers"
    # swizzled as wide as its rows where a part is the swizzle's repeat (8 rows of it)
    swizzle = cols_b * eb if parts == "tile" and part_rows == 8 and cols_b * eb >= 32 and rng.random() < 0.6 else 0
    return ClusterRing(dtype, cluster, rng.choice([1, 1, 2]), group, group < cluster and rng.random() < 0.5,
                       rng.random() < 0.7, rows_a, cols_a, part_rows, cols_b, rng.randint(1, 5), rng.randint(1, 3),
                       rng.choice([1, 2]), rng.choice(["guard", "parity"]), parts, swizzle)


def cluster_program(s: ClusterRing) -> str:
    """The MLIR text of the cluster ring `s` (with `s.defect` injected, if any)."""
    from tilec.compiler.builder import Program
    from tilec.dialects.tma import swizzle_of_bytes

    d = s.defect
    eb, S, K, C, g = s.eb, s.stages, s.consumers, s.cluster, s.group
    Ra, Ca, Rp, Cb = s.rows_a, s.cols_a, s.part_rows, s.cols_b
    n_tiles = s.trips * s.grid
    p = Program("cluster")
    src_b = p.view(p.pointer("src_b", s.dtype), f"({s.trips * s.groups * g * Rp},{Cb}):({Cb},1)")
    dst_b = p.view(p.pointer("dst_b", s.dtype), f"({n_tiles * g * Rp},{Cb}):({Cb},1)")
    if s.own:
        src_a = p.view(p.pointer("src_a", s.dtype), f"({n_tiles * Ra},{Ca}):({Ca},1)")
        dst_a = p.view(p.pointer("dst_a", s.dtype), f"({n_tiles * Ra},{Ca}):({Ca},1)")
    with p.launch(grid=(s.grid, 1, 1), threads=128 * (1 + K), cluster=C) as k:
        if s.parts == "tile":  # one buffer of the whole B tile a stage, its parts tiles of the stage
            pe = _stage_elements(g * s.part_bytes, eb, 0)
            lay_b = f"({S},{g * Rp},{Cb}):({pe},{Cb},1)"
            if s.swizzle:  # TMA's swizzle on element offsets (dialects/tma.swizzle_of_bytes)
                sw = swizzle_of_bytes(s.swizzle, eb)
                lay_b = f"#layout.composed<swizzle<{sw.bits},{sw.base},{sw.shift}> o 0 o {lay_b}>"
            buf_b = p.alloc(lay_b, s.dtype, "smem")
        else:
            pe = _stage_elements(s.part_bytes, eb, 0)
            bufs_b = [p.alloc(f"({S},{Rp},{Cb}):({pe},{Cb},1)", s.dtype, "smem") for _ in range(g)]  # a buffer a part

        def part_of(stage, j):
            """Part j of the B tile in `stage`: its buffer's stage, or a tile of the stage."""
            if s.parts == "tile":
                return p.tile(p.slice(buf_b, [stage, "_", "_"]), [j, 0], [Rp, Cb])
            return p.slice(bufs_b[j], [stage, "_", "_"])
        buf_a = (p.alloc(f"({S},{Ra},{Ca}):({_stage_elements(s.a_bytes, eb, 0)},{Ca},1)", s.dtype, "smem")
                 if s.own else None)
        full = p.mbarrier_array(S, count=1)
        forget = d == "forget-peer"
        empty = p.mbarrier_array(S, count=K * (1 if forget else g))
        if d != "no-init-sync":
            p.cluster_sync()  # the peers' barriers initialised before any block reaches them
        rank = p.cluster_rank()
        cS, c2 = p.constant(S), p.constant(2)
        # this block's sharing group: its index in the grid and this block's part in it
        step = C // g
        cl = p.divui(k.bx, p.constant(C))
        if s.strided:
            gi, part = p.remui(rank, p.constant(step)), p.divui(rank, p.constant(step))
            base = gi
        else:
            gi, part = p.divui(rank, p.constant(g)), p.remui(rank, p.constant(g))
            base = rank - part
        group_id = cl * (C // g) + gi

        def b_part(i, j):
            """Tile index (in parts of Rp rows) of part j of round i's B tile of the group."""
            return (i * s.groups + group_id) * g + j

        producer, consumer = p.warp_specialize([1, K])
        with producer:
            with p.range(0, s.trips) as i:
                stage = p.remui(i, cS)
                round_ = p.divui(i, cS)
                bar_e = p.mbarrier_at(empty, stage)
                if s.empty_wait == "parity":
                    p.mbarrier_wait(bar_e, p.remui(round_ + 1, c2))
                else:
                    with p.if_(i >= S):
                        p.mbarrier_wait(bar_e, p.remui(round_ + 1, c2))
                bar = p.mbarrier_at(full, stage)
                tx = s.a_bytes + (1 if d == "tx-mismatch" else g) * s.part_bytes
                p.mbarrier_arrive(bar, tx=tx)
                if s.own:
                    p.tma_load(p.tile(src_a, [i * s.grid + k.bx, 0], [Ra, Ca]), p.slice(buf_a, [stage, "_", "_"]), bar)
                for r in range(C):  # rank r's part, multicast to its group (the mask: a constant)
                    with p.if_(rank.eq(p.constant(r))):
                        j = s.members(r).index(r)
                        at = j
                        if d == "part-past" and j == g - 1:  # one part further: past the stage (run-time)
                            at = p.divui(rank, p.constant(C)) + p.constant(g)
                        p.tma_load(p.tile(src_b, [b_part(i, j), 0], [Rp, Cb]), part_of(stage, at), bar,
                                   multicast=s.mask(r))
        with consumer:
            with p.range(0, s.trips) as i:
                stage = p.remui(i, cS)
                phase = p.remui(p.divui(i, cS), c2)
                p.mbarrier_wait(p.mbarrier_at(full, stage), phase)
                t = i * s.grid + k.bx
                if s.own:
                    x = p.load(p.slice(buf_a, [stage, "_", "_"]), _blocked(4 * K, Ra, Ca, eb))
                    p.store(x, p.tile(dst_a, [t, 0], [Ra, Ca]))
                for j in range(g):
                    x = p.load(part_of(stage, j), _blocked(4 * K, Rp, Cb, eb))
                    p.store(x, p.tile(dst_b, [t * g + j, 0], [Rp, Cb]))
                bar_e = p.mbarrier_at(empty, stage)
                if forget:  # its own block's barrier only
                    p.mbarrier_arrive(bar_e)
                else:  # the stage is free in this block for every member's multicast
                    for j in range(g):
                        p.mbarrier_arrive(bar_e, cta=base + j * (step if s.strided else 1))
        if d != "no-exit-sync":
            p.cluster_sync()  # no block exits while a peer may still reach it
    return _text(p)


def random_cluster_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid cluster ring (module docstring) and its pipeline."""
    s = draw_cluster(rng)
    return MbarrierProgram(cluster_program(s), rng.choice(PIPELINES), _summary(s), "cluster")


DEFECTS: dict[str, str] = {
    "forget-peer": r"multicast TMA load overwrites .* in block \d+ of its cluster, which block \d+ read after",
    "no-exit-sync": r"exits while a block of its cluster may still reach",
    "no-init-sync": r"whose initialisation no cluster_sync has published yet",
    "tx-mismatch": r"expects \d+ bytes, but the TMA loads on it copy \d+",
    "part-past": r"(tile coordinate \d+ of mode 0 is out of range|out-of-bounds subview)",
}
"""The defects `random_invalid_cluster_kernel` injects and what the diagnostic says."""


def defects_of(s: ClusterRing) -> list[str]:
    """The defects that make `s` wrong for certain: a forgotten peer needs a stage
    reused (more trips than stages); a part past the B tile needs parts as tiles of
    one buffer (of a stage of it: lowered, the part is a subview of the stage's
    subview, whose bounds the GPU-level executor checks)."""
    out = ["no-exit-sync", "no-init-sync", "tx-mismatch"]
    if s.trips > s.stages:
        out.append("forget-peer")
    if s.parts == "tile":
        out.append("part-past")
    return out


def random_invalid_cluster_kernel(rng: random.Random) -> InvalidProgram:
    """A cluster ring with one defect (DEFECTS) the executor reports."""
    s = draw_cluster(rng)
    defect = rng.choice(defects_of(s))
    s = replace(s, defect=defect)
    return InvalidProgram(cluster_program(s), f"{defect}: {_summary(s)}", defect, DEFECTS[defect])


def _summary(s: ClusterRing) -> str:
    return spec_summary("cluster", s)
