"""The plain-loop GEMM (examples/python/gemm_dot.py: tile loads and `layout.dot`,
lowered by `accelerate-matmul`) beside `torch.matmul` (cuBLAS): TFLOP/s per target
lowering and block tile, bf16 in, f32 accumulation.

    python benchmarks/gemm_dot_bench.py [--sizes 4096,8192] [--targets sm_80] [--json OUT] [--md OUT]
    python benchmarks/gemm_dot_bench.py --targets sm_80 --dry-run   # build + NVRTC only (no GPU)
    python benchmarks/gemm_dot_bench.py --sizes 4096 --targets sm_80 --variants default,unrolled   # A/B

`--variants` compiles every tile with each named pipeline (VARIANTS: the default one
with `prefetch-operands`' options changed), labelled `[variant]` beside the tile.

Rows: `sm_90a` (wgmma on NVMMA-swizzled shared operands) and `sm_80` (mma.sync with
ldmatrix; its code runs on Hopper too), for the block tiles of `--tiles`
(`BMxBNxBK:WARPS[:STAGES]`, STAGES the `num_stages` of the K loop, which
`software-pipeline` turns into a ring of cp.async copies on sm_80; none: the loop as
`accelerate-matmul` leaves it, single-buffered). With sm_80 the hand-written mma.sync
GEMM (examples/python/gemm_bf16.py at benchmarks/gemm_bench.py's fastest config, a
4-stage cp.async pipeline written out in the program) is timed too: the goal of
issue 38 is the plain loop at >= 0.6 of cuBLAS on the H100, where the hand-written
kernel reaches 0.63-0.66. C is f32 for the plain loop, bf16 for the hand-written
kernel and cuBLAS (`torch.matmul` of bf16). Each tilec GEMM is checked first (C
poisoned with NaN) on the GPU against float64 within its bound (f32 C: 2 gamma(K+1)
sum |a||b|, `gemm_dot.check`'s; bf16 C: gemm_bench.check's). Times: CUDA events, the
median of 20 launches after warm-up (gemm_bench's `median_ms`). FLOP = 2MNK.

`--dry-run` stops before launching anything: each configuration is built and
compiled by NVRTC for its target's architecture (sm_80 for sm_80), which needs
neither a GPU nor PyTorch; the table then lists what compiled. The whole run (default
sizes 4096^3 and 8192^3, one target) takes well under 200 s on an H100/H200.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))
sys.path.insert(0, HERE)
from gemm_bench import FASTEST, config_kwargs, gemm, median_ms, parse_size  # noqa: E402
from gemm_dot import gemm_dot  # noqa: E402

import tilec  # noqa: E402
from tilec.dialects.layout_mma import mma_error_bound  # noqa: E402
from tilec.support.diagnostics import TilecError  # noqa: E402

TILES = {
    "sm_90a": "128x128x32:8,128x256x64:8,64x128x32:4",
    "sm_80": "128x256x64:8:3,128x256x64:8:2,128x256x32:8:4,128x256x32:8:6,128x256x32:8:3,256x128x32:8:4,"
             "128x128x32:8:3,128x128x32:8:4,128x128x32:4:3",
}
"""Block tiles BMxBNxBK:WARPS[:STAGES] tried per target (the best is reported), the
fastest measured first: on sm_80, 128x256x64 with 8 warps and 3 stages (on an H200
at 4096^3 with the cp.async loop rolled, now the default: 0.60 of cuBLAS;
128x256x64:8:2 0.55, 128x256x32:8:6 0.55, 128x128x32:4:3 0.55; issue 38). On sm_80
the 128x256 and 256x128 tiles (8 warps of 64x64, the hand-written kernel's warp tile)
leave no room for the accumulator's shared round trip beside their ring, so
`lower-convert-layout` stores C straight from the mma.sync layout; 128x128x32 at 3
stages (112 KiB, 128 registers with 8 warps) lets two blocks share an SM. With a static
K, `software-pipeline`'s unrolled form guards no step (S divides the trip count, or the last
partial round is peeled after the loop)."""

VARIANTS = {
    "default": {},
    "no-prefetch": {"prefetch-operands": "prefetch-operands{enabled=false}"},
    "unrolled": {"software-pipeline": "software-pipeline{rolled=false}"},
    "unrolled-no-prefetch": {"software-pipeline": "software-pipeline{rolled=false}",
                             "prefetch-operands": "prefetch-operands{enabled=false}"},
    "prefetch-rotate": {"software-pipeline": "software-pipeline{rolled=false}",
                        "prefetch-operands": "prefetch-operands{rotate=true}"},
    "rolled": {"software-pipeline": "software-pipeline{rolled=true}"},
    "rolled-no-prefetch": {"software-pipeline": "software-pipeline{rolled=true}",
                           "prefetch-operands": "prefetch-operands{enabled=false}"},
    "rolled-grouped": {"software-pipeline": "software-pipeline{rolled=true}", "order-grid": "order-grid{group=8}"},
    "grouped": {"order-grid": "order-grid{group=8}"},
}
"""Pipelines an A/B run compares (`--variants`): the default pipeline with the passes
named here given these options. `software-pipeline`'s `rolled=true` keeps one K step
per iteration (the stage a run-time value), as the hand-written kernel does, and
`prefetch-operands` rotates such a loop by default; its default (`rolled=auto`) does so
for these cp.async loops too, so `default` and `rolled` are the same on sm_80 and differ
on sm_90a's TMA loops (unrolled by default); `unrolled` (`rolled=false`) unrolls the
loop by its stages on every target. `prefetch-operands` (passes/prefetch_operands.py):
`enabled=false` leaves the K steps' boundaries as `software-pipeline` makes them;
`prefetch-rotate` is the unrolled loop with `rotate=true`, which also prefetches across
its back edge; `order-grid{group=8}` runs the blocks in grouped order (8 block rows at
a time, the hand-written kernel's `g8`)."""


def variant_pipeline(name: str) -> str:
    """The pass pipeline of variant `name` (VARIANTS)."""
    from tilec.compiler.pipeline import NAMED_PIPELINES

    passes = NAMED_PIPELINES["default"].split(",")
    swap = VARIANTS[name]
    assert set(swap) <= set(passes), f"variant {name}: {sorted(set(swap) - set(passes))} not in the default pipeline"
    return ",".join(swap.get(p, p) for p in passes)


ARCH = {"sm_90a": "sm_90a", "sm_80": "sm_80", "hand": "sm_90"}
"""The NVRTC architecture of each `--dry-run` compile: the target's; the hand-written
kernel (no target in its module) for the GPU the benchmark is run on (its 192 KiB of
shared memory are over sm_80's 163)."""


def parse_tile(spec: str) -> tuple[int, int, int, int, int]:
    """BMxBNxBK:WARPS[:STAGES] -> (bm, bn, bk, warps, stages); stages None where the
    spec names none (the loop as `accelerate-matmul` leaves it)."""
    parts = spec.split(":")
    bm, bn, bk = (int(x) for x in parts[0].split("x"))
    return bm, bn, bk, int(parts[1]), int(parts[2]) if len(parts) > 2 else None


def check_f32(c, a, b) -> tuple[bool, float]:
    """`gemm_dot.check` on the GPU (torch, float64): whether f32 C is within 2 gamma(K+1)
    sum |a||b| of A @ B, and the largest error."""
    a64, b64 = a.double(), b.double()
    gamma, _ = mma_error_bound(a.shape[1], "bf16")
    err = (c.double() - a64 @ b64).abs()
    bound = 2 * gamma * (a64.abs() @ b64.abs())
    return bool((err <= bound).all()), float(err.max())


def build(target: str, spec: str, m: int, n: int, k: int):
    """The module of the plain loop for `target` and tile `spec`, or None where the
    problem is not a multiple of the tile."""
    bm, bn, bk, warps, stages = parse_tile(spec)
    if m % bm or n % bn or k % bk:
        return None
    return gemm_dot(m, n, k, bm, bn, bk, warps, target=target, stages=stages)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--targets", default="sm_90a,sm_80")
    ap.add_argument("--tiles", default=None, help="BMxBNxBK:WARPS[:STAGES],... (default: TILES of each target)")
    ap.add_argument("--variants", default="default",
                    help=f"pipelines to compare, comma-separated, of {', '.join(VARIANTS)} (default: default)")
    ap.add_argument("--no-hand", action="store_true", help="skip the hand-written mma.sync GEMM (gemm_bf16.py)")
    ap.add_argument("--dry-run", action="store_true", help="build and NVRTC-compile only; launch nothing")
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    targets = args.targets.split(",")
    variants = args.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}: one of {', '.join(VARIANTS)}")
    for t in targets:
        if t not in TILES:
            ap.error(f"unknown target {t!r}: one of {', '.join(TILES)}")
    hand = "sm_80" in targets and not args.no_hand
    torch = None
    if not args.dry_run:
        import torch
    start = time.time()
    rows = []
    for size in args.sizes.split(","):
        m, n, k = parse_size(size)
        flop = 2.0 * m * n * k
        row: dict = {"size": f"{m}x{n}x{k}"}
        if torch is not None:
            g = torch.Generator(device="cuda").manual_seed(0)
            a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
            b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
            row["cublas_tflops"] = flop / median_ms(lambda: torch.matmul(a, b)) / 1e9  # noqa: B023 - run now
            print(f"{m}x{n}x{k}: cuBLAS {row['cublas_tflops']:.1f} TFLOP/s", flush=True)
        else:
            print(f"{m}x{n}x{k}: (dry run: build and NVRTC compile only)", flush=True)
        kernels = []  # (label, group, module, C dtype, pipeline)
        for target in targets:
            for spec in (args.tiles or TILES[target]).split(","):
                for v in variants:
                    module = build(target, spec, m, n, k)
                    if module is not None:
                        vlabel = "" if v == "default" else f" [{v}]"
                        kernels.append((f"{target} {spec}{vlabel}", target, module, "f32", variant_pipeline(v)))
        if hand:
            try:
                kernels.append((f"hand mma.sync {FASTEST}", "hand", gemm(m, n, k, **config_kwargs(FASTEST)), "bf16",
                                "default"))
            except (ValueError, TilecError) as e:  # gemm_bf16 needs M % 128, N % 256, K % 64
                print(f"  hand mma.sync: not built ({str(e)[:200]})", flush=True)
        for label, group, module, cdt, pipeline in kernels:
            t0 = time.time()
            try:
                kernel = tilec.compile(module, pipeline, arch=ARCH[group] if args.dry_run else None)
            except TilecError as e:  # e.g. shared memory over the target's limit
                print(f"  {label}: not compiled ({str(e)[:200]})", flush=True)
                row[label] = "not compiled"
                continue
            if torch is None:
                print(f"  {label}: compiled ({len(kernel.cubin)} bytes of cubin, {time.time() - t0:.1f} s)", flush=True)
                row[label] = "compiled"
                continue
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32 if cdt == "f32" else torch.bfloat16)
            try:
                kernel(a, b, c)
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - report the configuration and go on
                print(f"  {label}: failed to launch ({str(e)[:200]})", flush=True)
                row[label] = "failed"
                continue
            if cdt == "f32":
                ok, err = check_f32(c, a, b)
            else:
                from gemm_bench import check as check_bf16

                ok, err = check_bf16(c, a, b)
            if not ok:
                print(f"  {label}: WRONG (error {err:.3g})", flush=True)
                row[label] = "wrong"
                continue
            tf = flop / median_ms(lambda kernel=kernel, c=c: kernel(a, b, c)) / 1e9  # noqa: B023 - run now
            print(f"  {label}: {tf:.1f} TFLOP/s ({tf / row['cublas_tflops']:.2f} of cuBLAS)", flush=True)
            row[label] = tf
            best = row.get(f"{group} best")
            if best is None or tf > best["tflops"]:
                row[f"{group} best"] = {"config": label.split(" ", 1)[1], "tflops": tf,
                                        "of_cublas": tf / row["cublas_tflops"]}
        rows.append(row)
    groups = targets + (["hand"] if hand else [])
    names = {"sm_80": "tilec sm_80 plain loop", "sm_90a": "tilec sm_90a plain loop", "hand": "hand mma.sync"}
    print(f"\n{'size':>16} | {'cuBLAS':>7} | " + " | ".join(f"{names[g]:>34}" for g in groups))
    for r in rows:
        cells = []
        for g in groups:
            best = r.get(f"{g} best")
            if best:
                cells.append(f"{best['tflops']:6.1f} ({best['of_cublas']:.2f}) {best['config']:>18}")
            else:
                done = [v for key, v in r.items() if key.startswith(f"{g} " if g != "hand" else "hand ")]
                cells.append(", ".join(str(v) for v in done) or "-")
        cub = f"{r['cublas_tflops']:7.1f}" if "cublas_tflops" in r else "      -"
        print(f"{r['size']:>16} | {cub} | " + " | ".join(f"{c:>34}" for c in cells))
    if "sm_80" in targets and hand:
        for r in rows:
            p, h = r.get("sm_80 best"), r.get("hand best")
            if p and h:
                print(f"{r['size']}: sm_80 plain loop / hand mma.sync = {p['tflops'] / h['tflops']:.2f}")
    print(f"({time.time() - start:.0f} s; TFLOP/s (of cuBLAS) best-config)")
    if args.json:
        with open(args.json, "w") as f:
            device = torch.cuda.get_device_name() if torch is not None else "none (dry run)"
            json.dump({"device": device, "dry_run": args.dry_run, "rows": rows}, f, indent=1)
    if args.md:
        heads = " | ".join(f"{names[g]} (config, TFLOP/s, of cuBLAS)" for g in groups)
        lines = ["| size | cuBLAS TFLOP/s | " + heads + " |",
                 "|---|---|" + "---|" * len(groups)]
        for r in rows:
            cells = []
            for g in groups:
                best = r.get(f"{g} best")
                cells.append(f"{best['config']}, {best['tflops']:.1f}, {best['of_cublas']:.2f}" if best else "-")
            cub = f"{r['cublas_tflops']:.1f}" if "cublas_tflops" in r else "-"
            lines.append(f"| {r['size']} | {cub} | " + " | ".join(cells) + " |")
        with open(args.md, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
