"""Issue 35 (slice40): 1- and 2-byte integer rows read at a source step of 2, rows of N
elements (the realign rule's `STEP2_SHORT_ROW` threshold), `tilec.copy_` by the rule
against `realign=never` (the gather or tiled kernel) and `realign=always`, ratios to
cudaMemcpy of the same bytes, checked bit for bit. Not a test.
    python3 dev/experiments/step2_rows_probe.py int8:72,128,256,1024 int16:256,4096
"""
import sys

import cupy as cp
import torch

from tilec import tensor_copy
from tilec.copy_kernels import CopyKernels
from tilec.copy_routes import forced_routes


def median_ms(fn, reps=7):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    fn()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return sorted(ts)[len(ts) // 2]


def main():
    kernels = {}
    for spec in sys.argv[1:]:
        dt, ns = spec.split(":")
        t = getattr(torch, dt)
        for n in map(int, ns.split(",")):
            es = torch.empty(0, dtype=t).element_size()
            rows = (256 << 20) // (n * es)
            base = torch.randint(-100, 100, (rows, 2 * n + 5), dtype=t, device="cuda")
            src = base[:, 3:3 + 2 * n:2]
            dst = torch.empty((rows, n), dtype=t, device="cuda")
            ref = src.contiguous()
            m1 = torch.empty(rows * n * es, dtype=torch.int8, device="cuda")
            m2 = torch.empty_like(m1)
            t_mc = median_ms(lambda: m2.copy_(m1))
            row = [f"{dt} rows of {n} x {rows}"]
            for name, routes in (("rule", {}), ("never", {"realign": "never"}), ("always", {"realign": "always"})):
                with forced_routes(**routes):
                    kern = kernels.setdefault((dt, name), CopyKernels(disk=False))
                    dst.fill_(-7)
                    tensor_copy.copy_(dst, src, kernels=kern)
                    ok = torch.equal(dst, ref)
                    r = t_mc / median_ms(lambda: tensor_copy.copy_(dst, src, kernels=kern))
                row.append(f"{name} {r:.3f}{'' if ok else ' WRONG'}")
            print(" | ".join(row), flush=True)
            del base, src, dst, ref, m1, m2
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
