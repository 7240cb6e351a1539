"""Issue 35 (slice40): int8 slices of step 2 (strided cases 07, 37) through a hand-written
kernel: each thread 16 destination bytes of one source row from three aligned 16-byte
loads, the even bytes selected in registers (funnel shift + byte_perm), one 16-byte store;
chunks crossing a row byte by byte. Timed beside tilec.copy_ and cudaMemcpy, checked bit
for bit. Not a test.   python3 dev/experiments/slice_select_probe.py 7 37
"""
import sys, os
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
import cupy as cp
import numpy as np
import torch
import tilec
import strided_copy_bench as sb

SRC = r'''
extern "C" __global__ void __launch_bounds__(256)
sel(const signed char* __restrict__ src, signed char* __restrict__ dst, long long n1, long long n2,
    long long s0, long long s1, long long total, int chunks) {
  long long base = ((long long)blockIdx.x * 256 * chunks) * 16;
  #pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k >= chunks) break;
    long long f = base + ((long long)k * 256 + threadIdx.x) * 16;
    if (f >= total) return;
    long long c = f % n2, t = f / n2, b = t % n1, a = t / n1;
    const signed char* p = src + a * s0 + b * s1 + 2 * c;
    if (c + 15 < n2 && f + 16 <= total) {
      unsigned long long ad = (unsigned long long)p;
      const uint4* q4 = (const uint4*)(ad & ~15ull);
      unsigned m = (unsigned)(ad & 15);
      uint4 v0 = __ldg(q4), v1 = __ldg(q4 + 1), v2 = (m > 1) ? __ldg(q4 + 2) : make_uint4(0,0,0,0);
      unsigned w[12] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w, v2.x, v2.y, v2.z, v2.w};
      unsigned q = m >> 2, r = (m & 3) * 8;
      unsigned y[9];
      #pragma unroll
      for (int i = 0; i < 9; ++i) {
        unsigned a0 = w[i], a1 = w[i + 1 < 12 ? i + 1 : 11], a2 = w[i + 2 < 12 ? i + 2 : 11], a3 = w[i + 3 < 12 ? i + 3 : 11];
        y[i] = q == 0 ? a0 : q == 1 ? a1 : q == 2 ? a2 : a3;
      }
      unsigned x[8];
      #pragma unroll
      for (int i = 0; i < 8; ++i) x[i] = __funnelshift_r(y[i], y[i + 1], r);
      uint4 o;
      o.x = __byte_perm(x[0], x[1], 0x6420); o.y = __byte_perm(x[2], x[3], 0x6420);
      o.z = __byte_perm(x[4], x[5], 0x6420); o.w = __byte_perm(x[6], x[7], 0x6420);
      *(uint4*)(dst + f) = o;
    } else {
      for (int e = 0; e < 16 && f + e < total; ++e) {
        long long g = f + e;
        long long cc = g % n2, tt = g / n2, bb = tt % n1, aa = tt / n1;
        dst[g] = src[aa * s0 + bb * s1 + 2 * cc];
      }
    }
  }
}
'''


def median_ms(fn, reps=15):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    fn(); fn()
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return sorted(ts)[len(ts) // 2]


def main():
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    k = mod.get_function("sel")
    cases = sb.generate_cases(0, 48, 64, 1024)
    for n in map(int, sys.argv[1:]):
        case = cases[n]
        src, _, dst = sb._make(torch, case, torch.Generator(device="cuda").manual_seed(0))
        shape, st = list(src.shape), list(src.stride())
        while len(shape) < 3:
            shape.insert(0, 1); st.insert(0, 0)
        assert st[2] == 2 and src.element_size() == 1 and dst.is_contiguous()
        total = dst.numel()
        ref = torch.empty_like(dst); ref.copy_(src)
        nbytes = 2 * total
        m1 = torch.empty(total, dtype=torch.int8, device="cuda"); m2 = torch.empty_like(m1)
        t_mc = median_ms(lambda: m2.copy_(m1))
        t_tc = median_ms(lambda: tilec.copy_(dst, src))
        row = [case.name, f"memcpy {t_mc:.3f} ms", f"tilec {t_mc / t_tc:.3f}"]
        for chunks in (1, 2, 4):
            blocks = (total + 256 * 16 * chunks - 1) // (256 * 16 * chunks)
            args = (src.data_ptr(), dst.data_ptr(), shape[1], shape[2], st[0], st[1], total, chunks)
            kargs = (np.uint64(args[0]), np.uint64(args[1]), *map(np.int64, args[2:7]), np.int32(chunks))
            run = lambda: k((blocks,), (256,), kargs)
            dst.fill_(-7)
            run(); torch.cuda.synchronize()
            ok = torch.equal(dst, ref)
            t = median_ms(run)
            row.append(f"sel x{chunks} {t_mc / t:.3f}{'' if ok else ' WRONG'}")
        print(" | ".join(row), flush=True)
        del src, dst, ref, m1, m2
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
