"""Case 38 of the strided set (bf16 (5, 1123) broadcast to (185, 5, 257, 1123)) split by
hand into period parts (api/copy_period.py's form with longer rows), each part a
`tilec.copy_`, beside the whole copy: the first K periods (P = 5 x 257 x 1123 elements)
from the source, then the destination's further rows of K P elements from its own first
row (K = 8: rows of 16-byte multiples, 23 MB, held in L2 or not), then the tail. Each
variant checked bit for bit against PyTorch; ratios to cudaMemcpy of the case's bytes.
Not a test.

    python3 dev/experiments/broadcast_rows_probe.py [--reps 10] [--ks 1,2,8]
"""

from __future__ import annotations

import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--ks", default="8")
    ap.add_argument("--case", type=int, default=38)
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch

    import tilec

    case = sb.generate_cases(0, 48, 64, 1024)[a.case]
    src, dst_base, dst = sb._make(torch, case, torch.Generator(device="cuda").manual_seed(0))
    ref = torch.empty_like(dst_base)
    ref.copy_(src)
    moved = case.bytes_read + case.bytes_written
    mc = copy_bench.memcpy_tbps(moved // 2)
    n0 = dst.shape[0]
    period = dst[0].numel()
    flat = dst_base.view(-1)

    def parts(k: int):
        rows, tail = divmod(n0, k)
        row = k * period

        def run():
            tilec.copy_(dst[:k], src[:k])
            if rows > 1:
                tilec.copy_(flat[row:rows * row].view(rows - 1, row), flat[:row].unsqueeze(0).expand(rows - 1, row))
            if tail:
                tilec.copy_(flat[rows * row:], flat[:tail * period])
        return run

    variants = [("tilec", lambda: tilec.copy_(dst, src))] + [(f"rows{k}", parts(k)) for k in map(int, a.ks.split(","))]
    out = []
    for name, fn in variants:
        dst_base.fill_(77)
        fn()
        torch.cuda.synchronize()
        ok = bool(torch.equal(dst_base.view(torch.int16), ref.view(torch.int16)))
        r = copy_bench.tbps(moved, sb._median(copy_bench, fn, a.reps)) / mc
        out.append(f"{name} {r:.3f}{'' if ok else '!'}")
        print(out[-1], flush=True)
    print(f"{a.case:02d} " + " | ".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
