"""Consumer warpgroups of 128 rows (`gemm_hopper_ws(consumer_rows=128)`,
`GemmConfig.consumer_rows`, named `:w128`): a 256-row tile over two consumer warpgroups,
each issuing a K step's wgmma for both of its m64 row blocks; 160 columns as chunks of
32 issued as one m64n160k16 (`one_wgmma`, a 64-byte swizzle). On the reference
executor at odd shapes against float64, after the default pipeline, output poisoned
(block rows and columns past M and N, K past its steps, a run-time M, bias + SiLU +
residual, alone and in pairs sharing A or B); C's chunks stored as row halves through two
buffers (`half_stores`); NVRTC + ptxas without spills at 3000 x 5000 x 7000 and gate_up's
8192 x 28672 x 4096; the refusals."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

EPILOGUE = Epilogue(bias=True, activation="silu", residual=True)
W160 = gemm.GemmConfig("256x160x64:4:c32:ow:w128", 256, 160, 64, 4, efficiency=0.0, chunk=32, one_wgmma=True,
                       consumer_rows=128)
W128 = dataclasses.replace(W160, name="256x128x64:4:c64:w128", bn=128, chunk=64, one_wgmma=False)
W192 = dataclasses.replace(W160, name="256x192x64:3:c64:ow:w128", bn=192, chunk=64, stages=3)


def _kwargs(config, cluster=(1, 1), persistent: int = 4) -> dict:
    """The configuration's generator keywords at 2 stages (the executor's time), over
    `persistent` blocks; with a cluster, each block its part of every shared box."""
    c = dataclasses.replace(config, stages=2, cluster=cluster, box_parts=cluster != (1, 1))
    return {**c.kwargs(persistent), "persistent": persistent}


def _wgmma(module) -> set[str]:
    run_pipeline(module, "default")
    return set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", emit(module, "cuda")))


@pytest.mark.parametrize("config,cluster,wide", [
    (W160, (1, 1), "m64n160k16"), (W160, (1, 2), "m64n160k16"), (W160, (2, 1), "m64n160k16"),
    (W128, (1, 1), "m64n64k16"), (W192, (1, 2), "m64n192k16"),
])
def test_128_row_consumers_at_odd_shapes(config, cluster, wide):
    """264 x (2 bn + 24) x 136: 2 block rows of 256 (the second 8 rows: its warpgroups'
    second row blocks wholly past M), 3 block columns (the last 24 wide), 3 K steps of
    64 (the last 8 deep) in trips of 2; the epilogue; a static M; lowered."""
    m, n, k = 264, 2 * config.bn + 24, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **_kwargs(config, cluster))
    assert _wgmma(module) == {wide}
    ops = _operands(m, n, k, EPILOGUE, seed=n)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("cluster", [(1, 1), (1, 2)])
def test_128_row_consumers_with_the_arrival_after_the_loads(cluster):
    """The 256 x 160 tile with the producer's arrival after each stage's copies (`arrive_last`,
    `:al`, cuBLAS's order), alone and in pairs sharing A (each block half of A's boxes), in
    groups of 4 block rows, at 264 x 344 x 136 as above; lowered: the arrival follows the
    stage's last copy."""
    m, n, k = 264, 344, 136
    config = dataclasses.replace(W160, arrive_last=True, group=4, skip_padding=True)
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **_kwargs(config, cluster))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    # the producer's TMA loads (c) and its arrivals expecting a stage's bytes (A), in the code's order:
    # each stage's arrival after its copies ("...cccA"; without `arrive_last`, "Acccccc...")
    events = sorted([(x.start(), "c") for x in re.finditer(r"cp\.async\.bulk\.tensor\.2d\.shared", cuda)]
                    + [(x.start(), "A") for x in re.finditer(
                        r"tilec_mbarrier_arrive_expect_tx\(reinterpret_cast<unsigned long long\*>\(\w+\), [1-9]\w*\)",
                        cuda)])
    order = "".join(e for _, e in events)
    assert order.endswith("cA") and order.count("A") == 2 and not order.startswith("A"), order
    ops = _operands(m, n, k, EPILOGUE, seed=n + 1)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("cluster", [(1, 1), (1, 2)])
def test_half_stores_at_odd_shapes(level, cluster):
    """`half_stores`: 392 x 344 x 136 (a second block row of 136 rows: its second half wholly
    past M, its first half 8 rows), every chunk's halves split with no data moving (the
    renaming of registers), two TMA stores a chunk; before and after the pipeline."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, half_stores=True, **_kwargs(W160, cluster))
    if level == "lowered":
        run_pipeline(module, "default")
        cuda = emit(module, "cuda")
        assert cuda.count("convert_layout in registers: a renaming of registers") == 5
        assert "stmatrix" in cuda
    ops = _operands(m, n, k, EPILOGUE, seed=m)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("half", [False, True])
def test_one_program_serves_every_m_with_b_kmajor(half):
    """A run-time M (the grid from it) at M = 8, 200, 392 (a row block of 64 in the
    second warpgroup's first), B K-major (a torch.nn.Linear weight), pairs sharing A;
    `half`: C's chunks as row halves (`half_stores`), 3 K steps in trips of 2 (the 4th skipped)."""
    n, k = 184, 136 if half else 72
    module = gemm_hopper_ws(None, n, k, epilogue=EPILOGUE, b_kmajor=True, half_stores=half, skip_padding=half,
                            **_kwargs(W160, (1, 2), persistent=2))
    assert _wgmma(module) == {"m64n160k16"}
    for m in (8, 200, 392):
        ops = _operands(m, n, k, EPILOGUE, seed=m)
        _check(_run(module, m, n, EPILOGUE, ops, b_kmajor=True), ops, EPILOGUE)


@pytest.mark.parametrize("shape,name,epilogue", [
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:cl1x2:bp", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:cl1x2:bp:sp:hs", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:al", EPILOGUE),
    ((8192, 28672, 4096, True), "256x160x64:4:c32:ow:w128:cl1x2:bp", EPILOGUE),
    ((8192, 28672, 4096, True), "256x192x64:3:c64:ow:w128:cl1x2:bp", Epilogue()),
])
def test_the_128_row_kernels_compile_without_spills(shape, name, epilogue):
    """The measured kernels (run-time M): NVRTC + ptxas for sm_90a without spills (160
    f32 accumulator registers a thread under `setmaxnreg` 232 with the widest epilogue;
    256 x 192's 192 plain: with bias + SiLU + residual it spills 176 bytes) and without
    ptxas's warnings (wgmma serialised)."""
    from tilec.runtime.nvrtc import resource_usage

    m, n, k, kmajor = shape
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config(name)
    assert config.consumer_rows == 128 and config.kwargs(132)["consumer_rows"] == 128
    assert config.smem_bytes() <= 232448
    key = gemm.MatmulKey(config, n, k, "bf16", epilogue, 132, kmajor, gemm.index_bits(m, n, k, config))
    module = gemm.matmul_program(key)
    run_pipeline(module, "default")
    result = compile_sm90_or_skip(emit(module, "cuda"))
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0
    assert not re.search(r"ptxas.*warning|C7\d\d\d", result.log)


@pytest.mark.parametrize("kw", [{"consumer_rows": 96}, {"consumer_rows": 128, "bm": 192},
                                {"consumer_rows": 128, "pingpong": True},
                                {"consumer_rows": 128, "tma_epilogue": False},
                                {"consumer_rows": 128, "overlap_epilogue": True}])
def test_128_row_consumers_refuse_what_they_do_not_do(kw):
    with pytest.raises(ValueError, match="consumer_rows"):
        gemm_hopper_ws(264, 392, 136, **{**_kwargs(W128), **kw})


@pytest.mark.parametrize("kw", [{}, {"consumer_rows": 64, "bm": 128}])
def test_half_stores_need_128_row_consumers_on_256_rows(kw):
    args = {**_kwargs(W128), "half_stores": True, **kw}
    if not kw:
        args["consumer_rows"] = 64
    with pytest.raises(ValueError, match="half_stores"):
        gemm_hopper_ws(264, 392, 136, **args)


def test_chunks_of_32_need_one_wgmma():
    with pytest.raises(ValueError, match="multiple of 64"):
        gemm_hopper_ws(264, 392, 136, **{**_kwargs(W160), "one_wgmma": False})
