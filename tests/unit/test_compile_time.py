"""Compile time (issue #11): IR text -> CUDA text (parse, the default pipeline, the CUDA
emitter: what `tilec FILE -p default -t cuda` does after Python has started) stays well
under a second for every example and every case of benchmarks/copy_bench.py (full and
--quick sizes).

Measured in this process, after the imports. `cold` is a compile with tilec's memoized
layout choices and verified op signatures cleared (the shared-layout search and the
verification run again: what the first compile of a program in a fresh process pays); `warm` the same program compiled again. The goal is
0.2 s; the bound asserted here is looser so that a slow or busy machine does not fail it.
Run with `-s` to see the table."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tilec.compiler import verify_cache
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.passes import _smem_layout

ROOT = Path(__file__).resolve().parents[2]
BOUND_S = 0.5
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


def test_every_example_and_bench_case_compiles_quickly():
    progs = programs()
    assert len(progs) > 10
    compile_to_cuda(next(iter(progs.values())), "warm-up")  # first-time costs of xDSL
    rows = []
    for name, text in progs.items():
        c = cold(text, name)
        if c > BOUND_S:  # a busy machine: measure once more before failing
            c = min(c, cold(text, name))
        w = compile_to_cuda(text, name)
        rows.append((name, c, w))
    print(f"\n{'program':58s} {'cold s':>8s} {'warm s':>8s}")
    for name, c, w in rows:
        flag = "" if c <= GOAL_S else "   (over the 0.2 s goal)"
        print(f"{name:58s} {c:8.3f} {w:8.3f}{flag}")
    slow = [(n, round(c, 3)) for n, c, _ in rows if c > BOUND_S]
    assert not slow, f"IR -> CUDA slower than {BOUND_S} s: {slow}"


def test_fast_canonicalize_gives_the_ir_of_xdsl_canonicalize():
    """tilec's `canonicalize` (passes/_canonicalize.py, the fast path that keeps this
    file's times) must leave exactly the IR xDSL's pass leaves, on every program."""
    from xdsl.transforms.canonicalize import CanonicalizePass

    from tilec.compiler.pipeline import NAMED_PIPELINES, make_context
    from tilec.passes._canonicalize import Canonicalize

    before = NAMED_PIPELINES["default"].rsplit(",", 1)[0]
    assert NAMED_PIPELINES["default"].endswith(",canonicalize")
    for name, text in programs().items():
        ours = parse_module(text, name)
        run_pipeline(ours, before)
        theirs = ours.clone()
        Canonicalize().apply(make_context(), ours)
        CanonicalizePass().apply(make_context(), theirs)
        assert emit(ours, "mlir") == emit(theirs, "mlir"), name
