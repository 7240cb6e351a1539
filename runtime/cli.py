"""What `tilec FILE --run gpu [--check]` and `tilec FILE --compile-only [--arch sm_90]`
print. Both take the module after the driver's `-p` pipeline; a module still at the
layout level is compiled with the default pipeline first."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp

from tilec.compiler.diagnostics import TilecError


def _lowered(module: ModuleOp) -> ModuleOp:
    """The module at the GPU level (the default pipeline run on a copy if needed)."""
    if any(isinstance(op, gpu.FuncOp) for op in module.walk()):
        return module
    from tilec.compiler.pipeline import run_pipeline

    return run_pipeline(module.clone(), "default")


def compile_only_cli(module: ModuleOp, arch: str | None = None) -> str:
    """Compile every kernel with NVRTC and report registers, shared memory and spills."""
    from tilec.compiler.cuda_emitter import emit_cuda
    from tilec.runtime.nvrtc import compile_cuda, device_arch, resource_usage

    try:
        arch = arch or device_arch()
    except Exception:
        arch = "sm_90"
    result = compile_cuda(emit_cuda(_lowered(module)), arch=arch)
    lines = [f"// compiled for {result.arch}: {len(result.cubin)} bytes of cubin"]
    for name, r in resource_usage(result).items():
        spills = "unknown" if r.spill_stores is None else f"{r.spill_stores} B stores, {r.spill_loads} B loads"
        lines.append(
            f"// {name}: {r.registers} registers, {r.shared_bytes} B shared memory, "
            f"{r.stack_bytes} B stack, spills: {spills}"
        )
    return "\n".join(lines) + "\n"


def run_gpu_cli(
    module: ModuleOp, seed: int = 0, check: bool = False, values: dict[str, int] | None = None
) -> str:
    """Run each host function on the GPU with the reference executor's random inputs
    (outputs poisoned); with `check`, compare every buffer bit for bit with the CPU
    reference executor."""
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception:
        raise TilecError("--run gpu needs an NVIDIA GPU and CuPy; none was found") from None
    from tilec.runtime.launch import Kernel
    from tilec.runtime.reference.api import compare_outputs, host_functions, random_inputs, run
    from tilec.runtime.reference.api import arg_names as _arg_names

    lowered = _lowered(module)
    lines = []
    for fn in host_functions(lowered):
        name = fn.sym_name.data
        # sizes of dynamic buffers are known at the layout level (views' cosizes and
        # the tilec.args values), not from the lowered memref<?x...> arguments
        source = module if name in {f.sym_name.data for f in host_functions(module)} else lowered
        inputs = random_inputs(source, seed, name, args=values, sizes=values)
        kernel = Kernel(lowered, function=name)
        args = []
        for arg_name in _arg_names(fn):
            v = inputs[arg_name]
            args.append(cp.asarray(v) if isinstance(v, np.ndarray) else v)
        kernel(*args)
        cp.cuda.Device().synchronize()
        got = {n: cp.asnumpy(a) for n, a in zip(_arg_names(fn), args) if isinstance(a, cp.ndarray)}
        lines.append(f"// @{name}: ran on the GPU (seed {seed})")
        if check:
            expect = run(source, inputs, name)
            diffs = compare_outputs(expect, got)
            if diffs:
                d = diffs[0]
                raise TilecError(
                    f"@{name}: the GPU result differs from the reference executor: buffer "
                    f"%{d.buffer} at flat index {d.index}: expected {d.before}, got {d.after}"
                )
            lines.append(f"// @{name}: identical to the CPU reference executor")
    return "\n".join(lines) + "\n"
