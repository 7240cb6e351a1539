"""Stream-K summed in the kernel (`gemm_hopper_ws(stream_k=True, serial=True)`,
`GemmConfig.stream_k` with `serial`, named `:sk:ser`): the blocks share the tiles'
trips of the ring evenly, each segment of a shared tile is stored as an f32 partial
into the block's slot, the block's consumers meet, consumer thread 0 fences, counts
the block's arrival on the tile's counter and fences again, and the tile's last block
to arrive sums its partials in the order of the blocks, applies the epilogue and stores
C: no fixup launch. On the reference executor (whose race checks accept the
hand-over): within the bound against float64, the same bits as the fixup launch, the
counters left zero (a second call with the same buffer gives the same bits), at grids
whose shares are uneven (a block's range across a tile boundary, a tile in 2, 3 or 8
segments), run-time M over one and two column tiles, one and two consumer warpgroups,
unswapped tiles with full waves, after the default pipeline; without the release fence,
or with a stale count on a tile's counter, the executor reports the early sum; NVRTC
compiles of Llama's shapes without spills, one kernel."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _bits, _check, _operands, _values

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm import GemmConfig, MatmulKey, matmul_program
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run
from tilec.runtime.reference.errors import ExecutionError

WIDEST = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


def _inputs(m: int, n: int, ops: dict, slots: int, tile: int, swap: bool, counters: np.ndarray | None) -> dict:
    """The program's arguments, C and the workspace of `slots` f32 tiles of `tile`
    elements poisoned with NaN; `counters` (None: the fixup launch's program, none)."""
    out = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits((ops["b"].T if swap else ops["b"]).ravel(), "bf16"),
           "pc": _bits(np.full(m * n, np.nan), "f16"), "pbias": _bits(ops["bias"], "f16"),
           "pres": _bits(ops["residual"].ravel(), "f16"), "pw": np.full(slots * tile, np.nan, np.float32), "m": m}
    if counters is not None:
        out["pctr"] = counters
    return out


def _both(m: int, n: int, k: int, blocks: int, level: str = "layout", **kw):
    """C (bits) of the in-kernel sum twice (the counters carried from the first call to
    the second) and of the fixup launch, each checked against float64, and the counters
    after (one a tile of the tail)."""
    swap = kw.get("swap_ab", False)
    ops = _operands(m, n, k, WIDEST, seed=m + blocks)
    got, counters = [], np.zeros(blocks, np.int32)
    for serial in (True, True, False):
        module = gemm_hopper_ws(None, n, k, persistent=blocks, stream_k=True, serial=serial, epilogue=WIDEST, **kw)
        if level == "lowered":
            run_pipeline(module, "default")
        outs = run(module, _inputs(m, n, ops, 2 * blocks, kw["bm"] * kw["bn"], swap, counters if serial else None))
        if serial:
            counters = np.asarray(outs["pctr"]).copy()
        _check(_values(outs["pc"], "f16").reshape(m, n), ops, WIDEST)
        got.append(np.asarray(outs["pc"]))
    return got, counters


# N = 200: 4 tiles of 64 rows (the last 8); K = 1000: 16 steps of 64 over 2 stages, 8 trips a
# tile, 32 trips at M <= 16 (one column tile), 64 at M = 20 (two). 3 blocks: span 11, each tile
# in 2 segments; 5: span 7 (every range across a tile boundary); 13: span 3, tiles in 3 or 4
# segments; 40: 32 (64) blocks of one trip, every tile in 8 segments
@pytest.mark.parametrize("blocks", [3, 5, 13, 40])
@pytest.mark.parametrize("m", [1, 20])
def test_swapped_stream_k_summed_in_the_kernel(blocks, m):
    (first, second, launched), counters = _both(m, 200, 1000, blocks, bm=64, bn=16, bk=64, stages=2,
                                                b_kmajor=True, swap_ab=True)
    assert np.array_equal(first, second) and np.array_equal(first, launched)
    assert not counters.any()  # every tile's counter back at zero


def test_two_consumer_warpgroups_after_the_default_pipeline():
    """128 rows of N a tile (two consumer warpgroups summing 16 columns of M a pass), 32
    columns of M, over 7 blocks, M = 33 (two column tiles), lowered."""
    (first, second, launched), counters = _both(33, 200, 1000, 7, "lowered", bm=128, bn=32, bk=64, stages=2,
                                                b_kmajor=True, swap_ab=True)
    assert np.array_equal(first, second) and np.array_equal(first, launched)
    assert not counters.any()


# 200 x 136 in 64 x 128 tiles in chunks of 64 (8 tiles, 8 trips each): 3 blocks take two full
# waves whole and share the last 2 tiles; 13 blocks: no full wave, every tile shared
@pytest.mark.parametrize("blocks", [3, 13])
def test_unswapped_stream_k_tail_summed_in_the_kernel(blocks):
    (first, second, launched), counters = _both(200, 136, 1000, blocks, bm=64, bn=128, bk=64, stages=2, chunk=64,
                                                tma_epilogue=True)
    assert np.array_equal(first, second) and np.array_equal(first, launched)
    assert not counters.any()


def _early_sum(module, blocks: int, counters: np.ndarray) -> None:
    ops = _operands(5, 200, 1000, WIDEST)
    run(module, _inputs(5, 200, ops, 2 * blocks, 64 * 16, True, counters))


def test_without_the_release_fence_the_sum_is_a_race(monkeypatch):
    """The first of each pair of fences left out: the last block's reads of the other
    blocks' partials are reported."""
    from tilec.compiler import kernel_builder

    fence, calls = kernel_builder.KernelBuilding.fence, []

    def acquire_only(self, *args, **kwargs):
        calls.append(1)
        if len(calls) % 2 == 0:
            fence(self, *args, **kwargs)

    monkeypatch.setattr(kernel_builder.KernelBuilding, "fence", acquire_only)
    module = gemm_hopper_ws(None, 200, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=13, stream_k=True, serial=True, epilogue=WIDEST)
    with pytest.raises(ExecutionError, match="data race on global memory.*%pw.*no release"):
        _early_sum(module, 13, np.zeros(13, np.int32))


@pytest.mark.parametrize("tile", [0, 1, 2, 3])
def test_a_stale_count_sums_early(tile):
    """A tile's counter not zero on entry (one arrival too many: a call that did not
    reset it): the tile's second-to-last block sums before the last has stored its
    partial: the executor reports the race on the partials (a read before the write, or
    a write after the read)."""
    module = gemm_hopper_ws(None, 200, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=13, stream_k=True, serial=True, epilogue=WIDEST)
    counters = np.zeros(13, np.int32)
    counters[tile] = 1
    with pytest.raises(ExecutionError, match="data race on global memory.*%pw"):
        _early_sum(module, 13, counters)


def test_serial_needs_split_k_or_stream_k():
    with pytest.raises(ValueError, match="serial needs split_k > 1 or stream_k"):
        gemm_hopper_ws(None, 264, 1000, bm=64, bn=128, bk=64, stages=2, chunk=64, persistent=8, tma_epilogue=True,
                       serial=True)


# in clusters the units are groups of cm x cn tiles and the blocks sharing them clusters: each
# block sums its own tile of the group (a counter a tile: the group's times the cluster's size)
@pytest.mark.parametrize(("n", "blocks", "swap", "cluster"), [
    (264, 10, True, (2, 1)),    # swapped pairs sharing A^T: 3 groups (the last pair's second tile past N), 5 pairs
    (200, 14, True, (2, 1)),    # 2 groups over 7 pairs: span 3 trips of 8, each group in 3 parts
    (264, 10, False, (2, 1)),   # unswapped pairs sharing B, the tail's trips shared
    (264, 12, False, (2, 2)),   # 2 x 2 clusters
])
def test_stream_k_in_clusters_summed_in_the_kernel(n, blocks, swap, cluster):
    m, k = (20, 1000) if swap else (200, 1000)
    kw = ({"bm": 64, "bn": 16, "bk": 64, "stages": 2, "b_kmajor": True, "swap_ab": True} if swap else
          {"bm": 64, "bn": 128, "bk": 64, "stages": 2, "chunk": 64, "tma_epilogue": True})
    (first, second, launched), counters = _both(m, n, k, blocks, cluster=cluster, **kw)
    assert np.array_equal(first, second) and np.array_equal(first, launched)
    assert not counters.any()


def test_the_counters_are_one_a_block():
    c = GemmConfig("64x128x128:4:swapAB:p1:sk:ser", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True,
                   per_sm=1, stream_k=True, serial=True)
    assert c.kwargs(132)["stream_k"] and c.kwargs(132)["serial"]
    assert c.workspace(128, 6144, 132) == 2 * 132 * 64 * 128 and c.counters(128, 6144, 132) == 132


@pytest.mark.parametrize(("bm", "bn", "n"), [(64, 128, 6144), (64, 64, 4096), (128, 128, 4096)])
def test_serial_stream_k_compiles_without_spills(bm, bn, n):
    """Llama's QKV at M = 128, O at M = 64 and 128 (128-row units), widest epilogue,
    sm_90a: one kernel (no fixup launch), no spills."""
    from tilec.runtime.nvrtc import resource_usage

    bk = 128 if bm == 64 else 64
    c = GemmConfig(f"{bm}x{bn}x{bk}:4:swapAB:p1:sk:ser", bm, bn, bk, 4, efficiency=0.0, group=1, swap_ab=True,
                   per_sm=1, stream_k=True, serial=True)
    module = matmul_program(MatmulKey(c, n, 4096, "bf16", WIDEST, 132, b_kmajor=True, index_bits=32))
    run_pipeline(module, "default")
    usage = resource_usage(compile_sm90_or_skip(emit(module, "cuda")))
    assert len(usage) == 1, sorted(usage)
    assert all(u.spill_stores in (0, None) and u.spill_loads in (0, None) for u in usage.values())


def test_decode_cost_of_stream_k_summed_in_the_kernel():
    """Llama's QKV at M = 128 on 132 SMs in 64 x 128 units: stream-K's cost without the
    fixup's launch, each partial to DRAM once, and after the longest the last block's
    store of its partial and read of the most partials a tile has (two of 32 KiB: span 6
    of a tile's 8 trips) at `sm_sum_bytes_per_s`."""
    import dataclasses

    from tilec.gemm import decode_cost, most_sharers, shared_segments
    from tilec.support.target import target

    t = target("sm_90a")
    sk = GemmConfig("64x128x128:4:swapAB:p1:sk", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True, per_sm=1,
                    stream_k=True)
    ser = dataclasses.replace(sk, serial=True, name=sk.name + ":ser")
    assert most_sharers(96, 8, 6) == 2 and most_sharers(48, 16, 6) == 4 and most_sharers(4, 8, 8) == 0
    partial = 128 * 64 * 4
    dram = (96 * 64 * 4096 * 2 + shared_segments(96, 8, 6) * partial) / t.dram_bytes_per_s
    fill = (6 * (64 + 128) * 512 * 2 + 4 * partial) / t.sm_fill_bytes_per_s
    assert decode_cost(ser, 128, 6144, 4096, 132, t) == pytest.approx(max(dram, fill) + 3 * partial
                                                                      / t.sm_sum_bytes_per_s)
    assert decode_cost(sk, 128, 6144, 4096, 132, t) > max(dram, fill) + t.kernel_gap_s


def test_the_rule_with_stream_k_takes_what_it_took(monkeypatch):
    """With `STREAM_K` on, Llama's projections at M = 1 .. 128 on 132 SMs take what they
    take without it: stream-K summed in the kernel costs more than the rule's pick
    everywhere (QKV at M = 128: 20.5 us against 19.7 whole; measured on the H200 22.0
    against 19.5)."""
    from tilec import gemm

    shapes = {"qkv": (6144, 4096), "o": (4096, 4096), "gate_up": (28672, 4096), "down": (4096, 14336)}
    before = {(m, s): gemm.choose_config(m, n, 132, k=k, b_kmajor=True) for m in (1, 16, 64, 128)
              for s, (n, k) in shapes.items()}
    monkeypatch.setattr(gemm, "STREAM_K", True)
    gemm._decode_config.cache_clear()
    try:
        for (m, s), c in before.items():
            assert gemm.choose_config(m, shapes[s][0], 132, k=shapes[s][1], b_kmajor=True) == c, (m, s)
    finally:
        gemm._decode_config.cache_clear()
