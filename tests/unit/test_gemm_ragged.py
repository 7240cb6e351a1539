"""The Hopper GEMMs of examples/python/gemm_bf16_hopper.py at any M, N, K (K and N
multiples of 8): edge tiles are masked views, whose TMA loads fill the elements outside
A and B with zeros and whose stores (registers or TMA) write only the elements inside
C; K steps past K add zeros. Checked on the reference executor before and after the
default pipeline against float64 on odd shapes, output poisoned (every element of C
must be written), and compiled for sm_90a with NVRTC."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16_hopper


def _check(module, m: int, n: int, k: int, level: str) -> None:
    if level == "lowered":
        run_pipeline(module, "default")
    inputs = random_inputs(module, 0)
    inputs["pc"] = np.full(m * n, 0x7FC0, np.uint16)  # NaN: an element never written fails
    out = run(module, inputs)["pc"]
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)
    got = bf16_to_f32(np.asarray(out).reshape(m, n)).astype(np.float64)
    exact, mag = a @ b, abs(a) @ abs(b)
    gamma = k * 2.0**-24  # f32 accumulation of k products, then one bf16 rounding
    assert np.all(abs(got - exact) <= gamma * mag + 2.0**-8 * (abs(exact) + gamma * mag))


WS_CASES = {
    # 200 = 3 block rows of 64 and 8 rows; 264 = 4 block columns of 64 and 8; K = 136:
    # 3 steps of 64 (the last 8 wide), rounded up to 4 by the 2 stages
    "odd-all": ((200, 264, 136), {"bm": 64, "bn": 64}),
    "odd-persistent-grouped-tma": ((200, 264, 136), {"bm": 64, "bn": 64, "persistent": 3, "group": 2, "tma_epilogue": True}),
    # BEST_WS's block (128 x 256 in chunks of 128, TMA epilogue) over a C of 1 x 2 tiles,
    # the second chunk of the last tile wholly outside C
    "best-ws-block": ((72, 264, 520), {"chunk": 128, "persistent": 2, "group": 8, "tma_epilogue": True}),
    "one-row": ((1, 8, 8), {"bm": 64, "bn": 64}),
    # M, N, K multiples of the tiles (unmasked tiles), K = 192: 3 steps of 64 rounded
    # up to 4 by the 2 stages, the 4th's TMA boxes wholly past K
    "k-steps-odd-of-stages": ((64, 64, 192), {"bm": 64, "bn": 64}),
    # the producer's cp.async loads (`cp_async`): rows of 16 mod 32 bytes (K = 136, N = 264:
    # 272 and 528 bytes) in masked edge tiles; BEST_WS's block with both operands and
    # with B alone (K = 520: 1040 bytes); unmasked tiles whose last K steps lie wholly
    # past K (zeros, as the TMA's boxes)
    "odd-cp-async": ((200, 264, 136), {"bm": 64, "bn": 64, "cp_async": "ab"}),
    "best-ws-block-cp-async": ((72, 264, 520), {"chunk": 128, "persistent": 2, "group": 8, "tma_epilogue": True,
                                                "cp_async": "ab"}),
    "best-ws-block-cp-async-b": ((72, 264, 520), {"chunk": 128, "persistent": 2, "tma_epilogue": True,
                                                  "cp_async": "b"}),
    "k-steps-odd-of-stages-cp-async": ((64, 64, 192), {"bm": 64, "bn": 64, "cp_async": "ab"}),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("case", WS_CASES)
def test_ws_gemm_any_shape(case, level):
    (m, n, k), kw = WS_CASES[case]
    kw = {"bk": 64, "stages": 2, **kw}
    _check(gemm_bf16_hopper.gemm_hopper_ws(m, n, k, **kw), m, n, k, level)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("shape", [(72, 264, 136), (64, 64, 192)])
def test_gemm_any_shape(shape, level):
    """The block-synchronous GEMM (registers epilogue) at 72 x 264 x 136, and at
    64 x 64 x 192 (unmasked tiles; 3 K steps of 64 rounded up to 4 by the 2 stages:
    the ring's last loads, of tile 3, lie wholly past K)."""
    m, n, k = shape
    _check(gemm_bf16_hopper.gemm_hopper(m, n, k, bm=64, bn=64, stages=2), m, n, k, level)


def test_ragged_best_ws_compiles():
    """BEST_WS at 4000^3 compiles for sm_90a without spills: masked edge tiles cost
    the TMA nothing (its out-of-bounds fill and clipping are the hardware's)."""
    from tilec.runtime.nvrtc import resource_usage

    module = gemm_bf16_hopper.gemm_hopper_ws(4000, 4000, 4000, **gemm_bf16_hopper.BEST_WS)
    run_pipeline(module, "default")
    result = compile_sm90_or_skip(emit(module, "cuda"))
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0


@pytest.mark.parametrize("cp_async", ["b", "ab"])
def test_cp_async_kernel_compiles_without_spills(cp_async):
    """The 128 x 256 kernel at 3000 x 5000 x 7000 (`128x256x64:4:c128`, run-time M, 32-bit
    offsets) with B, or A and B, loaded by the producer's cp.async (`:cpb`, `:cpab`)
    compiles for sm_90a without spills (the producer keeps 72 registers where it loads
    both)."""
    from tilec.gemm import CONFIGS, MatmulKey, index_bits, matmul_program
    from tilec.gemm_programs import PLAIN
    from tilec.runtime.nvrtc import resource_usage

    # the 128 x 256 tile by name: the rule now takes 128 x 192 pairs there (rag35), which
    # cp.async does not combine with
    config = dataclasses.replace(next(c for c in CONFIGS if c.name == "128x256x64:4:c128"), cp_async=cp_async)
    module = matmul_program(MatmulKey(config, 5000, 7000, "bf16", PLAIN, 132, False, index_bits(3000, 5000, 7000, config)))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    # the consumers fence the cp.async writes for the wgmma once a K step, after its wait
    lines = [x.strip() for x in cuda.splitlines() if x.strip()]
    fenced = [lines[i - 1] for i, x in enumerate(lines) if x == "tilec_fence_proxy_async();"]
    assert sum(x.startswith("tilec_mbarrier_wait(") for x in fenced) == config.stages
    assert all(x.startswith(("tilec_mbarrier_wait(", "// TMA store")) for x in fenced)
    result = compile_sm90_or_skip(cuda)
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0


@pytest.mark.parametrize("shape", [(64, 64, 100), (64, 60, 64), (0, 64, 64)])
def test_shapes_the_tma_cannot_address_are_refused(shape):
    """K and N must keep A's and B's rows 16-byte aligned (multiples of 8 bf16)."""
    with pytest.raises(ValueError, match="multiples of 8"):
        gemm_bf16_hopper.gemm_hopper_ws(*shape)
    with pytest.raises(ValueError, match="multiples of 8"):
        gemm_bf16_hopper.gemm_hopper(*shape)


@pytest.mark.parametrize("m,persistent,blocks", [(256, 132, 2), (1024, 5, 5)])
def test_a_persistent_grid_has_no_more_blocks_than_tiles(m, persistent, blocks):
    """A static M gives the persistent grid min(P, tiles) blocks (2 tiles of 128 x 256 at
    256 x 256: 2 blocks, not 132 of which 130 would find no tile); with a run-time M the
    grid is computed at launch."""
    from tilec.dialects.layout import LaunchOp

    module = gemm_bf16_hopper.gemm_hopper_ws(m, 256, 512, persistent=persistent)
    (launch,) = [o for o in module.walk() if isinstance(o, LaunchOp)]
    gx = launch.grid_x.owner
    assert gx.value.value.data == blocks
