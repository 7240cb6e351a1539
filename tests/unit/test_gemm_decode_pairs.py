"""The unswapped decode tile of M's halves (issue 39, dec39): 64 rows of M by 96 columns of N
(one wgmma of n96 over three 32-column chunks, `one_wgmma`), the weight K-major (`w.t()`), the
two blocks of M's halves in a thread-block cluster sharing the weight's stages (multicast along
the cluster's column, `cluster=(2, 1)`), a deep ring with the last trip's padded steps skipped:
cuBLAS's `96x64_64x10_1x2` decode kernel at Llama's QKV, M = 128 (H200, benchmarks/NOTES.md,
dec39). On the reference executor against float64 (poisoned output), at a run-time M over one
and two block rows and N past the last tile."""

from __future__ import annotations

import pytest
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

PLAIN = Epilogue()
TILE = {"bm": 64, "bn": 96, "bk": 64, "chunk": 32, "one_wgmma": True, "b_kmajor": True, "tma_epilogue": True}


@pytest.mark.parametrize(("stages", "skip"), [(2, True), (4, False)])
def test_m_halves_in_pairs_sharing_the_weight(stages, skip):
    n, k = 200, 320  # 3 block columns, the last past N; 5 K steps: padded last trips
    module = gemm_hopper_ws(None, n, k, stages=stages, persistent=4, cluster=(2, 1), skip_padding=skip, **TILE)
    run_pipeline(module, "default")
    for m in (100, 64):
        ops = _operands(m, n, k, PLAIN, seed=m)
        _check(_run(module, m, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


def test_qkv_at_m_128_compiles_without_spills():
    """Llama's QKV (N 6144, K 4096) at M = 128: 10 stages of 64 x 96 + 64 x 64 (200 KiB) and a
    64 x 32 C buffer; NVRTC for sm_90a without spills."""
    from helpers.nvrtc import sm90_usage_or_skip

    from tilec.compiler.pipeline import emit
    from tilec.gemm import GemmConfig, MatmulKey, index_bits, matmul_program

    c = GemmConfig("64x96x64:10:c32:ow:cl2:sp", 64, 96, 64, 10, efficiency=0.0, chunk=32, one_wgmma=True,
                   cluster=(2, 1), skip_padding=True)
    assert c.smem_bytes() <= 227 * 1024
    key = MatmulKey(c, 6144, 4096, "bf16", PLAIN, 132, True, index_bits(128, 6144, 4096, c))
    module = matmul_program(key)
    run_pipeline(module, "default")
    usage = sm90_usage_or_skip(emit(module, "cuda"))
    assert usage.spill_stores == 0 and usage.spill_loads == 0
