"""wgmma's operand addresses are fitted to a descriptor once for each set of static
facts (`lower_to_gpu.wgmma._fit_parts`): a GEMM's stages and K steps repeat them (the
3000 x 5000 x 7000 kernel: 20 fits for 160 operands, a third of `lower-to-gpu`'s time
before). The CUDA is the CUDA of a fit for every operand."""

from __future__ import annotations

import pytest

from tilec.gemm import MatmulKey, choose_config, index_bits, matmul_program
from tilec.gemm_programs import Epilogue
from tilec.compiling import compile_program
from tilec.passes.lower_to_gpu import wgmma


def cuda(m: int, n: int, k: int, kmajor: bool = False) -> str:
    c = choose_config(m, n, 132, k=k, b_kmajor=kmajor)
    key = MatmulKey(c, n, k, "bf16", Epilogue(), 132, kmajor, index_bits(m, n, k, c))
    return compile_program(matmul_program(key), "default", fresh=True).source


@pytest.mark.parametrize("shape", [(512, 512, 512, False), (128, 6144, 4096, True)])
def test_the_fits_are_shared_and_the_cuda_is_the_same(shape, monkeypatch):
    wgmma._fit_parts.cache_clear()
    memoised = cuda(*shape)
    info = wgmma._fit_parts.cache_info()
    assert info.hits > info.misses > 0
    monkeypatch.setattr(wgmma, "_fit_parts", wgmma._fit_parts.__wrapped__)
    assert cuda(*shape) == memoised
