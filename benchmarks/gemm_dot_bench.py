"""The plain-loop GEMM (examples/python/gemm_dot.py: tile loads and `layout.dot`,
lowered by `accelerate-matmul`) beside `torch.matmul` (cuBLAS): TFLOP/s per target
lowering and block tile, bf16 in, f32 accumulation.

    python benchmarks/gemm_dot_bench.py [--sizes 2048,4096] [--json OUT] [--md OUT]

Rows: `sm_90a` (wgmma on NVMMA-swizzled shared operands) and `sm_80` (mma.sync with
ldmatrix; its code runs on Hopper too), each single-buffered as the pass leaves it (no
software pipeline: that is a later pass's), for the block tiles of `--tiles`. C is f32
for tilec, bf16 for cuBLAS (`torch.matmul` of bf16). Each tilec GEMM is checked first
(C poisoned with NaN) against float64 within the bound of f32 accumulation
(`gemm_dot.check`). Times: CUDA events, the median of 20 launches after warm-up
(benchmarks/gemm_bench.py's `median_ms`). FLOP = 2MNK.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))
sys.path.insert(0, HERE)
from gemm_bench import median_ms, parse_size  # noqa: E402
from gemm_dot import check, gemm_dot  # noqa: E402

import tilec  # noqa: E402
from tilec.support.diagnostics import TilecError  # noqa: E402

TILES = "128x128x32:8,128x256x64:8,64x128x32:4"
"""Block tiles BMxBNxBK:WARPS tried per target (the best is reported beside each)."""


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2048,4096")
    ap.add_argument("--targets", default="sm_90a,sm_80")
    ap.add_argument("--tiles", default=TILES)
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    rows = []
    for size in args.sizes.split(","):
        m, n, k = parse_size(size)
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
        flop = 2.0 * m * n * k
        cublas = flop / median_ms(lambda: torch.matmul(a, b)) / 1e9
        row = {"size": f"{m}x{n}x{k}", "cublas_tflops": cublas}
        print(f"{m}x{n}x{k}: cuBLAS {cublas:.1f} TFLOP/s", flush=True)
        for target in args.targets.split(","):
            best = None
            for spec in args.tiles.split(","):
                tile, warps = spec.split(":")
                bm, bn, bk = (int(x) for x in tile.split("x"))
                if m % bm or n % bn or k % bk:
                    continue
                try:
                    kernel = tilec.compile(gemm_dot(m, n, k, bm, bn, bk, int(warps), target=target))
                except TilecError as e:  # e.g. shared memory over the target's limit
                    print(f"  {target} {spec}: not compiled ({e})", flush=True)
                    continue
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
                kernel(a, b, c)
                torch.cuda.synchronize()
                ok, err = check(c.double().cpu().numpy(), a.double().cpu().numpy(), b.double().cpu().numpy(), k)
                if not ok:
                    print(f"  {target} {spec}: WRONG (max error {err:.3g})", flush=True)
                    row[f"{target} {spec}"] = "wrong"
                    continue
                tf = flop / median_ms(lambda: kernel(a, b, c)) / 1e9
                print(f"  {target} {spec}: {tf:.1f} TFLOP/s ({tf / cublas:.2f} of cuBLAS)", flush=True)
                row[f"{target} {spec}"] = tf
                if best is None or tf > best[1]:
                    best = (spec, tf)
            if best is not None:
                row[f"{target} best"] = {"tile": best[0], "tflops": best[1], "of_cublas": best[1] / cublas}
        rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
    if args.md:
        targets = args.targets.split(",")
        lines = ["| size | cuBLAS TFLOP/s | " + " | ".join(f"{t} best (tile, TFLOP/s, of cuBLAS)" for t in targets) + " |",
                 "|---|---|" + "---|" * len(targets)]
        for r in rows:
            cells = []
            for t in targets:
                b = r.get(f"{t} best")
                cells.append(f"{b['tile']}, {b['tflops']:.1f}, {b['of_cublas']:.2f}" if b else "-")
            lines.append(f"| {r['size']} | {r['cublas_tflops']:.1f} | " + " | ".join(cells) + " |")
        with open(args.md, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
