"""What `tilec FILE --run gpu [--check]` and `tilec FILE --compile-only [--arch sm_90]`
print. Both take the module after the driver's `-p` pipeline; a module still at the
layout level is compiled with the default pipeline first."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp

from tilec.support.diagnostics import TilecError


def _lowered(module: ModuleOp) -> ModuleOp:
    """The module at the GPU level (the default pipeline run on a copy if needed)."""
    if any(isinstance(op, gpu.FuncOp) for op in module.walk()):
        return module
    from tilec.compiler.pipeline import run_pipeline

    return run_pipeline(module.clone(), "default")


def compile_only_cli(module: ModuleOp, arch: str | None = None) -> str:
    """Compile every kernel of every function with NVRTC (one translation unit, with the
    target's options) and report registers, shared memory and spills."""
    from tilec.compiler.cuda import emit_cuda
    from tilec.runtime.nvrtc import compile_cuda, device_arch, resource_usage
    from tilec.support.target import DEFAULT_ARCH, set_target, target_of

    if arch is not None:
        module = module.clone()
        set_target(module, arch)
    else:
        try:
            arch = device_arch()
        except TilecError:  # no GPU here: the default target
            arch = DEFAULT_ARCH
    lowered = _lowered(module)
    result = compile_cuda(emit_cuda(lowered), arch=arch, options=target_of(lowered).nvrtc_options())
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
    (outputs poisoned); with `check`, compare every buffer with the CPU reference
    executor: bit for bit, or, where the program calls inexact `math` functions,
    float buffers within the sum of their documented ulp bounds
    (`math_functions.ulp_budget`; docs/dialect.md), or, where it runs a float
    `layout.mma`, float buffers within the MMA tolerance (`api.mma_tolerance`;
    docs/testing.md)."""
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception:
        raise TilecError("--run gpu needs an NVIDIA GPU and CuPy; none was found") from None
    from tilec.runtime.launch import Kernel
    from tilec.runtime.reference.api import (
        bf16_buffers,
        compare_outputs,
        host_functions,
        mma_tolerance,
        random_inputs,
        run,
    )
    from tilec.runtime.reference.api import arg_names as _arg_names

    from tilec.dialects.math_functions import ulp_budget

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
            records: list = []
            expect = run(source, inputs, name, mma_records=records)
            atol = mma_tolerance(records)
            if atol is not None:
                diffs = compare_outputs(expect, got, atol=atol, bf16=bf16_buffers(source, name))
                if diffs:
                    d = diffs[0]
                    raise TilecError(
                        f"@{name}: the GPU result differs from the reference executor by more "
                        f"than the layout.mma tolerance {atol:.3g}: buffer %{d.buffer} at flat "
                        f"index {d.index}: expected {d.before}, got {d.after}")
                lines.append(f"// @{name}: within the layout.mma tolerance {atol:.3g} of the "
                             "CPU reference executor")
                continue
            budget = ulp_budget(module)
            if budget is None:
                raise TilecError(f"@{name}: --check cannot bound the error of a fastmath "
                                 "intrinsic (docs/dialect.md): run without --check")
            if budget:
                lines.extend(_within_ulps(name, expect, got, budget))
                continue
            diffs = compare_outputs(expect, got)
            if diffs:
                d = diffs[0]
                raise TilecError(
                    f"@{name}: the GPU result differs from the reference executor: buffer "
                    f"%{d.buffer} at flat index {d.index}: expected {d.before}, got {d.after}"
                )
            lines.append(f"// @{name}: identical to the CPU reference executor")
    return "\n".join(lines) + "\n"


def _within_ulps(name: str, expect: dict, got: dict, budget: int) -> list[str]:
    """Float buffers within `budget` ulps of the reference, element by element, or,
    where an addition after a math function cancels (layer norm's `+ bias` near 0),
    within `budget` ulps of the buffer's largest magnitude (a normwise bound); other
    buffers bit for bit."""
    from tilec.dialects.math_functions import ulp_distance
    from tilec.runtime.reference.api import compare_outputs
    from tilec.runtime.reference.values import bf16_to_f32

    worst, normwise = 0, 0
    for buf, e in expect.items():
        e, g = np.asarray(e).reshape(-1), np.asarray(got[buf]).reshape(-1)
        if e.dtype.kind == "f" or e.dtype == np.uint16:
            d = ulp_distance(e, g)
            ef = (e if e.dtype.kind == "f" else bf16_to_f32(e)).astype(np.float64)
            gf = (g if g.dtype.kind == "f" else bf16_to_f32(g)).astype(np.float64)
            finite = np.isfinite(ef)
            scale = np.abs(ef[finite]).max() if finite.any() else 0.0
            step = float(np.spacing((e if e.dtype.kind == "f" else ef.astype(np.float32)).dtype.type(scale)))
            if e.dtype == np.uint16:
                step *= 2 ** 16  # bf16 keeps 16 fewer bits than float32
            near = np.abs(gf - ef) <= budget * step
            bad = (d > budget) & ~(near & finite)
            if bad.any():
                i = int(np.argmax(bad))
                raise TilecError(
                    f"@{name}: the GPU result differs from the reference executor by more "
                    f"than {budget} ulp (the math functions' bounds): buffer %{buf} at flat "
                    f"index {i}: expected {e[i]}, got {g[i]} ({d[i]} ulp)")
            worst = max(worst, int(d[d <= budget].max()) if (d <= budget).any() else 0)
            normwise += int((d > budget).sum())
        elif compare_outputs({buf: e}, {buf: g}):
            raise TilecError(f"@{name}: the GPU result differs from the reference executor in %{buf}")
    extra = f"; {normwise} near-cancelling element(s) within it normwise" if normwise else ""
    return [f"// @{name}: within {worst} ulp of the CPU reference executor "
            f"(bound {budget} ulp from its math functions{extra})"]
