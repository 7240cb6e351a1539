"""The unswapped decode tile of M's halves (issue 39, dec39): 64 rows of M by 96 columns of N
(one wgmma of n96 over three 32-column chunks, `one_wgmma`), the weight K-major (`w.t()`), the
two blocks of M's halves in a thread-block cluster sharing the weight's stages (multicast along
the cluster's column, `cluster=(2, 1)`), a deep ring with the last trip's padded steps skipped:
cuBLAS's `96x64_64x10_1x2` decode kernel at Llama's QKV, M = 128 (H200, benchmarks/NOTES.md,
dec39). On the reference executor against float64 (poisoned output), at a run-time M over one
and two block rows and N past the last tile."""

from __future__ import annotations

import dataclasses

import pytest
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

PLAIN = Epilogue()
TILE = {"bm": 64, "bn": 96, "bk": 64, "chunk": 32, "one_wgmma": True, "b_kmajor": True, "tma_epilogue": True}


@pytest.mark.parametrize(("stages", "skip", "parts"), [(2, True, False), (4, False, False), (3, True, True),
                                                     (3, True, "tile"), (4, False, "tile"), (3, True, "tile64"),
                                                     (2, True, "tilewhole"), (4, False, "tilewhole")])
def test_m_halves_in_pairs_sharing_the_weight(stages, skip, parts):
    """`parts`: each block of the pair loads its part of every box (`box_parts`), so an odd
    number of stages of three chunks is shared evenly; "tile": its 48 rows of the stage's
    whole B tile, one box across the chunks (`tile_parts`, cuBLAS's split); "tile64": 64 columns
    in one chunk, 32 rows of its box each; "tilewhole": the stage's whole 96-row tile one box
    from block s mod 2 alone (`tile_whole`)."""
    n, k = 200, 320  # 3 block columns, the last past N; 5 K steps: padded last trips
    tile = TILE if parts != "tile64" else {**TILE, "bn": 64, "chunk": 0, "one_wgmma": False}
    module = gemm_hopper_ws(None, n, k, stages=stages, persistent=4, cluster=(2, 1), skip_padding=skip,
                            box_parts=parts is True, tile_parts=str(parts).startswith("tile"),
                            tile_whole=parts == "tilewhole", **tile)
    run_pipeline(module, "default")
    for m in (100, 64):
        ops = _operands(m, n, k, PLAIN, seed=m)
        _check(_run(module, m, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


@pytest.mark.parametrize(("b_first", "arrive_last"), [(True, False), (False, True), (True, True)])
def test_the_producer_s_load_order(b_first, arrive_last):
    """The weight's multicast boxes before A's (`b_first`) and the stage's arrival after its
    loads (`arrive_last`, cuBLAS's order): the same results."""
    n, k = 200, 320
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), skip_padding=True,
                            b_first=b_first, arrive_last=arrive_last, **TILE)
    run_pipeline(module, "default")
    ops = _operands(100, n, k, PLAIN, seed=100)
    _check(_run(module, 100, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


@pytest.mark.parametrize("m", [100, 64])
def test_a_c_buffer_for_each_chunk(m):
    """`chunk_buffers`: each of a tile's three chunks through its own C buffer, one wait for
    the TMA stores a tile (4 blocks over 6 tiles: a block's second tile reuses the buffers),
    with the widest epilogue."""
    n, k = 200, 320
    ep = Epilogue(bias=True, activation="silu", residual=True)
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), skip_padding=True,
                            chunk_buffers=True, epilogue=ep, **TILE)
    assert str(module).count("layout.tma_store_wait") == 2  # a tile's first chunk and the block's exit
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=m)
    _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


def test_chunk_buffers_need_chunks_and_the_tma_epilogue():
    with pytest.raises(ValueError, match="chunk_buffers needs"):
        gemm_hopper_ws(None, 200, 320, stages=2, persistent=4, chunk_buffers=True,
                       **{**TILE, "bn": 64, "chunk": 0, "one_wgmma": False})


def test_qkv_at_m_128_compiles_without_spills():
    """Llama's QKV (N 6144, K 4096) at M = 128: 10 stages of 64 x 96 + 64 x 64 (200 KiB) and a
    64 x 32 C buffer; NVRTC for sm_90a without spills."""
    from helpers.nvrtc import sm90_usage_or_skip

    from tilec.compiler.pipeline import emit
    from tilec.gemm import GemmConfig, MatmulKey, index_bits, matmul_program

    c = GemmConfig("64x96x64:10:c32:ow:cl2:sp", 64, 96, 64, 10, efficiency=0.0, chunk=32, one_wgmma=True,
                   cluster=(2, 1), skip_padding=True)  # the deepest measured (the rule's: 8 stages)
    assert c.smem_bytes() <= 227 * 1024
    key = MatmulKey(c, 6144, 4096, "bf16", PLAIN, 132, True, index_bits(128, 6144, 4096, c))
    module = matmul_program(key)
    run_pipeline(module, "default")
    usage = sm90_usage_or_skip(emit(module, "cuda"))
    assert usage.spill_stores == 0 and usage.spill_loads == 0


@pytest.mark.parametrize(("m", "whole"), [(100, False), (64, False), (100, True)])
def test_k_steps_of_128_load_each_chunk_in_two_panels(m, whole):
    """K steps of 128 (`64x96x128:...`): a 32-row chunk's B box spans the stage's two 128-byte
    swizzle panels, each of all 96 rows, so its two TMA boxes lie 96 x 64 elements apart
    (`TmaGeometry.copy_stride`; refused as "not compact" before, dec44); N past the last tile,
    K 640 (the last trip padded), with a C buffer a chunk. `whole`: the stage's whole weight
    tile from one block of the pair (`tile_whole`), its two 96-row panels' boxes compact."""
    n, k = 200, 640
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), chunk_buffers=True,
                            tile_parts=whole, tile_whole=whole, **{**TILE, "bk": 128})
    run_pipeline(module, "default")
    ops = _operands(m, n, k, PLAIN, seed=m)
    _check(_run(module, m, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


@pytest.mark.parametrize(("m", "step"), [(100, 0), (64, 0), (100, 1), (64, 3)])
def test_k_rotated_by_the_block_column(m, step):
    """`k_rotate`: each tile's trips from (by x stages) mod K's steps on (4 block columns, the
    last past N, 4 blocks over 8 tiles: offsets 0, 2, 4, 6 of 8 steps), with a C buffer a
    chunk and the widest epilogue: the same sums in a rotated order; K's steps not whole
    trips refused. `k_rotate_step` 1 / 3 (offsets 0, 1, 2, 3 / 0, 3, 6, 1): trips of 2 stages
    that go round K's end, each step taken mod K's steps."""
    n, k = 296, 512
    ep = Epilogue(bias=True, activation="silu", residual=True)
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), chunk_buffers=True, k_rotate=True,
                            k_rotate_step=step, epilogue=ep, **TILE)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=m)
    _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)
    with pytest.raises(ValueError, match="k_rotate takes whole trips"):
        gemm_hopper_ws(None, n, 448, stages=2, persistent=4, cluster=(2, 1), k_rotate=True, **TILE)
    with pytest.raises(ValueError, match="k_rotate_step 1 is k_rotate's"):
        gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), k_rotate_step=1, **TILE)


def test_k_rotate_by_name():
    """`:kr` names `GemmConfig.k_rotate`, `:kr<S>` with `k_rotate_step`, which `gemm_hopper_ws` takes."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config("64x96x64:8:c32:ow:cl2:cb:pr256:kr")
    assert c.k_rotate and c.kwargs(132)["k_rotate"] and not parse_config("64x96x64:8:c32:ow:cl2:cb:pr256").k_rotate
    assert "k_rotate_step" not in c.kwargs(132)
    c1 = parse_config("64x96x64:8:c32:ow:cl2:cb:pr256:kr1")  # `:kr<S>`: `k_rotate_step`
    assert c1.k_rotate and c1.k_rotate_step == 1 and c1.kwargs(132)["k_rotate_step"] == 1


def test_qkv_with_k_steps_of_128_compiles_without_spills():
    """Llama's QKV at M = 128 with 4 stages of K 128 (`64x96x128:4:c32:ow:cl2:cb:pr256`, the
    rule's 8 stages' bytes, 173 KiB): NVRTC for sm_90a without spills; the chunk's copies two
    boxes 6144 elements apart."""
    import sys
    from pathlib import Path

    from helpers.nvrtc import sm90_usage_or_skip

    from tilec.compiler.pipeline import emit
    from tilec.gemm import MatmulKey, index_bits, matmul_program

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config("64x96x128:4:c32:ow:cl2:cb:pr256")
    assert c.smem_bytes() <= 227 * 1024
    module = matmul_program(MatmulKey(c, 6144, 4096, "bf16", PLAIN, 132, True, index_bits(128, 6144, 4096, c)))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "2 boxes 6144 elements apart 64x32" in cuda
    usage = sm90_usage_or_skip(cuda)
    assert usage.spill_stores == 0 and usage.spill_loads == 0


@pytest.mark.parametrize("flag", ["kr1", "clip"])
def test_qkv_rotated_by_one_step_compiles_without_spills(flag):
    """Llama's QKV at M = 128 with the rule's tile and its K steps rotated by one step a block
    column (`:kr1`, each stage's step mod K's steps), or the last block row's A box clipped to M
    (`:clip`, a second map of A): NVRTC for sm_90a without spills."""
    import sys
    from pathlib import Path

    from helpers.nvrtc import sm90_usage_or_skip

    from tilec.compiler.pipeline import emit
    from tilec.gemm import MatmulKey, index_bits, matmul_program

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config(f"64x96x64:8:c32:ow:cl2:cb:pr256:{flag}")
    module = matmul_program(MatmulKey(c, 6144, 4096, "bf16", PLAIN, 132, True, index_bits(128, 6144, 4096, c)))
    run_pipeline(module, "default")
    usage = sm90_usage_or_skip(emit(module, "cuda"))
    assert usage.spill_stores == 0 and usage.spill_loads == 0


def test_the_halves_candidates():
    """64 x bn x 64 for bn of `HALVES_COLUMNS`, in `HALVES_CLUSTER`'s clusters (none by default),
    the deepest ring of a power of two stages up to 8 that fits 227 KiB; names that
    benchmarks/matmul_bench.py reads back."""
    import sys
    from pathlib import Path

    from tilec import gemm
    from tilec.gemm import halves_configs

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    got = halves_configs()
    assert [c.name for c in got] == ["64x64x64:8", "64x96x64:8:c32:ow:cb:pr256:b1", "64x128x64:8"]
    for c in got:
        assert c.smem_bytes() <= 227 * 1024 and c.cluster == gemm.HALVES_CLUSTER
        again = parse_config(c.name)
        assert (again.bm, again.bn, again.bk, again.stages, again.chunk, again.one_wgmma, again.cluster,
                again.skip_padding) == (c.bm, c.bn, c.bk, c.stages, c.chunk, c.one_wgmma, c.cluster, c.skip_padding)


@pytest.mark.parametrize(("m", "n", "k", "expected"), [
    # QKV: 128 blocks of 64 + 96 a K element against the swap's 96 of 64 + 128
    (128, 6144, 4096, "64x96x64:8:c32:ow:cb:pr256:b1"),
    (97, 6144, 4096, "64x96x64:8:c32:ow:cb:pr256:b1"),
    (96, 6144, 4096, "64x128x128:4:swapAB:p1:clip"),  # M 65-96: the clipped swap (the halves' bytes, no rows past M)
    (128, 5120, 5120, "64x96x64:8:c32:ow:cb:pr256:b1"),  # 54 columns in pairs: 108 blocks (H200: 20.0 against 26.0)
    (64, 6144, 4096, "128x64x128:4:swapAB:splitK2:csplit:clip"),  # M <= 64: one block row, nothing to share
    (128, 4096, 4096, "64x128x128:4:swapAB:splitK2:csplit:clip"),  # O: the swap's pairs fill fewer bytes
    (128, 28672, 4096, "256x128x64:4:swapAB:p1:clip"),  # gate_up: 256-row units
    (128, 4096, 14336, "64x128x128:4:swapAB:splitK2:csplit:clip"),  # down
])
def test_the_decode_rule_with_the_halves(m, n, k, expected, monkeypatch):
    from tilec import gemm

    monkeypatch.setattr(gemm, "DECODE_HALVES", True)
    gemm._decode_config.cache_clear()
    try:
        assert gemm.choose_config(m, n, 132, k=k, b_kmajor=True).name == expected
    finally:
        gemm._decode_config.cache_clear()


def test_the_halves_read_the_weight_once():
    """`decode_cost` of the halves at QKV: the busiest block fills (64 + 96) x K x 2 bytes at
    `sm_fill_bytes_per_s`; DRAM reads the weight once (the two blocks of a column share it),
    at most at the rate the 64 pairs' 8 stages of the weight in flight allow (`ring_rate`)."""
    from tilec.gemm import decode_cost, halves_configs, ring_rate
    from tilec.support.target import target

    t = target("sm_90a")
    c = next(x for x in halves_configs() if x.bn == 96)
    fill = (64 + 96) * 4096 * 2 / t.sm_fill_bytes_per_s
    dram = 6144 * 4096 * 2 / ring_rate(c, 64, 96, 8, t)
    assert ring_rate(c, 64, 96, 8, t) == 64 * 8 * 96 * 64 * 2 / t.dram_latency_s < t.dram_bytes_per_s
    assert decode_cost(c, 128, 6144, 4096, 132) == pytest.approx(max(fill, dram))
    quick = dataclasses.replace(t, sm_fill_bytes_per_s=1e15, sm_mma_flops_per_s=1e18, dram_latency_s=0.0)
    assert decode_cost(c, 128, 6144, 4096, 132, quick) == pytest.approx(6144 * 4096 * 2 / t.dram_bytes_per_s)


def test_each_block_loads_its_rows_of_the_whole_tile():
    """`tile_parts` (`:tp`): every stage each block of the pair issues one multicast box of 48
    rows of the weight (its half of the stage's 96 x 64 tile, across the three 32-column chunks)
    beside its own A box; with the chunks' boxes in turn (the default) the blocks issue two and
    one boxes of 32 rows in turn. The L2 promotion reaches the multicast loads too."""
    import sys
    from pathlib import Path

    from tilec.dialects.layout_tma import TmaLoadOp

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    def loads(**kw) -> tuple[list, set]:
        """The program's TMA loads, and the boxes of its tensor maps after the passes."""
        module = gemm_hopper_ws(None, 6144, 4096, stages=8, persistent=132, cluster=(2, 1), **TILE, **kw)
        ops = [o for o in module.walk() if isinstance(o, TmaLoadOp)]
        run_pipeline(module, "default")
        boxes = {tuple(o.properties["box"].get_values()) for o in module.walk() if o.name == "cuda.tensor_map"}
        return ops, boxes

    parts, boxes = loads(tile_parts=True, l2_promotion=256)
    shared = [o for o in parts if o.multicast is not None]
    assert len(shared) == 8 * 2 and len(parts) - len(shared) == 8  # a box a block a stage, and A's
    assert (64, 48) in boxes and (64, 32) not in boxes  # B's box: 48 rows of 64 elements of K
    assert all(o.l2_promotion_bytes == 256 for o in parts)
    whole, boxes = loads()
    assert len([o for o in whole if o.multicast is not None]) == 8 * 3 and (64, 32) in boxes
    c = parse_config("64x96x64:8:c32:ow:cl2:tp")
    assert c.tile_parts and c.kwargs(132)["tile_parts"] and not parse_config("64x96x64:8:c32:ow:cl2:cb:pr256").tile_parts
    with pytest.raises(ValueError, match="tile_parts"):
        gemm_hopper_ws(None, 6144, 4096, stages=8, persistent=132, tile_parts=True, **TILE)  # no cluster
    whole, boxes = loads(tile_parts=True, tile_whole=True)
    shared = [o for o in whole if o.multicast is not None]
    assert len(shared) == 8 and len(whole) - len(shared) == 8  # one weight box a stage for the pair
    assert (64, 96) in boxes and (64, 48) not in boxes
    c = parse_config("64x96x64:8:c32:ow:cl2:cb:pr256:tw")
    assert c.tile_parts and c.tile_whole and c.kwargs(132)["tile_whole"]
    with pytest.raises(ValueError, match="tile_whole"):
        gemm_hopper_ws(None, 6144, 4096, stages=7, persistent=132, cluster=(2, 1), tile_parts=True,
                       tile_whole=True, **TILE)  # stages not a multiple of the pair


def test_the_decode_rule_s_l2_promotion(monkeypatch):
    """`DECODE_L2_PROMOTION`: the decode rule's pick with its TMA loads' L2 promotion where the
    weight's K step is fewer bytes (the halves' and the 256-row swaps' 128 bytes; the 64-row
    swap's 256-byte steps keep theirs), named so that benchmarks/matmul_bench.py reads it back;
    0 leaves every pick as it was."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    picks = {}
    for promotion in (0, 256):
        monkeypatch.setattr(gemm, "DECODE_L2_PROMOTION", promotion)
        gemm._decode_config.cache_clear()
        try:
            picks[promotion] = [gemm.choose_config(m, n, 132, k=4096, b_kmajor=True)
                                for m, n in ((128, 6144), (16, 28672), (16, 6144))]
        finally:
            gemm._decode_config.cache_clear()
    assert [c.name for c in picks[0]] == ["64x96x64:8:c32:ow:cb:pr256:b1", "256x16x64:4:swapAB:p1:clip", "64x16x128:8:swapAB:p1:clip"]
    for plain, promoted in zip(picks[0][1:2], picks[256][1:2]):
        assert plain.l2_promotion == 0 and promoted.l2_promotion == 256
        assert promoted.name == f"{plain.name}:pr256" and parse_config(promoted.name).l2_promotion == 256
        assert promoted.kwargs(132)["l2_promotion"] == 256
    assert picks[256][2] == picks[0][2]
    # the halves take theirs either way (`HALVES_L2_PROMOTION`)
    assert picks[256][0] == picks[0][0] and picks[0][0].kwargs(132)["l2_promotion"] == gemm.HALVES_L2_PROMOTION


def test_the_decode_rule_s_clip(monkeypatch):
    """`DECODE_CLIP`: the decode rule's swapped picks (whole, split in clusters, 256 rows) with
    A^T clipped to M, named so that benchmarks/matmul_bench.py reads them back; the halves (not
    swapped) as they were; off, every pick as it was."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    picks = {}
    for clip in (False, True):
        monkeypatch.setattr(gemm, "DECODE_CLIP", clip)
        gemm._decode_config.cache_clear()
        try:
            picks[clip] = [gemm.choose_config(m, n, 132, k=k, b_kmajor=True)
                           for m, n, k in ((100, 6144, 4096), (100, 4096, 4096), (1, 28672, 4096), (16, 6144, 4096))]
        finally:
            gemm._decode_config.cache_clear()
    assert [c.name for c in picks[False]] == ["64x96x64:8:c32:ow:cb:pr256:b1", "64x128x128:4:swapAB:splitK2:csplit",
                                              "256x16x64:4:swapAB:p1", "64x16x128:8:swapAB:p1"]
    assert picks[True][0] == picks[False][0]
    for plain, clipped in zip(picks[False][1:], picks[True][1:]):
        assert not plain.clip_small and clipped.clip_small
        assert clipped.name == f"{plain.name}:clip" and parse_config(clipped.name).clip_small
        assert clipped.kwargs(132)["clip_small"]


def test_the_halves_clip(monkeypatch):
    """`HALVES_CLIP` (with `DECODE_CLIP`): the decode rule's halves with the last block row's A box
    clipped to M (`:clip`, `clip_small` unswapped), named so that benchmarks/matmul_bench.py reads
    them back; off, as they were; the swaps' picks the same either way."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    picks = {}
    for on in (False, True):
        monkeypatch.setattr(gemm, "HALVES_CLIP", on)
        gemm._decode_config.cache_clear()
        try:
            picks[on] = [gemm.choose_config(m, n, 132, k=k, b_kmajor=True)
                         for m, n, k in ((100, 6144, 4096), (120, 6144, 4096), (100, 4096, 4096))]
        finally:
            gemm._decode_config.cache_clear()
    assert [c.name for c in picks[False][:2]] == ["64x96x64:8:c32:ow:cb:pr256:b1"] * 2
    assert [c.name for c in picks[True][:2]] == ["64x96x64:8:c32:ow:cb:pr256:b1:clip"] * 2
    assert picks[True][2] == picks[False][2]  # O: the clipped swap either way
    clipped = picks[True][0]
    assert clipped.kwargs(132)["clip_small"] and parse_config(clipped.name) == clipped


@pytest.mark.parametrize("clip", [False, True])
def test_a_bucket_of_m_65_96(monkeypatch, clip):
    """`M_BUCKETS`' 96: QKV at M = 65-96 takes the decode rule's pick for 96 rows (the halves
    and the clipped swap tie by the cost, the swap taken: no tile rows past M), one configuration
    for the bucket, and 97-128 the halves as before (`HALVES_CLIP`: clipped); O, gate_up and down
    the same configuration in both buckets (no new kernel)."""
    from tilec import gemm

    monkeypatch.setattr(gemm, "HALVES_CLIP", clip)
    gemm._decode_config.cache_clear()
    try:
        picks = {(n, k): [gemm.choose_config(m, n, 132, k=k, b_kmajor=True).name for m in range(65, 129)]
                 for n, k in ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336))}
    finally:
        gemm._decode_config.cache_clear()
    halves = "64x96x64:8:c32:ow:cb:pr256:b1" + (":clip" if clip else "")
    assert picks[6144, 4096] == ["64x128x128:4:swapAB:p1:clip"] * 32 + [halves] * 32
    for shape in ((4096, 4096), (28672, 4096), (4096, 14336)):
        assert len(set(picks[shape])) == 1, shape


@pytest.mark.parametrize("parts", [False, "tilewhole"])
def test_the_last_block_row_s_a_box_clipped(parts):
    """`clip_small` unswapped: after a block's first trip the last block row's A box is M's rows
    left, (M - 1) mod 64 + 1 (`layout.tma_load {clip, tail}`), its bytes expected at run time
    beside the weight's multicast ones; the other block rows' boxes whole. 4 blocks over 3
    block columns (the last past N) and up to 2 pairs of block rows, 5 K steps in trips of 2
    (padded), the widest epilogue: at M of 1, 8, 36, 63 and 64 rows in the last block row (64:
    whole boxes) against float64 (the executor counts each stage's bytes: a wrong count fails)."""
    n, k = 200, 320
    ep = Epilogue(bias=True, activation="silu", residual=True)
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), skip_padding=True,
                            chunk_buffers=True, clip_small=True, tile_parts=bool(parts),
                            tile_whole=parts == "tilewhole", epilogue=ep, **TILE)
    text = str(module)
    assert text.count("clip, tail}") == 2  # each stage's A box in its clipped branch
    plain = str(gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), skip_padding=True,
                               chunk_buffers=True, tile_parts=bool(parts), tile_whole=parts == "tilewhole",
                               epilogue=ep, **TILE))
    # the stage's code once: the weight's (multicast) loads as many as unclipped, A's load and the arrival
    # in the branch (whole or the tail box), one run-time count a stage
    assert text.count("multicast") == plain.count("multicast")
    assert text.count("layout.tma_load") == plain.count("layout.tma_load") + 2
    assert text.count("layout.mbarrier_expect_tx") == 2
    run_pipeline(module, "default")
    for m in (65, 72, 100, 127, 128, 200):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


def test_the_halves_in_clusters_of_2x2(monkeypatch):
    """`HALVES_CLUSTER` (2, 2): the halves' tiles named `:cl2x2` (benchmarks/matmul_bench.py reads
    them back), the rule's pick at QKV M = 128 the same tile in clusters of 4 (never clipped: A's
    boxes shared); the program (two block columns sharing A's boxes, 3 block columns: the last
    cluster's second past N, 2 block rows) against float64 at M = 72, 128, 200 (executor)."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    monkeypatch.setattr(gemm, "HALVES_CLUSTER", (2, 2))
    monkeypatch.setattr(gemm, "HALVES_CLIP", True)
    gemm._decode_config.cache_clear()
    try:
        got = gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True)
        assert [c.name for c in gemm.halves_configs()][1] == "64x96x64:8:c32:ow:cl2x2:cb:pr256"
    finally:
        gemm._decode_config.cache_clear()
    assert got.name == "64x96x64:8:c32:ow:cl2x2:cb:pr256" and got.cluster == (2, 2) and not got.clip_small
    assert parse_config(got.name) == got
    n, k = 200, 320
    ep = Epilogue(bias=True, activation="silu", residual=True)
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 2), skip_padding=True,
                            chunk_buffers=True, epilogue=ep, **TILE)
    run_pipeline(module, "default")
    for m in (72, 128, 200):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


def test_the_halves_in_pairs_sharing_the_tokens(monkeypatch):
    """`HALVES_CLUSTER` (1, 2) (cuBLAS's `1x2` at M = 128 pairs N's block columns): the halves'
    tiles named `:cl1x2` (read back), the rule's pick at QKV M = 128 that tile; the program (two
    block columns sharing A's boxes, each its own weight boxes; 3 block columns: the second
    cluster's second past N) against float64 at M = 101 (executor)."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    monkeypatch.setattr(gemm, "HALVES_CLUSTER", (1, 2))
    gemm._decode_config.cache_clear()
    try:
        got = gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True)
    finally:
        gemm._decode_config.cache_clear()
    assert got.name == "64x96x64:8:c32:ow:cl1x2:cb:pr256" and got.cluster == (1, 2)
    assert parse_config(got.name) == got
    n, k = 200, 320
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(1, 2), skip_padding=True,
                            chunk_buffers=True, epilogue=PLAIN, **TILE)
    run_pipeline(module, "default")
    ops = _operands(101, n, k, PLAIN, seed=101)
    _check(_run(module, 101, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


def test_the_halves_weight_stage_as_one_box(monkeypatch):
    """`b_box` (`:b1`): the weight's stage one TMA box of 96 rows, not three of 32 (two loads a stage);
    `HALVES_B_BOX`: the halves' chunked tile takes it, the rule's pick at QKV M = 112 that tile (the name
    read back); against float64 at M = 101 (executor); refused with a cluster."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    monkeypatch.setattr(gemm, "HALVES_B_BOX", True)
    gemm._decode_config.cache_clear()
    try:
        got = gemm.choose_config(112, 6144, 132, k=4096, b_kmajor=True)
    finally:
        gemm._decode_config.cache_clear()
    assert got.name == "64x96x64:8:c32:ow:cb:pr256:b1" and got.b_box and parse_config(got.name) == got
    assert [c.b_box for c in gemm.halves_configs()] == [False, True, False]  # (chunks only)
    n, k = 200, 320
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, skip_padding=True, chunk_buffers=True,
                            b_box=True, epilogue=PLAIN, **TILE)
    assert str(module).count("layout.tma_load") == 4  # A's box and the weight's, 2 stages
    run_pipeline(module, "default")
    ops = _operands(101, n, k, PLAIN, seed=101)
    _check(_run(module, 101, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)
    with pytest.raises(ValueError, match="b_box needs"):
        gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), b_box=True, **TILE)


def test_the_halves_alone():
    """The halves' tile without a cluster (`HALVES_CLUSTER` (1, 1): each block its own weight
    boxes), the last block row clipped too (`clip_small`), with the widest epilogue: 3 block
    columns (the last past N), up to 4 block rows, against float64 (executor)."""
    n, k = 200, 320
    ep = Epilogue(bias=True, activation="silu", residual=True)
    for clip in (False, True):
        module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, skip_padding=True, chunk_buffers=True,
                                clip_small=clip, epilogue=ep, **TILE)
        run_pipeline(module, "default")
        for m in (72, 128, 200):
            ops = _operands(m, n, k, ep, seed=m)
            _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


def test_the_halves_alone_in_a_ring_of_10_stages():
    """`HALVES_MAX_STAGES` 10 (no power of two): the halves' tiles take the last trip's steps past
    K skipped (`:sp`, 64 x 96 at 213 KiB); the rule's kernel (no cluster, a C buffer a chunk) at 10
    stages against float64 (executor): 11 K steps, a second trip of one step, 2 block rows at an
    odd M inside the bucket 97-128, 2 block columns (the last past N) over 3 blocks."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    old = gemm.HALVES_MAX_STAGES
    try:
        gemm.HALVES_MAX_STAGES = 10
        got = gemm.halves_configs()
    finally:
        gemm.HALVES_MAX_STAGES = old
    assert [c.name for c in got] == ["64x64x64:10:sp", "64x96x64:10:c32:ow:cb:pr256:sp:b1", "64x128x64:5:sp"]
    for c in got:
        assert c.skip_padding and c.smem_bytes() <= 227 * 1024 and parse_config(c.name).skip_padding
    n, k = 104, 704
    module = gemm_hopper_ws(None, n, k, stages=10, persistent=3, skip_padding=True, chunk_buffers=True,
                            epilogue=PLAIN, **TILE)
    run_pipeline(module, "default")
    ops = _operands(101, n, k, PLAIN, seed=101)
    _check(_run(module, 101, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


@pytest.mark.parametrize("order", ["b_first", "arrive_last"])
def test_the_clipped_branch_in_either_load_order(order):
    """`clip_small` unswapped with B's loads first (`b_first`) or the arrival after the loads
    (`arrive_last`): the branch (A's box whole or its tail, the arrival with it) takes A's place,
    the bytes expected before the arrival; against float64 at 8 and 36 rows in the last block row."""
    n, k = 200, 320
    module = gemm_hopper_ws(None, n, k, stages=2, persistent=4, cluster=(2, 1), skip_padding=True,
                            chunk_buffers=True, clip_small=True, epilogue=PLAIN, **{order: True}, **TILE)
    run_pipeline(module, "default")
    for m in (72, 100):
        ops = _operands(m, n, k, PLAIN, seed=m)
        _check(_run(module, m, n, PLAIN, ops, b_kmajor=True), ops, PLAIN)


def test_the_unswapped_clip_needs_a_s_own_boxes():
    with pytest.raises(ValueError, match="clip_small needs"):  # A's boxes shared along the cluster's row
        gemm_hopper_ws(None, 200, 320, stages=2, persistent=4, cluster=(1, 2), clip_small=True, **TILE)
    with pytest.raises(ValueError, match="clip_small needs"):  # A by cp.async
        gemm_hopper_ws(None, 200, 320, stages=2, persistent=4, cp_async="a", clip_small=True, **TILE)
