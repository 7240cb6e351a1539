"""Block-scaled FP8 GEMMs (DeepSeek-V3's fine-grained scales, as DeepGEMM computes
them): `gemm_hopper_ws(block_scales=True)` on float8_e4m3fn / float8_e5m2 operands, A
(M x K) row-major, B K-major (w, N x K, row-major), `pscale_a` (M x ceil(K/128)) and
`pscale_b` (ceil(N/128) x ceil(K/128)) f32. Each K block's wgmma product is multiplied
by its scales and added into the f32 main accumulator (written on the accumulator in
the program), then the epilogue.

On the reference executor (before and after the default pipeline) at ragged shapes
(M, N, K not multiples of the tiles or of 128, the K steps past K reading the last
block's scales, a run-time M), against float64 within docs/matmul.md's block-scaled
bound (tests/helpers/matmul_oracle.py, `block_scaled_within_bound`: f32 partials on
the executor). The configurations `tilec.matmul` takes compile under NVRTC without
spills. The GPU tests are tests/gpu/test_matmul_fp8_gpu.py's block-scaled ones."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers.matmul_oracle import block_scaled_within_bound
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.dtypes import f8_to_f32, f32_to_bf16, to_f8
from tilec.gemm_programs import SCALE_BLOCK, Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run
from tilec.runtime.reference.values import bf16_to_f32


def _scales(rng, shape) -> np.ndarray:
    """f32 scales spread over 2^-4 .. 2^4: a scale read from the wrong block shows."""
    return (2.0 ** rng.integers(-4, 5, shape) * rng.uniform(0.5, 1.0, shape)).astype(np.float32)


def _run_and_check(module, m: int, n: int, k: int, dtype: str, level: str, ep: Epilogue, dynamic_m: bool,
                   mn: bool = False, extra: dict | None = None) -> None:
    if level == "lowered":
        run_pipeline(module, "default")
    rng = np.random.default_rng(7)
    kb, nb = -(-k // SCALE_BLOCK), -(-n // SCALE_BLOCK)
    a8, w8 = to_f8(rng.standard_normal(m * k) * 8, dtype), to_f8(rng.standard_normal(n * k) * 8, dtype)
    sa, sb = _scales(rng, (m, kb)), _scales(rng, (nb, kb))
    inputs = {"pa": a8, "pb": w8, "pc": np.full(m * n, 0x7FC0, np.uint16),  # NaN: an element never written fails
              "pscale_a": (sa.T if mn else sa).ravel(), "pscale_b": sb.ravel()}  # mn: MN-major
    bias = None
    if ep.bias:
        bias = bf16_to_f32(f32_to_bf16(rng.standard_normal(n).astype(np.float32))).astype(np.float64)
        inputs["pbias"] = f32_to_bf16(bias.astype(np.float32))
    if dynamic_m:
        inputs["m"] = m
    inputs.update(extra or {})  # stream-K's workspace (poisoned) and counters
    out = run(module, inputs)["pc"]
    a = f8_to_f32(np.asarray(a8).reshape(m, k), dtype).astype(np.float64)
    w = f8_to_f32(np.asarray(w8).reshape(n, k), dtype).astype(np.float64)
    got = bf16_to_f32(np.asarray(out).reshape(m, n)).astype(np.float64)
    ok = block_scaled_within_bound(got, a, w, sa.astype(np.float64), sb.astype(np.float64), bias, ep.activation)
    assert ok.all(), f"{(~ok).sum()} of {ok.size} outside the bound, first at {np.argwhere(~ok)[0]}"


CASES = {
    # run-time M = 72 (two block rows of 64, the second 8 rows); N = 208: 4 column tiles
    # of 64, the last 16 wide, in 2 blocks of the scales; K = 336: 3 K blocks (the last
    # 80 wide), 4 steps by the 2 stages (the 4th reads block 2's scales, adds zeros);
    # persistent over 3 blocks, grouped, TMA epilogue
    "persistent-tma-e4m3": ((72, 208, 336), {"bm": 64, "bn": 64, "persistent": 3, "group": 2,
                                             "tma_epilogue": True}, "f8E4M3FN", Epilogue(), True),
    # two column chunks of 64 per 128-column tile (each chunk its own main accumulator
    # and scale of B), bias + SiLU after the promotion, static M
    "chunks-bias-silu-e5m2": ((70, 272, 272), {"bm": 64, "bn": 128, "chunk": 64, "persistent": 2},
                              "f8E5M2", Epilogue(bias=True, activation="silu"), False),
    "one-row": ((1, 48, 128), {"bm": 64, "bn": 64}, "f8E4M3FN", Epilogue(), True),
    # K = 384: 3 K blocks in 4 steps, M, N, K multiples of the tiles (unmasked tiles):
    # the 4th step's TMA boxes lie wholly past K (zeros on the GPU and the executor)
    "k-blocks-odd-of-stages": ((64, 64, 384), {"bm": 64, "bn": 64}, "f8E4M3FN", Epilogue(), False),
    # FP8_BLOCK_CONFIGS[0]'s shape of tile: 128 x 128, two consumer warpgroups (each its
    # 64 rows of scale_a), persistent and grouped as tilec.matmul runs it
    "two-warpgroups-bias-relu": ((130, 144, 256), {"bm": 128, "bn": 128, "persistent": 3, "group": 8,
                                                   "tma_epilogue": True}, "f8E4M3FN",
                                 Epilogue(bias=True, activation="relu"), True),
    # that tile in 2-block clusters sharing B (`cluster` (2, 1)): the pair's two block
    # rows (M = 200: the second 72 rows) take B's stages in turn, multicast to both,
    # each block its own scales of A; 2 pairs over 3 groups of tiles (N = 272: 3 block
    # columns, the last 16 wide), so a pair's second group lies partly past N
    "pairs-share-b-bias": ((200, 272, 384), {"bm": 128, "bn": 128, "persistent": 4, "group": 8,
                                             "tma_epilogue": True, "cluster": (2, 1)}, "f8E4M3FN",
                           Epilogue(bias=True), True),
    # the pairs each loading half of every stage's B box (`box_parts`: 64 of its 128 rows
    # of N, 8 KiB into the 128-byte-swizzled buffer), and 2 x 2 (A's halves too: 64 of
    # its 128 rows), M = 200 and N = 272 leaving the second group's blocks partly past both
    "pairs-box-parts": ((200, 272, 384), {"bm": 128, "bn": 128, "persistent": 4, "group": 8,
                                          "tma_epilogue": True, "cluster": (2, 1), "box_parts": True},
                        "f8E4M3FN", Epilogue(bias=True), True),
    "two-by-two-box-parts": ((200, 272, 384), {"bm": 128, "bn": 128, "persistent": 4, "group": 2,
                                               "tma_epilogue": True, "cluster": (2, 2), "box_parts": True},
                             "f8E4M3FN", Epilogue(), False),
}


SWAPPED = {
    # decode sizes, swapped (C^T = B^T A^T): A's scales along the tile's 16 columns (M),
    # B's one per 128 of the tile's rows (N: 64-row tiles, two to a block of the
    # scales; N = 208 in 2 blocks); K = 336: 3 K blocks in 4 steps
    "swapped-m1": ((1, 208, 336), {"bm": 64, "bn": 16, "swap_ab": True}, "f8E4M3FN", Epilogue(), True),
    "swapped-m13-bias-silu-e5m2": ((13, 208, 336), {"bm": 64, "bn": 16, "swap_ab": True}, "f8E5M2",
                                   Epilogue(bias=True, activation="silu"), True),
    # persistent as `swap_config` makes it: 2 blocks over the 4 tiles of 64 rows (N = 208),
    # each block's second tile starting its partials and carried scales afresh
    "swapped-persistent-m5": ((5, 208, 336), {"bm": 64, "bn": 16, "swap_ab": True, "persistent": 2}, "f8E4M3FN",
                              Epilogue(bias=True), True),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("case", {**CASES, **SWAPPED})
def test_block_scaled_fp8_gemm_against_float64(case, level):
    (m, n, k), kw, dtype, ep, dynamic_m = {**CASES, **SWAPPED}[case]
    module = gemm_hopper_ws(None if dynamic_m else m, n, k, bk=128, stages=2, dtype=dtype, b_kmajor=True,
                            epilogue=ep, block_scales=True, **kw)
    _run_and_check(module, m, n, k, dtype, level, ep, dynamic_m)


def test_block_scales_refused_where_a_step_is_not_one_block():
    kw = {"bm": 64, "bn": 64, "stages": 2, "b_kmajor": True, "block_scales": True}
    with pytest.raises(ValueError, match="block_scales need 8-bit float operands, bk = 128"):
        gemm_hopper_ws(64, 64, 128, bk=64, dtype="f8E4M3FN", **kw)
    with pytest.raises(ValueError, match="block_scales need 8-bit float operands"):
        gemm_hopper_ws(64, 64, 128, bk=128, dtype="bf16", **kw)
    with pytest.raises(ValueError, match="no per-tensor scale"):
        gemm_hopper_ws(64, 64, 128, bk=128, dtype="f8E4M3FN", epilogue=Epilogue(scale=True), **kw)
    with pytest.raises(ValueError, match=r"column chunks \(swapped: bm\) dividing 128"):
        gemm_hopper_ws(64, 256, 128, bm=64, bn=256, bk=128, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                       block_scales=True)


def test_block_scaled_configurations_rule():
    from tilec.gemm import FP8_BLOCK_CONFIGS, choose_config
    from tilec.support.target import target

    assert all(c.smem_bytes() <= target("sm_90a").smem_per_block for c in FP8_BLOCK_CONFIGS)
    assert choose_config(4096, 4096, 132, k=4096, fp8=True, block_scales=True) is FP8_BLOCK_CONFIGS[0]
    # 8192^3: the tile in groups of 16 block rows (`with_l2_group`), with the stream-K tail
    assert choose_config(8192, 8192, 132, k=8192, fp8=True, block_scales=True, b_kmajor=True).name == \
        "f8b:128x128x128:4:g16:sk"
    assert choose_config(16, 8192, 132, k=8192, fp8=True, block_scales=True) is FP8_BLOCK_CONFIGS[1]
    assert all(c.block_scales and c.kwargs(132)["block_scales"] for c in FP8_BLOCK_CONFIGS)
    # decode sizes of a Linear weight (B K-major, as tilec.matmul always has it): the swap
    swap = choose_config(16, 8192, 132, k=8192, fp8=True, block_scales=True, b_kmajor=True)
    assert swap.name == "f8b:64x16x128:8:swapAB:p1" and swap.kwargs(132)["block_scales"]
    assert choose_config(65, 8192, 132, k=8192, fp8=True, block_scales=True, b_kmajor=True) is FP8_BLOCK_CONFIGS[1]


@pytest.mark.parametrize("index,size", [(0, 4096), (0, 8192), (1, 4096), ("swapped", 4096), ("pairs", 8192),
                                        ("pairs-bp", 8192)])
def test_block_scaled_configurations_compile_without_spills(index, size):
    """Each configuration `tilec.matmul` takes for block-scaled FP8 (N = K = `size`;
    the first at 4096^3 and 8192^3, and in 2-block clusters sharing B at 8192^3:
    `f8b:128x128x128:4:cl2`, a multicast load of B per stage, and `:cl2:bp`, each block
    half of every stage's B: `cluster_loads`' boxes), with bias and SiLU, run-time M: wgmma.m64n128k32 (swapped at M = 64: m64n64k32) on e4m3, the previous
    step's partial retired with one group in flight (`wait_group 1`), no spills (the
    main accumulator and two partials a consumer) and ptxas keeps the wgmma
    asynchronous (no C7514 / C7515 / C7520 "wgmma serialized": a partial in flight
    across the K loop's back edge gave C7514; no C7517 "warpgroup.wait injected": the
    carried partial read without passing through a wait gave it)."""
    from tilec.gemm import FP8_BLOCK_CONFIGS, MatmulKey, matmul_program, swap_config
    from tilec.runtime.nvrtc import resource_usage

    from tilec.gemm_programs import cluster_loads

    c = (swap_config(64, fp8=True, block_scales=True) if index == "swapped"
         else dataclasses.replace(FP8_BLOCK_CONFIGS[0], cluster=(2, 1), box_parts=index == "pairs-bp",
                                  name=f"{FP8_BLOCK_CONFIGS[0].name}:cl2")
         if index in ("pairs", "pairs-bp") else FP8_BLOCK_CONFIGS[index])
    ep = Epilogue(bias=True, activation="silu")
    module = matmul_program(MatmulKey(c, size, size, "f8E4M3FN", ep, 132, b_kmajor=True, index_bits=32))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert f"wgmma.mma_async.sync.aligned.m64n{c.bn}k32.f32.e4m3.e4m3" in cuda
    assert "wgmma.wait_group.sync.aligned 1;" in cuda
    assert cuda.count(".multicast::cluster") == (sum(len(x) for s in range(c.stages) for x in cluster_loads(
        *c.cluster, s, 1, c.box_parts)) if c.cluster != (1, 1) else 0)
    result = compile_sm90_or_skip(cuda)
    usage = resource_usage(result)["gemm_kernel"]
    assert usage.spill_stores in (0, None)
    assert not any(code in result.log for code in ("C7514", "C7515", "C7517", "C7520")), result.log


def _consumer_k_loop(module):
    """The consumers' K loop: the `scf.for` whose body issues the wgmma."""
    from xdsl.dialects import scf

    from tilec.dialects.layout_mma import MmaOp

    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)
               and any(isinstance(x, MmaOp) for x in op.body.block.ops)]
    return loop


def test_block_scaled_k_loop_overlaps_each_wgmma_with_the_previous_promotion():
    """The consumers' K loop of `FP8_BLOCK_CONFIGS[0]`'s tile (4 stages, 128 x 128, two
    consumer warpgroups): in each trip step s + 1's wgmma is issued before step s's is
    waited for (`pending = 1`: step s + 1's stays in flight under step s's promotion),
    and step s's stage is handed back after that wait; the trip's last step is waited
    for with `pending = 0` (none in flight across the back edge) and its partial,
    carried, passes through a `pending = 1` wait after the next trip's first wgmma."""
    from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
    from tilec.dialects.layout_tma import MBarrierArriveOp

    module = gemm_hopper_ws(None, 4096, 4096, bm=128, bn=128, bk=128, stages=4, persistent=132, group=8,
                            tma_epilogue=True, dtype="f8E4M3FN", b_kmajor=True, block_scales=True)
    kinds = {MmaOp: lambda op: "mma", MmaWaitOp: lambda op: f"wait{op.pending_groups}",
             MBarrierArriveOp: lambda op: "arrive"}
    seq = [kinds[type(op)](op) for op in _consumer_k_loop(module).body.block.ops if type(op) in kinds]
    assert seq == ["mma", "wait1"] + ["mma", "wait1", "arrive"] * 3 + ["wait0", "arrive"]


def test_block_scaled_partial_read_before_its_wgmma_completes_is_reported():
    """The executor checks the overlapped schedule: with the first `pending = 1` wait of
    the K loop made `pending = 2` (the previous step's wgmma may still run), the
    promotion's read of its partial is a located error."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
    from tilec.runtime.reference import ExecutionError

    (m, n, k), kw, dtype, ep, _ = CASES["persistent-tma-e4m3"]
    module = gemm_hopper_ws(None, n, k, bk=128, stages=2, dtype=dtype, b_kmajor=True, epilogue=ep,
                            block_scales=True, **kw)
    wait = next(op for op in _consumer_k_loop(module).body.block.ops
                if isinstance(op, MmaWaitOp) and op.pending_groups == 1 and isinstance(op.values[0].owner, MmaOp))
    wait.properties["pending"] = IntegerAttr(2, i64)
    with pytest.raises(ExecutionError, match="reads %part, the result of an asynchronous layout.mma still in flight"):
        _run_and_check(module, m, n, k, dtype, "layout", ep, True)


# `partials` = 1 (DeepGEMM's schedule: one partial a consumer, each chunk's step waited for
# and promoted before the next wgmma issues) on the executor: the same bits as the
# two-partial schedule (same promotions in the same order) and within the bound
ONE_PARTIAL = ["chunks-bias-silu-e5m2", "persistent-tma-e4m3", "two-warpgroups-bias-relu"]


def _outputs(module, m: int, n: int, k: int, dtype: str, ep: Epilogue, dynamic_m: bool) -> np.ndarray:
    """`pc` of `module` on `_run_and_check`'s inputs (the same seed)."""
    rng = np.random.default_rng(7)
    kb, nb = -(-k // SCALE_BLOCK), -(-n // SCALE_BLOCK)
    a8, w8 = to_f8(rng.standard_normal(m * k) * 8, dtype), to_f8(rng.standard_normal(n * k) * 8, dtype)
    sa, sb = _scales(rng, (m, kb)), _scales(rng, (nb, kb))
    inputs = {"pa": a8, "pb": w8, "pc": np.full(m * n, 0x7FC0, np.uint16), "pscale_a": sa.ravel(),
              "pscale_b": sb.ravel()}
    if ep.bias:
        inputs["pbias"] = f32_to_bf16(rng.standard_normal(n).astype(np.float32))
    if dynamic_m:
        inputs["m"] = m
    return np.asarray(run(module, inputs)["pc"])


@pytest.mark.parametrize("case", ONE_PARTIAL)
def test_one_partial_schedule_against_float64_and_the_two_partial_bits(case):
    (m, n, k), kw, dtype, ep, dynamic_m = CASES[case]
    build = {"bk": 128, "stages": 2, "dtype": dtype, "b_kmajor": True, "epilogue": ep, "block_scales": True, **kw}
    one = gemm_hopper_ws(None if dynamic_m else m, n, k, partials=1, **build)
    two = gemm_hopper_ws(None if dynamic_m else m, n, k, **build)
    assert np.array_equal(_outputs(one, m, n, k, dtype, ep, dynamic_m), _outputs(two, m, n, k, dtype, ep, dynamic_m))
    _run_and_check(one, m, n, k, dtype, "lowered", ep, dynamic_m)


def test_one_partial_k_loop_waits_for_each_chunk_before_the_next_issues():
    """The consumers' K loop of a 128 x 256 tile in two chunks of 128 with one partial
    (4 stages): per step, chunk by chunk, the wgmma issued and waited for with
    `pending = 0` (nothing in flight across a promotion or the back edge), the step's
    stage handed back after its last chunk's wait."""
    from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
    from tilec.dialects.layout_tma import MBarrierArriveOp

    module = gemm_hopper_ws(None, 4096, 4096, bm=128, bn=256, bk=128, stages=4, persistent=132, group=8, chunk=128,
                            tma_epilogue=True, dtype="f8E4M3FN", b_kmajor=True, block_scales=True, partials=1)
    kinds = {MmaOp: lambda op: "mma", MmaWaitOp: lambda op: f"wait{op.pending_groups}",
             MBarrierArriveOp: lambda op: "arrive"}
    seq = [kinds[type(op)](op) for op in _consumer_k_loop(module).body.block.ops if type(op) in kinds]
    assert seq == ["mma", "wait0", "mma", "wait0", "arrive"] * 4


def test_one_partial_refused_without_block_scales():
    with pytest.raises(ValueError, match="partials is 1 or 2, and 1 only with block_scales"):
        gemm_hopper_ws(64, 64, 128, bm=64, bn=64, bk=64, stages=2, partials=1)
    with pytest.raises(ValueError, match="partials is 1 or 2"):
        gemm_hopper_ws(64, 64, 128, bm=64, bn=64, bk=128, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                       block_scales=True, partials=3)


def test_one_partial_128x256_compiles_without_spills_in_its_k_loop():
    """The 128 x 256 tile in chunks of 128 with one partial (`partials` = 1: two 64 x 128
    main accumulators and one partial a consumer thread, 192 registers), as NVRTC
    compiles it for the GPU (the Target's options: `--fmad=false`): no spills,
    `wgmma.m64n128k32` waited for with `wait_group 0`, no wgmma serialized."""
    from tilec.gemm import GemmConfig

    c = GemmConfig("f8b:128x256x128:4:c128:part1", 128, 256, 128, 4, efficiency=1.0, chunk=128, operand_bytes=1,
                   block_scales=True, partials=1)
    cuda = _compiles_clean(c, 4096)
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in cuda
    assert "wgmma.wait_group.sync.aligned 0;" in cuda and "wgmma.wait_group.sync.aligned 1;" not in cuda


@pytest.mark.parametrize("case", ["chunks-bias-silu-e5m2", "two-warpgroups-bias-relu", "swapped-m13-bias-silu-e5m2"])
def test_fma_promotion_against_float64(case):
    """`fma_promote`: each promotion one `math.fma` (one rounding), within the bound on the
    executor before and after the default pipeline."""
    (m, n, k), kw, dtype, ep, dynamic_m = {**CASES, **SWAPPED}[case]
    for level in ("layout", "lowered"):
        module = gemm_hopper_ws(None if dynamic_m else m, n, k, bk=128, stages=2, dtype=dtype, b_kmajor=True,
                                epilogue=ep, block_scales=True, fma_promote=True, **kw)
        _run_and_check(module, m, n, k, dtype, level, ep, dynamic_m)


def test_fma_promotion_128x128_compiles_to_ffma_without_spills():
    """The rule's 128 x 128 two-partial kernel with `fma_promote`, as NVRTC compiles it for
    the GPU (`--fmad=false`): `fmaf` promotions, no spills, no wgmma serialized."""
    from tilec.gemm import FP8_BLOCK_CONFIGS

    cuda = _compiles_clean(dataclasses.replace(FP8_BLOCK_CONFIGS[0], fma_promote=True), 4096)
    assert "fmaf(" in cuda


def _compiles_clean(config, size: int, scale_a_mn: bool = False) -> str:
    """The CUDA of `config`'s kernel at N = K = `size` (B K-major, e4m3, 132 SMs; A's scales
    MN-major where `scale_a_mn`) after the default pipeline, checked to compile for sm_90a
    without spills and without serialized wgmma (ptxas's C7512-C7520); skips where NVRTC
    is missing."""
    from tilec.gemm import MatmulKey, matmul_program
    from tilec.runtime.nvrtc import resource_usage
    from tilec.support.target import target

    module = matmul_program(MatmulKey(config, size, size, "f8E4M3FN", Epilogue(), 132, b_kmajor=True, index_bits=32,
                                      scale_a_mn=scale_a_mn))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    try:
        from tilec.runtime.nvrtc import compile_cuda

        result = compile_cuda(cuda, arch="sm_90a", options=target("sm_90a").nvrtc_options())
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    usage = resource_usage(result)
    assert usage and all(u.spill_stores in (0, None) for u in usage.values()), usage  # (stream-K: and its fixup)
    assert not any(code in result.log for code in ("C7512", "C7514", "C7515", "C7517", "C7520")), result.log
    return cuda


def test_fma_promotion_refused_without_block_scales():
    with pytest.raises(ValueError, match="fma_promote needs block_scales"):
        gemm_hopper_ws(64, 64, 128, bm=64, bn=64, bk=64, stages=2, fma_promote=True)



# `rounds` = 2: a trip of the consumers' K loop takes two rounds of the ring (one drain of
# the tensor cores a trip): within the bound at ragged K (the steps rounded up to 2 rounds),
# and the same bits as one round where the K steps are the same (K blocks a multiple of 2 stages)
ROUNDS = ["persistent-tma-e4m3", "chunks-bias-silu-e5m2", "two-warpgroups-bias-relu", "swapped-persistent-m5"]


@pytest.mark.parametrize("case", ROUNDS)
def test_two_rounds_a_trip_against_float64_and_the_one_round_bits(case):
    (m, n, k), kw, dtype, ep, dynamic_m = {**CASES, **SWAPPED}[case]
    build = {"bk": 128, "stages": 2, "dtype": dtype, "b_kmajor": True, "epilogue": ep, "block_scales": True,
             "fma_promote": True, **kw}
    two = gemm_hopper_ws(None if dynamic_m else m, n, k, rounds=2, **build)
    _run_and_check(two, m, n, k, dtype, "layout", ep, dynamic_m)
    _run_and_check(gemm_hopper_ws(None if dynamic_m else m, n, k, rounds=2, **build), m, n, k, dtype, "lowered", ep,
                   dynamic_m)
    # K = 512: 4 K blocks, the same steps either way: the same promotions in the same order
    one, two = (gemm_hopper_ws(None if dynamic_m else m, n, 512, rounds=r, **build) for r in (1, 2))
    assert np.array_equal(_outputs(one, m, n, 512, dtype, ep, dynamic_m), _outputs(two, m, n, 512, dtype, ep, dynamic_m))


def test_two_rounds_k_loop_drains_once_a_trip():
    """`FP8_BLOCK_CONFIGS[0]`'s tile with `rounds` = 2: a trip's 8 steps each issue their
    wgmma before the previous step's wait (`pending = 1`) and hand that step's stage
    back; one `pending = 0` wait a trip, at its end."""
    from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
    from tilec.dialects.layout_tma import MBarrierArriveOp

    module = gemm_hopper_ws(None, 4096, 4096, bm=128, bn=128, bk=128, stages=4, persistent=132, group=8,
                            tma_epilogue=True, dtype="f8E4M3FN", b_kmajor=True, block_scales=True, rounds=2)
    kinds = {MmaOp: lambda op: "mma", MmaWaitOp: lambda op: f"wait{op.pending_groups}",
             MBarrierArriveOp: lambda op: "arrive"}
    seq = [kinds[type(op)](op) for op in _consumer_k_loop(module).body.block.ops if type(op) in kinds]
    assert seq == ["mma", "wait1"] + ["mma", "wait1", "arrive"] * 7 + ["wait0", "arrive"]


def test_two_rounds_128x128_compiles_without_spills_at_8192():
    """The rule's 128 x 128 kernel with `rounds` = 2 (`GemmConfig.rounds`) at 8192^3 compiles
    for sm_90a without spills and without serialized wgmma."""
    from tilec.gemm import FP8_BLOCK_CONFIGS

    _compiles_clean(dataclasses.replace(FP8_BLOCK_CONFIGS[0], rounds=2), 8192)


def test_rounds_refused_outside_the_two_partial_block_scaled_loop():
    with pytest.raises(ValueError, match="rounds >= 1, and more than 1 only with block_scales and two partials"):
        gemm_hopper_ws(64, 64, 128, bm=64, bn=64, bk=64, stages=2, rounds=2)
    with pytest.raises(ValueError, match="rounds >= 1"):
        gemm_hopper_ws(64, 64, 128, bm=64, bn=64, bk=128, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                       block_scales=True, partials=1, rounds=2)


@pytest.mark.parametrize("case", ["two-warpgroups-bias-relu", "swapped-m13-bias-silu-e5m2"])
def test_scale_prefetch_against_float64(case):
    """`scale_prefetch`: each trip asks L1 for the scales 8 K blocks ahead (`layout.prefetch_l1`,
    clipped at the last K block and at M's rows); the results are the rule's, within the bound
    on the executor before and after the default pipeline."""
    (m, n, k), kw, dtype, ep, dynamic_m = {**CASES, **SWAPPED}[case]
    for level in ("layout", "lowered"):
        module = gemm_hopper_ws(None if dynamic_m else m, n, k, bk=128, stages=2, dtype=dtype, b_kmajor=True,
                                epilogue=ep, block_scales=True, fma_promote=True, scale_prefetch=True, **kw)
        _run_and_check(module, m, n, k, dtype, level, ep, dynamic_m)


def test_scale_prefetch_128x128_compiles_without_spills_at_8192():
    """The rule's 128 x 128 kernel with `scale_prefetch` (`GemmConfig.scale_prefetch`, `:pf`) at
    8192^3: one `prefetch.global.L1` each of A's two rows a thread holds and of B's scale, in
    the trip's first step (the fast path; the rows checked against M beside it), no spills,
    no serialized wgmma."""
    from tilec.gemm import FP8_BLOCK_CONFIGS

    cuda = _compiles_clean(dataclasses.replace(FP8_BLOCK_CONFIGS[0], scale_prefetch=True), 8192)
    assert cuda.count('asm volatile("prefetch.global.L1') == 5  # 2 rows fast, 2 guarded, B's 1
    assert "prefetch.global.L1" not in _compiles_clean(FP8_BLOCK_CONFIGS[0], 8192)


def test_scale_prefetch_refused_without_block_scales():
    with pytest.raises(ValueError, match="scale_prefetch and scale_a_mn_major need block_scales"):
        gemm_hopper_ws(64, 64, 128, bm=64, bn=64, bk=64, stages=2, scale_prefetch=True)


@pytest.mark.parametrize("case", ["persistent-tma-e4m3", "two-warpgroups-bias-relu", "swapped-m13-bias-silu-e5m2"])
@pytest.mark.parametrize("prefetch", [False, True])
def test_scale_a_mn_major_against_float64(case, prefetch):
    """`scale_a_mn_major`: A's scales given MN-major (`pscale_a` holds each K block's M scales
    in a row), read as such, with and without `scale_prefetch` (each step's rows 2 K blocks
    on): within the bound on the executor before and after the default pipeline."""
    (m, n, k), kw, dtype, ep, dynamic_m = {**CASES, **SWAPPED}[case]
    for level in ("layout", "lowered"):
        module = gemm_hopper_ws(None if dynamic_m else m, n, k, bk=128, stages=2, dtype=dtype, b_kmajor=True,
                                epilogue=ep, block_scales=True, fma_promote=True, scale_a_mn_major=True,
                                scale_prefetch=prefetch, **kw)
        _run_and_check(module, m, n, k, dtype, level, ep, dynamic_m, mn=True)


def test_scale_a_mn_major_128x128_compiles_without_spills_at_8192():
    """The rule's kernel reading A's scales MN-major, with each step's rows 2 K blocks on asked of
    L1 (`scale_prefetch`), at 8192^3: no spills, no serialized wgmma."""
    from tilec.gemm import FP8_BLOCK_CONFIGS

    for pf in (False, True):
        cuda = _compiles_clean(dataclasses.replace(FP8_BLOCK_CONFIGS[0], scale_prefetch=pf), 8192, scale_a_mn=True)
        assert ("prefetch.global.L1" in cuda) == pf


def test_l2_promotion_on_the_producer_s_tma_loads():
    """`l2_promotion` (`GemmConfig.l2_promotion`, `:pr256`): every TMA load of A and B carries it
    (the tensor maps' L2 sector promotion), and the results are the rule's on the executor."""
    from tilec.dialects.layout_tma import TmaLoadOp

    (m, n, k), kw, dtype, ep, dynamic_m = CASES["two-warpgroups-bias-relu"]
    module = gemm_hopper_ws(None, n, k, bk=128, stages=2, dtype=dtype, b_kmajor=True, epilogue=ep,
                            block_scales=True, fma_promote=True, l2_promotion=256, **kw)
    loads = [o for o in module.walk() if isinstance(o, TmaLoadOp)]
    assert loads and all(o.l2_promotion_bytes == 256 for o in loads)
    _run_and_check(module, m, n, k, dtype, "layout", ep, dynamic_m)


# Stream-K with block scales (`gemm_hopper_ws(block_scales=True, stream_k=True)`, `:sk`): the
# full waves of 64 x 64 tiles whole, the last round's K trips shared; a shared segment's
# promoted accumulator stored as an f32 partial, summed by the fixup launch (or, `serial`,
# by the tile's last block). M = 200 (run-time; 4 block rows, the last 8 rows) x N = 208
# (4 block columns, the last 16 wide, 2 blocks of B's scales): 16 tiles; K = 992: 8 K
# blocks (the last 96 wide) in 8 steps, 4 trips of 2 stages a tile. 3 blocks: 5 waves
# whole, the last tile's 4 trips 2 a block; 6 blocks: 2 waves, 4 tiles' 16 trips 3 a block
# (ranges across tile boundaries); 7 blocks: 2 waves, 2 tiles' 8 trips 2 a block (two
# segments a tile, none crossing).
@pytest.mark.parametrize(("blocks", "serial"), [(3, False), (6, False), (6, True), (7, True)])
def test_block_scaled_stream_k_tail_against_float64(blocks, serial):
    m, n, k = 200, 208, 992
    module = gemm_hopper_ws(None, n, k, bm=64, bn=64, bk=128, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                            block_scales=True, fma_promote=True, persistent=blocks, group=2, tma_epilogue=True,
                            stream_k=True, serial=serial)
    extra = {"pw": np.full(2 * blocks * 64 * 64, np.nan, np.float32)}
    if serial:
        extra["pctr"] = np.zeros(blocks, np.int32)
    _run_and_check(module, m, n, k, "f8E4M3FN", "layout", Epilogue(), True, extra=extra)


def test_block_scaled_stream_k_after_the_default_pipeline():
    """The rule's tile shape (128 x 128, two consumer warpgroups) with bias, over 5
    blocks: M = 300, N = 272 (3 x 3 tiles, the last row 44 rows, the last column 16
    wide), K = 1024 (8 steps, 4 trips): one wave whole, 4 tiles' 16 trips shared."""
    m, n, k, blocks = 300, 272, 1024, 5
    ep = Epilogue(bias=True)
    module = gemm_hopper_ws(None, n, k, bm=128, bn=128, bk=128, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                            block_scales=True, fma_promote=True, persistent=blocks, group=8, tma_epilogue=True,
                            stream_k=True, epilogue=ep)
    _run_and_check(module, m, n, k, "f8E4M3FN", "lowered", ep, True,
                   extra={"pw": np.full(2 * blocks * 128 * 128, np.nan, np.float32)})


@pytest.mark.parametrize("serial", [False, True])
def test_block_scaled_stream_k_128x128_compiles_without_spills_at_8192(serial):
    """The rule's tile with the stream-K tail (`:sk`, `:sk:ser`) at 8192^3 compiles for
    sm_90a without spills and without serialized wgmma."""
    from tilec.gemm import FP8_BLOCK_CONFIGS

    _compiles_clean(dataclasses.replace(FP8_BLOCK_CONFIGS[0], stream_k=True, serial=serial), 8192)


def test_block_scaled_rule_takes_the_stream_k_tail_by_its_cost(monkeypatch):
    """With `STREAM_K_TAIL_BLOCK_SCALED` (on; here without the group of `with_l2_group`):
    8192^3 (4096 tiles of 128 x 128 over 132 blocks: 31.03 rounds) takes the tail, its last 4
    tiles' 64 trips one a block, and so does 8192 x 8192 x 16384; 4096^3 (7.76 rounds, 8 trips
    a tile: the tail saves one trip of 8, its partials and the fixup cost more) whole tiles;
    8192 x 8192 x 2048 (K under `STREAM_K_TAIL_MIN_K_BLOCK_SCALED`) and 2048 x 7168 x 18432
    (a last round of 104 tiles of 132), where the model alone took it and it ran slower, whole
    tiles; off, whole tiles everywhere."""
    from tilec import gemm

    kw = {"fp8": True, "block_scales": True, "b_kmajor": True}
    monkeypatch.setattr(gemm, "L2_GROUP_BLOCK_SCALED", False)
    monkeypatch.setattr(gemm, "STREAM_K_TAIL_BLOCK_SCALED", False)
    assert not gemm.choose_config(8192, 8192, 132, k=8192, **kw).stream_k
    monkeypatch.setattr(gemm, "STREAM_K_TAIL_BLOCK_SCALED", True)
    taken = gemm.choose_config(8192, 8192, 132, k=8192, **kw)
    assert taken.name == "f8b:128x128x128:4:sk" and taken.kwargs(132)["stream_k"] and taken.fma_promote
    assert gemm.stream_k_schedule(taken, 8192, 8192, 8192, 132) == (4096, 16, 132, 1, 31)
    assert taken.workspace(8192, 8192, 132) == 2 * 132 * 128 * 128
    assert not gemm.choose_config(4096, 4096, 132, k=4096, **kw).stream_k
    assert not gemm.choose_config(8192, 8192, 132, **kw).stream_k  # K unknown
    assert gemm.choose_config(8192, 8192, 132, k=16384, **kw).stream_k
    for m, n, k in ((8192, 8192, 2048), (2048, 7168, 18432), (300, 7168, 2112), (4096, 7168, 7168)):
        assert not gemm.choose_config(m, n, 132, k=k, **kw).stream_k, (m, n, k)


def test_block_scaled_rule_sizes_its_group_by_the_walk_s_dram_bytes(monkeypatch):
    """With `L2_GROUP_BLOCK_SCALED` (on; without the stream-K tail, then with it): 8192^3
    (B's 64 MiB more than half the L2 holds) walks groups of 16 block rows (B read 4 times
    instead of 8: `walk_dram_bytes` 320 MiB against 576; 32 rows' round of panels does not
    stay); 4096^3 and K = 2048 (A and B read once at any group) keep 8; off, 8 everywhere;
    with the stream-K tail both."""
    from tilec import gemm
    from tilec.support.target import target

    kw = {"fp8": True, "block_scales": True, "b_kmajor": True}
    c, tgt = gemm.FP8_BLOCK_CONFIGS[0], target("sm_90a")
    monkeypatch.setattr(gemm, "STREAM_K_TAIL_BLOCK_SCALED", False)
    mib = [gemm.walk_dram_bytes(c, 8192, 8192, 8192, 132, g, tgt) for g in (8, 16, 32)]
    assert mib[:2] == [576 * 2**20, 320 * 2**20] and mib[2] is None
    assert gemm.walk_dram_bytes(c, 4096, 4096, 4096, 132, 8, tgt) == 32 * 2**20
    monkeypatch.setattr(gemm, "L2_GROUP_BLOCK_SCALED", False)
    assert gemm.choose_config(8192, 8192, 132, k=8192, **kw).group == 8
    monkeypatch.setattr(gemm, "L2_GROUP_BLOCK_SCALED", True)
    taken = gemm.choose_config(8192, 8192, 132, k=8192, **kw)
    assert taken.name == "f8b:128x128x128:4:g16" and taken.kwargs(132)["group"] == 16 and taken.fma_promote
    for m, k in ((4096, 4096), (8192, 2048)):
        assert gemm.choose_config(m, m, 132, k=k, **kw).name == "f8b:128x128x128:4"
    assert gemm.choose_config(8192, 8192, 132, **kw).group == 8  # K unknown
    assert gemm.choose_config(8192, 8192, 132, k=8192, fp8=True, b_kmajor=True).group == 8  # per-tensor: not weighed
    monkeypatch.setattr(gemm, "STREAM_K_TAIL_BLOCK_SCALED", True)
    assert gemm.choose_config(8192, 8192, 132, k=8192, **kw).name == "f8b:128x128x128:4:g16:sk"


# one wgmma over chunks of 16 (`one_wgmma` with block scales): the 112-column tile at M = 200
# (run-time; 2 block rows, the second 72 rows) x N = 272 (3 block columns: 0-111 in B's
# scale block 0, 112-223 over blocks 0 and 1 (the first chunk in 0), 224-335 over blocks 1
# and 2 (its columns past 271 unstored, their block clipped at the last), K = 384 (3 steps
# in 2 trips of 2 stages); the 144-column tile over blocks 0-1 and 1-2 likewise, bias, a C buffer a chunk
ONE_WGMMA = {
    "112-c16": ((200, 272, 384), {"bm": 128, "bn": 112, "chunk": 16}, Epilogue()),
    "144-c16-bias-cb": ((130, 272, 256), {"bm": 128, "bn": 144, "chunk": 16, "chunk_buffers": True},
                        Epilogue(bias=True)),
    # `split_dispatch`: the K loop a copy per split, here 7, 1 and 2 chunks in the first block,
    # one block running the three (the executor runs blocks in lockstep: blocks in different
    # copies, each waiting on its own producer, would stall one another there, not on a GPU)
    "112-c16-split-dispatch": ((72, 272, 384), {"bm": 128, "bn": 112, "chunk": 16, "split_dispatch": True,
                                                "persistent": 1}, Epilogue()),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("case", ONE_WGMMA)
def test_one_wgmma_chunks_across_two_scale_blocks_against_float64(case, level):
    """Chunks of 16 columns in one wgmma a step, each chunk its scale block's B scale (the
    step's two, `paired`; with `split_dispatch` by the tile's copy of the K loop), tiles over
    two scale blocks of N, persistent over 3 blocks (`split_dispatch`: 1)."""
    (m, n, k), kw, ep = ONE_WGMMA[case]
    kw = {"persistent": 3, **kw}
    module = gemm_hopper_ws(None, n, k, bk=128, stages=2, dtype="f8E4M3FN", b_kmajor=True, epilogue=ep,
                            block_scales=True, fma_promote=True, group=8, tma_epilogue=True, one_wgmma=True, **kw)
    _run_and_check(module, m, n, k, "f8E4M3FN", level, ep, True)


def test_split_dispatch_copies_the_k_loop_per_split_and_drops_the_select():
    """`split_dispatch` at N = 8192 (bn 112, chunks of 16): 7 copies of the consumers' K loop
    (one per split: 1-7 chunks in the first block), the B scale a constant choice in each:
    no `arith.select` left in the K loops; refused without one_wgmma's narrow chunks."""
    from xdsl.dialects import arith, scf

    def module(**kw):
        return gemm_hopper_ws(None, 8192, 1024, bm=128, bn=112, chunk=16, bk=128, stages=4, dtype="f8E4M3FN",
                              b_kmajor=True, block_scales=True, fma_promote=True, persistent=132, group=16,
                              tma_epilogue=True, one_wgmma=True, **kw)

    def k_loops(m):
        return [op for op in m.walk() if isinstance(op, scf.ForOp)
                and any(o.name == "layout.mma" for o in op.body.block.ops)]

    def selects(loops):
        return sum(isinstance(o, arith.SelectOp) for loop in loops for o in loop.body.walk())

    plain, dispatched = k_loops(module()), k_loops(module(split_dispatch=True))
    assert len(plain) == 1 and len(dispatched) == 7
    assert selects(plain) > 0 and selects(dispatched) == 0
    with pytest.raises(ValueError, match="split_dispatch needs"):
        gemm_hopper_ws(None, 8192, 1024, bm=128, bn=128, bk=128, stages=4, dtype="f8E4M3FN", b_kmajor=True,
                       block_scales=True, split_dispatch=True)


@pytest.mark.parametrize("sd", [False, True])
def test_one_wgmma_112_compiles_without_spills_at_8192(sd):
    """The 128 x 112 tile in one m64n112k32 a step over chunks of 16 (a C buffer a chunk), with
    the select a chunk or the K loop a copy per split (`:sd`), compiles for sm_90a at 8192
    without spills and without serialized wgmma (168 registers at launch, as the rule's)."""
    from tilec.gemm import GemmConfig

    config = GemmConfig("f8b:128x112x128:4:fma:c16:ow:cb", 128, 112, 128, 4, efficiency=1.0, chunk=16,
                        one_wgmma=True, chunk_buffers=True, operand_bytes=1, block_scales=True, fma_promote=True,
                        split_dispatch=sd)
    assert "wgmma.mma_async.sync.aligned.m64n112k32.f32.e4m3.e4m3" in _compiles_clean(config, 8192)
