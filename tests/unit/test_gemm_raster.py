"""The persistent walk's groups along N (`gemm_hopper_ws(raster_n=True)`, `GemmConfig.raster_n`, named
`:rn`): consecutive tiles (clusters) walk along `group` block columns, then to the next block row. On the
reference executor at odd shapes against float64, output poisoned, so every tile is taken exactly once:
static and run-time M, alone and in pairs sharing A (`group / cn` pair columns a group), groups that do
not divide N's block columns; the walk's arithmetic in the CUDA; the configuration's name; the refusals."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

EPILOGUE = Epilogue(bias=True, activation="silu", residual=True)


def _kw(cluster: tuple[int, int], group: int) -> dict:
    """A 128 x 64 tile in 2 stages with the TMA epilogue over 4 persistent blocks."""
    return {"bm": 128, "bn": 64, "bk": 64, "stages": 2, "group": group, "persistent": 4, "tma_epilogue": True,
            "cluster": cluster, "box_parts": cluster != (1, 1)}


@pytest.mark.parametrize("dynamic_m", [False, True])
@pytest.mark.parametrize("cluster,group", [((1, 1), 2), ((1, 1), 4), ((1, 2), 4), ((1, 2), 8), ((2, 1), 2)])
def test_the_walk_along_n_takes_every_tile_once(cluster, group, dynamic_m):
    """392 x 344 x 136 (4 block rows, the last 8 rows; 6 block columns, the last 24 wide; 3 K steps)
    with the walk along N after the pipeline: groups of 2, 4 block columns alone (4 does not divide
    6: the last group's 2 columns), 2 and 4 pair columns of pairs sharing A (3 pair columns), pairs
    sharing B; 4 blocks take the 24 tiles (12 pairs) in turns."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(None if dynamic_m else m, n, k, epilogue=EPILOGUE, raster_n=True, **_kw(cluster, group))
    run_pipeline(module, "default")
    ops = _operands(m, n, k, EPILOGUE, seed=group + cluster[1])
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=dynamic_m), ops, EPILOGUE)


def test_the_walk_along_n_in_the_cuda():
    """At 3000 x 5000 x 7000 in pairs sharing A (the rule's 256 x 160 tile): the walk's group is 8 / 2 = 4
    pair columns of the 16 (`t / (gm * 4)`), its rows at run time; without `raster_n` neither."""
    kw = {"bm": 256, "bn": 160, "bk": 64, "stages": 4, "group": 8, "persistent": 132, "tma_epilogue": True,
          "chunk": 32, "one_wgmma": True, "consumer_rows": 128, "skip_padding": True, "cluster": (1, 2),
          "box_parts": True}
    along = gemm_hopper_ws(None, 5000, 7000, raster_n=True, **kw)
    down = gemm_hopper_ws(None, 5000, 7000, **kw)
    for module in (along, down):
        run_pipeline(module, "default")
    cuda_along, cuda_down = emit(along, "cuda"), emit(down, "cuda")
    # a group's pairs gm * 4 (the producer's walk and the consumers'); the last group's columns 16 - its first
    assert cuda_along.count("gm * 4;") == 2 and cuda_along.count("= 16 - ") == 2
    assert "gm * 4;" not in cuda_down and "= 16 - " not in cuda_down


def test_the_name_says_the_walk():
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config("256x160x64:4:c32:ow:w128:sp:cl1x2:bp:rn:g16")
    assert c.raster_n and c.group == 16 and c.cluster == (1, 2) and c.kwargs(132)["raster_n"]
    assert not parse_config("256x160x64:4:c32:ow:w128:sp:cl1x2:bp").raster_n
    assert parse_config("128x128x64:4:rn").raster_n


@pytest.mark.parametrize("kw", [{"group": 1}, {"persistent": 0}, {"stream_k": True}, {"overlap_epilogue": True}])
def test_the_walk_along_n_refuses_what_it_does_not_do(kw):
    base = {**_kw((1, 1), 4), **kw}
    with pytest.raises(ValueError, match="raster_n"):
        gemm_hopper_ws(392, 344, 136, raster_n=True, **base)
