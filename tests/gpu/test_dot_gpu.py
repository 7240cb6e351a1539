"""On the GPU: the plain-loop GEMM of examples/python/gemm_dot.py (tile loads and
`layout.dot`), lowered by `accelerate-matmul` for each target — wgmma (sm_90a, and
the default target), mma.sync (sm_80: its code runs on Hopper too), the FMA loop (f32)
— gives torch's A @ B in float64 within the bound of f32 accumulation of exact
products; C poisoned with NaN before the launch."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_dot  # noqa: E402
from helpers.dot_programs import ONE_DOT_CASES, one_dot  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

INSTR = {"sm_80": "mma.sync.aligned.m16n8k16", "sm_90a": "wgmma.mma_async", None: "wgmma.mma_async"}


@pytest.mark.parametrize("dtype", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("target", ["sm_80", "sm_90a", None])
@pytest.mark.parametrize("shape", [(512, 384, 256), (1024, 1024, 1024)])
def test_dot_gemm_matches_torch(target, dtype, shape):
    torch = pytest.importorskip("torch")
    m, n, k = shape
    tdt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype]
    kernel = tilec.compile(gemm_dot.gemm_dot(m, n, k, dtype=dtype, target=target))
    if dtype == "f32":
        assert "mma" not in kernel.source and "for (int dot_k" in kernel.source
    else:
        assert INSTR[target] in kernel.source
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(tdt)
    b = torch.randn(k, n, device="cuda", generator=g).to(tdt)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    kernel(a, b, c)
    torch.cuda.synchronize()
    a64, b64 = a.double().cpu().numpy(), b.double().cpu().numpy()
    got = c.double().cpu().numpy()
    assert np.isfinite(got).all()
    ok, err = gemm_dot.check(got, a64, b64, k)
    assert ok, f"max error {err:.3g}"



def _run_and_check(torch, kernel, m: int, n: int, k: int, seed: int) -> None:
    """`kernel(a, b, c)` on random bf16 A (m x k) and B (k x n) into a NaN-poisoned f32 C,
    checked by `gemm_dot.check` (the product in float64 within its bound)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    kernel(a, b, c)
    torch.cuda.synchronize()
    ok, err = gemm_dot.check(c.double().cpu().numpy(), a.double().cpu().numpy(), b.double().cpu().numpy(), k)
    assert ok, f"max error {err:.3g}"

@pytest.mark.parametrize(("target", "tiles"), [
    (t, tiles) for t in ("sm_80", "sm_90a") for tiles in ((64, 128, 32, 8), (64, 64, 32, 4), (256, 128, 32, 8))
] + [("sm_90a", (128, 256, 64, 8))])
def test_dot_gemm_tiles_match_torch(target, tiles):
    """Other block tiles and warp counts: warpgroups along N (64 x 128 on 8 warps), 4
    warps, 256 rows on 8 warps, 256-wide wgmma (its 128 KiB accumulator conversion
    for the store needs Hopper's shared memory)."""
    torch = pytest.importorskip("torch")
    bm, bn, bk, warps = tiles
    m, n, k = 512, 512, 256
    kernel = tilec.compile(gemm_dot.gemm_dot(m, n, k, bm, bn, bk, warps, target=target))
    assert INSTR[target] in kernel.source
    _run_and_check(torch, kernel, m, n, k, seed=7)


def test_gemm_dot_example_runs_on_the_gpu():
    pytest.importorskip("torch")
    import subprocess

    for args in ([], ["--target", "sm_80"], ["--dtype", "f32"]):
        proc = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "gemm_dot.py"), *args],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "on the GPU (torch tensors): within the f32-accumulation bound" in proc.stdout


@pytest.mark.parametrize(("m", "n", "k", "warps", "dtype", "target", "operands"), ONE_DOT_CASES)
def test_one_dot_matches_numpy_on_the_gpu(m, n, k, warps, dtype, target, operands):
    """Each single-dot case of the executor tests, on the GPU: C + A' @ B' (A' = A or
    2A, B' likewise) within the bound of f32 accumulation, bit for bit for f32 (the FMA
    loop rounds as NumPy's sequential sum does)."""
    import cupy as cp

    from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

    rng = np.random.default_rng(m * n + k)

    def operand(shape):
        x = rng.uniform(-2, 2, shape).astype(np.float32)
        if dtype == "bf16":
            bits = f32_to_bf16(x)
            return bits, bf16_to_f32(bits).astype(np.float32)
        y = x.astype(np.float16 if dtype == "f16" else np.float32)
        return y, y.astype(np.float32)

    a, a32 = operand((m, k))
    b, b32 = operand((k, n))
    c = rng.uniform(-4, 4, (m, n)).astype(np.float32)
    if operands == "computed":
        a32, b32 = a32 + a32, b32 + b32
    kernel = tilec.compile(one_dot(m, n, k, warps, dtype, target, operands))
    dc = cp.asarray(c.reshape(-1))
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n)
    if dtype == "f32":
        want = c.copy()
        for kk in range(k):
            want = (want + (a32[:, kk:kk + 1] * b32[kk:kk + 1, :]).astype(np.float32)).astype(np.float32)
        assert np.array_equal(got, want)
    else:
        from tilec.dialects.layout_mma import mma_error_bound

        a64, b64 = a32.astype(np.float64), b32.astype(np.float64)
        gamma, _ = mma_error_bound(k, dtype)
        bound = 2 * gamma * (np.abs(c) + np.abs(a64) @ np.abs(b64))
        assert (np.abs(got - (c + a64 @ b64)) <= bound).all()


@pytest.mark.parametrize("tiles", [(128, 256, 64, 8, 3), (128, 256, 32, 8, 4), (128, 256, 64, 8, 2),
                                   (128, 128, 32, 8, 3), (128, 128, 32, 4, 3)])
def test_sm_80_pipelined_tiles_match_torch(tiles):
    """The sm_80 plain loop with `num_stages` through the default pipeline (a cp.async
    ring, rolled; mma.sync one 16-deep K slice at a time, no barrier in a step's
    compute): the 128x256 tiles store C straight from the mma.sync layout (their ring
    leaves no room for the round trip), the 128x128 ones through shared memory. K = 448
    makes 7 or 14 steps, no multiple of 3 or 4 stages (the unrolled form's peeled
    partial round: test_sm_80_prefetched_tiles_match_torch's `unrolled`)."""
    torch = pytest.importorskip("torch")
    bm, bn, bk, warps, stages = tiles
    m, n, k = 512, 512, 448
    kernel = tilec.compile(gemm_dot.gemm_dot(m, n, k, bm, bn, bk, warps, target="sm_80", stages=stages))
    assert INSTR["sm_80"] in kernel.source and "cp.async.cg.shared.global" in kernel.source
    _run_and_check(torch, kernel, m, n, k, seed=11)


PREFETCH_VARIANTS = {
    "rotate": {"software-pipeline": "software-pipeline{rolled=false}",
               "prefetch-operands": "prefetch-operands{rotate=true}"},
    "unrolled": {"software-pipeline": "software-pipeline{rolled=false}"},
    "rolled": {"software-pipeline": "software-pipeline{rolled=true}"},
    "off": {"prefetch-operands": "prefetch-operands{enabled=false}"},
    "unrolled-off": {"software-pipeline": "software-pipeline{rolled=false}",
                     "prefetch-operands": "prefetch-operands{enabled=false}"},
    "rolled-grouped": {"software-pipeline": "software-pipeline{rolled=true}", "order-grid": "order-grid{group=8}"},
}
"""The default pipeline with `prefetch-operands` (and `software-pipeline`, `order-grid`)
given these options: the variants benchmarks/gemm_dot_bench.py compares (the default
rolls these cp.async loops: `rolled=false` keeps the unrolled form tested)."""


@pytest.mark.parametrize("variant", sorted(PREFETCH_VARIANTS))
@pytest.mark.parametrize("tiles", [(128, 256, 64, 8, 3), (128, 256, 32, 8, 4), (128, 128, 32, 4, 2)])
def test_sm_80_prefetched_tiles_match_torch(tiles, variant):
    """`prefetch-operands` variants of the pipelined sm_80 loop (the next step's first
    ldmatrix before the last mma.sync; across the back edge with rotate=true, the rolled
    ring of software-pipeline{rolled=true}): C within the bound, K = 448 so that the
    unrolled forms peel a partial round."""
    torch = pytest.importorskip("torch")
    from tilec.compiler.pipeline import NAMED_PIPELINES

    bm, bn, bk, warps, stages = tiles
    m, n, k = 512, 512, 448
    swap = PREFETCH_VARIANTS[variant]
    pipeline = ",".join(swap.get(p, p) for p in NAMED_PIPELINES["default"].split(","))
    kernel = tilec.compile(gemm_dot.gemm_dot(m, n, k, bm, bn, bk, warps, target="sm_80", stages=stages), pipeline)
    assert INSTR["sm_80"] in kernel.source and "cp.async.cg.shared.global" in kernel.source
    _run_and_check(torch, kernel, m, n, k, seed=13)


@pytest.mark.parametrize(("shape", "persistent", "group"), [
    ((1024, 1024, 1024), 0, 1), ((1024, 768, 2048), 0, 1), ((1024, 1024, 1024), 132, 1), ((2048, 1536, 512), 132, 8),
])
def test_warp_specialized_dot_gemm_matches_torch(shape, persistent, group):
    """The Triton-form loop with `warp_specialize=True` (and `persistent`, grouped order):
    the default pipeline's `warp-specialize{marked=true}` makes the producer/consumer
    schedule, split-accumulator and tma-epilogue its 128-column chunks stored by TMA; C
    bf16, poisoned with NaN, checked against float64 within the bound of f32
    accumulation plus the bf16 rounding of C."""
    torch = pytest.importorskip("torch")
    m, n, k = shape
    program = gemm_dot.gemm_dot(m, n, k, bm=128, bn=256, bk=64, warps=8, stages=4, target="sm_90a",
                                out_dtype="bf16", warp_specialize=True, persistent=persistent, group=group)
    kernel = tilec.compile(program, arch="sm_90a")
    assert "setmaxnreg" in kernel.source and "stmatrix" in kernel.source
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, device="cuda", generator=g).to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(a, b, c)
    torch.cuda.synchronize()
    a64, b64 = a.double().cpu().numpy(), b.double().cpu().numpy()
    got = c.double().cpu().numpy()
    assert np.isfinite(got).all()
    from tilec.dialects.layout_mma import mma_error_bound

    gamma, _ = mma_error_bound(k, "bf16")
    want = a64 @ b64
    acc = 2 * gamma * (np.abs(a64) @ np.abs(b64))  # f32 accumulation (gemm_dot.check's bound)
    err = np.abs(got - want)
    # and C's rounding to bf16: half an ulp, 2^-8 of the accumulated value's magnitude
    assert (err <= acc + (np.abs(want) + acc) * 2.0**-8).all(), f"max error {err.max():.3g}"
