"""Compile time: IR text -> CUDA text (parse, the default pipeline, the CUDA emitter:
what `tilec FILE -p default -t cuda` does after Python has started) for every example
and every case of benchmarks/copy_bench.py (full and --quick sizes); with `--gemm`, the
first call of `tilec.matmul` on each shape of `GEMM_CASES` split into its parts.

    python benchmarks/compile_time.py [--only SUBSTRING] [--json OUT.json]
    python benchmarks/compile_time.py --gemm [--whole-unroll] [--verify-every-pass] [--repeat N] [--md OUT.md]

Measured in this process, after the imports. `cold` is a compile with tilec's memoized
layout choices and verified op signatures cleared (the shared-layout search and the
verification run again: what the first compile of a program in a fresh process pays);
`warm` the same program compiled again. The goal is 0.2 s cold. This is a benchmark,
not a test: a loaded machine's seconds say nothing about tilec (the wall-clock bound
that tests/unit/test_compile_time.py asserted failed on a busy CI machine).

`--gemm` (issue 39: a cold compile of the GEMM <= 3 s): per shape, the kernel
`tilec.matmul` picks (`choose_config`, `MatmulKey`, 132 multiprocessors) built
(`matmul_program`), the default pipeline run (cold, as above), the Kernel made (lowering
to the launch's artifact and the CUDA emitter), then NVRTC for sm_90a with the kernel's
options (the minimum of `--repeat` compiles, each of a source made unique by a comment
so that NVRTC's own cache cannot answer; `ptxas s` is what ptxas reported of it), with
the sizes: lines of CUDA and of PTX, wgmma instructions in the PTX. NVRTC needs no GPU.
`--whole-unroll` emits the K loops as the CUDA target did before issue 39 (a static loop
unrolled whole under 4096 operations), for the "before" of benchmarks/NOTES.md's table.
`--verify-every-pass` verifies the module after every pass, as `run_pipeline` did before
issue 39's cold-compile work (also where a pass left it as it verified: `verify_cache.state`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tilec.compiler import verify_cache
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.passes import _smem_layout

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 0.2


def programs() -> dict[str, str]:
    """Case name -> IR text: each copy_bench case (printed from its builder module, or
    its hand-written text) and each example."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import copy_bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    out = {}
    for quick in (False, True):
        for case in copy_bench.make_cases(quick):
            name = ("bench --quick: " if quick else "bench: ") + case.name
            out[name] = emit(copy_bench.build_tilec(case), "mlir")
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        out["example: " + path.name] = path.read_text()
    return out


def compile_to_cuda(text: str, name: str) -> float:
    start = time.perf_counter()
    module = parse_module(text, name)
    run_pipeline(module, "default")
    emit(module, "cuda")
    return time.perf_counter() - start


def cold(text: str, name: str) -> float:
    _smem_layout.clear_caches()
    verify_cache.clear()
    return compile_to_cuda(text, name)


GEMM_CASES = (
    ("4000^3", 4000, 4000, 4000, False, False),
    ("3000x5000x7000", 3000, 5000, 7000, False, False),
    ("qkv M=128", 128, 6144, 4096, True, False),
    ("o M=128", 128, 4096, 4096, True, False),
    ("down M=128", 128, 4096, 14336, True, False),
    ("down M=2048", 2048, 4096, 14336, True, False),
    ("gate_up M=16", 16, 28672, 4096, True, False),
    ("gate_up M=128", 128, 28672, 4096, True, False),
    ("gate_up M=2048", 2048, 28672, 4096, True, False),
    ("qkv M=1", 1, 6144, 4096, True, False),
    ("fp8 4096^3", 4096, 4096, 4096, True, True),
    ("fp8 8192^3", 8192, 8192, 8192, True, True),
)
"""(label, M, N, K, B K-major, FP8 e4m3): benchmarks/matmul_bench.py's shapes, one of each
configuration its rule takes (the Llama-3-8B projections `x @ w.t()` take B K-major)."""


def gemm_row(label: str, m: int, n: int, k: int, kmajor: bool, fp8: bool, repeat: int, sms: int = 132) -> dict:
    """The parts of the first call of `tilec.matmul` on one shape (the module docstring)."""
    import re

    from tilec.gemm import MatmulKey, choose_config, index_bits, matmul_program
    from tilec.gemm_programs import Epilogue
    from tilec.runtime.launch import Kernel
    from tilec.runtime.nvrtc import compile_cuda

    config = choose_config(m, n, sms, k=k, fp8=fp8, b_kmajor=kmajor)
    key = MatmulKey(config, n, k, "f8E4M3FN" if fp8 else "bf16", Epilogue(scale=fp8), sms, kmajor,
                    index_bits(m, n, k, config))
    _smem_layout.clear_caches()
    verify_cache.clear()
    t0 = time.perf_counter()
    module = matmul_program(key)
    t1 = time.perf_counter()
    run_pipeline(module, "default")
    t2 = time.perf_counter()
    kernel = Kernel(module)
    t3 = time.perf_counter()
    nvrtc_s, ptxas_s, result = float("inf"), float("nan"), None
    for i in range(repeat):
        start = time.perf_counter()
        result = compile_cuda(f"{kernel.source}// compile {i} {time.time_ns()}\n", arch="sm_90a",
                              options=kernel.options)
        took = time.perf_counter() - start
        if took < nvrtc_s:
            ms = re.findall(r"Compile time = ([\d.]+) ms", result.log)
            nvrtc_s, ptxas_s = took, sum(float(x) for x in ms) / 1000 if ms else float("nan")
    assert result is not None
    return {"case": label, "config": config.name, "build_s": t1 - t0, "passes_s": t2 - t1, "emit_s": t3 - t2,
            "nvrtc_s": nvrtc_s, "ptxas_s": ptxas_s, "total_s": t3 - t0 + nvrtc_s,
            "cuda_lines": kernel.source.count("\n"), "ptx_lines": result.ptx.count("\n"),
            "ptx_wgmma": result.ptx.count("wgmma.mma_async")}


def whole_unroll() -> None:
    """The CUDA target's unrolling rule before issue 39: a static loop unrolled whole
    under 4096 operations (the K loops of the GEMM were)."""
    from tilec.compiler.cuda import scf_ops

    def old_rule(op) -> bool:
        lb, ub, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
        trips = max(0, -(-(ub - lb) // step)) if step > 0 else 0
        return trips * sum(1 for _ in op.body.walk()) <= 4096

    scf_ops._unrolls_whole = old_rule


def gemm_markdown(rows: list[dict]) -> str:
    head = ("| shape | config | build s | passes s | emission s | NVRTC s (ptxas) | total s | CUDA lines | "
            "PTX lines | PTX wgmma |\n|---|---|---|---|---|---|---|---|---|---|")
    return "\n".join([head] + [
        f"| {r['case']} | {r['config']} | {r['build_s']:.2f} | {r['passes_s']:.2f} | {r['emit_s']:.2f} | "
        f"{r['nvrtc_s']:.2f} ({r['ptxas_s']:.2f}) | {r['total_s']:.2f} | {r['cuda_lines']} | {r['ptx_lines']} | "
        f"{r['ptx_wgmma']} |" for r in rows])


def gemm_main(args: argparse.Namespace) -> int:
    if args.whole_unroll:
        whole_unroll()
    if args.verify_every_pass:
        from tilec.compiler import pipeline

        pipeline.state = lambda module: object()  # never the state verified before
    cases = [c for c in GEMM_CASES if args.only in c[0]]
    if not cases:
        print(f"no GEMM case matches {args.only!r}", file=sys.stderr)
        return 1
    compile_to_cuda(next(iter(programs().values())), "warm-up")  # first-time costs of xDSL
    rows = []
    for case in cases:
        rows.append(gemm_row(*case, repeat=args.repeat))
        print(json.dumps(rows[-1]), flush=True)
    text = gemm_markdown(rows)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.md:
        Path(args.md).write_text(text + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="only the programs (GEMM cases) whose name contains this")
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--gemm", action="store_true", help="the first call of tilec.matmul per shape, with NVRTC")
    ap.add_argument("--whole-unroll", action="store_true", help="--gemm with the K loops unrolled whole (before)")
    ap.add_argument("--verify-every-pass", action="store_true",
                    help="--gemm with the module verified after every pass (before)")
    ap.add_argument("--repeat", type=int, default=1, help="--gemm: NVRTC compiles per shape, the least counted")
    ap.add_argument("--md", help="--gemm: also write the table as markdown here")
    args = ap.parse_args(argv)
    if args.gemm:
        return gemm_main(args)
    progs = {n: t for n, t in programs().items() if args.only in n}
    if not progs:
        print(f"no program matches {args.only!r}", file=sys.stderr)
        return 1
    compile_to_cuda(next(iter(progs.values())), "warm-up")  # first-time costs of xDSL
    rows = [(name, cold(text, name), compile_to_cuda(text, name)) for name, text in progs.items()]
    print(f"{'program':58s} {'cold s':>8s} {'warm s':>8s}")
    for name, c, w in rows:
        flag = "" if c <= GOAL_S else f"   (over the {GOAL_S} s goal)"
        print(f"{name:58s} {c:8.3f} {w:8.3f}{flag}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"program": n, "cold_s": c, "warm_s": w} for n, c, w in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
