"""The `cuda` dialect's warpgroup MMA ops (Hopper, sm_90a): `wgmma.mma_async` with both
operands in shared memory, and its fence / commit / wait. Each is executed by every
thread of a warpgroup (4 consecutive warps, `.sync.aligned`); the `cuda` target prints
them as inline PTX.

    cuda.wgmma_fence                                                 wgmma.fence
    %d:4 = cuda.wgmma %a[%ia], %b[%ib], %c0, %c1, %c2, %c3
        {n = 8 : i64, a_desc = array<i64: 128, 0, 1024>, b_desc = array<i64: 32, 0, 256>}
        : memref<1024xbf16, 3 : i64>, memref<128xbf16, 3 : i64>, f32, f32, f32, f32 -> f32, f32, f32, f32
                                wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
    cuda.wgmma_commit_group                                          wgmma.commit_group
    %e:4 = cuda.wgmma_wait_group 0, %d#0, ... : f32, ... -> f32, ...  wgmma.wait_group 0

`cuda.wgmma` computes `D = A B + C` with A `64 x K` read from `%a` from element
`%ia` on, B `K x n` read from `%b` from element `%ib` on (K = 16 for bf16/f16, both
operands of one type; K = 32 for the 8-bit floats f8E4M3FN / f8E5M2, any pair of them:
`m64nNk32.f32.e4m3.e5m2`, say, K-major only), K-major (A as M x K,
B as N x K, K contiguous: `imm-trans-a = imm-trans-b = 0`) or, with the unit
properties `a_mn_major` / `b_mn_major`, MN-major (`imm-trans` 1), each described by a
matrix descriptor built from its `[swizzle, LBO, SBO]` (bytes; `tilec.dialects.wgmma`
gives the addresses the hardware reads).

    %d:4 = cuda.wgmma_rs %b[%ib], %a0, ..., %a7, %c0, %c1, %c2, %c3
        {n = 8 : i64, b_desc = array<i64: 128, 0, 1024>} : memref<..., 3 : i64>, bf16, ..., f32, ... -> f32, ...

is the same with A from registers: each thread's 8 elements of A in the fragment
order of `mma.sync.m16n8k16`'s A (`cuda.mma_sync_fragment`), warp `w` of the
warpgroup giving rows `16 w .. 16 w + 15` (the `#layout.dot_op<opIdx = 0>` of a
version-3 accumulator with kWidth 2); printed as 4 packed 32-bit registers. C and D are the `n / 2` f32 accumulators of
each thread (`wgmma_accumulator`). A swizzled operand must sit at an address that is a
multiple of `8 * swizzle` bytes (the buffer's alignment; checked where the buffer is a
`memref.alloca`).

The instruction is asynchronous: D may be read only after a `cuda.wgmma_wait_group`
that covers its group, and the wait takes the values and gives them back so that
nothing reads them earlier (as Triton's `warpgroup_wait`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from .dtypes import operand_type_name
from .effects import Accesses, Synchronizes
from .errors import LayoutError
from .wgmma import WGMMA_N, WgmmaDescriptor, swizzle_repeat_bytes

WGMMA_PENDING_MAX = 7
"""The largest `N` of `wgmma.wait_group N` tilec prints (as for bulk groups)."""


def wgmma_type_name(t) -> str | None:
    """The PTX operand type of a `cuda.wgmma` element type, or None."""
    name = operand_type_name(t)
    return name if name in ("bf16", "f16", "e4m3", "e5m2") else None


FP8_WGMMA_TYPES = ("e4m3", "e5m2")
"""The 8-bit operand types: `k32`, K-major, A and B of either."""


def wgmma_k(type_name: str) -> int:
    """The K of one `wgmma.mma_async` on operands of `type_name`: 32 bytes of K."""
    return 32 if type_name in FP8_WGMMA_TYPES else 16


@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """One `wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}` with A and B in shared
    memory (module docstring)."""

    name = "cuda.wgmma"
    traits = traits_def(Accesses(reads=("a", "b")))
    a = operand_def(MemRefType)
    a_index = operand_def(IndexType)
    b = operand_def(MemRefType)
    b_index = operand_def(IndexType)
    accs = var_operand_def()
    outs = var_result_def()
    n = prop_def(IntegerAttr[I64])
    a_desc = prop_def(DenseArrayBase)
    b_desc = prop_def(DenseArrayBase)
    a_mn_major = opt_prop_def(UnitAttr)
    b_mn_major = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = (
        "$a `[` $a_index `]` `,` $b `[` $b_index `]` `,` $accs attr-dict "
        "`:` type($a) `,` type($b) `,` type($accs) `->` type($outs)"
    )

    def __init__(
        self,
        a: SSAValue,
        a_index: SSAValue,
        b: SSAValue,
        b_index: SSAValue,
        accs: Sequence[SSAValue],
        n: int,
        a_desc: tuple[int, int, int],
        b_desc: tuple[int, int, int],
        a_mn_major: bool = False,
        b_mn_major: bool = False,
    ):
        props = {
            "n": IntegerAttr(n, i64),
            "a_desc": DenseArrayBase.from_list(i64, list(a_desc)),
            "b_desc": DenseArrayBase.from_list(i64, list(b_desc)),
        }
        if a_mn_major:
            props["a_mn_major"] = UnitAttr()
        if b_mn_major:
            props["b_mn_major"] = UnitAttr()
        super().__init__(
            operands=[a, a_index, b, b_index, list(accs)], properties=props, result_types=[[f32] * len(accs)]
        )

    def mn_major(self, which: str) -> bool:
        """Whether operand `which` is MN-major (`imm-trans` 1)."""
        return getattr(self, f"{which}_mn_major") is not None

    @property
    def cols(self) -> int:
        return self.n.value.data

    @property
    def type_name(self) -> str:
        """A's PTX type (`bf16`, `e4m3`, ...)."""
        return wgmma_type_name(self.a.type.element_type)  # type: ignore[union-attr, return-value]

    @property
    def b_type_name(self) -> str:
        return wgmma_type_name(self.b.type.element_type)  # type: ignore[union-attr, return-value]

    @property
    def k(self) -> int:
        return wgmma_k(self.type_name)

    def descriptor(self, which: str, start: int = 0) -> WgmmaDescriptor:
        """The descriptor of operand `which` ("a" or "b") at byte address `start`."""
        swizzle, lbo, sbo = getattr(self, f"{which}_desc").get_values()
        return WgmmaDescriptor(start, lbo, sbo, swizzle)

    def verify_(self) -> None:
        for which in ("a", "b"):
            _verify_smem_operand(self, which)
        ta, tb = self.type_name, self.b_type_name
        if (ta in FP8_WGMMA_TYPES) != (tb in FP8_WGMMA_TYPES) or (ta not in FP8_WGMMA_TYPES and ta != tb):
            raise VerifyException(
                f"'{self.name}': a and b must have one element type (or both be 8-bit floats), got {ta} and {tb}"
            )
        if ta in FP8_WGMMA_TYPES and (self.mn_major("a") or self.mn_major("b")):
            raise VerifyException(f"'{self.name}': 8-bit float operands must be K-major (wgmma has no transpose for them)")
        _verify_accumulators(self, self.accs, self.outs)


def _verify_smem_operand(op, which: str) -> None:
    """Operand `which` of `op` is a 1-D shared memref of bf16/f16/f8E4M3FN/f8E5M2 with a
    valid `{which}_desc`, in a buffer aligned for its swizzle."""
    t = getattr(op, which).type
    space = t.memory_space
    if not (isinstance(space, IntegerAttr) and space.value.data == 3) or t.get_num_dims() != 1:
        raise VerifyException(f"'{op.name}' operand {which} must be a 1-D shared-memory memref, got {t}")
    if wgmma_type_name(t.element_type) is None:
        raise VerifyException(
            f"'{op.name}' multiplies bf16, f16, f8E4M3FN or f8E5M2, got {which} of {t.element_type}"
        )
    values = getattr(op, f"{which}_desc").get_values()
    if len(values) != 3:
        raise VerifyException(f"'{op.name}' {which}_desc is [swizzle, LBO, SBO] in bytes, got {list(values)}")
    try:
        d = op.descriptor(which)
    except LayoutError as e:
        raise VerifyException(f"'{op.name}' {which}_desc: {e}") from None
    owner = getattr(op, which).owner
    if not isinstance(owner, memref.AllocaOp):
        return
    need = swizzle_repeat_bytes(d.swizzle)
    have = owner.alignment.value.data if owner.alignment is not None else 16
    if have < need:
        raise VerifyException(
            f"'{op.name}' operand {which} with a {d.swizzle}-byte swizzle needs its buffer aligned "
            f"to {need} bytes, but its memref.alloca asks for {have}"
        )


def _verify_accumulators(op, accs, outs) -> None:
    n = op.cols
    if n not in WGMMA_N:
        raise VerifyException(f"'{op.name}' n must be a multiple of 8 in [8, 256], got {n}")
    if len(accs) != n // 2 or len(outs) != n // 2:
        raise VerifyException(
            f"'{op.name}' with n = {n} takes and gives {n // 2} f32 accumulators per thread, "
            f"got {len(accs)} and {len(outs)}"
        )
    if any(v.type != f32 for v in (*accs, *outs)):
        raise VerifyException(f"'{op.name}' accumulates in f32")


WGMMA_RS_A = 8
"""Elements of A each thread gives `cuda.wgmma_rs` (4 registers of 2)."""


@irdl_op_definition
class WgmmaRsOp(IRDLOperation):
    """`wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}` with A from registers (8
    elements per thread in `mma.sync`'s A fragment order, warp w of the warpgroup rows
    16 w ..) and B in shared memory (module docstring)."""

    name = "cuda.wgmma_rs"
    traits = traits_def(Accesses(reads=("b",)))
    b = operand_def(MemRefType)
    b_index = operand_def(IndexType)
    fragments = var_operand_def()
    outs = var_result_def()
    n = prop_def(IntegerAttr[I64])
    b_desc = prop_def(DenseArrayBase)
    b_mn_major = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$b `[` $b_index `]` `,` $fragments attr-dict `:` type($b) `,` type($fragments) `->` type($outs)"

    def __init__(
        self,
        b: SSAValue,
        b_index: SSAValue,
        a: Sequence[SSAValue],
        accs: Sequence[SSAValue],
        n: int,
        b_desc: tuple[int, int, int],
        b_mn_major: bool = False,
    ):
        props = {"n": IntegerAttr(n, i64), "b_desc": DenseArrayBase.from_list(i64, list(b_desc))}
        if b_mn_major:
            props["b_mn_major"] = UnitAttr()
        super().__init__(operands=[b, b_index, [*a, *accs]], properties=props, result_types=[[f32] * len(accs)])

    @property
    def cols(self) -> int:
        return self.n.value.data

    @property
    def a(self) -> tuple[SSAValue, ...]:
        return tuple(self.fragments[:WGMMA_RS_A])

    @property
    def accs(self) -> tuple[SSAValue, ...]:
        return tuple(self.fragments[WGMMA_RS_A:])

    @property
    def type_name(self) -> str:
        return wgmma_type_name(self.b.type.element_type)  # type: ignore[union-attr, return-value]

    def mn_major(self, which: str) -> bool:
        return which == "b" and self.b_mn_major is not None

    def descriptor(self, which: str, start: int = 0) -> WgmmaDescriptor:
        swizzle, lbo, sbo = self.b_desc.get_values()
        return WgmmaDescriptor(start, lbo, sbo, swizzle)

    def verify_(self) -> None:
        _verify_smem_operand(self, "b")
        if self.type_name in FP8_WGMMA_TYPES:
            raise VerifyException(f"'{self.name}' takes bf16 or f16 (8-bit operands: cuda.wgmma, both in shared memory)")
        if len(self.fragments) < WGMMA_RS_A or any(v.type != self.b.type.element_type for v in self.a):
            raise VerifyException(
                f"'{self.name}' takes {WGMMA_RS_A} elements of A of b's element type ({self.b.type.element_type}) per thread"
            )
        _verify_accumulators(self, self.accs, self.outs)


@irdl_op_definition
class WgmmaFenceOp(IRDLOperation):
    """`wgmma.fence.sync.aligned`: orders this warpgroup's register and shared-memory
    accesses before the `wgmma.mma_async` that follow."""

    name = "cuda.wgmma_fence"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


@irdl_op_definition
class WgmmaCommitGroupOp(IRDLOperation):
    """`wgmma.commit_group.sync.aligned`: the uncommitted `wgmma.mma_async` of this
    warpgroup form one group."""

    name = "cuda.wgmma_commit_group"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"


@irdl_op_definition
class WgmmaWaitGroupOp(IRDLOperation):
    """`wgmma.wait_group.sync.aligned pending`: at most `pending` groups of this
    warpgroup are still in flight. Takes the accumulators those groups write and
    gives them back: read the results, not the `cuda.wgmma`'s. `after` (f32 scalars,
    `layout.mma_wait`'s): the wait is issued after they are computed: before it, one
    `setp.neu` per value (true for NaN only) predicating a `fence.proxy.async`, which
    ptxas keeps in order with the wait (a NaN runs a fence, harmless)."""

    name = "cuda.wgmma_wait_group"
    traits = traits_def(Synchronizes())
    pending = prop_def(IntegerAttr[I64])
    values = var_operand_def()
    after = var_operand_def()
    outs = var_result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = ("$pending (`,` $values^ `:` type($values) `->` type($outs))? "
                       "(`after` $after^ `:` type($after))? attr-dict")

    def __init__(self, pending: int, values: Sequence[SSAValue] = (), after: Sequence[SSAValue] = ()):
        super().__init__(
            operands=[list(values), list(after)],
            properties={"pending": IntegerAttr(pending, i64)},
            result_types=[[SSAValue.get(v).type for v in values]],
        )

    def verify_(self) -> None:
        p = self.pending.value.data
        if not 0 <= p <= WGMMA_PENDING_MAX:
            raise VerifyException(f"'{self.name}' pending must be in [0, {WGMMA_PENDING_MAX}], got {p}")
        if any(v.type != f32 for v in self.values):
            raise VerifyException(f"'{self.name}' passes f32 accumulators")
        if [v.type for v in self.values] != [r.type for r in self.outs]:
            raise VerifyException(f"'{self.name}' gives back one result per value, of its type")
        if any(v.type != f32 for v in self.after):
            raise VerifyException(f"'{self.name}' is issued after f32 values")


CUDA_WGMMA_OPS = [WgmmaOp, WgmmaRsOp, WgmmaFenceOp, WgmmaCommitGroupOp, WgmmaWaitGroupOp]
