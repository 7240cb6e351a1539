"""One `layout.dot` as a program (`one_dot`) and the cases the accelerate-matmul tests
run it at (tests/unit/test_accelerate_matmul.py on the executor,
tests/gpu/test_dot_gpu.py on the GPU)."""

from __future__ import annotations

import tilec

ONE_DOT_CASES = [
    (16, 8, 16, 1, "f16", "sm_80", "loaded"),
    (32, 32, 32, 4, "bf16", "sm_80", "computed"),
    (128, 64, 16, 8, "f16", "sm_80", "loaded"),
    (64, 16, 64, 4, "bf16", "sm_90a", "loaded"),
    (64, 64, 32, 4, "f16", "sm_90a", "computed"),  # wgmma with A from registers
    (128, 32, 16, 8, "bf16", "sm_90a", "computed"),
    (64, 256, 16, 4, "bf16", "sm_90a", "loaded"),
    (32, 32, 16, 4, "bf16", "sm_90a", "loaded"),  # M < 64: mma.sync on Hopper
    (16, 16, 8, 1, "bf16", "sm_80", "loaded"),  # K < 16: the FMA loop
    (32, 64, 16, 2, "f32", "sm_80", "computed"),
]
"""(M, N, K, warps, operand dtype, target, operands "loaded" or "computed")."""


def _blocked(rows: int, cols: int, warps: int, element_bytes: int):
    """examples/python/gemm_dot.py's tile layout: 16-byte vectors along the rows, lanes
    across, warps down."""
    v = min(cols, 16 // element_bytes)
    across = min(32, cols // v)
    return tilec.BlockedLayout([1, v], [32 // across, across], [warps, 1], [1, 0])


def one_dot(m: int, n: int, k: int, warps: int, dtype: str, target: str, operands: str):
    """One `layout.dot` of an `m x k` and a `k x n` tile into an f32 accumulator read
    from and written back to C; `operands` "loaded" (straight from their loads: copied)
    or "computed" (doubled in registers first: stored)."""
    eb = 4 if dtype == "f32" else 2
    p = tilec.Program("one_dot")
    A = p.view(p.pointer("pa", dtype, align=16), f"({m},{k}):({k},1)")
    B = p.view(p.pointer("pb", dtype, align=16), f"({k},{n}):({n},1)")
    C = p.view(p.pointer("pc", "f32", align=16), f"({m},{n}):({n},1)")
    la, lb = _blocked(m, k, warps, eb), _blocked(k, n, warps, eb)
    lc = _blocked(m, n, warps, 4)
    with p.launch(threads=32 * warps):
        a, b = p.load(A, la), p.load(B, lb)
        if operands == "computed":
            a, b = a + a, b + b
        p.store(p.dot(a, b, p.load(C, lc)), C)
    from tilec.support.target import set_target

    set_target(p.module, target)
    return p.module
