"""The 128 x 192 tile of `tilec.gemm.CONFIGS` (`128x192x64:5:c64`: three column chunks
of 64, wgmma's N a power of two) and the wave rule that weighs it against 128 x 256 by
whole rounds of tiles (`choose_config`, `wave_seconds`): on the reference executor at
odd shapes against float64, before and after the default pipeline, output poisoned
(block rows and columns past M and N, K past its steps, a run-time M at several M,
bias + SiLU + residual, alone and in pairs sharing B); NVRTC + ptxas without spills at
3000 x 5000 x 7000; and the rule's choice at the model table's shapes (the same as
before the tile, or the 192-column tile where its rounds are fewer tile-times at its
measured efficiency)."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

TILE = next(c for c in gemm.CONFIGS if c.bn == 192)
EPILOGUE = Epilogue(bias=True, activation="silu", residual=True)


def _kwargs(cluster: tuple[int, int] = (1, 1), persistent: int = 4, variant: str = "") -> dict:
    """The configuration's generator keywords at 2 stages (the executor's time), over
    `persistent` blocks; `variant`: `ow` (the chunks' wgmma of a step as one,
    `GemmConfig.one_wgmma`), `ow:bp` (and with a cluster, each block its part of every box)."""
    flags = variant.split(":")
    c = dataclasses.replace(TILE, stages=2, cluster=cluster, one_wgmma="ow" in flags,
                            box_parts="bp" in flags and cluster != (1, 1))
    return {**c.kwargs(persistent), "persistent": persistent}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("cluster,variant", [((1, 1), ""), ((2, 1), ""), ((1, 1), "ow"), ((2, 1), "ow"),
                                             ((2, 1), "ow:bp")])
def test_the_192_column_tile_at_odd_shapes(level, cluster, variant):
    """136 x 392 x 200: 2 block rows (the second 8 rows; in pairs: one pair), 3 block
    columns (the last 8 wide: one chunk of 8 columns, two wholly past N), 4 K steps of
    64 (the last 8 deep), the epilogue; a static M. `ow`: lowered, each step's three
    chunks are one wgmma.m64n192k16 a warpgroup."""
    m, n, k = 136, 392, 200
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **_kwargs(cluster, variant=variant))
    if level == "lowered":
        run_pipeline(module, "default")
        wide = "wgmma.mma_async.sync.aligned.m64n192k16" in emit(module, "cuda")
        assert wide == bool(variant)
    ops = _operands(m, n, k, EPILOGUE, seed=n)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("cluster,variant", [((1, 1), ""), ((2, 1), ""), ((2, 1), "ow:bp")])
def test_one_192_column_program_serves_every_m(cluster, variant):
    """A run-time M (the grid from it) at M = 8, 200, after the pipeline."""
    n, k = 200, 72
    module = gemm_hopper_ws(None, n, k, epilogue=EPILOGUE, **_kwargs(cluster, persistent=2, variant=variant))
    run_pipeline(module, "default")
    for m in (8, 200):
        ops = _operands(m, n, k, EPILOGUE, seed=m)
        _check(_run(module, m, n, EPILOGUE, ops), ops, EPILOGUE)


@pytest.mark.parametrize("one_wgmma", [False, True])
@pytest.mark.parametrize("cluster", [(1, 1), (2, 1)])
def test_the_192_column_kernel_compiles_without_spills(cluster, one_wgmma):
    """3000 x 5000 x 7000's kernel (run-time M, 32-bit offsets, bias + SiLU + residual):
    NVRTC + ptxas for sm_90a without spills; `one_wgmma`: one m64n192k16 a K step."""
    from tilec.runtime.nvrtc import resource_usage

    config = dataclasses.replace(TILE, cluster=cluster, box_parts=cluster != (1, 1),  # 5 stages of 3 boxes
                                 one_wgmma=one_wgmma)
    key = gemm.MatmulKey(config, 5000, 7000, "bf16", EPILOGUE, 132, False, gemm.index_bits(3000, 5000, 7000, config))
    module = gemm.matmul_program(key)
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    n = 192 if one_wgmma else 64
    assert cuda.count(f"wgmma.mma_async.sync.aligned.m64n{n}k16") > 0
    assert cuda.count(f"wgmma.mma_async.sync.aligned.m64n{256 - n}k16") == 0
    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0


@pytest.mark.parametrize("m,n,k,b_kmajor,expected", [
    # 9 x 14 = 126 tiles of 256 x 160 in 1 round (K 34 steps in 4 stages, 2 of the last trip
    # skipped, at 0.99) against 17 x 12 = 204 of 128 x 192 in 2 (1.5 / 0.97), 17 x 9 = 153 of
    # 128 x 256 in 2 and 17 x 17 = 289 of the pingpong's 128 x 128 in 3 (1.5 / 0.85)
    (2176, 2176, 2176, False, "256x160x64:4:c32:ow:w128:sp"),
    # 12 x 32 = 384 tiles of 256 x 160 (A's rows 16 mod 32 bytes: pairs along N sharing A,
    # 192 groups in 3 rounds of 66 clusters, 110 K steps, at 0.99) against 24 x 27 = 648 of
    # 128 x 192 (324 groups in pairs sharing B, 5 rounds, each 3/8 of the work, 110 steps in
    # 5 stages, at 0.97) and 24 x 20 = 480 of 128 x 256 (240 groups, 4 rounds, 112 steps)
    (3000, 5000, 7000, False, "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"),
    (3000, 5008, 7008, False, "256x160x64:4:c32:ow:w128:sp"),  # 32-byte rows: no pairs, the same rounds
    # the model table's aligned shapes keep 128 x 256
    # 21 x 25 = 525 tiles of 192 x 160 in 4 rounds of 30720 elements a multiprocessor (at
    # 0.95) against 512 of 128 x 256 in 4 of 32768 and 672 of 128 x 192 in 6 (63 K steps:
    # the 64th, past K, skipped)
    (4000, 4000, 4000, False, "192x160x64:4:c32:ow:cr3:sp"),
    (3000, 14336, 4096, False, "192x160x64:4:c32:ow:cr3"),  # 16 x 90 = 1440 tiles in 11 rounds
    # rows mid-sector (B's 7000 x 2 bytes; C's): 192 x 160 is not weighed (`aligned_rows`,
    # measured slower there), 128 x 256 in pairs sharing B
    (4000, 7000, 4096, False, "128x256x64:4:c128:cl2"),
    (1000, 7000, 4096, False, "128x256x64:4:c128:cl2"),
    (4000, 7000, 4096, True, "128x256x64:4:c128"),  # C's rows alone
    (4096, 4096, 4096, False, "128x256x64:4:c128"),
    (8192, 8192, 8192, False, "128x256x64:4:c128"),  # 16 rounds; 21 of 3/4: 15.75 / 0.91
    (2048, 6144, 4096, True, "128x256x64:4:c128"),   # 3 rounds; 4 of 3/4
    (8192, 6144, 4096, True, "128x256x64:4:c128"),
    (2048, 4096, 4096, True, "128x256x64:4:c128"),
    (8192, 4096, 4096, True, "128x256x64:4:c128"),
    # 8 x 180 = 1440 tiles of 256 x 160 in 11 rounds (at 0.99) against 16 x 112 = 1792 of
    # 128 x 256 in 14: 0.98 of the time
    (2048, 28672, 4096, True, "256x160x64:4:c32:ow:w128:sp"),
    (8192, 28672, 4096, True, "128x256x64:4:c128"),  # 55 rounds; 73 of 3/4: 54.75 / 0.91
    (2048, 4096, 14336, True, "128x256x64:4:c128"),
    (8192, 4096, 14336, True, "128x256x64:4:c128"),
])
def test_the_wave_rule_weighs_whole_rounds_of_each_tile(m, n, k, b_kmajor, expected):
    assert gemm.choose_config(m, n, 132, k=k, b_kmajor=b_kmajor).name == expected


def test_the_rule_reads_the_tiles_efficiency(monkeypatch):
    """Below an efficiency of 3.75 x 110 / (4 x 112) = 0.92 the 192-column tile's 5 rounds
    cost more than 128 x 256's 4 at 3000 x 5000 x 7000 (in pairs: 324 groups over 66
    clusters against 240)."""
    slow = tuple(dataclasses.replace(c, efficiency=0.91) if c is TILE else c for c in gemm.CONFIGS
                 if c.consumer_rows == 64 and c.bm == 128)  # among the 128-row tiles of 64-row consumers
    monkeypatch.setattr(gemm, "CONFIGS", slow)
    assert gemm.choose_config(3000, 5000, 132, k=7000).name == "128x256x64:4:c128:cl2:sp"
    assert gemm.choose_config(3000, 5008, 132, k=7008).name == "128x256x64:4:c128:sp"


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_a_in_registers_for_every_chunk(level):
    """`a_registers`: each step's A loaded once into registers (ldmatrix) for the three
    chunks' wgmma, at the odd shape above, alone; the 3000 x 5000 x 7000 kernel in pairs
    (4 stages) compiles without spills, its A through ldmatrix."""
    m, n, k = 136, 392, 200
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, a_registers=True, **_kwargs())
    if level == "lowered":
        run_pipeline(module, "default")
        assert "cuda.ldmatrix" in str(module)
    ops = _operands(m, n, k, EPILOGUE, seed=n)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


def test_a_in_registers_compiles_without_spills():
    from tilec.runtime.nvrtc import resource_usage

    # in 4 stages, as measured (5 stages with box parts and the epilogue spill 72 bytes)
    config = dataclasses.replace(TILE, stages=4, cluster=(2, 1), a_registers=True)
    key = gemm.MatmulKey(config, 5000, 7000, "bf16", EPILOGUE, 132, False, 32)
    module = gemm.matmul_program(key)
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "ldmatrix" in cuda
    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0


@pytest.mark.parametrize("kw", [{"dtype": "f8E4M3FN", "b_kmajor": True}, {"overlap_epilogue": True}])
def test_a_in_registers_refuses_what_it_does_not_do(kw):
    with pytest.raises(ValueError, match="a_registers"):
        gemm_hopper_ws(136, 400, 256, a_registers=True, **{**_kwargs(), **kw})


def test_one_wgmma_on_the_256_column_tile():
    """`one_wgmma` on 128 x 256 in chunks of 128 (`128x256x64:4:c128:ow`): one
    wgmma.m64n256k16 a K step, at the odd shape above after the pipeline."""
    c = dataclasses.replace(gemm.CONFIGS[0], stages=2, one_wgmma=True)
    m, n, k = 136, 392, 200
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **{**c.kwargs(3), "persistent": 3})
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "wgmma.mma_async.sync.aligned.m64n256k16" in cuda and "m64n128k16" not in cuda
    ops = _operands(m, n, k, EPILOGUE, seed=n)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("kw", [{"chunk": 0}, {"bn": 512, "chunk": 128}, {"pingpong": True, "chunk": 0}])
def test_one_wgmma_refuses_what_it_does_not_do(kw):
    """`one_wgmma` needs column chunks of at most 256 columns in all, no pingpong."""
    with pytest.raises(ValueError, match="one_wgmma"):
        gemm_hopper_ws(136, 400, 256, one_wgmma=True, **{**_kwargs(), **kw})


def test_one_wgmma_is_named_ow():
    """`:ow` in benchmarks/matmul_bench.py's names sets `GemmConfig.one_wgmma`."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config("128x192x64:5:c64:cl2:bp:ow")
    assert c.one_wgmma and c.box_parts and c.cluster == (2, 1) and c.kwargs(132)["one_wgmma"]
    assert parse_config("128x256x64:4:c128:ow").one_wgmma
    assert not parse_config("128x192x64:5:c64:cl2:bp").one_wgmma


def test_the_rule_skips_the_padded_steps_of_its_pick(monkeypatch):
    """`with_skip_padding`: `:sp` on the pick where K's steps are not whole trips of its ring
    (4000: 62.5 steps of 64, 16 trips of 4), not where they are (4096) nor on the pingpong
    tile; the tile is chosen as before (without `SKIP_PADDING`, the same tile unskipped)."""
    c128 = gemm.CONFIGS[0]
    assert gemm.with_skip_padding(c128, 4000).name == "128x256x64:4:c128:sp"
    assert gemm.with_skip_padding(c128, 4000).skip_padding
    assert gemm.with_skip_padding(c128, 4096) is c128 and gemm.with_skip_padding(c128, None) is c128
    pp = next(c for c in gemm.CONFIGS if c.pingpong)
    assert gemm.with_skip_padding(pp, 4000) is pp
    assert gemm.choose_config(129, 5000, 132, k=7000).name == "128x128x64:4:pp"
    monkeypatch.setattr(gemm, "SKIP_PADDING", False)
    assert gemm.choose_config(4000, 4000, 132, k=4000).name == "192x160x64:4:c32:ow:cr3"


def test_skipping_no_step_emits_the_same_cuda():
    """A K of whole trips (the model table's 4096, 14336): `:sp` changes no byte of the CUDA."""
    def cuda(c):
        key = gemm.MatmulKey(c, 1024, 2048, "bf16", Epilogue(), 132, True, 32)
        module = gemm.matmul_program(key)
        run_pipeline(module, "default")
        return emit(module, "cuda")

    c128 = gemm.CONFIGS[0]
    assert cuda(c128) == cuda(dataclasses.replace(c128, skip_padding=True, name=c128.name + ":sp"))
