"""Experiment (issue 37): the user's softmax (examples/python/row_kernels.py) at the N where
tilec was below the same program in Triton, M = 16384, f16 and f32: tilec with the warps
its compiler chooses (`choose-warps`), tilec with the Triton tutorial's warps written
(the old default, only where they differ), Triton's same program (the tutorial's warps),
PyTorch; each as a ratio to the cudaMemcpy of the same bytes (benchmarks/realistic_rows.py's
method: rotated inputs, CUDA-graph replays, interleaved rounds, each result checked
against float64 first). About 60-100 s on an H200.

    python3 dev/experiments/rows_warps.py --json OUT.json [--ns 768,1001,3072,8192]
        [--dtypes f16,f32] [--m 16384]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))
import realistic_rows as rr  # noqa: E402
import row_kernels as rk  # noqa: E402

import tilec  # noqa: E402


def warps_of(kernel_program) -> int:
    """The warps the default pipeline gives a program's launch (what `choose-warps` chose)."""
    from tilec.compiler.pipeline import run_pipeline
    from tilec.dialects.layout import LaunchOp

    module = kernel_program.module.clone()
    run_pipeline(module, "expand-iterators,tile,order-grid,tma,distribute,chunk-rows,pack-rows,choose-warps")
    return next(o for o in module.walk() if isinstance(o, LaunchOp)).num_threads // 32


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", default="768,1001,3072,8192")
    ap.add_argument("--dtypes", default="f16,f32")
    ap.add_argument("--m", type=int, default=rr.SAMPLE_M)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    t0 = time.time()
    tri = rr.triton_kernels()
    rows = []
    for dtype in a.dtypes.split(","):
        for n in (int(x) for x in a.ns.split(",")):
            key = rr.Key("softmax", dtype, n, [a.m])
            program = rk.softmax(n, dtype)
            chosen = warps_of(program)
            tutorial = rk.num_warps(rk.next_pow2(n))
            extra = {}
            if tutorial != chosen:
                extra[f"tilec_w{tutorial}"] = tilec.compile(rk.softmax(n, dtype, warps=tutorial))
            kernel = tilec.compile(program)
            narrow = getattr(kernel, "narrow", None)  # the 32-bit twin (tilec.compiling.IndexWidthKernel)
            bits = 32 if narrow is not None and kernel.specialization(None, None, a.m) is narrow else 64
            row = rr.run_case(key, a.m, kernel, tri, 1.0, extra)
            row["tilec_warps"], row["tutorial_warps"], row["tilec_index_bits"] = chosen, tutorial, bits
            rows.append(row)
            print(f"{dtype} N={n}: done ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)

    def cell(r, name):
        v = r.get(name)
        return f"{v['ratio_same_bytes']:.3f}" if isinstance(v, dict) else ("wrong" if r.get(f"{name}_ok") is False
                                                                          else "-")

    print(f"softmax, M = {a.m}, ratio to cudaMemcpy of the same bytes "
          "(tilec: the compiler's warps; old: the tutorial's warps written; triton: same program, tutorial's warps)")
    print(f"{'case':<14} {'warps':>9} {'bits':>4} {'tilec':>7} {'old':>7} {'triton':>7} {'torch':>7} {'memcpy TB/s':>12}")
    for r in rows:
        old = cell(r, f"tilec_w{r['tutorial_warps']}") if r["tutorial_warps"] != r["tilec_warps"] else cell(r, "tilec")
        print(f"{r['dtype'] + ' N=' + str(r['n']):<14} {str(r['tilec_warps']) + '/' + str(r['tutorial_warps']):>9} "
              f"{r['tilec_index_bits']:>4} "
              f"{cell(r, 'tilec'):>7} {old:>7} {cell(r, 'triton'):>7} {cell(r, 'torch'):>7} "
              f"{r['memcpy_same_bytes_tbps']:>12.2f}")
    print(f"({time.time() - t0:.0f} s; warps = chosen/tutorial; bits: the index width tilec's call ran)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"m": a.m, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
