"""The Gluon layouts tutorial's memcpy measurements with tilec's pointer tensors
(examples/gluon_memcpy_*_ptr.mlir; the programs come from tests/unit/
test_pointer_tensors.py): "R vs. Throughput" of memcpy_1d_kernel (XBLOCK = 2048,
BlockedLayout([R], [32], [4], [0])) and the 2D kernel on a row-major and a transposed
input, each checked exactly (output poisoned first) and timed against cudaMemcpy of
the same bytes in the same run.

    python3 benchmarks/pointer_memcpy_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "unit"))
import test_pointer_tensors as U
from copy_bench import median_ms, memcpy_tbps, tbps

import tilec


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n1 = (1 << 24) if args.quick else (1 << 28)  # f32 elements (1 GiB each way)
    print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    memcpy = memcpy_tbps(n1 * 4)
    rows = [
        f"cudaMemcpy device-to-device ({n1 * 4 >> 20} MiB): {memcpy:.2f} TB/s (read + write)",
        "",
        "| kernel | layout | TB/s | ratio to cudaMemcpy | exact | 16-byte accesses |",
        "|---|---|---|---|---|---|",
    ]
    x = cp.random.standard_normal(n1, dtype=cp.float32)
    for r in (1, 2, 4, 8, 16):
        k = tilec.compile(U.memcpy_1d(2048, r))
        y = cp.full(n1, np.nan, cp.float32)
        k(x, y, n1)
        ok = bool(cp.array_equal(x, y))
        ms = median_ms(lambda k=k, y=y: k(x, y, n1))
        t = tbps(2 * n1 * 4, ms)
        rows.append(f"| memcpy_1d XBLOCK=2048 | R={r} | {t:.2f} | {t / memcpy:.3f} | {ok} | {'f32x4' in k.source} |")
    xn, yn = (1 << 12, 1 << 12) if args.quick else (1 << 13, 1 << 15)
    cases = [
        ("memcpy_2d XBLOCK=1 YBLOCK=2048", (1, 2048), U.blocked([1, 1], [1, 32], [1, 4], [1, 0]), False),
        ("memcpy_2d XBLOCK=1 YBLOCK=2048, input.T", (1, 2048), U.blocked([1, 1], [1, 32], [1, 4], [1, 0]), True),
        ("memcpy_2d XBLOCK=2048 YBLOCK=1, input.T", (2048, 1), U.blocked([1, 1], [32, 1], [4, 1], [0, 1]), True),
    ]
    x2 = cp.random.standard_normal(xn * yn, dtype=cp.float32)
    for name, blocks, lay, transposed in cases:
        k = tilec.compile(U.memcpy_2d(*blocks, lay))
        a = U.memcpy_2d_args(xn, yn, transposed)
        argv = (a["xnumel"], a["ynumel"], a["xstride_in"], a["ystride_in"], a["xstride_out"], a["ystride_out"])
        y = cp.full(xn * yn, np.nan, cp.float32)
        k(x2, y, *argv)
        ok = bool(cp.array_equal(x2, y))
        ms = median_ms(lambda k=k, y=y, argv=argv: k(x2, y, *argv))
        t = tbps(2 * xn * yn * 4, ms)
        lay_txt = (
            lay.split("<{")[1]
            .split("}>")[0]
            .replace("sizePerThread = ", "")
            .replace("threadsPerWarp = ", "")
            .replace("warpsPerCTA = ", "")
            .replace("order = ", "")
        )
        rows.append(f"| {name} ({xn}x{yn}) | ({lay_txt}) | {t:.2f} | {t / memcpy:.3f} | {ok} | {'f32x4' in k.source} |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
