"""The first call of `tilec.matmul` on a new shape, as the API compiles it now against as
it compiled before (issue 39: a cold compile <= 3 s), in turns, split into its parts.

    python3 dev/device/cold_compile_turns.py [--shapes 3000x5000x7000,f8b:8192] [--rounds 3]
        [--cold N] [--json OUT.jsonl] [--deadline S]

Variants: `now` (tilec's API as it is: the GEMM's module, verified by its builder,
compiled as built, `compile_program(fresh=True)`: the pipeline verifies it after its
last pass only, nothing printed or copied; the caller's columns read once a code
object, `builder_locations._columns`; wgmma's operand addresses fitted once for each
set of static facts, `lower_to_gpu.wgmma._fit_parts`) and `before` (as it was: every
pass's module verified, as `run_pipeline` does by default, the module printed for the
in-process cache's key and copied, `compile_program(..., fresh=False,
verify_each_pass=True)`; the caller's code positions listed for every op built,
`listed_user_location`; the addresses fitted for every wgmma operand). `tilec.matmul`
is called from a function of `--caller` code positions (default 3470: matmul_bench's
`main`, whence the benchmark's first calls are made; the builder reads the caller's
position for each op's location). Shapes: `MxNxK` (bf16, B row-major), a `t` after it
(B K-major, `x @ w.t()`), `f8b:` before it (block-scaled FP8, `w.t()`; one number: a
cube).

In one process (after `import torch, tilec` and one compile to warm Python up), each
round runs every shape under both variants, the order turned a round; every call is a
first call: tilec's kernels, prepared calls, memoised layouts and verified signatures
are forgotten, the kernel cache's memory and the cluster probe's cubin too
(`raw_launch._cluster_probe`), and every NVRTC source is made new by a comment
(NVRTC's own cache, `CUDA_CACHE_DISABLE=1`, and tilec's disk cache, `TILEC_CACHE=0`, are
meant off as well). `tilec.matmul(...)` up to
`torch.cuda.synchronize()` is timed whole and in parts by wrapping what it calls:
`choose` (`choose_config`, its cluster probe apart), `build` (`matmul_program`), `key`
(the module printed for the cache's key), `passes` (`run_pipeline`), `emit` (`Kernel`:
lowering to the artifact, the CUDA emitter), `nvrtc` (the kernel's NVRTC programs),
`probe` (the cluster probe's NVRTC program), `load` (the cubin loaded), `other` (the
rest: the copy of the module, the call's Python, the launch). Every output is checked
(matmul_bench's bounds; the block-scaled one against float64). With `--cold N`, N more
rounds of one new Python process a call (the same parts; its imports before the clock).
No call starts after `--deadline` seconds. Prints one line a call and a summary: per
shape and variant the median of each part, and `now / before` of the totals per round
(median [range]).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("now", "before")
PARTS = ("choose", "probe", "build", "key", "passes", "emit", "nvrtc", "load", "other")


def listed_user_location() -> str | None:
    """`builder_locations.user_location` as it was: the caller's positions listed anew
    for every op built."""
    from tilec.compiler import builder_locations

    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(builder_locations._SKIP) and name != builder_locations._SKIP[-1]:
            col = 1
            positions = list(frame.f_code.co_positions())
            i = frame.f_lasti // 2
            if 0 <= i < len(positions) and positions[i][2] is not None:
                col = positions[i][2] + 1
            return f"{name}:{frame.f_lineno}:{col}"
        frame = frame.f_back
    return None


from tilec.compiler import builder_locations  # noqa: E402 - tilec's package, for the wrappers' file name

from tilec.passes.lower_to_gpu.wgmma import _fit_parts as _FIT_PARTS  # noqa: E402 - the memoised one

_WRAPPERS: dict = {}
exec(compile("""
import time

def timed(parts, name, fn):
    def wrapper(*a, **kw):
        start = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            parts[name] = parts.get(name, 0.0) + time.perf_counter() - start
    return wrapper

def before(original):
    def compile_program(program, pipeline, **kw):
        kw.update(fresh=False, verify_each_pass=True)
        return original(program, pipeline, **kw)
    return compile_program
""", str(builder_locations._PACKAGE / "api" / "cold_compile_turns_wrappers.py"), "exec"), _WRAPPERS)
"""The wrappers that time the parts (`Meter.timed`) and make the `before` variant, compiled
under a file name in tilec's api/ so that `user_location` looks past their frames to the
caller, as it looks past tilec's own (a wrapper's small frame would otherwise stand for
the caller: the split the benchmark's first calls did not match)."""


def caller_of(size: int):
    """`call(fn, *args, **kw)`: `fn(*args, **kw)` from a function of about `size` code
    positions (dead statements before the call), as a large benchmark function calls."""
    body = "".join(f"        _ = {i}\n" for i in range(max(0, (size - 12) * 4 // 11)))
    source = f"def call(fn, *args, pad=False, **kw):\n    if pad:\n{body or '        pass'}\n    return fn(*args, **kw)\n"
    namespace: dict = {}
    exec(compile(source, "<caller>", "exec"), namespace)
    return namespace["call"]


def parse_shape(text: str) -> tuple[int, int, int, bool, bool]:
    """(M, N, K, B K-major, block-scaled FP8) of a `--shapes` item."""
    block = text.startswith("f8b:")
    text = text.removeprefix("f8b:")
    kmajor = text.endswith("t") or block
    dims = [int(x) for x in text.rstrip("t").split("x")]
    m, n, k = dims if len(dims) == 3 else dims * 3
    return m, n, k, kmajor, block


class Meter:
    """Wraps what a first call of `tilec.matmul` calls to time its parts (module docstring)."""

    def __init__(self, variant: str):
        import tilec.compiling as compiling
        from tilec import gemm
        from tilec.runtime import launch, nvrtc, raw_launch

        self.parts: dict[str, float] = {}
        self.probing = 0
        self.programs = 0
        timed = self.timed
        gemm.choose_config = timed("choose", gemm.choose_config)
        gemm.matmul_program = timed("build", gemm.matmul_program)
        compiling.run_pipeline = timed("passes", compiling.run_pipeline)
        compiling.emit = timed("key", compiling.emit)
        compiling.Kernel = timed("emit", compiling.Kernel)
        launch.Kernel._function = timed("function", launch.Kernel._function)
        compile_cuda = nvrtc.compile_cuda

        def fresh_source(source, *a, **kw):
            start = time.perf_counter()
            try:  # a source new to NVRTC's cache too
                return compile_cuda(source + f"// {time.time_ns()}\n", *a, **kw)
            finally:
                name = "probe" if self.probing else "nvrtc"
                self.parts[name] = self.parts.get(name, 0.0) + time.perf_counter() - start
                self.programs += 1

        nvrtc.compile_cuda = fresh_source
        resident = raw_launch.resident_clusters

        def probe(*a, **kw):
            self.probing += 1
            try:
                return resident(*a, **kw)
            finally:
                self.probing -= 1

        raw_launch.resident_clusters = probe
        self.set_variant(variant)

    def set_variant(self, variant: str) -> None:
        """Make `tilec.matmul`'s compiles those of `variant`."""
        import tilec.compiling as compiling
        from tilec.compiler import builder_locations, kernel_builder
        from tilec.passes.lower_to_gpu import wgmma

        original = getattr(compiling.compile_program, "original", compiling.compile_program)
        if variant == "now":
            compiling.compile_program = original
            kernel_builder.user_location = builder_locations.user_location
            wgmma._fit_parts = _FIT_PARTS
            return
        kernel_builder.user_location = listed_user_location
        wgmma._fit_parts = _FIT_PARTS.__wrapped__

        before = _WRAPPERS["before"](original)
        before.original = original
        compiling.compile_program = before

    def timed(self, name: str, fn):
        return _WRAPPERS["timed"](self.parts, name, fn)

    def split(self, total: float) -> dict[str, float]:
        """The parts of the last call, `total` its whole time (seconds)."""
        p = dict(self.parts)
        p["choose"] = p.get("choose", 0.0) - p.get("probe", 0.0)
        p["load"] = p.pop("function", 0.0) - p.get("nvrtc", 0.0)
        p["other"] = total - sum(p.get(x, 0.0) for x in PARTS if x != "other")
        return {x: p.get(x, 0.0) for x in PARTS}


def forget() -> None:
    """Forget everything a first call of a shape builds (module docstring)."""
    import tilec.compiling as compiling
    from tilec import gemm
    from tilec.compiler import verify_cache
    from tilec.passes import _smem_layout
    from tilec.runtime import raw_launch
    from tilec.runtime.cache import default_cache

    _FIT_PARTS.cache_clear()
    gemm._kernels.clear()
    default_cache()._memory.clear()
    gemm.forget_cached_calls()
    compiling._compiled.clear()
    verify_cache.clear()
    _smem_layout.clear_caches()
    raw_launch._cluster_probe.cache_clear()


def operands(shape: str, caller):
    """(call, check) of a shape: `call()` runs `tilec.matmul` into a NaN-poisoned output,
    `check()` says whether that output is within matmul_bench's bound."""
    import torch

    import tilec

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import matmul_bench

    m, n, k, kmajor, block = parse_shape(shape)
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    if block:
        a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        sa = 0.5 + torch.rand(m, -(-k // 128), device="cuda", generator=g)
        sb = 0.5 + torch.rand(-(-n // 128), -(-k // 128), device="cuda", generator=g)

        def call():
            c.fill_(float("nan"))
            caller(tilec.matmul, a, w.t(), scale_a=sa, scale_b=sb, out=c)

        return call, lambda: matmul_bench.block_fp8_within_bound(c, a, w, sa, sb)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t() if kmajor
         else torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g))

    def call():
        c.fill_(float("nan"))
        caller(tilec.matmul, a, b, out=c)

    return call, lambda: matmul_bench.within_bound(c, a, b)


def first_call(meter: Meter, call, check) -> dict:
    """One first call, timed whole and in parts, its output checked."""
    import torch

    forget()
    torch.cuda.synchronize()
    meter.parts.clear()
    meter.programs = 0
    start = time.perf_counter()
    call()
    torch.cuda.synchronize()
    total = time.perf_counter() - start
    return {"total": total, **meter.split(total), "programs": meter.programs, "ok": bool(check())}


def child(shape: str, variant: str, size: int) -> int:
    """One first call in this new process (`--cold`): one JSON line."""
    import torch  # noqa: F401 - imported before the clock, as a user's process has it

    import tilec  # noqa: F401

    meter = Meter(variant)
    call, check = operands(shape, caller_of(size))
    print(json.dumps({"shape": shape, "variant": variant, "process": "new", **first_call(meter, call, check)}))
    return 0


def summary(rows: list[dict]) -> str:
    """Per process kind, shape and variant the parts' medians; now / before per round."""
    lines = ["medians, s: " + ", ".join(f"{x[:2]} {x}" for x in PARTS)]
    for process in ("warm", "new"):
        for shape in dict.fromkeys(r["shape"] for r in rows):
            mine = [r for r in rows if r["shape"] == shape and r["process"] == process]
            if not mine:
                continue
            for v in VARIANTS:
                vs = [r for r in mine if r["variant"] == v]
                if vs:
                    med = {x: statistics.median(r[x] for r in vs) for x in ("total", *PARTS)}
                    lines.append(f"{process} {shape} {v:6s} {med['total']:.2f} = " +
                                 " ".join(f"{x[:2]} {med[x]:.2f}" for x in PARTS) +
                                 f" ok {sum(r['ok'] for r in vs)}/{len(vs)}")
            ratios = []
            for rnd in sorted({r["round"] for r in mine}):
                pair = {r["variant"]: r["total"] for r in mine if r["round"] == rnd}
                if len(pair) == 2:
                    ratios.append(pair["now"] / pair["before"])
            if ratios:
                lines.append(f"{process} {shape} now/before {statistics.median(ratios):.3f} "
                             f"[{min(ratios):.3f}-{max(ratios):.3f}] over {len(ratios)} rounds")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="3000x5000x7000,f8b:8192")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold", type=int, default=0, help="rounds of one new process a call, after the warm ones")
    ap.add_argument("--json", help="append each call's row here (JSON lines)")
    ap.add_argument("--deadline", type=float, default=1e9, help="start no call after this many seconds")
    ap.add_argument("--caller", type=int, default=3470, help="code positions of the function calling tilec.matmul")
    ap.add_argument("--child", nargs=2, metavar=("SHAPE", "VARIANT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(*args.child, args.caller)
    started = time.time()

    def late() -> bool:
        return time.time() - started > args.deadline

    os.environ.setdefault("TILEC_CACHE", "0")
    os.environ.setdefault("CUDA_CACHE_DISABLE", "1")
    shapes = args.shapes.split(",")
    rows: list[dict] = []

    def record(row: dict) -> None:
        rows.append(row)
        print(f"{row['process']} r{row['round']} {row['shape']:16s} {row['variant']:6s} total {row['total']:.2f} " +
              " ".join(f"{x} {row[x]:.2f}" for x in PARTS) + f" programs {row['programs']} ok {row['ok']}",
              flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(row) + "\n")

    if args.rounds:
        import torch  # noqa: F401

        import tilec  # noqa: F401

        meter = Meter("now")
        caller = caller_of(args.caller)
        calls = {s: operands(s, caller) for s in shapes}
        warm_call, warm_check = operands("512x512x512", caller)
        first_call(meter, warm_call, warm_check)  # Python's first-time costs (imports, xDSL's tables)
        for rnd in range(args.rounds):
            order = VARIANTS if rnd % 2 == 0 else VARIANTS[::-1]
            for s in shapes:
                for v in order:
                    if late():
                        break
                    meter.set_variant(v)
                    record({"shape": s, "variant": v, "process": "warm", "round": rnd,
                            **first_call(meter, *calls[s])})
    for rnd in range(args.cold):
        order = VARIANTS if rnd % 2 == 0 else VARIANTS[::-1]
        for s in shapes:
            for v in order:
                if late():
                    break
                out = subprocess.run([sys.executable, __file__, "--child", s, v, "--caller", str(args.caller)], capture_output=True, text=True,
                                     check=False, env=dict(os.environ))
                if out.returncode:
                    print(f"new process {s} {v} failed:", out.stderr[-1200:], flush=True)
                    return 1
                record({**json.loads(out.stdout.strip().splitlines()[-1]), "round": rnd})
    print(summary(rows), flush=True)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
