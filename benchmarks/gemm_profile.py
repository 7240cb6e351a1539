"""Launch tilec GEMM configs (gemm_bench.py's spec syntax) a few times each, for
Nsight Compute to read one launch of each:

    ncu --clock-control none -k regex:gemm --launch-count 1 \\
        --section SpeedOfLight python benchmarks/gemm_profile.py 4096 wgmma:128x256x64:4:ws

Each config is launched `--launches` times (1) on fresh random bf16 inputs; nothing
is checked or timed here (gemm_bench.py does both)."""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))


def main(argv=None) -> int:
    import torch
    from gemm_bench import wgmma_source

    import tilec

    ap = argparse.ArgumentParser()
    ap.add_argument("size", type=int)
    ap.add_argument("configs", help="comma-separated wgmma configs")
    ap.add_argument("--launches", type=int, default=1)
    args = ap.parse_args(argv)
    n = args.size
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    for spec in args.configs.split(","):
        kernel = tilec.compile(wgmma_source(spec, n, n, n))
        for _ in range(args.launches):
            kernel(a, b, c)
        torch.cuda.synchronize()
        print(spec, "launched", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
