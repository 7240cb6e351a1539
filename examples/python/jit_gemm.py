"""A small GEMM as a @tilec.jit kernel: C = A @ B for f16 A, B into f32 C, on tensor
cores (mma.sync m16n8k16), with run-time M, N, K (docs/python-kernels.md).

Each program computes a BM x BN tile of C. The accumulator lives in registers in an
`NvidiaMmaLayout` (2 x 2 warps of 16 x 8 instructions); the operands are loaded
straight from global memory into its dot-operand layouts, one BK slice of K per trip
of a run-time `tilec.range` loop that carries the accumulator. Tiles past the edges
are masked (their missing elements read as 0). For speed, stage the operands in shared
memory with cp.async or TMA and ldmatrix / wgmma, as examples/python/gemm_bf16.py and
gemm_bf16_hopper.py do.

    python examples/python/jit_gemm.py
"""

import numpy as np

import tilec


@tilec.jit
def gemm(a, b, c, BM: tilec.constexpr, BN: tilec.constexpr, BK: tilec.constexpr):
    acc_layout = tilec.NvidiaMmaLayout(2, [2, 2], [16, 8])
    a_layout = tilec.DotOperandLayout(0, acc_layout, 2)
    b_layout = tilec.DotOperandLayout(1, acc_layout, 2)
    m, n = tilec.program_id(0), tilec.program_id(1)
    acc = tilec.zeros([BM, BN], "f32", acc_layout)
    for k in tilec.range(0, tilec.cdiv(a.shape[1], BK), carry=[acc]):
        x = tilec.load(tilec.tile(a, (m, k), (BM, BK)), a_layout)
        y = tilec.load(tilec.tile(b, (k, n), (BK, BN)), b_layout)
        acc.assign(tilec.dot(x, y, acc))
    tilec.store(tilec.tile(c, (m, n), (BM, BN)), acc)


M, N, K = 100, 72, 90
A = (np.arange(M * K) % 7 - 3).astype(np.float16).reshape(M, K)   # small integers: exact products and sums
B = (np.arange(K * N) % 5 - 2).astype(np.float16).reshape(K, N)
want = A.astype(np.float32) @ B.astype(np.float32)
grid = (tilec.cdiv(M, 32), tilec.cdiv(N, 32))
if tilec.gpu_available():
    import cupy as cp

    C = cp.zeros((M, N), cp.float32)
    gemm[grid](cp.asarray(A), cp.asarray(B), C, BM=32, BN=32, BK=16)
    got, where = cp.asnumpy(C), "on the GPU"
else:
    got = np.zeros((M, N), np.float32)
    gemm[grid](A, B, got, BM=32, BN=32, BK=16)
    where = "on the CPU reference executor"
print(f"C = A @ B, {M}x{K} @ {K}x{N} f16 -> f32, {where}: {'Success' if np.array_equal(got, want) else 'FAILED'}")
