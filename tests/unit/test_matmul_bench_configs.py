"""benchmarks/matmul_bench.py's `--decode --configs` and `--fp8 --configs` names, without a
GPU: `parse_config` reads a configuration's name back into the `GemmConfig` the rule would
make (the swap, split, persistent swap, block-scaled FP8, the flags overriding the head), and `variant` applies `+flags`
to a row's rule's swapped configuration only, refusing blocks that could not share a
multiprocessor."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import matmul_bench  # noqa: E402

from tilec import gemm  # noqa: E402


def test_the_rule_s_names_parse_back_to_its_configurations():
    for m, n, k in ((1, 6144, 4096), (16, 4096, 14336), (64, 6144, 4096), (128, 4096, 4096), (128, 28672, 4096),
                    (128, 6144, 4096)):  # the last: split in pairs, the partials through global memory (:gp)
        rule = gemm.choose_config(m, n, 132, k=k, b_kmajor=True)
        assert matmul_bench.parse_config(rule.name) == rule
    for rule in (gemm.choose_config(1, 6144, 132, k=4096), gemm.CONFIGS[1]):  # split tile (B row-major), pingpong
        assert matmul_bench.parse_config(rule.name) == rule


def test_flags():
    c = matmul_bench.parse_config("64x16x64:8:swapAB:splitK4:p2:k128:s4")
    assert (c.bm, c.bn, c.bk, c.stages, c.swap_ab, c.split_k, c.per_sm, c.group) == (64, 16, 128, 4, True, 4, 2, 1)
    assert matmul_bench.parse_config("64x16x64:8:swapAB:splitK4:splitK1").split_k == 1
    with pytest.raises(ValueError, match="'q3' of"):
        matmul_bench.parse_config("64x16x64:8:q3")
    # the staggered consumers in one region run apart, the epilogue a loop over its chunks (epi50)
    c = matmul_bench.parse_config("128x256x64:4:c128:st1:bsm:fe2:ap:rc")
    assert (c.stagger, c.consumers_apart, c.rolled_chunks, c.exp2_fma, c.chunk) == (1, True, True, 2, 128)
    assert c.kwargs(132)["rolled_chunks"] and c.kwargs(132)["consumers_apart"]
    assert "rolled_chunks" not in matmul_bench.parse_config("128x256x64:4:c128:st1").kwargs(132)


def test_block_scaled_names():
    """`f8b:` names are block-scaled FP8 (8-bit operands); `part1` asks for one partial
    accumulator (`GemmConfig.partials`); the names of `FP8_BLOCK_CONFIGS` read back as they are."""
    c = matmul_bench.parse_config("f8b:128x256x128:4:c128:part1")
    assert (c.bm, c.bn, c.bk, c.stages, c.chunk, c.block_scales, c.partials, c.operand_bytes) == (
        128, 256, 128, 4, 128, True, 1, 1)
    assert c.kwargs(132)["partials"] == 1 and c.kwargs(132)["block_scales"]
    two = matmul_bench.parse_config("f8b:96x128x128:4")  # not a name of FP8_BLOCK_CONFIGS: read from its fields
    assert two.block_scales and two.partials == 2 and "partials" not in two.kwargs(132)
    assert not matmul_bench.parse_config("f8:128x256x128:4:c128").block_scales
    fma = matmul_bench.parse_config("f8b:128x128x128:4:fma")
    assert fma.fma_promote and fma.kwargs(132)["fma_promote"] and fma.partials == 2
    r2 = matmul_bench.parse_config("f8b:128x128x128:4:fma:r2")  # two rounds of the ring a consumer trip
    assert r2.rounds == 2 and r2.kwargs(132)["rounds"] == 2 and r2.fma_promote and "rounds" not in fma.kwargs(132)
    for rule in gemm.FP8_BLOCK_CONFIGS:
        assert matmul_bench.parse_config(rule.name) is rule
    # `pf`: the scales 8 K blocks ahead asked of L1 (`GemmConfig.scale_prefetch`), after a rule's name too
    pf = matmul_bench.parse_config(gemm.FP8_BLOCK_CONFIGS[0].name + ":pf")
    assert pf.scale_prefetch and pf.kwargs(132)["scale_prefetch"] and pf.fma_promote
    assert matmul_bench.parse_config("f8b:128x128x128:4:fma:pf").kwargs(132)["scale_prefetch"]
    assert "scale_prefetch" not in fma.kwargs(132)
    # `pr<B>`: the producer's TMA loads with an L2 sector promotion of B bytes (`GemmConfig.l2_promotion`)
    pr = matmul_bench.parse_config(gemm.FP8_BLOCK_CONFIGS[0].name + ":pf:pr256")
    assert pr.l2_promotion == 256 and pr.kwargs(132)["l2_promotion"] == 256 and pr.scale_prefetch
    assert matmul_bench.parse_config("f8b:128x128x128:4:pr64").kwargs(132)["l2_promotion"] == 64
    assert "l2_promotion" not in fma.kwargs(132)


def test_stream_k_names_parse_back():
    """`:sk` (stream-K) and the swap's wider units (`swap_config(rows=...)`) parse back."""
    for m, rows in ((64, 64), (128, 128), (128, 256)):
        c = dataclasses.replace(gemm.swap_config(m, rows=rows), stream_k=True)
        c = dataclasses.replace(c, name=c.name + ":sk")
        assert matmul_bench.parse_config(c.name) == c
    for flags, cluster in ((":sk", (1, 1)), (":cl2:sk", (2, 1))):  # the rule's tiles with the stream-K tail
        tail = matmul_bench.parse_config(gemm.CONFIGS[0].name + flags)
        assert tail.stream_k and tail.cluster == cluster and tail.kwargs(132)["stream_k"]
        assert tail == dataclasses.replace(gemm.CONFIGS[0], stream_k=True, cluster=cluster, name=tail.name)


def test_variants_apply_to_the_rule_s_swap_only():
    qkv1 = gemm.choose_config(1, 6144, 132, k=4096, b_kmajor=True)  # 64x16x128:8:swapAB:p1 (168 KiB)
    assert matmul_bench.variant("+k64:p2", qkv1).per_sm == 2  # 88 KiB
    assert matmul_bench.variant("+splitK2:p0", qkv1).split_k == 2
    assert matmul_bench.variant("+p2", qkv1) is False  # two blocks of 168 KiB do not share an SM
    qkv128 = gemm.swap_config(128)  # 64x128x128:4:swapAB:p1 (196 KiB)
    assert matmul_bench.variant("+p0", qkv128).per_sm == 0
    assert matmul_bench.variant("+p2", qkv128) is False
    assert matmul_bench.variant("+p1", gemm.choose_config(128, 28672, 132, k=4096)) is False  # B row-major: no swap
    assert matmul_bench.variant("64x32x64:8:swapAB", qkv128).bn == 32


def test_variants_of_the_halves():
    """On the tiles of M's halves (unswapped, `gemm.HALVES_CLUSTER`'s clusters) `+` takes the producer's
    load orders and the chunks' C buffers, and nothing of the swap's."""
    halves = gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True)  # 64x96x64:8:c32:ow:cb:pr256:b1
    assert halves.cluster == gemm.HALVES_CLUSTER and halves.bm == 64 and not halves.swap_ab
    v = matmul_bench.variant("+bf:al", halves)
    assert v.chunk_buffers and v.b_first and v.arrive_last and v.name == f"{halves.name}:bf:al"
    assert v.kwargs(132)["chunk_buffers"]
    assert matmul_bench.variant("+p1", halves) is False


def test_pdl_and_l2_ahead_flags():
    """`pdl` / `pdlw` (programmatic dependent launch; the weight's first stages before the
    wait) and `l2p<D>` (the weight's rows D trips ahead in L2), after a swapped name and
    after a name of `CONFIGS`; the rule's name with `:pdl` parses back to the rule's
    configuration where `gemm.PDL` puts it on."""
    c = matmul_bench.parse_config("64x128x128:4:swapAB:p1:pdlw:l2p2")
    assert (c.pdl, c.pdl_weight, c.l2_ahead, c.per_sm) == (True, True, 2, 1)
    c = matmul_bench.parse_config("128x256x64:4:c128:pdl")
    assert (c.pdl, c.pdl_weight, c.chunk) == (True, False, 128)
    rule = gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True)
    pdl = matmul_bench.parse_config(f"{rule.name}:pdl")
    assert pdl == dataclasses.replace(rule, pdl=True, name=f"{rule.name}:pdl")


def test_flags_after_a_name_keep_its_own():
    """Flags after a name of `CONFIGS` add to that configuration's own: the rule's
    `256x160x64:4:c32:ow:w128:sp` with `:cl1x2:bp` keeps `one_wgmma` (its chunks of 32 need it)
    and `skip_padding` (before, they were read as off: gemm_hopper_ws refused the chunk of 32)."""
    tile = next(c for c in gemm.CONFIGS if c.consumer_rows == 128)
    assert tile.one_wgmma and tile.skip_padding
    pair = matmul_bench.parse_config(tile.name + ":cl1x2:bp")
    assert pair == dataclasses.replace(tile, cluster=(1, 2), box_parts=True, name=tile.name + ":cl1x2:bp")
    assert pair.kwargs(132)["one_wgmma"] and pair.kwargs(132)["consumer_rows"] == 128
    assert matmul_bench.parse_config(tile.name + ":g16").group == 16
    assert not matmul_bench.parse_config(gemm.CONFIGS[0].name + ":ov:nov").overlap
