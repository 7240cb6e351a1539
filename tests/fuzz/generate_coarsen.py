"""Random programs for the `coarsen-grid` pass (passes/coarsen_grid.py) and programmatic
dependent launch's ops (`layout.griddep_wait`, `layout.griddep_launch_dependents`:
dialects/layout_tma.py), for the fuzz tests (tests/fuzz/test_valid_programs.py) and for
`dev/device/sanitize.sh`, built with the typed Python builder, never as IR text.

`random_coarsen_kernel` draws a `Coarsen`: one or two shared-memory round trips in one
launch (a `t0 x t1` tile of each source copied into a shared buffer, a barrier, the buffer
copied into the destination's tile), of every element size (1, 2, 4, 8 bytes, FP8 among the
1-byte ones), tiles of 1 to 16 rows by 4 to 64 columns (3 and 12 among them), tensors
whose extents no tile divides (the last block row and column masked), row pitches padded on
either side, the shared buffer row- or column-major (a transposing buffer), 32 to 256
threads, and a grid whose x extent is prime (no divisor up to `max_tiles`: the pass leaves
it), small (2, 3) or has divisors up to 24, walking the tile columns or the tile rows, and
in some a batch of 2 or 3 matrices along block z. The pipeline is the default one with
`coarsen-grid{min_waves=0 ...}` (small grids are coarsened: the pass's own default asks for
two rounds of resident blocks) and random `margin`, `max_stages`, `max_tiles`, without
`tma` in most draws (the round trip by `cp.async`, as copy_bench's) or with it (the copies
become TMA and the pass leaves the launch). In a third of the draws the launch also waits
for its grid dependency (`griddep_wait` first) and lets its dependents launch (at the start
or the end of the body): no-ops for the executor, `griddepcontrol` in the CUDA, a launch
through `cuLaunchKernelEx` on the GPU; the pass leaves such a body (not straight-line tile
work).

`plan_of` runs the pipeline up to `coarsen-grid` and returns the pass's plan for the launch
(`coarsen_grid.plan_launch`): the tests check that the pass did what it planned (grid x
divided by k, the loop marked with S stages) and that the result is NumPy's copy, bit for
bit. Everything drawn comes from the `random.Random` passed in."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

TYPES = ("i8", "f8E4M3FN", "f16", "bf16", "f32", "i32", "f64", "i64")
BYTES = {"i8": 1, "f8E4M3FN": 1, "f16": 2, "bf16": 2, "f32": 4, "i32": 4, "f64": 8, "i64": 8}
GRID_X = (2, 3, 5, 7, 11, 13, 17, 4, 6, 8, 9, 12, 16, 24)
"""Grid x extents: primes (the pass finds no k but for 2, 3, 5, 7 up to max_tiles), small
ones and ones with several divisors."""

MAX_ELEMENTS = 1 << 14
"""Largest tensor: the CPU reference executor runs each program a few times."""


@dataclass(frozen=True)
class Coarsen:
    """The drawn shape of a `random_coarsen_kernel` program (module docstring)."""

    dtype: str
    tile: tuple[int, int]  # t0 x t1
    grid: tuple[int, int]  # blocks along x (columns) and y (rows)
    extents: tuple[int, int]  # m x n, at most grid * tile, more than (grid - 1) * tile
    src_pitch: int
    dst_pitch: int
    smem_col_major: bool
    pairs: int  # round trips in the launch: 1 or 2
    threads: int
    tma: bool
    margin: int
    max_stages: int
    max_tiles: int
    griddep: str  # "", "first" (launch_dependents after the wait), "last" (at the end)
    rows_along_x: bool = False  # block x walks the tile rows (coordinates [bx, by]), else the columns
    batch: int = 1  # > 1: that many m x n matrices along block z (`batch_strides` apart)

    @property
    def batch_strides(self) -> tuple[int, int]:
        """Elements between the batch's matrices in the sources and the destinations: a gap
        of 3 elements after each source matrix, none after the destinations'."""
        m = self.extents[0]
        return m * self.src_pitch + 3, m * self.dst_pitch

    @property
    def pipeline(self) -> str:
        from tilec.compiler.pipeline import NAMED_PIPELINES

        passes = NAMED_PIPELINES["default"]
        if not self.tma:
            passes = passes.replace(",tma,", ",")
        opts = f"min_waves=0 margin={self.margin} max_stages={self.max_stages} max_tiles={self.max_tiles}"
        return passes.replace("coarsen-grid", f"coarsen-grid{{{opts}}}")

    @property
    def summary(self) -> str:
        (t0, t1), (gx, gy), (m, n) = self.tile, self.grid, self.extents
        return (f"{self.dtype} {m}x{n} pitches {self.src_pitch}/{self.dst_pitch}, tiles {t0}x{t1} "
                f"{'col' if self.smem_col_major else 'row'}-major in smem, grid {gx}x{gy} (x along "
                f"{'rows' if self.rows_along_x else 'columns'}{f', {self.batch} along z' if self.batch > 1 else ''}), "
                f"{self.pairs} pair(s), "
                f"{self.threads} threads, {'tma' if self.tma else 'cp.async'}, margin={self.margin} "
                f"max_stages={self.max_stages} max_tiles={self.max_tiles}"
                f"{', griddep ' + self.griddep if self.griddep else ''}")


@dataclass(frozen=True)
class CoarsenProgram:
    """A generated program: its MLIR text, the `-p` pipeline, the draw."""

    text: str
    pipeline: str
    summary: str
    spec: Coarsen
    function: str = "coarsen"
    mbarriers: bool | None = None


def draw_coarsen(rng: random.Random) -> Coarsen:
    dtype = rng.choice(TYPES)
    e = BYTES[dtype]
    while True:
        t0 = rng.choice([1, 2, 3, 4, 8, 16])
        t1 = rng.choice([4, 8, 12, 16, 32, 64])
        gx, gy = rng.choice(GRID_X), rng.randint(1, 4)
        if t0 * t1 * e <= 4096 and gx * t1 * gy * t0 <= MAX_ELEMENTS:
            break
    along_rows = rng.random() < 0.3
    br, bc = (gx, gy) if along_rows else (gy, gx)
    m = br * t0 - rng.randrange(min(t0, 3)) if rng.random() < 0.6 else br * t0
    n = bc * t1 - rng.randrange(min(t1, 7)) if rng.random() < 0.6 else bc * t1
    threads = rng.choice([t for t in (32, 64, 128, 256) if t <= max(32, t0 * t1)])
    c = Coarsen(dtype, (t0, t1), (gx, gy), (m, n), n + rng.choice([0, 0, rng.randrange(1, 9)]),
                   n + rng.choice([0, 0, rng.randrange(1, 9)]), rng.random() < 0.3, rng.choice([1, 1, 2]), threads,
                   rng.random() < 0.2, rng.choice([1, 1, 2, 3]), rng.choice([2, 3, 4, 4, 6]),
                   rng.choice([2, 4, 8, 8, 16]), rng.choice(["", "", "first", "last"]), along_rows)
    batch = rng.choice([b for b in (1, 1, 1, 2, 3) if b * gx * t1 * gy * t0 <= MAX_ELEMENTS])
    return replace(c, batch=batch)


def build(spec: Coarsen):
    """The program of `spec`: a `tilec.Program` whose function `coarsen` takes the
    sources `a0` (`a1`) and the destinations `b0` (`b1`)."""
    import tilec

    (t0, t1), (gx, gy), (m, n) = spec.tile, spec.grid, spec.extents
    p = tilec.Program("coarsen")
    (sb, db), z = spec.batch_strides, spec.batch

    def lay(pitch: int, bs: int) -> str:
        return f"({z},{m},{n}):({bs},{pitch},1)" if z > 1 else f"({m},{n}):({pitch},1)"

    pairs = [(p.view(p.pointer(f"a{i}", spec.dtype, align=16), lay(spec.src_pitch, sb)),
              p.view(p.pointer(f"b{i}", spec.dtype, align=16), lay(spec.dst_pitch, db)))
             for i in range(spec.pairs)]
    smem = f"({t0},{t1}):(1,{t0})" if spec.smem_col_major else f"({t0},{t1}):({t1},1)"
    tile = [t0, t1]
    if z > 1:
        smem = f"(1,{t0},{t1}):({t0 * t1},1,{t0})" if spec.smem_col_major else f"(1,{t0},{t1}):({t0 * t1},{t1},1)"
        tile = [1, t0, t1]
    with p.launch(grid=(p.constant(gx), p.constant(gy), p.constant(z)), threads=spec.threads) as k:
        coords = [k.bx, k.by] if spec.rows_along_x else [k.by, k.bx]
        if z > 1:
            coords = [k.bz, *coords]
        if spec.griddep:
            p.griddep_wait()
            if spec.griddep == "first":
                p.griddep_launch_dependents()
        bufs = []
        for a, _ in pairs:
            buf = p.alloc(smem, spec.dtype, "smem")
            p.copy(p.tile(a, coords, tile), buf)
            bufs.append(buf)
        p.barrier()
        for buf, (_, b) in zip(bufs, pairs):
            p.copy(buf, p.tile(b, coords, tile))
        if spec.griddep == "last":
            p.griddep_launch_dependents()
    return p


def random_coarsen_kernel(rng: random.Random) -> CoarsenProgram:
    import tilec

    spec = draw_coarsen(rng)
    plan, _, _ = plan_of(spec)
    what = f"coarsened: {plan.tiles} tiles a block, {plan.stages} stages" if plan else "left by coarsen-grid"
    return CoarsenProgram(tilec.emit(build(spec).module, "mlir"), spec.pipeline, f"{spec.summary}; {what}", spec)


def plan_of(spec: Coarsen):
    """`coarsen_grid.plan_launch`'s plan for the program's launch after the pipeline's
    passes before `coarsen-grid` (None: the pass leaves it), the launch's grid x then
    (`order-grid` may have swapped x and y), and the module after the pipeline up to and
    including `coarsen-grid`."""
    from tilec.compiler.pipeline import run_pipeline
    from tilec.passes._analysis import constant_index
    from tilec.dialects.layout import LaunchOp
    from tilec.passes.coarsen_grid import plan_launch
    from tilec.support.target import target_of

    module = build(spec).module
    before, rest = spec.pipeline.split("coarsen-grid{")
    run_pipeline(module, before.rstrip(","))
    launch = next(o for o in module.walk() if isinstance(o, LaunchOp))
    plan = plan_launch(launch, target_of(module), 0, spec.margin, spec.max_stages, spec.max_tiles)
    grid_x = constant_index(launch.grid_x)
    run_pipeline(module, "coarsen-grid{" + rest.split("}")[0] + "}")
    return plan, grid_x, module
