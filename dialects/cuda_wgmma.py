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

`cuda.wgmma` computes `D = A B + C` with A `64 x 16` read from `%a` from element
`%ia` on, B `16 x n` read from `%b` from element `%ib` on, both K-major (A as M x K,
B as N x K, K contiguous: `imm-trans-a = imm-trans-b = 0`), each described by a
matrix descriptor built from its `[swizzle, LBO, SBO]` (bytes; `tilec.dialects.wgmma`
gives the addresses the hardware reads). C and D are the `n / 2` f32 accumulators of
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
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    IndexType,
    IntegerAttr,
    MemRefType,
    f32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from .effects import Accesses, Synchronizes
from .errors import LayoutError
from .wgmma import WGMMA_N, WgmmaDescriptor, swizzle_repeat_bytes

WGMMA_PENDING_MAX = 7
"""The largest `N` of `wgmma.wait_group N` tilec prints (as for bulk groups)."""


def wgmma_type_name(t) -> str | None:
    """The PTX operand type of a `cuda.wgmma` element type, or None."""
    if isinstance(t, BFloat16Type):
        return "bf16"
    if isinstance(t, Float16Type):
        return "f16"
    return None


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
    ):
        super().__init__(
            operands=[a, a_index, b, b_index, list(accs)],
            properties={
                "n": IntegerAttr(n, i64),
                "a_desc": DenseArrayBase.from_list(i64, list(a_desc)),
                "b_desc": DenseArrayBase.from_list(i64, list(b_desc)),
            },
            result_types=[[f32] * len(accs)],
        )

    @property
    def cols(self) -> int:
        return self.n.value.data

    @property
    def type_name(self) -> str:
        return wgmma_type_name(self.a.type.element_type)  # type: ignore[union-attr, return-value]

    def descriptor(self, which: str, start: int = 0) -> WgmmaDescriptor:
        """The descriptor of operand `which` ("a" or "b") at byte address `start`."""
        swizzle, lbo, sbo = getattr(self, f"{which}_desc").get_values()
        return WgmmaDescriptor(start, lbo, sbo, swizzle)

    def verify_(self) -> None:
        for which in ("a", "b"):
            t = getattr(self, which).type
            space = t.memory_space
            if not (isinstance(space, IntegerAttr) and space.value.data == 3) or t.get_num_dims() != 1:
                raise VerifyException(f"'{self.name}' operand {which} must be a 1-D shared-memory memref, got {t}")
            if wgmma_type_name(t.element_type) is None:
                raise VerifyException(f"'{self.name}' multiplies bf16 or f16, got {which} of {t.element_type}")
            values = getattr(self, f"{which}_desc").get_values()
            if len(values) != 3:
                raise VerifyException(f"'{self.name}' {which}_desc is [swizzle, LBO, SBO] in bytes, got {list(values)}")
            try:
                d = self.descriptor(which)
            except LayoutError as e:
                raise VerifyException(f"'{self.name}' {which}_desc: {e}") from None
            self._verify_alignment(which, d.swizzle)
        if self.a.type.element_type != self.b.type.element_type:
            raise VerifyException(f"'{self.name}': a and b must have one element type")
        n = self.cols
        if n not in WGMMA_N:
            raise VerifyException(f"'{self.name}' n must be a multiple of 8 in [8, 256], got {n}")
        if len(self.accs) != n // 2 or len(self.outs) != n // 2:
            raise VerifyException(
                f"'{self.name}' with n = {n} takes and gives {n // 2} f32 accumulators per thread, "
                f"got {len(self.accs)} and {len(self.outs)}"
            )
        if any(v.type != f32 for v in (*self.accs, *self.outs)):
            raise VerifyException(f"'{self.name}' accumulates in f32")

    def _verify_alignment(self, which: str, swizzle: int) -> None:
        owner = getattr(self, which).owner
        if not isinstance(owner, memref.AllocaOp):
            return
        need = swizzle_repeat_bytes(swizzle)
        have = owner.alignment.value.data if owner.alignment is not None else 16
        if have < need:
            raise VerifyException(
                f"'{self.name}' operand {which} with a {swizzle}-byte swizzle needs its buffer aligned "
                f"to {need} bytes, but its memref.alloca asks for {have}"
            )


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
    gives them back: read the results, not the `cuda.wgmma`'s."""

    name = "cuda.wgmma_wait_group"
    traits = traits_def(Synchronizes())
    pending = prop_def(IntegerAttr[I64])
    values = var_operand_def()
    outs = var_result_def()
    assembly_format = "$pending (`,` $values^ `:` type($values) `->` type($outs))? attr-dict"

    def __init__(self, pending: int, values: Sequence[SSAValue] = ()):
        super().__init__(
            operands=[list(values)],
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


CUDA_WGMMA_OPS = [WgmmaOp, WgmmaFenceOp, WgmmaCommitGroupOp, WgmmaWaitGroupOp]
