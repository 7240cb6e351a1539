"""TMA transpose variants of issue 23 in one process (one input, cudaMemcpy timed before
and after, every variant twice): which tile, shared layout, store path, grid order and
L2 promotion of the tensor maps bring the TMA transpose to cudaMemcpy.

    python benchmarks/tma_transpose_probe.py [--only NAME] [--launches 3]

Every variant is f32 16384 x 16384 (`tests/helpers/tma_programs.tile_transpose`,
default pipeline), checked bit for bit against x.T with the output poisoned, then
timed (median of CUDA-event times, copy_bench.median_ms). `--only NAME` compiles one
variant, checks it and launches it `--launches` times (for `ncu -k regex:transpose`).
"""

from __future__ import annotations

import argparse
import os
import sys

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import copy_bench as cb
from helpers.tma_programs import round_trip, tile_transpose

import tilec
from tilec.runtime import tensor_map

S = 16384
L2 = {"128B": 128, "256B": 256, "none": 0}
"""The `tma` pass's l2_promotion (bytes) for each variant's L2 column."""

VARIANTS = {
    # name: (tile_transpose keywords, L2 promotion). Rounds 1 and 2 of 2026-11-26 tried
    # more (benchmarks/NOTES.md): register stores 0.3-0.95, 64x256 / 32x256 / 64x128
    # wide boxes below 128x128's, 512 threads and a swapped grid: no change.
    "base sw128x128 tma-store": ({"ti": 128, "tj": 128}, "128B"),
    "cp128x128 tma-store L2 256B": ({"ti": 128, "tj": 128, "smem": "compact"}, "256B"),
    "cp64x64 compact-out": ({"ti": 64, "tj": 64, "smem": "compact", "out_smem": "compact"}, "128B"),
    "cp64x64 compact-out L2 256B": ({"ti": 64, "tj": 64, "smem": "compact", "out_smem": "compact"}, "256B"),
    "cp64x64 compact-out 128t": (
        {"ti": 64, "tj": 64, "smem": "compact", "out_smem": "compact", "threads": 128},
        "128B",
    ),
    "sw64x64 cols compact-out": ({"ti": 64, "tj": 64, "regs": "cols", "out_smem": "compact"}, "128B"),
    "cp64x64 cols compact-out": (
        {"ti": 64, "tj": 64, "smem": "compact", "regs": "cols", "out_smem": "compact"},
        "128B",
    ),
    "sw128x64 cols compact-out": ({"ti": 128, "tj": 64, "regs": "cols", "out_smem": "compact"}, "128B"),
    "sw64x128 cols compact-out": ({"ti": 64, "tj": 128, "regs": "cols", "out_smem": "compact"}, "128B"),
    "sw128x128 cols compact-out": ({"ti": 128, "tj": 128, "regs": "cols", "out_smem": "compact"}, "128B"),
    "cp64x128 compact-out": ({"ti": 64, "tj": 128, "smem": "compact", "out_smem": "compact"}, "128B"),
    "cp128x64 compact-out": ({"ti": 128, "tj": 64, "smem": "compact", "out_smem": "compact"}, "128B"),
    "cp32x64 compact-out": ({"ti": 32, "tj": 64, "smem": "compact", "out_smem": "compact"}, "128B"),
    "cp64x32 compact-out": ({"ti": 64, "tj": 32, "smem": "compact", "out_smem": "compact"}, "128B"),
}


def build(name: str):
    if name == "TMA round trip 128x64":  # a TMA copy (no transpose): the DRAM ceiling under ncu
        return tilec.compile(round_trip(S, S, 128, 64)), "128B"
    if name == "non-TMA transpose f32":
        (case,) = [c for c in cb.make_cases(False) if c.name == "transpose f32"]
        return tilec.compile(cb.build_tilec(case)), "128B"
    kw, l2 = VARIANTS[name]
    return tilec.compile(tile_transpose(S, S, **kw), pipeline(l2)), l2


def pipeline(l2: str) -> str:
    from tilec.compiler.pipeline import NAMED_PIPELINES

    return NAMED_PIPELINES["default"].replace(",tma,", f",tma{{l2_promotion={L2[l2]}}},")


def prepare(kernel, l2: str) -> None:
    """Encode the kernel's tensor maps afresh (they are cached per argument set)."""
    tensor_map._cache.clear()
    getattr(kernel, "_packed", {}).clear()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None)
    ap.add_argument("--launches", type=int, default=3)
    args = ap.parse_args()
    x = cp.random.default_rng(7).standard_normal((S, S), dtype=cp.float32)
    y = cp.empty((S, S), dtype=cp.float32)
    xt = x.T.copy()
    names = ["non-TMA transpose f32", *VARIANTS]
    if args.only:
        kernel, l2 = build(args.only)
        prepare(kernel, l2)
        y.fill(np.nan)
        for _ in range(args.launches):
            kernel(x, y)
        cp.cuda.Device().synchronize()
        expect = x if args.only.startswith("TMA round trip") else xt
        print(args.only, "exact" if bool(cp.array_equal(y, expect)) else "WRONG")
        return 0
    nbytes = 2 * S * S * 4
    kernels = {}
    for n in names:
        try:
            kernels[n] = build(n)
        except Exception as e:  # noqa: BLE001 - one broken variant must not hide the others
            print(f"{n}: {type(e).__name__}: {str(e)[:300]}", flush=True)
    mc = [cb.memcpy_tbps(S * S * 4)]
    half = [cb.memcpy_tbps(cb.GiB // 2)]  # copy_bench's reference: 512 MiB each way
    rows = {}
    for rnd in range(2):
        for n, (kernel, l2) in kernels.items():
            prepare(kernel, l2)
            y.fill(np.nan)
            kernel(x, y)
            cp.cuda.Device().synchronize()
            ok = bool(cp.array_equal(y, xt))
            t = cb.tbps(nbytes, cb.median_ms(lambda k=kernel: k(x, y), warmup=10, reps=50))
            rows.setdefault(n, []).append((t, ok))
            print(f"round {rnd} {n}: {t:.3f} TB/s {'exact' if ok else 'WRONG'}", flush=True)
    mc.append(cb.memcpy_tbps(S * S * 4))
    half.append(cb.memcpy_tbps(cb.GiB // 2))
    memcpy, memcpy_half = sum(mc) / 2, sum(half) / 2
    print(
        f"\ncudaMemcpy of 1 GiB {mc[0]:.3f} / {mc[1]:.3f} TB/s, of 512 MiB (copy_bench's) {half[0]:.3f} / "
        f"{half[1]:.3f} TB/s (read + write, before / after); ratios to their means"
    )
    print("| variant | smem bytes | TB/s (2 rounds) | ratio (1 GiB) | ratio (512 MiB) | exact |")
    print("|---|---|---|---|---|---|")
    for n, r in rows.items():
        src = kernels[n][0].source
        smem = next(
            (ln.split("//")[1].split(" bytes")[0].strip() for ln in src.splitlines() if "bytes of shared memory" in ln),
            "static",
        )
        best = max(a for a, _ in r)
        print(
            f"| {n} | {smem} | {r[0][0]:.3f} / {r[1][0]:.3f} | {best / memcpy:.3f} | {best / memcpy_half:.3f} | "
            f"{all(o for _, o in r)} |"
        )
    ranked = sorted(
        (n for n in rows if n != "non-TMA transpose f32" and all(o for _, o in rows[n])),
        key=lambda n: -max(a for a, _ in rows[n]),
    )
    print("BEST:", ";".join(ranked[:2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
