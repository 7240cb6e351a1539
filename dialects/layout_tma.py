"""TMA bulk tensor copies and the mbarriers they complete on (Hopper, sm_90), as Gluon's
`hopper.tma` / `mbarrier` and CuTe's `SM90_TMA_LOAD` use them.

    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.mbarrier_arrive %bar {tx = 16384 : i64}
    layout.tma_load %tile, %smem, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    ...
    layout.tma_store %smem, %tile : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar

A pipeline of S stages keeps one mbarrier per stage in an array and picks the
stage's barrier at run time (CUTLASS's `PipelineState`, Triton's barrier arrays):

    %bars = layout.mbarrier_array {count = 1 : i64, stages = 4 : i64}
    %b = layout.mbarrier_at %bars[%stage] : !layout.mbarriers<4>
    layout.mbarrier_wait %b, %phase

These ops are *block-collective*: every thread of the block reaches them (uniform
control flow, as `layout.barrier`), and what they do happens once per block (the
lowering elects one thread to issue the copy or arrive):

- `mbarrier_init {count}` makes a barrier in shared memory whose phases complete
  after `count` arrivals and the transaction bytes expected of them; its phase 0
  is the current one. The barrier is visible to the block afterwards.
- `mbarrier_arrive %bar {tx}` is one arrival on the current phase that also
  expects `tx` more bytes of copies (`mbarrier.arrive.expect_tx`).
- `tma_load %g, %s, %bar` copies a global tile into a shared buffer
  asynchronously (`cp.async.bulk.tensor`, `mbarrier::complete_tx::bytes`): the
  destination may be read only after an `mbarrier_wait` on the phase it completes.
  Box elements outside the tensor (a masked tile at an edge) are written as zero;
  a box wholly outside (a tile past the end, masked or not: the last round of a ring
  whose steps overrun K) is all zeros, its bytes still counted on `bar`.
- `cp_async_load %g, %s, %bar` copies a global tile into a shared buffer as
  `tma_load` does (element for element, zeros outside the tensor), but by 16-byte
  `cp.async` of every thread that runs it (the block, or the `warp_specialize`
  region), each thread then arriving once on `bar` when its copies have landed
  (`cp.async.mbarrier.arrive.noinc`): `bar`'s count includes one arrival per such
  thread, and its phase expects no bytes of this copy. For rows the TMA reads slowly.
- `mbarrier_wait %bar, %phase` waits until the phase with parity `phase` (0 or 1)
  has completed: all its arrivals made and all the bytes they expected copied.
- `tma_store %s, %g` copies a shared buffer into a global tile
  (`cp.async.bulk.tensor` shared::cta -> global, one bulk group): it orders the
  block's earlier writes of the buffer first (`fence.proxy.async` and a barrier);
  box elements outside the tensor are not written (of a box wholly outside: none).
  The buffer must not be written again before a `tma_store_wait` covers the store.
- `tma_store_wait {pending = N}` waits until at most N of the block's stores are
  still reading shared memory, then the block meets at a barrier.
- `mbarrier_inval %bar` ends the barrier's life (its memory may be reused).
- `mbarrier_array {count, stages}` makes `stages` such barriers at once (consecutive
  8-byte words of shared memory), each as `mbarrier_init {count}` makes one.
- `mbarrier_at %bars[%i]` is barrier `i` of an array (0 <= i < stages, the same in
  every thread of the block): the ops above take it as they take a single one.

In a launch of thread-block clusters (`tilec.cluster_dims = C`, support/launch_bounds.py:
C consecutive blocks along x, resident at once), the blocks of a cluster reach each
other's barriers and shared buffers:

- `cluster_rank` is the block's rank in its cluster (0 .. C - 1; CUDA's `%cluster_ctarank`).
- `cluster_sync` is a barrier of every thread of every block of the cluster
  (`barrier.cluster.arrive.release` + `wait.acquire`), preceded by
  `fence.mbarrier_init.release.cluster`: the cluster's mbarriers initialised before it
  are visible to its peers after it. A block may use a peer's barrier or buffer only
  after a `cluster_sync` that follows the barrier's initialisation, and must not exit
  while a peer may still reach it: a `cluster_sync` after its last such use.
- `mbarrier_arrive %bar on %cta` arrives on the barrier `bar` of the cluster's block of
  rank `cta` (the same barrier, in that block's shared memory: `mapa` +
  `mbarrier.arrive.shared::cluster`), as CUTLASS's `ClusterBarrier::arrive(cta_id)`.
- `tma_load %g, %s, %bar {multicast = M}` copies the tile into `s` of every block of the
  cluster whose rank is a bit of the mask M (`.multicast::cluster`), completing on `bar`
  of each of them: each receiving block's phase counts the box's bytes.
- `peer_view %s on %cta` is the shared view `s` in the shared memory of the cluster's
  block of rank `cta` (distributed shared memory, `mapa`): loads and stores through it
  reach the peer's buffer, ordered against the peer's accesses by `cluster_sync`.

Programmatic dependent launch (sm_90; PTX `griddepcontrol`), for a kernel launched
after another on one stream with the launch attribute "programmatic stream
serialization" (the runtime sets it on every kernel that holds these ops,
`KernelInfo.programmatic`): the later kernel's blocks may start before the earlier
kernel ends, and

- `griddep_wait` waits (each thread that runs it) until every kernel this one depends
  on has completed and its memory operations are visible: a thread must run it
  before it reads what an earlier kernel wrote or writes what an earlier kernel reads
  or writes. Launched without the attribute (or first on its stream) it returns at once.
- `griddep_launch_dependents` lets the stream's next kernel (launched with the
  attribute) start its blocks once every block of this one has run it or exited: a
  hint, no ordering of memory (the next kernel's `griddep_wait` still waits for all of
  this one). Block-collective here: every thread of the block runs it.

Both are ordering points for the compiler (no memory access moves across them) and
no-ops for the CPU reference executor, which runs one kernel at a time.

The global side is a `layout.tile` of a `layout.view` of a pointer (or the view
itself) and the shared side a `layout.alloc`; `tma_plan` says whether TMA can copy
them (dialects/tma.py: 16-byte aligned base and strides, box extents <= 256, the
contiguous box extent a multiple of 16 bytes, the shared layout the compact box or
it swizzled by 32/64/128 bytes). The CPU reference executor reports a wait on a
phase that is not the current one while the current one has work in flight, a read
of a destination before its wait, an arrival on a barrier whose phase has all its
arrivals but has not been waited on (reused before it completes), and a phase whose
expected bytes differ from the bytes copied.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IndexType, IntAttr, IntegerAttr, UnitAttr, i64
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from . import cute
from .effects import Accesses, Allocates, Synchronizes
from .errors import LayoutError
from .layout_attrs import ComposedLayoutAttr, PtrType, TensorViewType, element_bytes
from .layout_roles import enclosing_launch_op
from .views import WILDCARD
from .tma import DEFAULT_L2_PROMOTION, L2_PROMOTIONS, TmaGeometry, tma_geometry
from .verifier import check as _check

__all__ = [
    "TMA_OPS",
    "ClusterRankOp",
    "ClusterSyncOp",
    "GridDepLaunchOp",
    "GridDepWaitOp",
    "MBarrierArrayOp",
    "MBarrierArrayType",
    "MBarrierAtOp",
    "MBarrierArriveOp",
    "MBarrierExpectTxOp",
    "MBarrierInitOp",
    "MBarrierInvalOp",
    "MBarrierType",
    "MBarrierWaitOp",
    "PeerViewOp",
    "CpAsyncArriveOp",
    "CpAsyncLoadOp",
    "TmaLoadOp",
    "TmaPlan",
    "TmaStoreOp",
    "TmaStoreWaitOp",
    "tma_plan",
]


def _in_launch(op: Operation) -> Operation:
    p = enclosing_launch_op(op)
    _check(p is not None, f"{op.name} must be inside a layout.launch")
    return p


def _cluster_of(op: Operation, launch: Operation, what: str) -> int:
    """The cluster size of `launch` (`tilec.cluster_dims`); an error naming `what` where
    the launch has no clusters."""
    from tilec.support.launch_bounds import CLUSTER_ATTR

    attr = launch.attributes.get(CLUSTER_ATTR)
    _check(isinstance(attr, IntegerAttr), f"{op.name}: {what} needs a launch of thread-block clusters "
                                          f"({CLUSTER_ATTR})")
    return attr.value.data


def _constant_of(v: SSAValue) -> int | None:
    """The value of `v` where an `arith.constant` defines it, else None."""
    o = v.owner
    c = getattr(getattr(getattr(o, "value", None), "value", None), "data", None)
    return c if isinstance(o, Operation) and o.name == "arith.constant" and isinstance(c, int) else None


@irdl_attr_definition
class MBarrierType(ParametrizedAttribute, TypeAttribute):
    """`!layout.mbarrier`: a shared-memory barrier that counts arrivals and
    transaction bytes, phase after phase (PTX `mbarrier`)."""

    name = "layout.mbarrier"


@irdl_attr_definition
class MBarrierArrayType(ParametrizedAttribute, TypeAttribute):
    """`!layout.mbarriers<N>`: N mbarriers side by side in shared memory, one per stage
    of a pipeline, picked by a run-time index (`layout.mbarrier_at`)."""

    name = "layout.mbarriers"
    size: IntAttr = param_def()

    def __init__(self, size: int):
        super().__init__(IntAttr(size))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        n = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return [IntAttr(n)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.size.data}>")

    def verify(self) -> None:
        _check(1 <= self.size.data <= MAX_BARRIERS,
               f"an mbarrier array holds 1 to {MAX_BARRIERS} barriers, got {self.size.data}")


MAX_BARRIERS = 32
"""The most barriers of one `!layout.mbarriers` (a pipeline's stages are at most 8)."""


# ------------------------------------------------------------------ what TMA can copy


@dataclass(frozen=True)
class TmaPlan:
    """The views of one TMA copy: the global root view, the tile of it (None: the
    view itself), the shared allocation, and the tensor map's geometry."""

    root: Operation
    """The `layout.view` of the pointer."""
    tile: Operation | None
    """The `layout.tile` of it (None: the view is copied whole)."""
    alloc: Operation
    """The `layout.alloc` of the shared buffer."""
    geometry: TmaGeometry


def _stride_multiples(view: Operation) -> dict[int, int]:
    """Mode -> what its dynamic stride is promised to be a multiple of."""
    lay = view.result.type.cute_layout
    n_shape = sum(1 for x in cute.flatten(lay.shape) if x is cute.DYN)
    divisors = view.divisors()
    out: dict[int, int] = {}
    j = 0
    for k, m in enumerate(lay.modes()):
        for s in cute.flatten(m.stride):
            if s is cute.DYN:
                out[k] = divisors[n_shape + j]
                j += 1
    return out


def tma_plan(global_view: SSAValue, smem_view: SSAValue) -> TmaPlan:
    """The TMA copy between `global_view` and `smem_view`, or a LayoutError saying why
    there is none. `smem_view` is a `layout.alloc`, a stage of a staged one, or an
    unmasked `layout.tile` of either: a part of the buffer (a box of half a tile's rows,
    as a cluster's blocks each load a part of a multicast tile), starting a multiple of
    the geometry's `smem_align` bytes into it (checked here at constant coordinates, by
    the lowering otherwise)."""
    gt, st = global_view.type, smem_view.type
    if not isinstance(gt, TensorViewType) or not isinstance(st, TensorViewType):
        raise LayoutError("TMA copies between views")
    if gt.memory_space != "gmem" or st.memory_space != "smem":
        raise LayoutError(f"TMA copies between gmem and smem, got {gt.memory_space} and {st.memory_space}")
    if gt.element_type != st.element_type:
        raise LayoutError(f"element types disagree: {gt.element_type} and {st.element_type}")
    if gt.vec_layout is not None or st.vec_layout is not None:
        raise LayoutError("TMA copies views of scalar elements (not vectorized views)")
    # ops by name: dialects/layout.py imports this module
    alloc = smem_view.owner
    if isinstance(alloc, Operation) and alloc.name == "layout.tile":  # a part of the buffer
        if st.is_masked:
            raise LayoutError("the shared side is a masked tile (it must lie inside its buffer)")
        alloc = alloc.source.owner
    if isinstance(alloc, Operation) and alloc.name == "layout.slice":
        alloc = _staged_alloc(alloc)
    if not isinstance(alloc, Operation) or alloc.name != "layout.alloc":
        raise LayoutError("the shared side of a TMA copy must be a layout.alloc, one stage of a staged "
                          "layout.alloc (a layout.slice fixing its leading stage mode), or an unmasked "
                          "layout.tile of either")
    owner = global_view.owner
    tile = None
    if isinstance(owner, Operation) and owner.name == "layout.tile":
        tile, owner = owner, owner.source.owner
    if not (isinstance(owner, Operation) and owner.name == "layout.view" and isinstance(owner.source.type, PtrType)):
        raise LayoutError("the global side of a TMA copy must be a layout.view of a pointer, or a layout.tile of one")
    root = owner
    rt = root.result.type
    if rt.is_masked:
        raise LayoutError("the global view is masked")
    smem_layout = st.layout.data if isinstance(st.layout, ComposedLayoutAttr) else st.cute_layout
    eb = element_bytes(gt.element_type)
    geo = tma_geometry(
        rt.cute_layout,
        tile.tile_sizes if tile is not None else None,
        eb,
        root.source.type.alignment,
        _stride_multiples(root),
        smem_layout,
    )
    if isinstance(geo, str):
        raise LayoutError(geo)
    part = smem_view.owner
    if isinstance(part, Operation) and part.name == "layout.tile":
        _check_part_offset(part, geo, eb)
    return TmaPlan(root, tile, alloc, geo)


def _check_part_offset(part: Operation, geo: TmaGeometry, eb: int) -> None:
    """A `layout.tile` of a shared buffer at constant coordinates starts a multiple of
    `geo.smem_align` bytes into it (a 128-byte swizzle's pattern repeats every 8 rows
    of 128 bytes: a part starting there is swizzled as a buffer of its own); with a
    run-time coordinate the lowering checks what it can prove."""
    coords = []
    for c in part.coords:
        owner = c.owner
        if not (isinstance(owner, Operation) and owner.name == "arith.constant"):
            return
        coords.append(owner.value.value.data)
    lay = part.source.type.cute_layout
    offset = lay(tuple(c * t for c, t in zip(coords, part.tile_sizes)))
    if isinstance(offset, int) and (offset * eb) % geo.smem_align:
        raise LayoutError(f"the shared tile starts {offset * eb} bytes into its buffer, not a multiple of "
                          f"{geo.smem_align} (the copy engine's alignment, the swizzle's repeat)")


def _staged_alloc(sl: Operation) -> Operation | None:
    """The `layout.alloc` that the slice `sl` takes one stage of (its leading mode fixed,
    every other mode kept whole: `%buf[%stage, _, _]`), or None."""
    pat = [int(x) for x in sl.pattern.get_values()]
    if sl.profile is not None or len(pat) < 2 or pat[0] == WILDCARD or any(p != WILDCARD for p in pat[1:]):
        return None
    src = sl.operands[0].owner
    return src if isinstance(src, Operation) and src.name == "layout.alloc" else None


def _check_plan(op: Operation, g: SSAValue, s: SSAValue) -> TmaPlan:
    try:
        return tma_plan(g, s)
    except LayoutError as e:
        raise VerifyException(f"{op.name}: TMA cannot copy these views: {e}") from None


# ------------------------------------------------------------------------ mbarriers


@irdl_op_definition
class MBarrierInitOp(IRDLOperation):
    """A new mbarrier whose phases complete after `count` arrivals (and the bytes they
    expect); phase 0 is current."""

    name = "layout.mbarrier_init"
    traits = traits_def(Allocates())
    count = prop_def(IntegerAttr)
    result = result_def(MBarrierType)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, count: int = 1):
        super().__init__(properties={"count": IntegerAttr(count, i64)}, result_types=[MBarrierType()])

    def verify_(self) -> None:
        _in_launch(self)
        c = self.count.value.data
        _check(1 <= c < (1 << 20), f"an mbarrier's arrival count must be in [1, 2^20), got {c}")


@irdl_op_definition
class MBarrierArrayOp(IRDLOperation):
    """`stages` new mbarriers, each as `mbarrier_init {count}` makes one (its phase 0
    current): the barriers of a pipeline's stages, picked by `mbarrier_at`.

        %bars = layout.mbarrier_array {count = 1 : i64, stages = 4 : i64}"""

    name = "layout.mbarrier_array"
    traits = traits_def(Allocates())
    count = prop_def(IntegerAttr)
    stages = prop_def(IntegerAttr)
    result = result_def(MBarrierArrayType)

    def __init__(self, count: int, stages: int):
        super().__init__(properties={"count": IntegerAttr(count, i64), "stages": IntegerAttr(stages, i64)},
                         result_types=[MBarrierArrayType(stages)])

    @classmethod
    def parse(cls, parser):  # the result type follows from `stages`
        attrs = parser.parse_optional_attr_dict()
        st = attrs.get("stages")
        n = st.value.data if isinstance(st, IntegerAttr) else 1
        props = {k: attrs.pop(k) for k in ("count", "stages") if k in attrs}
        return cls.create(properties=props, attributes=attrs, result_types=[MBarrierArrayType(max(n, 1))])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attr_dict({**self.properties, **self.attributes})

    @property
    def num_stages(self) -> int:
        return self.stages.value.data

    def verify_(self) -> None:
        _in_launch(self)
        c = self.count.value.data
        _check(1 <= c < (1 << 20), f"an mbarrier's arrival count must be in [1, 2^20), got {c}")
        n = self.num_stages
        _check(1 <= n <= MAX_BARRIERS, f"an mbarrier array holds 1 to {MAX_BARRIERS} barriers, got {n}")
        _check(self.result.type.size.data == n,
               f"mbarrier_array of {n} stages makes !layout.mbarriers<{n}>, not {self.result.type}")


@irdl_op_definition
class MBarrierAtOp(IRDLOperation):
    """Barrier `index` of the array `bars` (0 <= index < its size; the same in every
    thread of the block).

        %b = layout.mbarrier_at %bars[%stage] : !layout.mbarriers<4>"""

    name = "layout.mbarrier_at"
    traits = traits_def(Pure())
    bars = operand_def(MBarrierArrayType)
    index = operand_def(IndexType)
    result = result_def(MBarrierType)
    assembly_format = "$bars `[` $index `]` attr-dict `:` type($bars)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, bars: SSAValue, index: SSAValue):
        super().__init__(operands=[bars, index], result_types=[MBarrierType()])

    def verify_(self) -> None:
        _in_launch(self)
        o = self.index.owner
        v = getattr(getattr(getattr(o, "value", None), "value", None), "data", None)
        if isinstance(o, Operation) and o.name == "arith.constant" and isinstance(v, int):
            n = self.bars.type.size.data
            _check(0 <= v < n, f"mbarrier_at index {v} is out of range for an array of {n} barriers")


@irdl_op_definition
class MBarrierArriveOp(IRDLOperation):
    """One arrival on the current phase of `bar`, expecting `tx` more bytes of copies.
    With `on %cta` (an index, the same in every thread of the block; needs a launch of
    clusters): the arrival is on `bar` of the cluster's block of rank `cta` (the same
    barrier in that block's shared memory), which may be this block's own.

        layout.mbarrier_arrive %empty on %c1"""

    name = "layout.mbarrier_arrive"
    traits = traits_def(Synchronizes())
    bar = operand_def(MBarrierType)
    cta = opt_operand_def(IndexType)
    tx = opt_prop_def(IntegerAttr)
    assembly_format = "$bar (`on` $cta^)? attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, bar: SSAValue, tx: int | None = None, cta: SSAValue | None = None):
        props = {} if tx is None else {"tx": IntegerAttr(tx, i64)}
        super().__init__(operands=[bar, [] if cta is None else [cta]], properties=props)

    @property
    def tx_bytes(self) -> int:
        return 0 if self.tx is None else self.tx.value.data

    def verify_(self) -> None:
        launch = _in_launch(self)
        _check(0 <= self.tx_bytes < (1 << 20), f"tx must be in [0, 2^20) bytes, got {self.tx_bytes}")
        if self.cta is not None:
            size = _cluster_of(self, launch, "an arrival on a peer's mbarrier (on %cta)")
            v = _constant_of(self.cta)
            _check(v is None or 0 <= v < size,
                   f"mbarrier_arrive on block {v} of a cluster of {size} blocks")
            _check(self.tx is None, "mbarrier_arrive on a peer's barrier (on %cta) expects no bytes (no tx)")


@irdl_op_definition
class MBarrierExpectTxOp(IRDLOperation):
    """Expect `bytes` (an index, the same in every thread of the block) more bytes of
    copies on the current phase of `bar`, without arriving: a run-time count beside an
    arrival's static `tx` (the bytes of `layout.tma_load {clip}` copies). It must come
    before the phase's arrival (which may complete the phase).

        layout.mbarrier_expect_tx %full, %bytes"""

    name = "layout.mbarrier_expect_tx"
    traits = traits_def(Synchronizes())
    bar = operand_def(MBarrierType)
    bytes = operand_def(IndexType)
    assembly_format = "$bar `,` $bytes attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, bar: SSAValue, nbytes: SSAValue):
        super().__init__(operands=[bar, nbytes])

    def verify_(self) -> None:
        _in_launch(self)
        v = _constant_of(self.bytes)
        _check(v is None or 0 <= v < (1 << 20), f"mbarrier_expect_tx bytes must be in [0, 2^20), got {v}")


@irdl_op_definition
class MBarrierWaitOp(IRDLOperation):
    """Wait until the phase of `bar` with parity `phase` (0 or 1) has completed."""

    name = "layout.mbarrier_wait"
    traits = traits_def(Synchronizes())
    bar = operand_def(MBarrierType)
    phase = operand_def(IndexType)
    assembly_format = "$bar `,` $phase attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, bar: SSAValue, phase: SSAValue):
        super().__init__(operands=[bar, phase])

    def verify_(self) -> None:
        _in_launch(self)


@irdl_op_definition
class MBarrierInvalOp(IRDLOperation):
    """End the life of `bar` (no phase may be in flight)."""

    name = "layout.mbarrier_inval"
    traits = traits_def(Synchronizes())
    bar = operand_def(MBarrierType)
    assembly_format = "$bar attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, bar: SSAValue):
        super().__init__(operands=[bar])

    def verify_(self) -> None:
        _in_launch(self)


# ----------------------------------------------------------------------- TMA copies


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """Copy the global tile `source` into the shared buffer `dest` with the TMA; the
    copy's bytes complete on the current phase of `bar`. `source`'s tile coordinates
    are the box's origin: elements outside the tensor are written as zero, a box
    wholly outside (a `layout.tile` past the end, even unmasked) is all zeros, and the
    whole box's bytes complete on `bar` either way. `dest` is a shared buffer, a stage of
    a staged one, or an unmasked `layout.tile` of either starting at a multiple of the
    copy's alignment (`tma_plan`): a part of the buffer, as each block of a cluster
    loads its part of a multicast tile. `l2_promotion` (bytes: 0, 64,
    128, 256; absent: 128) goes to the tensor map: how much the L2 fetches around each
    request of the copy (a performance hint; the data copied is the same). `clip`: the
    tensor map's box no longer than the tensor along each dimension (`min(box, extent)`),
    so the copy engine asks for no element past the tensor's end where the tensor is
    shorter than the box: those elements of `dest` are not written (they keep what they
    held) and only the copied bytes complete on `bar` (a run-time count: expect them with
    `layout.mbarrier_expect_tx`). The box must start inside the tensor along each such
    dimension (a decode GEMM's one tile of M's rows, M shorter than the tile). `tail` (with
    `clip`): the outermost TMA dimension's box instead the tensor's last box's extent along it,
    `(extent - 1) mod box + 1` (`min(box, extent)` where the tensor is no longer than the box):
    the box must be the last along that dimension (a decode GEMM's last tile of M's rows, the
    rows past M not asked for), the other dimensions clipped as with `clip` alone. A box
    narrower than its swizzle row lands each row a swizzle row apart (`TmaGeometry.pad`): `dest`
    is then the first columns of a panel of the swizzle's width."""

    name = "layout.tma_load"
    traits = traits_def(Accesses(reads=("source",), writes=("dest",)))
    source = operand_def(TensorViewType)
    dest = operand_def(TensorViewType)
    bar = operand_def(MBarrierType)
    l2_promotion = opt_prop_def(IntegerAttr)
    multicast = opt_prop_def(IntegerAttr)
    """A mask of cluster ranks (needs a launch of clusters): the box lands in `dest` of
    each block of the cluster whose rank is a bit of it (`.multicast::cluster`, one
    read of global memory), its bytes completing on `bar` of each of them."""
    clip = opt_prop_def(UnitAttr)
    tail = opt_prop_def(UnitAttr)
    assembly_format = "$source `,` $dest `,` $bar attr-dict `:` type($source) `,` type($dest)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, dest: SSAValue, bar: SSAValue, l2_promotion: int = DEFAULT_L2_PROMOTION,
                 multicast: int | None = None, clip: bool = False, tail: bool = False):
        props: dict[str, Attribute] = ({} if l2_promotion == DEFAULT_L2_PROMOTION
                                       else {"l2_promotion": IntegerAttr(l2_promotion, i64)})
        if multicast is not None:
            props["multicast"] = IntegerAttr(multicast, i64)
        if clip:
            props["clip"] = UnitAttr()
        if tail:
            props["tail"] = UnitAttr()
        super().__init__(operands=[source, dest, bar], properties=props)

    @property
    def clipped(self) -> bool:
        """Whether the box is clipped to the tensor (`clip`)."""
        return self.clip is not None

    @property
    def tail_clipped(self) -> bool:
        """Whether the clipped box's outermost dimension is the tensor's last box's (`tail`)."""
        return self.tail is not None

    @property
    def multicast_mask(self) -> int | None:
        """The cluster ranks the box lands in (a bit each), or None: this block only."""
        return None if self.multicast is None else self.multicast.value.data

    @property
    def l2_promotion_bytes(self) -> int:
        return DEFAULT_L2_PROMOTION if self.l2_promotion is None else self.l2_promotion.value.data

    def plan(self) -> TmaPlan:
        return tma_plan(self.source, self.dest)

    def verify_(self) -> None:
        _in_launch(self)
        _check(
            self.source.type.memory_space == "gmem" and self.dest.type.memory_space == "smem",
            f"tma_load copies gmem to smem, got {self.source.type.memory_space} -> {self.dest.type.memory_space}",
        )
        _check(
            self.l2_promotion_bytes in L2_PROMOTIONS,
            f"tma_load's l2_promotion must be 0, 64, 128 or 256 bytes, got {self.l2_promotion_bytes}",
        )
        _check(not (self.clipped and self.multicast is not None), "tma_load's clip is not with multicast")
        _check(self.clipped or not self.tail_clipped, "tma_load's tail needs clip")
        if self.multicast is not None:
            size = _cluster_of(self, _in_launch(self), "a multicast TMA load")
            mask = self.multicast_mask
            _check(0 < mask < (1 << size),
                   f"tma_load's multicast mask {mask} must name blocks of its cluster of {size} "
                   f"(1 to {(1 << size) - 1})")
        _check_plan(self, self.source, self.dest)


# ------------------------------------------------------------------------ clusters


@irdl_op_definition
class ClusterRankOp(IRDLOperation):
    """The block's rank in its thread-block cluster (0 .. C - 1 in a launch of clusters
    of C blocks along x, `tilec.cluster_dims`; 0 in a launch without clusters).

        %r = layout.cluster_rank"""

    name = "layout.cluster_rank"
    traits = traits_def(Pure())
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        _in_launch(self)


@irdl_op_definition
class ClusterSyncOp(IRDLOperation):
    """A barrier of every thread of every block of the cluster (block-collective, and
    cluster-collective: no block passes it before all of its cluster's blocks reach
    it), which also makes the cluster's mbarrier initialisations before it visible to
    the peers (`fence.mbarrier_init.release.cluster`; `barrier.cluster.arrive.release`,
    `barrier.cluster.wait.acquire`). Needs a launch of clusters.

        layout.cluster_sync"""

    name = "layout.cluster_sync"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _cluster_of(self, _in_launch(self), "a cluster barrier")


PEER_VIEW_USES = ("layout.tile", "layout.vectorize", "layout.distribute", "layout.divide", "layout.compose",
                  "layout.partition", "layout.slice", "layout.load", "layout.store")
"""What may use a `layout.peer_view` (and the views derived from it): the view ops and
plain loads and stores, which reach a peer's shared memory through its generic address
(`mapa`); not the copies of the copy engine or the tensor cores (TMA, cp.async, wgmma,
ldmatrix), whose shared operands are this block's."""


@irdl_op_definition
class PeerViewOp(IRDLOperation):
    """The shared view `source` as it lies in the shared memory of the cluster's block
    of rank `cta` (an index, the same in every thread of the block; needs a launch of
    clusters): the same buffer, layout and element, in that block (CUDA's
    `cluster.map_shared_rank`, PTX `mapa`), which may be this block's own. Loads and
    stores through it (and the views of it: `PEER_VIEW_USES`) reach the peer's memory:
    distributed shared memory. They are ordered against the peer's own accesses only by
    a `cluster_sync` (an arrival on a peer's mbarrier releases at the block's scope, not
    the cluster's), and a block must not exit while a peer may still reach it: a
    `cluster_sync` after the last such access (as for `mbarrier_arrive on %cta`).

        %p = layout.peer_view %partial on %r : !layout.view<(64,128):(1,64), f32, smem>"""

    name = "layout.peer_view"
    source = operand_def(TensorViewType)
    cta = operand_def(IndexType)
    result = result_def(TensorViewType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, cta: SSAValue):
        super().__init__(operands=[source, cta], result_types=[source.type])

    @classmethod
    def parse(cls, parser):  # the result's type is the source's
        src = parser.parse_unresolved_operand()
        parser.parse_keyword("on")
        cta = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(src, t), parser.resolve_operand(cta, IndexType()))
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" on ")
        printer.print_operand(self.cta)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)

    def verify_(self) -> None:
        t = self.source.type
        _check(isinstance(t, TensorViewType) and t.memory_space == "smem",
               f"layout.peer_view of a shared view (smem), got {t}")
        _check(self.result.type == t, f"layout.peer_view's result type {self.result.type} must be its source's {t}")
        size = _cluster_of(self, _in_launch(self), "a peer's shared memory")
        v = _constant_of(self.cta)
        _check(v is None or 0 <= v < size, f"layout.peer_view of block {v} of a cluster of {size} blocks")
        todo = [self.result]
        while todo:
            for use in todo.pop().uses:
                _check(use.operation.name in PEER_VIEW_USES,
                       f"layout.peer_view: '{use.operation.name}' cannot take a view of a peer's shared memory "
                       f"(only {', '.join(PEER_VIEW_USES)})")
                if use.operation.name not in ("layout.load", "layout.store"):
                    todo.extend(use.operation.results)


CP_ASYNC_LOAD_BYTES = 16
"""The bytes of each `cp.async` of a `layout.cp_async_load` (PTX `cp.async.cg`)."""


@irdl_op_definition
class CpAsyncLoadOp(IRDLOperation):
    """Copy the global tile `source` (rank 2, rows contiguous) into the shared buffer
    `dest` as `layout.tma_load` does: element i of one is element i of the other,
    elements outside the tensor (a masked tile at an edge, or past it) are written as
    zero. The copy is made by every thread that runs the op (block-collective: the
    block, or inside a `layout.warp_specialize` region the region), each taking
    16-byte runs of the rows in turn with `cp.async` (`src-size` 0 for a run outside
    the tensor), then arriving once on the current phase of `bar` when its copies have
    landed (`cp.async.mbarrier.arrive.noinc`). So `bar`'s `mbarrier_init` count
    includes one arrival per thread running this op (beside any `mbarrier_arrive`),
    its phase expects no bytes of this copy, and the destination may be read after an
    `mbarrier_wait` on that phase (a `layout.mma` reading it fences the async proxy
    first, as after any write that is not a TMA copy).

        layout.cp_async_load %tile, %smem, %bar : !T, !S

    Needs 16-byte runs: the rows' extent and stride (elements) multiples of 16 bytes,
    the tensor's row length too (a run is wholly inside or outside), and the shared
    layout keeping each run contiguous (compact rows, or an NVMMA swizzle of 16-byte
    units). For operands whose rows start at addresses the TMA reads slowly (a row
    stride of 16 mod 32 bytes: docs/matmul.md)."""

    name = "layout.cp_async_load"
    traits = traits_def(Accesses(reads=("source",), writes=("dest",)))
    source = operand_def(TensorViewType)
    dest = operand_def(TensorViewType)
    bar = operand_def(MBarrierType)
    assembly_format = "$source `,` $dest `,` $bar attr-dict `:` type($source) `,` type($dest)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, dest: SSAValue, bar: SSAValue):
        super().__init__(operands=[source, dest, bar])

    def run_elements(self) -> int:
        """The elements of one 16-byte run."""
        return CP_ASYNC_LOAD_BYTES // element_bytes(self.source.type.element_type)

    def verify_(self) -> None:
        from .views import modes

        _in_launch(self)
        s, d = self.source.type, self.dest.type
        _check(s.memory_space == "gmem" and d.memory_space == "smem",
               f"cp_async_load copies gmem to smem, got {s.memory_space} -> {d.memory_space}")
        _check(s.element_type == d.element_type,
               f"cp_async_load copies {s.element_type} to {d.element_type}: the element types differ")
        _check(s.vec_layout is None and d.vec_layout is None, "cp_async_load copies views that are not vectorized")
        w = self.run_elements()
        ms = modes(s.cute_layout)
        _check(len(ms) == 2, f"cp_async_load copies a tile of rank 2, got rank {len(ms)}")
        (rows, rstride), (cols, cstride) = (_leaf(m) for m in ms)
        _check(cstride == 1, f"cp_async_load copies rows of stride 1 (contiguous), got {cstride}")
        _check(isinstance(cols, int) and cols % w == 0 and isinstance(rstride, int) and rstride % w == 0,
               f"cp_async_load needs rows of whole 16-byte runs: row extent and stride multiples of {w} "
               f"elements, got {cols} and {rstride}")
        _check(s.cute_layout.size() == d.cute_layout.size(),
               f"cp_async_load copies {s.cute_layout.size()} elements into {d.cute_layout.size()}")


@irdl_op_definition
class CpAsyncArriveOp(IRDLOperation):
    """One arrival of every thread of the block (block-collective) on the current phase
    of `bar`, each made once that thread's `layout.copy_chunk_async` copies issued
    before it have landed (`cp.async.mbarrier.arrive.noinc`): `bar`'s count includes
    one arrival per thread of the block, and its phase expects no bytes of these
    copies. The copies' chunks may be read after an `mbarrier_wait` on that phase (by
    any thread of the block), not before; no `layout.async_wait` covers them. A ring
    of shared buffers waited a buffer at a time (CUTLASS's `cp_async` pipelines on
    mbarriers): the copies of later buffers stay in flight while one is read.

        layout.cp_async_arrive %bar"""

    name = "layout.cp_async_arrive"
    traits = traits_def(Synchronizes())
    bar = operand_def(MBarrierType)
    assembly_format = "$bar attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, bar: SSAValue):
        super().__init__(operands=[bar])

    def verify_(self) -> None:
        launch = _in_launch(self)
        open_threads = getattr(launch, "open_threads", None) is not None
        n = None if open_threads else getattr(getattr(getattr(launch, "threads", None), "value", None), "data", None)
        init = self.bar.owner
        if isinstance(init, MBarrierAtOp):
            init = init.bars.owner
        count = getattr(init, "count", None)
        if isinstance(n, int) and isinstance(init, MBarrierInitOp | MBarrierArrayOp) and count is not None:
            c = count.value.data
            _check(c >= n, f"cp_async_arrive makes one arrival per thread of the block ({n}), "
                           f"but the mbarrier counts {c}")


def _leaf(mode) -> tuple:
    """(extent, stride) of a mode of one leaf; (None, None) otherwise."""
    from .views import _flat

    f = _flat(mode)
    return f[0] if len(f) == 1 else (None, None)


@irdl_op_definition
class TmaStoreOp(IRDLOperation):
    """Copy the shared buffer `source` into the global tile `dest` with the TMA (after
    the block's writes of `source`; inside a `layout.warp_specialize` region, the
    region's: its threads meet, not the block's); one bulk group."""

    name = "layout.tma_store"
    traits = traits_def(Synchronizes())
    source = operand_def(TensorViewType)
    dest = operand_def(TensorViewType)
    assembly_format = "$source `,` $dest attr-dict `:` type($source) `,` type($dest)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, dest: SSAValue):
        super().__init__(operands=[source, dest])

    def plan(self) -> TmaPlan:
        return tma_plan(self.dest, self.source)

    def verify_(self) -> None:
        _in_launch(self)
        _check(
            self.source.type.memory_space == "smem" and self.dest.type.memory_space == "gmem",
            f"tma_store copies smem to gmem, got {self.source.type.memory_space} -> {self.dest.type.memory_space}",
        )
        _check_plan(self, self.dest, self.source)


@irdl_op_definition
class TmaStoreWaitOp(IRDLOperation):
    """Wait until at most `pending` of the block's TMA stores still read shared memory;
    then the block meets at a barrier (inside a `layout.warp_specialize` region: the
    region's stores, and the region's threads meet)."""

    name = "layout.tma_store_wait"
    traits = traits_def(Synchronizes())
    pending = prop_def(IntegerAttr)
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        _in_launch(self)
        p = self.pending.value.data
        _check(0 <= p <= 7, f"tma_store_wait pending must be in [0, 7], got {p}")


@irdl_op_definition
class GridDepWaitOp(IRDLOperation):
    """Programmatic dependent launch's wait (PTX `griddepcontrol.wait`, the module doc):
    the thread waits until the kernels this launch depends on have completed and their
    memory is visible (at once where the kernel was not launched as a dependent).

        layout.griddep_wait"""

    name = "layout.griddep_wait"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _in_launch(self)


@irdl_op_definition
class GridDepLaunchOp(IRDLOperation):
    """Programmatic dependent launch's trigger (PTX `griddepcontrol.launch_dependents`,
    the module doc): once every block has run it (or exited), the stream's next kernel,
    launched as a dependent, may start its blocks. Block-collective; orders no memory.

        layout.griddep_launch_dependents"""

    name = "layout.griddep_launch_dependents"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _in_launch(self)


TMA_OPS = [GridDepWaitOp, GridDepLaunchOp, ClusterRankOp, ClusterSyncOp, PeerViewOp, MBarrierInitOp, MBarrierArrayOp, MBarrierAtOp, MBarrierArriveOp,
           MBarrierExpectTxOp,
           MBarrierWaitOp, MBarrierInvalOp, CpAsyncArriveOp, CpAsyncLoadOp, TmaLoadOp, TmaStoreOp, TmaStoreWaitOp]
TMA_TYPES = [MBarrierType, MBarrierArrayType]
