"""Issue 35 (slice40): slices of 1- and 2-byte elements read at a source step of 2 (strided
cases 07, 37, 43) through a hand-written kernel: each thread 16 destination bytes of one
source row from three aligned 16-byte loads (the 32-byte window the chunk's elements
span), the even elements selected in registers (funnel shift + byte_perm), one 16-byte
store; chunks crossing a row element by element. Timed beside tilec.copy_ (its own rule
and `realign=always`) and cudaMemcpy, checked bit for bit. Not a test.
    python3 dev/experiments/slice_select_probe.py 7 37 43
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided_copy_bench as sb  # noqa: E402
import tilec  # noqa: E402

SRC = r'''
template <typename T, int SEL>
__device__ __forceinline__ void sel_body(const T* __restrict__ src, T* __restrict__ dst, long long n1, long long n2,
    long long n3, long long s0, long long s1, long long s2, long long total, int chunks) {
  constexpr int V = 16 / sizeof(T);
  long long base = ((long long)blockIdx.x * blockDim.x * chunks) * V;
  #pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k >= chunks) break;
    long long f = base + ((long long)k * blockDim.x + threadIdx.x) * V;
    if (f >= total) return;
    long long c = f % n3, t = f / n3, b2 = t % n2; t /= n2;
    long long b1 = t % n1, b0 = t / n1;
    const T* p = src + b0 * s0 + b1 * s1 + b2 * s2 + 2 * c;
    if (c + V - 1 < n3 && f + V <= total) {
      unsigned long long ad = (unsigned long long)p;
      const uint4* q4 = (const uint4*)(ad & ~15ull);
      unsigned m = (unsigned)(ad & 15);
      uint4 v0 = __ldg(q4), v1 = __ldg(q4 + 1);
      uint4 v2 = (m + 31 - sizeof(T) > 31) ? __ldg(q4 + 2) : make_uint4(0, 0, 0, 0);
      unsigned w[12] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w, v2.x, v2.y, v2.z, v2.w};
      unsigned q = m >> 2, r = (m & 3) * 8;
      unsigned y[9];
      #pragma unroll
      for (int i = 0; i < 9; ++i) {
        unsigned a1 = w[i + 1], a2 = w[i + 2 < 12 ? i + 2 : 11], a3 = w[i + 3 < 12 ? i + 3 : 11];
        y[i] = q == 0 ? w[i] : q == 1 ? a1 : q == 2 ? a2 : a3;
      }
      unsigned x[8];
      #pragma unroll
      for (int i = 0; i < 8; ++i) x[i] = __funnelshift_r(y[i], y[i + 1], r);
      uint4 o;
      o.x = __byte_perm(x[0], x[1], SEL); o.y = __byte_perm(x[2], x[3], SEL);
      o.z = __byte_perm(x[4], x[5], SEL); o.w = __byte_perm(x[6], x[7], SEL);
      *(uint4*)(dst + f) = o;
    } else {
      for (int e = 0; e < V && f + e < total; ++e) {
        long long g = f + e;
        long long cc = g % n3, tt = g / n3, bb2 = tt % n2; tt /= n2;
        dst[g] = src[(tt / n1) * s0 + (tt % n1) * s1 + bb2 * s2 + 2 * cc];
      }
    }
  }
}
extern "C" __global__ void sel1(const signed char* src, signed char* dst, long long n1, long long n2, long long n3,
    long long s0, long long s1, long long s2, long long total, int chunks) {
  sel_body<signed char, 0x6420>(src, dst, n1, n2, n3, s0, s1, s2, total, chunks);
}
extern "C" __global__ void sel2(const short* src, short* dst, long long n1, long long n2, long long n3,
    long long s0, long long s1, long long s2, long long total, int chunks) {
  sel_body<short, 0x5410>(src, dst, n1, n2, n3, s0, s1, s2, total, chunks);
}
'''


def median_ms(fn, reps=11):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    fn()
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
    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    cases = sb.generate_cases(0, 48, 64, 1024)
    for n in map(int, sys.argv[1:]):
        case = cases[n]
        src, _, dst = sb._make(torch, case, torch.Generator(device="cuda").manual_seed(0))
        shape, st = list(src.shape), list(src.stride())
        while len(shape) < 4:
            shape.insert(0, 1)
            st.insert(0, 0)
        es = src.element_size()
        assert st[3] == 2 and es in (1, 2) and dst.is_contiguous()
        k = mod.get_function(f"sel{es}")
        total = dst.numel()
        ref = torch.empty_like(dst)
        ref.copy_(src)
        m1 = torch.empty(total * es, dtype=torch.int8, device="cuda")
        m2 = torch.empty_like(m1)
        t_mc = median_ms(lambda: m2.copy_(m1))
        row = [case.name, f"memcpy {t_mc:.3f} ms", f"tilec {t_mc / median_ms(lambda: tilec.copy_(dst, src)):.3f}"]
        if es == 1:
            with forced_routes(realign="always"):
                kern = CopyKernels(disk=False)
                dst.fill_(-7)
                tensor_copy.copy_(dst, src, kernels=kern)
                ok = torch.equal(dst, ref)
                t = median_ms(lambda: tensor_copy.copy_(dst, src, kernels=kern))
                row.append(f"realign {t_mc / t:.3f}{'' if ok else ' WRONG'}")
        for threads, chunks in ((256, 1), (256, 2), (256, 4), (512, 2)):
            per = threads * 16 // es * chunks
            blocks = (total + per - 1) // per
            kargs = (np.uint64(src.data_ptr()), np.uint64(dst.data_ptr()), *map(np.int64, shape[1:]),
                     *map(np.int64, st[:3]), np.int64(total), np.int32(chunks))
            run = lambda: k((blocks,), (threads,), kargs)  # noqa: E731
            dst.fill_(-7)
            run()
            torch.cuda.synchronize()
            ok = torch.equal(dst, ref)
            row.append(f"sel {threads}x{chunks} {t_mc / median_ms(run):.3f}{'' if ok else ' WRONG'}")
        print(" | ".join(row), flush=True)
        del src, dst, ref, m1, m2
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
