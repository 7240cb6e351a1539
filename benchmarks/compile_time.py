"""Compile time: IR text -> CUDA text (parse, the default pipeline, the CUDA emitter:
what `tilec FILE -p default -t cuda` does after Python has started) for every example
and every case of benchmarks/copy_bench.py (full and --quick sizes).

    python benchmarks/compile_time.py [--only SUBSTRING] [--json OUT.json]

Measured in this process, after the imports. `cold` is a compile with tilec's memoized
layout choices and verified op signatures cleared (the shared-layout search and the
verification run again: what the first compile of a program in a fresh process pays);
`warm` the same program compiled again. The goal is 0.2 s cold. This is a benchmark,
not a test: a loaded machine's seconds say nothing about tilec (the wall-clock bound
that tests/unit/test_compile_time.py asserted failed on a busy CI machine).
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="only the programs whose name contains this")
    ap.add_argument("--json", help="also write the rows as JSON here")
    args = ap.parse_args(argv)
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
