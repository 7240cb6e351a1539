"""The facts `split-accumulator` and `tma-epilogue` decide by (not a pass): which loop
accumulates a wgmma accumulator that is stored to global memory after an elementwise
epilogue (`AccumulatorSplit`), the shared memory a launch asks for once its loops'
stages are made (`smem_need`), the shared C buffer of a TMA epilogue (`c_buffer_type`)
and whether the TMA can store a tile from it (`tma_storable`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation, SSAValue

from tilec.dialects.errors import LayoutError
from tilec.dialects.layout import DERIVED_VIEW_OPS, AllocOp, LaunchOp, StoreOp, TileOp
from tilec.dialects.layout_attrs import TensorViewType, element_bytes
from tilec.dialects.layout_mma import MmaOp
from tilec.dialects.layout_roles import WarpSpecializeOp
from tilec.dialects.layout_tma import MBarrierInitOp, tma_plan
from tilec.dialects.mma import NvidiaMmaLayout, NvmmaSharedLayout
from tilec.dialects.mma_layouts import NvidiaMmaLayoutAttr

from ._pipeline_plan import STAGES_ATTR, stages_of

EPILOGUE_ATTR = "tilec.tma_epilogue"
"""The mark `split-accumulator` puts on the stores of a plain loop's accumulator (the
compiler's epilogue to schedule), which `tma-epilogue` takes."""

SWIZZLED_ALIGN = 1024
"""Bytes a 128-byte-swizzled shared buffer starts on (each buffer is counted rounded
up to it: the budget errs on the side of fitting less)."""

CHUNK_QUANTUM = 64
"""Column chunks are multiples of this many columns (one 128-byte swizzle row of
16-bit elements: a chunk of the B buffer is a whole number of its NVMMA tiles)."""


def mma_v3(t) -> NvidiaMmaLayout | None:
    """The version-3 (wgmma) `#layout.nvidia_mma` of tensor type `t`, or None."""
    enc = getattr(t, "encoding", None) if isinstance(t, TensorType) else None
    if isinstance(enc, NvidiaMmaLayoutAttr) and enc.data.version == 3:
        return enc.data
    return None


def chunk_type(t: TensorType, bc: int) -> TensorType:
    """`t` ([bm, bn], a wgmma layout) narrowed to `bc` columns, its instruction's N with it."""
    lay = mma_v3(t)
    assert lay is not None
    m, n, k = lay.instr_shape
    enc = NvidiaMmaLayoutAttr(NvidiaMmaLayout(3, lay.warps_per_cta, [m, min(n, bc), k]))
    return TensorType(t.element_type, [t.get_shape()[0], bc], enc)


@dataclass
class AccumulatorSplit:
    """A loop-carried wgmma accumulator `[bm, bn]` (slot `slot` of `loop`), started from
    a splat constant (`init`), updated by one `layout.mma` (`mma`, whose B operand is a
    shared view `[bk, bn]`) yielded as it is; after the loop, the elementwise ops
    `chain` (in block order, each of whose operands is the loop's result, another op
    of the chain or a splat constant) and the `stores` of chain values (or of the
    result) into `layout.tile`s `[bm, bn]` of global views."""

    loop: scf.ForOp
    slot: int
    init: arith.ConstantOp
    mma: MmaOp
    chain: list[Operation]
    stores: list[StoreOp]

    @property
    def shape(self) -> tuple[int, int]:
        m, n = self.loop.results[self.slot].type.get_shape()
        return m, n


def _splat_constant(v: SSAValue) -> arith.ConstantOp | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr) and op.value.is_splat():
        return op
    return None


def _elementwise(op: Operation, shape: tuple[int, int]) -> bool:
    """An arith or math op on tensors of `shape`, each result such a tensor."""
    if not op.name.startswith(("arith.", "math.")) or isinstance(op, arith.ConstantOp) or op.regions:
        return False
    return bool(op.results) and all(isinstance(r.type, TensorType) and tuple(r.type.get_shape()) == shape
                                    for r in op.results)


def find_split(loop: scf.ForOp, slot: int) -> AccumulatorSplit | None:
    """The `AccumulatorSplit` of slot `slot` of `loop`, or None where the slot is not one
    (the class docstring says what it must be)."""
    r = loop.results[slot]
    t = r.type
    if mma_v3(t) is None or len(t.get_shape()) != 2:
        return None
    shape = tuple(t.get_shape())
    init = _splat_constant(loop.iter_args[slot])
    body = loop.body.block
    arg = body.args[1 + slot]
    y = body.last_op
    if init is None or not isinstance(y, scf.YieldOp) or len(list(arg.uses)) != 1:
        return None
    mma = next(iter(arg.uses)).operation
    if not isinstance(mma, MmaOp) or mma.acc is not arg or mma.parent_block() is not body or mma.is_async:
        return None
    if [u.operation for u in mma.result.uses] != [y] or y.operands[slot] is not mma.result:
        return None
    b = mma.b.type
    if not isinstance(b, TensorViewType) or b.memory_space != "smem" or len(b.shape) != 2 or b.shape[1] != shape[1]:
        return None
    chain: list[Operation] = []
    stores: list[StoreOp] = []
    values = {r}
    pending = [r]
    while pending:
        v = pending.pop()
        for use in list(v.uses):
            op = use.operation
            if op in chain or op in stores:
                continue
            if op.parent_block() is not loop.parent_block():
                return None
            if isinstance(op, StoreOp):
                tile = op.view.owner
                if (op.value is not v or op.mask is not None or not isinstance(tile, TileOp)
                        or tile.source.type.memory_space != "gmem" or len(tile.coords) != 2
                        or tuple(tile.tile.get_values()) != shape):
                    return None
                stores.append(op)
                continue
            if not _elementwise(op, shape):
                return None
            for o in op.operands:
                if o not in values and _splat_constant(o) is None:
                    return None
            chain.append(op)
            for res in op.results:
                values.add(res)
                pending.append(res)
    if not stores:
        return None
    block_order = {op: i for i, op in enumerate(loop.parent_block().ops)}
    chain.sort(key=lambda op: block_order[op])
    return AccumulatorSplit(loop, slot, init, mma, chain, stores)


def loop_splits(root: Operation) -> list[AccumulatorSplit]:
    """Every `AccumulatorSplit` under `root`."""
    out = []
    for op in root.walk():
        if isinstance(op, scf.ForOp):
            for i in range(len(op.iter_args)):
                if (s := find_split(op, i)) is not None:
                    out.append(s)
    return out


def view_bytes(t: TensorViewType) -> int:
    return t.cute_layout.cosize() * t.vector_size * element_bytes(t.element_type)


def _staged_loop_of(op: Operation, launch: Operation) -> int:
    """The stages asked of the innermost loop around `op` that asks for some (1: none)."""
    p = op.parent_op()
    while p is not None and p is not launch:
        if isinstance(p, scf.ForOp) and STAGES_ATTR in p.attributes:
            return max(1, stages_of(p, 1))
        p = p.parent_op()
    return 1


def smem_need(launch: LaunchOp) -> int:
    """The bytes of shared memory `launch` asks for once each loop asking for stages
    (`tilec.num_stages`) has them: each shared `layout.alloc` of the launch (rounded up
    to `SWIZZLED_ALIGN`) times the stages of the loops its views are used in, and 8
    bytes per mbarrier (times its loop's stages), rounded up likewise."""
    def users(v: SSAValue):
        for u in v.uses:
            op = u.operation
            if isinstance(op, DERIVED_VIEW_OPS):
                yield from users(op.results[0])
            else:
                yield op

    total = 0
    bars = 0
    for op in launch.walk():
        if isinstance(op, AllocOp) and op.result.type.memory_space == "smem":
            n = max([_staged_loop_of(u, launch) for u in users(op.result)] or [1])
            total += n * -(-view_bytes(op.result.type) // SWIZZLED_ALIGN) * SWIZZLED_ALIGN
        elif isinstance(op, MBarrierInitOp):
            n = max([_staged_loop_of(u.operation, launch) for u in op.results[0].uses] or [1])
            bars += 8 * n
    return total + -(-bars // SWIZZLED_ALIGN) * SWIZZLED_ALIGN


def c_buffer_type(t: TensorType, bc: int | None = None) -> TensorViewType:
    """The shared C buffer of a TMA epilogue for a `[bm, bc]` tile of `t`'s elements:
    NVMMA-swizzled by as many bytes as a row holds, up to 128 (as `gemm_hopper_ws`'s)."""
    from tilec.dialects.layout_attrs import ComposedLayoutAttr

    bm, bn = t.get_shape()
    bc = bc or bn
    eb = element_bytes(t.element_type)
    lay = NvmmaSharedLayout(min(128, bc * eb), 8 * eb).composed([bm, bc])
    return TensorViewType(t.element_type, ComposedLayoutAttr(lay), "smem")


def tma_storable(tile: SSAValue, buf: TensorViewType) -> bool:
    """Whether the TMA stores global tile `tile` from a `layout.alloc` of type `buf`."""
    try:
        tma_plan(tile, AllocOp(buf).result)
    except (LayoutError, ValueError):
        return False
    return True


def consumer_region_end(op: Operation) -> tuple[Operation, Operation] | None:
    """The op whose region holds `op` as it ends (the `layout.warp_specialize` role or the
    `layout.launch` body around `op`) and the op of that region's block `op` is in."""
    child = op
    p = op.parent_op()
    while p is not None:
        if isinstance(p, (WarpSpecializeOp, LaunchOp)):
            return p, child
        child = p
        p = p.parent_op()
    return None
