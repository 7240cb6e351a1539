"""What the runtime needs to know of each kernel of a GPU-level module: its parameters
(buffers, their element types and whether the kernel writes them; scalars), its index
width, its static and dynamic shared memory. `kernel_infos(module)` is the entry."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, gpu, memref, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, SSAValue

from tilec.dialects import cuda, cuda_atomic
from tilec.dialects.cuda_tma import GridDepLaunchOp, GridDepWaitOp, TensorMapType
from tilec.dialects.cuda import memory_space_number
from tilec.dialects.dtypes import DTYPE_NAMES, FLOAT_ELEMENTS
from tilec.support.diagnostics import TilecError
from tilec.support.index_width import promised_index_bits
from tilec.support.launch_bounds import cluster_dims, min_blocks
from tilec.support.target import target_of

from .c_types import (
    _INT_DTYPES,
    SUPPORTED_ELEMENT_TYPES,
    _element_bytes,
    _is_supported_element,
    _NameTable,
    _num_elements,
    _sanitise,
)


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
    min_blocks: int | None = None
    """The blocks per multiprocessor the kernel is compiled for (`tilec.min_blocks`,
    support/launch_bounds.py: `__launch_bounds__`'s second value), None for CUDA's default."""
    cluster_dims: int | None = None
    """The blocks per thread-block cluster along x (`tilec.cluster_dims`: CUDA's
    `__cluster_dims__(C, 1, 1)`; the grid's x must be a multiple), None: no clusters."""
    programmatic: bool = False
    """Whether the kernel holds programmatic dependent launch's ops (`cuda.griddep_wait`,
    `cuda.griddep_launch_dependents`): the runtime then launches it with the attribute
    "programmatic stream serialization" (`cuLaunchKernelEx`), so its blocks may start
    while the stream's previous kernel finishes (runtime/raw_launch.py)."""




def buffer_alignment(op: memref.AllocaOp, default: int) -> int:
    """Bytes a shared buffer is aligned to: the target's, or more when its alloca asks
    (a TMA box: 128, 1024 with a 128-byte swizzle)."""
    asked = op.alignment.value.data if op.alignment is not None else 0
    return max(default, asked)


def shared_buffers(kernel: gpu.FuncOp) -> list[tuple[memref.AllocaOp, int]]:
    """Each shared-memory alloca of `kernel` with its byte offset in one shared arena,
    in program order; each starts at a multiple of the target's `smem_align` (or of
    the larger alignment its alloca asks for)."""
    align = target_of(kernel).smem_align
    out, offset = [], 0
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp) and memory_space_number(op.memref.type) == 3:
            t = op.memref.type
            a = buffer_alignment(op, align)
            offset = -(-offset // a) * a
            out.append((op, offset))
            size = int(np.prod(t.get_shape())) * _element_bytes(t.element_type)
            offset += -(-size // align) * align
    return out


def _shared_bytes(kernel: gpu.FuncOp) -> int:
    bufs = shared_buffers(kernel)
    if not bufs:
        return 0
    op, offset = bufs[-1]
    t = op.memref.type
    return offset + int(np.prod(t.get_shape())) * _element_bytes(t.element_type)



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
    fits in 32 bits, 64 otherwise (docs/gpu-level.md); what the kernel's
    `tilec.index_bits` promise says where it has one (support/index_width.py)."""
    promised = promised_index_bits(kernel)
    if promised is not None:
        return promised
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


def buffer_written(arg: SSAValue) -> bool:
    """Whether the kernel writes its buffer argument `arg` (else it is printed `const`)."""
    return _buffer_accesses(arg)[0]


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
        if isinstance(op, cuda_atomic.AtomicAddOp) and op.mem is arg:
            written = True
    return written, alignment


TENSOR_MAP = "tensor_map"
"""The `dtype` of a `!cuda.tensor_map` parameter (a CUtensorMap passed by value)."""


def numpy_dtype_name(t: Attribute, index_bits: int) -> str:
    """`float32`, `bfloat16`, `int64`, ... for an IR scalar type (`index` is
    `int{index_bits}`; a tensor map is `tensor_map`)."""
    if isinstance(t, TensorMapType):
        return TENSOR_MAP
    if isinstance(t, IndexType):
        return f"int{index_bits}"
    if isinstance(t, IntegerType):
        return _INT_DTYPES.get(t.width.data, f"i{t.width.data}")
    e = FLOAT_ELEMENTS.get(type(t))
    return DTYPE_NAMES[e.name] if e is not None else str(t)


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
        isinstance(t, IndexType | TensorMapType)
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
    tgt = target_of(kernel)
    if shared > tgt.smem_per_block:
        raise TilecError(
            f"the kernel needs {shared} bytes of shared memory; a block may use at most "
            f"{tgt.smem_per_block} ({tgt.smem_per_block // 1024} KiB on {tgt.arch}): use smaller tiles",
            op=kernel,
        )
    return KernelInfo(
        name=_sanitise(kernel.sym_name.data) or "kernel",
        symbol=f"{gpu_module.sym_name.data}::{kernel.sym_name.data}",
        params=tuple(params),
        block_size=block_size,  # type: ignore[arg-type]
        index_bits=index_bits,
        dynamic_smem_bytes=shared if shared > tgt.static_smem_limit else 0,
        min_blocks=min_blocks(kernel),
        cluster_dims=cluster_dims(kernel),
        programmatic=any(isinstance(o, GridDepWaitOp | GridDepLaunchOp) for o in kernel.walk()),
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


