"""The `order-grid` pass: let the hardware's block x run where consecutive blocks touch
neighbouring memory."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, SSAValue
from xdsl.passes import ModulePass

from tilec.dialects import views
from tilec.dialects.layout import (
    CopyAsyncOp,
    CopyOp,
    LaunchOp,
    LoadOp,
    StoreOp,
    TileOp,
)
from tilec.dialects.layout_attrs import element_bytes
from tilec.dialects.thread_ids import GlobalIdxOp

from ._analysis import VIEW_OPS, constant_index
from .tile import MAX_GRID_YZ

FAR = float("inf")
"""The step of a block coordinate that moves no tile, or moves one by a dynamic amount."""


@dataclass(frozen=True)
class OrderGridPass(ModulePass):
    """Swap a `layout.launch`'s block dimensions so that block x is the one whose
    neighbouring ids take neighbouring tiles in memory.

    Blocks run roughly in the order of their linear id, x fastest, so the blocks in
    flight at once are consecutive in x. When x moves tiles far apart (a row of tiles
    each a whole tile-height below the last) the blocks in flight touch a little of many
    DRAM pages; when x moves them by one tile width they stream through memory as a
    plain copy does (measured on an H100: a 16x16-tile shared-memory round trip went
    from 0.76 to 0.99 of cudaMemcpy, a 64x64 one from 0.94 to 0.99).

    For each block coordinate j of a launch, the step of j is the distance in bytes
    that one step of j moves the origin of a `layout.tile` indexed by it,
    source_mode_k(tile[k]) * element bytes for the tile's coordinate k = j. Tiles whose
    views are written (the destination of `layout.copy` / `copy_async`, the view of
    `layout.store`) count first, tiles only read second, so a transpose, whose two
    views are contiguous along different modes, keeps x on the destination's
    contiguous mode, as `tile` lays it out (measured: writes in order beat reads in
    order by 1-2%). The block coordinate with the smallest (write step, read step)
    becomes x when it is strictly smaller than x's; the two are swapped, the grid
    extents with them. A swap that would give y or z a static extent above 65535, or a
    dynamic one, is not made, nor one in a launch that reads `layout.global_idx` (it
    combines the block id and the thread id of one dimension, which a swap would part). Block order is not part of a launch's meaning (blocks
    are independent), so results never change.

    Grouped order (`group=G`, G > 1; Triton's `GROUP_SIZE_M`): a launch whose blocks
    share the tiles they read along both coordinates (a GEMM: every block of a row
    of C reads the same tiles of A, every block of a column the same tiles of B: a
    read tile indexed by block x alone and another by block y alone), over a static
    2-D grid (z of 1, at most 2^31 - 1 blocks), becomes a 1-D grid of gx * gy blocks
    in which consecutive blocks walk down G block rows (y) and then one block column
    (x) along, the last group taking the rows that are left: the blocks in flight at
    once then read G rows' and about (blocks in flight) / G columns' tiles instead of
    one row's columns' worth, so more of what they read is in L2. Each block's
    coordinates are computed from its linear id at the top of the body (`divui`,
    `remui`, `minui` where G does not divide gy). Off by default (`group=1`); the
    `y` block id is then always 0.

    Options:
      group=G   grouped order of G block rows for the launches that share tiles
                (default 1: the block order of the grid).
    """

    name = "order-grid"

    group: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            self._order(launch)
            if self.group > 1:
                _group(launch, self.group)

    def _order(self, launch: LaunchOp) -> None:
        if any(isinstance(o, GlobalIdxOp) for o in launch.body.walk()):
            return  # global_idx reads the hardware block id of its own dimension
        steps = block_steps(launch)
        best = min(range(3), key=lambda j: (steps[j], j))
        if best == 0 or not steps[best] < steps[0]:
            return
        grid = [launch.grid_x, launch.grid_y, launch.grid_z]
        if not _fits_yz(grid[0]):
            return
        grid[0], grid[best] = grid[best], grid[0]
        launch.operands = grid
        ids = launch.block_ids
        _swap_uses(ids[0], ids[best])


def block_steps(launch: LaunchOp) -> list[tuple[float, float]]:
    """(write step, read step) in bytes of each block coordinate x, y, z of `launch`."""
    written = [FAR] * 3
    read = [FAR] * 3
    ids = launch.block_ids
    for o in launch.body.walk():
        if isinstance(o, CopyOp | CopyAsyncOp):
            accesses = ((o.source, read), (o.dest, written))
        elif isinstance(o, LoadOp):
            accesses = ((o.view, read),)
        elif isinstance(o, StoreOp):
            accesses = ((o.view, written),)
        else:
            continue
        for view, into in accesses:
            for tile in _tiles_of(view):
                for j, step in _tile_steps(tile, ids):
                    into[j] = min(into[j], step)
    return list(zip(written, read))


def _tiles_of(view: SSAValue) -> list[TileOp]:
    """The `layout.tile` ops on the chain of views that made `view`."""
    out = []
    v = view
    while isinstance(v.owner, VIEW_OPS):
        if isinstance(v.owner, TileOp):
            out.append(v.owner)
        v = v.owner.source
    return out


def _tile_steps(tile: TileOp, ids) -> list[tuple[int, float]]:
    """(block coordinate, byte step) for each tile coordinate that is a block id."""
    st = tile.source.type
    ms = views.modes(st.cute_layout)
    eb = element_bytes(st.element_type)
    out = []
    for k, (c, t) in enumerate(zip(tile.coords, tile.tile_sizes)):
        j = next((j for j, b in enumerate(ids) if c is b), None)
        if j is None:
            continue
        n = ms[k].size()
        if isinstance(n, int) and t >= n:
            continue  # one tile along k: the coordinate is always 0
        off = _offset(ms[k], t)
        out.append((j, FAR if off is None else abs(off) * eb))
    return out


def _offset(mode, i: int) -> int | None:
    """mode(i), or None when a dynamic extent or stride leaves it unknown."""
    off = mode(i)
    return off if isinstance(off, int) else None


def _fits_yz(extent: SSAValue) -> bool:
    """Whether `extent` is a constant that CUDA allows for grid y and z."""
    c = constant_index(extent)
    return c is not None and c <= MAX_GRID_YZ


def _swap_uses(a: BlockArgument, b: BlockArgument) -> None:
    """Exchange every use of `a` with a use of `b`."""
    uses_a, uses_b = list(a.uses), list(b.uses)
    for use in uses_a:
        use.operation.operands[use.index] = b
    for use in uses_b:
        use.operation.operands[use.index] = a


def _shares_tiles(launch: LaunchOp) -> bool:
    """Whether the launch reads a tile indexed by block x alone and another by block y
    alone (the blocks along y share the first, those along x the second)."""
    ids = launch.block_ids
    seen: list[frozenset[int]] = []
    for o in launch.body.walk():
        if isinstance(o, CopyOp | CopyAsyncOp):
            views = (o.source,)
        elif isinstance(o, LoadOp):
            views = (o.view,)
        else:
            continue
        for view in views:
            for tile in _tiles_of(view):
                seen.append(frozenset(j for j, _ in _tile_steps(tile, ids)))
    return frozenset({0}) in seen and frozenset({1}) in seen


def _group(launch: LaunchOp, group: int) -> bool:
    """Grouped order of `group` block rows (the pass docstring); whether it was made."""
    gx, gy, gz = (constant_index(v) for v in (launch.grid_x, launch.grid_y, launch.grid_z))
    if None in (gx, gy, gz) or gz != 1 or gx < 2 or gy < 2 or gx * gy > 2**31 - 1:
        return False
    if any(isinstance(o, GlobalIdxOp) for o in launch.body.walk()) or not _shares_tiles(launch):
        return False
    bx, by = launch.block_ids[0], launch.block_ids[1]
    uses_x, uses_y = list(bx.uses), list(by.uses)
    g = min(group, gy)

    def const(v: int) -> arith.ConstantOp:
        return arith.ConstantOp(IntegerAttr(v, IndexType()))

    ops: list = []

    def emit(op):
        ops.append(op)
        return op.results[0]

    width = emit(const(g * gx))
    grp = emit(arith.DivUIOp(bx, width))
    inw = emit(arith.RemUIOp(bx, width))
    first = emit(arith.MuliOp(grp, emit(const(g))))
    size = emit(const(g))
    if gy % g:
        size = emit(arith.MinUIOp(emit(arith.SubiOp(emit(const(gy)), first)), size))
    row = emit(arith.AddiOp(first, emit(arith.RemUIOp(inw, size))))
    col = emit(arith.DivUIOp(inw, size))
    row.name_hint, col.name_hint = "grouped_y", "grouped_x"
    body = launch.body.block
    if body.first_op is None:
        body.add_ops(ops)
    else:
        body.insert_ops_before(ops, body.first_op)
    for use in uses_x:
        use.operation.operands[use.index] = col
    for use in uses_y:
        use.operation.operands[use.index] = row
    blocks = const(gx * gy)
    one = const(1)
    launch.parent_block().insert_ops_before([blocks, one], launch)
    launch.operands = [blocks.result, one.result, launch.grid_z]
    return True
