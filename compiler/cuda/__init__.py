"""The `cuda` output target: prints the GPU level (docs/gpu-level.md) as CUDA C++.

One small method per op, grouped by op family, one module each (gpu_ops, arith_ops,
math_ops, memory_ops, scf_ops, cuda_ops, tma_ops, wgmma_ops, atomic_ops), over the shared printer core (printer.py).
Every `gpu.func ... kernel` becomes an `extern "C" __global__` function; the host
function is not printed (the runtime runs it). What the text looks like:

- `__launch_bounds__(x*y*z)` from `gpu.known_block_size`;
- global buffers are `T* __restrict__`, and `const T* __restrict__` when the kernel never
  writes them;
- `vector<NxT>` values are aligned structs (`struct alignas(16) f32x4 { float v[4]; };`),
  and `vector.load`/`vector.store` go through a pointer to that struct, so that NVRTC
  emits `ld.global.v4` / `st.global.v4`; elementwise `arith`/`math` on vectors (C++ has
  no operators on the structs) is printed lane by lane and gathered into a vector; a
  lane of a 16-bit float vector is read as half of its 32-bit pair
  (`__low2half(*reinterpret_cast<const __half2*>(&v.v[2 k]))`), so the vector stays in
  32-bit registers (`EmitterBase.lane`);
- `index` is `int` when every buffer of the kernel has a static size below 2^31 elements
  (and every index constant fits), `long long` otherwise; index arithmetic is signed and
  must not overflow;
- scalar `arith.constant`s are printed inline as literals; every other value gets a
  `const` variable named after its SSA name hint, sanitised and made unique;
- an op with a `tilec.loc` attribute is preceded by a `// file:line:col` comment;
- `scf.for` with constant bounds and step gets `#pragma unroll` when it stays small
  unrolled (`#pragma unroll 1` past `scf_ops.UNROLL_LIMIT` values or
  `UNROLL_BRANCH_LIMIT` branches); `scf.while` is a
  `while (true)` whose `scf.condition` assigns the results and breaks when false;
- `cuda.comment "text"` is the line `// text` (how a layout conversion was lowered).

`emit_cuda(module)` returns the text; `kernel_infos(module)` (kernel_info.py) describes
each kernel's parameters for the launcher; `CudaTarget` is the xDSL `Target`
(`tilec -t cuda`). Adding an op: an `@emits(OpType)` method in the family it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.target import Target

from .arith_ops import ArithEmitter
from .c_types import SUPPORTED_ELEMENT_TYPES
from .atomic_ops import AtomicEmitter
from .cuda_ops import CudaOpsEmitter
from .gpu_ops import GpuEmitter
from .kernel_info import KernelInfo, KernelParam, kernel_info, kernel_infos, numpy_dtype_name, shared_buffers
from .math_ops import MATH_EMITTERS
from .memory_ops import MemoryEmitter
from .printer import Emitter
from .scf_ops import ScfEmitter
from .roles_ops import RoleEmitter
from .tma_ops import TmaEmitter
from .wgmma_ops import WgmmaEmitter

__all__ = ["SUPPORTED_ELEMENT_TYPES", "CudaEmitter", "CudaTarget", "KernelInfo", "KernelParam", "TARGETS",
           "emit_cuda", "kernel_info", "kernel_infos", "numpy_dtype_name", "shared_buffers"]

FAMILIES = (GpuEmitter, ArithEmitter, MemoryEmitter, ScfEmitter, CudaOpsEmitter, TmaEmitter, WgmmaEmitter, RoleEmitter,
            AtomicEmitter)


def _table() -> dict[type[Operation], Emitter]:
    table: dict[type[Operation], Emitter] = dict(MATH_EMITTERS)
    for fam in FAMILIES:
        for fn in vars(fam).values():
            for t in getattr(fn, "emits", ()):
                if t in table:
                    raise AssertionError(f"two printers of {t.name}")
                table[t] = fn
    return table


@dataclass(eq=False, repr=False)
class CudaEmitter(*FAMILIES):  # type: ignore[misc]
    """Prints the kernels of a GPU-level module; `print_module` is the entry point."""

    EMITTERS = _table()


def emit_cuda(module: ModuleOp) -> str:
    """The CUDA C++ translation unit for the kernels of a GPU-level module. IR that still
    holds `layout` ops (never lowered) is a TilecError at the first of them, which names
    the pipeline to add: the printer knows only the GPU level."""
    require_gpu_level(module)
    return CudaEmitter().print_module(module)


def require_gpu_level(module: ModuleOp) -> None:
    """Refuse `module` where it is not GPU-level IR: a `layout` op that `lower-to-gpu`
    would have lowered remains (whole-tensor, block- or thread-level IR)."""
    from tilec.support.diagnostics import TilecError
    from tilec.support.locations import get_loc

    for op in module.walk():
        if op.name.startswith("layout."):
            raise TilecError(
                f"'{op.name}' is not lowered: `-t cuda` prints GPU-level IR, so run the passes "
                "first: add `-p default` (the whole pipeline), or end your pipeline with "
                "`lower-to-gpu`",
                loc=get_loc(op),
            )


@dataclass(frozen=True)
class CudaTarget(Target):
    """`-t cuda`: print the GPU-level module as CUDA C++."""

    name = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_cuda(module))


TARGETS = {"cuda": lambda: CudaTarget}
"""For a driver's `available_targets.update(TARGETS)`."""
