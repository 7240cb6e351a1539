"""The `accelerate-matmul` pass: each `layout.dot` becomes tensor-core MMAs or an FMA
loop, as the module's Target allows (Triton's AccelerateMatmul)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import cute, views
from tilec.dialects.layout import (
    DYNAMIC,
    WILDCARD,
    AllocOp,
    BarrierOp,
    BroadcastOp,
    ConvertLayoutOp,
    CopyOp,
    ExpandDimsOp,
    LaunchOp,
    LoadOp,
    SliceOp,
    StoreOp,
    TileOp,
)
from tilec.dialects.layout_attrs import (
    ComposedLayoutAttr,
    CuteLayoutAttr,
    SliceLayoutAttr,
    TensorViewType,
    element_bytes,
    threads_per_block,
)
from tilec.dialects.layout_dot import DotOp
from tilec.dialects.layout_mma import MmaOp, _type_name, wgmma_allowed
from tilec.dialects.layout_roles import role_of
from tilec.dialects.mma import DotOperandLayout, NvidiaMmaLayout, NvmmaSharedLayout
from tilec.dialects.mma_layouts import DotOperandLayoutAttr, NvidiaMmaLayoutAttr, NvmmaComposed
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._analysis import in_loop
from ._vector_legality import view_vector_ok

INSTRS = ("auto", "wgmma", "mma_sync", "fma")
"""The values of the `instr` option."""

SWIZZLES = (128, 64, 32)
"""NVMMA swizzles tried for a shared operand, widest first."""


@dataclass(frozen=True)
class AccelerateMatmulPass(ModulePass):
    """Lower each `layout.dot` to tensor-core MMAs (wgmma, mma.sync) or an FMA loop, as the module's Target allows (Triton's AccelerateMatmul).

    `layout.dot` is `acc + a @ b` on distributed tensors in any layouts; the lowering
    is what the module's Target (`tilec.target`, support/target.py) runs fastest:

    - **wgmma** (a target that has it, Hopper; the default target): bf16/f16 operands,
      M a multiple of 64, K of 16, whole warpgroups. The accumulator goes to a
      version-3 `#layout.nvidia_mma` (warps in fours along M while M has 64-row tiles
      left for them, the rest along N; `instrShape = [64, N / warpsN (at most 256), 16]`),
      B (and A, when it is loaded from memory) to shared buffers in the NVMMA swizzle
      (`#layout.nvmma_shared`, the widest of 128/64/32 bytes their rows hold:
      bank-conflict free for the tensor cores and for TMA; unswizzled rows where none
      fits), and `layout.mma` reads them
      there. An A computed in registers stays there: it is converted to the wgmma A
      fragment (`#layout.dot_op<opIdx = 0, kWidth = 2>`, `wgmma` with A from registers).
    - **mma.sync** (sm_80 and newer without wgmma, or where wgmma's shapes do not fit):
      bf16/f16 operands, M a multiple of 16, N of 8, K of 16. The accumulator goes to a
      version-2 `#layout.nvidia_mma` (warps tiled as Triton's `warpsPerTileV2`: along M
      while the tile has at least as many 16-row tiles per warp as 16-column pairs), A and B
      through NVMMA-swizzled shared buffers into `#layout.dot_op<kWidth = 2>` registers
      (`layout.load`, which `lower-to-gpu` makes `ldmatrix`), then `layout.mma`, one
      16-deep slice of K at a time (`layout.tile`s of the shared buffers): the
      fragments of slice j + 1 are loaded before the mma of slice j, so a thread holds
      two slices' fragments at most, not all of K (CUTLASS's warp-level k-groups with
      fragment double-buffering; a 64x64 warp tile at K = 64 would otherwise hold 128
      fragment registers beside its 128 accumulator registers).
    - **FMA** (everything else: f32 operands, small tiles): A and B go to shared
      memory (A's rows padded by one 32-bit word, so a column is read without bank
      conflicts), and an `scf.for` over K adds `a[:, k] * b[k, :]` to the accumulator in
      its own layout: column k of A and row k of B are loaded in the slice layouts of
      the accumulator's layout, expanded and broadcast (`mulf` then `addf`: exactly
      `layout.dot`'s definition, so the result is bit for bit the executor's).

    Staging. An operand that is a `layout.load` of an unmasked global view used only by
    this dot is not loaded into registers at all: the view is copied to the shared
    buffer where the load was (`layout.copy`). For mma.sync the copy asks for `cp.async`
    (`strategy = async`) where the global tile moves in 16-byte vectors (`vectorize`'s
    own test); on the wgmma path it is left to the passes: outside loops `tma` makes
    it a TMA load with an mbarrier where the views allow (a pipeliner does so in
    loops), otherwise `distribute` moves it in 16-byte vectors through registers. Any
    other operand is stored there from its registers (`layout.store`; `stmatrix` where
    it fits). A `layout.barrier` follows
    the writes; inside a loop another follows the reads (so the next iteration's writes
    wait for them). So a K loop `for k: a = load(A_k); b = load(B_k); acc = dot(a, b,
    acc)` becomes the single-buffered loop `copy A_k -> sa; copy B_k -> sb; barrier;
    acc = mma(sa, sb, acc); barrier` that a software pipeliner takes. The buffers are
    allocated at the start of the launch body, one pair per dot.

    Layouts. The accumulator is converted into the MMA layout before the MMA and the
    result back to the dot's layout after it (`layout.convert_layout`, only where the
    layouts differ); `remove-layout-conversions` then removes what it can (a
    loop-carried accumulator stays in the MMA layout through the loop).

    A `layout.dot` inside a `layout.warp_specialize` region is a located error (the
    staging's barriers are block-wide).

    Options:
      instr=auto|wgmma|mma_sync|fma   force one lowering (default auto: the list above);
                    a forced one that the dot or the target cannot take is a located error.
    """

    name = "accelerate-matmul"

    instr: str = "auto"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.instr not in INSTRS:
            raise TilecError(f"accelerate-matmul: instr must be one of {', '.join(INSTRS)}, got '{self.instr}'")
        for dot in [o for o in op.walk() if isinstance(o, DotOp)]:
            _lower_dot(dot, self.instr)


# ----------------------------------------------------------------------------- choice


def _launch_of(op: Operation) -> LaunchOp:
    p = op.parent_op()
    while p is not None and not isinstance(p, LaunchOp):
        p = p.parent_op()
    if p is None:
        raise TilecError("layout.dot must be inside a layout.launch", op=op)
    return p


def warps_v2(m: int, n: int, warps: int) -> tuple[int, int]:
    """Triton's `warpsPerTileV2`: warps along M while the tile has at least as many
    16-row tiles per warp as pairs of 8-column tiles (and M has a 16-row tile left for
    another), else along N."""
    wm, wn = 1, 1
    while wm * wn < warps:
        if m // 16 // wm >= n // 16 // wn and wm < m // 16:
            wm *= 2
        else:
            wn *= 2
    return wm, wn


def warps_v3(m: int, warps: int) -> tuple[int, int]:
    """Warps of a version-3 accumulator: in fours (warpgroups) along M while M has a
    64-row tile left for each, the rest along N."""
    wm, wn = 4, 1
    while wm * wn < warps:
        if m > 16 * wm:
            wm *= 2
        else:
            wn *= 2
    return wm, wn


def shared_swizzle(rows: int, cols: int, bits: int) -> int:
    """The widest NVMMA swizzle (bytes) a row-major `rows x cols` tile holds whole: its
    rows at least one swizzle row, at least 8 rows; 0 when none does."""
    for sw in SWIZZLES:
        if cols * bits >= 8 * sw and cols % (8 * sw // bits) == 0 and rows >= 8:
            return sw
    return 0


def _why_not_wgmma(op: DotOp, m: int, n: int, k: int, kind: str, warps: int) -> str | None:
    if not wgmma_allowed(op):
        return f"the target {target_of(op).arch} has no wgmma"
    if kind not in ("bf16", "f16"):
        return f"wgmma here takes bf16 or f16 operands, not {kind}"
    if m % 64 or k % 16 or warps % 4:
        return f"wgmma needs M a multiple of 64, K of 16 and whole warpgroups (M={m}, K={k}, {warps} warps)"
    wm, wn = warps_v3(m, warps)
    if wm * wn != warps or m % (16 * wm) or n % wn or n // wn < 8:
        return f"{warps} warps do not tile a {m}x{n} accumulator in warpgroups of 64 rows"
    if shared_swizzle(m, k, 16) == 0 or shared_swizzle(k, n, 16) == 0:
        return f"the {m}x{k} and {k}x{n} operands have no NVMMA swizzle"
    return None


def _why_not_mma_sync(op: DotOp, m: int, n: int, k: int, kind: str, warps: int) -> str | None:
    if target_of(op).sm < 80:
        return f"the target {target_of(op).arch} has no mma.sync"
    if kind not in ("bf16", "f16"):
        return f"mma.sync here takes bf16 or f16 operands, not {kind} (f32 runs on the FMA loop)"
    if m % 16 or n % 8 or k % 16:
        return f"mma.sync needs M a multiple of 16, N of 8 and K of 16 (M={m}, N={n}, K={k})"
    wm, wn = warps_v2(m, n, warps)
    if wm * wn != warps or m % (16 * wm) or n % (8 * wn):
        return f"{warps} warps do not tile a {m}x{n} accumulator in 16x8 tiles"
    return None


def choose(op: DotOp, instr: str = "auto") -> tuple[str, NvidiaMmaLayoutAttr | None]:
    """The lowering of `op` (`wgmma`, `mma_sync` or `fma`) and its accumulator layout."""
    (m, k), n = op.a.type.get_shape(), op.b.type.get_shape()[1]
    kind = _type_name(op.a.type.element_type)
    warps = threads_per_block(op.acc.type.encoding) // 32
    why = {
        "wgmma": _why_not_wgmma(op, m, n, k, kind, warps),
        "mma_sync": _why_not_mma_sync(op, m, n, k, kind, warps),
        "fma": None,
    }
    if instr != "auto" and why[instr] is not None:
        raise TilecError(f"accelerate-matmul: instr={instr} cannot lower this layout.dot: {why[instr]}", op=op)
    order = (instr,) if instr != "auto" else ("wgmma", "mma_sync", "fma")
    pick = next(i for i in order if why[i] is None)
    if pick == "wgmma":
        wm, wn = warps_v3(m, warps)
        return pick, NvidiaMmaLayoutAttr(NvidiaMmaLayout(3, [wm, wn], [64, min(256, n // wn), 16]))
    if pick == "mma_sync":
        wm, wn = warps_v2(m, n, warps)
        return pick, NvidiaMmaLayoutAttr(NvidiaMmaLayout(2, [wm, wn], [16, 8]))
    return pick, None


# ----------------------------------------------------------------------------- rewriting


class _Emitter:
    """Inserts before the dot, with its location."""

    def __init__(self, dot: DotOp):
        self.dot = dot

    def __call__(self, op: Operation) -> Operation:
        copy_loc(self.dot, op)
        Rewriter.insert_op(op, InsertPoint.before(self.dot))
        return op


def _alloc(launch: LaunchOp, dot: DotOp, t: TensorViewType, name: str, after: SSAValue | None = None) -> SSAValue:
    """A shared buffer at the start of the launch body (after `after`, the buffer
    allocated just before)."""
    body: Block = launch.body.block
    op = AllocOp(t)
    copy_loc(dot, op)
    op.result.name_hint = name
    if after is not None:
        Rewriter.insert_op(op, InsertPoint.after(after.owner))
    else:
        first = body.first_op
        Rewriter.insert_op(op, InsertPoint.before(first) if first is not None else InsertPoint.at_end(body))
    return op.result


def _nvmma_view(element: Attribute, rows: int, cols: int) -> TensorViewType:
    bits = element_bytes(element) * 8
    nv = NvmmaSharedLayout(shared_swizzle(rows, cols, bits), bits, False)
    return TensorViewType(element, ComposedLayoutAttr(NvmmaComposed(nv, [rows, cols])), "smem")


def _copyable_load(v: SSAValue, dot: DotOp) -> LoadOp | None:
    """The `layout.load` of an unmasked static 2-D global view that only `dot` uses."""
    ld = v.owner
    if not isinstance(ld, LoadOp) or ld.mask is not None or ld.other is not None:
        return None
    if len(list(v.uses)) != 1 or ld.parent_block() is not dot.parent_block():
        return None
    vt = ld.view.type
    if vt.memory_space != "gmem" or vt.is_masked or vt.vec_layout is not None:
        return None
    if vt.element_type != v.type.element_type:
        return None
    return ld


def _async_ok(view: SSAValue) -> bool:
    """Whether the target has `cp.async` and the global tile `view` moves in 16-byte
    vectors along its rows (contiguous, aligned: `vectorize`'s own test)."""
    t: TensorViewType = view.type
    eb = element_bytes(t.element_type)
    cols = views.mode_sizes(t.cute_layout)[1]
    return (target_of(view.owner).has("cp.async") and isinstance(cols, int) and cols * eb % 16 == 0
            and view_vector_ok(view, 1, 16 // eb, eb))


def _stage(emit: _Emitter, v: SSAValue, smem: SSAValue, dot: DotOp, dead: list[Operation],
           async_: bool = False) -> None:
    """Put operand `v` into the shared buffer `smem`: a copy of the global view it is
    loaded from (`cp.async` where `async_` and `_async_ok`), or a store of its
    registers."""
    ld = _copyable_load(v, dot)
    if ld is not None:  # where the load was: global memory is read at the same point
        strategy = "async" if async_ and _async_ok(ld.view) else None
        cp = CopyOp(ld.view, smem, strategy=strategy)
        copy_loc(ld, cp)
        Rewriter.insert_op(cp, InsertPoint.before(ld))
        dead.append(ld)
    else:
        emit(StoreOp(v, smem))


def _convert(emit: _Emitter, v: SSAValue, t: TensorType) -> SSAValue:
    if v.type == t:
        return v
    return emit(ConvertLayoutOp(v, t)).results[0]


def _lower_dot(dot: DotOp, instr: str) -> None:
    if role_of(dot) is not None:
        raise TilecError("accelerate-matmul: a layout.dot inside a layout.warp_specialize region is not "
                         "lowered (its shared staging waits at block-wide barriers, which the region's "
                         "warps alone never reach): write the region's layout.mma", op=dot)
    how, mma = choose(dot, instr)
    launch = _launch_of(dot)
    loop = in_loop(dot, launch)
    emit = _Emitter(dot)
    (m, k), n = dot.a.type.get_shape(), dot.b.type.get_shape()[1]
    et = dot.a.type.element_type
    acc_t: TensorType = dot.acc.type
    dead: list[Operation] = []
    if how == "fma":
        result = _fma(emit, dot, launch, loop, m, n, k, dead)
    else:
        a_regs = how == "wgmma" and _copyable_load(dot.a, dot) is None
        la = TensorType(et, [m, k], DotOperandLayoutAttr(DotOperandLayout(0, mma.data, 2)))
        sa = None if a_regs else _alloc(launch, dot, _nvmma_view(et, m, k), "dot_a")
        sb = _alloc(launch, dot, _nvmma_view(et, k, n), "dot_b", sa)
        async_ = how == "mma_sync"  # Hopper's loop copies are left to TMA (a pipeliner's)
        if sa is not None:
            _stage(emit, dot.a, sa, dot, dead, async_)
        _stage(emit, dot.b, sb, dot, dead, async_)
        emit(BarrierOp())
        mma_acc_t = TensorType(acc_t.element_type, [m, n], mma)
        if how == "wgmma":
            opa, opb = (_convert(emit, dot.a, la) if a_regs else sa), sb
            acc = _convert(emit, dot.acc, mma_acc_t)
            d = emit(MmaOp(opa, opb, acc)).results[0]
        else:
            d = _mma_sync_steps(emit, dot, sa, sb, mma, _convert(emit, dot.acc, mma_acc_t), loop)
        if how == "wgmma" and loop:
            emit(BarrierOp())
        result = _convert(emit, d, acc_t)
    dot.result.replace_all_uses_with(result)
    Rewriter.erase_op(dot)
    for op in dead:
        Rewriter.erase_op(op)


K_STEP = 16
"""The depth of one mma.sync step of 16-bit operands (m16n8k16): the slice of K whose
fragments a thread holds at a time."""


def _mma_sync_steps(emit: _Emitter, dot: DotOp, sa: SSAValue, sb: SSAValue, mma: NvidiaMmaLayoutAttr,
                    acc: SSAValue, loop: bool) -> SSAValue:
    """The mma.sync chain of `dot` on its staged operands (the pass docstring): per
    `K_STEP`-deep slice of K, A's `m x K_STEP` and B's `K_STEP x n` tiles of the shared
    buffers (`layout.tile`) loaded in the operand layouts (ldmatrix) and their
    `layout.mma` into the accumulator, the loads of slice j + 1 before the mma of
    slice j; inside a loop a barrier after the last loads (the next iteration's writes
    wait for the reads). Returns the last mma's result."""
    (m, k), n = dot.a.type.get_shape(), dot.b.type.get_shape()[1]
    et = dot.a.type.element_type
    steps = k // K_STEP if k % K_STEP == 0 and k > K_STEP else 1
    depth = k // steps
    la = TensorType(et, [m, depth], DotOperandLayoutAttr(DotOperandLayout(0, mma.data, 2)))
    lb = TensorType(et, [depth, n], DotOperandLayoutAttr(DotOperandLayout(1, mma.data, 2)))

    c0 = _index(emit, 0) if steps > 1 else None

    def load(j: int) -> tuple[SSAValue, SSAValue]:
        if steps == 1:
            ta, tb = sa, sb
        else:
            cj = c0 if j == 0 else _index(emit, j)
            ta = emit(TileOp(sa, [c0, cj], [m, depth])).results[0]
            tb = emit(TileOp(sb, [cj, c0], [depth, n])).results[0]
        return emit(LoadOp(ta, la)).results[0], emit(LoadOp(tb, lb)).results[0]

    cur = load(0)
    for j in range(steps):
        nxt = load(j + 1) if j + 1 < steps else None
        if nxt is None and loop:
            emit(BarrierOp())
        acc = emit(MmaOp(*cur, acc)).results[0]
        cur = nxt
    return acc


def _index(emit: _Emitter, v: int) -> SSAValue:
    c = emit(arith.ConstantOp(IntegerAttr(v, IndexType()))).results[0]
    c.name_hint = f"c{v}"
    return c


def _slice(view: SSAValue, pattern: list[int], coord: SSAValue) -> SliceOp:
    t: TensorViewType = view.type
    kept = views.sliced_layout(t.cute_layout, pattern, [])
    rt = t.with_(layout=CuteLayoutAttr(kept))
    return SliceOp.build(operands=[view, [coord]],
                         properties={"pattern": DenseArrayBase.from_list(i64, pattern)}, result_types=[rt])


def _fma(emit: _Emitter, dot: DotOp, launch: LaunchOp, loop: bool, m: int, n: int, k: int,
         dead: list[Operation]) -> SSAValue:
    """The FMA loop (the pass docstring); returns the accumulator after it."""
    et = dot.a.type.element_type
    acc_t: TensorType = dot.acc.type
    enc = acc_t.encoding
    pad = max(1, 4 // element_bytes(et))
    sa = _alloc(launch, dot, TensorViewType(et, cute.make_layout((m, k), (k + pad, 1)), "smem"), "dot_a")
    sb = _alloc(launch, dot, TensorViewType(et, cute.make_layout((k, n), (n, 1)), "smem"), "dot_b", sa)
    _stage(emit, dot.a, sa, dot, dead)
    _stage(emit, dot.b, sb, dot, dead)
    emit(BarrierOp())
    lo, hi, step = _index(emit, 0), _index(emit, k), _index(emit, 1)
    body = Block(arg_types=[IndexType(), acc_t])
    kk, acc = body.args
    kk.name_hint = "dot_k"
    f32 = Float32Type()

    def operand(view: SSAValue, pattern: list[int], axis: int, extent: int) -> SSAValue:
        ops: list[Operation] = []
        sl = _slice(view, pattern, kk)
        ops.append(sl)
        ld = LoadOp(sl.results[0], TensorType(et, [extent], SliceLayoutAttr(IntAttr(axis), enc)))
        ops.append(ld)
        v = ld.results[0]
        if et != f32:
            ext = arith.ExtFOp(v, TensorType(f32, [extent], v.type.encoding))
            ops.append(ext)
            v = ext.results[0]
        shape = [extent, 1] if axis == 1 else [1, extent]
        ex = ExpandDimsOp.build(operands=[v], properties={"axis": IntegerAttr(axis, 64)},
                                result_types=[TensorType(f32, shape, enc)])
        bc = BroadcastOp.build(operands=[ex.results[0]], result_types=[TensorType(f32, [m, n], enc)])
        ops += [ex, bc]
        for o in ops:
            copy_loc(dot, o)
            body.add_op(o)
        return bc.results[0]

    col = operand(sa, [WILDCARD, DYNAMIC], 1, m)
    row = operand(sb, [DYNAMIC, WILDCARD], 0, n)
    mul = arith.MulfOp(col, row)
    add = arith.AddfOp(acc, mul.result)
    yld = scf.YieldOp(add.result)
    for o in (mul, add, yld):
        copy_loc(dot, o)
        body.add_op(o)
    for_op = emit(scf.ForOp(lo, hi, step, [dot.acc], body))
    if loop:
        emit(BarrierOp())
    return for_op.results[0]
