"""The `cuda` dialect's TMA and mbarrier ops (Hopper, sm_90): the GPU-level form of
`layout.tma_load` / `tma_store` / `mbarrier_*` (dialects/layout_tma.py), each one
PTX instruction (or the loop of one) that the `cuda` target prints as inline PTX.
Per thread, as PTX defines them; `lower-to-gpu` elects thread 0 where one thread
must act for the block.

Host side:

    %map = cuda.tensor_map %buf(%d0, %d1, %s1) {box = array<i64: 64, 64>, swizzle = 128 : i64} : memref<65536xf32>

describes `%buf` as a tensor of dims `d0, d1` (dimension 0 contiguous) with element
strides `s1, ...` of the dimensions after the first, to be copied in boxes of `box`
with a swizzle of 0/32/64/128 bytes: the runtime encodes a `CUtensorMap`
(`cuTensorMapEncodeTiled`) and passes it by value as a `const __grid_constant__`
kernel parameter of type `!cuda.tensor_map`.

Kernel side (`%bar` is a `memref<1xi64, 3>` in shared memory, `%s` a shared buffer):

    cuda.mbarrier_init %bar, 1 : memref<1xi64, 3 : i64>            mbarrier.init
    cuda.mbarrier_arrive_expect_tx %bar, 16384 : ...                mbarrier.arrive.expect_tx
    cuda.mbarrier_expect_tx %bar, %bytes : ...                      mbarrier.expect_tx (a run-time count)
    cuda.tma_load %s, %map, %bar[%x, %y] : memref<4096xf32, 3 : i64>, memref<1xi64, 3 : i64>
                                      cp.async.bulk.tensor.2d.shared::cluster.global.tile
                                      .mbarrier::complete_tx::bytes
    cuda.cp_async_mbarrier_arrive %bar : ...                        cp.async.mbarrier.arrive.noinc
    cuda.mbarrier_wait %bar, %parity : ...                          mbarrier.try_wait.parity loop
    cuda.fence_proxy_async                                          fence.proxy.async.shared::cta
    cuda.tma_store %map[%x, %y], %s : memref<4096xf32, 3 : i64>    cp.async.bulk.tensor ... bulk_group
    cuda.bulk_commit_group                                          cp.async.bulk.commit_group
    cuda.bulk_wait_group_read 0                                     cp.async.bulk.wait_group.read
    cuda.mbarrier_inval %bar : ...                                  mbarrier.inval

In a kernel of thread-block clusters (`tilec.cluster_dims`):

    %r = cuda.cluster_rank                                          mov %cluster_ctarank
    cuda.cluster_sync                                               fence.mbarrier_init.release.cluster,
                                                                    barrier.cluster.arrive.release + wait.acquire
    cuda.mbarrier_arrive_expect_tx %bar, 0 on %cta : ...            mapa.shared::cluster +
                                                                    mbarrier.arrive.shared::cluster
    cuda.tma_load %s, %map, %bar[%x, %y] {multicast = 3 : i64} ...  ... .multicast::cluster, ctaMask
    %p = cuda.map_shared_rank %s on %cta : memref<...> -> memref<...> mapa.u64 (generic ld / st through it)

Programmatic dependent launch (the kernel then launched with the attribute "programmatic
stream serialization", `KernelInfo.programmatic`):

    cuda.griddep_wait                                               griddepcontrol.wait
    cuda.griddep_launch_dependents                                  griddepcontrol.launch_dependents
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.ir import ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .effects import Synchronizes
from .tma import DEFAULT_L2_PROMOTION, L2_PROMOTIONS

MAX_RANK = 5


def _shared(t, what: str, op: str) -> None:
    space = t.memory_space if isinstance(t, MemRefType) else None
    if not (isinstance(space, IntegerAttr) and space.value.data == 3):
        raise VerifyException(f"'{op}' {what} must be a shared-memory memref (memory space 3), got {t}")


def _barrier_word(t, op: str) -> None:
    _shared(t, "barrier", op)
    if not (t.get_shape() == (1,) and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 64):
        raise VerifyException(f"'{op}' barrier must be a memref<1xi64, 3>, got {t}")


@irdl_attr_definition
class TensorMapType(ParametrizedAttribute, TypeAttribute):
    """`!cuda.tensor_map`: a `CUtensorMap` (128 bytes, 64-byte aligned), passed to a
    kernel by value as a `const __grid_constant__` parameter."""

    name = "cuda.tensor_map"


@irdl_op_definition
class TensorMapOp(IRDLOperation):
    """The tensor map of `buffer` with dims and strides `sizes` (rank dims, then
    rank - 1 element strides), boxes `box`, swizzle `swizzle` bytes (host side), and
    the L2 promotion of its loads `l2_promotion` bytes (0, 64, 128 or 256; absent: 128).
    `clip`: each box extent no larger than its dim (`min(box, dim)` when the map is
    encoded): a box of a tensor shorter than it copies the tensor's elements only. `tail`
    (with `clip`): the outermost dim's box the tensor's last box's extent, `(dim - 1) mod box
    + 1` (for the loads of a tensor's last box along it)."""

    name = "cuda.tensor_map"
    buffer = operand_def(MemRefType)
    sizes = var_operand_def(IndexType)
    box = prop_def(DenseArrayBase)
    swizzle = prop_def(IntegerAttr[I64])
    l2_promotion = opt_prop_def(IntegerAttr[I64])
    clip = opt_prop_def(UnitAttr)
    tail = opt_prop_def(UnitAttr)
    result = result_def(TensorMapType)
    assembly_format = "$buffer `(` $sizes `)` attr-dict `:` type($buffer)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        buffer: SSAValue,
        sizes: Sequence[SSAValue],
        box: Sequence[int],
        swizzle: int,
        l2_promotion: int = DEFAULT_L2_PROMOTION,
        clip: bool = False,
        tail: bool = False,
    ):
        props = {"box": DenseArrayBase.from_list(i64, list(box)), "swizzle": IntegerAttr(swizzle, i64)}
        if l2_promotion != DEFAULT_L2_PROMOTION:
            props["l2_promotion"] = IntegerAttr(l2_promotion, i64)
        if clip:
            props["clip"] = UnitAttr()
        if tail:
            props["tail"] = UnitAttr()
        super().__init__(operands=[buffer, list(sizes)], properties=props, result_types=[TensorMapType()])

    @property
    def box_sizes(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.box.get_values())

    @property
    def swizzle_bytes(self) -> int:
        return self.swizzle.value.data

    @property
    def clipped(self) -> bool:
        return self.clip is not None

    def box_of(self, dims: Sequence[int]) -> tuple[int, ...]:
        """The box encoded for a tensor of `dims`: `box`, with `clip` each extent at most its
        dim, with `tail` the outermost the last box's along it."""
        if not self.clipped:
            return self.box_sizes
        box = [min(b, d) for b, d in zip(self.box_sizes, dims)]
        if self.tail is not None:
            box[-1] = (dims[-1] - 1) % self.box_sizes[-1] + 1
        return tuple(box)

    @property
    def l2_promotion_bytes(self) -> int:
        return DEFAULT_L2_PROMOTION if self.l2_promotion is None else self.l2_promotion.value.data

    def verify_(self) -> None:
        rank = len(self.box_sizes)
        if not 1 <= rank <= MAX_RANK:
            raise VerifyException(f"'cuda.tensor_map' box must have 1 to {MAX_RANK} extents, got {rank}")
        if len(self.sizes) != 2 * rank - 1:
            raise VerifyException(
                f"'cuda.tensor_map' of rank {rank} takes {rank} dims and {rank - 1} strides, got "
                f"{len(self.sizes)} sizes"
            )
        if any(not 1 <= b <= 256 for b in self.box_sizes):
            raise VerifyException(f"'cuda.tensor_map' box extents must be in [1, 256], got {list(self.box_sizes)}")
        if self.tail is not None and not self.clipped:
            raise VerifyException("'cuda.tensor_map' tail needs clip")
        if self.swizzle_bytes not in (0, 32, 64, 128):
            raise VerifyException(f"'cuda.tensor_map' swizzle must be 0, 32, 64 or 128, got {self.swizzle_bytes}")
        if self.l2_promotion_bytes not in L2_PROMOTIONS:
            raise VerifyException(
                f"'cuda.tensor_map' l2_promotion must be 0, 64, 128 or 256, got {self.l2_promotion_bytes}"
            )
        if self.buffer.type.get_num_dims() != 1:
            raise VerifyException(f"'cuda.tensor_map' buffer must be a 1-D memref, got {self.buffer.type}")


@irdl_op_definition
class MBarrierInitOp(IRDLOperation):
    """`mbarrier.init.shared::cta.b64 [bar], count`."""

    name = "cuda.mbarrier_init"
    traits = traits_def(Synchronizes())
    bar = operand_def(MemRefType)
    count = prop_def(IntegerAttr[I64])
    assembly_format = "$bar `,` $count attr-dict `:` type($bar)"

    def __init__(self, bar: SSAValue, count: int):
        super().__init__(operands=[bar], properties={"count": IntegerAttr(count, i64)})

    def verify_(self) -> None:
        _barrier_word(self.bar.type, self.name)
        if not 1 <= self.count.value.data < (1 << 20):
            raise VerifyException(f"'{self.name}' count must be in [1, 2^20), got {self.count.value.data}")


@irdl_op_definition
class MBarrierArriveExpectTxOp(IRDLOperation):
    """`mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], tx` (tx 0: a plain arrive).
    With `on %cta` (a cluster rank; tx 0 only): the arrival is on the barrier at `bar`'s
    address in the shared memory of the cluster's block of rank `cta`
    (`mapa.shared::cluster.u32` + `mbarrier.arrive.shared::cluster.b64`)."""

    name = "cuda.mbarrier_arrive_expect_tx"
    traits = traits_def(Synchronizes())
    bar = operand_def(MemRefType)
    cta = opt_operand_def(IndexType)
    tx = prop_def(IntegerAttr[I64])
    assembly_format = "$bar `,` $tx (`on` $cta^)? attr-dict `:` type($bar)"

    def __init__(self, bar: SSAValue, tx: int, cta: SSAValue | None = None):
        super().__init__(operands=[bar, [] if cta is None else [cta]], properties={"tx": IntegerAttr(tx, i64)})

    def verify_(self) -> None:
        _barrier_word(self.bar.type, self.name)
        if not 0 <= self.tx.value.data < (1 << 20):
            raise VerifyException(f"'{self.name}' tx must be in [0, 2^20), got {self.tx.value.data}")
        if self.cta is not None and self.tx.value.data:
            raise VerifyException(f"'{self.name}' on a peer's barrier (on %cta) expects no bytes, "
                                  f"got tx {self.tx.value.data}")


@irdl_op_definition
class MBarrierExpectTxOp(IRDLOperation):
    """`mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes`: `bytes` (an index,
    at most 2^20 - 1) more bytes expected on the current phase, without an arrival."""

    name = "cuda.mbarrier_expect_tx"
    traits = traits_def(Synchronizes())
    bar = operand_def(MemRefType)
    bytes = operand_def(IndexType)
    assembly_format = "$bar `,` $bytes attr-dict `:` type($bar)"

    def __init__(self, bar: SSAValue, nbytes: SSAValue):
        super().__init__(operands=[bar, nbytes])

    def verify_(self) -> None:
        _barrier_word(self.bar.type, self.name)


@irdl_op_definition
class CpAsyncMBarrierArriveOp(IRDLOperation):
    """`cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]`: an arrival of this
    thread on the current phase of `bar`, made once every `cuda.cp_async` the thread
    issued before it has landed (those copies then complete with the phase: a thread
    waiting on it sees them). `.noinc`: the arrival counts against the barrier's
    expected arrivals (its `mbarrier_init` count includes one per thread that arrives
    so), and the thread does not wait."""

    name = "cuda.cp_async_mbarrier_arrive"
    traits = traits_def(Synchronizes())
    bar = operand_def(MemRefType)
    assembly_format = "$bar attr-dict `:` type($bar)"

    def __init__(self, bar: SSAValue):
        super().__init__(operands=[bar])

    def verify_(self) -> None:
        _barrier_word(self.bar.type, self.name)


@irdl_op_definition
class MBarrierWaitOp(IRDLOperation):
    """Loop on `mbarrier.try_wait.parity.shared::cta.b64` until the phase with parity
    `parity` (0 or 1) of `bar` has completed."""

    name = "cuda.mbarrier_wait"
    traits = traits_def(Synchronizes())
    bar = operand_def(MemRefType)
    parity = operand_def(IndexType)
    assembly_format = "$bar `,` $parity attr-dict `:` type($bar)"

    def __init__(self, bar: SSAValue, parity: SSAValue):
        super().__init__(operands=[bar, parity])

    def verify_(self) -> None:
        _barrier_word(self.bar.type, self.name)


@irdl_op_definition
class MBarrierInvalOp(IRDLOperation):
    """`mbarrier.inval.shared::cta.b64 [bar]`."""

    name = "cuda.mbarrier_inval"
    traits = traits_def(Synchronizes())
    bar = operand_def(MemRefType)
    assembly_format = "$bar attr-dict `:` type($bar)"

    def __init__(self, bar: SSAValue):
        super().__init__(operands=[bar])

    def verify_(self) -> None:
        _barrier_word(self.bar.type, self.name)


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """`cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    [dst], [map, {coords}], [bar]`: the box at `coords` (dimension 0 first) into the
    shared buffer `dst` (from its start), completing its bytes on `bar`."""

    name = "cuda.tma_load"
    traits = traits_def(Synchronizes())
    dst = operand_def(MemRefType)
    tensor_map = operand_def(TensorMapType)
    bar = operand_def(MemRefType)
    coords = var_operand_def(IndexType)
    offset = opt_prop_def(IntegerAttr[I64])
    """Elements into `dst` where the box lands (default 0)."""
    multicast = opt_prop_def(IntegerAttr[I64])
    """A mask of cluster ranks (`.multicast::cluster`, the ctaMask): the box lands at
    `dst` (and completes on `bar`) in the shared memory of each of those blocks."""
    assembly_format = "$dst `,` $tensor_map `,` $bar `[` $coords `]` attr-dict `:` type($dst) `,` type($bar)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, dst: SSAValue, tensor_map: SSAValue, bar: SSAValue, coords: Sequence[SSAValue], offset: int = 0,
                 multicast: int | None = None):
        props = {"offset": IntegerAttr(offset, i64)} if offset else {}
        if multicast is not None:
            props["multicast"] = IntegerAttr(multicast, i64)
        super().__init__(operands=[dst, tensor_map, bar, list(coords)], properties=props)

    @property
    def multicast_mask(self) -> int | None:
        return None if self.multicast is None else self.multicast.value.data

    @property
    def element_offset(self) -> int:
        return 0 if self.offset is None else self.offset.value.data

    def verify_(self) -> None:
        _shared(self.dst.type, "destination", self.name)
        _barrier_word(self.bar.type, self.name)
        if not 1 <= len(self.coords) <= MAX_RANK:
            raise VerifyException(f"'{self.name}' takes 1 to {MAX_RANK} coordinates, got {len(self.coords)}")
        if self.multicast is not None and not 0 < self.multicast_mask < (1 << 16):
            raise VerifyException(f"'{self.name}' multicast mask must be in [1, 2^16), got {self.multicast_mask}")


@irdl_op_definition
class TmaStoreOp(IRDLOperation):
    """`cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [map, {coords}],
    [src]`: the shared buffer `src` into the box at `coords`."""

    name = "cuda.tma_store"
    traits = traits_def(Synchronizes())
    tensor_map = operand_def(TensorMapType)
    coords = var_operand_def(IndexType)
    src = operand_def(MemRefType)
    offset = opt_prop_def(IntegerAttr[I64])
    """Elements into `src` where the box starts (default 0)."""
    assembly_format = "$tensor_map `[` $coords `]` `,` $src attr-dict `:` type($src)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, tensor_map: SSAValue, coords: Sequence[SSAValue], src: SSAValue, offset: int = 0):
        props = {"offset": IntegerAttr(offset, i64)} if offset else {}
        super().__init__(operands=[tensor_map, list(coords), src], properties=props)

    @property
    def element_offset(self) -> int:
        return 0 if self.offset is None else self.offset.value.data

    def verify_(self) -> None:
        _shared(self.src.type, "source", self.name)
        if not 1 <= len(self.coords) <= MAX_RANK:
            raise VerifyException(f"'{self.name}' takes 1 to {MAX_RANK} coordinates, got {len(self.coords)}")


@irdl_op_definition
class BulkCommitOp(IRDLOperation):
    """`cp.async.bulk.commit_group`."""

    name = "cuda.bulk_commit_group"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


@irdl_op_definition
class BulkWaitReadOp(IRDLOperation):
    """`cp.async.bulk.wait_group.read pending`: at most `pending` bulk groups of this
    thread still read their shared source."""

    name = "cuda.bulk_wait_group_read"
    traits = traits_def(Synchronizes())
    pending = prop_def(IntegerAttr[I64])
    assembly_format = "$pending attr-dict"

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        if not 0 <= self.pending.value.data <= 7:
            raise VerifyException(f"'{self.name}' pending must be in [0, 7], got {self.pending.value.data}")


@irdl_op_definition
class FenceProxyAsyncOp(IRDLOperation):
    """`fence.proxy.async.shared::cta`: this thread's shared-memory writes become
    visible to the async proxy (the TMA engine)."""

    name = "cuda.fence_proxy_async"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


@irdl_op_definition
class ClusterRankOp(IRDLOperation):
    """`mov.u32 %r, %cluster_ctarank`: this block's rank in its thread-block cluster."""

    name = "cuda.cluster_rank"
    traits = traits_def(Pure())
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class ClusterSyncOp(IRDLOperation):
    """`fence.mbarrier_init.release.cluster`, `barrier.cluster.arrive.release.aligned`,
    `barrier.cluster.wait.acquire.aligned`: every thread of every block of the cluster
    meets here (all threads of a block reach it), the mbarriers initialised before it
    visible to the cluster's blocks after it."""

    name = "cuda.cluster_sync"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


@irdl_op_definition
class MapSharedRankOp(IRDLOperation):
    """`mapa.u64`: the shared buffer `mem` (its generic address) as it lies in the
    shared memory of the cluster's block of rank `cta` (distributed shared memory):
    loads and stores through the result reach that block's buffer (generic `ld` /
    `st`; CUDA's `cluster.map_shared_rank`). Only plain loads and stores may take it
    (`layout.peer_view`'s uses)."""

    name = "cuda.map_shared_rank"
    mem = operand_def(MemRefType)
    cta = operand_def(IndexType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$mem `on` $cta attr-dict `:` type($mem) `->` type($result)"

    def __init__(self, mem: SSAValue, cta: SSAValue):
        super().__init__(operands=[mem, cta], result_types=[mem.type])

    def verify_(self) -> None:
        if self.result.type != self.mem.type:
            raise VerifyException(f"cuda.map_shared_rank's result {self.result.type} must be of its buffer's type "
                                  f"{self.mem.type}")


@irdl_op_definition
class GridDepWaitOp(IRDLOperation):
    """`griddepcontrol.wait`: this thread waits until the grids this one depends on
    (programmatic dependent launch) have completed and their memory is visible; at once
    where the kernel was not launched as a dependent."""

    name = "cuda.griddep_wait"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


@irdl_op_definition
class GridDepLaunchOp(IRDLOperation):
    """`griddepcontrol.launch_dependents`: the stream's next grid, launched as a
    programmatic dependent, may be scheduled once every block of this one has run it
    or exited (a hint: it orders no memory)."""

    name = "cuda.griddep_launch_dependents"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


CUDA_TMA_OPS = [
    GridDepWaitOp,
    GridDepLaunchOp,
    ClusterRankOp,
    ClusterSyncOp,
    MapSharedRankOp,
    TensorMapOp,
    MBarrierInitOp,
    MBarrierArriveExpectTxOp,
    MBarrierExpectTxOp,
    CpAsyncMBarrierArriveOp,
    MBarrierWaitOp,
    MBarrierInvalOp,
    TmaLoadOp,
    TmaStoreOp,
    BulkCommitOp,
    BulkWaitReadOp,
    FenceProxyAsyncOp,
]
CUDA_TMA_TYPES = [TensorMapType]
