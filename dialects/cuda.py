"""The `cuda` dialect: the few GPU-level operations that xDSL's own dialects lack.

The GPU level (docs/gpu-level.md) is xDSL's `gpu`, `arith`, `scf`, `memref` and `vector`
plus these ops, which the `cuda` output target prints as CUDA C++:

- `cuda.cp_async`: an asynchronous copy of 4, 8 or 16 bytes from global to shared memory
  (PTX `cp.async`, sm_80 and newer), optionally zero-filling (`src_bytes`: 0 or all);
- `cuda.cp_async_commit`: closes the group of the copies issued so far
  (`cp.async.commit_group`);
- `cuda.cp_async_wait`: waits until at most `pending` groups are still in flight
  (`cp.async.wait_group`);
- `cuda.shfl_idx`: a warp shuffle that reads a value from another lane
  (`__shfl_sync` with the full mask);
- `cuda.printf`: CUDA's device `printf` (what `layout.print` lowers to);
- `cuda.comment`: a line of explanation that the target prints as `// text` (how a
  layout conversion was lowered, its bank conflicts); it does nothing;
- `cuda.ldmatrix` / `cuda.stmatrix`: one warp-wide `ldmatrix` (sm_75+) / `stmatrix`
  (sm_90+) of 1, 2 or 4 8x8 matrices of 16-bit elements between shared memory and the
  lanes' registers (`.trans`: each matrix transposed on the way);
- `cuda.mma_sync`: one warp-wide `mma.sync.aligned.m16n8kK.row.col` (bf16/f16 K = 16,
  tf32 K = 8, s8 K = 32; PTX, sm_80 and newer), operands and results as the ISA's
  fragments (`a0..`, `b0..`, `c0..c3` of each lane), through inline PTX.
- `cuda.div_approx_group`: G = 2 or 4 approximate f32 quotients x_i / d_i through one
  approximate reciprocal of the divisors' product (what lower-to-gpu makes of an
  `arith.divf` with `fastmath<afn>` whose divisors it knows to be numbers of a bounded
  range: fewer `MUFU.RCP`).
- `cuda.ex2_fma`: 2^x in f32 on the FMA pipe, no `MUFU` (what lower-to-gpu makes of a share
  of the registers of a `math.exp2` that asks for it, `EXP2_FMA_ATTR`: `MUFU.EX2` and
  the FMA pipe share the work).

Shared memory is a memref in memory space 3 (`memref<256xf32, 3 : i64>`), NVVM's number
for it (xDSL 0.74 has no `#gpu.address_space` attribute); `SHARED_MEMORY_SPACE` is that
attribute.

    cuda.cp_async %tile[%j], %src[%i], 16 : memref<1024xf32, 3 : i64>, memref<?xf32>
    cuda.cp_async %tile[%j], %src[%i], 16 src_bytes %n : memref<1024xf32, 3 : i64>, memref<?xf32>
    cuda.cp_async_commit
    cuda.cp_async_wait 0
    %y = cuda.shfl_idx %x, %lane, 32 : f32
    cuda.comment "convert_layout via warp shuffles: 4 shuffles, 0 selects"
    %d:4 = cuda.mma_sync %a0, ..., %a7, %b0, ..., %b3, %c0, ..., %c3
        : bf16, ..., f32 -> f32, f32, f32, f32
    %r:8 = cuda.ldmatrix %smem[%i] {num = 4 : i64, trans} : memref<4096xbf16, 3 : i64> -> bf16, ...
    cuda.stmatrix %smem[%i], %x0, ..., %x7 {num = 4 : i64} : memref<4096xbf16, 3 : i64>, bf16, ...
    %q:2 = cuda.div_approx_group %x0, %x1, %d0, %d1 : f32, f32, f32, f32 -> f32, f32
    %e = cuda.ex2_fma %x : f32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    AnyFloat,
    AnyFloatConstr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from .dtypes import operand_type_name
from .effects import Accesses, Synchronizes

SHARED_MEMORY_SPACE = IntegerAttr(3, i64)
"""The memory space of shared (`__shared__`) memrefs: NVVM's address space 3."""

UNROLL_ATTR = "tilec.unroll"
"""An `scf.for` attribute, `{tilec.unroll = N : i64}`: the loop is unrolled N times by
the CUDA compiler (`#pragma unroll N`; 1: not unrolled), whatever its bounds. The rolled
software pipeline (passes/_pipeline_rolled.py) states it of its loop, whose step it keeps
once; `lower-to-gpu` keeps it on the loop it makes; the CUDA printer states it."""

PRIVATE_MEMORY_SPACE = IntegerAttr(5, i64)
"""NVVM's local address space: a per-thread register array, as is no memory space."""

CP_ASYNC_BYTES = (4, 8, 16)
CP_ASYNC_PREFETCH = (64, 128, 256)
"""The L2 prefetch sizes a 16-byte `cuda.cp_async` may ask (`prefetch`)."""


def memory_space_number(memref_type: MemRefType) -> int | None:
    """The memory space of `memref_type` as an integer, or None when it has none."""
    space = memref_type.memory_space
    if isinstance(space, IntegerAttr):
        return space.value.data
    return None


def is_shared(memref_type: Attribute) -> bool:
    """Whether `memref_type` is a memref in shared memory (memory space 3)."""
    return (
        isinstance(memref_type, MemRefType) and memory_space_number(memref_type) == 3
    )


def _element_bytes(element_type: Attribute) -> int | None:
    if isinstance(element_type, IntegerType):
        return max(1, element_type.width.data // 8)
    if isinstance(element_type, AnyFloat):
        return element_type.bitwidth // 8
    return None


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """
    Asynchronous copy of `bytes` (4, 8 or 16) bytes from a global buffer to shared
    memory: `dst[dst_index ...]` <- `src[src_index ...]`. Both indices are element
    offsets into 1-D memrefs of the same element type; both accesses must be aligned to
    `bytes`. The copy is complete after a `cuda.cp_async_commit` and a
    `cuda.cp_async_wait` that covers its group, or once the phase of an mbarrier that
    a later `cuda.cp_async_mbarrier_arrive` of the same thread arrives on completes.

    `src_bytes` (an index, 0 or `bytes`; PTX's `src-size`): 0 reads nothing from `src`
    and writes `bytes` zeros (the element past a tensor's edge), `bytes` copies as
    without it. Only 16-byte copies take it (`cp.async.cg`).

    `prefetch` (64, 128 or 256; PTX's `.L2::NB` prefetch size): the L2 fetches that
    many bytes around the copy's sector from DRAM (a hint: no value changes). Only
    16-byte copies without `src_bytes` take it.

    `l1` (a unit attribute; PTX's `.ca`): a 16-byte copy through L1 (`cp.async.ca`)
    instead of around it (`.cg`); 4- and 8-byte copies always are (a hint: no value
    changes). Only 16-byte copies without `src_bytes` take it.
    """

    name = "cuda.cp_async"
    traits = traits_def(Accesses(reads=("src",), writes=("dst",)))

    dst = operand_def(MemRefType)
    dst_index = operand_def(IndexType)
    src = operand_def(MemRefType)
    src_index = operand_def(IndexType)
    src_bytes = opt_operand_def(IndexType)
    bytes = prop_def(IntegerAttr[I64])
    prefetch = opt_prop_def(IntegerAttr[I64])
    l1 = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = (
        "$dst `[` $dst_index `]` `,` $src `[` $src_index `]` `,` $bytes "
        "(`src_bytes` $src_bytes^)? attr-dict `:` type($dst) `,` type($src)"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        dst_index: SSAValue | Operation,
        src: SSAValue | Operation,
        src_index: SSAValue | Operation,
        num_bytes: int,
        src_bytes: SSAValue | Operation | None = None,
        prefetch: int | None = None,
        l1: bool = False,
    ):
        props: dict[str, Attribute] = {"bytes": IntegerAttr(num_bytes, i64)}
        if prefetch is not None:
            props["prefetch"] = IntegerAttr(prefetch, i64)
        if l1:
            props["l1"] = UnitAttr()
        super().__init__(
            operands=[dst, dst_index, src, src_index, [] if src_bytes is None else [src_bytes]],
            properties=props,
        )

    def verify_(self) -> None:
        num_bytes = self.bytes.value.data
        if num_bytes not in CP_ASYNC_BYTES:
            raise VerifyException(
                f"'cuda.cp_async' copies 4, 8 or 16 bytes, got {num_bytes}"
            )
        if self.src_bytes is not None and num_bytes != 16:
            raise VerifyException(
                f"'cuda.cp_async' with src_bytes (zero fill) copies 16 bytes, got {num_bytes}"
            )
        if self.prefetch is not None:
            size = self.prefetch.value.data
            if size not in CP_ASYNC_PREFETCH:
                raise VerifyException(f"'cuda.cp_async' prefetch is 64, 128 or 256 (bytes), got {size}")
            if num_bytes != 16 or self.src_bytes is not None:
                raise VerifyException("'cuda.cp_async' with a prefetch size copies 16 bytes, without src_bytes")
        if self.l1 is not None and (num_bytes != 16 or self.src_bytes is not None):
            raise VerifyException("'cuda.cp_async' with l1 copies 16 bytes, without src_bytes")
        dst_type = self.dst.type
        src_type = self.src.type
        assert isinstance(dst_type, MemRefType) and isinstance(src_type, MemRefType)
        if not is_shared(dst_type):
            raise VerifyException(
                "'cuda.cp_async' destination must be shared memory "
                f"(memory space 3), got {dst_type}"
            )
        if memory_space_number(src_type) not in (None, 1):
            raise VerifyException(
                f"'cuda.cp_async' source must be global memory, got {src_type}"
            )
        for what, memref_type in (("destination", dst_type), ("source", src_type)):
            if memref_type.get_num_dims() != 1:
                raise VerifyException(
                    f"'cuda.cp_async' {what} must be a 1-D memref, got {memref_type}"
                )
        if dst_type.element_type != src_type.element_type:
            raise VerifyException(
                "'cuda.cp_async' source and destination element types differ: "
                f"{src_type.element_type} vs {dst_type.element_type}"
            )
        element_bytes = _element_bytes(dst_type.element_type)
        if element_bytes is None or num_bytes % element_bytes != 0:
            raise VerifyException(
                f"'cuda.cp_async' of {num_bytes} bytes is not a whole number of "
                f"{dst_type.element_type} elements"
            )


@irdl_op_definition
class CpAsyncCommitOp(IRDLOperation):
    """Closes the group of `cuda.cp_async` copies issued so far by this thread."""

    name = "cuda.cp_async_commit"

    assembly_format = "attr-dict"


@irdl_op_definition
class PrefetchL2Op(IRDLOperation):
    """
    This thread asks L2 for `bytes` bytes of a global buffer from `src[index]` on (a
    `layout.prefetch`): the 16-byte-aligned interior of that range, in one
    `cp.async.bulk.prefetch.L2` (sm_90; nothing on older architectures). No value is read
    or changed. `cache` (evict_first or evict_last): the L2 eviction priority of the
    lines it brings.

        cuda.prefetch_l2 %src[%i], 100514 {cache = "evict_last"} : memref<?xf16>
    """

    name = "cuda.prefetch_l2"
    # no memory-effect trait: its effect is on the cache, which no value shows, and an op
    # that only read would be erased as dead

    src = operand_def(MemRefType)
    index = operand_def(IndexType)
    bytes = prop_def(IntegerAttr[I64])
    cache = opt_prop_def(StringAttr)

    assembly_format = "$src `[` $index `]` `,` $bytes attr-dict `:` type($src)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, src: SSAValue | Operation, index: SSAValue | Operation, num_bytes: int,
                 cache: str | None = None):
        props: dict[str, Attribute] = {"bytes": IntegerAttr(num_bytes, i64)}
        if cache:
            props["cache"] = StringAttr(cache)
        super().__init__(operands=[src, index], properties=props)

    def verify_(self) -> None:
        n = self.bytes.value.data
        if not 0 < n < 1 << 32:
            raise VerifyException(f"'cuda.prefetch_l2' prefetches 1 to 2^32 - 1 bytes, got {n}")
        if self.cache is not None and self.cache.data not in ("evict_first", "evict_last"):
            raise VerifyException(f"'cuda.prefetch_l2' cache is evict_first or evict_last, got {self.cache.data}")
        if self.src.type.memory_space == SHARED_MEMORY_SPACE:
            raise VerifyException("'cuda.prefetch_l2' prefetches global memory, not shared memory")


class _GlobalLinePrefetch(IRDLOperation):
    """What `cuda.prefetch_l1` and `cuda.prefetch_global_l2` share: a thread's hint for the
    line or sector holding `src[index]` of a global buffer. No value is read or changed;
    no memory-effect trait, as cuda.prefetch_l2: its effect is on the cache."""

    src = operand_def(MemRefType)
    index = operand_def(IndexType)

    assembly_format = "$src `[` $index `]` attr-dict `:` type($src)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, src: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[src, index])

    def verify_(self) -> None:
        if self.src.type.memory_space == SHARED_MEMORY_SPACE:
            raise VerifyException(f"'{self.name}' prefetches global memory, not shared memory")


@irdl_op_definition
class PrefetchL1Op(_GlobalLinePrefetch):
    """
    This thread asks L1 for the line holding `src[index]` of a global buffer (a
    `layout.prefetch_l1`): one `prefetch.global.L1`. No value is read or changed.

        cuda.prefetch_l1 %src[%i] : memref<?xf32>
    """

    name = "cuda.prefetch_l1"


@irdl_op_definition
class PrefetchGlobalL2Op(_GlobalLinePrefetch):
    """
    This thread asks L2 for the sector holding `src[index]` of a global buffer (a
    `layout.ptr_prefetch`): one `prefetch.global.L2`, which brings the element's 128-byte
    line. `bulk`: one `cp.async.bulk.prefetch.L2` of the element's 16-byte-aligned block
    instead (sm_90; `prefetch.global.L2` before), which brings its 32-byte sector only.
    `edge` (k bytes): asked only where the element's address plus k is not a multiple of 32
    (`layout.ptr_prefetch`'s `edge`). `row` (elements; with `bulk`): the element is a row's
    first, and the row's partial sectors are asked, adjacent ones by one bulk prefetch
    (`layout.ptr_prefetch`'s `row`, `tilec_prefetch_row`). No value is read or changed.

        cuda.prefetch_global_l2 %src[%i] : memref<?xi16>
        cuda.prefetch_global_l2 %src[%i] {bulk} : memref<?xi16>
        cuda.prefetch_global_l2 %src[%i] {bulk, edge = 8 : i64} : memref<?xi64>
        cuda.prefetch_global_l2 %src[%i] row %n {bulk} : memref<?xi64>
    """

    name = "cuda.prefetch_global_l2"
    src = operand_def(MemRefType)
    index = operand_def(IndexType)
    row = opt_operand_def(IndexType)
    bulk = opt_prop_def(UnitAttr)
    edge = opt_prop_def(IntegerAttr)
    assembly_format = "$src `[` $index `]` (`row` $row^)? attr-dict `:` type($src)"

    def __init__(self, src: SSAValue | Operation, index: SSAValue | Operation, bulk: bool = False,
                 edge: int | None = None, row: SSAValue | Operation | None = None):
        props: dict = {"bulk": UnitAttr()} if bulk else {}
        if edge is not None:
            props["edge"] = IntegerAttr(edge, 64)
        IRDLOperation.__init__(self, operands=[src, index, row], properties=props)

    def verify_(self) -> None:
        super().verify_()
        if self.row is not None and (self.bulk is None or self.edge is not None):
            raise VerifyException("'cuda.prefetch_global_l2' row takes bulk, not edge")


@irdl_op_definition
class CpAsyncWaitOp(IRDLOperation):
    """
    Waits until at most `pending` of this thread's committed `cuda.cp_async` groups are
    still in flight (0: all of them are done). Other threads' copies need a barrier too.
    """

    name = "cuda.cp_async_wait"

    pending = prop_def(IntegerAttr[I64])

    assembly_format = "$pending attr-dict"

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        pending = self.pending.value.data
        if not 0 <= pending <= 7:
            raise VerifyException(
                f"'cuda.cp_async_wait' pending must be in [0, 7], got {pending}"
            )


SHUFFLE_WIDTHS = (1, 2, 4, 8, 16, 32)


@irdl_op_definition
class ShflIdxOp(IRDLOperation):
    """
    Warp shuffle (`__shfl_sync(0xffffffff, value, lane, width)`): every lane of the
    warp must execute it; each gets `value` from lane `lane` of its group of `width`
    lanes (`lane` is taken modulo `width`). The value is a scalar of 1 to 8 bytes.
    """

    name = "cuda.shfl_idx"

    T: ClassVar = VarConstraint(
        "T", base(IntegerType) | base(IndexType) | AnyFloatConstr
    )

    value = operand_def(T)
    lane = operand_def(i32)
    width = prop_def(IntegerAttr[I32])
    result = result_def(T)

    assembly_format = "$value `,` $lane `,` $width attr-dict `:` type($value)"

    def __init__(
        self,
        value: SSAValue | Operation,
        lane: SSAValue | Operation,
        width: int = 32,
    ):
        value = SSAValue.get(value)
        super().__init__(
            operands=[value, lane],
            properties={"width": IntegerAttr(width, i32)},
            result_types=[value.type],
        )

    def verify_(self) -> None:
        width = self.width.value.data
        if width not in SHUFFLE_WIDTHS:
            raise VerifyException(
                f"'cuda.shfl_idx' width must be a power of two <= 32, got {width}"
            )


@irdl_op_definition
class OpaqueOp(IRDLOperation):
    """
    An integer scalar (or index), unchanged, as a value the CUDA compiler cannot see
    through: the target prints a copy of it passed through an empty `asm volatile`
    (`"+r"`, `"+l"` for 64 bits), so NVVM neither folds it nor recomputes it from its
    operands near its uses; it is computed where the op stands and kept in a register
    (or spilled). For values a loop reads on every trip that NVVM would otherwise
    rematerialize in the loop (`_box_tile`'s phase-2 box addresses). Executors pass the
    value through.

        %a = cuda.opaque %x : index
    """

    name = "cuda.opaque"

    T: ClassVar = VarConstraint("T", base(IntegerType) | base(IndexType))

    value = operand_def(T)
    result = result_def(T)

    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation):
        value = SSAValue.get(value)
        super().__init__(operands=[value], result_types=[value.type])

    def verify_(self) -> None:
        t = self.value.type
        if isinstance(t, IntegerType) and t.width.data not in (32, 64):
            raise VerifyException(f"'cuda.opaque' takes 32- or 64-bit integers or index, got {t}")


@irdl_op_definition
class BytePermOp(IRDLOperation):
    """
    Four bytes picked from the eight of `a` (bytes 0-3) and `b` (bytes 4-7): byte `n`
    of the result is byte `(selector >> 4 n) & 7` of them (CUDA's `__byte_perm(a, b,
    selector)`, PTX `prmt.b32`, one `PRMT`); `selector` a constant of four nibbles, each
    at most 7. For byte transposes in registers that NVVM would otherwise build from
    shifts and masks (`_box_tile`'s interleaved slots: a 4 x 4 byte transpose is 8 of
    them).

        %r = cuda.byte_perm %a, %b, 21520 : i32
    """

    name = "cuda.byte_perm"

    a = operand_def(i32)
    b = operand_def(i32)
    selector = prop_def(IntegerAttr[I32])
    result = result_def(i32)

    assembly_format = "$a `,` $b `,` $selector attr-dict `:` type($result)"

    def __init__(self, a: SSAValue | Operation, b: SSAValue | Operation, selector: int):
        super().__init__(operands=[a, b], properties={"selector": IntegerAttr(selector, i32)},
                         result_types=[i32])

    def verify_(self) -> None:
        sel = self.selector.value.data
        if not 0 <= sel <= 0x7777 or any((sel >> (4 * n)) & 8 for n in range(4)):
            raise VerifyException(
                f"'cuda.byte_perm' selector must be four nibbles of at most 7 (0 to 0x7777), got {sel:#x}")


@irdl_op_definition
class CommentOp(IRDLOperation):
    """
    A comment for the reader of the generated code: the `cuda` target prints it as
    `// text` where the op stands (one line; line breaks become spaces). It has no
    effect: executors skip it. `lower-to-gpu` states with it how each layout conversion
    was lowered and its bank conflicts.
    """

    name = "cuda.comment"

    text = prop_def(StringAttr)

    assembly_format = "$text attr-dict"

    def __init__(self, text: str):
        super().__init__(properties={"text": StringAttr(text)})


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """
    CUDA's device `printf(format, values...)`, by every thread that reaches it (the
    `layout.print` lowering guards it to one thread). `format` is the C format string
    (`%%` for a percent sign); the values are f32, f64, i32 or i64, at most 31 (CUDA's
    limit is 32 arguments), one per conversion. The reference executor writes each
    active thread's text to stdout, threads in order.

        cuda.printf "%10.4g %10.4g\n" %x, %y : f32, f32
    """

    name = "cuda.printf"

    format = prop_def(StringAttr)
    values = var_operand_def()
    traits = traits_def(Synchronizes())  # output: never erased, nothing moves across it

    assembly_format = "$format ($values^ `:` type($values))? attr-dict"

    def __init__(self, format: str, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)], properties={"format": StringAttr(format)})

    def verify_(self) -> None:
        if len(self.values) > 31:
            raise VerifyException(f"'cuda.printf' takes at most 31 values (CUDA's limit), got {len(self.values)}")
        for v in self.values:
            t = v.type
            if not (t in (f32, i32, i64) or (isinstance(t, AnyFloat) and t.bitwidth == 64)):
                raise VerifyException(f"'cuda.printf' prints f32, f64, i32 or i64 values, not {t}")


@dataclass(frozen=True)
class MmaSyncKind:
    """One `mma.sync.aligned.m16n8kK.row.col` that `cuda.mma_sync` issues."""

    ptx: str
    """The instruction, e.g. `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`."""
    k: int
    a: int
    """Fragments of A per lane (elements, `a0..`)."""
    b: int
    """Fragments of B per lane."""
    per_register: int
    """Operand elements per 32-bit register (2 for 16-bit, 1 for tf32, 4 for s8)."""


MMA_SYNC_KINDS = {
    "bf16": MmaSyncKind("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 4, 2),
    "f16": MmaSyncKind("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 4, 2),
    "f32": MmaSyncKind("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8, 4, 2, 1),
    "i8": MmaSyncKind("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 32, 16, 8, 4),
}
"""Operand element type -> the instruction: f32 operands are read as tf32."""


def mma_sync_kind_name(t: Attribute) -> str | None:
    """The `MMA_SYNC_KINDS` key of an operand element type, or None."""
    name = operand_type_name(t)
    return name if name in MMA_SYNC_KINDS else None


def mma_sync_fragment(kind: str, operand: str, lane: int, i: int) -> tuple[int, int]:
    """(row, col) of fragment `i` of `operand` ("a", "b" or "c") held by `lane`, as the
    PTX ISA's "Matrix Fragments for mma.m16n8k*" give it (groupID = lane >> 2,
    threadID_in_group = lane % 4); C and D alike. Works on NumPy arrays of lanes too."""
    g, t = lane // 4, lane % 4
    if operand == "c":
        return g + 8 * (i // 2), 2 * t + i % 2
    if kind in ("bf16", "f16"):  # m16n8k16
        if operand == "a":
            return g + 8 * ((i // 2) % 2), 2 * t + i % 2 + 8 * (i // 4)
        return 2 * t + i % 2 + 8 * (i // 2), g
    if kind == "f32":  # m16n8k8 .tf32
        if operand == "a":
            return g + 8 * (i % 2), t + 4 * (i // 2)
        return t + 4 * i, g
    if operand == "a":  # m16n8k32 .s8
        return g + 8 * ((i // 4) % 2), 4 * t + i % 4 + 16 * (i // 8)
    return 4 * t + i % 4 + 16 * (i // 4), g


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """
    One warp-wide `mma.sync.aligned.m16n8kK.row.col`: `D = A B + C` with A 16xK, B Kx8
    and C, D 16x8. The operand element type picks the instruction (`MMA_SYNC_KINDS`):
    bf16 or f16 (K = 16) and f32 read as tf32 (K = 8) into f32, i8 (K = 32) into i32.
    Every lane of the warp must execute it (`.aligned`). The operands are each lane's
    fragments in the PTX ISA's order, `a0..`, `b0..`, `c0..c3`; the results `d0..d3`
    (`mma_sync_fragment` says which element each is). Float products and sums are f32
    (in the hardware's order); integers are exact, wrapping in i32.
    """

    name = "cuda.mma_sync"
    fragments = var_operand_def()
    outs = var_result_def()

    assembly_format = "$fragments attr-dict `:` type($fragments) `->` type($outs)"

    def __init__(self, a: Sequence[SSAValue], b: Sequence[SSAValue], c: Sequence[SSAValue]):
        super().__init__(operands=[[*a, *b, *c]], result_types=[[SSAValue.get(c[0]).type] * 4])

    @property
    def kind_name(self) -> str | None:
        return mma_sync_kind_name(self.fragments[0].type) if self.fragments else None

    @property
    def kind(self) -> MmaSyncKind:
        return MMA_SYNC_KINDS[self.kind_name]  # type: ignore[index]

    @property
    def a(self) -> tuple[SSAValue, ...]:
        return tuple(self.fragments[: self.kind.a])

    @property
    def b(self) -> tuple[SSAValue, ...]:
        k = self.kind
        return tuple(self.fragments[k.a : k.a + k.b])

    @property
    def c(self) -> tuple[SSAValue, ...]:
        return tuple(self.fragments[-4:])

    @property
    def operand_type(self) -> Attribute:
        return self.fragments[0].type

    def verify_(self) -> None:
        name = self.kind_name
        if name is None:
            t = self.fragments[0].type if self.fragments else "nothing"
            raise VerifyException(f"'cuda.mma_sync' multiplies bf16, f16, f32 (tf32) or i8, got {t}")
        k = self.kind
        acc = i32 if name == "i8" else f32
        if len(self.fragments) != k.a + k.b + 4 or len(self.outs) != 4:
            raise VerifyException(
                f"'cuda.mma_sync' of {name} takes {k.a} + {k.b} + 4 fragments (a, b, c) and "
                f"gives 4 results, got {len(self.fragments)} and {len(self.outs)}"
            )
        t = self.operand_type
        if any(v.type != t for v in self.fragments[: k.a + k.b]):
            raise VerifyException("'cuda.mma_sync': the a and b fragments must all have one type")
        if any(v.type != acc for v in (*self.c, *self.outs)):
            raise VerifyException(f"'cuda.mma_sync' of {name} accumulates in {acc}: c and d must be {acc}")


LDMATRIX_NUMS = (1, 2, 4)
"""Matrices one `ldmatrix` / `stmatrix` moves (`.x1`, `.x2`, `.x4`)."""


def ldmatrix_element(lane: int, i: int, trans: bool) -> tuple[int, int]:
    """(row, col) of the 8x8 matrix that element `i` (0 or 1, low half first) of a
    lane's 32-bit register holds, as the PTX ISA's "Matrix fragment for ldmatrix" gives
    it: row lane/4, columns 2*(lane%4) + i; with `.trans`, the transposed element. Row
    r of matrix q is the 16 bytes at the address that lane 8*q + r gives. Works on
    NumPy arrays of lanes too."""
    row, col = lane // 4, 2 * (lane % 4) + i
    return (col, row) if trans else (row, col)


class _MatrixMoveOp(IRDLOperation):
    num = prop_def(IntegerAttr[I64])
    trans = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)

    @property
    def count(self) -> int:
        return self.num.value.data

    @property
    def is_trans(self) -> bool:
        return self.trans is not None

    def _verify_move(self, values, what: str) -> None:
        n = self.count
        if n not in LDMATRIX_NUMS:
            raise VerifyException(f"'{self.name}' moves 1, 2 or 4 matrices, got {n}")
        t = self.mem.type
        assert isinstance(t, MemRefType)
        if not is_shared(t) or t.get_num_dims() != 1:
            raise VerifyException(f"'{self.name}' needs a 1-D memref in shared memory, got {t}")
        if _element_bytes(t.element_type) != 2:
            raise VerifyException(f"'{self.name}' moves 16-bit elements, got {t.element_type}")
        if len(values) != 2 * n:
            raise VerifyException(f"'{self.name}' of {n} matrices {what} {2 * n} values, got {len(values)}")
        if any(v.type != t.element_type for v in values):
            raise VerifyException(f"'{self.name}': the values must be {t.element_type}, as the memref")


@irdl_op_definition
class LdmatrixOp(_MatrixMoveOp):
    """
    One warp-wide `ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`: lane `8*q + r`
    gives, as `mem[index]`, the 16-byte-aligned start of row `r` of matrix `q` (8
    contiguous 16-bit elements); each lane gets two elements of each matrix
    (`ldmatrix_element`), results `2*q` and `2*q + 1`. Every lane of the warp must
    execute it; lanes past `8*num` give addresses that are not read.
    """

    name = "cuda.ldmatrix"
    traits = traits_def(Accesses(reads=("mem",)))
    mem = operand_def(MemRefType)
    index = operand_def(IndexType)
    outs = var_result_def()

    assembly_format = "$mem `[` $index `]` attr-dict `:` type($mem) `->` type($outs)"

    def __init__(self, mem: SSAValue, index: SSAValue, num: int, trans: bool):
        props: dict = {"num": IntegerAttr(num, i64)}
        if trans:
            props["trans"] = UnitAttr()
        et = SSAValue.get(mem).type.element_type
        super().__init__(operands=[mem, index], properties=props, result_types=[[et] * (2 * num)])

    def verify_(self) -> None:
        self._verify_move(self.outs, "gives")


@irdl_op_definition
class StmatrixOp(_MatrixMoveOp):
    """
    One warp-wide `stmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16` (sm_90+): the
    inverse of `cuda.ldmatrix`: values `2*q`, `2*q + 1` of each lane are its two
    elements of matrix `q` (`ldmatrix_element`), and row `r` of matrix `q` is written
    as 8 contiguous 16-bit elements at the 16-byte-aligned `mem[index]` of lane `8*q + r`.
    """

    name = "cuda.stmatrix"
    traits = traits_def(Accesses(writes=("mem",)))
    mem = operand_def(MemRefType)
    index = operand_def(IndexType)
    values = var_operand_def()

    assembly_format = "$mem `[` $index `]` `,` $values attr-dict `:` type($mem) `,` type($values)"

    def __init__(self, mem: SSAValue, index: SSAValue, values: Sequence[SSAValue], num: int, trans: bool):
        props: dict = {"num": IntegerAttr(num, i64)}
        if trans:
            props["trans"] = UnitAttr()
        super().__init__(operands=[mem, index, list(values)], properties=props)

    def verify_(self) -> None:
        self._verify_move(self.values, "takes")


DIV_GROUP_SIZES = (2, 4)
"""How many quotients one `cuda.div_approx_group` computes."""

DIV_GROUP_PRODUCT_EXPONENT = 124
"""A group's divisors multiplied together must lie within [2^-124, 2^124], so that the
reciprocal of their product and every partial product stay normal f32 numbers:
`div_group_size` takes G only where the divisors lie within [2^(-124/G), 2^(124/G)]."""


def div_group_size(lo: float, hi: float) -> int:
    """The largest G of `DIV_GROUP_SIZES` whose products of G divisors in [lo, hi] (0 <
    lo <= hi) stay within 2^+-`DIV_GROUP_PRODUCT_EXPONENT`; 1 where none does."""
    for g in sorted(DIV_GROUP_SIZES, reverse=True):
        bound = 2.0 ** (DIV_GROUP_PRODUCT_EXPONENT / g)
        if 1 / bound <= lo and hi <= bound:
            return g
    return 1


@irdl_op_definition
class DivApproxGroupOp(IRDLOperation):
    """
    G = 2 or 4 approximate f32 quotients q_i = x_i / d_i (operands: the G numerators,
    then the G divisors) with one approximate reciprocal: the target computes
    r = `rcp.approx.ftz`(d_0 d_1 ... d_{G-1}) (products in pairs), each 1 / d_i as r times
    the product of the other divisors, and q_i = x_i (1 / d_i): one `MUFU.RCP` for G
    quotients where `div.approx` takes one each. Each q_i is within 8 units of 2^-24
    (2^-21) of x_i / d_i relative (the reciprocal's 1 ulp and seven f32 roundings)
    where the divisors are numbers whose products of G lie within
    [2^-124, 2^124] (`DIV_GROUP_PRODUCT_EXPONENT`; a NaN or out-of-range divisor spoils
    the group's other quotients, so only divisors known to be in range may be grouped:
    `div_group_size`); subnormal results flush to 0, and a quotient within 2^-21 of the
    largest f32 may round up to infinity (tests/fuzz/test_compute_ops.py checks the
    bound against the executor on random groups). The reference executor computes
    x_i / d_i rounded once, as it does `arith.divf` with `fastmath<afn>`.
    """

    name = "cuda.div_approx_group"
    values = var_operand_def(f32)
    outs = var_result_def(f32)

    assembly_format = "$values attr-dict `:` type($values) `->` type($outs)"

    def __init__(self, numerators: Sequence[SSAValue], divisors: Sequence[SSAValue]):
        super().__init__(operands=[[*numerators, *divisors]], result_types=[[f32] * len(numerators)])

    @property
    def numerators(self) -> tuple[SSAValue, ...]:
        return tuple(self.values[: len(self.outs)])

    @property
    def divisors(self) -> tuple[SSAValue, ...]:
        return tuple(self.values[len(self.outs):])

    def verify_(self) -> None:
        g = len(self.outs)
        if g not in DIV_GROUP_SIZES or len(self.values) != 2 * g:
            raise VerifyException(
                f"'cuda.div_approx_group' takes G numerators then G divisors and gives G quotients, "
                f"G in {DIV_GROUP_SIZES}; got {len(self.values)} operands and {g} results")


EX2_FMA_RANGE = (-125.0, 127.0)
"""`cuda.ex2_fma` computes 2^x of x clamped to this range: its results are normal f32
numbers, and its exponent fits without a test (2^127 stands for infinity above it, 2^-125
for 0 below it)."""

EX2_FMA_POLY = (0.6931470036506653, 0.24022242426872253, 0.05550733581185341, 0.009671512991189957,
                0.001326472731307149)
"""The f32 coefficients c1 .. c5 of `cuda.ex2_fma`'s 2^f = 1 + c1 f + ... + c5 f^5 for f in
[-0.5, 0.5]: the fit of least largest relative error (Lawson's iteration on Chebyshev nodes;
2^-23.4, rounded to f32 2^-23.1)."""

EX2_FMA_ERROR = 2.0**-22
"""The largest relative error of `cuda.ex2_fma` over `EX2_FMA_RANGE` (the polynomial's 2^-23.1
and its five fmas' roundings; tests/unit/test_ex2_fma.py measures 2^-22.6 over every f32 x
of [-1, 1] and bf16 x of the range); `ex2.approx`'s stated error is 2 ulps, 2^-22."""

EXP2_FMA_ATTR = "tilec.exp2_fma"
"""A `math.exp2` (f32, `fastmath<afn>`, distributed) with this integer attribute k in 1 .. 8
is lowered to `cuda.ex2_fma` on k of every 8 of a thread's registers (`ex2_fma_registers`)
and to `ex2.approx` (one `MUFU.EX2`) on the others: the program accepts 2^x of x clamped
to `EX2_FMA_RANGE` there (`Epilogue.exp2_fma`: SiLU's e^-y, whose quotient is the same)."""


def ex2_fma_registers(n: int, eighths: int) -> list[bool]:
    """Which of a thread's `n` registers `EXP2_FMA_ATTR` = `eighths` puts on the FMA pipe:
    register r where (r * eighths) mod 8 < eighths, spread evenly (3: r = 0, 3, 6 of each 8)."""
    return [(r * eighths) % 8 < eighths for r in range(n)]


@irdl_op_definition
class Ex2FmaOp(IRDLOperation):
    """
    2^x in f32 with no `MUFU` op: x clamped to `EX2_FMA_RANGE`, j = round(x) by the
    1.5 * 2^23 shift (j lands in the sum's low bits), f = x - j exactly (in [-0.5, 0.5]),
    2^f by the degree-5 polynomial `EX2_FMA_POLY` (five fmas), and j added to the result's
    exponent as an integer (FlashAttention-3's and -4's exp2 on the FMA pipe): 11
    instructions where `ex2.approx` takes one `MUFU.EX2`, within `EX2_FMA_ERROR` relative.
    The clamp is `fmaxf` then `fminf`: a NaN x gives 2^-125. The reference executor
    computes 2^x of the clamped x rounded once.
    """

    name = "cuda.ex2_fma"
    value = operand_def(f32)
    out = result_def(f32)

    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[f32])


from .cuda_tma import CUDA_TMA_OPS, CUDA_TMA_TYPES  # noqa: E402  (TMA and mbarriers, their own module)
from .cuda_wgmma import CUDA_WGMMA_OPS  # warpgroup MMA, its own module
from .cuda_roles import CUDA_ROLE_OPS  # noqa: E402  (warp specialisation, its own module)
from .cuda_atomic import CUDA_ATOMIC_OPS  # noqa: E402  (atomics and fences, their own module)

Cuda = Dialect(
    "cuda",
    [CpAsyncOp, CpAsyncCommitOp, CpAsyncWaitOp, PrefetchL2Op, PrefetchL1Op, PrefetchGlobalL2Op, ShflIdxOp, OpaqueOp, BytePermOp, CommentOp, PrintfOp, MmaSyncOp,
     LdmatrixOp, StmatrixOp, DivApproxGroupOp, Ex2FmaOp,
     *CUDA_TMA_OPS, *CUDA_WGMMA_OPS, *CUDA_ROLE_OPS, *CUDA_ATOMIC_OPS],
    [*CUDA_TMA_TYPES],
)
"""The `cuda` dialect: cp.async and its groups, comments, warp shuffles, mma.sync,
ldmatrix/stmatrix, grouped approximate divisions, exp2 on the FMA pipe, TMA and mbarriers (cuda_tma.py), wgmma (cuda_wgmma.py), atomics and fences
(cuda_atomic.py)."""
