"""The `expand-iterators` pass: tile iterators (dialects/layout_iter.py) become positions.

Every iterator value is its origin (a `layout.tiled_iterator` or `layout.buffer_iterator`)
and a position, an index: the origin gives position 0, `layout.iter_next` adds its offset
(1 by default), an `scf.for` that carries an iterator carries its position instead, and
`layout.iter_get` becomes the view ops that take that tile:

    tiled:   layout.tile %src[c_0, .., c_axis + p, ..]        (p mod count if circular)
    buffer:  layout.compose (layout.tile %buf[p] {tile = [cosize]}) {tiler = TILE}

so the tile is checked, masked and lowered exactly as a `layout.tile` written by hand.
`lower-to-gpu` runs this rewrite first; the default pipeline runs it as its first pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import layout
from tilec.dialects import layout_iter as li
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

Origin = li.TiledIteratorOp | li.BufferIteratorOp


@dataclass(frozen=True)
class ExpandIteratorsPass(ModulePass):
    """Rewrite tile iterators into index positions and `layout.tile` / `layout.compose`."""

    name = "expand-iterators"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expand_iterators(op)


def expand_iterators(module: Operation) -> None:
    """Rewrite every iterator of `module` in place (a no-op where there is none)."""
    ops = list(module.walk())
    if not any(isinstance(o, li.ITER_OPS) for o in ops):
        return
    pos: dict[SSAValue, tuple[Origin, SSAValue]] = {}

    def before(op: Operation, new: Operation) -> SSAValue:
        Rewriter.insert_op(new, InsertPoint.before(op))
        copy_loc(op, new)
        return new.results[0]

    def const(op: Operation, n: int) -> SSAValue:
        return before(op, arith.ConstantOp(IntegerAttr(n, IndexType())))

    def of(op: Operation, v: SSAValue) -> tuple[Origin, SSAValue]:
        if v not in pos:
            raise TilecError(f"the iterator {v.name_hint or ''} does not come from "
                             "layout.tiled_iterator or layout.buffer_iterator in this function", op=op)
        return pos[v]

    for op in ops:
        if isinstance(op, Origin):
            pos[op.result] = (op, const(op, 0))
        elif isinstance(op, li.IterNextOp):
            origin, p = of(op, op.iter)
            step = op.offset if op.offset is not None else const(op, 1)
            pos[op.result] = (origin, before(op, arith.AddiOp(p, step)))
        elif isinstance(op, li.IterGetOp):
            origin, p = of(op, op.iter)
            if origin.is_circular:
                p = before(op, arith.RemUIOp(p, const(op, origin.tile_count())))
            _replace_get(op, origin, p, before)
        elif isinstance(op, scf.ForOp):
            _carry_positions(op, pos, of)
        elif isinstance(op, scf.YieldOp) and isinstance(op.parent_op(), scf.ForOp):
            loop = op.parent_op()
            for k, v in enumerate(op.operands):
                if isinstance(v.type, li.IterType):
                    origin, p = of(op, v)
                    if origin is not pos[loop.body.block.args[k + 1]][0]:
                        raise TilecError("an iterator carried through scf.for must stay one iterator "
                                         "(advanced by layout.iter_next)", op=op)
                    op.operands[k] = p
        elif isinstance(op, scf.IfOp | scf.WhileOp) and any(isinstance(r.type, li.IterType) for r in op.results):
            raise TilecError(f"an iterator cannot be a result of {op.name} (carry it through scf.for, "
                             "or advance it with layout.iter_next by a computed offset)", op=op)
    for op in reversed(ops):
        if isinstance(op, li.ITER_OPS) and op.parent is not None:
            if any(r.uses for r in op.results):
                raise TilecError(f"{op.name}: an iterator is used where no position can replace it", op=op)
            Rewriter.erase_op(op)


def _replace_get(op: li.IterGetOp, origin: Origin, p: SSAValue, before) -> None:
    if isinstance(origin, li.TiledIteratorOp):
        coords = list(origin.coords)
        ax = origin.axis_value
        coords[ax] = before(op, arith.AddiOp(coords[ax], p))
        new = layout.TileOp.build(operands=[origin.source, coords], properties={"tile": origin.tile},
                                  result_types=[op.result.type])
    else:
        flat = layout.TileOp(origin.source, [p], [origin.step])
        before(op, flat)
        new = layout.ComposeOp.build(operands=[flat.result], properties={"tiler": origin.tile},
                                     result_types=[op.result.type])
    copy_loc(op, new)
    Rewriter.replace_op(op, new)


def _carry_positions(loop: scf.ForOp, pos: dict, of) -> None:
    """The loop carries the positions of its iterator iter_args (same origin in, out)."""
    body = loop.body.block
    for k, init in enumerate(loop.iter_args):
        if not isinstance(init.type, li.IterType):
            continue
        origin, p = of(loop, init)
        loop.operands[3 + k] = p
        arg = Rewriter.replace_value_with_new_type(body.args[k + 1], IndexType())
        pos[arg] = (origin, arg)
        res = Rewriter.replace_value_with_new_type(loop.results[k], IndexType())
        pos[res] = (origin, res)
