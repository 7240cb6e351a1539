"""The ceiling of a converting permute moved through shared memory by flat runs on both
sides, for the strided set's 47 (uint8 (17, 1115178) transposed into float64 rows of 17)
and 11 (int32 (5, 11, 31, 648, 5, 5) permuted (4, 1, 3, 5, 0, 2) into float64): hand-written
CUDA (CuPy `RawKernel`), not tilec's, timed in turns against `tilec.copy_`'s kernel on the
bench's own tensors (benchmarks/strided_copy_bench.py's `_make`), each checked bit for bit
against PyTorch first. Not a test; what a kernel of that form would reach, before building it.

    python3 dev/experiments/convert_flat_probe.py --rounds 7 --reps 10

47's probe: a block takes 512 destination rows: 17 source runs of 512 bytes into a box of
17 rows of 516 bytes (the pitch moves each run 1 bank), then the block's 69632 contiguous
destination bytes as 16-byte chunks, each two box bytes converted. 11's probe: a block takes
one `b` and 2 steps of the 648: 155 source runs of 50 int32 (every lane on a source element,
no padding), the box in the destination's order, then 5 destination runs of 1550 float64 as
16-byte chunks (what s1146's Left calls the load phase over the flat source run).
Prints a line a case: each kernel's median ratio to cudaMemcpy, the probe's time against
tilec's per round (`x1.10`: 10% faster), least and most.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))

SOURCE = r"""
extern "C" __global__ void __launch_bounds__(256)
p47(const unsigned char* __restrict__ src, double* __restrict__ dst, int n) {
  const int R = 512, P = 516;
  __shared__ unsigned char s[17 * P];
  const long long r0 = (long long)blockIdx.x * R;
  const int rows = (int)min((long long)R, (long long)n - r0);
  for (int k = threadIdx.x; k < 17 * R; k += 256) {
    const int c = k / R, r = k % R;
    if (r < rows) s[c * P + r] = src[(long long)c * n + r0 + r];
  }
  __syncthreads();
  const int total = rows * 17;
  double* d = dst + r0 * 17;
  for (int q = threadIdx.x; 2 * q < total; q += 256) {
    const int e = 2 * q, r = e / 17, c = e - r * 17;
    const double v0 = (double)s[c * P + r];
    if (e + 1 < total) {
      const int c1 = c == 16 ? 0 : c + 1, r1 = c == 16 ? r + 1 : r;
      *reinterpret_cast<double2*>(d + e) = make_double2(v0, (double)s[c1 * P + r1]);
    } else {
      d[e] = v0;
    }
  }
}

extern "C" __global__ void __launch_bounds__(256)
p11(const int* __restrict__ src, double* __restrict__ dst) {
  const int CC = 2, RUN = CC * 25, TILE = 5 * CC * 775, HALF = CC * 775 / 2;
  __shared__ __align__(16) int s[TILE];
  const int blk = blockIdx.x, c0 = (blk % (648 / CC)) * CC, b = blk / (648 / CC);
  for (int k = threadIdx.x; k < 155 * RUN; k += 256) {
    const int run = k / RUN, pos = k - run * RUN, e = run / 31, f = run - e * 31;
    const int cc = pos / 25, ad = pos - cc * 25, a = ad / 5, d = ad - a * 5;
    const long long so = (long long)((e * 11 + b) * 31 + f) * 16200 + c0 * 25 + pos;
    s[a * (CC * 775) + cc * 775 + d * 155 + e * 31 + f] = src[so];
  }
  __syncthreads();
  for (int q = threadIdx.x; q < TILE / 2; q += 256) {
    const int a = q / HALF, p = q - a * HALF;
    const int2 v = *reinterpret_cast<const int2*>(&s[a * CC * 775 + 2 * p]);
    const long long o = (long long)((a * 11 + b) * 648 + c0) * 775 + 2 * p;
    *reinterpret_cast<double2*>(dst + o) = make_double2((double)v.x, (double)v.y);
  }
}
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="47,11")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    import copy_bench
    import cupy as cp
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels

    mod = cp.RawModule(code=SOURCE, options=("--std=c++17",))
    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for i in (int(x) for x in a.only.split(",")):
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        base = src.permute(*[case.src_perm.index(k) for k in range(len(case.src_perm))])  # the contiguous base
        assert base.is_contiguous()
        moved = case.bytes_read + case.bytes_written
        ref = sb._bits(torch, torch.empty_like(dst).copy_(src)).clone()
        kern = CopyKernels(disk=False)

        def tilec_call():
            tensor_copy.copy_(dst, src, kernels=kern)

        if i == 47:
            rows = base.shape[1]
            k47 = mod.get_function("p47")
            grid = (rows + 511) // 512

            def probe():
                k47((grid,), (256,), (cp.uint64(base.data_ptr()), cp.uint64(dst.data_ptr()), cp.int32(rows)))
        elif i == 11:
            k11 = mod.get_function("p11")

            def probe():
                k11((11 * 324,), (256,), (cp.uint64(base.data_ptr()), cp.uint64(dst.data_ptr())))
        else:
            print(f"{i:02d}: no probe", flush=True)
            continue
        exact = {}
        for name, fn in (("tilec", tilec_call), ("probe", probe)):
            dst.fill_(77)
            fn()
            torch.cuda.synchronize()
            exact[name] = bool(torch.equal(sb._bits(torch, dst), ref))
        mc = copy_bench.memcpy_tbps(moved // 2)
        calls = {"tilec": tilec_call, "probe": probe}
        times: dict[str, list[float]] = {name: [] for name in calls}
        names = list(calls)
        for r in range(a.rounds):
            for name in names[r % 2:] + names[:r % 2]:
                times[name].append(sb._median(copy_bench, calls[name], a.reps))
        out = [f"{i:02d}"]
        for name in names:
            ratio = statistics.median(copy_bench.tbps(moved, t) / mc for t in times[name])
            out.append(f"{name} {ratio:.3f}{'' if exact[name] else '!'}")
        rel = [t / v for t, v in zip(times["tilec"], times["probe"])]
        out.append(f"probe/tilec x{statistics.median(rel):.3f} [{min(rel):.3f}, {max(rel):.3f}]")
        print(" | ".join(out), flush=True)
        del src, dst_base, dst, base, ref
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
