"""`lower-convert-layout`: each remaining conversion becomes a register permutation, a
warp shuffle or a shared-memory round trip."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from tilec.dialects import cute, layout
from tilec.dialects.layout_attrs import CuteLayoutAttr, TensorViewType, element_bytes
from tilec.dialects.layout_ptr import is_pointer_tensor, pointer_conversion_message
from tilec.dialects.linear import LinearLayout
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._analysis import in_loop
from ._axis_info import AxisInfoAnalysis
from ._layout_cost import kind_of, linear_of
from ._shuffle_plan import ShufflePlan, ShufflePlanError, plan_shuffles
from ._smem_layout import SmemChoice, SmemLayout, choose_smem_layout
from ._vector_legality import register_run, view_vector_ok, widest
from .vectorize import SetVectorWidth


@dataclass(frozen=True)
class LowerConvertLayout(ModulePass):
    """Lowers each `layout.convert_layout` by what its linear forms say moves: registers only, lanes of a warp (shuffles), or threads of the block (a shared-memory round trip with a bank-conflict-free layout).

    Decision (`linear.conversion_kind` on the layouts for the tensor's shape):

    - identity / register: the conversion stays, its `lowering` property `"register"`;
      `lower-to-gpu` renames or permutes registers.
    - warp_shuffle: warp shuffles or shared memory, whichever the cost model below
      estimates cheaper (`shuffle=auto`, the default; `on`/`off` force one). Shuffles:
      the conversion stays, with its `lowering` property `"shuffle"` (which
      `lower-to-gpu` follows); shared memory: the round trip below.
    - shared: written in the layout dialect, inside the enclosing `layout.launch`:

          %s = layout.alloc : !layout.tensor<T, SMEM, smem>      (at the top of the launch)
          layout.barrier                                          (only inside a loop)
          layout.store %v, %s {bank_conflicts = 0, vector = 4}
          layout.barrier
          %w = layout.load %s {bank_conflicts = 0, vector = 1} -> target layout

      SMEM is a padded CuTe layout (`(32,32):(33,1)`) or a swizzled
      `#layout.composed<swizzle<B,M,S> o 0 o L>`, chosen by simulating the addresses of
      the write (source layout) and of the read (target layout) over 32 banks of 4 bytes
      (`_smem_layout.bank_conflicts`): fewest conflicts first, then fewest wavefronts,
      widest vectors, smallest buffer. `bank_conflicts` on the store and load is the
      worst ways - 1 (0 = conflict-free) of that access; `vector` the registers moved per
      access. One buffer per conversion, the size of the tile plus padding.
    - no room: a conversion whose only user is a `layout.store` to global memory and
      whose round trip's buffer would take the launch past the target's shared memory
      beside its other shared buffers (a GEMM's f32 accumulator tile after its K loop's
      ring) is dropped: the store takes the source layout, which a store accepts, with
      the widest vector `vectorize` allows it, where that layout writes whole 32-byte
      sectors (`store_unconverted`).

    Cost model (`shuffle=auto`): instructions issued per thread, each shuffle, select,
    compare and shared-memory access 1, a barrier 20 (the constants' docstrings give the
    public numbers: on compute capability 9.0 an SM serves one warp-wide `shfl.sync`, or
    one conflict-free warp-wide 32-bit shared access, per clock; a `__syncthreads` costs
    tens of cycles).

    - shuffles: what `lower-to-gpu` emits, planned by `_shuffle_plan.plan_shuffles`:
      (shuffles + selects on the sender and reader side) x 32-bit registers per element
      (1 up to 4 bytes: f16 and i8 are not packed; 2 for 8 bytes) + the compares that
      feed the selects;
    - shared memory: stores x ways of the write + loads x ways of the read (ways = 1 +
      `bank_conflicts`; stores and loads at their `vector` widths, on the chosen shared
      layout) + 20 per barrier (1, or 2 inside a loop).

    Ties go to shuffles (no shared memory). The choice and both estimates are recorded:
    the `lowering` property `"shuffle"` on the conversion that stays, or the attribute
    `lowering = "smem"` on the round trip's `layout.store`, and `shuffle_cost` and
    `smem_cost` (i64) beside it. E.g. lanes 0 and 1
    swapping (f32, one register): 1 vs 22, shuffles; f16 32x32 from 1x4 rows to 2x4
    blocks (`kinds.mlir` `@padded`): 16 shuffles + 112 selects + 7 compares = 135 vs 32
    stores + 16 loads, conflict-free, + 20 = 68, shared memory.

    Anchors: Triton's ConvertLayoutOpToLLVM (shared-memory path with padding or swizzling)
    and the Linear Layouts paper (arXiv 2505.23819) on optimal swizzling.

    Options: `shuffle` = auto (the cost model, shuffles only where `lower-to-gpu`
    lowers them) | on (always shuffles) | off (always shared memory); `smem_layout` = best (default) | plain
    (row-major, unpadded, unswizzled: a reference lowering for tests and benchmarks).
    Preconditions: conversions are inside a `layout.launch`; shapes are powers of two for
    the conflict analysis (otherwise the buffer is row-major and unannotated)."""

    name = "lower-convert-layout"

    shuffle: str = "auto"
    smem_layout: str = "best"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        use_shuffle = {"auto": True, "on": True, "off": False}.get(self.shuffle)
        if use_shuffle is None:
            raise PassFailedException(f"lower-convert-layout: shuffle must be auto, on or off, got {self.shuffle!r}")
        if self.smem_layout not in ("best", "plain"):
            raise PassFailedException(f"lower-convert-layout: smem-layout must be best or plain, got {self.smem_layout!r}")
        plain = self.smem_layout == "plain"
        for cvt in [o for o in op.walk() if isinstance(o, layout.ConvertLayoutOp)]:
            src, dst = cvt.source.type, cvt.result.type
            kind = kind_of(src, dst)
            if kind in ("identity", "register"):
                cvt.lowering = StringAttr("register")
                continue
            if is_pointer_tensor(src):
                raise TilecError(pointer_conversion_message(kind), op=cvt)
            if kind != "warp_shuffle":
                if not store_unconverted(cvt):
                    lower_through_smem(cvt, plain=plain)
                continue
            launch = layout.enclosing_launch(cvt)
            costs = estimate_costs(src, dst, plain=plain,
                                   in_loop=launch is not None and in_loop(cvt, launch))
            if self.shuffle == "auto":
                shuffle = use_shuffle and costs.choice() == "shuffle"
            else:
                shuffle = use_shuffle
            if shuffle:
                cvt.lowering = StringAttr("shuffle")
                _record(cvt, None, costs)
            elif not store_unconverted(cvt):
                store = lower_through_smem(cvt, plain=plain)
                _record(store, "smem", costs)


def smem_choice(src: TensorType, dst: TensorType, plain: bool = False) -> SmemChoice | None:
    """The shared layout for a conversion (None without linear forms)."""
    found = smem_plan(src, dst, plain)
    return None if found is None else found[0]


def smem_plan(src: TensorType, dst: TensorType, plain: bool = False
              ) -> tuple[SmemChoice, LinearLayout, LinearLayout] | None:
    """(the shared layout, the layouts the write and the read take): for elements
    narrower than a 4-byte bank word, each side's registers may be taken in another
    order (`register_orders`: a renaming, free), where that gives the round trip a
    better `SmemChoice.key` (fewer access instructions: a thread holding 2 f16 that lie
    side by side in the buffer writes them as one 32-bit word); otherwise the layouts
    as they are. None without linear forms."""
    ls, ld = linear_of(src), linear_of(dst)
    if ls is None or ld is None:
        return None
    shape = tuple(src.get_shape())
    cands = [SmemLayout(shape, tuple(reversed(range(len(shape)))))] if plain else None
    eb = element_bytes(src.element_type)
    best = (choose_smem_layout(ls, ld, shape, eb, cands), ls, ld)
    if eb >= 4 or plain or (best[0].write.vector * eb >= 4 and best[0].read.vector * eb >= 4):
        return best
    for a in register_orders(ls):
        for b in register_orders(ld):
            if a is ls and b is ld:
                continue
            ch = choose_smem_layout(a, b, shape, eb, cands)
            if ch.key() < best[0].key():
                best = (ch, a, b)
    return best


def register_orders(ll: LinearLayout) -> list[LinearLayout]:
    """`ll`, and for each output dimension with register bases, `ll` with those bases
    first (the others after them, each group in its order): the same threads holding
    the same elements, only the registers renamed."""
    regs = list(ll.bases.get("register", []))
    out = [ll]
    for d in range(len(ll.out_dims)):
        along = [b for b in regs if b[d] and not any(c for k, c in enumerate(b) if k != d)]
        if not along or regs[: len(along)] == along:
            continue
        order = along + [b for b in regs if b not in along]
        out.append(LinearLayout({**ll.bases, "register": order}, list(ll.out_dim_sizes.values())))
    return out


def _linear_type(t: TensorType, ll: LinearLayout) -> TensorType:
    """`t` with the encoding `#layout.linear` of `ll`."""
    from tilec.dialects.layout_attrs import LinearBases, LinearLayoutAttr

    g = {n: tuple(tuple(b) for b in ll.bases.get(n, ())) for n in ("register", "lane", "warp", "block")}
    return TensorType(t.element_type, t.get_shape(), LinearLayoutAttr(LinearBases(g["register"], g["lane"], g["warp"],
                                                                                    g["block"])))


# ----------------------------------------------------------------------------- cost model
#
# Units: instructions a thread issues (one warp-wide issue slot each). Constants:

SHFL_COST = 1
"""One `shfl.sync` of a 32-bit register. CUDA C++ Programming Guide, throughput table of
the arithmetic instructions: warp shuffle, 32 results per clock per SM on compute
capability 9.0, i.e. one warp-wide shuffle per SM clock."""

SMEM_ACCESS_COST = 1
"""One `ld.shared`/`st.shared` instruction per way of its worst bank conflict. The
Programming Guide (shared memory, compute capability 5.x and later): 32 banks of 32
bits each deliver one word per clock, so a conflict-free warp-wide access is served in
one pass, like a shuffle; an n-way conflict is split into n passes (replays)."""

SELECT_COST = 1
COMPARE_COST = 1
"""One `selp` / one `setp` of the shuffle lowering's register choice. Integer compare
and select run on the integer pipes, which the same table lists at least as fast as
shuffles; 1 each rounds up, and they also sit in the dependent chain before or after
each shuffle."""

BARRIER_COST = 20
"""One `__syncthreads` (`bar.sync`): every warp of the block waits for the slowest, a
latency of roughly tens of cycles (an order of magnitude, not a measurement of tilec's
kernels) during which the waiting warps issue nothing; 20 issue slots."""


def register_words(elem_bytes: int) -> int:
    """32-bit registers per element in the shuffle lowering: `lower-to-gpu` shuffles and
    selects one element per instruction, never packing two f16 or four i8 into a 32-bit
    shuffle (1 for 1, 2 and 4 bytes); 8-byte elements take two (`__shfl_sync` on a
    double is two 32-bit shuffles, a 64-bit select two selects)."""
    return max(1, -(-elem_bytes // 4))


def shuffle_cost(plan: ShufflePlan, elem_bytes: int) -> int:
    """Per thread: (shuffles + sender and reader selects) * `register_words` + compares."""
    w = register_words(elem_bytes)
    return w * (SHFL_COST * plan.shuffles + SELECT_COST * plan.selects) + COMPARE_COST * plan.compares


def smem_accesses(ll: LinearLayout, vector: int, store: bool) -> int:
    """Shared-memory instructions per thread that `lower-to-gpu` emits for one side:
    one per group of `vector` registers, a group holding only elements already moved
    skipped (a store skips a group whose first element was stored, a load one whose
    elements were all loaded)."""
    regs = [tuple(ll.apply(register=r)) for r in range(ll.num_registers)]
    seen: set = set()
    n = 0
    for g in range(0, len(regs), vector):
        group = regs[g:g + vector]
        if (group[0] in seen) if store else all(c in seen for c in group):
            continue
        seen.update(group)
        n += 1
    return n


def smem_cost(src: LinearLayout, dst: LinearLayout, choice: SmemChoice, barriers: int) -> int:
    """Per thread: stores * ways of the write + loads * ways of the read (ways = 1 +
    bank conflicts, the worst phase) + `BARRIER_COST` per barrier."""
    w, r = choice.write, choice.read
    return (
        SMEM_ACCESS_COST * smem_accesses(src, w.vector, True) * w.stats.ways
        + SMEM_ACCESS_COST * smem_accesses(dst, r.vector, False) * r.stats.ways
        + BARRIER_COST * barriers
    )


@dataclass(frozen=True)
class LoweringCosts:
    """The estimates of both lowerings of one intra-warp conversion (None: that lowering
    does not apply), with what they were computed from."""

    shuffle: int | None
    smem: int | None
    plan: ShufflePlan | None = None
    smem_choice: SmemChoice | None = None

    def choice(self) -> str:
        """"shuffle" or "smem": the cheaper; a tie goes to shuffles (no shared memory)."""
        if self.shuffle is None:
            return "smem"
        if self.smem is None or self.shuffle <= self.smem:
            return "shuffle"
        return "smem"


def estimate_costs(src: TensorType, dst: TensorType, plain: bool = False, in_loop: bool = False) -> LoweringCosts:
    """Both estimates for converting `src` to `dst`: the shuffle plan's cost
    (`_shuffle_plan.plan_shuffles`, what `lower-to-gpu` emits) and the round trip's
    through the shared layout `smem_choice` picks, with the barriers `lower_through_smem`
    emits (one; two inside a loop)."""
    ls, ld = linear_of(src), linear_of(dst)
    if ls is None or ld is None:
        return LoweringCosts(None, None)
    eb = element_bytes(src.element_type)
    try:
        plan: ShufflePlan | None = plan_shuffles(ls, ld)
    except ShufflePlanError:
        plan = None
    choice = smem_choice(src, dst, plain)
    return LoweringCosts(
        shuffle_cost(plan, eb) if plan is not None else None,
        smem_cost(ls, ld, choice, 2 if in_loop else 1) if choice is not None else None,
        plan,
        choice,
    )


def recorded_lowering(op: Operation) -> str | None:
    """What this pass decided for the conversion `op` came from: `register` or `shuffle`
    (the convert_layout's property), `smem` (on the store of the round trip), else None."""
    if isinstance(op, layout.ConvertLayoutOp):
        return op.lowering.data if op.lowering is not None else None
    attr = op.attributes.get("lowering")
    return attr.data if isinstance(attr, StringAttr) else None


def _record(op, lowering: str | None, costs: LoweringCosts) -> None:
    """The estimates (and, on the store of a round trip, `lowering = "smem"`) as
    discardable attributes: documentation for the reader; the decision a later pass
    follows is the convert_layout's `lowering` property."""
    if lowering is not None:
        op.attributes["lowering"] = StringAttr(lowering)
    if costs.shuffle is not None:
        op.attributes["shuffle_cost"] = IntegerAttr(costs.shuffle, i64)
    if costs.smem is not None:
        op.attributes["smem_cost"] = IntegerAttr(costs.smem, i64)


def _view_bytes(t: TensorViewType) -> int:
    return t.cute_layout.cosize() * t.vector_size * element_bytes(t.element_type)


SECTOR_BYTES = 32
"""A DRAM/L2 sector: a store that takes its source layout must write whole ones."""


def _sector_run(t: TensorType, view) -> int:
    """Bytes that a warp's store of `t` to `view` writes contiguously: the vector the
    view allows along the layout's register run (`vectorize`'s rule) times the lanes
    that continue it (lane bases 1, 2, 4, ... vectors along the same dim); 0 without a
    linear form."""
    ll = linear_of(t)
    if ll is None:
        return 0
    eb = element_bytes(t.element_type)
    d, run = register_run(ll)
    v = widest(run, max(1, 16 // eb), lambda v: view_vector_ok(view, d, v, eb, lanes_masked=True))
    lanes = 1
    for b in ll.get_bases("lane"):
        if any(c for i, c in enumerate(b) if i != d) or b[d] != v * lanes:
            break
        lanes *= 2
    return v * lanes * eb


def store_unconverted(cvt: layout.ConvertLayoutOp) -> bool:
    """Where the shared-memory round trip does not fit: a conversion whose only user is
    a `layout.store` to global memory, and whose buffer (the tile, unpadded) would take
    the launch past the target's shared memory beside its other shared buffers (e.g. a
    GEMM's f32 accumulator tile after a pipelined K loop's ring), is dropped and the
    store takes the source layout (a store accepts any distributed layout: the
    conversion only made its accesses wider), with the widest vector that layout and
    the view allow (`vectorize`'s rule), where that layout still writes whole 32-byte
    sectors (`_sector_run`: an mma.sync f32 accumulator's 4 lanes of 8 bytes along a
    row do; a transpose's columns do not, and its conversion stays, to fail on the
    shared memory it needs). Returns whether it did so."""
    uses = list(cvt.result.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, layout.StoreOp) or uses[0].index != 0:
        return False
    store = uses[0].operation
    if store.view.type.memory_space != "gmem":
        return False
    launch = layout.enclosing_launch(cvt)
    if launch is None:
        return False
    src = cvt.source.type
    need = src.element_type.bitwidth // 8 * prod(src.get_shape())
    have = sum(_view_bytes(a.result.type) for a in launch.body.block.ops
               if isinstance(a, layout.AllocOp) and a.result.type.memory_space == "smem")
    if have + need <= target_of(launch).smem_per_block or _sector_run(src, store.view) < SECTOR_BYTES:
        return False
    store.operands[0] = cvt.source
    Rewriter.erase_op(cvt)
    SetVectorWidth(16, AxisInfoAnalysis())._set(store, store.view, store.value.type)
    return True


def lower_through_smem(cvt: layout.ConvertLayoutOp, plain: bool = False) -> layout.StoreOp:
    launch = layout.enclosing_launch(cvt)
    if launch is None:
        raise TilecError("a conversion through shared memory must be inside a layout.launch", op=cvt)
    src, dst = cvt.source.type, cvt.result.type
    plan = smem_plan(src, dst, plain)
    choice = None if plan is None else plan[0]
    if choice is not None:
        smem_attr = choice.layout.attr()
    else:
        shape = tuple(src.get_shape())
        smem_attr = CuteLayoutAttr(cute.Layout(shape, cute.compact_row_major(shape)))
    buf_t = TensorViewType(src.element_type, smem_attr, "smem")
    alloc = layout.AllocOp(buf_t)
    Rewriter.insert_op(alloc, InsertPoint.at_start(launch.body.block))
    renames: list[Operation] = []
    value = cvt.source
    if plan is not None and plan[1] != linear_of(src):
        # the write's registers renamed first (a register conversion: no data moves)
        first = layout.ConvertLayoutOp(value, _linear_type(src, plan[1]))
        first.lowering = StringAttr("register")
        renames.append(first)
        value = first.result
    store = layout.StoreOp(value, alloc.result)
    read_t = dst
    if plan is not None and plan[2] != linear_of(dst):
        read_t = _linear_type(dst, plan[2])
    load = layout.LoadOp(alloc.result, read_t)
    if choice is not None:
        for access, side in ((store, choice.write), (load, choice.read)):
            access.attributes["bank_conflicts"] = IntegerAttr(side.conflicts, i64)
            if side.vector > 1:
                access.properties["vector"] = IntegerAttr(side.vector, i64)
    ops = list(renames)
    if in_loop(cvt, launch):
        ops.append(layout.BarrierOp())
    ops += [store, layout.BarrierOp(), load]
    result = load.result
    if read_t is not dst:
        # the read's registers renamed back to the conversion's layout
        last = layout.ConvertLayoutOp(result, dst)
        last.lowering = StringAttr("register")
        ops.append(last)
        result = last.result
    Rewriter.insert_op(ops, InsertPoint.before(cvt))
    copy_loc(cvt, alloc, *ops)
    cvt.result.replace_all_uses_with(result)
    Rewriter.erase_op(cvt)
    return store


