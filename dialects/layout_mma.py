"""`layout.mma`: a matrix multiply-accumulate on distributed tensors, as tensor cores do
it (Triton's `tt.dot` on `#mma` / `#dot_op` layouts, Gluon's `mma_v2`).

    %d = layout.mma %a, %b, %acc : tensor<64x32xbf16, #A>, tensor<32x64xbf16, #B>,
                                   tensor<64x64xf32, #C>

`%d = %acc + %a @ %b`, with `%a` of shape M x K in `#layout.dot_op<opIdx = 0, parent =
#C, kWidth = w>`, `%b` of shape K x N in `#layout.dot_op<opIdx = 1, parent = #C, kWidth
= w>` and `%acc` (and the result) of shape M x N in an `#layout.nvidia_mma` `#C`: every
thread already holds the operand elements the MMA instructions read, so the op moves no
data between threads. Element types (`a` x `b` -> `acc`): f16 x f16, bf16 x bf16 and f32
x f32 (tensor cores read f32 as tf32) -> f32; i8 x i8 -> i32. `kWidth` is at least 32
bits of elements (2 for f16/bf16, 1 for tf32, 4 for i8), so that a register holds whole
K pairs (quads) as `mma.sync` reads them.

Semantics (CPU reference executor): integers exactly (i8 products summed in i32,
wrapping); floats: products in f32 summed in f32, in an unspecified order. A result of
a float `layout.mma` is therefore compared with a tolerance derived from K and the
input type (`mma_error_bound`, docs/testing.md), not bit for bit.

The op must be inside a `layout.launch` whose block has the threads the layouts span.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    IntegerAttr,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException

from tilec.support.diagnostics import TilecError
from tilec.support.target import TARGET_ATTR, target

from .cuda_wgmma import WGMMA_PENDING_MAX
from .dtypes import operand_type_name
from .effects import Synchronizes
from .layout_attrs import TensorViewType, distributed_tensor_encoding, threads_per_block
from .layout_roles import enclosing_launch_op, region_threads
from .mma_layouts import DotOperandLayoutAttr, NvidiaMmaLayoutAttr
from .verifier import check as _check

__all__ = ["MMA_OPS", "MMA_TYPES", "MmaOp", "MmaWaitOp", "mma_error_bound", "mma_kind", "wgmma_allowed"]


class MmaEffects(MemoryEffect):
    """What a `layout.mma` does to memory: it reads the shared memory of its view
    operands (a version-3, wgmma, accumulator's `a` and `b`); registers are values, not
    memory. An mma of registers only has no effect (as `Pure`), so dead-code
    elimination may drop it and CSE merge it; one that reads shared memory may be
    merged with an identical one only when nothing writes between (xDSL's CSE), and
    never moves across a barrier or an mbarrier wait (they write all memory). An
    asynchronous one (`{async}`) also opens a group of its warpgroup's MMAs in flight,
    which a `layout.mma_wait` counts: state no value names, so it writes (unnamed
    memory) and is never merged, dropped or moved across another such op."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:  # type: ignore[override]
        out = {
            EffectInstance(MemoryEffectKind.READ, v)
            for v in (op.operands[0], op.operands[1])
            if isinstance(v.type, TensorViewType)
        }
        if isinstance(op, MmaOp) and op.is_async:
            out.add(EffectInstance(MemoryEffectKind.WRITE))
        return out


_type_name = operand_type_name


MMA_TYPES: dict[str, tuple[str, str, int]] = {
    "f16": ("f16", "f32", 16),
    "bf16": ("bf16", "f32", 16),
    "f32": ("tf32", "f32", 32),
    "i8": ("s8", "i32", 8),
}
"""Operand element type -> (PTX operand type, accumulator type, operand bits)."""


def mma_kind(a: Attribute) -> tuple[str, str, int] | None:
    """(PTX operand type, accumulator type, operand bits) of an operand element type,
    or None when tensor cores do not take it."""
    return MMA_TYPES.get(_type_name(a))


EPS_F32 = 2.0**-24
"""Unit roundoff of f32 (round to nearest)."""

TF32_INPUT_ERROR = 2.0**-10
"""Relative error of reading an f32 operand as tf32 (10 fraction bits; the hardware
may truncate, so a full tf32 ulp)."""

FP8_TYPES = ("e4m3", "e5m2")
"""The 8-bit float operand types (`_type_name`): wgmma `m64nNk32`, K-major, from shared memory."""

FP8_ACCUMULATION_EPS = 2.0**-13
"""The unit roundoff `mma_error_bound` takes for fp8 wgmma's accumulation: the
DeepSeek-V3 report (section 3.3.2) measured about 14 bits kept on H800; one bit of
margin."""


def mma_error_bound(k: int, operand_type: str) -> tuple[float, float]:
    """(gamma, input) such that two evaluations of a float `acc + a @ b` (f32 products,
    f32 sums in any order) differ, element (i, j), by at most

        2 * gamma * (|acc_ij| + sum_k |a_ik| |b_kj|)
        + 2 * input * sum_k |a_ik| |b_kj|

    gamma = (1 + u)^n - 1 with n = K + 1 additions and u = 2^-24 (Higham's bound of a
    recursive or blocked sum: each evaluation is within gamma of the exact value; his
    n u / (1 - n u) bounds it only while n u < 1, which fp8's u passes at K = 8192);
    `input` is the relative error of rounding the operands to the instruction's input
    type: 0 for f16/bf16 and the 8-bit floats (exact in f32, and so are their
    products), 2^-10 for tf32. For 8-bit operands (`e4m3`, `e5m2`) u is
    `FP8_ACCUMULATION_EPS`: Hopper's fp8 wgmma keeps fewer bits than f32 while it
    accumulates. Integer MMA is exact (this function is for float operand types
    only)."""
    n = k + 1
    u = FP8_ACCUMULATION_EPS if operand_type in FP8_TYPES else EPS_F32
    gamma = math.expm1(n * math.log1p(u))
    return gamma, (TF32_INPUT_ERROR if operand_type == "f32" else 0.0)


@irdl_op_definition
class MmaOp(IRDLOperation):
    """`%d = %acc + %a @ %b` on tensor cores: `%a` (M x K) and `%b` (K x N) in the dot
    operand layouts (`#layout.dot_op`, opIdx 0 and 1) of the accumulator's
    `#layout.nvidia_mma`, `%acc` and the result (M x N) in that layout.

        %d = layout.mma %a, %b, %acc : tensor<16x16xbf16, #A>, tensor<16x8xbf16, #B>,
                                       tensor<16x8xf32, #C>

    Element types: f16 x f16, bf16 x bf16, f32 (as tf32) x f32 -> f32; i8 x i8 -> i32.

    With a version-3 accumulator (Hopper's `wgmma`, `instrShape = [64, N, 16]`, whole
    warpgroups), `%b` is a shared-memory view (K x N) and `%a` a shared-memory view (M x
    K) or registers in `#layout.dot_op<opIdx = 0, parent = #C, kWidth = 2>`; bf16 or
    f16 into f32. 8-bit floats (f8E4M3FN, f8E5M2, any pair) take `instrShape = [64, N,
    32]` (`m64nNk32`), both operands shared-memory views that wgmma reads K-major. `lower-to-gpu` emits `wgmma.mma_async.m64nNk16` per warpgroup tile
    and K step with matrix descriptors it fits to the views' layouts (NVMMA swizzles of
    128/64/32 bytes or 8x16-byte core matrices, K- or MN-major; otherwise a located
    error), between `wgmma.fence` and `commit_group` / `wait_group 0`: the result is
    complete when the op returns. The module target, if named, must have wgmma
    (sm_90a; kernels with wgmma compile for it). The shared operands are read after
    the barrier that must precede the op (as any read of shared memory).
    `kWidth` of both operands is equal and holds at least 32 bits. Integers are exact
    (wrapping in i32); floats are f32 products summed in f32 in an unspecified order,
    compared with the tolerance of `mma_error_bound` (docs/testing.md). `lower-to-gpu`
    lowers version-2 layouts to `mma.sync.aligned` (inline PTX): m16n8k16 for bf16/f16
    (kWidth 2), m16n8k8 for tf32 (kWidth 1), m16n8k32 for i8 (kWidth 4), or a multiple
    of those kWidths (the fragments' K slots renamed alike in A and B); other cases are
    a located error there, as is a module target below sm_80. examples/gemm_bf16.mlir
    is a whole GEMM around it: a cp.async pipeline, ldmatrix into the operand layouts,
    the accumulator carried through an `scf.for`, a coalesced epilogue.

    `{async}` (version 3 only; Triton's `warp_group_dot` with `isAsync`): the op issues
    its wgmma and returns with them in flight, as one group of its warpgroup's
    asynchronous MMAs (`commit_group`, no wait). Its result may only be the
    accumulator of another version-3 `layout.mma`, an operand of `layout.mma_wait`
    (whose result is what other ops read) or yielded to one of those; its shared
    operands are read until a `layout.mma_wait` retires its group, so they must not be
    written before:

        %d = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
        %r = layout.mma_wait %d {pending = 0 : i64} : !ACC"""

    name = "layout.mma"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    a = operand_def(TensorType | TensorViewType)
    b = operand_def(TensorType | TensorViewType)
    acc = operand_def(_T)
    result = result_def(_T)
    async_ = opt_prop_def(UnitAttr, prop_name="async")
    assembly_format = "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MmaEffects())

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue, is_async: bool = False):
        props = {"async": UnitAttr()} if is_async else {}
        super().__init__(operands=[a, b, acc], result_types=[acc.type], properties=props)

    @property
    def is_async(self) -> bool:
        """Whether the op returns with its wgmma in flight (`{async}`)."""
        return self.async_ is not None

    def verify_(self) -> None:
        c = self.acc.type.encoding if isinstance(self.acc.type, TensorType) else None
        if isinstance(c, NvidiaMmaLayoutAttr) and c.data.version == 3:
            _verify_wgmma(self)
            if self.is_async:
                _verify_async_uses(self.result, "the result of an asynchronous layout.mma")
            return
        _check(not self.is_async,
               "only a version-3 (wgmma) layout.mma is asynchronous ({async}): mma.sync completes "
               "in its warp's registers")
        for what, v in (("a", self.a), ("b", self.b)):
            _check(not isinstance(v.type, TensorViewType),
                   f"operand {what} is a view ({v.type}): only a version-3 (wgmma) accumulator "
                   "reads operands from shared memory")
        ts = []
        for what, v in (("a", self.a), ("b", self.b), ("acc", self.acc)):
            try:
                distributed_tensor_encoding(v.type)
            except VerifyException as e:
                raise VerifyException(f"operand {what}: {e}") from None
            ts.append(v.type)
        at, bt, ct = ts
        launch = enclosing_launch_op(self)
        _check(launch is not None, "layout.mma must be inside a layout.launch")
        _check_target(self)
        for what, t in (("a", at), ("b", bt), ("acc", ct)):
            _check(len(t.get_shape()) == 2, f"layout.mma multiplies matrices: {what} has shape {list(t.get_shape())}")
        (m, k), (k2, n), (m2, n2) = at.get_shape(), bt.get_shape(), ct.get_shape()
        _check(k == k2 and (m, n) == (m2, n2),
               f"shapes do not multiply: a is {m}x{k}, b is {k2}x{n}, acc is {m2}x{n2} "
               f"(expected MxK, KxN and MxN)")
        c = ct.encoding
        _check(isinstance(c, NvidiaMmaLayoutAttr),
               f"acc must be in a #layout.nvidia_mma layout, got {c}")
        for what, t, idx in (("a", at, 0), ("b", bt, 1)):
            e = t.encoding
            _check(isinstance(e, DotOperandLayoutAttr) and e.data.op_idx == idx and e.parent == c,
                   f"{what} must be in #layout.dot_op<opIdx = {idx}, parent = <acc's layout>, ...>, "
                   f"got {e} (acc's layout is {c})")
        _check(at.encoding.data.k_width == bt.encoding.data.k_width,
               f"a and b must have the same kWidth, got {at.encoding.data.k_width} and "
               f"{bt.encoding.data.k_width}")
        ea, eb, ec = at.element_type, bt.element_type, ct.element_type
        kind = mma_kind(ea)
        _check(ea == eb and kind is not None and _type_name(ec) == kind[1],
               f"layout.mma takes f16 x f16, bf16 x bf16 or f32 (tf32) x f32 into f32, or "
               f"i8 x i8 into i32; got {_type_name(ea)} x {_type_name(eb)} into {_type_name(ec)}")
        kw, bits = at.encoding.data.k_width, kind[2]
        _check(kw * bits >= 32,
               f"kWidth = {kw} of {_type_name(ea)} holds {kw * bits} bits; the MMA operand "
               f"registers need at least 32 (kWidth >= {32 // bits})")
        n = threads_per_block(ct.encoding)
        have = region_threads(self, launch.num_threads)
        _check(n == have, f"layout {ct.encoding} spans {n} threads but the block has {have}")


def _verify_wgmma(op: MmaOp) -> None:
    """A version-3 accumulator: `wgmma.mma_async.m64nNk16` (module docstring of
    `MmaOp`)."""
    try:
        distributed_tensor_encoding(op.acc.type)
    except VerifyException as e:
        raise VerifyException(f"operand acc: {e}") from None
    ct = op.acc.type
    c = ct.encoding
    launch = enclosing_launch_op(op)
    _check(launch is not None, "layout.mma must be inside a layout.launch")
    _check_target(op, wgmma=True)
    bt, at = op.b.type, op.a.type
    fp8 = _type_name(at.element_type) in FP8_TYPES and _type_name(bt.element_type) in FP8_TYPES
    k_step = 32 if fp8 else 16
    m_i, _, k_i = c.data.instr_shape
    _check(m_i == 64 and k_i == k_step,
           f"a version-3 (wgmma) accumulator of layout.mma needs instrShape [64, N, {k_step}] "
           f"(m64nNk{k_step}, {'8-bit' if fp8 else '16-bit'} operands), got {list(c.data.instr_shape)}")
    _check(isinstance(bt, TensorViewType) and bt.memory_space == "smem",
           f"wgmma reads operand b from shared memory: b must be a smem view, got {bt}")
    a_smem = isinstance(at, TensorViewType)
    _check(a_smem or not fp8, f"wgmma reads 8-bit float operand a from shared memory: a must be a smem view, got {at}")
    if a_smem:
        _check(at.memory_space == "smem", f"operand a of wgmma is registers or a smem view, got {at}")
    else:
        try:
            distributed_tensor_encoding(at)
        except VerifyException as e:
            raise VerifyException(f"operand a: {e}") from None
        e = at.encoding
        _check(isinstance(e, DotOperandLayoutAttr) and e.data.op_idx == 0 and e.parent == c
               and e.data.k_width == 2,
               f"a in registers must be in #layout.dot_op<opIdx = 0, parent = <acc's layout>, kWidth = 2> "
               f"(the wgmma A fragment), got {e}")
    for what, t in (("a", at), ("b", bt)):
        if isinstance(t, TensorViewType):
            _check(not t.is_masked and t.vec_layout is None,
                   f"the smem view of operand {what} must be unmasked and of scalars, got {t}")
            shape = t.shape
            _check(len(shape) == 2 and all(isinstance(x, int) for x in shape),
                   f"operand {what} must be a static 2-D view, got shape {list(shape)}")
        else:
            shape = t.get_shape()
        _check(len(shape) == 2, f"layout.mma multiplies matrices: {what} has shape {list(shape)}")
    (m, k), (k2, n) = (at.shape if a_smem else at.get_shape()), bt.shape
    (m2, n2) = ct.get_shape()
    _check(k == k2 and (m, n) == (m2, n2),
           f"shapes do not multiply: a is {m}x{k}, b is {k2}x{n}, acc is {m2}x{n2} "
           f"(expected MxK, KxN and MxN)")
    _check(k % k_step == 0, f"wgmma steps K by {k_step}: K = {k} is not a multiple of {k_step}")
    ea, eb = at.element_type, bt.element_type
    _check((fp8 or (ea == eb and _type_name(ea) in ("bf16", "f16"))) and _type_name(ct.element_type) == "f32",
           f"wgmma in layout.mma takes bf16 x bf16, f16 x f16 or 8-bit floats (e4m3/e5m2, any pair) into f32; "
           f"got {_type_name(ea)} x {_type_name(eb)} into {_type_name(ct.element_type)}")
    nt = threads_per_block(c)
    have = region_threads(op, launch.num_threads)
    _check(nt == have, f"layout {c} spans {nt} threads but the block has {have}")


def _wgmma_acc(t: Attribute) -> bool:
    """Whether `t` is a tensor in a version-3 `#layout.nvidia_mma` layout."""
    e = t.encoding if isinstance(t, TensorType) else None
    return isinstance(e, NvidiaMmaLayoutAttr) and e.data.version == 3


def _verify_async_uses(value: SSAValue, what: str) -> None:
    """Every use of an in-flight accumulator is one that reads no register: the
    accumulator of a version-3 `layout.mma` (the tensor cores chain it), an operand of
    `layout.mma_wait`, or an `scf.yield` (the loop or branch result then is in flight
    as well; the executor checks its uses when it runs)."""
    for use in value.uses:
        u = use.operation
        if (isinstance(u, MmaOp) and use.index == 2) or isinstance(u, MmaWaitOp) or u.name == "scf.yield":
            continue
        raise VerifyException(
            f"{what} is in flight until a layout.mma_wait retires its group: it may be the "
            f"accumulator of another version-3 layout.mma, an operand of layout.mma_wait or yielded, "
            f"not an operand of {u.name} (read the layout.mma_wait's result)"
        )


MMA_PENDING_MAX = 32
"""`layout.mma_wait`'s most `pending`: ops in flight in the IR, which lower-to-gpu may issue
as fewer wgmma groups (a run of column chunks on one A is one; the hardware's wait counts
at most `WGMMA_PENDING_MAX` groups, which `cuda.wgmma_wait` verifies)."""


@irdl_op_definition
class MmaWaitOp(IRDLOperation):
    """Wait until at most `pending` groups of this warpgroup's asynchronous
    `layout.mma` (`{async}`) are in flight (`wgmma.wait_group pending`; Triton's
    `warp_group_dot_wait {pendings}`), and give back `values`, accumulators of such
    ops: a result is complete when its group is not among the `pending` most recent
    (otherwise it is still in flight, and may only be passed on as an async result is).
    The shared operands of the retired groups may be written after it.

        %r:2 = layout.mma_wait %d0, %d1 {pending = 1 : i64} : !ACC, !ACC
        layout.mma_wait {pending = 0 : i64}

    Each group is one `layout.mma {async}` of the warpgroups that run it (inside a
    `layout.warp_specialize` region, that region's). `pending` is in [0,
    `MMA_PENDING_MAX`]: above 7 (`wgmma.wait_group`'s most) only where the ops in flight
    are issued as fewer wgmma groups (lower-to-gpu's runs of column chunks on one A,
    whose wait then counts the hardware's groups, at most 7; passes/lower_to_gpu/wgmma.py). The
    verifier takes a result of a wait with `pending` > 0 as possibly in flight (its
    uses are those of an async result; wait again with 0 to read it) unless it is
    the result of an async version-3 `layout.mma` of the wait's block followed there,
    before the wait, by at least `pending` more version-3 `layout.mma` (each commits a
    group, so its group is older than the `pending` most recent: complete, readable;
    FlashAttention-3's wait for S while P V runs on), or an argument of the wait's
    block (a loop-carried accumulator: its group was committed before the trip)
    with at least `pending` version-3 `layout.mma` of the block before the wait (the
    block-scaled GEMM passes the partial carried from the previous trip through such
    a wait after the trip's first wgmma, so that ptxas reads it as retired,
    api/gemm_programs.py). The CPU
    reference executor reports a read of an accumulator still in flight, and a write
    of shared memory that an MMA in flight still reads.

    `after` (f32 tensors or scalars, none by default; `after %x : T` after the values'
    types): values computed before the wait that it is to be issued after, an order
    on the GPU only (nothing passes through; the executor ignores them):

        %o = layout.mma_wait %pv after %l {pending = 0 : i64} : !ACC after !L

    The CUDA backend makes the wait depend on each thread's registers of them (a
    check of each that never branches on finite values: `cuda.wgmma_wait_group`), as
    ptxas otherwise issues the wait as early as the instructions before it allow in
    its basic block, ahead of the independent math between the mma and the wait that
    the mma should run under (FlashAttention-3's softmax under P V)."""

    name = "layout.mma_wait"
    traits = traits_def(Synchronizes())
    pending = prop_def(IntegerAttr)
    values = var_operand_def()
    after = var_operand_def()
    outs = var_result_def()
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    def __init__(self, values: Sequence[SSAValue], pending: int = 0, after: Sequence[SSAValue] = ()):
        super().__init__(
            operands=[list(values), list(after)],
            properties={"pending": IntegerAttr(pending, i64)},
            result_types=[[SSAValue.get(v).type for v in values]],
        )

    @property
    def pending_groups(self) -> int:
        return self.pending.value.data

    @classmethod
    def parse(cls, parser: Parser) -> MmaWaitOp:
        pos = parser.pos

        def operands():
            return parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            ) or []

        def types():
            return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)

        values = operands()
        after = operands() if parser.parse_optional_keyword("after") is not None else []
        attrs = parser.parse_optional_attr_dict()
        value_types, after_types = [], []
        if parser.parse_optional_punctuation(":") is not None:
            if values:
                value_types = types()
            if parser.parse_optional_keyword("after") is not None:
                after_types = types()
        if len(value_types) != len(values) or len(after_types) != len(after):
            parser.raise_error(f"layout.mma_wait: {len(values)} values and {len(after)} after, but "
                               f"{len(value_types)} and {len(after_types)} types", pos, parser.pos)
        pending = attrs.pop("pending", None)
        attrs.pop("operandSegmentSizes", None)
        if not isinstance(pending, IntegerAttr):
            parser.raise_error("layout.mma_wait needs {pending = N : i64}", pos, parser.pos)
        op = cls([parser.resolve_operand(v, t) for v, t in zip(values, value_types)], pending.value.data,
                 [parser.resolve_operand(v, t) for v, t in zip(after, after_types)])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.values:
            printer.print_string(" ")
            printer.print_list(self.values, printer.print_operand)
        if self.after:
            printer.print_string(" after ")
            printer.print_list(self.after, printer.print_operand)
        printer.print_string(f" {{pending = {self.pending_groups} : i64}}")
        if self.values or self.after:
            printer.print_string(" :")
        if self.values:
            printer.print_string(" ")
            printer.print_list([v.type for v in self.values], printer.print_attribute)
        if self.after:
            printer.print_string(" after ")
            printer.print_list([v.type for v in self.after], printer.print_attribute)

    def verify_(self) -> None:
        p = self.pending_groups
        _check(0 <= p <= MMA_PENDING_MAX, f"layout.mma_wait pending must be in [0, {MMA_PENDING_MAX}], got {p}")
        _check(enclosing_launch_op(self) is not None, "layout.mma_wait must be inside a layout.launch")
        for i, v in enumerate(self.values):
            _check(_wgmma_acc(v.type),
                   f"layout.mma_wait waits for accumulators of asynchronous layout.mma: operand {i} "
                   f"is {v.type}, not a tensor in a version-3 #layout.nvidia_mma layout")
        _check([v.type for v in self.values] == [r.type for r in self.outs],
               "layout.mma_wait gives back one result per value, of its type")
        for i, v in enumerate(self.after):
            elem = v.type.element_type if isinstance(v.type, TensorType) else v.type
            _check(elem == f32, f"layout.mma_wait's `after` values are f32 tensors or scalars: {i} is {v.type}")
        if p:
            for v, r in zip(self.values, self.outs):
                if groups_after(v, self) < p:
                    _verify_async_uses(r, f"a result of layout.mma_wait {{pending = {p}}}")


def groups_after(value: SSAValue, wait: Operation) -> int:
    """A lower bound on the wgmma groups committed after the one that computes `value`
    and before `wait`: where `value` is the result of an async version-3 `layout.mma`
    in `wait`'s block, the version-3 `layout.mma` between the two in that block; where
    it is an argument of `wait`'s block (a loop-carried accumulator, whose group was
    committed before the trip began), those from the block's start to `wait` (ops
    nested in others may commit more: a lower bound still); 0 otherwise."""
    mma = value.owner
    block = wait.parent_block()
    if isinstance(value, BlockArgument) and block is not None and value.block is block:
        op = block.first_op
    elif not isinstance(mma, MmaOp) or not mma.is_async or mma.parent_block() is not block:
        return 0
    else:
        op = mma.next_op
    n = 0
    while op is not None and op is not wait:
        if isinstance(op, MmaOp) and _wgmma_acc(op.acc.type):
            n += 1
        op = op.next_op
    return n if op is wait else 0


MMA_OPS = (MmaOp, MmaWaitOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""


def wgmma_allowed(op: Operation) -> bool:
    """Whether a version-3 (wgmma) `layout.mma` may go where `op` is: its module names
    no target (the default, Hopper: kernels with wgmma compile for sm_90a) or names
    one that has wgmma (sm_90a). The rule `_check_target` applies, for passes that
    choose."""
    top = op
    while top.parent_op() is not None:
        top = top.parent_op()
    attr = top.attributes.get(TARGET_ATTR)
    if attr is None:
        return True
    try:
        return target(getattr(attr, "data", str(attr))).has("wgmma")
    except TilecError:
        return False


def _check_target(op: Operation, wgmma: bool = False) -> None:
    """layout.mma is `mma.sync`: the module's target (`tilec.target`) must be sm_80 or
    newer (tilec knows no older one); with `wgmma`, a target that has it (sm_90)."""
    top = op
    while top.parent_op() is not None:
        top = top.parent_op()
    attr = top.attributes.get(TARGET_ATTR)
    if attr is None:
        return
    arch = getattr(attr, "data", str(attr))
    try:
        tgt = target(arch)
    except TilecError:
        raise VerifyException(
            f"layout.mma needs mma.sync, which sm_80 and newer have; the module's target is {arch}"
        ) from None
    if wgmma and not tgt.has("wgmma"):
        raise VerifyException(
            f"a version-3 (wgmma) layout.mma needs wgmma, which sm_90 has; the module's target is {arch}"
        )
