"""The compiled artifact: what the compiler hands the runtime for one GPU-level module.

`build_artifact(module)` takes a module that `lower-to-gpu` produced (a host
`func.func` with `gpu.launch_func`s and the `gpu.module`s of its kernels) and returns an
`Artifact`: the CUDA source, each kernel's parameters (buffers, by-value scalars, index
width, shared memory), one `ArgSpec` per host argument derived from the IR, the host
function whose index arithmetic gives each launch's grid, the target and the NVRTC
options its policies ask for. The runtime (runtime/launch.py) compiles the source with
NVRTC for the device at hand, caches the cubin and launches; it prints nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import MemRefType, ModuleOp

from tilec.dialects.cuda_tma import TensorMapOp
from tilec.dialects.tma import GLOBAL_ALIGN as TMA_GLOBAL_ALIGN
from tilec.support.diagnostics import TilecError
from tilec.support.target import Target, target_of

from .cuda import KernelInfo, emit_cuda, kernel_infos, numpy_dtype_name
from .signature import ArgSpec


@dataclass(frozen=True, eq=False)
class Artifact:
    """One GPU-level module, ready for the runtime."""

    module: ModuleOp
    """The GPU-level module (kept for inspection: `tilec.compile(...).module`)."""
    host: func.FuncOp
    """The host function: run on the host (runtime/host.py) for each launch's grid."""
    source: str
    """The CUDA C++ translation unit of every kernel."""
    kernels: dict[str, KernelInfo]
    """Each kernel's parameters and resources, by kernel symbol name."""
    arg_specs: tuple[ArgSpec | None, ...]
    """What each host argument must be (None: a scalar)."""
    target: Target

    @property
    def name(self) -> str:
        return self.host.sym_name.data

    @property
    def nvrtc_options(self) -> tuple[str, ...]:
        return self.target.nvrtc_options()


def host_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The host `func.func` of a GPU-level module: the one named `name`, or the only
    one."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is not None:
        funcs = [f for f in funcs if f.sym_name.data == name]
    if len(funcs) != 1:
        which = f"named '{name}'" if name else "(give its name)"
        raise TilecError(
            f"expected one host function {which} in the GPU-level module, "
            f"found {len(funcs)}"
        )
    return funcs[0]


def derived_specs(host: func.FuncOp, infos: dict[str, KernelInfo]) -> list[ArgSpec | None]:
    """One ArgSpec per host argument (None for scalars), from the IR: element type,
    static size, and the widest vector access of any kernel it is passed to."""
    alignment: dict[int, int] = {}
    for op in host.body.block.ops:
        if isinstance(op, TensorMapOp) and op.buffer in host.body.block.args:
            index = host.body.block.args.index(op.buffer)  # TMA: a 16-byte aligned base
            alignment[index] = max(alignment.get(index, 1), TMA_GLOBAL_ALIGN)
        if not isinstance(op, gpu.LaunchFuncOp):
            continue
        refs = op.kernel.nested_references.data
        kernel_name = refs[-1].data if refs else op.kernel.root_reference.data
        info = infos.get(kernel_name)
        if info is None:
            raise TilecError(f"launches an unknown kernel '{op.kernel}'", op=op)
        if len(info.params) != len(op.kernelOperands):
            raise TilecError(
                f"passes {len(op.kernelOperands)} arguments to '{kernel_name}', which "
                f"takes {len(info.params)}",
                op=op,
            )
        for value, param in zip(op.kernelOperands, info.params):
            if value in host.body.block.args:
                index = host.body.block.args.index(value)
                alignment[index] = max(alignment.get(index, 1), param.alignment)
    specs: list[ArgSpec | None] = []
    for i, arg in enumerate(host.body.block.args):
        name = arg.name_hint or f"arg{i}"
        if isinstance(arg.type, MemRefType):
            shape = arg.type.get_shape()
            static = 0 if any(d < 0 for d in shape) else int(np.prod(shape))
            specs.append(
                ArgSpec(
                    name=name,
                    dtype=numpy_dtype_name(arg.type.element_type, 64),
                    min_elements=static,
                    alignment=alignment.get(i, 1),
                )
            )
        else:
            specs.append(None)
    return specs


def build_artifact(module: ModuleOp, function: str | None = None) -> Artifact:
    """The artifact of a GPU-level module (its host function `function`, or the only
    one)."""
    host = host_function(module, function)
    infos = kernel_infos(module)
    return Artifact(
        module=module,
        host=host,
        source=emit_cuda(module),
        kernels=infos,
        arg_specs=tuple(derived_specs(host, infos)),
        target=target_of(module),
    )
