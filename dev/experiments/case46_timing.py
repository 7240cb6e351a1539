"""Why case 46 of the strided set times differently in strided_copy_bench (0.356 of
cudaMemcpy) and copy_tile_variants (0.412) with the same tile: the same copy timed
in one process through each script's path (disk cache or a fresh CopyKernels, the
bench's warm-up or five calls), PyTorch beside each."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
import copy_bench
import strided_copy_bench as sb
import torch

import tilec
from tilec import tensor_copy
from tilec.copy_kernels import CopyKernels

case = sb.generate_cases()[int(sys.argv[1]) if len(sys.argv) > 1 else 46]
gen = torch.Generator(device="cuda").manual_seed(0)
src, dst_base, dst = sb._make(torch, case, gen)
moved = case.bytes_read + case.bytes_written
mc = copy_bench.memcpy_tbps(moved // 2)
print(case.name, "memcpy", round(mc, 3), "dst ptr % 512", dst.data_ptr() % 512, "src ptr % 512", src.data_ptr() % 512)
fresh = CopyKernels(disk=False)
paths = {
    "tilec.copy_ (default kernels)": lambda: tilec.copy_(dst, src),
    "fresh CopyKernels(disk=False)": lambda: tensor_copy.copy_(dst, src, kernels=fresh),
    "torch": lambda: dst.copy_(src),
}
for rnd in range(3):
    for name, fn in paths.items():
        fn()
        torch.cuda.synchronize()
        warm = sb._median(copy_bench, fn, 30)
        plain = copy_bench.median_ms(fn, reps=30)
        print(
            f"round {rnd} {name:32s} bench-warm {copy_bench.tbps(moved, warm) / mc:.3f}  5-call warm {copy_bench.tbps(moved, plain) / mc:.3f}"
        )
for k in (tensor_copy.default_kernels() if hasattr(tensor_copy, "default_kernels") else None, fresh):
    if k is not None:
        for key in k._entries:
            print("key", key)
