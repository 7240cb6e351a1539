"""The `pack-rows` pass: several short rows per block in a row-wise kernel whose layouts are open."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from tilec.dialects import views
from tilec.dialects.auto_layout import is_auto
from tilec.dialects import layout_compute as lc
from tilec.dialects.layout import (
    ArangeOp,
    BroadcastOp,
    ExpandDimsOp,
    LaunchOp,
    LoadOp,
    ReduceOp,
    SplatOp,
    StoreOp,
    TileOp,
    ViewOp,
)
from tilec.dialects.layout_attrs import SliceLayoutAttr, element_bytes
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._analysis import DYN, constant_index, is_pow2, pow2_floor

ELEMENTWISE_OPS = ("layout.cmpi", "layout.cmpf", "layout.select")
"""Ops besides `arith.*` and `math.*` that act element by element on tensors of one shape."""


@dataclass(frozen=True)
class PackRowsPass(ModulePass):
    """Give each block several rows of a row-wise kernel whose rows are short, by the facts of its tiles.

    A row-wise kernel as a user writes it (a softmax, a layer norm): block b takes row b
    of its views, `layout.tile %v[%bx, %c0] {tile = array<i64: 1, T>}`, over a grid of
    as many blocks as the views have rows. When a row is short a block holds little
    data and the launch is many tiny blocks; this pass gives each block R rows instead
    (tiles R x T, grid ceil(M / R), every row tensor R x K), so each thread holds at
    least `bytes` bytes of its rows: R = the largest power of two with R * T * E <=
    max(threads * bytes, T * E) (E the widest element of the row tiles). Rows past M
    fall in the tiles' mask (`layout.tile` masks the last tile), so results are the
    same; `coalesce` then puts the warps along the rows, so each row's reductions stay
    within a warp.

    The pass acts only where the program left the layout to the compiler and the kernel
    is exactly this pattern, and leaves any other launch as it is:
      * every distributed tensor of the launch has a `#layout.auto` layout (or a slice
        of one): the shapes are the compiler's to choose;
      * the block id x is used only as the row coordinate of `layout.tile`s of tile
        `1 x T` (T <= max-row, a power of two) at column 0, of `layout.view`s whose row
        extent is the launch's grid x (the same value, or the same constant); block ids
        y and z are unused;
      * the body is straight-line `arith` / `math` / `layout` compute: tiles, loads,
        stores, splats, expand_dims, broadcasts, reductions and scans along the row,
        column indices (`layout.arange` of a slice along dim 0, the same for every
        row: a layer norm's `cols < N`), constants and elementwise ops (no loops or
        branches, no explicit conversions).
    Rank-2 tensors of one row (1 x K) become R x K, except the results of
    `layout.expand_dims` along axis 0 (a row-invariant vector, a layer norm's weights,
    broadcast over the rows); per-row values (rank-1 slices along dim 1, of shape [1])
    get shape [R]. The shapes are checked op by op first, and the packed launch replaces
    the program's only if it can be built (a packed tile may not fit a nested row mode) and
    verifies; otherwise the launch stays as written.

    Options:
      max-row=N   rows of at most N elements are packed (default 512).
      bytes=B     bytes of its rows each thread should hold at least (default 32: two
                  16-byte vectors, 4 KiB per block of 128 threads).
    """

    name = "pack-rows"

    max_row: int = 512
    bytes: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_row < 1 or self.bytes < 1:
            raise TilecError(f"pack-rows: max-row={self.max_row} and bytes={self.bytes} must be positive")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            rows = self._rows(launch)
            if rows > 1:
                _rewrite_checked(launch, rows)

    def _rows(self, launch: LaunchOp) -> int:
        """R for this launch, 1 when it is not the pattern (or R would be 1)."""
        bx, by, bz = launch.block_ids
        if by.uses or bz.uses:
            return 1
        tiles = []
        for u in bx.uses:
            t = u.operation
            if not (isinstance(t, TileOp) and u.index == 1 and len(t.coords) == 2):
                return 1
            tiles.append(t)
        if not tiles:
            return 1
        width, eb = 0, 0
        for t in tiles:
            sizes = t.tile_sizes
            if sizes[0] != 1 or not is_pow2(sizes[1]) or constant_index(t.coords[1]) != 0:
                return 1
            if not covers_rows(t.source, launch.grid_x):
                return 1
            width = max(width, sizes[1])
            eb = max(eb, element_bytes(t.result.type.element_type))
        if width > self.max_row:
            return 1
        for o in launch.body.block.ops:
            if not _allowed(o):
                return 1
        want = max(launch.num_threads * self.bytes, width * eb)
        rows = pow2_floor(want // (width * eb))
        return rows if rows > 1 and _consistent(launch, rows) else 1


def covers_rows(view: SSAValue, grid_x: SSAValue) -> bool:
    """Whether `view` is a `layout.view` whose row extent (mode 0) is `grid_x`."""
    op = view.owner
    if not isinstance(op, ViewOp):
        return False
    n = views.mode_sizes(op.result.type.cute_layout)[0]
    if n is DYN:
        # the dynamic shape values come first, in mode order: mode 0's is the first
        return len(op.dynamic) > 0 and op.dynamic[0] == grid_x
    return constant_index(grid_x) == n


def _allowed(o: Operation) -> bool:
    if o.regions:
        return False
    for v in (*o.operands, *o.results):
        t = v.type
        if isinstance(t, TensorType) and not is_auto(t.encoding):
            return False
    if isinstance(o, TileOp | LoadOp | StoreOp | SplatOp | ExpandDimsOp | BroadcastOp):
        return True
    if isinstance(o, ArangeOp):
        # a vector of column indices (a slice along dim 0): the same for every row
        t = o.result.type
        return isinstance(t.encoding, SliceLayoutAttr) and t.encoding.dim_index == 0
    if isinstance(o, ReduceOp | lc.ScanOp):
        return o.axis.value.data == 1 and len(o.source.type.get_shape()) == 2
    if isinstance(o, arith.ConstantOp):
        # a tensor constant is re-made with more rows: only a splat can be
        return not isinstance(o.value, DenseIntOrFPElementsAttr) or o.value.is_splat()
    return o.name.startswith(("arith.", "math.")) or o.name in ELEMENTWISE_OPS


def _consistent(launch: LaunchOp, rows: int) -> bool:
    """Whether the shapes `_rewrite` would give still fit together, op by op (a row-
    invariant tensor combined with a row by an elementwise op without a broadcast
    between them would not: such a launch is left alone)."""
    bx = launch.block_ids[0]
    shape: dict[SSAValue, tuple[int, ...]] = {}

    def of(v: SSAValue) -> tuple[int, ...] | None:
        if v in shape:
            return shape[v]
        return tuple(v.type.get_shape()) if isinstance(v.type, TensorType) else None

    for o in launch.body.block.ops:
        keep = isinstance(o, ExpandDimsOp) and o.axis.value.data == 0
        for res in o.results:
            if isinstance(res.type, TensorType):
                shape[res] = tuple(_rows_type(res.type, rows, keep).get_shape())
        ins = [of(v) for v in o.operands if isinstance(v.type, TensorType)]
        outs = [of(v) for v in o.results if isinstance(v.type, TensorType)]
        if isinstance(o, TileOp) or isinstance(o, SplatOp | arith.ConstantOp):
            continue
        if isinstance(o, LoadOp | StoreOp):
            # the tensor has its view's shape: a packed row tile's, or the view's own
            t = o.view.owner
            if isinstance(t, TileOp) and t.coords[0] == bx:
                want = (rows, t.tile_sizes[1])
            else:
                want = tuple(views.mode_sizes(o.view.type.cute_layout))
            if any(x != want for x in ins + outs):
                return False
            continue
        if isinstance(o, BroadcastOp):
            src, res = ins[0], outs[0]
            if len(src) != len(res) or any(a not in (1, b) for a, b in zip(src, res)):
                return False
            continue
        if isinstance(o, ExpandDimsOp):
            ax = o.axis.value.data
            if outs[0] != ins[0][:ax] + (1,) + ins[0][ax:]:
                return False
            continue
        if isinstance(o, ReduceOp):
            if outs[0] != ins[0][:1]:
                return False
            continue
        if len(set(ins + outs)) > 1:  # elementwise
            return False
    return True


def _rows_type(t: Attribute, rows: int, keep: bool) -> Attribute:
    """A tensor type of one row with `rows` rows: 1 x K -> rows x K (unless `keep`), a
    per-row value (a slice along dim 1) of shape [1] -> [rows]."""
    if not isinstance(t, TensorType):
        return t
    shape = list(t.get_shape())
    enc = t.encoding
    if len(shape) == 2 and shape[0] == 1 and not keep:
        shape[0] = rows
    elif len(shape) == 1 and isinstance(enc, SliceLayoutAttr) and enc.dim_index == 1 and shape[0] == 1:
        shape[0] = rows
    else:
        return t
    return TensorType(t.element_type, shape, enc)


def _rewrite_checked(launch: LaunchOp, rows: int) -> None:
    """`_rewrite` on a copy of the launch, which replaces it only if the copy can be
    built (a packed tile of a nested row mode may not divide it: a LayoutError) and every
    op of it verifies (`_consistent` foresees the shapes; this keeps an unforeseen case
    from becoming an error: the launch then stays as written)."""
    twin = launch.clone()
    for a, b in zip(launch.walk(), twin.walk()):
        copy_loc(a, b)
    Rewriter.insert_op(twin, InsertPoint.before(launch))
    added: list[Operation] = []
    try:
        _rewrite(twin, rows, added)
        for o in [*added, *twin.walk()]:
            o.verify(verify_nested_ops=False)
    except (VerifyException, ValueError):  # no packed tile (a LayoutError), or not valid IR: keep the program's
        Rewriter.erase_op(twin)
        for o in reversed(added):
            Rewriter.erase_op(o)
        return
    Rewriter.erase_op(launch)


def _rewrite(launch: LaunchOp, rows: int, added: list[Operation]) -> None:
    """Pack `rows` rows into each block of `launch` in place; the ops inserted before it
    go to `added` as they are made (so that a failure part-way can remove them)."""
    index = IndexType()
    r = arith.ConstantOp(IntegerAttr(rows, index))
    g = arith.CeilDivUIOp(launch.grid_x, r.result)
    copy_loc(launch, r, g)
    Rewriter.insert_op([r, g], InsertPoint.before(launch))
    added.extend((r, g))
    launch.operands = (g.result, *launch.operands[1:])
    bx = launch.block_ids[0]
    for o in list(launch.body.block.ops):
        if isinstance(o, TileOp) and o.coords[0] == bx:
            new = TileOp(o.source, list(o.coords), [rows, o.tile_sizes[1]])
            copy_loc(o, new)
            Rewriter.replace_op(o, new)
            continue
        keep = isinstance(o, ExpandDimsOp) and o.axis.value.data == 0
        for res in list(o.results):
            nt = _rows_type(res.type, rows, keep)
            if nt is res.type:
                continue
            Rewriter.replace_value_with_new_type(res, nt)
            if isinstance(o, arith.ConstantOp) and isinstance(o.value, DenseIntOrFPElementsAttr):
                # a splat (`_allowed`) of the new shape; a constant whose type stays keeps its value
                n = 1
                for x in nt.get_shape():
                    n *= x
                new = DenseIntOrFPElementsAttr.from_list(nt, [o.value.get_values()[0]] * n)  # type: ignore[arg-type]
                (o.properties if "value" in o.properties else o.attributes)["value"] = new
