"""The `chunk-rows` pass: a loop over chunks for a row-wise kernel whose rows are longer than registers hold."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import layout_compute as lc
from tilec.dialects import views
from tilec.dialects.auto_layout import is_auto
from tilec.dialects.layout import (
    BroadcastOp,
    ExpandDimsOp,
    LaunchOp,
    LoadOp,
    ReduceOp,
    SplatOp,
    StoreOp,
    TileOp,
)
from tilec.dialects.layout_attrs import SliceLayoutAttr
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._analysis import DYN, constant_index, is_pow2
from .pack_rows import ELEMENTWISE_OPS, covers_rows

_COMBINE = {
    ("add", True): arith.AddfOp, ("mul", True): arith.MulfOp,
    ("max", True): arith.MaximumfOp, ("min", True): arith.MinimumfOp,
    ("add", False): arith.AddiOp, ("mul", False): arith.MuliOp,
    ("max", False): arith.MaxSIOp, ("min", False): arith.MinSIOp,
}
"""The combiner of a scan kind, for float and integer elements."""


@dataclass(frozen=True)
class ChunkRowsPass(ModulePass):
    """Turn a row-wise kernel whose row tile is longer than registers hold into a loop over chunks, scans carried.

    A row-wise kernel as a user writes it (a cumsum, a scaled copy): block b takes row b
    of its views, `layout.tile %v[%bx, %c0] {tile = array<i64: 1, T>}` over a grid of as
    many blocks as the views have rows, with T the row's length rounded up to a power of
    two. When T is above `max-row` a thread would hold T / threads elements (a row of
    131072 f32 over 512 threads: 256 registers each, spilled); this pass makes the body a
    loop over chunks of C = `chunk` elements instead: `scf.for %j = 0 to K` with tiles
    `[%bx, %j]` of 1 x C (K = ceil(N / C) for a static row length N, else T / C), every
    row tensor 1 x C. A `layout.scan` along the row carries the combination (add, mul,
    max, min) of the chunks before it: the chunk's scan combined with the carried value
    broadcast over the chunk, and the carry combined with the chunk's reduction for the
    next trip (so a cumsum reads and writes the row once). Elements past the row fall in
    the tiles' mask, as in the program.

    The pass acts only where the program left the layouts to the compiler (every tensor
    `#layout.auto`) and the kernel is exactly this pattern, and leaves any other launch
    as it is: block id x used only as the row coordinate of `1 x T` tiles at column 0
    (T a power of two, a multiple of C, above max-row) of views whose row extent is the
    grid's x; block ids y and z unused; a straight-line body of tiles, loads, stores,
    splats, splat constants, elementwise `arith` / `math` ops and scans along the row.
    A reduction makes the kernel another algorithm in chunks (an online softmax's
    running max and rescaled sum, a norm's statistics before its outputs): those loops
    are the program's to write (examples/python/row_kernels.py), not this pass's.

    Options:
      max-row=N   rows tiles of more than N elements are chunked (default 16384).
      chunk=C     elements per chunk, a power of two (default 4096).
    """

    name = "chunk-rows"

    max_row: int = 16384
    chunk: int = 4096

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not is_pow2(self.chunk) or self.max_row < self.chunk:
            raise TilecError(f"chunk-rows: chunk={self.chunk} must be a power of two "
                             f"and at most max-row={self.max_row}")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            chunks = self._chunks(launch)
            if chunks:
                _rewrite(launch, self.chunk, chunks)

    def _chunks(self, launch: LaunchOp) -> int:
        """K, the trips of the loop over chunks, or 0 where the launch is not the pattern."""
        bx, by, bz = launch.block_ids
        if by.uses or bz.uses or not bx.uses:
            return 0
        width, n = 0, 0
        for u in bx.uses:
            t = u.operation
            if not (isinstance(t, TileOp) and u.index == 1 and len(t.coords) == 2):
                return 0
            sizes = t.tile_sizes
            if sizes[0] != 1 or not is_pow2(sizes[1]) or constant_index(t.coords[1]) != 0:
                return 0
            if not covers_rows(t.source, launch.grid_x):
                return 0
            if width and sizes[1] != width:
                return 0
            width = sizes[1]
            cols = views.mode_sizes(t.source.type.cute_layout)[1]
            n = max(n, width if cols is DYN else min(int(cols), width))
        if width <= self.max_row or width % self.chunk:
            return 0
        body = launch.body.block
        for o in body.ops:
            if not _allowed(o, bx):
                return 0
        return -(-n // self.chunk)


def _allowed(o: Operation, bx: SSAValue) -> bool:
    if o.regions:
        return False
    for v in (*o.operands, *o.results):
        t = v.type
        if isinstance(t, TensorType) and not is_auto(t.encoding):
            return False
        if isinstance(t, TensorType) and len(t.get_shape()) != 2:
            return False  # every tensor is a row (1 x T): no vectors of the row's length, no per-row values
    if isinstance(o, TileOp):
        return bx in o.coords
    if isinstance(o, LoadOp | StoreOp | SplatOp):
        return True
    if isinstance(o, lc.ScanOp):
        return o.axis.value.data == 1 and not o.is_reverse
    if isinstance(o, arith.ConstantOp):
        return not isinstance(o.value, DenseIntOrFPElementsAttr) or o.value.is_splat()
    if isinstance(o, ReduceOp | ExpandDimsOp | BroadcastOp):
        return False
    return o.name.startswith(("arith.", "math.")) or o.name in ELEMENTWISE_OPS


def _chunk_type(t: Attribute, chunk: int) -> Attribute:
    if isinstance(t, TensorType) and len(t.get_shape()) == 2:
        return TensorType(t.element_type, [1, chunk], t.encoding)
    return t


def _identity(kind: str, elem: Attribute) -> int | float:
    is_float = not isinstance(elem, IntegerType)
    if kind == "add":
        return 0.0 if is_float else 0
    if kind == "mul":
        return 1.0 if is_float else 1
    if is_float:
        return float("-inf") if kind == "max" else float("inf")
    bits = elem.width.data
    return -(1 << (bits - 1)) if kind == "max" else (1 << (bits - 1)) - 1


def _rewrite(launch: LaunchOp, chunk: int, chunks: int) -> None:
    body = launch.body.block
    bx = launch.block_ids[0]
    scans = [o for o in body.ops if isinstance(o, lc.ScanOp)]
    index = IndexType()
    lo, hi, one = (arith.ConstantOp(IntegerAttr(v, index)) for v in (0, chunks, 1))
    inits: list[Operation] = []
    for s in scans:
        t: TensorType = s.result.type
        rows = SliceLayoutAttr(IntAttr(1), t.encoding)
        elem = t.element_type
        value = _identity(s.kind.data, elem)
        attr = FloatAttr(value, elem) if not isinstance(elem, IntegerType) else IntegerAttr(value, elem)
        c = arith.ConstantOp(attr)
        inits += [c, SplatOp.create(operands=[c.result], result_types=[TensorType(elem, [1], rows)])]
    moved = list(body.ops)
    pre = [lo, hi, one, *inits]
    copy_loc(launch, *pre)
    Rewriter.insert_op(pre, InsertPoint.at_start(body))
    carried = [inits[2 * k + 1].results[0] for k in range(len(scans))]
    loop_block = Block(arg_types=[index, *(c.type for c in carried)])
    j, carries = loop_block.args[0], list(loop_block.args[1:])
    for o in moved:
        o.detach()
        loop_block.add_op(o)
    loop = scf.ForOp(lo.result, hi.result, one.result, carried, [loop_block])
    copy_loc(launch, loop)
    Rewriter.insert_op(loop, InsertPoint.at_end(body))
    yields: list[SSAValue] = []
    for o in list(loop_block.ops):
        if isinstance(o, TileOp) and o.coords[0] == bx:
            new = TileOp(o.source, [bx, j], [1, chunk])
            copy_loc(o, new)
            Rewriter.replace_op(o, new)
            continue
        for res in list(o.results):
            nt = _chunk_type(res.type, chunk)
            if nt != res.type:
                Rewriter.replace_value_with_new_type(res, nt)
        if isinstance(o, arith.ConstantOp) and isinstance(o.value, DenseIntOrFPElementsAttr):
            nt = o.result.type
            if nt != o.value.type:
                splat = [o.value.get_values()[0]] * chunk
                new_attr = DenseIntOrFPElementsAttr.from_list(nt, splat)  # type: ignore[arg-type]
                (o.properties if "value" in o.properties else o.attributes)["value"] = new_attr
    for k, s in enumerate(scans):
        t: TensorType = s.result.type
        kind = s.kind.data
        combine = _COMBINE[(kind, not isinstance(t.element_type, IntegerType))]
        rows_t = carries[k].type
        red = ReduceOp.create(operands=[s.source], result_types=[rows_t],
                              properties={"axis": IntegerAttr(1, 64), "kind": StringAttr(kind)})
        col = ExpandDimsOp.create(operands=[carries[k]], result_types=[TensorType(t.element_type, [1, 1], t.encoding)],
                                  properties={"axis": IntegerAttr(1, 64)})
        over = BroadcastOp.create(operands=[col.results[0]], result_types=[t])
        total = combine(s.result, over.results[0])
        nxt = combine(carries[k], red.results[0])
        new = [red, col, over, total, nxt]
        copy_loc(s, *new)
        Rewriter.insert_op(new, InsertPoint.after(s))
        s.result.replace_uses_with_if(total.result, lambda u, total=total: u.operation is not total)
        yields.append(nxt.result)
    y = scf.YieldOp(*yields)
    copy_loc(launch, y)
    loop_block.add_op(y)
