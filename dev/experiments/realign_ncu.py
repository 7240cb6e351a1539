"""Nsight Compute target: the strided set's cases made as strided_copy_bench makes
them (same order, same generator, same poison and reference copies, so the same
allocation), and for the cases named, tilec's realign kernel as on main (`MAIN`) and
with this branch's defaults, and one torch copy_, in that order, inside a profiler range (run under `ncu --profile-from-start off`).

    ncu --profile-from-start off --metrics ... python3 dev/experiments/realign_ncu.py 4,16,...,46 46,34,16
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
import strided_copy_bench as sb
import torch

import tilec
from tilec import tensor_copy
from tilec.copy_kernels import CopyKernels
from tilec.copy_routes import forced_routes

TUNING = {"THREADS": "realign_threads", "CHUNKS_PER_THREAD": "realign_chunks_per_thread",
          "FAST_DIV": "realign_fast_div", "SHORT_ROW_BYTES": "realign_short_row_bytes"}
"""copy_realign's constants and the tuning values (copy_routes) that set them."""

MAIN = {"main": {"FAST_DIV": False, "THREADS": 256, "SHORT_ROW_BYTES": 0}, "new": {}}
"""main's realign kernel (as merged) and this branch's defaults."""
order = sorted(int(x) for x in sys.argv[1].split(","))
profile = {int(x) for x in sys.argv[2].split(",")}
cases = sb.generate_cases()
gen = torch.Generator(device="cuda").manual_seed(0)
for i in order:
    case = cases[i]
    src, dst_base, dst = sb._make(torch, case, gen)
    dst_base.fill_(77)
    ref_base = dst_base.clone()
    ref_base[tuple(slice(*ix) for ix in case.dst_index)].copy_(src)
    tilec.copy_(dst, src)
    torch.cuda.synchronize()
    print(case.name, "dst%512", dst.data_ptr() % 512, "exact", torch.equal(ref_base, dst_base), flush=True)
    del ref_base
    if i in profile:
        kern = {}
        for name, consts in MAIN.items():
            kern[name] = CopyKernels(disk=False)
            with forced_routes(**{TUNING[k]: v for k, v in consts.items()}):
                tensor_copy.copy_(dst, src, kernels=kern[name])
        dst.copy_(src)
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        tensor_copy.copy_(dst, src, kernels=kern["main"])
        tensor_copy.copy_(dst, src, kernels=kern["new"])
        dst.copy_(src)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    del src, dst_base, dst
    torch.cuda.empty_cache()
