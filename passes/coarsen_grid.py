"""The `coarsen-grid` pass: blocks that take several tiles of the grid in a pipelined loop,
where one tile per block leaves too few bytes in flight for DRAM."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from tilec.dialects.layout import AllocOp, BarrierOp, CopyOp, LaunchOp
from tilec.dialects.layout_attrs import element_bytes
from tilec.support.target import Target, target_of

from ._analysis import VIEW_OPS, constant_index
from ._pipeline_plan import STAGES_ATTR

MAX_COARSEN_STAGES = 4
"""The deepest ring this pass asks of `software-pipeline` (stages of every shared buffer)."""

TILES_PER_BLOCK = 8
"""The most grid tiles one block takes (fewer where the grid's x extent has no such divisor
or the coarsened grid would not fill `MIN_WAVES` rounds of resident blocks)."""

MIN_WAVES = 2
"""Rounds of resident blocks the coarsened grid still fills at least."""


@dataclass(frozen=True)
class Plan:
    """What `plan_launch` decided for one launch: `tiles` grid tiles per block along x,
    a ring of `stages` stages."""

    tiles: int
    stages: int


@dataclass(frozen=True)
class CoarsenGridPass(ModulePass):
    """Let each block of a tiled launch take `k` consecutive tiles along block x in a
    loop that `software-pipeline` then pipelines, where one tile per block keeps too few
    bytes of loads in flight for DRAM's bandwidth (Little's law).

    A launch qualifies when its body is straight-line work on one tile: pure index
    arithmetic, views (`layout.tile` of the block ids ...), shared `layout.alloc`s,
    block-level `layout.copy`s (at least one from global into shared memory: a load) and
    `layout.barrier`s; no loop or branch, no `layout.global_idx`; static tile, buffer and
    grid x extents. Its blocks hold L bytes of loads each (the global-to-shared copies)
    and R(S) = min(`Target.max_blocks_per_sm`, threads_per_sm / threads, the blocks whose
    S copies of the shared buffers fit `smem_per_sm`) are resident on a multiprocessor.
    DRAM needs N = `dram_bytes_per_s` x `dram_latency_s` / multiprocessors bytes in
    flight per multiprocessor (sm_90: 3.65e12 x 2.2e-6 / 132 = 61 KB). Where L x R(1) <
    N, the pass takes the fewest stages S (2 to `MAX_COARSEN_STAGES`) with (S - 1) x L x
    R(S) >= N (else the S with the most bytes in flight), and k, the largest divisor of
    grid x up to `TILES_PER_BLOCK` whose grid (grid x / k) x grid y x grid z still fills
    `min_waves` rounds of R(S) blocks on every multiprocessor (k >= 2, else nothing).

    The rewrite: the allocations move to the top of the body; the rest becomes the body
    of `scf.for %t = 0 to k` with block x replaced by `bx * k + t`, ending in a
    `layout.barrier` (the next tile's copies into the buffers wait for this tile's reads
    of them), marked `{tilec.num_stages = S}`; grid x becomes grid x / k. Blocks are
    independent and each takes its tiles in order, so results are those of the launch.
    `software-pipeline` (after `vectorize` in the default pipeline) turns the loop into S
    stages of the buffers with the copies of S - 1 tiles ahead in flight.

    Measured (H200, copy_bench's 16x16 f32 shared-memory round trip at 64 threads: 1
    KiB of loads a block, 32 blocks a multiprocessor, 32 KB in flight against 61 KB):
    see benchmarks/NOTES.md, "Small tiles on a faster DRAM" (issue 35). A target whose
    DRAM rates or multiprocessors are unknown is left as it is.

    Options:
      enabled=false   leave every launch (default true).
      min_waves=W     rounds of resident blocks the coarsened grid fills at least
                      (default `MIN_WAVES`, 2; 0 coarsens grids of any size, as
                      tests of small programs do).
      margin=M        aim the ring at M x N bytes in flight (default 1).
      max_stages=S    the deepest ring (default `MAX_COARSEN_STAGES`, 4).
      max_tiles=K     the most tiles a block takes (default `TILES_PER_BLOCK`, 8).
    """

    name = "coarsen-grid"

    enabled: bool = True
    min_waves: int = MIN_WAVES
    margin: int = 1
    max_stages: int = MAX_COARSEN_STAGES
    max_tiles: int = TILES_PER_BLOCK

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.enabled:
            return
        tgt = target_of(op)
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            plan = plan_launch(launch, tgt, self.min_waves, self.margin, self.max_stages, self.max_tiles)
            if plan is not None:
                coarsen(launch, plan)


def in_flight_per_sm(tgt: Target) -> float:
    """Bytes of loads a multiprocessor needs in flight for DRAM's bandwidth (0: unknown)."""
    if not (tgt.dram_bytes_per_s and tgt.dram_latency_s and tgt.multiprocessors):
        return 0.0
    return tgt.dram_bytes_per_s * tgt.dram_latency_s / tgt.multiprocessors


def resident(tgt: Target, threads: int, smem: int) -> int:
    """Blocks of `threads` threads and `smem` bytes of shared memory resident on one
    multiprocessor."""
    by_smem = tgt.resident_blocks(smem) if smem and tgt.smem_per_sm else tgt.max_blocks_per_sm
    return max(0, min(tgt.max_blocks_per_sm, tgt.threads_per_sm // threads, by_smem))


def plan_launch(launch: LaunchOp, tgt: Target, min_waves: int = MIN_WAVES, margin: int = 1,
                max_stages: int = MAX_COARSEN_STAGES, max_tiles: int = TILES_PER_BLOCK) -> Plan | None:
    """The tiles per block and stages for `launch` (the pass docstring), or None."""
    need = in_flight_per_sm(tgt)
    gx, gy, gz = (constant_index(v) for v in (launch.grid_x, launch.grid_y, launch.grid_z))
    if not need or None in (gx, gy, gz) or gx < 2 or launch.is_open:
        return None
    sizes = _straight_tile_body(launch)
    if sizes is None:
        return None
    loads, smem = sizes
    threads = launch.num_threads
    if resident(tgt, threads, smem) * loads >= need:
        return None
    need *= margin
    best = None
    for s in range(2, max_stages + 1):
        if s * smem > tgt.smem_per_block:
            break
        held = (s - 1) * loads * resident(tgt, threads, s * smem)
        if best is None or held > best[1]:
            best = (s, held)
        if held >= need:
            break
    if best is None or best[1] <= loads * resident(tgt, threads, smem):
        return None
    stages = best[0]
    fill = min_waves * tgt.multiprocessors * resident(tgt, threads, stages * smem)
    k = next((k for k in range(min(max_tiles, gx), 1, -1) if gx % k == 0 and gx // k * gy * gz >= fill), None)
    return None if k is None else Plan(k, stages)


def _straight_tile_body(launch: LaunchOp) -> tuple[int, int] | None:
    """(bytes a block loads from global into shared memory, bytes of its shared buffers)
    where the launch body qualifies (the pass docstring), else None."""
    bx = launch.block_ids[0]
    if not bx.uses:
        return None
    loads = smem = 0
    for o in launch.body.block.ops:
        if isinstance(o, AllocOp):
            t = o.result.type
            cos = t.cute_layout.cosize()
            if t.memory_space != "smem" or not isinstance(cos, int):
                return None
            smem += cos * element_bytes(t.element_type)
        elif isinstance(o, CopyOp):
            src, dst = o.source.type, o.dest.type
            if src.memory_space == "gmem" and dst.memory_space == "smem":
                n = src.cute_layout.size()
                if not isinstance(n, int):
                    return None
                loads += n * element_bytes(src.element_type)
        elif isinstance(o, VIEW_OPS) or isinstance(o, BarrierOp):
            continue
        elif not (o.has_trait(Pure) and not o.regions and o.dialect_name() == "arith"):
            return None
    return (loads, smem) if loads else None


def coarsen(launch: LaunchOp, plan: Plan) -> None:
    """Rewrite `launch` as `plan` says (the pass docstring)."""
    body = launch.body.block
    ops = list(body.ops)
    allocs = [o for o in ops if isinstance(o, AllocOp)]
    rest = [o for o in ops if not isinstance(o, AllocOp)]

    def const(v: int) -> arith.ConstantOp:
        return arith.ConstantOp(IntegerAttr(v, IndexType()))

    k, zero, one = const(plan.tiles), const(0), const(1)
    bx = launch.block_ids[0]
    base = arith.MuliOp(bx, k.result)
    base.result.name_hint = "tile0"
    loop_body = Block(arg_types=[IndexType()])
    x = arith.AddiOp(base.result, loop_body.args[0])
    x.result.name_hint = "tile_x"
    for o in rest:
        o.detach()
    loop_body.add_op(x)
    loop_body.add_ops(rest)
    if not isinstance(rest[-1], BarrierOp):
        loop_body.add_op(BarrierOp())
    loop_body.add_op(scf.YieldOp())
    for use in list(bx.uses):
        if use.operation is not base:
            use.operation.operands[use.index] = x.result
    loop = scf.ForOp(zero.result, k.result, one.result, [], Region(loop_body))
    loop.attributes[STAGES_ATTR] = IntegerAttr(plan.stages, i64)
    for o in allocs:
        o.detach()
    new_ops: list[Operation] = [*allocs, k, zero, one, base, loop]
    body.add_ops(new_ops)
    grid = const(constant_index(launch.grid_x) // plan.tiles)
    launch.parent_block().insert_op_before(grid, launch)
    launch.operands = [grid.result, launch.grid_y, launch.grid_z]
