"""The 192-row tile (`gemm_hopper_ws(bm=192)`, named `192x160x64:...`): three consumer
warpgroups of 64 rows, a count that is not a power of two, in one region run apart by its
warpgroups (`warp_specialize warpgroups(3, 1) apart(0)`: one copy of the consumer's code,
`layout.warpgroup_index` picking its rows), each with its 64 rows' accumulator (one
`#layout.nvidia_mma` over all 12 of their warps would not be a linear layout), its rows
of the C buffer and its TMA stores meeting its own 128 threads (named barriers 1, 2, 3:
`bar.sync 1 + index, 128`). On the
reference executor at odd shapes against float64, after the default pipeline, output
poisoned (block rows past M, block columns past N, K past its steps, a run-time M, bias +
SiLU + residual, alone and in pairs sharing A or B); NVRTC + ptxas without spills at
4000^3 and 3000 x 5000 x 7000."""

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
T192 = gemm.GemmConfig("192x160x64:4:c32:ow:sp", 192, 160, 64, 4, efficiency=0.0, chunk=32, one_wgmma=True,
                       skip_padding=True)


def _kwargs(config, cluster=(1, 1), persistent: int = 4) -> dict:
    """The configuration's generator keywords at 2 stages (the executor's time), over
    `persistent` blocks; with a cluster, each block its part of every shared box."""
    c = dataclasses.replace(config, stages=2, cluster=cluster, box_parts=cluster != (1, 1))
    return {**c.kwargs(persistent), "persistent": persistent}


def _lowered(module) -> str:
    run_pipeline(module, "default")
    return emit(module, "cuda")


@pytest.mark.parametrize("cluster", [(1, 1), (1, 2), (2, 1)])
def test_three_consumer_regions_at_odd_shapes(cluster):
    """392 x 344 x 136: 3 block rows of 192 (the last 8 rows: its second and third
    consumers' rows wholly past M), 3 block columns (the last 24 wide), 3 K steps of 64
    (the last 8 deep) in trips of 2, the 4th skipped; the epilogue; a static M; lowered."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **_kwargs(T192, cluster))
    assert "layout.warp_specialize warpgroups(3, 1) apart(0)" in str(module)
    cuda = _lowered(module)
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k16)", cuda)) == {"m64n160k16"}
    # one copy of the consumers' code: its wgmma once (4 stages' in the loop, as 2 here)
    assert cuda.count("if (threadIdx.x < 384) {  // warpgroups 0..2") == 1
    # each consumer's TMA stores meet its own 128 threads: barrier 1 + its warpgroup's index
    assert re.findall(r"bar\.sync (\S+), 128;", cuda) and set(re.findall(r"bar\.sync (\S+), 128;", cuda)) == {"%0"}
    assert re.search(r'"r"\(\(int\)\(1 \+ \w+\)\)', cuda)
    ops = _operands(m, n, k, EPILOGUE, seed=n + cluster[0])
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_one_program_serves_every_m_with_b_kmajor(level):
    """A run-time M (the grid from it) at M = 8, 200, 392, B K-major (a torch.nn.Linear
    weight), plain epilogue, before and after the pipeline."""
    n, k = 184, 136
    module = gemm_hopper_ws(None, n, k, b_kmajor=True, **_kwargs(T192, persistent=2))
    if level == "lowered":
        _lowered(module)
    for m in (8, 200, 392):
        ops = _operands(m, n, k, Epilogue(), seed=m)
        _check(_run(module, m, n, Epilogue(), ops, b_kmajor=True), ops, Epilogue())


def test_register_epilogue_without_persistence():
    """Not persistent, C stored from the registers (no TMA epilogue): one tile a block."""
    m, n, k = 200, 168, 72
    kw = {**_kwargs(T192), "persistent": 0, "tma_epilogue": False, "skip_padding": False}
    module = gemm_hopper_ws(m, n, k, **kw)
    _lowered(module)
    ops = _operands(m, n, k, Epilogue(), seed=1)
    _check(_run(module, m, n, Epilogue(), ops, dynamic_m=False), ops, Epilogue())


@pytest.mark.parametrize("shape,name,epilogue", [
    ((4000, 4000, 4000, False), "192x160x64:4:c32:ow:sp", Epilogue()),
    ((3000, 5000, 7000, False), "192x160x64:4:c32:ow:sp:cl1x2:bp", EPILOGUE),
])
def test_the_192_row_kernels_compile_without_spills(shape, name, epilogue):
    """The measured kernels (run-time M): NVRTC + ptxas for sm_90a without spills (80 f32
    accumulator registers a thread under `setmaxnreg` 152: three consumers of 152 and the
    producer's 40 in 512 threads) and without ptxas's warnings (wgmma serialised)."""
    from tilec.runtime.nvrtc import resource_usage

    m, n, k, kmajor = shape
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config(name)
    assert config.bm == 192 and config.smem_bytes() <= 232448
    key = gemm.MatmulKey(config, n, k, "bf16", epilogue, 132, kmajor, gemm.index_bits(m, n, k, config))
    cuda = _lowered(gemm.matmul_program(key))
    assert cuda.count("setmaxnreg.inc.sync.aligned.u32 152") == 1 and "setmaxnreg.dec.sync.aligned.u32 40" in cuda
    result = compile_sm90_or_skip(cuda)
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0
    assert not re.search(r"ptxas.*warning|C7\d\d\d", result.log)


W128 = gemm.GemmConfig("256x160x64:4:c32:ow:w128:sp", 256, 160, 64, 4, efficiency=0.0, chunk=32, one_wgmma=True,
                       consumer_rows=128, skip_padding=True)


@pytest.mark.parametrize("cluster", [(1, 1), (1, 2)])
def test_128_row_consumers_apart(cluster):
    """`consumers_apart` (`:ap`, an option) on the 256 x 160 tile of two 128-row consumer
    warpgroups: one region run apart (each warpgroup its 128 rows, two m64 row blocks of a
    4-warp accumulator, its 128 rows of the C buffer, its store meetings at barrier 1 +
    index), alone and in pairs sharing A with box parts (the rule's at 3000 x 5000 x 7000):
    392 x 344 x 136 with bias + SiLU + residual (the second block row's second consumer
    wholly past M), lowered."""
    m, n, k = 392, 344, 136
    kw = {**_kwargs(W128, cluster), "consumers_apart": True}
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **kw)
    assert "layout.warp_specialize warpgroups(2, 1) apart(0)" in str(module)
    cuda = _lowered(module)
    assert set(re.findall(r"bar\.sync (\S+), 128;", cuda)) == {"%0"} and "bar.sync 1, 256" not in cuda
    ops = _operands(m, n, k, EPILOGUE, seed=n + cluster[1])
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


def test_consumers_apart_refuses_the_pingpong():
    with pytest.raises(ValueError, match="consumers_apart needs persistent tiles"):
        gemm_hopper_ws(256, 256, 128, bm=128, bn=128, bk=64, stages=2, persistent=2, pingpong=True,
                       consumers_apart=True)
