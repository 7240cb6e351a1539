"""The attention kernel's tiles from the head dim (compiler/attention_tiles.py's rule
from the shared-memory and register budgets), and head dim 256 built by it: on the
CPU reference executor against float64 NumPy within test_attention.py's bound (its
S-rounding term d is the one that grows with D), and its CUDA compiled by NVRTC
with no spills."""

from __future__ import annotations

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_attention import run_case

from tilec.compiler.attention import attention_fwd
from tilec.compiler.attention_tiles import (
    SMEM_RESERVE,
    TileConfig,
    consumer_registers,
    fits,
    fits_blocks,
    overlap_registers_needed,
    registers_needed,
    smem_bytes,
    tile_config,
)
from tilec.compiler.pipeline import emit, run_pipeline

KIB = 1024


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_tile_rule_table(dtype):
    """D = 64: two blocks of 128 x 64 per multiprocessor (four consumer warpgroups, the
    H200's fastest in session 32); D = 128 keeps one block of 128 x 128 (two warpgroups,
    as two blocks of 64 x 64 would: the fewer blocks win); D = 256 gets 64 x 64 on one
    consumer warpgroup."""
    assert tile_config(64, dtype) == TileConfig(128, 64, 2, blocks=2)
    assert tile_config(128, dtype) == TileConfig(128, 128, 2)
    assert tile_config(256, dtype) == TileConfig(64, 64, 2)
    assert tile_config(256, dtype).warpgroups == 1


def test_tile_rule_budget_arithmetic():
    """The numbers of compiler/attention_tiles.py's docstring: the consumers' budget,
    their needs, the shared memory; at D = 64 two blocks of 128 x 128 are over the
    registers (136 > 104) and three of 128 x 64 too (72); at D = 128 two blocks of 64 x 64
    fit (as many warpgroups as one of 128 x 128); at D = 256 each larger candidate is
    over the shared memory."""
    assert consumer_registers(2, blocks=2) == 104 and consumer_registers(2, blocks=3) == 72
    assert registers_needed(128, 128) == 168 and registers_needed(64, 128) == 136
    assert registers_needed(64, 64) == 104 and overlap_registers_needed(64, 64) == 120
    assert registers_needed(256, 64) == 200
    assert smem_bytes(128, "bf16", 128, 128, 2) == 192 * KIB + 4096
    assert smem_bytes(64, "bf16", 128, 64, 2) == 64 * KIB + 4096
    assert smem_bytes(256, "bf16", 64, 64, 2) == 192 * KIB + 4096
    assert smem_bytes(256, "bf16", 128, 64, 2) == 256 * KIB + 4096  # over 227 KiB
    assert smem_bytes(256, "bf16", 64, 128, 2) == 320 * KIB + 4096
    assert fits(64, "bf16", 128, 64, 2, blocks=2) and not fits(64, "bf16", 128, 128, 2, blocks=2)
    assert not fits(64, "bf16", 128, 64, 2, blocks=3)
    assert fits(128, "bf16", 64, 64, 2, blocks=2) and fits(128, "bf16", 128, 128, 2)
    assert not fits(256, "bf16", 128, 64, 2) and not fits(256, "bf16", 64, 128, 2)


def test_tile_rule_default_kernel_at_d64():
    """The default D = 64 kernel: `__launch_bounds__(384, 2)`, the consumers at 104
    registers with the plain loop (the overlapped one needs 120), no spills."""
    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(64, "bf16", True, persistent=132).module
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    assert "__launch_bounds__(384, 2)" in src and "setmaxnreg.inc.sync.aligned.u32 104;" in src
    assert "wgmma.wait_group.sync.aligned 1;" not in src
    result = compile_sm90_or_skip(src)
    usage = resource_usage(result)["attention_fwd_kernel"]
    assert usage.spill_stores == 0 and usage.spill_loads == 0 and usage.stack_bytes == 0


def test_tile_rule_smem_is_the_kernels():
    """The rule's shared-memory count covers the kernel's own (compiler/cuda's
    allocation of every buffer and barrier), within `SMEM_RESERVE`."""
    from tilec.compiler.cuda.kernel_info import kernel_infos

    for d in (128, 256):
        module = attention_fwd(d, "bf16", True, persistent=132).module
        run_pipeline(module, "default")
        (info,) = kernel_infos(module).values()
        t = tile_config(d)
        estimate = smem_bytes(d, "bf16", t.bm, t.bn, t.stages)
        assert estimate - SMEM_RESERVE < info.dynamic_smem_bytes <= estimate


def test_tile_rule_errors():
    with pytest.raises(ValueError, match="dtype 'f32'"):
        tile_config(64, "f32")
    with pytest.raises(ValueError, match="no tiles fit head dim 512"):
        tile_config(512)


HD256_CASES = {
    # one full 64 x 64 block and a ragged one each way; causal
    "ragged": dict(sq=70, skv=70),
    "causal": dict(causal=True, sq=77, skv=77),
    # GQA, 2 batches, Sq != Skv (both odd), f16, inputs in (B, S, H, D) memory
    "gqa-f16-bshd": dict(group=2, b=2, h=4, sq=41, skv=99, dtype="f16", bshd=True),
    # MQA, causal with Sq > Skv (rows past Skv see every column)
    "mqa-causal-sq-gt-skv": dict(causal=True, group=3, h=3, sq=100, skv=61),
    # the KV loop's steps without the overlapped Q K^T
    "no-overlap": dict(sq=33, skv=130, overlap=False),
}


@pytest.mark.parametrize("case", HD256_CASES)
def test_hd256_layout_level(case):
    """D = 256 with the rule's tiles (bm = bn = 64, one consumer warpgroup, the
    overlapped loop: P_j V in flight under softmax_j+1), warp-specialised, on the executor."""
    run_case(d=256, bm=None, bn=None, stages=None, **HD256_CASES[case])


def test_hd256_persistent():
    """Persistent: 9 causal MQA tiles of 1 to 3 KV steps on 5 blocks (the ring's phases
    and Q's barriers carried across tiles)."""
    run_case(d=256, bm=None, bn=None, stages=None, causal=True, group=3, h=3, sq=150, skv=150, persistent=5)


@pytest.mark.parametrize("ws", [True, False], ids=["ws", "sync"])
def test_hd256_lowered(ws):
    """After the default pipeline (the wgmma m64n256k16 of P V, the TMA boxes of
    256-element rows), warp-specialised and block-synchronous; causal, Sq > Skv."""
    run_case(d=256, bm=None, bn=None, stages=None, causal=True, sq=100, skv=61, level="lowered", ws=ws)


@pytest.mark.parametrize("causal,persistent,dtype", [(False, 0, "bf16"), (True, 0, "bf16"), (False, 132, "bf16"),
                                                     (True, 132, "bf16"), (True, 132, "f16")])
def test_hd256_cuda_compiles(causal, persistent, dtype):
    """D = 256's CUDA (the rule's tiles; the overlapped loop, bn being 64) compiles for
    sm_90a at the 240 registers of its 256 threads with no spills, persistent (the
    default) or on the grid of one block per tile (80 to 88 bytes there while every
    wgmma descriptor of the loop was hoisted into registers: O's 128 registers are in
    flight under the softmax beside S, P_j and P_j+1); P V is one m64n256k16 wgmma with A from registers, every convert_layout a
    renaming; ptxas keeps the wgmma asynchronous (no C7515 / C7520)."""
    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(256, dtype, causal, persistent=persistent).module
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    assert "wgmma.m64n256k16 per warpgroup, A from registers" in src
    assert "__launch_bounds__(256, 1)" in src
    conversions = [line for line in src.splitlines() if "// convert_layout" in line]
    assert conversions and all("a renaming of registers, no data moves" in c for c in conversions)
    result = compile_sm90_or_skip(src)
    usage = resource_usage(result)["attention_fwd_kernel"]
    assert usage.registers <= 240 and usage.spill_stores == 0 and usage.spill_loads == 0
    assert not any(code in result.log for code in ("C7515", "C7520", "C7508")), result.log


def test_hd256_without_overlap_spills_nothing():
    """Causal on the grid without the overlapped Q K^T (one S tile live): no spills."""
    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(256, "bf16", True, overlap=False).module
    run_pipeline(module, "default")
    usage = resource_usage(compile_sm90_or_skip(emit(module, "cuda")))["attention_fwd_kernel"]
    assert usage.spill_stores == 0 and usage.spill_loads == 0 and usage.stack_bytes == 0


def test_hd256_pingpong_needs_two_warpgroups():
    """The pingpong schedule takes turns between consumer warpgroups: at D = 256 the rule
    gives one, so it is refused by name."""
    with pytest.raises(ValueError, match="pingpong needs warp_specialized and bm >= 128"):
        attention_fwd(256, pingpong=True)


def test_blocks_per_multiprocessor_budgets():
    """The consumers' `setmaxnreg inc` is the block's share of the register file less
    the producer's: 240 for one block of two consumer warpgroups (the entry's 168 a
    thread), 232 for two blocks of one (128 at entry), 136 for three (80), 104 for two
    blocks of two (80); two blocks of 64 x 128 fit the shared memory at D = 64, not at
    D = 128, where attention_fwd refuses them."""
    assert consumer_registers(2) == 240 and consumer_registers(1) == 240
    assert consumer_registers(1, blocks=2) == 232
    assert consumer_registers(1, blocks=3) == 136
    assert consumer_registers(2, blocks=2) == 104
    assert consumer_registers(3) == 160
    assert fits_blocks(64, "bf16", 64, 128, 2, 2) and fits_blocks(64, "bf16", 64, 64, 2, 3)
    assert not fits_blocks(128, "bf16", 64, 128, 2, 2)
    with pytest.raises(ValueError, match="2 blocks of 64 x 128 tiles"):
        attention_fwd(128, bm=64, bn=128, min_blocks=2)
