"""What the software pipeline's form costs NVRTC: the plain-loop Hopper GEMM
(examples/python/gemm_plain.py, 128 x 256 x 64 tiles) through `software-pipeline`
unrolled (the default: stage clones, the K loop unrolled by the stages, and whole by
NVRTC where its trip count is static) and rolled (`rolled=true`: staged buffers, the
stage and phase carried by a loop kept rolled), per depth: the CUDA source's size,
NVRTC's time to a sm_90a cubin and the cubin's size. NVRTC runs without a GPU.

    python benchmarks/pipeline_nvrtc.py [--shape 4096,4096,4096] [--stages 2,3,4] [--json OUT.json] [--md OUT.md]

Seconds of a loaded machine vary: the minimum of `--repeat` compiles is reported.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(shape: tuple[int, int, int], stages: int, rolled: bool, repeat: int) -> dict:
    """The row of one form: CUDA bytes, wgmma instructions in it, NVRTC seconds (min of
    `repeat`), cubin bytes."""
    sys.path.insert(0, str(ROOT / "examples" / "python"))
    import gemm_plain

    from tilec.compiler.pipeline import emit, parse_module, run_pipeline
    from tilec.runtime.nvrtc import compile_cuda

    m = parse_module(str(gemm_plain.gemm_plain(*shape, stages=stages)), "gemm_plain.mlir")
    run_pipeline(m, gemm_plain.pipeline(rolled=rolled))
    cuda = emit(m, "cuda")
    times, cubin = [], b""
    for _ in range(repeat):
        t = time.perf_counter()
        cubin = compile_cuda(cuda, arch="sm_90a").cubin
        times.append(time.perf_counter() - t)
    return {"stages": stages, "rolled": rolled, "cuda_bytes": len(cuda), "wgmma": cuda.count("wgmma.mma_async"),
            "nvrtc_s": min(times), "cubin_bytes": len(cubin)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="4096,4096,4096")
    ap.add_argument("--stages", default="2,3,4")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    shape = tuple(int(x) for x in args.shape.split(","))
    rows = []
    for s in (int(x) for x in args.stages.split(",")):
        for rolled in (False, True):
            r = measure(shape, s, rolled, args.repeat)
            rows.append(r)
            print(f"stages {s} {'rolled  ' if rolled else 'unrolled'}: CUDA {r['cuda_bytes']} B, "
                  f"{r['wgmma']} wgmma, NVRTC {r['nvrtc_s']:.2f} s, cubin {r['cubin_bytes']} B", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"shape": shape, "rows": rows}, indent=1))
    if args.md:
        lines = [f"gemm_plain {'x'.join(map(str, shape))}, sm_90a", "",
                 "| stages | form | CUDA bytes | wgmma in CUDA | NVRTC s | cubin bytes |", "|---|---|---|---|---|---|"]
        lines += [f"| {r['stages']} | {'rolled' if r['rolled'] else 'unrolled'} | {r['cuda_bytes']} | {r['wgmma']} | "
                  f"{r['nvrtc_s']:.2f} | {r['cubin_bytes']} |" for r in rows]
        Path(args.md).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
