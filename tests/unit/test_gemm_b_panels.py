"""B's stage tile as 128-byte swizzled panels and one box of the chunk left
(`gemm_hopper_ws(b_panels=True)`, `GemmConfig.b_panels`, named `:wb`): the 256 x 160 tile
(chunks of 32, `one_wgmma`, 128-row consumers) reads B's 64 x 160 tile as two boxes of 64
columns (a 128-byte swizzle) and one of 32 (64-byte) instead of five of 32, and issues
one m64n128k16 and one m64n32k16 a row block and K step instead of one m64n160k16. On the
reference executor at odd shapes against float64 (block columns past N, K past its steps,
bias + SiLU + residual, alone and in pairs sharing A), the boxes and wgmma in the CUDA;
NVRTC + ptxas without spills at 3000 x 5000 x 7000; the refusals."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_gemm_consumer_rows import EPILOGUE, W160, _kwargs
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import gemm_hopper_ws

PANELS = dataclasses.replace(W160, name="256x160x64:4:c32:ow:w128:wb", b_panels=True, skip_padding=True)


@pytest.mark.parametrize("bm,bn,cluster,wgmma", [(256, 160, (1, 1), {"m64n128k16", "m64n32k16"}),
                                                  (256, 160, (1, 2), {"m64n128k16", "m64n32k16"}),
                                                  (256, 192, (1, 1), {"m64n192k16"}),
                                                  (192, 160, (1, 1), {"m64n128k16", "m64n32k16"})])
def test_b_panels_at_odd_shapes(bm, bn, cluster, wgmma):
    """264 x (2 bn + 24) x 136: 2 block rows of bm (256: the second 8 rows; 192: 72, its third consumer's
    rows wholly past M), 3 block columns (the
    last 24 wide: its later panels and boxes wholly past N; the middle one, odd, with the
    chunk left first), 3 K steps (the last 8 deep); the epilogue; lowered: B's boxes of 64
    columns (and one of 32), the wgmma shapes (bn 192: three whole panels, one wgmma)."""
    m, n, k = 264, 2 * bn + 24, 136
    config = dataclasses.replace(PANELS, bm=bm, bn=bn, consumer_rows=128 if bm == 256 else 64)
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **_kwargs(config, cluster))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", cuda)) == wgmma
    boxes = re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared", cuda)
    assert boxes, "no TMA loads"
    ops = _operands(m, n, k, EPILOGUE, seed=n + 2)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


FILLED = dataclasses.replace(PANELS, name="256x160x64:3:c32:ow:w128:wbf", stages=3, b_fill=True)


def test_b_fill_at_odd_shapes():
    """`b_fill` (`:wbf`): the chunk left into a third 128-byte panel (its box's rows padded, `TmaGeometry.pad`), one
    m64n160k16 over the three panels; 136 x 344 x 72 (one block row, its last 120 rows past M; the odd block
    column's chunk left its first chunk, the last block column's boxes past N; 2 K steps, the last 8 deep), in
    pairs sharing A (the rule's), the lowered kernel on the executor against float64 (the padded box's rows
    128 bytes apart). ~4 s: the default pipeline of the whole kernel, then the
    executor's 3 tiles of 256 x 160."""
    m, n, k = 136, 344, 72
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **_kwargs(FILLED, (1, 2)))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", cuda)) == {"m64n160k16"}
    assert "box 32x64 (dims [1, 0] of the view), its rows padded x2 to the swizzle row, swizzle 128B, 4096 bytes" in cuda
    ops = _operands(m, n, k, EPILOGUE, seed=n + 3)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


def test_b_fill_needs_a_chunk_left():
    """Without b_panels, or with whole panels (bn 192), there is no chunk left to pad."""
    with pytest.raises(ValueError, match="b_fill"):
        gemm_hopper_ws(264, 392, 136, **{**_kwargs(FILLED), "b_panels": False})
    with pytest.raises(ValueError, match="b_fill"):
        gemm_hopper_ws(264, 408, 136, **{**_kwargs(dataclasses.replace(FILLED, bn=192))})


def test_b_panels_compile_without_spills():
    """The measured kernel at 3000 x 5000 x 7000 (run-time M, bias + SiLU + residual): NVRTC +
    ptxas for sm_90a without spills or ptxas's warnings (wgmma serialised; `:wbf`'s: tests/gpu
    `test_b_fill`)."""
    name = "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:wb"
    from tilec.runtime.nvrtc import resource_usage

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config(name)
    assert config.b_panels and config.kwargs(132)["b_panels"] and config.b_fill == name.endswith("wbf")
    key = gemm.MatmulKey(config, 5000, 7000, "bf16", EPILOGUE, 132, False, gemm.index_bits(3000, 5000, 7000, config))
    module = gemm.matmul_program(key)
    run_pipeline(module, "default")
    result = compile_sm90_or_skip(emit(module, "cuda"))
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0
    assert not re.search(r"ptxas.*warning|C7\d\d\d", result.log)


@pytest.mark.parametrize("kw", [{"one_wgmma": False, "chunk": 32}, {"b_kmajor": True}, {"cluster": (2, 1)},
                                {"bn": 64, "chunk": 32}])
def test_b_panels_refuse_what_they_do_not_do(kw):
    """Without one_wgmma, B K-major, B's boxes shared (cm > 1), bn within one panel."""
    with pytest.raises(ValueError, match="b_panels|one_wgmma"):
        gemm_hopper_ws(264, 392, 136, **{**_kwargs(PANELS), **kw})
