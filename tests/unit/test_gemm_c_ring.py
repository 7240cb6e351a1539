"""C's TMA stores through a ring of C buffers (`gemm_hopper_ws(c_ring=R, c_width=W)`,
`GemmConfig.c_ring` / `c_width`, named `:cr<R>` / `:cw<W>`): each chunk's C as its column
parts of W (split from the accumulator's registers), part q of a tile through buffer q % R
once part q - R's store has read it. On the reference executor at odd shapes against
float64, after the default pipeline, output poisoned (the 256 x 160 tile's 128-row
consumers together and run apart, the 192 x 160 tile's three consumers run apart, a ring
that does not divide a tile's parts, a run-time M, bias + SiLU + residual); the waits'
rule against a model of the bulk groups; NVRTC + ptxas without spills; the refusals."""

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
from tilec.gemm_programs import Epilogue, _early_wait, _ring_wait, gemm_hopper_ws

EPILOGUE = Epilogue(bias=True, activation="silu", residual=True)
W160 = gemm.GemmConfig("256x160x64:4:c32:ow:w128:sp", 256, 160, 64, 4, efficiency=0.0, chunk=32, one_wgmma=True,
                       consumer_rows=128, skip_padding=True)
T192 = gemm.GemmConfig("192x160x64:4:c32:ow:sp", 192, 160, 64, 4, efficiency=0.0, chunk=32, one_wgmma=True,
                       skip_padding=True)


def _kwargs(config, cluster=(1, 1), persistent: int = 4, **kw) -> dict:
    """The configuration's generator keywords at 2 stages (the executor's time), over
    `persistent` blocks; with a cluster, each block its part of every shared box."""
    c = dataclasses.replace(config, stages=2, cluster=cluster, box_parts=cluster != (1, 1), **kw)
    return {**c.kwargs(persistent), "persistent": persistent}


@pytest.mark.parametrize("ring", [1, 2, 3, 4, 5, 10])
@pytest.mark.parametrize("parts", [2, 5, 10])
def test_the_ring_waits_for_each_buffers_last_store(ring, parts):
    """`_ring_wait` over three tiles of `parts` store parts (the bulk groups of one thread,
    in order): when part q is written into buffer q % ring, the store that last read that
    buffer has completed, and no wait asks for more than that (pending = the stores issued
    since, except a tile's first part, which waits for all)."""
    if ring > parts:
        return
    issued, last = [], {}  # the stores in order; buffer -> index of its last store
    done = 0  # stores known to have read their buffers: issued[:done]
    for _tile in range(3):
        for q in range(parts):
            pending = _ring_wait(q, ring)
            if pending is not None:
                done = max(done, len(issued) - pending)
            b = q % ring
            if b in last:
                assert last[b] < done, (q, b, last[b], done)
                if q:  # no stricter than the buffer needs (the first part of a tile waits for all)
                    assert pending is None or pending == len(issued) - last[b] - 1
            last[b] = len(issued)
            issued.append(q)


@pytest.mark.parametrize("ring", [2, 3, 4, 5, 10])
@pytest.mark.parametrize("parts", [2, 5, 10, 20])
def test_the_early_waits_free_each_buffer_a_part_ahead(ring, parts):
    """`c_early` over three tiles of `parts` store parts (one thread's bulk groups in order):
    the waits are the tile's first part's before its writes (`_ring_wait(early=True)`) and
    `_early_wait`'s after a part's writes, before its store; when part q is written into buffer
    q % ring, the store that last read that buffer has completed, and every part but the
    tile's first has no wait before its writes (one meeting a part: its store's)."""
    if ring > parts:
        return
    issued, last = [], {}  # the stores in order; buffer -> index of its last store
    done = 0  # stores known to have read their buffers: issued[:done]
    for _tile in range(3):
        for q in range(parts):
            pending = _ring_wait(q, ring, early=True)
            assert (pending is None) == (q > 0)
            if pending is not None:
                done = max(done, len(issued) - pending)
            b = q % ring
            if b in last:
                assert last[b] < done, (q, b, last[b], done)
            last[b] = len(issued)
            if (pending := _early_wait(q, ring, parts)) is not None:
                assert pending == ring - 2
                done = max(done, len(issued) - pending)
            issued.append(q)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("kw,cluster", [
    ({"c_ring": 2, "c_width": 16}, (1, 2)), ({"c_ring": 3, "c_width": 16}, (1, 1)),
    ({"c_ring": 2, "c_height": 64, "consumers_apart": True}, (1, 1)),
    ({"c_ring": 4, "c_width": 16, "c_height": 128}, (1, 2)),
])
def test_the_256_row_tile_with_early_waits(level, kw, cluster):
    """392 x 344 x 136 on the 256 x 160 tile as `test_the_256_row_tile_through_a_ring`, each
    part's wait for the next part's buffer before its own store (`c_early`): lowered, a tile's
    parts but the first meet once (the wait `pending = ring - 2` in the store's meeting, no
    meeting of its own)."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, c_early=True, **{**_kwargs(W160, cluster), **kw})
    if level == "lowered":
        run_pipeline(module, "default")
        cuda = emit(module, "cuda")
        ring = kw["c_ring"]
        rows = 128 if "consumers_apart" in kw else 256  # a consumer region's
        parts = 160 // kw.get("c_width", 32) * (rows // kw.get("c_height", rows))
        # each wait right before a store's fence and meeting, but the tile's first part's and the last
        early = re.findall(rf"tilec_bulk_wait_group_read<{ring - 2}>\(\);\s*}}\n[^\n]*\n?\s*// TMA store", cuda)
        assert len(early) >= parts - ring
        assert cuda.count("cp.async.bulk.tensor.2d.global.shared") == parts
    ops = _operands(m, n, k, EPILOGUE, seed=m + len(kw) + 1)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


def test_the_192_row_tile_with_early_waits():
    """392 x 344 x 136 on the 192 x 160 tile (three consumers run apart) through three 192 x 32
    buffers with `c_early`, lowered."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, c_ring=3, c_early=True, **_kwargs(T192, (1, 1)))
    run_pipeline(module, "default")
    assert "tilec_bulk_wait_group_read<1>" in emit(module, "cuda")
    ops = _operands(m, n, k, EPILOGUE, seed=n + 7)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("kw,cluster", [
    ({"c_ring": 2, "c_width": 16}, (1, 2)), ({"c_ring": 3, "c_width": 16}, (1, 1)),
    ({"c_ring": 2, "c_width": 16, "consumers_apart": True}, (1, 2)), ({"c_ring": 2}, (1, 1)),
    ({"c_ring": 2, "c_height": 64, "consumers_apart": True}, (1, 1)),
    ({"c_ring": 4, "c_width": 16, "c_height": 128}, (1, 2)),
])
def test_the_256_row_tile_through_a_ring(level, kw, cluster):
    """392 x 344 x 136 on the 256 x 160 tile (a second block row of 136 rows: its second
    warpgroup's rows past M; 3 block columns, the last 24 wide; 3 K steps, the 4th skipped):
    two 256 x 16 buffers (C's chunks of 32 as two column parts, the waits `pending = 1`),
    three (a ring not dividing a tile's 10 parts), two run apart (each warpgroup its 128
    rows of each, its own waits), two whole chunks' buffers, two of 64 x 32 run apart (each
    warpgroup's 128 rows as two row parts), four of 128 x 16 (each chunk's row halves, each
    as two column parts); before and after the pipeline."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **{**_kwargs(W160, cluster), **kw})
    if level == "lowered":
        run_pipeline(module, "default")
        cuda = emit(module, "cuda")
        waits = re.findall(r"tilec_bulk_wait_group_read<(\d)>", cuda)
        ring = kw["c_ring"]
        rows = 128 if "consumers_apart" in kw else 256  # a consumer region's
        parts = 160 // kw.get("c_width", 32) * (rows // kw.get("c_height", rows))
        # a tile's first part and parts ring.. : the last wait before the block exits besides
        assert waits.count(str(ring - 1)) >= parts - ring and "0" in waits
        assert cuda.count("stmatrix") and ("swizzle 32B" in cuda) == ("c_width" in kw)
    ops = _operands(m, n, k, EPILOGUE, seed=m + len(kw))
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


def test_one_program_serves_every_m_through_a_ring():
    """A run-time M (the grid from it) at M = 8, 200, 392, B K-major, pairs sharing A, two
    256 x 16 buffers, lowered."""
    n, k = 184, 136
    module = gemm_hopper_ws(None, n, k, epilogue=EPILOGUE, b_kmajor=True, c_ring=2, c_width=16,
                            **_kwargs(W160, (1, 2), persistent=2))
    run_pipeline(module, "default")
    for m in (8, 200, 392):
        ops = _operands(m, n, k, EPILOGUE, seed=m)
        _check(_run(module, m, n, EPILOGUE, ops, b_kmajor=True), ops, EPILOGUE)


@pytest.mark.parametrize("ring,cluster", [(2, (1, 1)), (3, (1, 2))])
def test_the_192_row_tile_through_a_ring(ring, cluster):
    """392 x 344 x 136 on the 192 x 160 tile (three consumers run apart, each its 64 rows of
    each of the ring's 192 x 32 buffers and its own waits), lowered."""
    m, n, k = 392, 344, 136
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, c_ring=ring, **_kwargs(T192, cluster))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert f"tilec_bulk_wait_group_read<{ring - 1}>" in cuda
    ops = _operands(m, n, k, EPILOGUE, seed=n + ring)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


@pytest.mark.parametrize("shape,name,epilogue", [
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr2:cw16", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:ap:cr2:cw16", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr2:cw16:ce", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr4:cw16:ch128:ce", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:ap:cr2:ch64:ce", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr6:cw16", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr6:cw16:ce", EPILOGUE),
    ((4000, 4000, 4000, False), "192x160x64:4:c32:ow:sp:cr3:ce", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:ap:cr2:ch64", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr4:cw16:ch128", EPILOGUE),
    ((2048, 28672, 4096, True), "256x160x64:4:c32:ow:w128:sp:cr2:cw16", EPILOGUE),
    ((4000, 4000, 4000, False), "192x160x64:4:c32:ow:sp:cr3", EPILOGUE),
    ((4000, 4000, 4000, False), "192x160x64:4:c32:ow:sp:cr4", EPILOGUE),
    ((4000, 4000, 4000, False), "192x160x64:4:c32:ow:sp:cl2:cr3", EPILOGUE),
    ((3000, 5000, 7000, False), "192x160x64:4:c32:ow:sp:cl2:cr3", EPILOGUE),
    ((3000, 5000, 7000, False), "192x160x64:4:c32:ow:sp:cl1x2:bp:cr3", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr2", EPILOGUE),
    ((3000, 5000, 7000, False), "256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr4", EPILOGUE),
])
def test_the_ring_kernels_fit_and_compile_without_spills(shape, name, epilogue):
    """The measured kernels (run-time M): within the 227 KiB (`smem_bytes`: two 256 x 16
    buffers in one chunk's bytes; three or four 192 x 32 beside the 192 x 160 tile's 4 stages,
    two or four 256 x 32 beside the 256 x 160 tile's 3),
    NVRTC + ptxas for sm_90a without spills or ptxas's warnings."""
    from tilec.runtime.nvrtc import resource_usage

    m, n, k, kmajor = shape
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config(name)
    assert config.c_ring and config.smem_bytes() <= 232448
    base = dataclasses.replace(config, c_ring=0, c_width=0, c_height=0)
    region = config.consumer_rows if config.consumers_apart else config.bm  # c_height's rows are a region's
    buffer = config.bm * (config.c_height or region) // region * (config.c_width or 32) * 2
    assert config.smem_bytes() - base.smem_bytes() == config.c_ring * buffer - config.bm * 32 * 2
    key = gemm.MatmulKey(config, n, k, "bf16", epilogue, 132, kmajor, gemm.index_bits(m, n, k, config))
    module = gemm.matmul_program(key)
    run_pipeline(module, "default")
    result = compile_sm90_or_skip(emit(module, "cuda"))
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0
    assert not re.search(r"ptxas.*warning|C7\d\d\d", result.log)


@pytest.mark.parametrize("config,kw", [
    (W160, {"c_width": 24}), (W160, {"c_width": 8}), (W160, {"c_ring": 2, "half_stores": True}),
    (W160, {"c_ring": 2, "chunk_buffers": True}), (W160, {"c_ring": -1}),
    (T192, {"c_ring": 2, "tma_epilogue": False}), (W160, {"c_ring": 2, "c_height": 96}),
    (W160, {"c_ring": 2, "c_height": 64}), (W160, {"c_early": True}), (W160, {"c_ring": 1, "c_early": True}),
])
def test_the_ring_refuses_what_it_does_not_do(config, kw):
    with pytest.raises(ValueError, match="c_ring / c_width|c_height|no register bit|c_early"):
        gemm_hopper_ws(264, 392, 136, **{**_kwargs(config), **kw})


def test_the_rule_gives_the_192_row_tile_the_ring_that_fits():
    """`with_c_ring`: the wave rule's 192 x 160 tile through `C_RING_TILES`' three 192 x 32
    buffers (213 KiB, measured at 4000^3), two where three do not fit the target's shared memory,
    none where two do not (189 KiB: one buffer); the 256 x 160 tile keeps its one buffer."""
    from tilec.support.target import target

    tile = next(c for c in gemm.CONFIGS if c.bm == 192)
    sm90 = target("sm_90a")
    ringed = gemm.with_c_ring(tile, sm90)
    assert ringed.c_ring == 3 and ringed.name == f"{tile.name}:cr3" and ringed.kwargs(132)["c_ring"] == 3
    assert ringed.smem_bytes() == tile.smem_bytes() + 2 * 192 * 32 * 2 <= sm90.smem_per_block
    for kib, ring in ((206, 2), (200, 0), (190, 0)):
        small = dataclasses.replace(sm90, smem_per_block=kib * 1024)
        assert gemm.with_c_ring(tile, small).c_ring == ring
    assert gemm.choose_config(4000, 4000, 132, k=4000).name == f"{tile.name}:cr3:sp"
    wide = next(c for c in gemm.CONFIGS if c.bm == 256)
    assert gemm.with_c_ring(wide, sm90) is wide
