"""Swap A/B for decode sizes: `gemm_hopper_ws(swap_ab=True)` computes C^T = B^T A^T so
the weight's N rides the wgmma's 64 rows and the small run-time M its N (16, 32 or
64 columns, the columns past M zero-filled and masked), B K-major (a `torch.nn.Linear`
weight), C stored through a view with strides (1, N), the bias and per-tensor scales
along the rows. On the reference executor (before and after the default pipeline) at
ragged shapes against float64 within the documented bounds (bf16: tests/helpers/
matmul_oracle.py; FP8: the executor's f32 sums, tests/unit/test_gemm_fp8.py's bound);
`choose_config`'s decode rule (`decode_cost`: the swap, unsplit or split, against
split-K or the wave rule's pick; the split programs are tests/unit/test_gemm_split_k.py's);
NVRTC compiles without spills. The GPU tests are tests/gpu/test_matmul_gpu.py's and
test_matmul_fp8_gpu.py's swapped ones."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.dtypes import f8_to_f32, f32_to_bf16, to_f8
from tilec.gemm import (MatmulKey, choose_config, decode_cost, matmul_program,
                        splits, swap_config)
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run
from tilec.runtime.reference.values import bf16_to_f32
from tilec.support.target import target

CASES = {
    # N = 200: 4 blocks of 64 rows of N, the last 8; K = 336: 6 steps of 64 (the last 16
    # wide), rounded up to 6 by the 2 stages; M in the tile's 16 columns
    "m1-plain": (1, 200, 336, 16, Epilogue()),
    "m5-bias-silu-residual-f16": (5, 200, 336, 16, Epilogue(bias=True, activation="silu", residual=True,
                                                            out_dtype="f16")),
    "m40-gelu-64-columns": (40, 136, 96, 64, Epilogue(bias=True, activation="gelu")),
    "m9-bias-silu_tanh-f16": (9, 200, 336, 16, Epilogue(bias=True, activation="silu_tanh", out_dtype="f16")),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("case", CASES)
def test_swapped_gemm_against_float64(case, level):
    m, n, k, bn, ep = CASES[case]
    module = gemm_hopper_ws(None, n, k, bm=64, bn=bn, bk=64, stages=2, b_kmajor=True, swap_ab=True, epilogue=ep)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=m)
    _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


# N = 200 (4 block rows, the last 8 rows), K = 1000 (16 steps of 64, the last 40 wide),
# 2 stages: 3 blocks over 4 units (unsplit: one block takes two) or 12 (split 3 ways, 6
# steps a unit: 3 rounds of the ring, so a block's next unit starts on the other phase),
# M = 1 and 16 of one program; 5 blocks over 8 units split twice, M = 20 (two column tiles)
# 128 rows of N a unit (two consumer warpgroups sharing each stage of A^T): 2 tiles, the
# last 72 rows, split twice over 3 blocks, 32 columns, M = 1 and 20
PERSISTENT = {
    "unsplit-3-blocks": (64, 16, 1, 3, (1, 16), "layout"),
    "split3-3-blocks": (64, 16, 3, 3, (1, 16), "layout"),
    "split2-5-blocks-two-columns": (64, 16, 2, 5, (20,), "lowered"),
    "128-rows-split2-3-blocks": (128, 32, 2, 3, (1, 20), "lowered"),
}


@pytest.mark.parametrize("case", PERSISTENT)
def test_persistent_swapped_gemm_against_float64(case):
    """`gemm_hopper_ws(swap_ab=True, persistent=P)`: min(P, units) blocks walk the units
    (split or not), the ring and its phases running on across a block's units; the
    widest epilogue, workspace and output poisoned."""
    bm, bn, split, blocks, ms, level = PERSISTENT[case]
    n, k, ep = 200, 1000, Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")
    module = gemm_hopper_ws(None, n, k, bm=bm, bn=bn, bk=64, stages=2, b_kmajor=True, swap_ab=True, split_k=split,
                            persistent=blocks, epilogue=ep)
    if level == "lowered":
        run_pipeline(module, "default")
    for m in ms:
        ops = _operands(m, n, k, ep, seed=m + split)
        _check(_run(module, m, n, ep, ops, b_kmajor=True, split_k=split), ops, ep)


def test_swapped_k_steps_of_128_bf16_elements():
    """bf16 K steps of 128 (256-byte rows of the weight a stage: two 128-byte-swizzled
    boxes a load, the wgmma descriptors stepping over both) after the default pipeline."""
    m, n, k, ep = 9, 136, 1000, Epilogue(bias=True)
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=128, stages=2, b_kmajor=True, swap_ab=True, persistent=2,
                            epilogue=ep)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=4)
    _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


def test_one_swapped_program_for_every_m_of_its_columns():
    """M is an argument: one program serves M = 1, 9 and 16 (its 16 columns)."""
    n, k, ep = 72, 64, Epilogue(bias=True)
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True, epilogue=ep)
    for m in (1, 9, 16):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


@pytest.mark.parametrize(("level", "bk", "blocks", "k"), [("layout", 128, 0, 272), ("lowered", 128, 0, 272),
                                                         ("lowered", 256, 2, 1040)])
def test_swapped_fp8_gemm_with_per_tensor_scales_and_bias(level, bk, blocks, k):
    """e4m3, m64n16k32: the scales (stride-0 views) and the bias along the rows of C^T;
    K steps of 128 or of 256 (`swap_config`'s 256-byte rows: two 128-byte-swizzled boxes
    a load; K = 1040 ragged), one block a tile or persistent over 2 blocks."""
    m, n = 3, 208
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=bk, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                            swap_ab=True, persistent=blocks, epilogue=Epilogue(scale=True, bias=True))
    if level == "lowered":
        run_pipeline(module, "default")
    rng = np.random.default_rng(3)
    a8, w8 = to_f8(rng.standard_normal(m * k) * 8, "f8E4M3FN"), to_f8(rng.standard_normal(n * k) * 8, "f8E4M3FN")
    bias_bits = f32_to_bf16(rng.standard_normal(n).astype(np.float32))
    bias = bf16_to_f32(bias_bits).astype(np.float64)
    inputs = {"pa": a8, "pb": w8, "pc": np.full(m * n, 0x7FC0, np.uint16), "pbias": bias_bits,
              "pscale_a": np.array([0.37], np.float32), "pscale_b": np.array([-2.5], np.float32), "m": m}
    got = bf16_to_f32(np.asarray(run(module, inputs)["pc"]).reshape(m, n)).astype(np.float64)
    a = f8_to_f32(np.asarray(a8).reshape(m, k), "f8E4M3FN").astype(np.float64)
    w = f8_to_f32(np.asarray(w8).reshape(n, k), "f8E4M3FN").astype(np.float64)
    s = np.float64(np.float32(0.37)) * np.float64(np.float32(-2.5))
    exact, mag = (a @ w.T) * s + bias[None, :], abs(a) @ abs(w.T) * abs(s)
    gamma = k * 2.0**-24
    err = abs(got - exact) - (gamma * mag + 2.0**-22 * abs(exact) + 2.0**-8 * (abs(exact) + gamma * mag))
    assert np.all(err <= 0), float(err.max())


@pytest.mark.parametrize(("m", "n", "k", "fp8", "expected"), [
    (1, 8192, 8192, False, "64x16x128:8:swapAB:p1:clip"),   # 128 units of 64 rows: DRAM's bound, no split
    (16, 6144, 4096, False, "64x16x128:8:swapAB:p1:clip"),  # 96 units on 96 SMs stream the weight at DRAM's pace
    (64, 8192, 8192, False, "64x64x128:4:swapAB:p1:clip"),  # 33 .. 64: 64 columns, 4 stages of 32 KiB
    (17, 28672, 4096, False, "256x32x64:4:swapAB:p1:clip"),  # 112 units of 256 rows: A^T loaded once per 256
    (16, 4096, 14336, False, "64x16x128:8:swapAB:p1:clip"),  # 64 units: each SM twice its share (< SM_STREAMS)
    (1, 2048, 8192, False, "64x16x128:8:swapAB:splitK2:csplit:clip"),   # 32 units would each stream 4 shares
    (1, 1024, 16384, False, "64x16x128:8:swapAB:p1:splitK4:clip"),  # 16 units: 8 shares each
    (1, 1024, 16384, True, "f8:64x16x256:8:swapAB:p1:splitK4"),  # FP8 (256-byte rows too) splits the swap
    # 65 .. 128: 128 columns, 128 units in one round (64 tiles of 128 rows in pairs read A^T half as
    # often, but their 64 KiB partial a block, summed after the rest, costs more)
    (65, 8192, 8192, False, "64x128x128:4:swapAB:p1:clip"),
    (65, 8192, 8192, True, "f8:128x128x128:4:pp"),     # 8-bit: the swap only to 64
])
def test_decode_rule(m, n, k, fp8, expected):
    assert choose_config(m, n, 132, k=k, fp8=fp8, b_kmajor=True).name == expected


def test_no_swap_for_row_major_b():
    assert not choose_config(1, 8192, 132, k=8192).swap_ab  # B row-major: its transpose is not K-major


def test_swap_config_rings():
    """K steps of 256 bytes, as many stages as fit 227 KiB up to 8 (a power of two),
    one persistent block a multiprocessor."""
    got = {m: (c.bn, c.bk, c.stages, c.per_sm, c.smem_bytes()) for m in (1, 32, 33, 128) for c in [swap_config(m)]}
    assert got == {1: (16, 128, 8, 1, 8 * 20 * 1024 + 8 * 1024), 32: (32, 128, 8, 1, 8 * 24 * 1024 + 8 * 1024),
                   33: (64, 128, 4, 1, 4 * 32 * 1024 + 4 * 1024), 128: (128, 128, 4, 1, 4 * 48 * 1024 + 4 * 1024)}
    assert swap_config(5, fp8=True).bk == 256 and swap_config(5, fp8=True).stages == 8
    assert swap_config(5, fp8=True, block_scales=True).bk == 128  # one K block of the scales a step
    assert swap_config(1).kwargs(132)["persistent"] == 132


def test_swap_config_fine_steps():
    """`fine`: the K step halved (to 128 bytes at least) while the doubled stages fit and stay
    within 8: the same ring's bytes in finer stages; rings of 8 stages, 128-byte steps and
    block scales unchanged."""
    got = {(m, r): swap_config(m, rows=r, fine=True).name for m in (16, 64, 128) for r in (64, 128, 256)}
    assert got == {(16, 64): "64x16x128:8:swapAB:p1", (16, 128): "128x16x64:8:swapAB:p1",
                   (16, 256): "256x16x64:4:swapAB:p1",
                   (64, 64): "64x64x64:8:swapAB:p1", (64, 128): "128x64x64:8:swapAB:p1",
                   (64, 256): "256x64x64:4:swapAB:p1",
                   (128, 64): "64x128x64:8:swapAB:p1", (128, 128): "128x128x64:4:swapAB:p1",
                   (128, 256): "256x128x64:4:swapAB:p1"}
    for m in (16, 64, 128):
        for r in (64, 128, 256):
            fine, coarse = swap_config(m, rows=r, fine=True), swap_config(m, rows=r, fine=False)
            assert fine.stages * fine.bk == coarse.stages * coarse.bk and fine.smem_bytes() <= 227 * 1024
    assert swap_config(5, fp8=True, fine=True).name == "f8:64x16x256:8:swapAB:p1"
    assert swap_config(64, fp8=True, fine=True).name == "f8:64x64x128:8:swapAB:p1"
    assert swap_config(64, block_scales=True, fine=True).bk == 128  # one K block of the scales a step


def test_swap_config_rows():
    """128 and 256 rows of N a unit (two and four consumer warpgroups): 256-byte K steps
    where 4 stages fit, else 128-byte ones."""
    got = {(m, r): swap_config(m, rows=r).name for m in (16, 64, 128) for r in (128, 256)}
    assert got == {(16, 128): "128x16x128:4:swapAB:p1", (16, 256): "256x16x64:4:swapAB:p1",
                   (64, 128): "128x64x128:4:swapAB:p1", (64, 256): "256x64x64:4:swapAB:p1",
                   (128, 128): "128x128x64:4:swapAB:p1", (128, 256): "256x128x64:4:swapAB:p1"}
    assert all(swap_config(m, rows=r).smem_bytes() <= 227 * 1024 for m in (16, 64, 128) for r in (128, 256))


def test_decode_cost():
    """The longest of DRAM delivering the weight's bytes, the busiest SM filling its
    shared memory with its units' bytes of the weight and A^T, and its tensor cores on
    its tiles, in seconds from the Target's rates; split-K's partials and launch (the
    weight's bytes in flight aside: `dram_latency_s` 0, test_little_s_law below)."""
    t = dataclasses.replace(target("sm_90a"), dram_latency_s=0.0)
    swap = swap_config(1)
    dram = 128 * 64 * 8192 * 2 / t.dram_bytes_per_s
    assert decode_cost(swap, 1, 8192, 8192, 132, t) == dram  # 128 units: one round, DRAM-bound
    busiest = (64 + 16) * 8192 * 2 / t.sm_fill_bytes_per_s
    assert decode_cost(swap, 1, 1024, 8192, 132, t) == busiest  # 16 units: the busiest SM's fill
    split = next(c for c in splits(swap, 8192) if c.split_k == 4)
    partial = 2 * 16 * 64 * 4  # M's bucket's 16 columns of f32, written and read back
    assert decode_cost(split, 1, 1024, 8192, 132, t) == pytest.approx(max(
        64 * (64 * 2048 * 2 + partial) / t.dram_bytes_per_s, ((64 + 16) * 2048 * 2 + partial) / t.sm_fill_bytes_per_s
    ) + t.kernel_gap_s)
    # M = 128 on 16 units: 64 x 128 tiles of 8192 K, the tensor cores' 2 x 64 x 128 x 8192 flops under the fill
    wide = swap_config(128)
    assert 2 * 64 * 128 * 8192 / t.sm_mma_flops_per_s < decode_cost(wide, 128, 1024, 8192, 132)
    assert swap_config(33).bn == 64 and swap_config(32).bn == 32 and swap_config(5, fp8=True).bk == 256


def test_little_s_law():
    """DRAM delivers the weight at most at the rate its bytes in flight allow: the resident
    blocks' rings' stages of the weight over `dram_latency_s` (`ring_rate`). Llama's QKV at
    M = 128 in 96 units of 64 rows, 4 stages of 64 x 128: 6.3 MB in flight, below the 8 MB
    DRAM's 3.65 TB/s x 2.2 us needs; at M = 1, 8 stages: 12.6 MB, the bandwidth."""
    from tilec.gemm import ring_rate

    t = target("sm_90a")
    qkv = swap_config(128)
    assert ring_rate(qkv, 96, 64, 4, t) == 96 * 4 * 64 * 128 * 2 / t.dram_latency_s < t.dram_bytes_per_s
    dram = 96 * 64 * 4096 * 2 / ring_rate(qkv, 96, 64, 4, t)
    fill = (64 + 128) * 4096 * 2 / t.sm_fill_bytes_per_s
    assert decode_cost(qkv, 128, 6144, 4096, 132) == max(dram, fill)
    assert ring_rate(swap_config(1), 96, 64, 8, t) == t.dram_bytes_per_s
    assert decode_cost(swap_config(1), 1, 6144, 4096, 132) == 96 * 64 * 4096 * 2 / t.dram_bytes_per_s
    # no latency known: the bandwidth
    assert ring_rate(qkv, 96, 64, 4, dataclasses.replace(t, dram_latency_s=0.0)) == t.dram_bytes_per_s


def test_swap_refusals():
    kw = {"bm": 64, "bn": 16, "bk": 64, "stages": 2, "swap_ab": True}
    with pytest.raises(ValueError, match="swap_ab needs a run-time M"):
        gemm_hopper_ws(16, 64, 64, b_kmajor=True, **kw)
    with pytest.raises(ValueError, match="and B K-major"):
        gemm_hopper_ws(None, 64, 64, **kw)
    with pytest.raises(ValueError, match="without group"):
        gemm_hopper_ws(None, 64, 64, b_kmajor=True, group=2, **kw)
    with pytest.raises(ValueError, match="split_k needs persistent .or swapped. tiles and no pingpong, TMA epilogue "
                                         "or chunks"):
        gemm_hopper_ws(None, 64, 64, b_kmajor=True, chunk=8, split_k=2, **kw)


@pytest.mark.parametrize(("m", "dtype", "ep", "per_sm"), [
    (16, "bf16", Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16"), 0),
    (64, "f8E4M3FN", Epilogue(scale=True, bias=True, activation="silu"), 0),
    (128, "bf16", Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16"), 1),
])
def test_swapped_configurations_compile_without_spills(m, dtype, ep, per_sm):
    import dataclasses

    from tilec.runtime.nvrtc import resource_usage

    c = dataclasses.replace(swap_config(m, fp8=dtype != "bf16"), per_sm=per_sm)
    module = matmul_program(MatmulKey(c, 8192, 8192, dtype, ep, 132, b_kmajor=True, index_bits=32))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    kind = "bf16.bf16" if dtype == "bf16" else "e4m3.e4m3"
    assert f"wgmma.mma_async.sync.aligned.m64n{c.bn}k{16 if dtype == 'bf16' else 32}.f32.{kind}" in cuda
    usage = resource_usage(compile_sm90_or_skip(cuda))["gemm_kernel"]
    assert usage.spill_stores in (0, None)


def test_matmul_dispatches_a_decode_call_to_the_swapped_kernel(monkeypatch):
    """`tilec.matmul` on f16 NumPy stand-ins of GPU arrays (x @ w.T, w (N, K)): the rule
    takes the swap, and the kernel it builds, run on the reference executor with the
    arguments `matmul` passes, gives x @ w.T + bias within the bound."""
    from helpers.matmul_oracle import within_bound

    from tilec import gemm

    calls = []

    def kernel_of(key):
        module = matmul_program(key)

        def launch(*args, stream=None):
            names = ["pa", "pb", "pc"] + ["pbias"] * key.epilogue.bias + ["m"]
            outs = run(module, dict(zip(names, args)))
            args[2][...] = outs["pc"]
            calls.append(key)

        return launch

    for name, value in (("_on_gpu", lambda x: True), ("_sms", lambda x: 132), ("_address", lambda x: 0),
                        ("_stream", lambda x: None), ("matmul_kernel", kernel_of),
                        ("_empty", lambda like, shape, dtype: np.full(shape, np.nan, np.float16))):
        monkeypatch.setattr(gemm, name, value)
    rng = np.random.default_rng(0)
    m, n, k = 5, 200, 336
    x = rng.standard_normal((m, k)).astype(np.float16)
    w = rng.standard_normal((n, k)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float16)
    got = gemm.matmul(x, w.T, bias=bias)
    (key,) = calls
    assert key.config.swap_ab and key.config.bn == 16 and key.b_kmajor
    f64 = [v.astype(np.float64) for v in (got, x, w.T, bias)]
    assert within_bound(*f64, out="f16").all()


def test_ties_go_to_fewer_bytes_into_shared_memory():
    """Llama's gate_up at M = 64: DRAM-bound at 64 rows of N a unit (448 units) and at
    256 (112), which loads A^T once per 256 rows: 1.25 bytes into shared memory a byte
    of the weight against 2 (H200: 60.8 us against 67.2)."""
    from tilec.gemm import fill_bytes

    n, k = 28672, 4096
    narrow, wide = swap_config(64), swap_config(64, rows=256)
    assert decode_cost(narrow, 64, n, k, 132) == decode_cost(wide, 64, n, k, 132)
    assert fill_bytes(narrow, 64, n, k) == 448 * (64 + 64) * k * 2
    assert fill_bytes(wide, 64, n, k) == 112 * (256 + 64) * k * 2
    assert choose_config(64, n, 132, k=k, b_kmajor=True) == dataclasses.replace(wide, clip_small=True,
                                                                            name=f"{wide.name}:clip")


# `clip_small`: after a block's first trip A^T's box cut to M's rows (`layout.tma_load {clip}`,
# the bytes expected at run time); M below the tile's columns (the rows past M keep the first
# trip's zeros), and M past them (two column tiles: the box whole, the second tile's rows past
# M zeros, counted), split and persistent; 3 trips of 2 stages a unit
CLIPPED = {
    "m5-of-16": (5, 16, 1, 0, "layout"),
    "m20-of-16-two-tiles": (20, 16, 1, 0, "layout"),
    "m37-of-64-split2-persistent": (37, 64, 2, 3, "lowered"),
}


@pytest.mark.parametrize("case", CLIPPED)
def test_swapped_gemm_clipped_against_float64(case):
    m, bn, split, blocks, level = CLIPPED[case]
    n, k, ep = 200, 336, Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")
    module = gemm_hopper_ws(None, n, k, bm=64, bn=bn, bk=64, stages=2, b_kmajor=True, swap_ab=True, epilogue=ep,
                            split_k=split, persistent=blocks, clip_small=True)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=m)
    _check(_run(module, m, n, ep, ops, b_kmajor=True, split_k=split), ops, ep)


@pytest.mark.parametrize("order", ["b_first", "arrive_last"])
def test_swapped_gemm_clipped_in_the_producers_orders_against_float64(order):
    """The clipped stages are loaded as the whole ones (`load_stage`'s one path): the
    weight's box first, or the arrival after the copies, there too."""
    m, n, k, ep = 5, 200, 336, Epilogue(bias=True, out_dtype="f16")
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True, epilogue=ep,
                            clip_small=True, **{order: True})
    text = str(module)
    assert text.count("clip") >= 2
    ops = _operands(m, n, k, ep, seed=7)
    _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


def test_clip_small_swapped_needs_its_own_loads():
    """Swapped, `clip_small` is not with clusters of shared loads (unswapped: the decode halves',
    test_gemm_decode_pairs.py)."""
    with pytest.raises(ValueError, match="clip_small needs, swapped, no clusters of shared loads"):
        gemm_hopper_ws(None, 256, 256, bm=64, bn=128, bk=64, stages=2, b_kmajor=True, swap_ab=True, cluster=(2, 1),
                       persistent=4, clip_small=True)
