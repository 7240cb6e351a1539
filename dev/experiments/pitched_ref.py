"""The vendor's pitched copy beside tilec on the strided set's destination slices whose rows
lie at one pitch (46: int64 rows of 40 bytes at a pitch of 80): `cudaMemcpy2DAsync` (the
driver's own kernel or copy engine for rows into a longer pitch), `tilec.copy_` and
PyTorch's `copy_`, each checked bit for bit against PyTorch (the padding poisoned and
compared too), then timed in `--rounds` rounds (each round every copy once, the order
rotated a round). Printed: each one's median ratio to cudaMemcpy of the same bytes, the
rounds' spread, and the case's DRAM bounds without and with the fills of the sectors
written in part (`strided_copy_bench.dram_bound`). Not a test: whether a kernel that
writes only the destination's bytes is held by the fills, cudaMemcpy2D being one.

    python3 dev/experiments/pitched_ref.py --only 46 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="46")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    import copy_bench
    import cupy as cp
    import strided_copy_bench as sb
    import torch

    import tilec

    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for i in (int(x) for x in a.only.split(",")):
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        if src.dim() != 2 or not src.is_contiguous() or dst.stride(1) != 1:
            print(f"{i:02d}: rows not at one pitch; skipped")
            continue
        e = dst.element_size()
        width, height, dpitch = src.shape[1] * e, src.shape[0], dst.stride(0) * e
        ref = dst_base.clone()
        ref.fill_(77)
        ref[tuple(slice(*ix) for ix in case.dst_index)].copy_(src)
        ref_bits = sb._bits(torch, ref)
        moved = case.bytes_read + case.bytes_written
        mc = copy_bench.memcpy_tbps(moved // 2)

        def pitched():
            cp.cuda.runtime.memcpy2DAsync(dst.data_ptr(), dpitch, src.data_ptr(), width, width, height,
                                          cp.cuda.runtime.memcpyDeviceToDevice, 0)

        runs = {"memcpy2D": pitched, "tilec": lambda: tilec.copy_(dst, src), "torch": lambda: dst.copy_(src)}
        ok = {}
        for name, fn in runs.items():
            dst_base.fill_(77)
            fn()
            torch.cuda.synchronize()
            ok[name] = bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
        got: dict = {n: [] for n in runs}
        names = list(runs)
        for rnd in range(a.rounds):
            k = rnd % len(names)
            for name in names[k:] + names[:k]:
                got[name].append(copy_bench.tbps(moved, sb._median(copy_bench, runs[name], a.reps)) / mc)
        b = sb.dram_bound(case)
        cells = " ".join(f"{n}={statistics.median(g):.3f}{'' if ok[n] else '!'}(+-{max(g) - min(g):.3f})"
                         for n, g in got.items())
        print(f"{i:02d} {cells} bound {b['bound']:.3f} with fills {b['bound_fills']:.3f} "
              f"(rows {height} x {width} B at {dpitch})", flush=True)
        del src, dst_base, dst, ref, ref_bits
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
