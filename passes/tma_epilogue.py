"""The `tma-epilogue` pass: the stores of wgmma-layout register tensors into global tiles
go through one shared buffer and a TMA store (`stmatrix` into the buffer, one
`cp.async.bulk.tensor` out of it) where the target has TMA and the buffer fits."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects.layout import AllocOp, LaunchOp, StoreOp, TileOp
from tilec.dialects.layout_tma import TmaStoreOp, TmaStoreWaitOp
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._column_chunks import EPILOGUE_ATTR, SWIZZLED_ALIGN, c_buffer_type, consumer_region_end, mma_v3, smem_need, tma_storable, view_bytes


@dataclass(frozen=True)
class TmaEpiloguePass(ModulePass):
    """Stage each store of a wgmma accumulator's values to global memory through a
    shared buffer and the TMA.

    Candidates: `layout.store %v, %t {tilec.tma_epilogue}` without a mask, `%v` a
    tensor in a version-3 `#layout.nvidia_mma` layout (an accumulator, or an elementwise
    epilogue of one), `%t` a `layout.tile` of a global view, in a `layout.launch` whose
    target has TMA (sm_90). The mark is `split-accumulator`'s (also run by
    `software-pipeline` and `warp-specialize`): the stores of a plain loop's
    accumulator, whose epilogue is the compiler's to schedule; a hand-scheduled
    kernel's register epilogue stays one. The pass removes the marks. The candidates of one region (the body of a `layout.warp_specialize`
    role, else of the launch) whose values are all of one shape `[bm, bc]` and element
    type share one shared buffer, a `layout.alloc` `[bm, bc]` NVMMA-swizzled by as many
    bytes as a row has (up to 128) placed after the launch's other shared buffers; each
    store becomes

        layout.tma_store_wait {pending = 0}   // the last TMA store has read the buffer
        layout.store %v, %buf                 // stmatrix
        layout.tma_store %buf, %t             // cp.async.bulk.tensor, whole block

    and the region ends with `layout.tma_store_wait {pending = 0}` (its last store has
    read the buffer before the block exits). Inside a `layout.warp_specialize` role the
    TMA store meets the role's threads at a named barrier (dialects/layout_tma.py).
    The TMA writes the tile's elements inside the tensor only (an edge tile needs no
    mask) and the same values as the register store: results are the same bits.

    Nothing changes in a region where a store's tile is not one the TMA can store
    from the buffer (`tma_plan`), where the values differ in shape or type, or where
    the buffer does not fit beside what the launch asks for once its loops have their
    stages (`_column_chunks.smem_need`: `split-accumulator` splits an accumulator
    into column chunks first where that makes it fit).

    Options:
      enabled=false  leave the stores as they are (the marks removed).
      all=true       take the unmarked candidates too (default false).
    """

    name = "tma-epilogue"

    enabled: bool = True
    all: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            if self.enabled:
                stage_launch(launch, self.all)
            for st in launch.walk():  # the marks are this pass's only
                if isinstance(st, StoreOp):
                    st.attributes.pop(EPILOGUE_ATTR, None)


def _candidate(st: StoreOp, every: bool) -> bool:
    tile = st.view.owner
    return ((every or EPILOGUE_ATTR in st.attributes) and st.mask is None and mma_v3(st.value.type) is not None
            and isinstance(tile, TileOp) and tile.source.type.memory_space == "gmem"
            and len(st.value.type.get_shape()) == 2)


def stage_launch(launch: LaunchOp, every: bool = False) -> int:
    """Stage the candidate stores of `launch` (the pass's docstring; `every`: the
    unmarked ones too); the number staged."""
    tgt = target_of(launch)
    if not tgt.has("tma"):
        return 0
    groups: dict[Region, list[tuple[StoreOp, Operation]]] = {}
    for st in [o for o in launch.walk() if isinstance(o, StoreOp) and _candidate(o, every)]:
        where = consumer_region_end(st)
        if where is not None:
            groups.setdefault(where[1].parent_region(), []).append((st, where[1]))
    done = 0
    for stores in groups.values():
        types = {(tuple(st.value.type.get_shape()), st.value.type.element_type) for st, _ in stores}
        if len(types) != 1:
            continue
        buf_t = c_buffer_type(stores[0][0].value.type)
        if not all(tma_storable(st.view, buf_t) for st, _ in stores):
            continue
        need = -(-view_bytes(buf_t) // SWIZZLED_ALIGN) * SWIZZLED_ALIGN
        if smem_need(launch) + need > tgt.smem_per_block:
            continue
        body = launch.body.block
        allocs = [o for o in body.ops if isinstance(o, AllocOp)]
        buf = AllocOp(buf_t)
        if allocs:
            Rewriter.insert_op(buf, InsertPoint.after(allocs[-1]))
        else:
            Rewriter.insert_op(buf, InsertPoint.at_start(body))
        buf.result.name_hint = "sc"
        ends: set[Block] = set()
        for st, top in stores:
            ends.add(top.parent_block())
            ops = [TmaStoreWaitOp(0), StoreOp(st.value, buf.result), TmaStoreOp(buf.result, st.view)]
            for new in ops:
                Rewriter.insert_op(new, InsertPoint.before(st))
                copy_loc(st, new)
            Rewriter.erase_op(st)
            done += 1
        for block in ends:
            wait = TmaStoreWaitOp(0)
            Rewriter.insert_op(wait, InsertPoint.at_end(block))
    return done
