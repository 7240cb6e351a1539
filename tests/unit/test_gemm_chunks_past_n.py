"""Column chunks wholly past N (found by tests/fuzz/test_gemm_options.py, session 37):
where N is a multiple of the chunk but not of the tile (`128x192x64:5:c64` at N = 256 or
2176, which `choose_config` takes for M = 1024, K = 4096; 128 x 256 in chunks of 64 at N
= 320), the last block column's chunks past N are whole tiles past the end, and
N's extent divides by the chunk, so the views' tiles were not masked: the bias (tilec.matmul's
run-time M) was read past its end (`%pbias[256]` of 256, on the GPU a read 256 bytes past the
vector), and with a static M the residual (and C) too. `_program` now gives those views a
run-time N (a constant), their chunk tiles masked. On the reference executor, at the layout
level and after the default pipeline, output poisoned, within the bound of float64.
Block-scaled FP8 read B's scale block past its last (`%pscale_b[6]` of 6) for such a
chunk: its block is clipped at N's last, as a cluster's block column past N was."""

from __future__ import annotations

import numpy as np
import pytest
from test_gemm_fp8_block import _run_and_check
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

TILE_192 = {"bm": 128, "bn": 192, "bk": 64, "stages": 2, "chunk": 64, "persistent": 2}
TILE_256 = {"bm": 64, "bn": 256, "bk": 64, "stages": 2, "chunk": 64, "persistent": 2}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("tile,n", [(TILE_192, 256), (TILE_256, 320)])
def test_the_bias_of_chunks_past_n(level, tile, n):
    """A run-time M (tilec.matmul's programs): the bias's chunk tiles past N masked."""
    ep = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")
    m, k = 72, 64
    module = gemm_hopper_ws(None, n, k, epilogue=ep, **tile)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=n)
    _check(_run(module, m, n, ep, ops), ops, ep)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_c_and_the_residual_of_chunks_past_n_at_a_static_m(level):
    """M static and a multiple of the tile's rows: C's and the residual's chunk tiles past N
    masked (before: the residual read at `%pres[32768]` of 32768, C's stores past its rows)."""
    ep = Epilogue(residual=True, out_dtype="f16")
    m, n, k = 128, 256, 64
    module = gemm_hopper_ws(m, n, k, epilogue=ep, **TILE_192)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=1)
    _check(_run(module, m, n, ep, ops, dynamic_m=False), ops, ep)


def test_only_programs_with_chunks_past_n_change():
    """N a multiple of the tile, or not of the chunk (a partial chunk: masked already):
    the views keep N static (the CUDA of every other program as before)."""
    ep = Epilogue(bias=True)
    for n, past in ((384, False), (392, False), (256, True)):
        module = gemm_hopper_ws(None, n, 64, epilogue=ep, **TILE_192)
        assert ('"npast"' in str(module) or "npast" in str(module)) == past, n
        if not past:
            run_pipeline(module, "default")
            assert emit(module, "cuda")


def test_static_m_tma_epilogue_with_chunks_past_n():
    """The TMA epilogue's C (the global side of its stores) with a run-time N, M static."""
    ep = Epilogue(residual=True)
    m, n, k = 128, 256, 64
    module = gemm_hopper_ws(m, n, k, epilogue=ep, tma_epilogue=True, **TILE_192)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=2)
    got = _run(module, m, n, ep, ops, dynamic_m=False)
    assert not np.isnan(got).any()
    _check(got, ops, ep)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("chunk,dynamic_m", [(64, True), (128, False)])
def test_block_scales_of_chunks_past_n(level, chunk, dynamic_m):
    """f8b 64 x 256 in chunks of 64 or 128 at N = 384 (3 blocks of B's scales): the
    second block column's chunks past N read the last block's scales (before: block 3)."""
    m, n, k = 70, 384, 256
    ep = Epilogue(bias=True)
    module = gemm_hopper_ws(None if dynamic_m else m, n, k, bm=64, bn=256, bk=128, stages=2, chunk=chunk,
                            persistent=2, dtype="f8E4M3FN", b_kmajor=True, block_scales=True, epilogue=ep)
    _run_and_check(module, m, n, k, "f8E4M3FN", level, ep, dynamic_m)
