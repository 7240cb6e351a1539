"""The `cuda` output target: prints the GPU level (docs/gpu-level.md) as CUDA C++.

One small method per op, as in xDSL's WGSL printer. Every `gpu.func ... kernel` becomes an
`extern "C" __global__` function; the host function is not printed (the runtime runs it).
What the text looks like:

- `__launch_bounds__(x*y*z)` from `gpu.known_block_size`;
- global buffers are `T* __restrict__`, and `const T* __restrict__` when the kernel never
  writes them;
- `vector<NxT>` values are aligned structs (`struct alignas(16) f32x4 { float v[4]; };`),
  and `vector.load`/`vector.store` go through a pointer to that struct, so that NVRTC
  emits `ld.global.v4` / `st.global.v4`;
- `index` is `int` when every buffer of the kernel has a static size below 2^31 elements
  (and every index constant fits), `long long` otherwise; index arithmetic is signed and
  must not overflow;
- scalar `arith.constant`s are printed inline as literals; every other value gets a
  `const` variable named after its SSA name hint, sanitised and made unique;
- an op with a `tilec.loc` attribute is preceded by a `// file:line:col` comment;
- `scf.for` with constant bounds and step gets `#pragma unroll`; `scf.while` is a
  `while (true)` whose `scf.condition` assigns the results and breaks when false;
- `cuda.comment "text"` is the line `// text` (how a layout conversion was lowered).

`emit_cuda(module)` returns the text; `kernel_infos(module)` describes each kernel's
parameters for the launcher; `CudaTarget` is the xDSL `Target` (`tilec -t cuda`).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, singledispatchmethod
from io import StringIO
from typing import IO

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.base_printer import BasePrinter
from xdsl.utils.target import Target

from tilec.compiler.diagnostics import LOC_ATTR, TilecError
from tilec.dialects import cuda
from tilec.dialects.cuda import memory_space_number

SUPPORTED_ELEMENT_TYPES = "f16, bf16, f32, f64, i8, i16, i32, i64"

_INT_CTYPES = {1: "bool", 8: "signed char", 16: "short", 32: "int", 64: "long long"}
_UINT_CTYPES = {
    1: "bool",
    8: "unsigned char",
    16: "unsigned short",
    32: "unsigned int",
    64: "unsigned long long",
}
_INT_DTYPES = {1: "bool", 8: "int8", 16: "int16", 32: "int32", 64: "int64"}
_SHORT_NAMES = {
    Float16Type: "f16",
    BFloat16Type: "bf16",
    Float32Type: "f32",
    Float64Type: "f64",
}
_FLOAT_CTYPES = {
    Float16Type: "__half",
    BFloat16Type: "__nv_bfloat16",
    Float32Type: "float",
    Float64Type: "double",
}
_FLOAT_DTYPES = {
    Float16Type: "float16",
    BFloat16Type: "bfloat16",
    Float32Type: "float32",
    Float64Type: "float64",
}

_CXX_RESERVED = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr constinit
    const_cast continue co_await co_return co_yield decltype default delete do double
    dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
    protected public register reinterpret_cast requires return short signed sizeof
    static static_assert static_cast struct switch template this thread_local throw true
    try typedef typeid typename union unsigned using virtual void volatile wchar_t while
    xor xor_eq threadIdx blockIdx blockDim gridDim warpSize main memcpy memset min max
    abs signbit isnan isinf NAN INFINITY NULL assert half float2 float4 int2 int4
    dim3""".split()
)
_VECTOR_NAME = re.compile(r"^(f16|bf16|f32|f64|i1|i8|i16|i32|i64)x\d+$")

# cmpi predicates, in xDSL's order: (C operator, unsigned?)
_CMPI = [
    ("==", False),
    ("!=", False),
    ("<", False),
    ("<=", False),
    (">", False),
    (">=", False),
    ("<", True),
    ("<=", True),
    (">", True),
    (">=", True),
]

_HELPERS = {
    "floordiv": """\
template <typename T>
__device__ __forceinline__ T tilec_floordiv(T a, T b) {
  const T q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}""",
    "ceildiv": """\
template <typename T>
__device__ __forceinline__ T tilec_ceildiv(T a, T b) {
  const T q = a / b;
  return (q * b != a && ((a < 0) == (b < 0))) ? q + 1 : q;
}""",
    "ceildivu": """\
template <typename T>
__device__ __forceinline__ T tilec_ceildivu(T a, T b) {
  return a / b + (a % b != 0 ? 1 : 0);
}""",
    "maximumf": """\
// arith.maximumf: NaN if either is NaN, and max(-0, +0) = +0.
template <typename T>
__device__ __forceinline__ T tilec_maximumf(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return a == 0 ? a + b : a;
  return a > b ? a : b;
}""",
    "minimumf": """\
// arith.minimumf: NaN if either is NaN, and min(-0, +0) = -0.
template <typename T>
__device__ __forceinline__ T tilec_minimumf(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return a == 0 ? -(-a - b) : a;
  return a < b ? a : b;
}""",
    "bitcast": """\
template <typename To, typename From>
__device__ __forceinline__ To tilec_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast between types of different sizes");
  To y;
  memcpy(&y, &x, sizeof(To));
  return y;
}""",
    "lane_id": """\
__device__ __forceinline__ unsigned tilec_lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}""",
    "cp_async": """\
// cuda.cp_async: Bytes bytes from global to shared memory, asynchronously (sm_80+).
template <int Bytes>
__device__ __forceinline__ void tilec_cp_async(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" ::"r"(s), "l"(gmem)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\\n" ::"r"(s), "l"(gmem),
                 "n"(Bytes)
                 : "memory");
  }
}
__device__ __forceinline__ void tilec_cp_async_commit() {
  asm volatile("cp.async.commit_group;\\n" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void tilec_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\\n" ::"n"(Pending) : "memory");
}""",
}


@dataclass(frozen=True)
class KernelParam:
    """One parameter of a kernel, as the launcher must pass it."""

    name: str
    """The name in the CUDA text (the SSA name hint, sanitised)."""
    type: Attribute
    """The IR type: a 1-D memref (a global buffer) or a scalar."""
    dtype: str
    """Element type of a buffer, or type of a scalar, as a NumPy-style name
    (`float32`, `bfloat16`, `int64`, ...); `index` is int32 or int64 as the kernel's
    index width says."""
    is_buffer: bool
    written: bool = False
    """Whether the kernel stores to this buffer."""
    alignment: int = 1
    """Bytes the buffer's address must be a multiple of: its widest vector access."""
    num_elements: int | None = None
    """The static size of the buffer (`memref<1024xf32>`), None when dynamic."""


@dataclass(frozen=True)
class KernelInfo:
    """What the launcher needs to know about one `gpu.func` kernel."""

    name: str
    """The `extern "C"` name in the CUDA text."""
    symbol: str
    """`gpu.module` name and kernel name, as `gpu.launch_func` refers to it."""
    params: tuple[KernelParam, ...]
    block_size: tuple[int, int, int] | None
    index_bits: int
    """32 or 64: the width of `index` in the kernel."""
    dynamic_smem_bytes: int = 0
    """Shared memory the kernel takes as dynamic shared memory: all of its shared
    buffers when together they exceed CUDA's 48 KiB limit on static shared memory
    (the launcher then opts the kernel in to that much), else 0."""


STATIC_SMEM_LIMIT = 48 * 1024
"""The most static (`__shared__ T x[N]`) shared memory a kernel may declare."""
MAX_SMEM_PER_BLOCK = 227 * 1024
"""The most shared memory one block may use on sm_90 (with the dynamic opt-in)."""
SMEM_ALIGN = 16
"""Each shared buffer starts at a multiple of 16 bytes (the widest vector access)."""


def shared_buffers(kernel: gpu.FuncOp) -> list[tuple[memref.AllocaOp, int]]:
    """Each shared-memory alloca of `kernel` with its byte offset in one shared arena,
    in program order."""
    out, offset = [], 0
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp) and memory_space_number(op.memref.type) == 3:
            t = op.memref.type
            out.append((op, offset))
            size = int(np.prod(t.get_shape())) * _element_bytes(t.element_type)
            offset += -(-size // SMEM_ALIGN) * SMEM_ALIGN
    return out


def _shared_bytes(kernel: gpu.FuncOp) -> int:
    bufs = shared_buffers(kernel)
    if not bufs:
        return 0
    op, offset = bufs[-1]
    t = op.memref.type
    return offset + int(np.prod(t.get_shape())) * _element_bytes(t.element_type)


def _sanitise(hint: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", hint)
    name = re.sub(r"_{2,}", "_", name).strip("_")
    if name and name[0].isdigit():
        name = "v" + name
    return name


def _element_bytes(element_type: Attribute) -> int:
    if isinstance(element_type, IntegerType):
        return max(1, element_type.width.data // 8)
    if isinstance(element_type, tuple(_FLOAT_CTYPES)):
        return element_type.bitwidth // 8  # type: ignore[attr-defined]
    if isinstance(element_type, IndexType):
        return 8
    raise ValueError(f"no size for {element_type}")


def _num_elements(t: VectorType) -> int:
    return int(np.prod(t.get_shape()))


def _is_supported_element(element_type: Attribute) -> bool:
    if isinstance(element_type, IntegerType):
        return element_type.width.data in (8, 16, 32, 64)
    return isinstance(element_type, tuple(_FLOAT_CTYPES))


def _kernel_funcs(module: ModuleOp) -> list[tuple[gpu.ModuleOp, gpu.FuncOp]]:
    kernels: list[tuple[gpu.ModuleOp, gpu.FuncOp]] = []
    for op in module.ops:
        if isinstance(op, gpu.ModuleOp):
            for inner in op.body.ops:
                if isinstance(inner, gpu.FuncOp):
                    if inner.kernel is None:
                        raise TilecError(
                            "only kernels ('gpu.func' with the 'kernel' attribute) "
                            "are supported by the cuda target",
                            op=inner,
                        )
                    kernels.append((op, inner))
                else:
                    raise TilecError(
                        f"'{inner.name}' is not supported inside 'gpu.module' by the "
                        "cuda target",
                        op=inner,
                    )
        elif not isinstance(op, func.FuncOp):
            raise TilecError(
                f"'{op.name}' is not supported at the top level of a GPU-level module "
                "(expected 'func.func' host functions and 'gpu.module's)",
                op=op,
            )
    return kernels


def _index_bits(kernel: gpu.FuncOp) -> int:
    """32 when every buffer argument has a static size < 2^31 and every index constant
    fits in 32 bits, 64 otherwise (docs/gpu-level.md)."""
    for arg in kernel.body.block.args:
        if isinstance(arg.type, MemRefType):
            shape = arg.type.get_shape()
            if any(d < 0 for d in shape) or int(np.prod(shape)) >= 2**31:
                return 64
    for op in kernel.walk():
        if (
            isinstance(op, arith.ConstantOp)
            and isinstance(op.result.type, IndexType)
            and isinstance(op.value, IntegerAttr)
            and not -(2**31) <= op.value.value.data < 2**31
        ):
            return 64
    return 32


def _buffer_accesses(arg: SSAValue) -> tuple[bool, int]:
    """(written, widest access in bytes) for a kernel's buffer argument."""
    assert isinstance(arg.type, MemRefType)
    element_bytes = _element_bytes(arg.type.element_type)
    written = False
    alignment = element_bytes
    for use in arg.uses:
        op = use.operation
        if isinstance(op, memref.StoreOp) and op.memref is arg:
            written = True
        if isinstance(op, vector.StoreOp) and op.base is arg:
            written = True
        if isinstance(op, vector.LoadOp | vector.StoreOp):
            vtype = op.result.type if isinstance(op, vector.LoadOp) else op.vector.type
            assert isinstance(vtype, VectorType)
            alignment = max(alignment, _num_elements(vtype) * element_bytes)
        if isinstance(op, cuda.CpAsyncOp):
            alignment = max(alignment, op.bytes.value.data)
            if op.dst is arg:
                written = True
    return written, alignment


def numpy_dtype_name(t: Attribute, index_bits: int) -> str:
    """`float32`, `bfloat16`, `int64`, ... for an IR scalar type (`index` is
    `int{index_bits}`)."""
    if isinstance(t, IndexType):
        return f"int{index_bits}"
    if isinstance(t, IntegerType):
        return _INT_DTYPES.get(t.width.data, f"i{t.width.data}")
    for cls, name in _FLOAT_DTYPES.items():
        if isinstance(t, cls):
            return name
    return str(t)


def _check_param_type(kernel: gpu.FuncOp, name: str, t: Attribute) -> None:
    if isinstance(t, MemRefType):
        if t.get_num_dims() != 1:
            raise TilecError(
                f"kernel argument '{name}' must be a 1-D memref, got {t}", op=kernel
            )
        if not _is_supported_element(t.element_type):
            raise TilecError(
                f"kernel argument '{name}': element type {t.element_type} is not "
                f"supported by the cuda target (supported: {SUPPORTED_ELEMENT_TYPES})",
                op=kernel,
            )
    elif not (
        isinstance(t, IndexType)
        or _is_supported_element(t)
        or (isinstance(t, IntegerType) and t.width.data == 1)
    ):
        raise TilecError(
            f"kernel argument '{name}' has type {t}, which is not supported by the cuda "
            f"target (supported: {SUPPORTED_ELEMENT_TYPES}, i1, index, 1-D memrefs)",
            op=kernel,
        )


def kernel_info(gpu_module: gpu.ModuleOp, kernel: gpu.FuncOp) -> KernelInfo:
    """Describe one kernel: its C name, its parameters and its index width."""
    index_bits = _index_bits(kernel)
    params: list[KernelParam] = []
    names = _NameTable()
    for i, arg in enumerate(kernel.body.block.args):
        name = names.fresh(arg.name_hint, f"arg{i}")
        _check_param_type(kernel, name, arg.type)
        if isinstance(arg.type, MemRefType):
            written, alignment = _buffer_accesses(arg)
            shape = arg.type.get_shape()
            static = None if any(d < 0 for d in shape) else int(np.prod(shape))
            params.append(
                KernelParam(
                    name=name,
                    type=arg.type,
                    dtype=numpy_dtype_name(arg.type.element_type, index_bits),
                    is_buffer=True,
                    written=written,
                    alignment=alignment,
                    num_elements=static,
                )
            )
        else:
            params.append(
                KernelParam(
                    name=name,
                    type=arg.type,
                    dtype=numpy_dtype_name(arg.type, index_bits),
                    is_buffer=False,
                )
            )
    block = kernel.known_block_size
    block_size = None
    if block is not None:
        values = tuple(block.get_values())
        block_size = (values + (1, 1, 1))[:3]
    shared = _shared_bytes(kernel)
    if shared > MAX_SMEM_PER_BLOCK:
        raise TilecError(
            f"the kernel needs {shared} bytes of shared memory; a block may use at most "
            f"{MAX_SMEM_PER_BLOCK} (227 KiB on sm_90): use smaller tiles",
            op=kernel,
        )
    return KernelInfo(
        name=_sanitise(kernel.sym_name.data) or "kernel",
        symbol=f"{gpu_module.sym_name.data}::{kernel.sym_name.data}",
        params=tuple(params),
        block_size=block_size,  # type: ignore[arg-type]
        index_bits=index_bits,
        dynamic_smem_bytes=shared if shared > STATIC_SMEM_LIMIT else 0,
    )


def kernel_infos(module: ModuleOp) -> dict[str, KernelInfo]:
    """Every kernel of `module`, by kernel symbol name (`@mod::@name` -> `name`)."""
    infos: dict[str, KernelInfo] = {}
    for gpu_module, kernel in _kernel_funcs(module):
        info = kernel_info(gpu_module, kernel)
        if info.name in {i.name for i in infos.values()}:
            raise TilecError(
                f"two kernels are named '{info.name}': kernel names must be unique "
                "across gpu.modules (they share one CUDA translation unit)",
                op=kernel,
            )
        infos[kernel.sym_name.data] = info
    return infos


@lru_cache(maxsize=4096)
def _base_name(hint: str | None, default: str) -> str:
    """The identifier a name hint becomes before it is made unique."""
    base = _sanitise(hint) if hint else ""
    if not base:
        base = default
    if base in _CXX_RESERVED or _VECTOR_NAME.match(base) or base.startswith("tilec_"):
        base = base + "_"
    return base


class _NameTable:
    """Unique C identifiers from SSA name hints: the hint itself, else the hint with the
    smallest suffix `_1`, `_2`, ... not taken yet."""

    def __init__(self, taken: Iterable[str] = ()):
        self.used: set[str] = set(taken)
        # per base, a suffix below which every `{base}_{suffix}` is taken: `used` only
        # grows, so the search for a free suffix resumes there (linear, not quadratic)
        self._next: dict[str, int] = {}

    def fresh(self, hint: str | None, default: str) -> str:
        base = _base_name(hint, default)
        name = base
        if name in self.used:
            suffix = self._next.get(base, 1)
            name = f"{base}_{suffix}"
            while name in self.used:
                suffix += 1
                name = f"{base}_{suffix}"
            self._next[base] = suffix + 1
        self.used.add(name)
        return name


def _f32_literal(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return f"__int_as_float(0x{bits:08x})"
    text = str(np.float32(value))
    if "." not in text and "e" not in text:
        text += ".0"
    return f"{text}f"


def _f64_literal(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        return f"__longlong_as_double(0x{bits:016x}LL)"
    text = repr(float(value))
    if "." not in text and "e" not in text:
        text += ".0"
    return text


def _round_to_bf16(value: float) -> float:
    bits = struct.unpack("<I", struct.pack("<f", np.float32(value)))[0]
    if (bits & 0x7F800000) == 0x7F800000:  # inf or nan
        return value
    bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


@dataclass(eq=False, repr=False)
class CudaEmitter(BasePrinter):
    """Prints the kernels of a GPU-level module; `print_module` is the entry point."""

    vector_types: dict[str, tuple[str, int, int]] = field(
        default_factory=dict[str, tuple[str, int, int]], init=False
    )
    helpers: set[str] = field(default_factory=set[str], init=False)
    includes: set[str] = field(default_factory=set[str], init=False)
    # per kernel
    names: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str], init=False)
    name_table: _NameTable = field(default_factory=_NameTable, init=False)
    index_bits: int = field(default=32, init=False)
    last_loc: str | None = field(default=None, init=False)
    smem_offsets: dict[Operation, int] = field(default_factory=dict[Operation, int], init=False)
    """Byte offset of each shared buffer in `tilec_smem`, for a kernel whose shared
    memory is dynamic (empty otherwise)."""

    # ---------------------------------------------------------------- text helpers

    def line(self, text: str) -> None:
        self.print_string("\n" + text)

    def fail(self, op: Operation, message: str) -> TilecError:
        return TilecError(message, op=op)

    # ---------------------------------------------------------------- types

    @property
    def index_ctype(self) -> str:
        return "int" if self.index_bits == 32 else "long long"

    def ctype(self, t: Attribute, op: Operation) -> str:
        """The C++ type of a value of IR type `t`."""
        if isinstance(t, IndexType):
            return self.index_ctype
        if isinstance(t, IntegerType) and t.width.data in _INT_CTYPES:
            return _INT_CTYPES[t.width.data]
        for cls, name in _FLOAT_CTYPES.items():
            if isinstance(t, cls):
                if cls is Float16Type:
                    self.includes.add("cuda_fp16.h")
                if cls is BFloat16Type:
                    self.includes.add("cuda_bf16.h")
                return name
        if isinstance(t, VectorType):
            return self.vector_ctype(t, op)
        raise self.fail(
            op,
            f"type {t} is not supported by the cuda target "
            f"(element types: {SUPPORTED_ELEMENT_TYPES}, i1, index)",
        )

    def unsigned_ctype(self, t: Attribute, op: Operation) -> str:
        if isinstance(t, IndexType):
            return "unsigned int" if self.index_bits == 32 else "unsigned long long"
        if isinstance(t, IntegerType) and t.width.data in _UINT_CTYPES:
            return _UINT_CTYPES[t.width.data]
        raise self.fail(op, f"expected an integer type, got {t}")

    def element_ctype(self, t: Attribute, op: Operation) -> str:
        """The C++ type of an element of a buffer: one of the supported types."""
        if not _is_supported_element(t):
            raise self.fail(
                op,
                f"element type {t} is not supported by the cuda target "
                f"(supported: {SUPPORTED_ELEMENT_TYPES})",
            )
        return self.ctype(t, op)

    def vector_ctype(self, t: VectorType, op: Operation) -> str:
        if t.get_num_dims() != 1 or t.get_num_scalable_dims():
            raise self.fail(op, f"only 1-D vectors are supported, got {t}")
        element = t.element_type
        elem_ctype = self.element_ctype(element, op)
        count = _num_elements(t)
        size = count * _element_bytes(element)
        if size > 16 or size & (size - 1):
            raise self.fail(
                op,
                f"vector type {t} is {size} bytes; the cuda target supports vectors "
                "of 1, 2, 4, 8 or 16 bytes",
            )
        short = _SHORT_NAMES.get(type(element)) or f"i{element.width.data}"  # type: ignore[attr-defined]
        name = f"{short}x{count}"
        self.vector_types[name] = (elem_ctype, count, size)
        return name

    def buffer(self, value: SSAValue, op: Operation) -> MemRefType:
        t = value.type
        if not isinstance(t, MemRefType) or t.get_num_dims() != 1:
            raise self.fail(op, f"expected a 1-D memref, got {t}")
        self.element_ctype(t.element_type, op)
        return t

    # ---------------------------------------------------------------- values

    def expr(self, value: SSAValue) -> str:
        """The C++ expression for an SSA value: a variable or an inlined constant."""
        return self.names[value]

    def define(self, value: SSAValue, default: str) -> str:
        name = self.name_table.fresh(value.name_hint, default)
        self.names[value] = name
        return name

    def assign(self, op: Operation, value: SSAValue, expr: str, default: str = "t"):
        """Print `const T name = expr;` for the result `value` of `op`."""
        ctype = self.ctype(value.type, op)
        name = self.define(value, default)
        self.line(f"const {ctype} {name} = {expr};")

    def literal(self, attr: Attribute, t: Attribute, op: Operation) -> str:
        if isinstance(attr, IntegerAttr):
            return self.int_literal(attr.value.data, t, op)
        if isinstance(attr, FloatAttr):
            return self.float_literal(attr.value.data, t, op)
        raise self.fail(op, f"unsupported constant {attr}")

    def int_literal(self, value: int, t: Attribute, op: Operation) -> str:
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if value & 1 else "false"
        bits = self.index_bits if isinstance(t, IndexType) else t.width.data  # type: ignore[attr-defined]
        self.ctype(t, op)
        value &= (1 << bits) - 1
        if value >= 1 << (bits - 1):
            value -= 1 << bits
        if bits == 64 and value == -(2**63):
            return "(-9223372036854775807LL - 1)"
        text = str(value)
        if not -(2**31) <= value < 2**31:
            text += "LL"
        return f"({text})" if value < 0 else text

    def float_literal(self, value: float, t: Attribute, op: Operation) -> str:
        text = self._float_literal(value, t, op)
        return f"({text})" if text.startswith("-") else text

    def _float_literal(self, value: float, t: Attribute, op: Operation) -> str:
        ctype = self.ctype(t, op)
        if isinstance(t, Float32Type):
            return _f32_literal(value)
        if isinstance(t, Float64Type):
            return _f64_literal(value)
        if isinstance(t, Float16Type):
            half = np.float16(value)
            if not np.isfinite(half):
                bits = int(half.view(np.uint16))
                return f"__ushort_as_half((unsigned short)0x{bits:04x})"
            return f"__float2half({_f32_literal(float(half))})"
        if isinstance(t, BFloat16Type):
            rounded = _round_to_bf16(value)
            if rounded != rounded or rounded in (float("inf"), float("-inf")):
                bits = struct.unpack("<I", struct.pack("<f", rounded))[0] >> 16
                return f"__ushort_as_bfloat16((unsigned short)0x{bits:04x})"
            return f"__float2bfloat16({_f32_literal(rounded)})"
        raise self.fail(op, f"unsupported float constant of type {ctype}")

    def loc_comment(self, op: Operation) -> None:
        loc = op.attributes.get(LOC_ATTR)
        if loc is None:
            return
        text = loc.data if type(loc) is StringAttr else getattr(loc, "data", None)
        if text is None:
            text = str(loc)
        if text != self.last_loc:
            self.line(f"// {text}")
            self.last_loc = text

    # ---------------------------------------------------------------- module

    def print_module(self, module: ModuleOp) -> str:
        """Print every kernel of `module`; returns the whole translation unit."""
        infos = kernel_infos(module)
        body = StringIO()
        saved = self.stream
        self.stream = body
        for gpu_module, kernel in _kernel_funcs(module):
            self.print_kernel(kernel, infos[kernel.sym_name.data], gpu_module)
        self.stream = saved
        text = self.prelude() + body.getvalue().lstrip("\n") + "\n"
        if self.stream is not None:
            self.stream.write(text)
        return text

    def prelude(self) -> str:
        parts = ["// Generated by tilec (-t cuda) from GPU-level IR. Do not edit.\n"]
        if self.includes:
            parts.append(
                "".join(f"#include <{h}>\n" for h in sorted(self.includes)) + "\n"
            )
        else:
            parts.append("\n")
        for name in sorted(self.vector_types):
            elem, count, size = self.vector_types[name]
            parts.append(f"struct alignas({size}) {name} {{ {elem} v[{count}]; }};\n")
        if self.vector_types:
            parts.append("\n")
        for helper in sorted(self.helpers):
            parts.append(_HELPERS[helper] + "\n\n")
        return "".join(parts)

    def print_kernel(
        self, kernel: gpu.FuncOp, info: KernelInfo, gpu_module: gpu.ModuleOp
    ) -> None:
        self.names = {}
        self.name_table = _NameTable()
        self.index_bits = info.index_bits
        self.last_loc = None
        params: list[str] = []
        for arg, param in zip(kernel.body.block.args, info.params):
            self.name_table.used.add(param.name)
            self.names[arg] = param.name
            if param.is_buffer:
                memref_type = self.buffer(arg, kernel)
                if memory_space_number(memref_type) not in (None, 1):
                    raise self.fail(
                        kernel,
                        f"kernel argument '{param.name}' must be a global buffer, "
                        f"got {memref_type}",
                    )
                elem = self.element_ctype(memref_type.element_type, kernel)
                const = "" if param.written else "const "
                params.append(f"{const}{elem}* __restrict__ {param.name}")
            else:
                params.append(f"{self.ctype(arg.type, kernel)} {param.name}")
        self.line("")
        bounds = ""
        description = f"// kernel {info.symbol}: {info.index_bits}-bit indices"
        if info.block_size is not None:
            x, y, z = info.block_size
            bounds = f" __launch_bounds__({x * y * z})"
            description += f", block ({x}, {y}, {z})"
        self.line(description)
        self.loc_comment(kernel)
        self.line(f'extern "C" __global__ void{bounds}')
        self.line(f"{info.name}({', '.join(params)}) {{")
        if len(kernel.body.blocks) != 1:
            raise self.fail(kernel, "kernels of more than one block are not supported")
        self.smem_offsets = {}
        with self.indented():
            if info.dynamic_smem_bytes:
                self.line(
                    f"// {info.dynamic_smem_bytes} bytes of shared memory, more than the "
                    f"{STATIC_SMEM_LIMIT} a kernel may declare statically: dynamic"
                )
                self.line("extern __shared__ __align__(16) unsigned char tilec_smem[];")
                self.smem_offsets = {op: off for op, off in shared_buffers(kernel)}
            self.print_block(kernel.body.block)
        self.line("}")

    def print_block(self, block: Block, results: Sequence[str] = ()) -> None:
        """Print the ops of `block`; its terminator assigns to `results`. Location
        comments start afresh in each block and after it."""
        self.last_loc = None
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                self.print_yield(op, results)
            elif isinstance(op, scf.ConditionOp):
                self.print_assign(op, results, op.args)
                self.line(f"if (!{self.expr(op.condition)}) break;")
            elif isinstance(op, gpu.ReturnOp) and op is block.last_op:
                if block.parent_op() is not None and isinstance(
                    block.parent_op(), gpu.FuncOp
                ):
                    continue
                self.line("return;")
            else:
                self.loc_comment(op)
                # `self.emit(op)`, without the wrapper singledispatchmethod builds on
                # every access
                self._emitter(type(op))(self, op)
        self.last_loc = None

    def print_yield(self, op: scf.YieldOp, results: Sequence[str]) -> None:
        self.print_assign(op, results, op.operands)

    def print_assign(self, op: Operation, results: Sequence[str], values: Sequence[SSAValue]) -> None:
        """`results[i] = values[i]` for every i, as one parallel assignment."""
        pairs = [
            (target, value)
            for target, value in zip(results, values, strict=True)
            if target != self.expr(value)
        ]
        if len(pairs) > 1:
            # Read every yielded value before writing any (a yield may swap them).
            temps: list[tuple[str, str]] = []
            for target, value in pairs:
                temp = self.name_table.fresh(target + "_next", "t")
                ctype = self.ctype(value.type, op)
                self.line(f"const {ctype} {temp} = {self.expr(value)};")
                temps.append((target, temp))
            for target, temp in temps:
                self.line(f"{target} = {temp};")
        else:
            for target, value in pairs:
                self.line(f"{target} = {self.expr(value)};")

    # ---------------------------------------------------------------- ops

    @staticmethod
    @lru_cache(maxsize=None)
    def _emitter(cls: type[Operation]):
        """The `emit` implementation registered for ops of class `cls`."""
        return CudaEmitter.__dict__["emit"].dispatcher.dispatch(cls)

    @singledispatchmethod
    def emit(self, op: Operation) -> None:
        raise self.fail(op, f"'{op.name}' is not supported by the cuda target")

    # gpu

    @emit.register
    def _(self, op: gpu.ThreadIdOp):
        self.special(op, "threadIdx", "tid")

    @emit.register
    def _(self, op: gpu.BlockIdOp):
        self.special(op, "blockIdx", "bid")

    @emit.register
    def _(self, op: gpu.BlockDimOp):
        self.special(op, "blockDim", "ntid")

    @emit.register
    def _(self, op: gpu.GridDimOp):
        self.special(op, "gridDim", "nctaid")

    def special(
        self,
        op: gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp,
        register: str,
        default: str,
    ) -> None:
        dim = str(op.dimension.data)
        self.assign(op, op.result, f"({self.index_ctype}){register}.{dim}", default)

    @emit.register
    def _(self, op: gpu.GlobalIdOp):
        dim = str(op.dimension.data)
        t = self.index_ctype
        expr = f"({t})blockIdx.{dim} * ({t})blockDim.{dim} + ({t})threadIdx.{dim}"
        self.assign(op, op.result, expr, "gid")

    @emit.register
    def _(self, op: gpu.LaneIdOp):
        self.helpers.add("lane_id")
        self.assign(op, op.result, f"({self.index_ctype})tilec_lane_id()", "lane")

    @emit.register
    def _(self, op: gpu.BarrierOp):
        self.line("__syncthreads();")

    @emit.register
    def _(self, op: gpu.ReturnOp):
        self.line("return;")

    # arith

    @emit.register
    def _(self, op: arith.ConstantOp):
        t = op.result.type
        if isinstance(t, VectorType):
            ctype = self.ctype(t, op)
            value = op.value
            if not isinstance(value, DenseIntOrFPElementsAttr):
                raise self.fail(op, f"unsupported vector constant {value}")
            elements = [
                self.literal(a, t.element_type, op) for a in value.get_attrs()
            ]
            if len(elements) == 1:
                elements *= _num_elements(t)
            name = self.define(op.result, "cst")
            self.line(f"const {ctype} {name} = {{{{{', '.join(elements)}}}}};")
            return
        self.names[op.result] = self.literal(op.value, t, op)

    def binary(self, op: Operation, c_op: str, unsigned: bool = False) -> None:
        lhs, rhs = (self.expr(v) for v in op.operands)
        result = op.results[0]
        if unsigned:
            u = self.unsigned_ctype(result.type, op)
            expr = f"({self.ctype(result.type, op)})(({u}){lhs} {c_op} ({u}){rhs})"
        else:
            expr = f"{lhs} {c_op} {rhs}"
        self.assign(op, result, expr)

    @emit.register(arith.AddiOp)
    @emit.register(arith.AddfOp)
    def _(self, op: Operation):
        self.binary(op, "+")

    @emit.register(arith.SubiOp)
    @emit.register(arith.SubfOp)
    def _(self, op: Operation):
        self.binary(op, "-")

    @emit.register(arith.MuliOp)
    @emit.register(arith.MulfOp)
    def _(self, op: Operation):
        self.binary(op, "*")

    @emit.register(arith.DivSIOp)
    @emit.register(arith.DivfOp)
    def _(self, op: Operation):
        self.binary(op, "/")

    @emit.register
    def _(self, op: arith.RemSIOp):
        self.binary(op, "%")

    @emit.register
    def _(self, op: arith.AndIOp):
        self.binary(op, "&")

    @emit.register
    def _(self, op: arith.OrIOp):
        self.binary(op, "|")

    @emit.register
    def _(self, op: arith.XOrIOp):
        self.binary(op, "^")

    @emit.register
    def _(self, op: arith.ShLIOp):
        self.binary(op, "<<")

    @emit.register
    def _(self, op: arith.ShRSIOp):
        self.binary(op, ">>")

    @emit.register
    def _(self, op: arith.ShRUIOp):
        self.binary(op, ">>", unsigned=True)

    @emit.register
    def _(self, op: arith.DivUIOp):
        self.binary(op, "/", unsigned=True)

    @emit.register
    def _(self, op: arith.RemUIOp):
        self.binary(op, "%", unsigned=True)

    def call(self, op: Operation, helper: str, *args: str) -> None:
        self.helpers.add(helper)
        self.assign(op, op.results[0], f"tilec_{helper}({', '.join(args)})")

    @emit.register
    def _(self, op: arith.FloorDivSIOp):
        self.call(op, "floordiv", self.expr(op.lhs), self.expr(op.rhs))

    @emit.register
    def _(self, op: arith.CeilDivSIOp):
        self.call(op, "ceildiv", self.expr(op.lhs), self.expr(op.rhs))

    @emit.register
    def _(self, op: arith.CeilDivUIOp):
        u = self.unsigned_ctype(op.result.type, op)
        self.helpers.add("ceildivu")
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        expr = f"({self.ctype(op.result.type, op)})tilec_ceildivu(({u}){lhs}, ({u}){rhs})"
        self.assign(op, op.result, expr)

    def min_max(self, op: Operation, c_op: str, unsigned: bool) -> None:
        lhs, rhs = (self.expr(v) for v in op.operands)
        a, b = lhs, rhs
        if unsigned:
            u = self.unsigned_ctype(op.results[0].type, op)
            a, b = f"({u}){lhs}", f"({u}){rhs}"
        self.assign(op, op.results[0], f"{a} {c_op} {b} ? {lhs} : {rhs}")

    @emit.register
    def _(self, op: arith.MinSIOp):
        self.min_max(op, "<", False)

    @emit.register
    def _(self, op: arith.MaxSIOp):
        self.min_max(op, ">", False)

    @emit.register
    def _(self, op: arith.MinUIOp):
        self.min_max(op, "<", True)

    @emit.register
    def _(self, op: arith.MaxUIOp):
        self.min_max(op, ">", True)

    @emit.register
    def _(self, op: arith.CmpiOp):
        c_op, unsigned = _CMPI[op.predicate.value.data]
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        if unsigned:
            u = self.unsigned_ctype(op.lhs.type, op)
            lhs, rhs = f"({u}){lhs}", f"({u}){rhs}"
        self.assign(op, op.result, f"{lhs} {c_op} {rhs}", "p")

    @emit.register
    def _(self, op: arith.CmpfOp):
        a, b = self.expr(op.lhs), self.expr(op.rhs)
        self.ctype(op.lhs.type, op)
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        expr = {
            "false": "false",
            "oeq": f"{a} == {b}",
            "ogt": f"{a} > {b}",
            "oge": f"{a} >= {b}",
            "olt": f"{a} < {b}",
            "ole": f"{a} <= {b}",
            "one": f"({a} < {b} || {a} > {b})",
            "ord": f"({a} == {a} && {b} == {b})",
            "ueq": f"!({a} < {b} || {a} > {b})",
            "ugt": f"!({a} <= {b})",
            "uge": f"!({a} < {b})",
            "ult": f"!({a} >= {b})",
            "ule": f"!({a} > {b})",
            "une": f"{a} != {b}",
            "uno": f"({a} != {a} || {b} != {b})",
            "true": "true",
        }[predicate]
        self.assign(op, op.result, expr, "p")

    @emit.register
    def _(self, op: arith.SelectOp):
        c, a, b = (self.expr(v) for v in op.operands)
        self.assign(op, op.result, f"{c} ? {a} : {b}")

    @emit.register
    def _(self, op: arith.NegfOp):
        self.assign(op, op.result, f"-{self.expr(op.operand)}")

    def float_helper(self, op: Operation, helper: str) -> None:
        t = op.results[0].type
        ctype = self.ctype(t, op)
        a, b = (self.expr(v) for v in op.operands)
        self.helpers.add(helper)
        if isinstance(t, Float16Type | BFloat16Type):
            expr = (
                f"static_cast<{ctype}>(tilec_{helper}(static_cast<float>({a}), "
                f"static_cast<float>({b})))"
            )
        else:
            expr = f"tilec_{helper}({a}, {b})"
        self.assign(op, op.results[0], expr)

    @emit.register
    def _(self, op: arith.MaximumfOp):
        self.float_helper(op, "maximumf")

    @emit.register
    def _(self, op: arith.MinimumfOp):
        self.float_helper(op, "minimumf")

    def cast(
        self, op: Operation, value: SSAValue, result: SSAValue, unsigned: bool = False
    ) -> None:
        """Conversions between integers, index and floats; `unsigned` reads an
        integer source as unsigned (extui, uitofp) or makes a float an unsigned
        integer (fptoui)."""
        src, dst = value.type, result.type
        ctype = self.ctype(dst, op)
        self.ctype(src, op)
        expr = self.expr(value)
        half = (Float16Type, BFloat16Type)
        integer = (IntegerType, IndexType)
        if isinstance(src, integer):
            if unsigned:
                expr = f"({self.unsigned_ctype(src, op)}){expr}"
            if isinstance(dst, half):
                # __half and __nv_bfloat16 convert from (unsigned) long long.
                expr = f"({'unsigned ' if unsigned else ''}long long){expr}"
        elif isinstance(dst, integer):
            wide = "unsigned long long" if unsigned else "long long"
            if unsigned or isinstance(src, half):
                expr = f"static_cast<{wide}>({expr})"
        elif isinstance(src, half) and not isinstance(dst, Float32Type):
            expr = f"static_cast<float>({expr})"
        self.assign(op, result, f"static_cast<{ctype}>({expr})")

    @emit.register(arith.IndexCastOp)
    @emit.register(arith.TruncIOp)
    @emit.register(arith.SIToFPOp)
    @emit.register(arith.FPToSIOp)
    @emit.register(arith.ExtFOp)
    @emit.register(arith.TruncFOp)
    def _(self, op: Operation):
        self.cast(op, op.operands[0], op.results[0])

    @emit.register(arith.UIToFPOp)
    @emit.register(arith.FPToUIOp)
    def _(self, op: Operation):
        self.cast(op, op.operands[0], op.results[0], unsigned=True)

    @emit.register
    def _(self, op: arith.ExtSIOp):
        if isinstance(op.input.type, IntegerType) and op.input.type.width.data == 1:
            ctype = self.ctype(op.result.type, op)
            self.assign(op, op.result, f"{self.expr(op.input)} ? ({ctype})-1 : 0")
        else:
            self.cast(op, op.input, op.result)

    @emit.register
    def _(self, op: arith.ExtUIOp):
        self.cast(op, op.input, op.result, unsigned=True)

    @emit.register
    def _(self, op: arith.BitcastOp):
        ctype = self.ctype(op.result.type, op)
        self.ctype(op.input.type, op)
        self.helpers.add("bitcast")
        self.assign(op, op.result, f"tilec_bitcast<{ctype}>({self.expr(op.input)})")

    # memref and vector

    @emit.register
    def _(self, op: memref.LoadOp):
        self.buffer(op.memref, op)
        (index,) = self.indices(op, op.indices)
        self.assign(op, op.res, f"{self.expr(op.memref)}[{index}]", "x")

    @emit.register
    def _(self, op: memref.StoreOp):
        self.buffer(op.memref, op)
        (index,) = self.indices(op, op.indices)
        self.line(f"{self.expr(op.memref)}[{index}] = {self.expr(op.value)};")

    def indices(self, op: Operation, indices: Sequence[SSAValue]) -> list[str]:
        if len(indices) != 1:
            raise self.fail(op, "only 1-D memrefs (one index) are supported")
        return [self.expr(i) for i in indices]

    @emit.register
    def _(self, op: memref.AllocaOp):
        t = op.memref.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        if len(shape) != 1 or shape[0] < 0 or op.dynamic_sizes:
            raise self.fail(op, f"only static 1-D allocas are supported, got {t}")
        elem = self.element_ctype(t.element_type, op)
        space = memory_space_number(t)
        if space == 3 and op in self.smem_offsets:
            name = self.define(op.memref, "smem")
            self.line(
                f"{elem}* const {name} = reinterpret_cast<{elem}*>(tilec_smem + "
                f"{self.smem_offsets[op]});  // {shape[0]} elements"
            )
        elif space == 3:
            name = self.define(op.memref, "smem")
            self.line(f"__shared__ alignas(16) {elem} {name}[{shape[0]}];")
        elif space in (None, 5):
            name = self.define(op.memref, "regs")
            self.line(f"alignas(16) {elem} {name}[{shape[0]}];")
        else:
            raise self.fail(
                op,
                f"memory space {t.memory_space} is not supported (shared memory is "
                "3, registers are 5 or none)",
            )

    def vector_pointer(self, op: Operation, base: SSAValue, vtype: Attribute) -> str:
        memref_type = self.buffer(base, op)
        assert isinstance(vtype, VectorType)
        if vtype.element_type != memref_type.element_type:
            raise self.fail(op, "vector and memref element types differ")
        return self.vector_ctype(vtype, op)

    @emit.register
    def _(self, op: vector.LoadOp):
        vt = self.vector_pointer(op, op.base, op.result.type)
        (index,) = self.indices(op, op.indices)
        expr = f"*reinterpret_cast<const {vt}*>({self.expr(op.base)} + {index})"
        self.assign(op, op.result, expr, "v")

    @emit.register
    def _(self, op: vector.StoreOp):
        vt = self.vector_pointer(op, op.base, op.vector.type)
        (index,) = self.indices(op, op.indices)
        target = f"*reinterpret_cast<{vt}*>({self.expr(op.base)} + {index})"
        self.line(f"{target} = {self.expr(op.vector)};")

    def position(self, op: vector.ExtractOp | vector.InsertOp) -> str:
        positions = op.get_mixed_position()
        if len(positions) != 1:
            raise self.fail(op, "only 1-D vectors are supported")
        (p,) = positions
        return str(p) if isinstance(p, int) else self.expr(p)

    @emit.register
    def _(self, op: vector.ExtractOp):
        self.ctype(op.vector.type, op)
        self.assign(op, op.result, f"{self.expr(op.vector)}.v[{self.position(op)}]")

    @emit.register
    def _(self, op: vector.InsertOp):
        ctype = self.ctype(op.result.type, op)
        name = self.define(op.result, "v")
        self.line(f"{ctype} {name} = {self.expr(op.dest)};")
        self.line(f"{name}.v[{self.position(op)}] = {self.expr(op.source)};")

    @emit.register
    def _(self, op: vector.BroadcastOp):
        t = op.vector.type
        assert isinstance(t, VectorType)
        if isinstance(op.source.type, VectorType):
            raise self.fail(op, "only broadcasts of scalars are supported")
        ctype = self.ctype(t, op)
        source = self.expr(op.source)
        values = ", ".join([source] * _num_elements(t))
        name = self.define(op.vector, "v")
        self.line(f"const {ctype} {name} = {{{{{values}}}}};")

    # scf

    @emit.register
    def _(self, op: scf.ForOp):
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        static = all(
            isinstance(v.owner, arith.ConstantOp) for v in (op.lb, op.ub, op.step)
        )
        results = self.declare_results(op, op.results, op.iter_args, op.body.block.args[1:])
        iv = op.body.block.args[0]
        iv_type = self.ctype(iv.type, op)
        name = self.define(iv, "i")
        if static:
            self.line("#pragma unroll")
        increment = f"++{name}" if step == "1" else f"{name} += {step}"
        self.line(f"for ({iv_type} {name} = {lb}; {name} < {ub}; {increment}) {{")
        with self.indented():
            self.print_block(op.body.block, results)
        self.line("}")

    def declare_results(
        self,
        op: Operation,
        results: Sequence[SSAValue],
        inits: Sequence[SSAValue],
        block_args: Sequence[SSAValue] = (),
    ) -> list[str]:
        """Declare one mutable variable per result of a loop or an if; the loop's
        block arguments (iter_args) are the same variables."""
        names: list[str] = []
        for i, result in enumerate(results):
            ctype = self.ctype(result.type, op)
            hint = result.name_hint or (block_args[i].name_hint if block_args else None)
            name = self.name_table.fresh(hint, "r")
            self.names[result] = name
            if block_args:
                self.names[block_args[i]] = name
            init = f" = {self.expr(inits[i])}" if inits else ""
            self.line(f"{ctype} {name}{init};")
            names.append(name)
        return names

    @emit.register
    def _(self, op: scf.WhileOp):
        """`while (true)`: the values entering `before` are variables initialised with
        the operands (what `after` yields assigns them), the results are variables that
        `scf.condition` assigns before it leaves the loop; `after`'s arguments are the
        results' variables."""
        before, after = op.before_region.block, op.after_region.block
        state = self.declare_results(op, before.args, op.arguments)
        results = self.declare_results(op, op.results, (), after.args)
        self.line("while (true) {")
        with self.indented():
            self.print_block(before, results)
            self.print_block(after, state)
        self.line("}")

    @emit.register
    def _(self, op: scf.IfOp):
        results = self.declare_results(op, op.results, ())
        self.line(f"if ({self.expr(op.cond)}) {{")
        with self.indented():
            self.print_block(op.true_region.block, results)
        if op.false_region.blocks and (
            len(op.false_region.block.ops) > 1
            or not isinstance(op.false_region.block.last_op, scf.YieldOp)
            or op.false_region.block.last_op.operands
        ):
            self.line("} else {")
            with self.indented():
                self.print_block(op.false_region.block, results)
        self.line("}")

    # cuda

    @emit.register
    def _(self, op: cuda.CpAsyncOp):
        self.buffer(op.dst, op)
        self.buffer(op.src, op)
        self.helpers.add("cp_async")
        dst = f"{self.expr(op.dst)} + {self.expr(op.dst_index)}"
        src = f"{self.expr(op.src)} + {self.expr(op.src_index)}"
        self.line(f"tilec_cp_async<{op.bytes.value.data}>({dst}, {src});")

    @emit.register
    def _(self, op: cuda.CpAsyncCommitOp):
        self.helpers.add("cp_async")
        self.line("tilec_cp_async_commit();")

    @emit.register
    def _(self, op: cuda.CpAsyncWaitOp):
        self.helpers.add("cp_async")
        self.line(f"tilec_cp_async_wait<{op.pending.value.data}>();")

    @emit.register
    def _(self, op: cuda.CommentOp):
        text = " ".join(op.text.data.split())
        self.line(f"// {text}")

    @emit.register
    def _(self, op: cuda.ShflIdxOp):
        t = op.result.type
        ctype = self.ctype(t, op)
        value = self.expr(op.value)
        lane = self.expr(op.lane)
        width = op.width.value.data
        small = isinstance(t, IntegerType) and t.width.data < 32
        if small:
            value = f"(int){value}"
        expr = f"__shfl_sync(0xffffffffu, {value}, {lane}, {width})"
        if small:
            expr = f"({ctype}){expr}"
        self.assign(op, op.result, expr, "shfl")


def emit_cuda(module: ModuleOp) -> str:
    """The CUDA C++ translation unit for the kernels of a GPU-level module."""
    return CudaEmitter().print_module(module)


@dataclass(frozen=True)
class CudaTarget(Target):
    """`-t cuda`: print the GPU-level module as CUDA C++."""

    name = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_cuda(module))


TARGETS = {"cuda": lambda: CudaTarget}
"""For a driver's `available_targets.update(TARGETS)`."""

# op families printed by their own modules register their `emit` methods on import
from tilec.compiler import cuda_math  # noqa: E402, F401
