"""Which kernels `plan_copy` may route a copy to, beyond the measured rules: a value
in force for a `with` block, for tests that pin each kernel and for benchmarks that
compare them. Nothing in the product changes it; the default is the rules.

    with forced_routes(gather="always"):   # every eligible copy takes the gather strategy
        copy_numpy(dst, src)
    with forced_routes(realign_threads=256, box_smem=20 * 1024):   # tuning values
        copy_numpy(dst, src)

A route's setting is "auto" (its rule: the `copy-strategy` pass's cost model,
passes/_copy_cost.py), "always" (every copy eligible for the strategy takes it; not
for the box strategy, whose rule is its eligibility) or "never". The routes are the
`copy-strategy` pass's options `gather=`, `realign=`, `box=` in the kernel's pipeline
(`copy_kernels.kernel_pipeline`; the plan asks the same model whether to state the
realign and box facts, `copy_plan.may_realign`, `copy_plan.may_box`).
The tuning values (`TUNING_NAMES`: the box's shared memory and phase-1 staging, the
realign strategy's threads) are
set the same way, never as module globals. The setting is context-local (a
`contextvars.ContextVar`): it holds for the thread or task that entered the block,
until the block is left.

A `CopyKernels` remembers the plan of each copy structure it has seen: compare routes
with a fresh `CopyKernels(disk=False)` per setting."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace

SETTINGS = ("auto", "always", "never")

ROUTE_NAMES = ("gather", "realign", "box")

TUNING_NAMES = ("box_smem", "realign_threads", "box_stage", "tiles_lanes", "tiles_grain", "tiles_stage",
                "tiles_interleave", "tiles_rounds", "tiles_row_step", "tiles_rotate", "box_lanes", "box_grain", "box_pitch",
                "box_depth", "box_ring", "box_carry", "box_prefetch", "box_slot32", "box_l1", "box_blocks", "box_fit",
                "box_split", "box_runs", "tiles_merge", "tiles_merge_banks", "tiles_short", "realign_flat", "magic64", "narrow32", "realign_chunks", "div32",
                "narrow_count", "tiles_fill", "realign_prefetch", "inbounds", "tiles_bytes", "realign_rows",
                "tiles_mirror", "tiles_short_d", "tiles_run", "tiles_issue", "realign_run", "realign_lanes",
                 "realign_elems", "realign_bits", "gather_fill", "rows_residues", "box_turn", "box_deal", "gather_bytes",
                 "tiles_blocks", "tiles_lines", "realign_bytes")
"""The tuning values a `with forced_routes(...)` block may set (None: the default,
`passes/_copy_cost.BOX_SMEM`, the `copy-strategy` and `tile` passes' option
`box_smem=`; the realign strategy's threads, the `tile` pass's option
`threads=` in a realign program's pipeline, default
`passes/_realign_tile.REALIGN_THREADS`; how a box copy's phase 1 stages its
chunks, the `tile` pass's option `box_stage=`, default `async`,
`passes/_box_tile.BOX_STAGES`; where a `box<tiles>` phase 2 puts a warp's lanes,
the `tile` pass's option `tiles_lanes=`, default `passes/_box_tile.TILES_LANES`, and the
destination grain its blocks own, `tiles_grain=`, default `TILES_GRAIN`, and its phase-1
chunks' bytes, `tiles_stage=`, default `tiles_phase2`'s (`TILES_STAGE8_BYTES`), and its source runs'
bytes, `tiles_run=`, default `_copy_cost.tiles_run_bytes` (or `W` whole, or the longest that fit a short
`D`), and whether its slots are
interleaved, `tiles_interleave=`, default `passes/_box_tile.tiles_interleaved`, and whether
its tiles are spread over whole rounds, `tiles_rounds=`, default `TILES_ROUNDS`, and how far apart a warp's
phase-2 rows are, `tiles_row_step=`, default `TILES_ROW_STEP`, and whether its loads rotate where the rule finds
no step, `tiles_rotate=`, default `tiles_rotated`'s; where a `box<flat>` or `box<rows>`
phase 2 puts a warp's lanes, `box_lanes=`, default per flavour `passes/_box_tile.BOX_LANES`, and
which destination chunks a `box<flat>` or `box<rows>` block writes, `box_grain=`, default `BOX_GRAIN` / `ROWS_GRAIN`, and
where a `box<rows>` box places its slots, `box_pitch=`, default `passes/_box_tile.ROWS_PITCH_STEP`; in how
many parts of a box a `box<flat|rows|span|cols>` block takes its steps, `box_depth=`, default
`passes/_box_tile.BOX_DEPTH`, and through how many boxes, `box_ring=`, default `BOX_RING`; how a `box<flat>`
phase 2 gives its work, `box_carry=`, default `BOX_CARRY`, and the L2 prefetch size of its phase-1 `cp.async`,
`box_prefetch=`, default `BOX_PREFETCH`, whether a box's runs lie at their source addresses mod 32,
`box_slot32=`, default `BOX_SLOT32`, and whether its phase 1 goes through L1, `box_l1=`, default
`BOX_L1`, and the blocks a multiprocessor a `box<flat|rows|span|cols>` launch asks to hold, `box_blocks=`,
default `BOX_BLOCKS`, and whether a `box<rows>` copy takes the steps of its least source residue's pitch,
`box_fit=`, default `ROWS_FIT`, and in commit groups of how many steps a `box<rows>` block waits for its
phase 1, `box_split=`, default `ROWS_SPLIT`, and how far apart a `box<rows>` phase 2's consecutive runs lie,
`box_runs=`, default `ROWS_RUN_STRIDE`, and how its phase 2's rounds of items are turned among the threads,
`box_turn=`, default `ROWS_TURN`, and whether its items of the most chunk trips come first, `box_deal=`,
default `ROWS_DEAL`; whether a `box<tiles>` copy merges the destination's modes after
the source's contiguous mode, `tiles_merge=`, the `copy-strategy` and `tile` passes' option,
default `passes/_copy_cost.TILES_MERGE`, and whether such a box lays out its phase-2 reads by bank,
`tiles_merge_banks=`, the `tile` pass's option, default `passes/_box_tile.TILES_MERGE_BANKS`; whether it takes a short source-contiguous
mode whole, `tiles_short=`, both passes' option, default `TILES_SHORT_BYTES`, and a short destination-contiguous
mode whole, `tiles_short_d=`, both passes' option, default `TILES_SHORT_D_BYTES`; whether a
realign copy of a broadcast into a compact destination takes the flat form, `realign_flat=`, the `tile`
pass's option, default `passes/_copy_cost.REALIGN_FLAT_BROADCAST`; whether gather and realign copies of
64-bit offsets divide by run-time extents as multiplications, `magic64=`, the `tile` pass's option,
default `passes/_gather_tile.MAGIC64`; whether gather copies of 32-bit offsets take the narrow element
form, `narrow32=`, the `tile` pass's option, default `passes/_gather_tile.narrow32_rule`; a realign copy's chunks
a thread, `realign_chunks=`, and whether gather and realign copies of 32-bit offsets divide by 32-bit
multiply-highs, `div32=`, and a narrow gather run's count test, `narrow_count=`, the `tile` pass's options; whether a
`box<tiles>` copy takes the tile along D whose phase-2 trips are fullest, `tiles_fill=` (bits), the `tile`
pass's option, default `passes/_box_tile.TILES_FILL`; how a realign copy asks L2 first for the sectors its
rows cover in part, `realign_prefetch=`, the `tile` pass's option, default
`passes/_realign_tile.prefetch_rule`; whether gather copies load their sources unmasked, in bounds by
construction, `inbounds=`, the `tile` pass's option, default `passes/_gather_tile.inbounds_rule`; the largest
element a `box<tiles>` copy takes, `tiles_bytes=`, the `copy-strategy` pass's option, default
`passes/_copy_cost.TILES_BYTES`; the longest rows of 2- and 4-byte elements whose class a realign copy's key
states, `realign_rows=`, the plan's only, default `copy_key.REALIGN_ROW_CLASS`; the runs of a `box<tiles>` copy over
the source's contiguous mode and the mode continuing it, `tiles_mirror=` (bytes, 0 none), the `tile` pass's option,
default `passes/_copy_cost.TILES_MIRROR` where that mode is short; how a `box<tiles>` block issues its work (one
commit group for a thread's phase-1 copies, phase 2's chunk loop unrolled, phase 1's line loop over runs),
`tiles_issue=`, the `tile` pass's option, default `passes/_box_tile.TILES_ISSUE`; a realign copy's run form
(K chunks of a row a thread, `passes/_realign_tile.realign_run_launch`), `realign_run=`, `realign_lanes=`,
`realign_elems=`, `realign_bits=`, the `tile` pass's options, default `passes/_copy_cost.run_broadcast`'s (the plan
then states a compact destination); the gather strategy's fill form for a source broadcast along the outermost
mode into a compact destination (`passes/_fill_tile.py`: about N threads a multiprocessor, each distinct vector
computed once and stored many times), `gather_fill=N`, both passes' option, default 0: none (the plan then takes
such a copy whole to the gather strategy, no box, realign or period split)); whether a `box<rows>` copy's key
states its source step mod 32 and destination run step mod 16 (its kernel the slot layout's constants),
`rows_residues=`, the plan's only, default `copy_key.ROWS_RESIDUES`); a gather copy's run of destination bytes,
`gather_bytes=` (16 or 32: a whole sector a thread), the `tile` pass's option, default 0: one widest vector;
the blocks a multiprocessor a `box<tiles>` launch asks to hold, `tiles_blocks=`, the `tile` pass's option,
default 1024 / threads; whether its phase 1 (bit 1) and phase 2 (bit 2) go by 128-byte lines, `tiles_lines=`,
the `tile` pass's option, default `passes/_box_tile.tiles_lines_of`'s where the box takes its own runs;
a realign copy's destination chunk for 8-byte elements, `realign_bytes=` (8 or 16), the `tile` pass's option,
default `passes/_realign_tile.chunk_bytes`'s):
benchmarks and experiments compare
them this way instead of changing module globals. Each is part of the key of a copy
kernel's entry on disk (`copy_kernels.entry_key`); compare them with a fresh
`CopyKernels(disk=False)` per value, as routes."""


@dataclass(frozen=True)
class Routes:
    """The setting of each route (module doc), and the api/ kernels' tuning values
    (`TUNING_NAMES`; None: their defaults)."""

    gather: str = "auto"
    realign: str = "auto"
    box: str = "auto"
    box_smem: int | None = None
    realign_threads: int | None = None
    box_stage: str | None = None
    tiles_lanes: int | None = None
    tiles_grain: int | None = None
    tiles_stage: int | None = None
    box_lanes: int | None = None
    box_grain: int | None = None
    box_pitch: int | None = None
    box_depth: int | None = None
    box_ring: int | None = None
    box_carry: int | None = None
    box_prefetch: int | None = None
    box_slot32: int | None = None
    box_l1: int | None = None
    box_blocks: int | None = None
    box_fit: int | None = None
    box_split: int | None = None
    box_runs: int | None = None
    box_turn: int | None = None
    box_deal: int | None = None
    tiles_interleave: int | None = None
    tiles_rounds: int | None = None
    tiles_row_step: int | None = None
    tiles_rotate: int | None = None
    tiles_merge: int | None = None
    tiles_merge_banks: int | None = None
    tiles_short: int | None = None
    realign_flat: int | None = None
    magic64: int | None = None
    narrow32: int | None = None
    realign_chunks: int | None = None
    div32: int | None = None
    narrow_count: int | None = None
    tiles_fill: int | None = None
    realign_prefetch: int | None = None
    inbounds: int | None = None
    gather_bytes: int | None = None
    tiles_bytes: int | None = None
    realign_rows: int | None = None
    rows_residues: int | None = None
    tiles_mirror: int | None = None
    tiles_short_d: int | None = None
    tiles_run: int | None = None
    tiles_issue: int | None = None
    tiles_blocks: int | None = None
    tiles_lines: int | None = None
    realign_run: int | None = None
    realign_lanes: int | None = None
    realign_elems: int | None = None
    realign_bits: int | None = None
    gather_fill: int | None = None
    realign_bytes: int | None = None

    def tuning(self) -> dict:
        """The tuning values set (not None), by name."""
        return {n: getattr(self, n) for n in TUNING_NAMES if getattr(self, n) is not None}

    def __post_init__(self):
        if self.box_stage is not None:
            from tilec.passes._box_tile import BOX_STAGES

            if self.box_stage not in BOX_STAGES:
                raise ValueError(f"copy route tuning box_stage={self.box_stage!r}: expected one of "
                                 f"{', '.join(BOX_STAGES)}")
        for f in fields(self):
            if f.name not in ROUTE_NAMES:
                continue
            value = getattr(self, f.name)
            allowed = ("auto", "never") if f.name == "box" else SETTINGS
            if value not in allowed:
                raise ValueError(f"copy route {f.name}={value!r}: expected one of {', '.join(allowed)}")


_ROUTES: ContextVar[Routes] = ContextVar("tilec_copy_routes", default=Routes())


def current_routes() -> Routes:
    """The routes in force here (the rules, outside any `forced_routes` block)."""
    return _ROUTES.get()


@contextmanager
def forced_routes(**settings: str) -> Iterator[Routes]:
    """The routes in force with `settings` (`gather=`, `realign=`, `box=`, and the
    tuning values of `TUNING_NAMES`) changed, for the `with` block."""
    routes = replace(_ROUTES.get(), **settings)
    token = _ROUTES.set(routes)
    try:
        yield routes
    finally:
        _ROUTES.reset(token)
