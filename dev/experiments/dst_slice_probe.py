"""What holds the strided set's destination slices (16, 34, 46: a contiguous source's
rows written into rows at a longer pitch) below their DRAM bound: hand-written CUDA
kernels of the realign kernel's schedule and of its parts, timed on the bench's own
tensors (benchmarks/strided_copy_bench.py's `_make`) beside `tilec.copy_`. Not a test,
not a strategy: a probe for issue 35 (benchmarks/NOTES.md, sa39).

    python3 dev/experiments/dst_slice_probe.py --only 16,34,46 [--reps 10]

Each kernel writes the destination's 16-byte aligned chunks (a thread `K` of them, f,
f + T, ... of its block), row and chunk from the flat chunk index by divisions by
constants (the extents compiled in); a chunk's source bytes come from the two aligned
16-byte source vectors that span them, shifted (`__funnelshift_r` over 32-bit words).
Kinds (ratios to cudaMemcpy of the case's bytes; `!` not exact):
  copy      the realign kernel's schedule, whole chunks one 16-byte store, partial ones
            in aligned pieces of 8, 4, 2, 1 bytes (at most 8 stores);
  copy_elem `copy` with partial chunks stored an element at a time (as the realign
            kernel does);
  copy_k2   `copy` with 2 chunks a thread (both chunks' loads before their stores);
  copy_pf   `copy` with `prefetch.global.L2` of each chunk whose 32-byte destination
            sector the view covers in part, first (the sector in L2 before the store:
            the fill read early, among the loads);
  store     the stores of `copy` only (no loads: a constant), the view's bytes;
  span      as many whole 16-byte chunks stored contiguously (a memset of the chunks
            `store` writes: no sector in part, no gaps) into a scratch buffer (time only);
  pf_k2     `copy_pf` with 2 chunks a thread;
  pf_ahead  `copy_pf`, each thread also asking L2 for the partial sector of chunk
            f + AHEAD (`--ahead`, default a wave: 132 x 2048 chunks), the first wave its own;
  compact   `copy_pf`'s schedule into compact rows (a scratch buffer: no gaps, so no
            sector left in part once both rows are written; time only): the fills' cost;
  (`pf_ahead@N`: N waves ahead);
  pf_256    `copy_pf` with the source loads `ld.global.nc.L2::256B` (L2 fetches 256 bytes);
  pf_elem   `copy_pf` with partial chunks stored an element at a time (as tilec's kernel);
  pf_ld     `copy_pf` with the sector fetched by a volatile load of one byte (unused),
            not a prefetch (which the memory system may drop);
  pf_last   `copy_pf` with `prefetch.global.L2::evict_last`;
  pf_bulk   `copy_pf` with the chunk's 16 bytes asked by `cp.async.bulk.prefetch.L2` (one
            sector from DRAM; `prefetch.global.L2` brings the 128-byte line: Nsight, 34,
            1541 MB read for 1028 MB of source and fills); pf_bulk_k2 2 chunks a thread;
  pf_ld2    `copy_pf` with the sector fetched by a plain byte load (`ld.global.L1::no_allocate`),
            its value kept by a test at the end that never holds;
  pf_bulk1  `pf_bulk` by real 32-byte sectors (the address's bits), one bulk prefetch a
            sector (its first chunk in the row);
  pf_cpa    `pf_bulk1`'s sectors fetched by a 16-byte `cp.async.cg` into shared memory (a
            plain per-lane load, no uniform-register loop; never read, waited for at the
            kernel's end);
  pf_span   one bulk prefetch a row (its first chunk's thread) of its first partial sector
            to its last where no whole sector lies between (a row of at most two sectors:
            46's even rows ask 64 bytes, its odd ones 32), else `pf_bulk1`'s;
  memcpy2d  not a kernel: `cudaMemcpy2DAsync` (rows at one pitch only, else `-`).
A kind `NAME+e` stores its partial chunks an element at a time too (`pf_ahead+e`).
`store` and `span` move no source bytes but are given the case's bytes all the same:
compare them with each other (the cost of the sectors written in part and of the gaps).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))

SOURCE = r"""
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ __forceinline__ long long dst_row(long long r) {
  long long off = P_DOFF;
#if P_ND >= 4
  off += (r % P_N3) * P_DS3; r /= P_N3;
#endif
#if P_ND >= 3
  off += (r % P_N2) * P_DS2; r /= P_N2;
#endif
#if P_ND >= 2
  off += (r % P_N1) * P_DS1; r /= P_N1;
#endif
  off += r * P_DS0;
  return off * P_E;
}

__device__ __forceinline__ void pf_partial(char* dst, long long f) {
  // prefetch.global.L2 of chunk f's sector where its row covers it in part
  if (f >= (long long)P_NR * P_C) return;
  long long row = f / P_C;
  int c = (int)(f - row * P_C);
  long long D = dst_row(row);
  long long a = (D & ~15LL) + 16LL * c;
  long long e = D + (long long)P_L * P_E;
  if (a + 16 <= D || a >= e) return;
  if ((a & ~31LL) < D || (a & ~31LL) + 32 > e) asm volatile("prefetch.global.L2 [%0];" :: "l"(dst + a));
}

__device__ __forceinline__ uint4 ldsrc(const char* p) {
#if P_KIND == 7
  uint4 v;
  asm volatile("ld.global.nc.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
#else
  return *reinterpret_cast<const uint4*>(p);
#endif
}

__device__ __forceinline__ u32 word(uint4 v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

__device__ __forceinline__ void put(char* p, int off, int w, uint4 v) {
  // w bytes of v from byte `off` on, at p + off (aligned to w)
  if (w == 8) { *reinterpret_cast<uint2*>(p + off) = make_uint2(word(v, off >> 2), word(v, (off >> 2) + 1)); return; }
  u32 x = word(v, off >> 2) >> ((off & 3) * 8);
  if (w == 4) *reinterpret_cast<u32*>(p + off) = x;
  else if (w == 2) *reinterpret_cast<unsigned short*>(p + off) = (unsigned short)x;
  else p[off] = (char)x;
}

extern "C" __global__ void __launch_bounds__(P_T) kern(const char* __restrict__ src, char* __restrict__ dst) {
  const long long total = (long long)P_NR * P_C;
  const long long base = (long long)blockIdx.x * P_T * P_K + threadIdx.x;
  uint4 out[P_K];
#if P_KIND == 14
  __shared__ uint4 fill_sink[P_T * P_K];
#endif
  unsigned sink = 0;
  long long A[P_K];
  int lo[P_K], hi[P_K];
#pragma unroll
  for (int k = 0; k < P_K; ++k) {
    long long f = base + (long long)k * P_T;
    lo[k] = 0; hi[k] = 0; A[k] = 0;
    if (f >= total) continue;
    long long row = f / P_C;
    int c = (int)(f - row * P_C);
#if P_KIND == 6
    long long D = (P_DOFF + row * (long long)P_L) * P_E;
#else
    long long D = dst_row(row);
#endif
#if P_KIND == 4
    (void)D; (void)c;
    *reinterpret_cast<uint4*>(dst + 16 * f) = make_uint4(1, 2, 3, 4);  // as many whole chunks, contiguous
    continue;
#else
    long long S = row * (long long)P_L * P_E;
    long long a = (D & ~15LL) + 16LL * c;
    long long e = D + (long long)P_L * P_E;
    int l = (int)(D > a ? D - a : 0);
    int h = (int)(e - a < 16 ? e - a : 16);
#if P_KIND == 5
    if (f < P_AHEAD) pf_partial(dst, f);
    pf_partial(dst, f + P_AHEAD);
#endif
    if (l >= h) continue;
    A[k] = a; lo[k] = l; hi[k] = h;
#if P_KIND == 2 || P_KIND == 6 || P_KIND == 7 || P_KIND == 8
    if ((a & ~31LL) < D || (a & ~31LL) + 32 > e) asm volatile("prefetch.global.L2 [%0];" :: "l"(dst + a));
#endif
#if P_KIND == 9
    if ((a & ~31LL) < D || (a & ~31LL) + 32 > e) {
      unsigned short dummy;
      asm volatile("ld.volatile.global.u8 %0, [%1];" : "=h"(dummy) : "l"(dst + a));
      (void)dummy;
    }
#endif
#if P_KIND == 11
    if ((a & ~31LL) < D || (a & ~31LL) + 32 > e)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(dst + a) : "memory");
#endif
#if P_KIND == 12
    if ((a & ~31LL) < D || (a & ~31LL) + 32 > e) {
      unsigned short v;
      asm volatile("ld.global.L1::no_allocate.u8 %0, [%1];" : "=h"(v) : "l"(dst + a));
      sink |= v;
    }
#endif
#if P_KIND == 13
    {  // real 32-byte sectors (the address's bits); one bulk prefetch a sector: its first chunk in the row
      const long long sec = (long long)(((unsigned long long)(dst + a) & ~31ull) - (unsigned long long)dst);
      const long long first = sec > (D & ~15LL) ? sec : (D & ~15LL);
      if ((sec < D || sec + 32 > e) && a == first)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(dst + a) : "memory");
    }
#endif
#if P_KIND == 10
    if ((a & ~31LL) < D || (a & ~31LL) + 32 > e) asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(dst + a));
#endif
#if P_KIND == 14
    {  // pf_bulk1's sectors by a 16-byte cp.async into shared memory (never read)
      const long long sec = (long long)(((unsigned long long)(dst + a) & ~31ull) - (unsigned long long)dst);
      const long long first = sec > (D & ~15LL) ? sec : (D & ~15LL);
      if ((sec < D || sec + 32 > e) && a == first) {
        unsigned long long s64;
        asm("cvta.to.shared.u64 %0, %1;" : "=l"(s64) : "l"(&fill_sink[threadIdx.x * P_K + k]));
        const unsigned sa_ = (unsigned)s64;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa_), "l"(dst + a) : "memory");
      }
    }
#endif
#if P_KIND == 15
    if (c == 0) {  // one bulk ask a row: its first partial sector to its last, no whole sector between
      const unsigned long long d0 = (unsigned long long)(dst + D), d1 = (unsigned long long)(dst + e);
      const unsigned long long s0 = d0 & ~31ull, s1 = (d1 + 31) & ~31ull;
      const unsigned long long lo = (d0 & 31) ? s0 : s0 + 32, hi = (d1 & 31) ? s1 : s1 - 32;
      if (hi > lo && hi - lo <= 64 && (hi - lo == 32 || ((d0 & 31) && (d1 & 31)))) {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(lo), "r"((unsigned)(hi - lo)) : "memory");
      } else {
        if (d0 & 31) asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(s0) : "memory");
        if ((d1 & 31) && (d1 & ~31ull) != s0) asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(d1 & ~31ull) : "memory");
      }
    }
#endif
#if P_KIND == 3
    out[k] = make_uint4(0x01010101u, 0x02020202u, 0x03030303u, 0x04040404u);
#else
    long long s = a - D + S;
    long long sa = s & ~15LL;
    int sh = (int)(s - sa);
    uint4 w0 = make_uint4(0, 0, 0, 0), w1 = make_uint4(0, 0, 0, 0);
    long long send = S + (long long)P_L * P_E;
    if (sa + 16 > S && sa < send) w0 = ldsrc(src + sa);
    if (sh && sa + 16 < send) w1 = ldsrc(src + sa + 16);
    u32 w[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
    int q = sh >> 2, b = (sh & 3) * 8;
    u32 r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      // words q + j and q + j + 1 of the window (q in 0..3), by selects
      u32 p0 = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
      u32 p1 = q == 0 ? w[j + 1] : q == 1 ? w[j + 2] : q == 2 ? w[j + 3] : w[j + 4];
      r[j] = __funnelshift_r(p0, p1, b);
    }
    out[k] = make_uint4(r[0], r[1], r[2], r[3]);
#endif
#endif
  }
  if (sink == 0x1FFu) dst[0] = 0;  // never (a byte): keeps pf_ld2's loads
#if P_KIND == 14
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
#if P_KIND != 4
#pragma unroll
  for (int k = 0; k < P_K; ++k) {
    int l = lo[k], h = hi[k];
    if (l >= h) continue;
    char* p = dst + A[k];
    if (l == 0 && h == 16) { *reinterpret_cast<uint4*>(p) = out[k]; continue; }
#if P_KIND == 1 || P_KIND == 8 || P_ELEM
#pragma unroll
    for (int b = 0; b < 16; b += P_E)
      if (b >= l && b < h) put(p, b, P_E, out[k]);
    continue;
#endif
    int off = l;
#pragma unroll
    for (int w = 1; w <= 8; w <<= 1)
      if ((off & w) && off + w <= h) { put(p, off, w, out[k]); off += w; }
#pragma unroll
    for (int w = 8; w >= 1; w >>= 1)
      if (h - off >= w) { put(p, off, w, out[k]); off += w; }
  }
#endif
}
"""

KINDS = {"copy": (0, 1), "copy_elem": (1, 1), "copy_k2": (0, 2), "copy_pf": (2, 1), "store": (3, 1), "span": (4, 1),
         "pf_k2": (2, 2), "pf_ahead": (5, 1), "compact": (6, 1), "pf_256": (7, 1),
         "pf_elem": (8, 1), "pf_ld": (9, 1), "pf_last": (10, 1),
         "pf_bulk": (11, 1), "pf_bulk_k2": (11, 2), "pf_ld2": (12, 1), "pf_bulk1": (13, 1), "pf_cpa": (14, 1),
         "pf_span": (15, 1)}
"""name: (KIND, chunks a thread)."""


def geometry(case, sb):
    """(rows, L, E, outer extents, outer dst strides, dst offset in elements) of a case
    whose source is contiguous and whose destination rows are contiguous."""
    sshape, sstrides, soff, dshape, dstrides, doff = sb.case_views(case)
    assert dstrides[-1] == 1 and sstrides[-1] == 1
    acc = 1
    for n, s in zip(reversed(sshape), reversed(sstrides)):
        assert s == acc or n == 1, "source not contiguous"
        acc *= n
    return math.prod(dshape[:-1]), dshape[-1], sb.ITEMSIZE[case.dst_dtype], dshape[:-1], dstrides[:-1], doff


def chunks_per_row(L, E, outer_n, outer_s, doff) -> int:
    """The most 16-byte chunks a row spans, over every residue its start takes."""
    most = 0
    for idx in itertools.product(*(range(min(n, 16)) for n in outer_n)):
        d = (doff + sum(i * s for i, s in zip(idx, outer_s))) * E
        most = max(most, (d % 16 + L * E + 15) // 16)
    return most


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="16,34,46")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=512)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--ahead", type=int, default=132 * 2048)
    a = ap.parse_args()
    import copy_bench
    import cupy as cp
    import strided_copy_bench as sb
    import torch

    import tilec

    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    kinds = a.kinds.split(",")
    print("case " + " ".join(["tilec", "torch"] + kinds))
    for i in (int(x) for x in a.only.split(",")):
        case = cases[i]
        rows, L, E, on, os_, doff = geometry(case, sb)
        C = chunks_per_row(L, E, on, os_, doff)
        src, dst_base, dst = sb._make(torch, case, gen)
        dst_base.fill_(77)
        ref = dst_base.clone()
        ref[tuple(slice(*ix) for ix in case.dst_index)].copy_(src)
        ref_bits = sb._bits(torch, ref)
        moved = case.bytes_read + case.bytes_written
        mc = copy_bench.memcpy_tbps(moved // 2)

        def ratio(fn) -> str:
            return f"{copy_bench.tbps(moved, sb._median(copy_bench, fn, a.reps)) / mc:.3f}"

        row = [ratio(lambda: tilec.copy_(dst, src)), ratio(lambda: dst.copy_(src))]
        assert src.data_ptr() % 16 == 0 and dst_base.data_ptr() % 16 == 0
        scratch = torch.empty(rows * C * 16 + (doff * E + 64) * 2, dtype=torch.uint8, device="cuda")
        defs = {"E": E, "L": L, "NR": rows, "C": C, "DOFF": doff, "ND": len(on), "T": a.threads, "AHEAD": a.ahead}
        for k, n in enumerate(on):
            defs[f"N{k}"] = n
        for k, s in enumerate(os_):
            defs[f"DS{k}"] = s
        for name in kinds:
            if name == "memcpy2d":  # the vendor's pitched copy, rows at one pitch only
                if len(on) != 1 or tuple(src.shape) != (rows, L):
                    row.append("-")
                    continue
                dp = dst.data_ptr()

                def pitched(dp=dp):
                    cp.cuda.runtime.memcpy2DAsync(dp, os_[0] * E, src.data_ptr(), L * E, L * E, rows,
                                                  cp.cuda.runtime.memcpyDeviceToDevice, 0)

                dst_base.fill_(77)
                pitched()
                torch.cuda.synchronize()
                ok = bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
                row.append(ratio(pitched) + ("" if ok else "!"))
                continue
            elem = name.endswith("+e")
            base, _, times = name.removesuffix("+e").partition("@")  # pf_ahead@2: AHEAD twice
            kind, kk = KINDS[base]
            here = {**defs, "KIND": kind, "K": kk, "AHEAD": a.ahead * int(times or 1), "ELEM": int(elem)}
            opts = tuple(f"-DP_{k}={v}" + ("LL" if k in ("DOFF", "AHEAD") or k.startswith("DS") else "")
                         for k, v in here.items())
            fn = cp.RawKernel(SOURCE, "kern", options=("-std=c++17",) + opts)
            grid = (-(-rows * C // (a.threads * kk)),)
            out = scratch if kind in (4, 6) else dst_base
            sp, dp = src.data_ptr(), out.data_ptr()

            def launch(fn=fn, grid=grid, sp=sp, dp=dp):
                fn(grid, (a.threads,), (cp.uint64(sp), cp.uint64(dp)))

            dst_base.fill_(77)
            launch()
            torch.cuda.synchronize()
            ok = kind in (3, 4, 6) or bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
            row.append(ratio(launch) + ("" if ok else "!"))
        print(f"{i:02d} " + " ".join(row) + f"   (rows {rows}, {L} x {E} B, C {C})", flush=True)
        del src, dst_base, dst, ref, ref_bits, scratch
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
