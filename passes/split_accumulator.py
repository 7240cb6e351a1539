"""The `split-accumulator` pass: a loop's wgmma accumulation of a `bm x bn` tile, stored
to global memory after an elementwise epilogue, becomes `bn / bc` accumulations of
`bm x bc` column chunks, so that a shared C buffer of one chunk fits beside the loop's
ring of stages (`tma-epilogue` then stores each chunk through it)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, ModuleOp, TensorType, UnitAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects.layout import LaunchOp, StoreOp, TileOp
from tilec.dialects.layout_attrs import element_bytes
from tilec.dialects.layout_mma import MmaOp
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._column_chunks import (
    CHUNK_QUANTUM,
    EPILOGUE_ATTR,
    AccumulatorSplit,
    c_buffer_type,
    chunk_type,
    loop_splits,
    smem_need,
    tma_storable,
)
from ._gpu_builder import index as _index_type
from ._pipeline_plan import STAGES_ATTR


@dataclass(frozen=True)
class SplitAccumulatorPass(ModulePass):
    """Split each qualifying wgmma accumulation of a `layout.launch` along N into column
    chunks.

    Qualifying (`_column_chunks.AccumulatorSplit`): an `scf.for` slot carrying a
    version-3 `#layout.nvidia_mma` tensor `[bm, bn]` from a splat constant, updated by
    one synchronous `layout.mma %a, %b, %acc` (B a shared view `[bk, bn]`) that is
    yielded as it is; after the loop only elementwise `arith`/`math` ops of `[bm, bn]`
    tensors (their other operands splat constants) and unmasked `layout.store`s of
    their values into `layout.tile`s `[bm, bn]` of global views, all in the loop's
    block. Anything else is left alone.

    With `bc` columns a chunk (`nch = bn / bc`): the slot becomes `nch` slots
    `[bm, bc]` (instrShape N `min(N, bc)`), each from the splat, each step's mma
    becomes `nch` mmas on the same A and on `layout.tile %b[0, c] {tile = [bk, bc]}`
    (chunk c's columns of the B buffer, which one TMA load still fills; wgmma reads the
    view through its descriptor), the epilogue ops are cloned per chunk and each
    store writes `layout.tile %C[x, y * nch + c] {tile = [bm, bc]}`. The products and
    sums of every element are the ones of the unsplit loop, in the same order:
    results are the same bits.

    Options:
      columns=0   auto (the default): split only on a target with TMA (sm_90), each
                  store's tile one the TMA can store from an NVMMA-swizzled shared buffer,
                  when a `bm x bn` C buffer does not fit in the block's shared memory
                  beside what the launch asks for once its loops have their stages
                  (`_column_chunks.smem_need`: the ring); then `bc` is the largest
                  multiple of 64 below `bn` dividing it whose `bm x bc` buffer fits.
                  Nothing changes where the full buffer fits or no chunk does.
      columns=N   split into chunks of N columns wherever N (a multiple of 64 below
                  bn) divides bn; other accumulations are left alone.
      enabled=false  leave the IR alone.

    On a target with TMA the stores of each qualifying accumulation (split or not) get
    `{tilec.tma_epilogue}`: the epilogue of a plain loop, the compiler's to schedule,
    which `tma-epilogue` stages through shared memory (hand-scheduled kernels' stores
    carry no such mark and keep their epilogue).
    """

    name = "split-accumulator"

    columns: int = 0
    enabled: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.enabled:
            return
        if self.columns < 0 or self.columns % CHUNK_QUANTUM:
            raise TilecError(f"split-accumulator: columns must be 0 (auto) or a multiple of {CHUNK_QUANTUM}, "
                             f"got {self.columns}")
        split_launches(op, self.columns)


def split_launches(root: Operation, columns: int = 0) -> int:
    """Split the qualifying accumulations of each `layout.launch` under `root` (the
    pass's docstring; `columns` 0: auto); the number split."""
    return sum(split_launch(launch, columns=columns) for launch in [o for o in root.walk() if isinstance(o, LaunchOp)])


def split_launch(launch: LaunchOp, stages: int = 0, columns: int = 0) -> int:
    """`split_launches` of one launch; `stages` > 0: the depth its loops will have where
    they ask for none (`warp-specialize{num_stages}`), which the auto choice counts."""
    done = 0
    tma = target_of(launch).has("tma")
    for s in loop_splits(launch):
        if stages and STAGES_ATTR not in s.loop.attributes:
            s.loop.attributes[STAGES_ATTR] = IntegerAttr(stages, i64)
        bc = columns or auto_columns(s, launch)
        bm, bn = s.shape
        stores = s.stores
        if bc and bc < bn and bn % bc == 0 and bc % CHUNK_QUANTUM == 0:
            stores = split(s, bc)
            done += 1
        if tma:  # the compiler's epilogue to choose: tma-epilogue's to take
            for st in stores:
                st.attributes[EPILOGUE_ATTR] = UnitAttr()
    return done


def auto_columns(s: AccumulatorSplit, launch: LaunchOp) -> int | None:
    """The chunk width `columns=0` picks for `s` (the pass's docstring), or None."""
    tgt = target_of(launch)
    if not tgt.has("tma"):
        return None
    bm, bn = s.shape
    eb = max(element_bytes(st.value.type.element_type) for st in s.stores)
    if not all(tma_storable(st.view, c_buffer_type(st.value.type)) for st in s.stores):
        return None
    room = tgt.smem_per_block - smem_need(launch)
    if bm * bn * eb <= room:
        return None
    for bc in range(bn - CHUNK_QUANTUM, 0, -CHUNK_QUANTUM):
        if bn % bc == 0 and bm * bc * eb <= room:
            return bc
    return None


def index(v: int) -> arith.ConstantOp:
    """An `arith.constant` of `index` type."""
    return arith.ConstantOp.from_int_and_width(v, _index_type)


def _splat_like(c: arith.ConstantOp, t: TensorType) -> arith.ConstantOp:
    v = c.value.get_values()[0]
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [v]))


def split(s: AccumulatorSplit, bc: int) -> list[StoreOp]:
    """Split `s` into chunks of `bc` columns (the pass's docstring); the chunks' stores."""
    loop, slot, mma = s.loop, s.slot, s.mma
    bm, bn = s.shape
    nch = bn // bc
    t = chunk_type(loop.results[slot].type, bc)
    body = loop.body.block
    y = body.last_op
    assert isinstance(y, scf.YieldOp)

    def before(anchor: Operation, op: Operation) -> Operation:
        Rewriter.insert_op(op, InsertPoint.before(anchor))
        copy_loc(anchor, op)
        return op

    inits = [before(loop, _splat_like(s.init, t)).results[0] for _ in range(nch)]
    for v in inits:
        v.name_hint = s.init.results[0].name_hint
    args = [body.insert_arg(t, len(body.args)) for _ in range(nch)]
    bk = mma.b.type.shape[0]
    c0 = before(mma, index(0)).results[0]
    outs = []
    for c, a in enumerate(args):
        a.name_hint = body.args[1 + slot].name_hint
        cc = c0 if c == 0 else before(mma, index(c)).results[0]
        view = before(mma, TileOp(mma.b, [c0, cc], [bk, bc])).results[0]
        d = before(mma, MmaOp(mma.a, view, a)).results[0]
        d.name_hint = mma.result.name_hint
        outs.append(d)
    keep = [i for i in range(len(loop.iter_args)) if i != slot]
    y.operands = [*(y.operands[i] for i in keep), *outs]
    Rewriter.erase_op(mma)
    body.erase_arg(body.args[1 + slot])
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [*(loop.iter_args[i] for i in keep), *inits],
                    loop.detach_region(loop.body))
    new.attributes.update(loop.attributes)
    before(loop, new)
    for k, i in enumerate(keep):
        loop.results[i].replace_all_uses_with(new.results[k])
        new.results[k].name_hint = loop.results[i].name_hint
    chunks = list(new.results[len(keep):])
    for v in chunks:
        v.name_hint = loop.results[slot].name_hint
    old = loop.results[slot]
    nchv = None
    new_stores: list[StoreOp] = []
    for c, r in enumerate(chunks):
        vmap: dict[SSAValue, SSAValue] = {old: r}
        for op in s.chain:
            ops = []
            for o in op.operands:
                if o in vmap:
                    ops.append(vmap[o])
                else:  # a splat constant
                    ct = chunk_like(o.type, bc)
                    ops.append(before(s.stores[0], _splat_like(o.owner, ct)).results[0])
            new_op = before(s.stores[0], type(op).create(
                operands=ops, result_types=[chunk_like(res.type, bc) for res in op.results],
                properties=dict(op.properties), attributes=dict(op.attributes)))
            for res, nres in zip(op.results, new_op.results):
                vmap[res] = nres
                nres.name_hint = res.name_hint
        for st in s.stores:
            tile = st.view.owner
            assert isinstance(tile, TileOp)
            x, yb = tile.coords
            if nchv is None:
                nchv = before(st, index(nch)).results[0]
            ycol = before(st, arith.MuliOp(yb, nchv)).results[0]
            if c:
                ycol = before(st, arith.AddiOp(ycol, before(st, index(c)).results[0])).results[0]
            nt = before(st, TileOp(tile.source, [x, ycol], [bm, bc])).results[0]
            nt.name_hint = tile.result.name_hint
            new_stores.append(before(st, StoreOp(vmap[st.value], nt)))
    for st in s.stores:
        tile = st.view.owner
        Rewriter.erase_op(st)
        if not tile.result.uses:
            Rewriter.erase_op(tile)
    splats = {o.owner for op in s.chain for o in op.operands if isinstance(o.owner, arith.ConstantOp)}
    for op in reversed(s.chain):
        Rewriter.erase_op(op)
    for c in splats:
        if not c.result.uses:
            Rewriter.erase_op(c)
    Rewriter.erase_op(loop)
    if not s.init.result.uses:
        Rewriter.erase_op(s.init)
    return new_stores


def chunk_like(t, bc: int):
    """Tensor type `t` (`[bm, bn]`) of `bc` columns, a wgmma layout narrowed with it."""
    from ._column_chunks import mma_v3

    if mma_v3(t) is not None:
        return chunk_type(t, bc)
    return TensorType(t.element_type, [t.get_shape()[0], bc], t.encoding)
