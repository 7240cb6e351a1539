"""`tilec.matmul`'s kernels without a GPU: the configuration rule (wave quantisation
over the multiprocessors, the Target's shared memory), the epilogue written on the
accumulator (bias, ReLU/GELU/SiLU, residual, f16 output) with a run-time M, run on the
CPU reference executor on odd shapes against float64 within the documented bound
(tests/helpers/matmul_oracle.py, docs/matmul.md), before and after the default
pipeline, output poisoned; and NVRTC compiles of every configuration the entry picks.
The GPU tests are tests/gpu/test_matmul_gpu.py."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from helpers.matmul_oracle import within_bound
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.dtypes import bf16_to_f32, f32_to_bf16
from tilec.gemm_programs import Epilogue, barriers_fit, gemm_hopper, gemm_hopper_ws
from tilec.gemm import CONFIGS, MatmulKey, choose_config, matmul_program
from tilec.runtime.reference import run
from tilec.support.diagnostics import TilecError
from tilec.support.target import target


def _bits(x: np.ndarray, dtype: str) -> np.ndarray:
    """float64 values (exact in `dtype`) as the reference executor's buffer."""
    return f32_to_bf16(x.astype(np.float32)) if dtype == "bf16" else x.astype(np.float16)


def _values(x: np.ndarray, dtype: str) -> np.ndarray:
    return (bf16_to_f32(x) if dtype == "bf16" else np.asarray(x, np.float32)).astype(np.float64)


def _operands(m: int, n: int, k: int, ep: Epilogue, seed: int = 0) -> dict:
    """Random A, B (bf16), bias and residual (the output type), as float64 values
    exactly representable in their types."""
    rng = np.random.default_rng(seed)
    out = {"a": rng.standard_normal((m, k)), "b": rng.standard_normal((k, n))}
    out["bias"] = rng.standard_normal(n) if ep.bias else None
    out["residual"] = rng.standard_normal((m, n)) if ep.residual else None
    for name, dtype in (("a", "bf16"), ("b", "bf16"), ("bias", ep.out_dtype), ("residual", ep.out_dtype)):
        if out[name] is not None:
            out[name] = _values(_bits(out[name], dtype), dtype)
    return out


def _run(module, m: int, n: int, ep: Epilogue, ops: dict, dynamic_m: bool = True, b_kmajor: bool = False,
         split_k: int = 1, counters: int = 0) -> np.ndarray:
    """Run the program on the reference executor; C as float64 (poisoned with NaN first).
    `b_kmajor`: B is given as its transpose, row-major N x K; `split_k`: the program
    takes a workspace (poisoned too); `counters`: that many zeroed i32 counters (serial
    split-K's `pctr`)."""
    poison = np.full(m * n, np.nan, np.float32)
    b = ops["b"].T if b_kmajor else ops["b"]
    inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(b.ravel(), "bf16"),
              "pc": _bits(poison, ep.out_dtype)}
    if ep.bias:
        inputs["pbias"] = _bits(ops["bias"], ep.out_dtype)
    if ep.residual:
        inputs["pres"] = _bits(ops["residual"].ravel(), ep.out_dtype)
    if split_k > 1:
        inputs["pw"] = np.full(split_k * m * n, np.nan, np.float32)
    if counters:
        inputs["pctr"] = np.zeros(counters, np.int32)
    if dynamic_m:
        inputs["m"] = m
    return _values(run(module, inputs)["pc"], ep.out_dtype).reshape(m, n)


def _check(got, ops, ep: Epilogue) -> None:
    ok = within_bound(got, ops["a"], ops["b"], ops["bias"], ep.activation, ops["residual"], ep.out_dtype)
    assert ok.all(), f"{(~ok).sum()} elements outside the bound, first at {np.argwhere(~ok)[0]}"


EPILOGUES = {
    "plain": Epilogue(),
    "bias": Epilogue(bias=True),
    "relu": Epilogue(bias=True, activation="relu"),
    "gelu": Epilogue(activation="gelu"),
    "silu": Epilogue(bias=True, activation="silu"),
    "silu_tanh": Epilogue(bias=True, activation="silu_tanh"),
    "silu_tanh-f16": Epilogue(bias=True, activation="silu_tanh", out_dtype="f16"),
    "residual": Epilogue(residual=True),
    "f16": Epilogue(out_dtype="f16"),
    "all-f16": Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16"),
}

# 72 x 40 x 48: two block rows of 64 (the second 8 rows), one block column of 64 (40
# wide), one K step of 64 (48 deep) rounded up to the 2 stages
SMALL = {"bm": 64, "bn": 64, "bk": 64, "stages": 2}


@pytest.mark.parametrize("name", EPILOGUES)
def test_epilogue_on_the_reference_executor(name):
    """The warp-specialised, persistent, TMA-epilogue program (the entry's kind) with a
    run-time M, each epilogue, at 72 x 40 x 48."""
    ep = EPILOGUES[name]
    m, n, k = 72, 40, 48
    module = gemm_hopper_ws(None, n, k, persistent=3, group=2, tma_epilogue=True, epilogue=ep, **SMALL)
    ops = _operands(m, n, k, ep)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_epilogue_after_the_pipeline():
    """Bias + GELU + residual through the default pipeline (the code the GPU runs), in
    both programs: the registers epilogue of `gemm_hopper`, the TMA epilogue of
    `gemm_hopper_ws` in column chunks."""
    ep = Epilogue(bias=True, activation="gelu", residual=True)
    m, n, k = 72, 136, 48
    ops = _operands(m, n, k, ep, seed=1)
    for module in (gemm_hopper(None, n, k, epilogue=ep, **SMALL),
                   gemm_hopper_ws(None, n, k, persistent=2, tma_epilogue=True, chunk=64, epilogue=ep,
                                  **{**SMALL, "bn": 128})):
        run_pipeline(module, "default")
        _check(_run(module, m, n, ep, ops), ops, ep)


@pytest.mark.parametrize("kw", [{"stagger": 2, "chunk": 64}, {"stagger": 1},
                                {"pingpong": True, "handover": "loop", "one_c_buffer": True}],
                         ids=["staggered-chunks", "staggered", "pingpong-one-c-buffer"])
def test_staggered_and_pingpong_epilogues_with_a_run_time_m(kw):
    """The staggered cooperative tile (`stagger`: consumer 1's 64 rows of the last block
    row all past M = 72) and pingpong with one C buffer, with a run-time M and the widest
    epilogue (bias, SiLU, residual, f16), 72 x 136 x 200 on the reference executor after
    `default`: 4 K steps of 64 in 4 stages (the last one past K)."""
    ep = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")
    m, n, k = 72, 136, 200
    module = gemm_hopper_ws(None, n, k, bm=128, bn=128, bk=64, stages=4, persistent=2, tma_epilogue=True,
                            epilogue=ep, **kw)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=3)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_one_program_serves_every_m():
    """One module with a run-time M, run at M = 1, 64, 130: the grid and the tensor
    maps come from M."""
    ep = Epilogue(bias=True)
    n, k = 40, 48
    module = gemm_hopper_ws(None, n, k, persistent=2, group=8, tma_epilogue=True, epilogue=ep, **SMALL)
    for m in (1, 64, 130):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops), ops, ep)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_k_major_b(level):
    """B given as the transpose of a row-major N x K matrix (a `torch.nn.Linear`
    weight): K-contiguous shared stages, the wgmma descriptors fitted to them, with
    the column chunks and the bias of the entry's 128 x 256 configuration."""
    ep = Epilogue(bias=True)
    m, n, k = 72, 264, 136
    module = gemm_hopper_ws(None, n, k, bk=64, stages=2, persistent=2, group=8, tma_epilogue=True, chunk=128,
                            epilogue=ep, b_kmajor=True)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=3)
    _check(_run(module, m, n, ep, ops, b_kmajor=True), ops, ep)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_split_k(level):
    """Split-K with a run-time M (the decode sizes): 3 units per 64 x 64 tile over 520
    of K (9 steps of 64: 2 per split, rounded up to the 2 stages, the last split's past
    K), the partials reduced by the second launch with bias + SiLU + residual, at
    M = 1, 5, 64 (one program)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    n, k = 200, 520
    module = gemm_hopper_ws(None, n, k, bm=64, bn=64, bk=64, stages=2, persistent=7, group=1, split_k=3, epilogue=ep)
    if level == "lowered":
        run_pipeline(module, "default")
    for m in (1, 5, 64):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops, split_k=3), ops, ep)


@pytest.mark.parametrize("serial", [True, False])
def test_split_k_of_one_wgmma_chunks(serial):
    """Split-K over the decode halves' chunks (`one_wgmma`, 32-column chunks of a 128 x 96 tile: two
    consumer warpgroups, B K-major): each unit's partial stored chunk by chunk, summed in the kernel
    by the tile's last unit (`serial`, the fixup chunk by chunk) or by the second launch; 7 K steps
    (the last split's last step past K), 3 block columns (the last past N), M = 101 of the tile's 128
    rows, bias + SiLU + residual (issue 39, dec50). Over 2 s on a loaded core: the executor runs
    8 units of 4 K steps and two consumer warpgroups (the reduction's launch too, unserial)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    n, k = 200, 448
    module = gemm_hopper_ws(None, n, k, bm=128, bn=96, bk=64, chunk=32, one_wgmma=True, b_kmajor=True, stages=2,
                            persistent=4, group=1, split_k=2, serial=serial, epilogue=ep)
    run_pipeline(module, "default")
    ops = _operands(101, n, k, ep, seed=101)
    _check(_run(module, 101, n, ep, ops, b_kmajor=True, split_k=2, counters=9 if serial else 0), ops, ep)


def test_split_k_refuses_what_it_does_not_do():
    with pytest.raises(ValueError, match="split_k needs persistent"):
        gemm_hopper_ws(None, 64, 64, split_k=2, persistent=4, tma_epilogue=True)


@pytest.mark.parametrize(("name", "k", "blocks", "group"), [("silu", 96, 3, 2), ("plain", 328, 2, 2),
                                                             ("all-f16", 200, 3, 2), ("relu", 64, 5, 2),
                                                             ("bias", 200, 3, 1)])
def test_overlapped_epilogue(name, k, blocks, group):
    """`overlap_epilogue`: the last column chunk of a tile stored under the next tile's
    first round of wgmma, at 200 x 136 x K (8 tiles of 64 x 128 in chunks of 64 over
    `blocks` persistent blocks: 1 to 3 tiles a block, grouped by `group` block rows),
    with one round of the ring (K 64, 96: the K loop has no trip), two (200) and three
    or more (328), each epilogue; on the reference executor, which reports a stage
    handed back twice or rewritten while a wgmma reads it, and a C buffer rewritten
    before its TMA store has read it."""
    ep = EPILOGUES[name]
    m, n = 200, 136
    module = gemm_hopper_ws(None, n, k, persistent=blocks, group=group, tma_epilogue=True, chunk=64, epilogue=ep,
                            overlap_epilogue=True, **{**SMALL, "bn": 128})
    ops = _operands(m, n, k, ep, seed=k)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_overlapped_epilogue_after_the_pipeline():
    """The overlapped epilogue through the default pipeline (the code the GPU runs),
    bias + SiLU, 3 blocks over 8 tiles."""
    ep = Epilogue(bias=True, activation="silu")
    m, n, k = 200, 136, 200
    module = gemm_hopper_ws(None, n, k, persistent=3, group=2, tma_epilogue=True, chunk=64, epilogue=ep,
                            overlap_epilogue=True, **{**SMALL, "bn": 128})
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=2)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_overlapped_epilogue_compiles_without_spills():
    """The entry's 128 x 256 tile with `overlap` (`GemmConfig.overlap`) and bias + SiLU at
    8192 x 28672 x 4096 compiles for sm_90a with 168 registers and no spills (without
    the overlap ptxas spilled 8 bytes there, in the epilogue)."""
    from helpers.nvrtc import sm90_usage_or_skip

    c = dataclasses.replace(CONFIGS[0], overlap=True)
    module = matmul_program(MatmulKey(c, 28672, 4096, "bf16", Epilogue(bias=True, activation="silu"), 132,
                                      index_bits=32))
    run_pipeline(module, "default")
    usage = sm90_usage_or_skip(emit(module, "cuda"))
    assert usage.registers == 168 and not usage.spill_stores and not usage.spill_loads


def test_overlapped_epilogue_refuses_what_it_does_not_do():
    with pytest.raises(ValueError, match="overlap_epilogue needs persistent tiles, the TMA epilogue and column"):
        gemm_hopper_ws(None, 256, 64, persistent=4, tma_epilogue=True, overlap_epilogue=True)  # no chunks
    with pytest.raises(ValueError, match="overlap_epilogue needs"):
        gemm_hopper_ws(None, 256, 64, persistent=4, chunk=128, overlap_epilogue=True)  # no TMA epilogue


def test_static_m_keeps_its_program():
    """A static M builds no index argument: the programs of the examples are unchanged
    (tests/unit/test_gemm_hopper_builder.py holds their record)."""
    module = gemm_hopper(72, 40, 48, **SMALL)
    assert "%m: index" not in str(module)
    ops = _operands(72, 40, 48, Epilogue())
    _check(_run(module, 72, 40, Epilogue(), ops, dynamic_m=False), ops, Epilogue())


@pytest.mark.parametrize(("m", "n", "expected"), [
    (4000, 4000, "192x160x64:4:c32:ow:cr3"),  # 21 x 25 tiles: 3.98 rounds of 132, each 15/16 of 128 x 256's
    (4096, 4096, "128x256x64:4:c128"),
    # 256 x 160: 32 x 90 = 2880 tiles in 22 rounds of 40960 elements (at 0.99) against 128 x 256's
    # 64 x 56 = 3584 in 28 of 32768 (H200: 701 / 720 TFLOP/s against 655 / 678, benchmarks/NOTES.md)
    (8192, 14336, "256x160x64:4:c32:ow:w128:sp"),
    # 256 x 160: 9 x 14 = 126 tiles in 1 round (1.25 / 0.99); 128 x 256: 153 in 2; 128 x 128: 289 in
    # 3 (1.5 / 0.85); 128 x 192: 204 in 2 (1.5 / 0.97)
    (2176, 2176, "256x160x64:4:c32:ow:w128:sp"),
    (1, 4096, "128x128x64:4:pp"),        # 16 tiles of 128 x 256 or 32 of 128 x 128: one round
    (64, 32768, "64x256x64:4:c128"),     # 256 tiles of 128 x 128 (2 rounds), 128 of 64 x 256 (1)
])
def test_configuration_rule(m, n, expected):
    assert choose_config(m, n, 132).name == expected


@pytest.mark.parametrize(("m", "n", "k", "expected"), [
    # the splits that keep the most of B in flight (Little's law, `ring_rate`): 128 units of 4
    # stages of 128 columns x 64 of K (8.4 MB) rather than 64 (4.2 MB, 1.9 TB/s at 2.2 us)
    (1, 4096, 4096, "64x128x64:4:splitK4"),     # 32 tiles of 64 x 128: 4 units each
    (64, 6144, 4096, "64x128x64:4:splitK3"),    # 48 tiles: 3 units each (144 units, 132 in flight)
    (16, 4096, 14336, "64x128x64:4:splitK4"),
    (1, 1024, 16384, "64x128x64:4:splitK16"),   # 8 tiles: 16 units each
    (16, 28672, 4096, "64x256x64:4:c128"),      # 112 tiles stream the weight at DRAM's pace: no split
    (65, 4096, 4096, "128x128x64:4:splitK4"),   # 32 tiles of 128 rows: 4 units each
    (128, 6144, 4096, "128x128x64:4:splitK4"),  # 48 tiles of 128 x 128: 4 units each
    (128, 28672, 4096, "128x256x64:4:c128"),    # 112 tiles of 128 x 256 in one round
    (129, 4096, 4096, "128x128x64:4:pp"),       # past the decode sizes
    (1, 4096, 256, "128x128x64:4:pp"),          # 4 K steps: one ring's round, nothing to split
])
def test_split_k_rule(m, n, k, expected):
    assert choose_config(m, n, 132, k=k).name == expected


@pytest.mark.parametrize(("m", "n", "k", "activation", "expected"), [
    # SiLU's MUFU work: the 128 x 256 tile's consumers staggered (benchmarks/NOTES.md, epi40)
    # and the bias staged in shared memory (benchmarks/NOTES.md, epi46), the exp2 of 2 of 8
    # elements on the FMA pipe (epi48), the two consumers one region run apart (epi50)
    (8192, 28672, 4096, "silu", "128x256x64:4:c128:st1:bsm:fe2:ap"),
    (8192, 8192, 8192, "silu_tanh", "128x256x64:4:c128:st1"),  # (`:bsm` within the spread)
    (4000, 4000, 4000, "silu", "192x160x64:4:c32:ow:cr3:sp"),  # three 64-row consumers: not staggered
    (8192, 28672, 4096, None, "128x256x64:4:c128"),      # plain, the bias alone, ReLU, GELU: not
    (8192, 28672, 4096, "relu", "128x256x64:4:c128"),
    (8192, 28672, 4096, "gelu", "128x256x64:4:c128"),
    (3000, 5000, 7000, "silu", "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"),  # another tile, in clusters
    (128, 28672, 4096, "silu", "128x256x64:4:c128"),      # decode sizes: their own rule
    (64, 4096, 4096, "silu", "64x128x64:4:splitK4"),
])
def test_heavy_epilogues_stagger_the_cooperative_tile(m, n, k, activation, expected):
    chosen = choose_config(m, n, 132, k=k, activation=activation)
    assert chosen.name == expected
    assert chosen.stagger == (1 if ":st1" in expected else 0)
    assert chosen.bias_smem is (":bsm" in expected)
    assert chosen.exp2_fma == (2 if ":fe2" in expected else 0)
    assert chosen.consumers_apart is (":ap" in expected)


def test_configurations_past_the_targets_shared_memory_are_not_taken():
    small = dataclasses.replace(target("sm_90a"), smem_per_block=190 * 1024)
    chosen = choose_config(4096, 4096, 132, small)
    assert chosen.smem_bytes() <= small.smem_per_block
    assert chosen.name == "192x160x64:4:c32:ow"  # 189 KiB; 128 x 256 needs 225 KiB, 128 x 192 217, the pingpong 196
    with pytest.raises(TilecError, match="no GEMM configuration fits"):
        choose_config(4096, 4096, 132, dataclasses.replace(small, smem_per_block=1024))


@pytest.mark.parametrize("config", [c.name for c in CONFIGS] + ["split-K"])
def test_every_configuration_compiles(config):
    """Each configuration `choose_config` may take, with the widest epilogue (bias,
    SiLU, residual, f16 out; B K-major in one of them), compiles for sm_90a at
    4096 x 4096 with a run-time M."""
    c = choose_config(1, 4096, 132, k=4096) if config == "split-K" else next(c for c in CONFIGS if c.name == config)
    ep = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")
    module = matmul_program(MatmulKey(c, 4096, 4096, "bf16", ep, 132, b_kmajor=c is CONFIGS[0]))
    run_pipeline(module, "default")
    compile_sm90_or_skip(emit(module, "cuda"))


@pytest.mark.parametrize("stages, one_c, inline", [(4, False, True), (5, False, False), (6, True, False)])
def test_pingpong_barriers_after_the_buffers_where_between_them_they_would_not_fit(stages, one_c, inline):
    """The pingpong 128 x 128 x 64's ring and its 32 KiB C buffers (two, or one shared,
    `one_c`): in 4 stages each stage's barriers lie between its 1024-byte-aligned buffers
    (a kilobyte each); in 5 with two C buffers (160 + 64 KiB) or 6 with one (192 + 32)
    those kilobytes would pass 227 KiB, so the barriers come after all the buffers, as
    with column chunks, and `smem_bytes` counts one kilobyte for them."""
    c = dataclasses.replace(next(c for c in CONFIGS if c.pingpong), stages=stages, one_c=one_c,
                            name=f"128x128x64:{stages}:pp" + (":oc" if one_c else ""))
    cbufs = 1 if one_c else 2
    assert barriers_fit(128, 128, 64, stages, 2, cbufs) is inline
    assert c.smem_bytes() == stages * 32768 + cbufs * 32768 + 1024 * (stages if inline else 1)
    assert c.smem_bytes() <= target("sm_90a").smem_per_block
    module = matmul_program(MatmulKey(c, 4096, 4096, "bf16", Epilogue(bias=True, activation="silu"), 132))
    text = str(module)
    first_barrier, last_stage = text.index("layout.mbarrier_init"), text.index(f"%sa{stages - 1} =")
    assert (first_barrier < last_stage) is inline
    assert text.count("layout.alloc") == stages * 2 + cbufs
    run_pipeline(module, "default")
    compile_sm90_or_skip(emit(module, "cuda"))


def test_silu_is_one_exp2_and_one_approximate_division():
    """SiLU in the epilogue of the entry's 128 x 256 tile is y / (1 + 2^(-y log2 e)):
    one `ex2.approx` (`tilec_ex2_approx_ftz`) and one `div.approx.ftz`
    (`tilec_div_approx_ftz`: a `MUFU.RCP` and a multiply) per element, no `rsqrtf`
    (whose subnormal path cost a compare and two multiplies an element), no `tanhf`
    (CUDA's accurate tanh took about 26 instructions an element and cost the epilogue
    18% over the plain GEMM at 8192 x 28672 x 4096 on an H200) and no IEEE division
    (its slow path spills the pingpong tile's accumulators); the bias is loaded before
    the K loop; NVRTC compiles it."""
    ep = Epilogue(bias=True, activation="silu")
    c = dataclasses.replace(CONFIGS[0], overlap=False)  # (overlapped, the last chunk's epilogue is written twice)
    module = matmul_program(MatmulKey(c, 4096, 4096, "bf16", ep, 132))
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    per_thread = 128 * 256 // 256  # a 128 x 256 tile over the two consumer warpgroups' threads
    assert src.count("tilec_ex2_approx_ftz(t") == per_thread and src.count("tilec_div_approx_ftz(t") == per_thread
    assert "tanhf(" not in src and "expf(" not in src and "rsqrtf(" not in src
    assert not re.search(r"const float \w+ = [^;]* / ", src)  # no IEEE float division
    body = src[src.index("gemm_kernel("):]
    assert body.index("pbias +") < body.index("wgmma.fence")  # the bias loads come before the K loop
    compile_sm90_or_skip(src)


def test_silu_f32_evaluation_stays_in_the_bound_at_the_approximations_worst_errors():
    """The kernel's SiLU in f32, y / (1 + 2^(-y log2 e)) with `ex2.approx` and
    `div.approx` each off by their stated 2 ulps (relative 2^-22, both signs, the
    divisor past 2^126 giving 0) and every other step rounded to f32, stays within
    docs/matmul.md's 2^-20 (|silu(y)| + 1) of float64's silu over y in [-100, 100]
    (the GPU's error is no larger; the executor computes each step exactly)."""
    y = np.linspace(-100.0, 100.0, 200001).astype(np.float32)
    exact = y.astype(np.float64) / (1.0 + np.exp(-y.astype(np.float64)))
    lg = np.float32(-1.4426950408889634)
    for s1 in (-1.0, 1.0):
        for s2 in (-1.0, 1.0):
            with np.errstate(over="ignore"):
                e = (np.exp2((y * lg).astype(np.float64)) * (1 + s1 * 2.0**-22)).astype(np.float32)
                d = e + np.float32(1)
                q = (y.astype(np.float64) / d.astype(np.float64) * (1 + s2 * 2.0**-22)).astype(np.float32)
            q = np.where(d > np.float32(2.0**126), np.float32(0), q)
            assert (np.abs(q - exact) <= 2.0**-20 * (np.abs(exact) + 1)).all()


def test_silu_tanh_is_one_tanh_approx_and_one_fma():
    """`silu_tanh` in the epilogue of the entry's 128 x 256 tile at 8192 x 28672 x 4096 is
    h (1 + tanh h), h = y / 2: one `tanh.approx.f32` (`tilec_tanh_approx`: one `MUFU.TANH`)
    and one fma an element, no `ex2.approx` and no division; it compiles with 168
    registers and no spills (bias + `silu` spills 8 bytes there without the overlap)."""
    from helpers.nvrtc import sm90_usage_or_skip

    module = matmul_program(MatmulKey(CONFIGS[0], 28672, 4096, "bf16", Epilogue(bias=True, activation="silu_tanh"),
                                      132, index_bits=32))
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    per_thread = 128 * 256 // 256
    assert src.count("tilec_tanh_approx(t") == per_thread and src.count("fmaf(") == per_thread
    assert 'asm("tanh.approx.f32 %0, %1;"' in src
    assert "tilec_ex2_approx_ftz(" not in src and "tilec_div_approx_ftz(" not in src and "tanhf(" not in src
    usage = sm90_usage_or_skip(src)
    assert usage.registers == 168 and not usage.spill_stores and not usage.spill_loads


def test_silu_tanh_f32_evaluation_stays_in_its_bound_at_tanh_approx_worst_error():
    """The kernel's `silu_tanh` in f32, fma(h, t, h) with h = y / 2 and t `tanh.approx`'s
    result off by its stated relative error (`TANH_APPROX_ERROR`, both signs), stays
    within docs/matmul.md's e_act |y| + 2^-20 (|silu(y)| + 1) of float64's silu over y in
    [-100, 100] (e_act = 2^-11: `ABSOLUTE`), and the error is about that large where y is
    negative (it is not a relative bound: y = -8 loses most of bf16's bits)."""
    from helpers.matmul_oracle import ABSOLUTE

    from tilec.dialects.math_functions import TANH_APPROX_ERROR

    y = np.linspace(-100.0, 100.0, 200001).astype(np.float32)
    y64 = y.astype(np.float64)
    exact = y64 / (1.0 + np.exp(-y64))
    h = (y * np.float32(0.5)).astype(np.float64)
    worst = 0.0
    for s in (-1.0, 1.0):
        t = (np.tanh(h) * (1 + s * TANH_APPROX_ERROR)).astype(np.float32).astype(np.float64)
        q = (h * t + h).astype(np.float32).astype(np.float64)  # fma: one rounding (h t exact in float64)
        err = np.abs(q - exact)
        assert (err <= ABSOLUTE["silu_tanh"] * np.abs(y64) + 2.0**-20 * (np.abs(exact) + 1)).all()
        worst = max(worst, float(err[np.argmin(np.abs(y64 + 8))] / abs(exact[np.argmin(np.abs(y64 + 8))])))
    assert worst > 2.0**-8  # at y = -8 the error passes bf16's rounding of silu(y)


def test_silu_tanh_at_large_magnitudes():
    """`silu_tanh` on the reference executor where y runs to +-120: tanh(y / 2) is +-1,
    y (1 + 1) / 2 = y and y (1 - 1) / 2 = 0, within the bound everywhere."""
    ep = Epilogue(bias=True, activation="silu_tanh")
    m, n, k = 72, 40, 48
    module = gemm_hopper_ws(None, n, k, persistent=3, group=2, tma_epilogue=True, epilogue=ep, **SMALL)
    ops = _operands(m, n, k, ep, seed=5)
    ops["bias"] = _values(_bits(np.linspace(-120.0, 120.0, n), "bf16"), "bf16")
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_silu_at_large_magnitudes():
    """The SiLU epilogue on the reference executor where y runs far past where e^-y
    overflows or flushes to zero (bias of +-120): y / (1 + inf) is -0, y / (1 + 0) is y,
    within the documented bound of float64's silu everywhere."""
    ep = Epilogue(bias=True, activation="silu")
    m, n, k = 72, 40, 48
    module = gemm_hopper_ws(None, n, k, persistent=3, group=2, tma_epilogue=True, epilogue=ep, **SMALL)
    ops = _operands(m, n, k, ep, seed=5)
    ops["bias"] = _values(_bits(np.linspace(-120.0, 120.0, n), "bf16"), "bf16")
    got = _run(module, m, n, ep, ops)
    _check(got, ops, ep)
    assert (got[:, 0] <= 0).all() and (got[:, 0] > -1e-30).all()  # silu(-120 + ..) underflows to -0 in bf16


def test_operands_the_programs_do_not_take_are_refused():
    with pytest.raises(TilecError, match="activation 'tanh'"):
        Epilogue(activation="tanh")
    with pytest.raises(TilecError, match="out_dtype 'f32'"):
        Epilogue(out_dtype="f32")
    with pytest.raises(TilecError, match="GEMM operands of 'f32'"):
        gemm_hopper(None, 64, 64, dtype="f32")


def test_matmul_refuses_what_it_cannot_run():
    """User errors are TilecErrors naming the operand (NumPy arrays stand in for
    tensors: the checks of shapes and types come before the device's)."""
    import tilec

    a, b = np.zeros((4, 16), np.float16), np.zeros((16, 8), np.float16)
    with pytest.raises(TilecError, match="expected bf16, f16, float8_e4m3fn or float8_e5m2"):
        tilec.matmul(a.astype(np.float32), b)
    with pytest.raises(TilecError, match="scale_a and scale_b go with FP8 operands"):
        tilec.matmul(a, b, scale_a=1.0, scale_b=1.0)
    with pytest.raises(TilecError, match=r"a's K \(16\) is not b's \(8\)"):
        tilec.matmul(a, b[:8])
    with pytest.raises(TilecError, match=r"multiples of 8"):
        tilec.matmul(a, np.zeros((16, 12), np.float16))
    with pytest.raises(TilecError, match="activation 'tanh'"):
        tilec.matmul(a, b, activation="tanh")
    with pytest.raises(TilecError, match="a must be a CUDA tensor"):
        tilec.matmul(a, b)


@pytest.mark.parametrize("config", [c.name for c in CONFIGS] + ["split-K", "cp.async A"])
def test_the_entrys_programs(config):
    """The programs `tilec.matmul` compiles, their own tiles (128 x 256 in chunks,
    the 128 x 128 pingpong, 64 x 256, split-K 4 ways, the rule's with A by cp.async),
    persistent over 3 blocks, B K-major, bias + SiLU + residual, on the reference executor at 130 x 264 x 136
    (split-K: 5 x 264 x 1024)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    if config == "cp.async A":  # the rule's with A loaded by cp.async (`:cpa`), B K-major
        c = dataclasses.replace(choose_config(130, 264, 132, k=136, b_kmajor=True), cp_async="a")
    else:
        c = choose_config(1, 264, 132, k=1024) if config == "split-K" else next(c for c in CONFIGS if c.name == config)
    m, n, k = (5, 264, 1024) if c.split_k > 1 else (130, 264, 136)
    module = matmul_program(MatmulKey(c, n, k, "bf16", ep, 3, b_kmajor=True))
    ops = _operands(m, n, k, ep)
    _check(_run(module, m, n, ep, ops, b_kmajor=True, split_k=c.split_k, counters=c.counters(m, n)), ops, ep)


def test_the_rule_loads_with_the_tma():
    """The rule keeps the TMA for rows of 16 mod 32 bytes too: the producer's cp.async
    (`GemmConfig.cp_async`) was slower at 3000 x 5000 x 7000 (408-445 TFLOP/s against
    494 on an H200) as at aligned rows (benchmarks/NOTES.md)."""
    assert choose_config(3000, 5000, 132, k=7000).cp_async == ""


def test_offsets_are_32_bit_where_every_offset_fits():
    """`index_bits`: 32 while the rows up to M rounded up to the tile (plus one) times the
    widest row, N x K and split-K's partials fit in 31 bits; the program of such a key
    promises `tilec.index_bits = 32` and its kernel computes 32-bit offsets."""
    from tilec.compiler.pipeline import emit, run_pipeline
    from tilec.gemm import MatmulKey, choose_config, index_bits, matmul_program
    from tilec.gemm_programs import PLAIN

    c = choose_config(4000, 4000, 132, k=4000)
    assert index_bits(4000, 4000, 4000, c) == 32
    assert index_bits(300_000, 8192, 8192, c) == 64  # 300k rows of 8192: past 2^31
    assert index_bits(1, 65536, 65536, c) == 64  # B alone is 2^32 elements
    key = MatmulKey(c, 4000, 4000, "bf16", PLAIN, 132, False, 32)
    module = matmul_program(key)
    assert "tilec.index_bits = 32" in emit(module)
    run_pipeline(module, "default")
    assert "32-bit indices" in emit(module, "cuda")
