"""Experiment behind benchmarks/NOTES.md, "Misaligned transposes" (2026-11-23): hand-written
transposes of 16381 x 16411 and 16384 x 16384 f32 whose warps read and write whole aligned
128-byte lines (L), or load 16-byte vectors of each row's aligned window stored verbatim
in shared memory (V), over several tile shapes; each checked bit for bit, then timed
beside cudaMemcpy. Not a test. On the GPU machine, from the repository root:

    python3 dev/experiments/misaligned_windows.py
"""
import sys
import numpy as np, cupy as cp
sys.path.insert(0, "benchmarks")
import copy_bench as cb

memcpy = cb.memcpy_tbps(1 << 30)
print(f"memcpy {memcpy:.3f} TB/s", flush=True)
rows = []

COMMON = r'''
#define WARPS (THREADS / 32)
extern "C" __global__ void __launch_bounds__(THREADS) k(const float* __restrict__ src, float* __restrict__ dst) {
  extern __shared__ __align__(16) float sm[];
  const int i0 = blockIdx.x * TI, j0 = blockIdx.y * TJ;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
'''
# L: scalar, every warp instruction inside one 128-byte line; smem (i, j) at i*P + j, P odd.
LOAD_L = r'''
  constexpr int P = TJ + 1;
  constexpr int LJ = TJ / 32 + 1, RI = TI / WARPS;
  float v[RI][LJ];
  #pragma unroll
  for (int r = 0; r < RI; ++r) {
    const int gi = i0 + w + r * WARPS;
    const int base = gi * N + j0, a = base & ~31;
    #pragma unroll
    for (int q = 0; q < LJ; ++q) {
      const int e = a + 32 * q + lane - base;
      if (gi < M && e >= 0 && e < TJ && j0 + e < N) v[r][q] = src[a + 32 * q + lane];
    }
  }
  #pragma unroll
  for (int r = 0; r < RI; ++r) {
    const int i = w + r * WARPS, gi = i0 + i;
    const int base = gi * N + j0, a = base & ~31;
    #pragma unroll
    for (int q = 0; q < LJ; ++q) {
      const int e = a + 32 * q + lane - base;
      if (gi < M && e >= 0 && e < TJ && j0 + e < N) sm[i * P + e] = v[r][q];
    }
  }
  __syncthreads();
#define SMEM(i, j) sm[(i) * P + (j)]
'''
# V: float4 loads over the row's 128-byte-aligned window, stored verbatim (float4) in smem;
# element (i, j) at i*P + j + shift(i), shift(i) = (i-th row start) & 31.
LOAD_V = r'''
  constexpr int P = (TJ / 32 + 1) * 32 + PADV;
  constexpr int CH = (TJ / 32 + 1) * 8, QJ = (CH + 31) / 32, RI = TI / WARPS;
  float4 v[RI][QJ];
  #pragma unroll
  for (int r = 0; r < RI; ++r) {
    const int gi = i0 + w + r * WARPS;
    const int base = gi * N + j0, a = base & ~31;
    #pragma unroll
    for (int q = 0; q < QJ; ++q) {
      const int c = lane + 32 * q;
      const int e = a + 4 * c - base;   // tile-local j of the chunk's first element
      const float* p = src + a + 4 * c;
      if (c < CH && gi < M && e + 3 >= 0 && e < TJ && j0 + e < N) {
        if (e >= 0 && e + 4 <= TJ && j0 + e + 4 <= N) v[r][q] = *reinterpret_cast<const float4*>(p);
        else {
          float t[4];
          #pragma unroll
          for (int k = 0; k < 4; ++k) t[k] = (e + k >= 0 && e + k < TJ && j0 + e + k < N) ? p[k] : 0.f;
          v[r][q] = make_float4(t[0], t[1], t[2], t[3]);
        }
      }
    }
  }
  #pragma unroll
  for (int r = 0; r < RI; ++r) {
    const int i = w + r * WARPS;
    #pragma unroll
    for (int q = 0; q < QJ; ++q) {
      const int c = lane + 32 * q;
      if (c < CH) *reinterpret_cast<float4*>(sm + i * P + 4 * c) = v[r][q];
    }
  }
  __syncthreads();
#define SMEM(i, j) sm[(i) * P + (j) + (((i0 + (i)) * N + j0) & 31)]
'''
STORE = r'''
  constexpr int LI = TI / 32 + 1, RJ = TJ / WARPS;
  #pragma unroll
  for (int r = 0; r < RJ; ++r) {
    const int j = w + r * WARPS, gj = j0 + j;
    const int base = gj * M + i0, a = base & ~31;
    #pragma unroll
    for (int q = 0; q < LI; ++q) {
      const int e = a + 32 * q + lane - base;
      if (gj < N && e >= 0 && e < TI && i0 + e < M) dst[a + 32 * q + lane] = SMEM(e, j);
    }
  }
}
'''

def hand(kind, m, n, ti, tj, threads, padv=4):
    code = COMMON + (LOAD_L if kind == "L" else LOAD_V) + STORE
    for a, b in (("THREADS", threads), ("TI", ti), ("TJ", tj), ("PADV", padv), ("M", m), ("N", n)):
        code = code.replace(a, str(b))
    f = cp.RawModule(code=code, options=("-std=c++17",)).get_function("k")
    P = tj + 1 if kind == "L" else (tj // 32 + 1) * 32 + padv
    smem = ti * P * 4
    f.max_dynamic_shared_size_bytes = smem
    x = cp.asarray(np.random.default_rng(0).standard_normal((m, n)).astype(np.float32))
    y = cp.empty((n, m), np.float32)
    y.fill(np.nan)
    grid = (-(-m // ti), -(-n // tj))
    go = lambda: f(grid, (threads,), (x, y), shared_mem=smem)
    go(); cp.cuda.Device().synchronize()
    ok = bool(cp.array_equal(y, x.T))
    t = cb.tbps(2 * m * n * 4, cb.median_ms(go))
    name = f"{kind} {m}x{n} tile {ti}x{tj} t{threads}" + (f" pad{padv}" if kind == "V" else "")
    rows.append((name, t if ok else "WRONG", t / memcpy, f.num_regs if hasattr(f, "num_regs") else "", smem))
    print(name, t, t / memcpy, ok, flush=True)
    del x, y; cp.get_default_memory_pool().free_all_blocks()

for m, n in ((16381, 16411), (16384, 16384)):
    for ti, tj, th in ((128, 128, 256), (128, 128, 512), (256, 64, 256), (256, 64, 512), (64, 128, 256),
                       (128, 64, 256), (256, 32, 256), (64, 64, 128), (64, 64, 256), (256, 128, 512)):
        for kind in ("L", "V"):
            try:
                hand(kind, m, n, ti, tj, th)
            except Exception as e:
                print(kind, ti, tj, th, "error", str(e)[:300], flush=True)
for m, n in ((16381, 16411), (16384, 16384)):
    c = cb.Case(f"T{m}x{n}", "f32", (m, n), f"({m},{n}):({n},1)", f"({m},{n}):(1,{m})", (n, m), lambda x: x.T.copy())
    c.bytes_moved = 2 * m * n * 4
    res = []
    cb.run_case(c, memcpy, res, ["default"], with_peers=False)
    rows.append((f"tilec default {m}x{n}", res[0]["tilec_tbps"], res[0]["ratio"], "", ""))
print("\n| variant | TB/s | ratio | regs | smem |\n|---|---|---|---|---|")
for n_, t, r, regs, sm in rows:
    print(f"| {n_} | {t if isinstance(t, str) else round(t, 3)} | {round(r, 3)} | {regs} | {sm} |")
