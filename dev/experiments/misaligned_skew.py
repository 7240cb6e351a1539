"""Experiment behind benchmarks/NOTES.md, "Misaligned transposes" (2026-11-23): hand-written
transposes whose warps store whole aligned 128-byte lines (S), and which also skew each
destination run to start on a 32-byte sector so that no written sector is shared
between blocks (K), over several tile shapes and three shapes (both sides, reads only,
neither misaligned); each checked bit for bit, then timed beside cudaMemcpy. Not a test.
On the GPU machine, from the repository root:

    python3 dev/experiments/misaligned_skew.py
"""
import sys
import numpy as np, cupy as cp
sys.path.insert(0, "benchmarks")
import copy_bench as cb

memcpy = cb.memcpy_tbps(1 << 30)
print(f"memcpy {memcpy:.3f} TB/s", flush=True)
rows = []

SRC = r'''
#define WARPS (THREADS / 32)
extern "C" __global__ void __launch_bounds__(THREADS) k(const float* __restrict__ src, float* __restrict__ dst) {
  extern __shared__ __align__(16) float sm[];
  constexpr int P = TJ + 1, H = SKEW;            // smem row i (tile-local, from -H) at (i + H) * P
  const int i0 = blockIdx.x * TI - 0, j0 = blockIdx.y * TJ;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  constexpr int RI = (TI + H + WARPS - 1) / WARPS, QJ = TJ / 32;
  float v[RI][QJ];
  #pragma unroll
  for (int r = 0; r < RI; ++r) {
    const int i = w + r * WARPS - H, gi = i0 + i;
    #pragma unroll
    for (int q = 0; q < QJ; ++q) {
      const int j = 32 * q + lane;
      if (i < TI && gi >= 0 && gi < M && j0 + j < N) v[r][q] = src[gi * N + j0 + j];
    }
  }
  #pragma unroll
  for (int r = 0; r < RI; ++r) {
    const int i = w + r * WARPS - H, gi = i0 + i;
    #pragma unroll
    for (int q = 0; q < QJ; ++q) {
      const int j = 32 * q + lane;
      if (i < TI && gi >= 0 && gi < M && j0 + j < N) sm[(i + H) * P + j] = v[r][q];
    }
  }
  __syncthreads();
  constexpr int LI = TI / 32 + 1, RJ = TJ / WARPS;
  #pragma unroll
  for (int r = 0; r < RJ; ++r) {
    const int j = w + r * WARPS, gj = j0 + j;
    const int d = H ? ((gj * M + i0) & 7) : 0;   // run starts on a sector
    const int base = gj * M + i0 - d, a = base & ~31;
    #pragma unroll
    for (int q = 0; q < LI; ++q) {
      const int e = a + 32 * q + lane - base;       // 0..TI-1 along the run
      const int i = e - d;                           // tile-local i
      if (gj < N && e >= 0 && e < TI && i0 + i >= 0 && i0 + i < M) dst[a + 32 * q + lane] = sm[(i + H) * P + j];
    }
  }
}
'''

def hand(kind, m, n, ti, tj, threads):
    skew = 8 if kind == "K" else 0
    code = SRC
    for a, b in (("THREADS", threads), ("TI", ti), ("TJ", tj), ("SKEW", skew), ("M", m), ("N", n)):
        code = code.replace(a, str(b))
    f = cp.RawModule(code=code, options=("-std=c++17",)).get_function("k")
    smem = (ti + skew) * (tj + 1) * 4
    f.max_dynamic_shared_size_bytes = smem
    x = cp.asarray(np.random.default_rng(0).standard_normal((m, n)).astype(np.float32))
    y = cp.empty((n, m), np.float32)
    y.fill(np.nan)
    grid = (-(-(m + skew) // ti), -(-n // tj))
    go = lambda: f(grid, (threads,), (x, y), shared_mem=smem)
    go(); cp.cuda.Device().synchronize()
    ok = bool(cp.array_equal(y, x.T))
    t = cb.tbps(2 * m * n * 4, cb.median_ms(go))
    name = f"{kind} {m}x{n} tile {ti}x{tj} t{threads}"
    rows.append((name, t if ok else "WRONG", t / memcpy, f.num_regs if hasattr(f, "num_regs") else "", smem))
    print(name, t, t / memcpy, ok, flush=True)
    del x, y; cp.get_default_memory_pool().free_all_blocks()

for m, n in ((16381, 16411), (16384, 16411), (16384, 16384)):
    for ti, tj, th in ((256, 32, 256), (128, 64, 256), (256, 64, 512), (128, 128, 512), (512, 32, 512),
                       (64, 128, 256), (64, 64, 256), (128, 32, 256)):
        for kind in ("S", "K"):
            if m == 16384 and n == 16384 and kind == "K":
                continue
            try:
                hand(kind, m, n, ti, tj, th)
            except Exception as e:
                print(kind, ti, tj, th, "error", str(e)[:300], flush=True)
print("\n| variant | TB/s | ratio | regs | smem |\n|---|---|---|---|---|")
for n_, t, r, regs, sm in rows:
    print(f"| {n_} | {t if isinstance(t, str) else round(t, 3)} | {round(r, 3)} | {regs} | {sm} |")
