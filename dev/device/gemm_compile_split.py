"""The first compile of named GEMM configurations at one shape, split into its parts on
the GPU's host (issue 39: the 192 x 160 tile's cold compile against 256 x 160 and
128 x 256): build, passes, emission, NVRTC (ptxas's share from its log), lines of CUDA and
PTX, wgmma in the PTX, the cubin's bytes, registers and spills. Each NVRTC source made new
by a comment (NVRTC's own cache cannot answer); in one process, after a warm-up compile.

    python3 dev/device/gemm_compile_split.py 4000x4000x4000 rule 256x160x64:4:c32:ow:w128:sp
"""

from __future__ import annotations

import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))


def main(argv: list[str]) -> int:
    from matmul_bench import parse_config

    from tilec.compiler import verify_cache
    from tilec.compiler.pipeline import run_pipeline
    from tilec.gemm import MatmulKey, choose_config, index_bits, matmul_program
    from tilec.gemm_programs import Epilogue
    from tilec.passes import _smem_layout
    from tilec.runtime.launch import Kernel
    from tilec.runtime.nvrtc import compile_cuda

    m, n, k = (int(x) for x in argv[0].split("x"))
    for i, name in enumerate(["warm-up"] + argv[1:]):
        config = choose_config(m, n, 132, k=k) if name in ("rule", "warm-up") else parse_config(name)
        key = MatmulKey(config, n, k, "bf16", Epilogue(), 132, False, index_bits(m, n, k, config))
        _smem_layout.clear_caches()
        verify_cache.clear()
        t0 = time.perf_counter()
        module = matmul_program(key)
        t1 = time.perf_counter()
        run_pipeline(module, "default")
        t2 = time.perf_counter()
        kernel = Kernel(module)
        t3 = time.perf_counter()
        result = compile_cuda(f"{kernel.source}// {time.time_ns()}\n", arch="sm_90a", options=kernel.options)
        t4 = time.perf_counter()
        if not i:
            continue
        ms = re.findall(r"Compile time = ([\d.]+) ms", result.log)
        regs = re.findall(r"Used (\d+) registers", result.log)
        spill = re.findall(r"(\d+) bytes spill stores", result.log)
        print(f"{config.name:38s} build {t1 - t0:.2f} passes {t2 - t1:.2f} emit {t3 - t2:.2f} nvrtc {t4 - t3:.2f} "
              f"(ptxas {sum(float(x) for x in ms) / 1000:.2f}) total {t4 - t0:.2f} | cuda {len(kernel.source)} ch "
              f"ptx {result.ptx.count(chr(10))} lines wgmma {result.ptx.count('wgmma.mma_async')} cubin "
              f"{len(result.cubin)} B regs {','.join(regs)} spill {','.join(spill)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
