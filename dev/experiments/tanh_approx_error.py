"""SiLU's two f32 evaluations of `Epilogue.apply` on the GPU against float64, read as
the cast's type sees them (issue 39: may the one-`MUFU` form h (1 + tanh h) replace
y / (1 + 2^(-y log2 e)) where the output is bf16?).

    python3 dev/experiments/tanh_approx_error.py

For 2^20 values y in each range (evenly spaced), `silu` (`ex2.approx.ftz.f32`,
`div.approx.ftz.f32`) and `silu_tanh` (h = y / 2, `tanh.approx.f32`, fma(h, t, h)),
computed with the PTX instructions `Epilogue.apply` lowers to. Per range: the largest
error relative to |silu(y)|, the largest error in halves of a bf16 ulp of silu(y), and
the fraction of elements whose bf16 (and f16) rounding differs from float64's
correctly rounded silu(y). An experiment: nothing of the product changes."""

from __future__ import annotations

import cupy as cp
import numpy as np

SRC = r"""
extern "C" __global__ void silu(const float* y, float* a, float* t, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        float v = y[i], e, d, r, h, th;
        float m = v * -1.4426950408889634f;
        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(m));
        d = e + 1.0f;
        asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(v), "f"(d));
        a[i] = r;
        h = v * 0.5f;
        asm("tanh.approx.f32 %0, %1;" : "=f"(th) : "f"(h));
        t[i] = __fmaf_rn(h, th, h);
    }
}
"""

RANGES = ((-88.0, -16.0), (-16.0, -8.0), (-8.0, -4.0), (-4.0, -2.0), (-2.0, -1.0), (-1.0, 0.0), (0.0, 1.0),
          (1.0, 4.0), (4.0, 88.0))


def rounded(x: np.ndarray, kind: str) -> np.ndarray:
    """`x` (float64) rounded to bf16 or f16 (to nearest even), as float64."""
    if kind == "f16":
        return x.astype(np.float16).astype(np.float64)
    f = x.astype(np.float32)  # bf16 from f32: round the low 16 bits to nearest even
    u = f.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def half_ulp_bf16(x: np.ndarray) -> np.ndarray:
    """Half of bf16's ulp at |x| (normal range)."""
    e = np.floor(np.log2(np.maximum(np.abs(x), 2.0**-126)))
    return 2.0 ** (e - 8)


def main() -> None:
    kern = cp.RawKernel(SRC, "silu")
    n = 1 << 20
    print("| y in | form | max rel. err | max err / half bf16 ulp | bf16 differs | f16 differs |")
    print("|---|---|---:|---:|---:|---:|")
    for lo, hi in RANGES:
        y32 = cp.linspace(lo, hi, n, dtype=cp.float32)
        a, t = cp.empty_like(y32), cp.empty_like(y32)
        kern((1024,), (256,), (y32, a, t, np.int64(n)))
        y = cp.asnumpy(y32).astype(np.float64)
        exact = y / (1.0 + np.exp(-y))
        nz = np.abs(exact) > 2.0**-120
        for name, got in (("silu", cp.asnumpy(a)), ("silu_tanh", cp.asnumpy(t))):
            g = got.astype(np.float64)
            err = np.abs(g - exact)
            rel = (err[nz] / np.abs(exact[nz])).max() if nz.any() else 0.0
            hu = (err[nz] / half_ulp_bf16(exact[nz])).max() if nz.any() else 0.0
            diffs = [float((rounded(g, k) != rounded(exact, k)).mean()) for k in ("bf16", "f16")]
            print(f"| [{lo:g}, {hi:g}] | {name} | 2^{np.log2(max(rel, 1e-300)):.2f} | {hu:.3g} | "
                  f"{diffs[0]:.2e} | {diffs[1]:.2e} |", flush=True)


if __name__ == "__main__":
    main()
