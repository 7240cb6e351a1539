"""Random mbarrier programs for the fuzz tests and for `dev/device/sanitize.sh`, built with
the typed Python builder (compiler/builder.py), never as IR text: valid ones, which
must run on the CPU reference executor (its mbarrier phase, arrival, byte-count and
race checks pass), compile through the passes with `--check-equivalence` and print
CUDA that NVRTC compiles; and invalid ones, each with one injected defect that the
executor must report as a located diagnostic (never a traceback).

Three families of valid programs, all copying (or summing) tensors tile by tile
through shared memory:

* `random_ring_kernel` -- a ring of `S` shared stages (`layout.alloc` with a leading
  stage mode, the stage taken by `layout.slice` at a run-time index) that the whole
  block fills and drains (no warp specialisation): TMA loads (`layout.tma_load`) of 1
  or 2 operands completing on `layout.mbarrier_init` barriers or on an
  `layout.mbarrier_array` indexed by the run-time stage (`layout.mbarrier_at`);
  arrivals with expect-tx (`layout.mbarrier_arrive {tx}`), 1 or 2 arrivals per phase
  (`count`: with 2 operands one arrival per operand's load, each expecting its
  bytes); a prefetch distance 0 .. S-1 (a prologue, loads S-1 tiles ahead); the
  wait's phase as `(i / S) % 2` or a (stage, phase) pair carried by the loop, or a
  Python-unrolled loop with constant stages and phases on S separate barriers; the
  stage consumed by a block-level copy, a distributed load/store (`x + x` on the way)
  or a TMA store (`layout.tma_store`, `tma_store_wait {pending}` sized to the ring);
  1 to 3 blocks (grid-stride over the tiles), masked edge tiles (TMA zero fill, or
  the loads clipped to the tensor, `layout.tma_load {clip}`: the box cut to a tensor of
  fewer rows, its bytes expected at run time by `layout.mbarrier_expect_tx` before the
  arrivals expecting none; or `{clip, tail}`, the box the row of tiles' last box),
  padded stages, `mbarrier_inval`.

In each family the trip count may be an index argument (`%n`, its value in the
function's `tilec.args`), so that the loops, the prologue's guards and the pipeliners'
schedules are the ones of a trip count known only at run time.
* `random_ws_kernel` -- producer and consumers inside `layout.warp_specialize` (one
  producer warpgroup, 1 or 2 consumer warpgroups, in either order): "full" and "empty"
  mbarrier arrays (the empty ones expect one arrival per consumer warpgroup); the
  producer fills a stage by TMA (arrive with expect-tx), by cp.async
  (`layout.copy_async` + `layout.async_wait`, then a plain arrive: that cp.async has no
  barrier completion, so its group is waited before the arrival), by
  `layout.cp_async_load` (each producer thread arriving when its copies land, the
  "full" barriers counting 1 + 128), or by plain register stores; the launch states
  its blocks per multiprocessor (`min_blocks` 1 or 2) where no `setmaxnreg` is drawn; it waits for a stage to be empty under an `scf.if` (from the
  second round on) or from the start on the opposite parity (CUTLASS's producer
  start state); consumers wait for "full", load the stage into registers of their
  warps, store the tile and arrive on "empty"; optional `setmaxnreg` budgets; and
  optional hardware barriers among a subset of the block's warps
  (`layout.named_barrier`, `bar.sync id, threads` / `bar.arrive`, an id of 3 to 15);
  two consumer warpgroups may be one region run apart (`warp_specialize(..., apart=[i])`:
  each warpgroup runs it as a region of its own, `layout.warpgroup_index` choosing its
  half of the stage's and the tile's rows; not drawn with the named barriers):
  `named="exchange"` -- the consumer warpgroups alone (the producer's warps take no
  part) hand each tile over through a shared scratch buffer, written in their
  16-byte-vector layout and read back in a layout of one element per thread (so
  threads read what other threads wrote), `bar.sync id, 128 * consumers` between the
  writes and the reads and again before the next trip's writes (warp
  specialisation's consumer-only sync); `named="handover"` -- the consumers also write
  every tile to a shared `last` buffer and, after their loop, `bar.arrive id, 128 *
  (consumers + 1)`; the producer, after its loop, `bar.sync`s on the same barrier and
  stores `last` (the block's last tile) to the `last` tensor.
* `random_plain_loop_kernel` -- the plain single-buffered loop a user writes
  (examples/python/gemm_plain.py's form, without the GEMM): per step TMA loads on one
  mbarrier and its wait, or cp.async copies and their wait; a carried sum, copies,
  stores or TMA stores of the step's tiles; `num_stages` 1 to 4 on the loop, compiled
  by `software-pipeline` (unrolled, `rolled=false`, or rolled, `rolled=true`: each
  schedule stated, the pass's default being rolled for cp.async loops only) or, for TMA loops of whole warpgroups, by
  `warp-specialize` (unrolled or rolled) before the default passes: the executor's
  checks judge the schedule the pass makes.

`random_invalid_mbarrier_kernel` draws a ring or warp-specialised program and one defect
(`DEFECTS`): a wait on the wrong phase parity, a phase that never flips, a wait on an
invalidated barrier (the layout level's "wait without init": `mbarrier_init` both
allocates and initialises), a missing or an extra arrival, expect-tx bytes that differ
from the bytes copied, a read of a stage before its wait, a stage index past the
array, a producer that does not wait for the stage to be empty; and on the named
barriers: the consumers' exchange without its first `bar.sync` (a race), with a thread
count other than the consumers' (more threads than arrive: a `bar.sync` that never
returns; fewer: arrivals past the count), and a handover whose consumers never
`bar.arrive` (the producer's `bar.sync` never returns); `InvalidProgram.message`
is a regular expression the diagnostic must match.

Everything drawn comes from the `random.Random` passed in: a seed gives one program.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

TMA_TYPES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
             "f8E4M3FN": 1, "f8E5M2": 1}
"""Element types of the copies drawn (every type tilec supports), with their bytes.
Arithmetic on the way (`x + x`, a carried sum) is drawn for the others than FP8 only."""

FLOAT_TYPES = ("f32", "f16", "bf16", "f64")


@dataclass(frozen=True)
class MbarrierProgram:
    """A generated valid program: its MLIR text (printed from the builder's module), the
    `-p` pipeline to compile it with, its function name and a one-line summary;
    whether it waits on mbarriers (a cp.async plain loop does not; None: not
    checked, a cluster's CUDA holding the mbarrier helpers either way), whether
    `software-pipeline` is to pipeline it (a plain loop of 2 or more stages) and
    whether `warp-specialize` is to split it (`Plain.specialized`)."""

    text: str
    pipeline: str
    summary: str
    function: str
    mbarriers: bool | None = True
    pipelined: bool = False
    specialized: bool = False


@dataclass(frozen=True)
class InvalidProgram:
    """A generated invalid program: its text, the defect injected (a key of DEFECTS)
    and a regular expression the executor's diagnostic must match."""

    text: str
    summary: str
    defect: str
    message: str


# ------------------------------------------------------------------ specifications


@dataclass(frozen=True)
class Ring:
    """The drawn shape of a `random_ring_kernel` program (see the module docstring)."""

    dtypes: tuple[str, ...]  # one or two operands (tensors), each with its staged buffer
    rows: int  # tile rows
    cols: tuple[int, ...]  # tile columns, per operand (rows of 16 to 128 bytes)
    pads: tuple[int, ...]  # extra 128-byte blocks between the stages of each buffer
    col_tiles: int  # tiles across the columns of the tensors
    cut: int  # rows missing from the last row of tiles (masked edge tiles)
    trips: int  # tiles per block
    grid: int
    stages: int
    prefetch: int  # loads issued this many tiles ahead (0 .. stages - 1)
    bars: str  # "array" | "separate" (Python-unrolled loop, constant stages)
    phase: str  # "divide" | "carried" (scf loops only)
    count: int  # arrivals per phase (with two operands: one per operand's load)
    consume: str  # "copy" | "tensor" | "tma_store"
    warps: int
    inval: bool
    dynamic: bool = False  # the trip count an index argument (`tilec.args`), array barriers only
    defect: str | None = None
    clip: bool = False  # TMA loads clipped to the tensor (`tma_load {clip}`): the box's rows min(rows, M), its bytes at run time
    tail: bool = False  # with clip, one row of tiles: `tma_load {clip, tail}`, the box's rows the last box's, (M - 1) mod rows + 1

    @property
    def total_tiles(self) -> int:
        return self.trips * self.grid

    def shape(self, o: int) -> tuple[int, int]:
        row_tiles = self.total_tiles // self.col_tiles
        return row_tiles * self.rows - self.cut, self.col_tiles * self.cols[o]

    def bytes_of(self, o: int) -> int:
        return self.rows * self.cols[o] * TMA_TYPES[self.dtypes[o]]

    def stage_elements(self, o: int) -> int:
        """Elements from one stage of operand o's buffer to the next: the tile rounded
        up to 128 bytes (where a TMA copy's shared side starts) and the padding."""
        return _stage_elements(self.bytes_of(o), TMA_TYPES[self.dtypes[o]], self.pads[o])


@dataclass(frozen=True)
class Ws:
    """The drawn shape of a `random_ws_kernel` program (see the module docstring)."""

    dtype: str
    rows: int
    cols: int
    trips: int
    grid: int
    stages: int
    consumers: int  # consumer warpgroups
    producer_first: bool
    fill: str  # "tma" | "cp.async" | "store" | "cp_async_load" (every producer thread arriving: count 1 + 128)
    empty_wait: str  # "guard" | "parity"
    regs: bool  # setmaxnreg budgets
    compute: bool  # x + x in the consumers
    dynamic: bool = False  # the trip count an index argument (`tilec.args`)
    named: str | None = None  # None | "exchange" | "handover": named barriers (module docstring)
    barrier_id: int = 3  # the named barrier's id (3 .. 15: 0 is __syncthreads's, 1 and 2 the regions')
    min_blocks: int | None = None  # the launch's `tilec.min_blocks` (`__launch_bounds__(threads, N)`)
    apart: bool = False  # the consumers one region run apart (`warp_specialize(..., apart=[i])`), rows by index
    defect: str | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.trips * self.grid * self.rows, self.cols

    @property
    def tile_bytes(self) -> int:
        return self.rows * self.cols * TMA_TYPES[self.dtype]


@dataclass(frozen=True)
class Plain:
    """The drawn shape of a `random_plain_loop_kernel` program (module docstring)."""

    dtypes: tuple[str, ...]
    rows: int
    cols: tuple[int, ...]
    trips: int
    grid: int
    stages: int  # the loop's num_stages
    form: str  # "tma" | "cp.async"
    compute: str  # "sum" | "copy" | "tensor" | "tma_store"
    warps: int
    schedule: str  # "unrolled" | "rolled" (software-pipeline) | "ws" | "ws-rolled" (warp-specialize)
    dynamic: bool = False  # the trip count an index argument (`tilec.args`)

    @property
    def shape(self) -> tuple[int, int]:
        return self.trips * self.grid * self.rows, self.cols[0]

    @property
    def pipeline(self) -> str:
        return {"unrolled": "software-pipeline{rolled=false},default", "rolled": "software-pipeline{rolled=true},default",
                "ws": "warp-specialize,default", "ws-rolled": "warp-specialize{rolled=true},default"}[self.schedule]

    @property
    def specialized(self) -> bool:
        """Whether `warp-specialize` splits it: a TMA loop of whole warpgroups whose
        compute does not meet the block (no block-level copy) and that asks for 2 or
        more stages (a carried sum starts from a `layout.splat` before the loop, which
        the pass does not move into the consumers: it leaves that launch)."""
        return (self.schedule.startswith("ws") and self.form == "tma" and self.warps % 4 == 0 and self.stages > 1
                and self.compute in ("tensor", "tma_store"))


def _stage_elements(nbytes: int, eb: int, pad: int) -> int:
    """Elements from one stage of a buffer to the next: the tile's `nbytes` rounded up
    to 128 bytes (where a TMA copy's shared side starts), `pad` more 128-byte blocks."""
    return (-(-nbytes // 128) + pad) * 128 // eb


def _tile_cols(rng: random.Random, eb: int) -> int:
    """Columns of a tile whose rows are 16 to 128 bytes (the TMA box's contiguous extent
    is a multiple of 16 bytes)."""
    return rng.choice([16, 32, 64, 128]) // eb


def draw_ring(rng: random.Random) -> Ring:
    dtypes = tuple(rng.choice(list(TMA_TYPES)) for _ in range(rng.choice([1, 1, 2])))
    cols = tuple(_tile_cols(rng, TMA_TYPES[t]) for t in dtypes)
    rows = rng.choice([1, 2, 4, 8, 16, 24])
    while rows * max(cols) > 1024:
        rows //= 2
    pads = tuple(rng.choice([0, 0, 1]) for _ in dtypes)
    grid = rng.choice([1, 1, 2, 3])
    trips = rng.randint(1, 7)
    total = grid * trips
    col_tiles = rng.choice([d for d in range(1, min(total, 4) + 1) if total % d == 0])
    cut = rng.randrange(rows) if rows > 1 and rng.random() < 0.3 else 0
    bars = "separate" if rng.random() < 0.25 and trips <= 5 else "array"
    stages = rng.randint(1, 4)
    prefetch = rng.randint(0, stages - 1)
    consume = rng.choice(["copy", "tensor", "tma_store"])
    if consume == "tensor" and rows & (rows - 1):
        consume = "copy"  # distributed tensors have power-of-two extents
    s = Ring(dtypes, rows, cols, pads, col_tiles, cut, trips, grid, stages, prefetch, bars,
             rng.choice(["divide", "carried"]), rng.choice([1, 1, 2]), consume, rng.choice([1, 2, 4]),
             rng.random() < 0.4, bars == "array" and rng.random() < 0.3)
    return _clipped(s) if cut and rng.random() < 0.5 else s


def _clipped(s: Ring) -> Ring:
    """`s` with its loads clipped (`Ring.clip`): a stage's rows past the tensor then hold
    no data, so its consumer is one that reads only the rows inside (a copy or a TMA
    store of the masked tile), not a register load of the whole stage."""
    return replace(s, clip=True, consume="copy" if s.consume == "tensor" else s.consume)


def draw_ws(rng: random.Random) -> Ws:
    dtype = rng.choice(list(TMA_TYPES))
    eb = TMA_TYPES[dtype]
    cols = _tile_cols(rng, eb)
    rows = rng.choice([1, 2, 4, 8, 16])
    while rows * cols > 1024:
        rows //= 2
    fill = rng.choice(["tma", "tma", "cp.async", "store", "cp_async_load"])
    if fill == "cp_async_load" and cols * eb % 16:  # its copies are 16-byte chunks of a row
        fill = "cp.async"
    s = Ws(dtype, rows, cols, rng.randint(1, 6), rng.choice([1, 1, 2]), rng.randint(1, 3), rng.choice([1, 2]),
           rng.random() < 0.5, fill, rng.choice(["guard", "parity"]), rng.random() < 0.5,
           dtype in FLOAT_TYPES + ("i32",) and rng.random() < 0.4, rng.random() < 0.3,
           rng.choice([None, None, "exchange", "handover"]), rng.randrange(3, 16))
    min_blocks = rng.choice([None, None, 1, 2])
    if min_blocks and not s.regs:
        s = replace(s, min_blocks=min_blocks)
    # two consumer warpgroups as one region run apart, each its rows of the stage (the
    # named barriers' counts are the consumers' together: not drawn with them)
    if s.consumers == 2 and s.rows % 2 == 0 and s.named is None and rng.random() < 0.5:
        s = replace(s, apart=True)
    return s


# ------------------------------------------------------------------ building


def draw_plain(rng: random.Random) -> Plain:
    form = rng.choice(["tma", "cp.async"])
    dtypes = tuple(rng.choice(list(TMA_TYPES)) for _ in range(rng.choice([1, 1, 2])))
    warps = rng.choice([1, 2, 4, 4, 8])
    row_bytes = rng.choice([64, 128])
    cols = tuple(row_bytes // TMA_TYPES[t] for t in dtypes)
    # every thread copies whole 16-byte vectors, the block's rows a multiple of the
    # rows one pass of the block covers
    pass_rows = 32 * warps // (row_bytes // 16)
    rows = pass_rows * rng.choice([1, 2])
    compute = rng.choice(["sum", "copy", "tensor", "tma_store"])
    if compute == "tma_store" and form != "tma":
        compute = "tensor"  # the pipeliner's TMA stores are the TMA form's
    if compute == "sum" and any(t.startswith("f8") for t in dtypes):
        compute = "tensor"
    schedules = ["unrolled", "rolled"] + (["ws", "ws-rolled"] * 2 if form == "tma" and warps % 4 == 0 else [])
    return Plain(dtypes, rows, cols, rng.randint(1, 9), rng.choice([1, 2]), rng.randint(1, 4), form, compute,
                 warps, rng.choice(schedules), rng.random() < 0.3)


def _blocked(warps: int, rows: int, cols: int, eb: int):
    """A blocked layout of `warps` warps over a rows x cols tile, 16-byte vectors along
    the rows where the tile allows."""
    import tilec

    v = max(1, min(16 // eb, cols))
    tc = min(32, cols // v)
    return tilec.BlockedLayout([1, v], [32 // tc, tc], [warps, 1], [1, 0])


def _text(p, args: dict[str, int] | None = None) -> str:
    """The module of `p` as MLIR text; `args` the values of its index arguments, given
    to the function as `tilec.args` (what the executor and `--run gpu` pass)."""
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    from tilec.compiler.pipeline import emit

    module = p.module
    if args:
        fn = next(iter(module.ops))
        fn.attributes["tilec.args"] = DictionaryAttr({k: IntegerAttr(v, IndexType()) for k, v in args.items()})
    return emit(module, "mlir")


def ring_program(s: Ring) -> str:
    """The MLIR text of the ring kernel `s` (with `s.defect` injected, if any)."""
    from tilec.compiler.builder import Program

    d = s.defect
    ops = range(len(s.dtypes))
    p = Program("ring")
    srcs, dsts = [], []
    for o in ops:
        m, n = s.shape(o)
        srcs.append(p.view(p.pointer(f"src{o}", s.dtypes[o]), f"({m},{n}):({n},1)"))
        dsts.append(p.view(p.pointer(f"dst{o}", s.dtypes[o]), f"({m},{n}):({n},1)"))
    S, R = s.stages, s.rows
    count = 2 if d == "missing-arrival" else s.count
    trips = p.index("n") if s.dynamic else s.trips
    with p.launch(grid=(s.grid, 1, 1), threads=32 * s.warps) as k:
        bufs = [p.alloc(f"({S},{R},{s.cols[o]}):({s.stage_elements(o)},{s.cols[o]},1)", s.dtypes[o], "smem")
                for o in ops]
        if s.bars == "array":
            bars = p.mbarrier_array(S, count=count)
            bar_list = None
        else:
            bars = None
            bar_list = [p.mbarrier_init(count) for _ in range(S)]
        cS, c2 = p.constant(S), p.constant(2)

        def bar_of(stage):
            return bar_list[stage] if bar_list is not None else p.mbarrier_at(bars, stage)

        def stage_of(i):
            # the index-out-of-range defect: i % (S + 1) reaches S
            return p.remui(i, p.constant(S + 1) if d == "index-out-of-range" else cS)

        def tile_coords(i):
            t = i * s.grid + k.bx  # grid-stride: block b takes tiles b, b + G, ...
            if s.col_tiles == 1:
                return [t, 0]
            return [p.divui(t, p.constant(s.col_tiles)), p.remui(t, p.constant(s.col_tiles))]

        def issue(i, stage):
            """The arrivals and TMA loads of tile i of every operand into `stage`."""
            bar = bar_of(stage)
            extra = TMA_TYPES[s.dtypes[0]] * s.cols[0] if d == "tx-mismatch" else 0
            made = 1 if d == "missing-arrival" else s.count
            per_load = made == 2 and len(ops) == 2  # one arrival per operand, expecting its bytes
            coords = tile_coords(i)
            if s.clip:  # the box cut to the tensor's rows (min(R, M)), its bytes expected at run time
                M = s.shape(0)[0]
                box_rows = (p.remui(p.constant(M - 1), p.constant(R)) + 1 if s.tail  # the last box's rows
                            else p.minui(p.constant(R), p.constant(M)))
                for o in ops:
                    p.mbarrier_expect_tx(bar, box_rows * (s.cols[o] * TMA_TYPES[s.dtypes[o]]))

            def tx(o: int) -> int:
                return 0 if s.clip else s.bytes_of(o)

            if not per_load:
                p.mbarrier_arrive(bar, tx=sum(tx(o) for o in ops) + extra)
                for _ in range(made - 1):
                    p.mbarrier_arrive(bar)
            for o in ops:
                if per_load:
                    p.mbarrier_arrive(bar, tx=tx(o) + (extra if o == 0 else 0))
                p.tma_load(p.tile(srcs[o], coords, [R, s.cols[o]]), p.slice(bufs[o], [stage, "_", "_"]), bar,
                           clip=s.clip, tail=s.tail)
            if d == "extra-arrival":
                p.mbarrier_arrive(bar)

        def wait(stage, phase):
            if d == "wrong-phase":
                phase = p.remui(phase + 1, c2) if not isinstance(phase, int) else 1 - phase
            if d == "no-flip":
                phase = 0
            p.mbarrier_wait(bar_of(stage), phase)

        def consume(i, stage):
            for o in ops:
                st = p.slice(bufs[o], [stage, "_", "_"])
                out = p.tile(dsts[o], tile_coords(i), [R, s.cols[o]])
                if s.consume == "copy":
                    p.copy(st, out, strategy="simt")
                elif s.consume == "tensor":
                    x = p.load(st, _blocked(s.warps, R, s.cols[o], TMA_TYPES[s.dtypes[o]]))
                    p.store(x + x if s.dtypes[o] in FLOAT_TYPES + ("i32", "i64") else x, out)
                else:
                    p.tma_store(st, out)
            if s.consume == "tma_store":
                # the stage loaded next was stored S - prefetch - 1 tiles ago
                p.tma_store_wait(S - s.prefetch - 1)
            else:
                p.barrier()  # every thread has read the stage before a TMA load refills it

        D = s.prefetch
        if s.bars == "separate":  # every trip written out: constant stages and phases
            for i in range(min(D, s.trips)):
                issue(p.constant(i), i % S)
            for i in range(s.trips):
                ci = p.constant(i)
                if i + D < s.trips:
                    issue(p.constant(i + D), (i + D) % S)
                if d == "early-read":
                    consume(ci, i % S)
                wait(i % S, (i // S) % 2)
                if d != "early-read":
                    consume(ci, i % S)
        else:
            for i in range(min(D, s.trips)):
                if s.dynamic:  # the prologue's loads guarded by the trip count
                    with p.if_(p.constant(i) < trips):
                        issue(p.constant(i), p.constant(i % S))
                else:
                    issue(p.constant(i), p.constant(i % S))
            carried = s.phase == "carried"
            stage_v, phase_v = p.constant(0), p.constant(0)
            with p.range(0, trips, carry=[stage_v, phase_v] if carried else []) as i:
                if carried:
                    stage, phase = stage_v, phase_v
                else:
                    stage, phase = stage_of(i), p.remui(p.divui(i, cS), c2)
                if D:
                    nxt = i + D
                    with p.if_(nxt < trips):
                        issue(nxt, stage_of(nxt))
                else:
                    issue(i, stage)
                if d == "early-read":
                    consume(i, stage)
                wait(stage, phase)
                if d != "early-read":
                    consume(i, stage)
                if carried:  # the (stage, phase) pair: the phase flips when the stage wraps
                    step = stage + 1
                    phase_v.assign(p.remui(phase + p.divui(step, cS), c2))
                    stage_v.assign(p.remui(step, cS))
        if s.consume == "tma_store":
            p.tma_store_wait(0)
        if s.inval or d == "wait-after-inval":
            all_bars = bar_list if bar_list is not None else [p.mbarrier_at(bars, p.constant(j)) for j in range(S)]
            for b in all_bars:
                p.mbarrier_inval(b)
            if d == "wait-after-inval":
                p.mbarrier_wait(all_bars[0], 0)
    return _text(p, {"n": s.trips} if s.dynamic else None)


def ws_program(s: Ws) -> str:
    """The MLIR text of the warp-specialised kernel `s` (with `s.defect`, if any)."""
    from tilec.compiler.builder import Program

    d = s.defect
    eb = TMA_TYPES[s.dtype]
    m, n = s.shape
    S, R, C, K = s.stages, s.rows, s.cols, s.consumers
    p = Program("ws")
    src = p.view(p.pointer("src", s.dtype), f"({m},{n}):({n},1)")
    dst = p.view(p.pointer("dst", s.dtype), f"({m},{n}):({n},1)")
    last_out = p.view(p.pointer("last", s.dtype), f"({s.grid * R},{C}):({C},1)") if s.named == "handover" else None
    trips = p.index("n") if s.dynamic else s.trips
    with p.launch(grid=(s.grid, 1, 1), threads=128 * (1 + K), min_blocks=s.min_blocks) as k:
        buf = p.alloc(f"({S},{R},{C}):({_stage_elements(s.tile_bytes, eb, 0)},{C},1)", s.dtype, "smem")
        scratch = p.alloc(f"({R},{C}):({C},1)", s.dtype, "smem") if s.named == "exchange" else None
        last = p.alloc(f"({R},{C}):({C},1)", s.dtype, "smem") if s.named == "handover" else None
        full = p.mbarrier_array(S, count=1 + (128 if s.fill == "cp_async_load" else 0))
        empty = p.mbarrier_array(S, count=K + (1 if d == "missing-arrival" else 0))
        cS, c2 = p.constant(S), p.constant(2)
        regions = p.warp_specialize([1, K] if s.producer_first else [K, 1],
                                    apart=[1 if s.producer_first else 0] if s.apart else [])
        producer, consumer = regions if s.producer_first else regions[::-1]
        first_producer = 0 if s.producer_first else 128 * K

        def tile_of(view, i):
            return p.tile(view, [i * s.grid + k.bx, 0], [R, C])

        with producer:
            if s.regs:
                p.setmaxnreg("dec", 40)
            with p.range(0, trips) as i:
                stage = p.remui(i, cS)
                if d != "no-empty-wait":
                    round_ = p.divui(i, cS)
                    if s.empty_wait == "parity":
                        p.mbarrier_wait(p.mbarrier_at(empty, stage), p.remui(round_ + 1, c2))
                    else:
                        with p.if_(i >= S):
                            p.mbarrier_wait(p.mbarrier_at(empty, stage), p.remui(round_ + 1, c2))
                bar = p.mbarrier_at(full, stage)
                st = p.slice(buf, [stage, "_", "_"])
                gt = tile_of(src, i)
                if s.fill == "tma":
                    tx = s.tile_bytes + (eb * C if d == "tx-mismatch" else 0)
                    p.mbarrier_arrive(bar, tx=tx)
                    p.tma_load(gt, st, bar)
                elif s.fill == "store":
                    p.store(p.load(gt, _blocked(4, R, C, eb)), st)
                    p.mbarrier_arrive(bar)
                elif s.fill == "cp_async_load":  # each producer thread arrives when its copies land
                    p.cp_async_load(gt, st, bar)
                    p.mbarrier_arrive(bar)
                else:
                    _cp_async_tile(p, gt, st, k.tid - first_producer, R, C, eb)
                    p.async_wait(pending=0)
                    p.mbarrier_arrive(bar)
                if d == "extra-arrival":
                    p.mbarrier_arrive(bar)
            if s.named == "handover":  # the block's last tile, once the consumers have written it
                p.named_barrier("sync", s.barrier_id, 128 * (K + 1))
                p.store(p.load(last, _blocked(4, R, C, eb)), p.tile(last_out, [k.bx, 0], [R, C]))
        with consumer:
            if s.regs:
                p.setmaxnreg("inc", 232)
            with p.range(0, trips) as i:
                stage = p.remui(i, cS)
                phase = p.remui(p.divui(i, cS), c2)
                if d == "wrong-phase":
                    phase = p.remui(phase + 1, c2)
                if d == "no-flip":
                    phase = p.constant(0)
                st = p.slice(buf, [stage, "_", "_"])
                enc = _blocked(4 * K, R, C, eb)
                out = tile_of(dst, i)
                if s.apart:  # this warpgroup's rows of the stage and of the tile
                    wg = p.warpgroup_index()
                    st = p.tile(st, [wg, 0], [R // K, C])
                    out = p.tile(out, [wg, 0], [R // K, C])
                    enc = _blocked(4, R // K, C, eb)
                if d == "early-read":
                    x = p.load(st, enc)
                p.mbarrier_wait(p.mbarrier_at(full, stage), phase)
                if d != "early-read":
                    x = p.load(st, enc)
                y = x + x if s.compute else x
                if s.named == "exchange":  # through scratch, read back by other threads
                    count = 128 * K
                    if d == "named-count":  # the producer's threads too, or only half the consumers
                        count = 128 * (K + 1) if K == 1 else 128
                    p.store(y, scratch)
                    if d != "named-race":
                        p.named_barrier("sync", s.barrier_id, count)
                    y = p.load(scratch, _scalar(4 * K, R, C))
                    p.store(y, out)
                    p.named_barrier("sync", s.barrier_id, count)  # every read done before the next writes
                else:
                    p.store(y, out)
                if s.named == "handover":
                    p.store(y, last)
                p.mbarrier_arrive(p.mbarrier_at(empty, stage))
            if s.named == "handover" and d != "named-no-arrive":
                p.named_barrier("arrive", s.barrier_id, 128 * (K + 1))
    return _text(p, {"n": s.trips} if s.dynamic else None)


def _scalar(warps: int, rows: int, cols: int):
    """A blocked layout of one element per thread, a warp's lanes along the rows: thread
    1 holds element (0, 1), which `_blocked`'s thread 0 holds (its vectors have 2 or
    more elements)."""
    import tilec

    tc = min(32, cols)
    return tilec.BlockedLayout([1, 1], [32 // tc, tc], [warps, 1], [1, 0])


def plain_program(s: Plain) -> str:
    """The MLIR text of the plain single-buffered loop `s`: per step the tiles of every
    operand loaded into one shared buffer each (TMA on one mbarrier, its wait on the
    step's parity; or cp.async copies, `async_wait {pending = 0}` and a barrier), the
    compute on them, a barrier; the loop asks for `s.stages` stages."""
    from tilec.compiler.builder import Program

    ops = range(len(s.dtypes))
    R, threads = s.rows, 32 * s.warps
    m = s.trips * s.grid * R
    p = Program("plain")
    srcs = [p.view(p.pointer(f"src{o}", s.dtypes[o]), f"({m},{s.cols[o]}):({s.cols[o]},1)") for o in ops]
    dsts = [p.view(p.pointer(f"dst{o}", s.dtypes[o]), f"({m},{s.cols[o]}):({s.cols[o]},1)") for o in ops]
    trips = p.index("n") if s.dynamic else s.trips
    with p.launch(grid=(s.grid, 1, 1), threads=threads) as k:
        bufs = [p.alloc(f"({R},{s.cols[o]}):({s.cols[o]},1)", s.dtypes[o], "smem") for o in ops]
        outs = ([p.alloc(f"({R},{s.cols[o]}):({s.cols[o]},1)", s.dtypes[o], "smem") for o in ops]
                if s.compute == "tma_store" else [])
        bar = p.mbarrier_init(1) if s.form == "tma" else None
        encs = [_blocked(s.warps, R, s.cols[o], TMA_TYPES[s.dtypes[o]]) for o in ops]
        zero = [0.0 if s.dtypes[o] in FLOAT_TYPES else 0 for o in ops]
        sums = [p.full([R, s.cols[o]], zero[o], s.dtypes[o], encs[o]) for o in ops] if s.compute == "sum" else []
        with p.range(0, trips, carry=sums, num_stages=s.stages) as i:
            t = i * s.grid + k.bx
            tiles = [p.tile(srcs[o], [t, 0], [R, s.cols[o]]) for o in ops]
            if s.form == "tma":
                p.mbarrier_arrive(bar, tx=sum(R * s.cols[o] * TMA_TYPES[s.dtypes[o]] for o in ops))
                for o in ops:
                    p.tma_load(tiles[o], bufs[o], bar)
                p.mbarrier_wait(bar, p.remui(i, p.constant(2)))
            else:
                for o in ops:
                    v = 16 // TMA_TYPES[s.dtypes[o]]
                    tc = s.cols[o] // v
                    thr = f"({threads // tc},{tc}):({tc},1)"
                    p.copy_async(p.distribute(p.vectorize(tiles[o], [1, v]), k.tid, thr),
                                 p.distribute(p.vectorize(bufs[o], [1, v]), k.tid, thr), token=False)
                p.async_wait(pending=0)
                p.barrier()
            for o in ops:
                out = p.tile(dsts[o], [t, 0], [R, s.cols[o]])
                if s.compute == "sum":
                    sums[o].assign(sums[o] + p.load(bufs[o], encs[o]))
                elif s.compute == "copy":
                    p.copy(bufs[o], out, strategy="simt")
                elif s.compute == "tensor":
                    x = p.load(bufs[o], encs[o])
                    p.store(x + x if s.dtypes[o] in FLOAT_TYPES + ("i32", "i64") else x, out)
                else:
                    p.store(p.load(bufs[o], encs[o]), outs[o])
                    p.tma_store(outs[o], out)
            if s.compute == "tma_store":
                p.tma_store_wait(0)
            p.barrier()
        for o, acc in enumerate(sums):
            p.store(acc, p.tile(dsts[o], [k.bx, 0], [R, s.cols[o]]))
    return _text(p, {"n": s.trips} if s.dynamic else None)


def _cp_async_tile(p, gt, st, ltid, R: int, C: int, eb: int) -> None:
    """A rows x cols tile copied by cp.async (16-, 8- or 4-byte vectors) by the first
    threads of a 128-thread region (`ltid`: the thread's index in the region)."""
    v = max(1, min(16 // eb, C))
    while v * eb < 4:
        v *= 2
    tc = C // v
    tr = min(R, 128 // tc)
    with p.if_(ltid < tr * tc):
        src = p.distribute(p.vectorize(gt, [1, v]), ltid, f"({tr},{tc}):({tc},1)")
        dst = p.distribute(p.vectorize(st, [1, v]), ltid, f"({tr},{tc}):({tc},1)")
        p.copy_async(src, dst, token=False)


# ------------------------------------------------------------------ generators


PIPELINES = ("default", "default", "cse,canonicalize,default", "default,cse,canonicalize")
"""The pipelines of the ring and warp-specialised programs: the default one, with CSE
and canonicalisation before it (on the mbarrier ops as written) or after it (on the
`cuda.mbarrier_*` ops): merging or moving an arrival or a wait makes the executor's
checks or `--check-equivalence` fail."""


def random_ring_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid block-level TMA ring program (module docstring) and its pipeline."""
    s = draw_ring(rng)
    return MbarrierProgram(ring_program(s), rng.choice(PIPELINES), _summary(s), "ring")


def random_clipped_ring_kernel(rng: random.Random, tail: bool | None = None) -> MbarrierProgram:
    """A valid ring program whose TMA loads are clipped to the tensor (`Ring.clip`), its
    tiles' bytes expected at run time (`layout.mbarrier_expect_tx`): one row of tiles
    with fewer rows than the box where it has more than one (the box cut to them); half
    of them as that row's last box (`tma_load {clip, tail}`: (M - 1) mod rows + 1 rows),
    all or none of them where `tail` says (`tail=True`: a ragged tile too, tiles of more
    than one row, the last box's fewer)."""
    s = draw_ring(rng)
    while tail and s.rows == 1:
        s = draw_ring(rng)
    s = _clipped(replace(s, col_tiles=s.total_tiles, cut=rng.randrange(1, s.rows) if s.rows > 1 else 0))
    drawn = rng.random() < 0.5
    s = replace(s, tail=drawn if tail is None else tail)
    return MbarrierProgram(ring_program(s), rng.choice(PIPELINES), _summary(s), "ring")


def random_ws_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid warp-specialised producer/consumer program (module docstring)."""
    s = draw_ws(rng)
    return MbarrierProgram(ws_program(s), rng.choice(PIPELINES), _summary(s), "ws")


def random_plain_loop_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid plain single-buffered loop (module docstring) that `software-pipeline`
    turns into a ring of `num_stages` stages (unrolled or rolled): the schedule the
    pass makes is what the executor's checks judge."""
    s = draw_plain(rng)
    return MbarrierProgram(plain_program(s), s.pipeline, _summary(s), "plain", s.form == "tma", s.stages > 1,
                           s.specialized)


def random_named_barrier_kernel(rng: random.Random) -> MbarrierProgram:
    """A valid warp-specialised program with named barriers among a subset of its warps
    (`Ws.named`: the consumers' exchange, or their handover to the producer)."""
    s = replace(draw_ws(rng), named=rng.choice(["exchange", "handover"]), apart=False)
    return MbarrierProgram(ws_program(s), rng.choice(PIPELINES), _summary(s), "ws")


def random_mbarrier_kernel(rng: random.Random) -> MbarrierProgram:
    """Any family: rings half the time (they vary most), else warp-specialised or plain loops."""
    x = rng.random()
    if x < 0.5:
        return random_ring_kernel(rng)
    return random_ws_kernel(rng) if x < 0.75 else random_plain_loop_kernel(rng)


DEFECTS: dict[str, str] = {
    "wrong-phase": r"wait on phase parity \d of the mbarrier of block \d+, whose (current )?phase",
    "no-flip": r"wait on phase parity 0 of the mbarrier of block \d+, whose (current )?phase",
    "wait-after-inval": r"wait on an mbarrier of block \d+ that is not initialised \(or was invalidated\)",
    "missing-arrival": r"the wait would never return: phase \d+ of the mbarrier of block \d+ is missing 1 of its",
    "extra-arrival": r"arrival on the mbarrier of block \d+ whose phase \d+ already has all its \d+ arrivals",
    "tx-mismatch": r"expects \d+ bytes, but the TMA loads on it copy \d+",
    "early-read": r"while a (TMA load|cp\.async) is still writing it|reads .* before",
    "index-out-of-range": r"mbarrier index \d+ is out of range for an array of \d+ barriers"
    r"|out-of-bounds subview: 1 elements from \d+ with step 1 in dimension 0 of %mbars",
    "no-empty-wait": r"which an earlier TMA load is still writing|already has all its|race|hazard",
    "named-race": r"data race on shared memory: .* reads .*, which .* wrote with no barrier in between",
    "named-count": r"the (bar\.sync \d+|wait) would never return|\d+ threads arrive at barrier \d+ in block \d+, "
    r"whose phase counts \d+",
    "named-no-arrive": r"the bar\.sync \d+ would never return: 128 of the \d+ threads",
}
"""The defects `random_invalid_mbarrier_kernel` injects and what the diagnostic says."""

UNWRITTEN = r"read of uninitialised shared memory"
"""In a warp-specialised program whose consumer region runs first (the executor's
schedule: regions in order until one waits), a consumer that reads a stage before
(or without) waiting for it reads it before the producer has filled it: the
executor's diagnostic is this one."""


def defects_of(s: Ring | Ws) -> list[str]:
    """The defects that make `s` wrong for certain (each needs the situation it breaks:
    a phase that never flips needs a stage used twice, and so on)."""
    if isinstance(s, Ring):
        out = ["wrong-phase", "missing-arrival", "extra-arrival", "tx-mismatch", "early-read", "wait-after-inval"]
        if s.trips > s.stages:
            out.append("no-flip")
        if s.bars == "array" and s.phase == "divide" and s.trips > s.stages:
            out.append("index-out-of-range")
        return out
    out = ["wrong-phase", "extra-arrival"]
    if s.fill in ("tma", "cp_async_load") or not s.producer_first:
        # A stage filled by cp.async or by stores is not pending (as a TMA destination
        # is until its wait): read before the wait after the producer has filled it, it
        # passes, as the executor's mbarrier waits order all of a block's earlier
        # accesses (roles_impls.py: an over-approximation of the release/acquire pairs,
        # here the producer's own waits on the empty barriers); `cp_async_load`'s stage is
        # pending until its copies land, as a TMA destination is
        out.append("early-read")
    if s.trips > s.stages:
        out += ["no-flip", "missing-arrival"]
    if s.fill == "tma":
        out.append("tx-mismatch")
        if s.trips > s.stages:
            out.append("no-empty-wait")
    if s.named == "exchange":
        out += ["named-race", "named-count"]
    if s.named == "handover":
        out.append("named-no-arrive")
    return out


def random_invalid_mbarrier_kernel(rng: random.Random) -> InvalidProgram:
    """A program of either family with one defect (DEFECTS) the executor reports."""
    s: Ring | Ws = draw_ring(rng) if rng.random() < 0.6 else draw_ws(rng)
    defect = rng.choice(defects_of(s))
    s = replace(s, defect=defect)
    text = ring_program(s) if isinstance(s, Ring) else ws_program(s)
    message = DEFECTS[defect]
    if isinstance(s, Ws) and defect in ("wrong-phase", "early-read"):
        message = f"{message}|{UNWRITTEN}"
    return InvalidProgram(text, f"{defect}: {_summary(s)}", defect, message)


def random_invalid_named_barrier_kernel(rng: random.Random) -> InvalidProgram:
    """A warp-specialised program with named barriers and one of their defects
    (`named-race`, `named-count`, `named-no-arrive`: DEFECTS) the executor reports."""
    s = replace(draw_ws(rng), named=rng.choice(["exchange", "handover"]), apart=False)
    defect = rng.choice([d for d in defects_of(s) if d.startswith("named-")])
    s = replace(s, defect=defect)
    return InvalidProgram(ws_program(s), f"{defect}: {_summary(s)}", defect, DEFECTS[defect])


def spec_summary(name: str, s) -> str:
    """A drawn spec (a dataclass) as `name(field=value, ...)`, its unset fields left out:
    the fuzz programs' descriptions."""
    items = ", ".join(f"{f}={getattr(s, f)}" for f in s.__dataclass_fields__ if getattr(s, f) is not None)
    return f"{name}({items})"


def _summary(s: Ring | Ws | Plain) -> str:
    shape = s.shape(0) if isinstance(s, Ring) else s.shape
    return f"{spec_summary(type(s).__name__.lower(), s)} shape={shape}"

