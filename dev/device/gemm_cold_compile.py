"""The first call of `tilec.matmul` on a new shape, cold, split into its parts, on the
GPU's host (issue 39: a cold compile of every rule tile <= 3 s).

    python3 dev/device/gemm_cold_compile.py [--shapes 3000x5000x7000,2048x28672x4096t,4000] [--runs 2]

Each shape in a new Python process with `TILEC_CACHE=0` (no disk cache) and
`CUDA_CACHE_DISABLE=1`, each NVRTC source made new by a comment (NVRTC 12.9+ answers a
source it compiled before from a cache of its own: a second run found its kernel there,
0.33 s for 1.1). After `import torch, tilec` and the tensors are made,
`tilec.matmul(a, b, out=c)` up to `torch.cuda.synchronize()` is timed whole, and its parts
by wrapping the functions it calls: `matmul_program` (`build`: the module), `run_pipeline`
(`passes`, with their verification), `Kernel` (`emit`: lowering to the artifact and the
CUDA emitter), `compile_cuda` (`nvrtc`: front end, NVVM, ptxas; a cubin for sm_90a, so the
driver JITs nothing; `probes`: the empty kernels `raw_launch.resident_clusters` compiles
to ask the driver how many clusters run at once; `programs`: NVRTC programs in all) and
`Kernel._function` less its NVRTC (`load`: the cubin into the context, CuPy's
`Module.load`, the function's attributes); `other` is the rest: the call's own Python, the
launch and the kernel. `t` after a shape: B K-major (`x @ w.t()`). Prints one line a run
and shape. `--verify-every-pass`: the passes verify the module after each of them, as
before issue 39's change (also where a pass left it as it was: `verify_cache.state`).
Its wrappers are frames outside tilec, where `user_location` stops: the build reads as
called from a small function, not from the caller's (matmul_bench's `main`: 3470 code
positions, listed for every op before cc49); dev/device/cold_compile_turns.py splits
the first call as the benchmark makes it, now against before."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
m, n, k, t = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
import torch
import tilec
from tilec import gemm
from tilec.compiler import pipeline
from tilec.runtime import nvrtc
import os
if os.environ.get("COLD_VERIFY_EVERY_PASS") == "1":  # as before issue 39's change: every pass verified
    pipeline.state = lambda module: object()
parts = {}
def timed(name, fn):
    def wrapper(*a, **kw):
        s = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            parts[name] = parts.get(name, 0.0) + time.perf_counter() - s
    return wrapper
gemm.matmul_program = timed("build", gemm.matmul_program)
import tilec.compiling as compiling
compiling.run_pipeline = timed("passes", compiling.run_pipeline)
compiling.Kernel = timed("emit", compiling.Kernel)
compiles = []  # (seconds, inside `raw_launch.resident_clusters`) of each NVRTC program
probing = []
def counted(fn):
    def wrapper(source, *a, **kw):
        s = time.perf_counter()
        try:  # a source new to NVRTC's cache too
            return fn(source + f"// {time.time_ns()}\n", *a, **kw)
        finally:
            compiles.append((time.perf_counter() - s, bool(probing)))
    return wrapper
nvrtc.compile_cuda = counted(nvrtc.compile_cuda)
from tilec.runtime import launch, raw_launch
def probe(fn):
    def wrapper(*a, **kw):
        probing.append(1)
        try:
            return fn(*a, **kw)
        finally:
            probing.pop()
    return wrapper
raw_launch.resident_clusters = probe(raw_launch.resident_clusters)
launch.Kernel._function = timed("function", launch.Kernel._function)  # NVRTC and the cubin's load
g = torch.Generator(device="cuda").manual_seed(m + n + k)
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
b = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t() if t
     else torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g))
c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
s = time.perf_counter()
tilec.matmul(a, b, out=c)
torch.cuda.synchronize()
total = time.perf_counter() - s
err = (c.float() - (a.float() @ b.float())).abs().max().item()
parts["nvrtc"] = sum(d for d, inside in compiles if not inside)
parts["probes"] = sum(d for d, inside in compiles if inside)  # the resident clusters' empty kernels
parts["load"] = parts.pop("function", 0.0) - parts["nvrtc"]
known = sum(parts.values())
parts["programs"] = len(compiles)
print(json.dumps({"config": gemm.choose_config(m, n, torch.cuda.get_device_properties(0).multi_processor_count,
                                               k=k, b_kmajor=t).name,
                  "total": total, **parts, "other": total - known, "max_err": err}))
"""


def shape(text: str) -> tuple[int, int, int, bool]:
    t = text.endswith("t")
    dims = [int(x) for x in text.rstrip("t").split("x")]
    m, n, k = dims if len(dims) == 3 else dims * 3
    return m, n, k, t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="3000x5000x7000,2048x28672x4096t,4000")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--verify-every-pass", action="store_true",
                    help="verify the module after every pass, as before (a module unchanged by a pass too)")
    args = ap.parse_args(argv)
    # no disk cache of tilec's, none of NVRTC's (CUDA 12.9+ keeps compiled programs in the
    # driver's compute cache: a source compiled before, by an earlier run, comes back at once)
    env = dict(os.environ, TILEC_CACHE="0", CUDA_CACHE_DISABLE="1",
               COLD_VERIFY_EVERY_PASS="1" if args.verify_every_pass else "0")
    for r in range(args.runs):
        for text in args.shapes.split(","):
            m, n, k, t = shape(text)
            out = subprocess.run([sys.executable, "-c", CHILD, str(m), str(n), str(k), "1" if t else "0"],
                                 check=False, env=env, capture_output=True, text=True)
            if out.returncode:
                print(text, "failed:", out.stderr[-1500:])
                return 1
            row = json.loads(out.stdout.strip().splitlines()[-1])
            keys = ("total", "build", "passes", "emit", "nvrtc", "probes", "load", "other")
            print(f"run {r}{'v' if args.verify_every_pass else ''} {text:18s} {row['config']:40s} " + " ".join(f"{x} {row.get(x, 0.0):.2f}" for x in keys)
                  + f" programs {row['programs']} err {row['max_err']:.3g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
