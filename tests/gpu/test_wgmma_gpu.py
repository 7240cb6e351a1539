"""On an H100: `layout.mma` with a version-3 accumulator lowered to
`wgmma.mma_async.sync.aligned.m64nNk16.f32.{bf16,f16}` gives NumPy's `C + A @ B` within
the float MMA tolerance (`mma_error_bound`, docs/testing.md): single wgmma tiles
(n = 64, 128, 256; bf16 and f16; A from shared memory or registers; B MN- or K-major;
128/64/32-byte swizzles and none; two warpgroups), each through the default pipeline
(TMA loads into the NVMMA-swizzled tiles, an mbarrier, then wgmma); a multi-K-step GEMM
whose loop issues the TMA loads and waits on the mbarrier's phase; the Hopper GEMM
example. Inputs random (never zeros), outputs poisoned (NaN) where the kernel only
writes them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.wgmma_programs import wgmma_gemm_program, wgmma_mma_program

import tilec
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

pytestmark = pytest.mark.gpu


def _inputs(rng, shape, et):
    x = rng.uniform(-2, 2, shape).astype(np.float32)
    if et == "bf16":
        bits = f32_to_bf16(x)
        return bits, bf16_to_f32(bits).astype(np.float64)
    h = x.astype(np.float16)
    return h, h.astype(np.float64)


def _run_tile(m, n, k, et, **kw):
    import cupy as cp

    rng = np.random.default_rng(m + n + k)
    a, a64 = _inputs(rng, (m, k), et)
    b, b64 = _inputs(rng, (k, n), et)
    c = rng.uniform(-4, 4, (m, n)).astype(np.float32)
    kernel = tilec.compile(wgmma_mma_program(m, n, k, et, **kw))
    instr_n = kw.get("instr_n") or n
    assert f"wgmma.mma_async.sync.aligned.m64n{instr_n}k16.f32.{et}.{et}" in kernel.source
    b_host = b if kw.get("b_major", "mn") == "mn" else np.ascontiguousarray(b.T)
    dc = cp.asarray(c.reshape(-1))
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b_host.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    gamma, _ = mma_error_bound(k, et)
    bound = gamma * (np.abs(c) + np.abs(a64) @ np.abs(b64))
    err = np.abs(got - (a64 @ b64 + c))
    assert np.all(err <= bound), f"max error {err.max()} (a wrong descriptor or fragment is off by O(1))"
    return kernel


@pytest.mark.parametrize("et", ["bf16", "f16"])
@pytest.mark.parametrize("n", [64, 128, 256])
def test_wgmma_single_tile(n, et):
    """m64nNk16: A (32-byte swizzle, K-major) and B (128-byte swizzle, MN-major) in
    shared memory."""
    _run_tile(64, n, 16, et)


@pytest.mark.parametrize(
    "case",
    [
        {"a_from": "regs"},
        {"b_major": "k", "b_swizzle": 32},
        {"a_swizzle": 0, "b_swizzle": 0},
        {"a_swizzle": 0, "b_swizzle": 0, "b_major": "k"},
        {"k": 32, "a_swizzle": 64, "b_swizzle": 64},
        {"k": 64, "a_swizzle": 128, "b_swizzle": 128, "b_major": "k"},
        {"m": 128, "wg": 2, "n": 128, "k": 64, "a_swizzle": 128},
        {"m": 128, "wg": 1, "n": 256, "instr_n": 128, "k": 32, "a_swizzle": 64, "a_from": "regs"},
    ],
    ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()),
)
def test_wgmma_operand_variants(case):
    case = dict(case)
    m, n, k = case.pop("m", 64), case.pop("n", 128), case.pop("k", 16)
    _run_tile(m, n, k, "bf16", **case)


@pytest.mark.parametrize("out", ["f32", "bf16"])
def test_wgmma_gemm_tma_loop(out):
    """512^3: per K step two TMA loads on one mbarrier (phase kt % 2), then 4 wgmma
    per warpgroup; C poisoned."""
    import cupy as cp

    m = n = k = 512
    rng = np.random.default_rng(7)
    a, a64 = _inputs(rng, (m, k), "bf16")
    b, b64 = _inputs(rng, (k, n), "bf16")
    kernel = tilec.compile(wgmma_gemm_program(m, n, k, out=out))
    assert "cp.async.bulk.tensor" in kernel.source and "wgmma.mma_async" in kernel.source
    if out == "f32":
        dc = cp.full(m * n, np.nan, dtype=cp.float32)
    else:
        dc = cp.full(m * n, 0x7FC0, dtype=cp.uint16)
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n)
    got = (got if out == "f32" else bf16_to_f32(got)).astype(np.float64)
    exact, mag = a64 @ b64, np.abs(a64) @ np.abs(b64)
    gamma, _ = mma_error_bound(k, "bf16")
    bound = gamma * mag + (0 if out == "f32" else 2.0**-8 * (np.abs(exact) + gamma * mag))
    err = np.abs(got - exact)
    assert np.all(err <= bound), f"max error {np.nanmax(err)}"


def test_hopper_gemm_example():
    """examples/python/gemm_bf16_hopper.py at 1024^3 on the GPU (torch tensors)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import gemm_bf16_hopper

    assert gemm_bf16_hopper.main(["1024", "1024", "1024"]) == 0


def test_hopper_ws_gemm_example():
    """The warp-specialised GEMM (`--ws`, `BEST_WS`: a producer warpgroup, 2 consumer
    warpgroups, mbarriers full/empty per stage, setmaxnreg, persistent over the
    multiprocessors, TMA-store epilogue in two column chunks) at 1024 x 768 x 2048 on
    the GPU: output poisoned with NaN, checked elementwise against float64 within
    `mma_error_bound` (examples/python/gemm_bf16_hopper.py `main`); 2048 / 64 = 32 K
    steps: 8 rounds of the 4-stage ring, so every phase parity of every barrier is used
    several times."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import gemm_bf16_hopper

    assert gemm_bf16_hopper.main(["--ws", "1024", "768", "2048"]) == 0


@pytest.mark.parametrize(
    "kw",
    [
        {"persistent": 10, "group": 3, "tma_epilogue": True, "bk": 64, "stages": 2},
        {"persistent": 10, "tma_epilogue": False, "bk": 64, "stages": 4},
        {"group": 4, "tma_epilogue": True, "bk": 32, "stages": 4},
        {"persistent": 132, "group": 8, "tma_epilogue": True, "bk": 32, "stages": 4},
        {"persistent": 10, "group": 3, "tma_epilogue": True, "bm": 128, "bn": 128, "stages": 4, "pingpong": True},
        {"persistent": 10, "group": 8, "bm": 64, "bn": 256, "stages": 4, "pingpong": True},
        {
            "persistent": 10,
            "group": 3,
            "tma_epilogue": True,
            "bm": 128,
            "bn": 128,
            "pingpong": True,
            "handover": "issue",
        },
        {
            "persistent": 132,
            "group": 8,
            "bm": 64,
            "bn": 256,
            "bk": 32,
            "stages": 4,
            "tma_epilogue": True,
            "pingpong": True,
        },
        {"persistent": 10, "group": 3, "tma_epilogue": True, "bk": 64, "stages": 4, "chunk": 128},
        {"persistent": 10, "tma_epilogue": True, "bk": 64, "stages": 2, "chunk": 64},
        {"persistent": 10, "group": 3, "bk": 64, "stages": 4, "chunk": 128},
        {"persistent": 10, "group": 3, "tma_epilogue": True, "bm": 128, "bn": 128, "stages": 5, "pingpong": True,
         "handover": "loop"},
        {"persistent": 10, "group": 3, "tma_epilogue": True, "bm": 128, "bn": 128, "stages": 6, "pingpong": True,
         "handover": "loop", "one_c_buffer": True},
        {"persistent": 10, "group": 3, "tma_epilogue": True, "bk": 64, "stages": 4, "chunk": 128, "stagger": 2},
    ],
    ids=[
        "persistent-grouped-tma",
        "persistent",
        "grouped-tma-bk32",
        "persistent-more-blocks-than-tiles",
        "pingpong-128x128-tma",
        "pingpong-64x256",
        "pingpong-128x128-tma-handover-issue",
        "pingpong-64x256-tma-some-blocks-one-tile",
        "chunks-of-128-tma",
        "chunks-of-64-tma",
        "chunks-of-128-registers",
        "pingpong-128x128-5-stages-handover-loop",
        "pingpong-128x128-6-stages-one-c-buffer",
        "staggered-consumers-chunks-of-128-tma",
    ],
)
def test_hopper_ws_gemm_schedules(kw):
    """The warp-specialised GEMM's tile schedules and epilogues at 1024 x 768 x 2048
    (8 x 3 = 24 tiles of 128 x 256): persistent over 10 blocks (2 or 3 tiles each: the
    ring's phases run on across tiles), or 132 (more blocks than tiles); grouped order
    with a last group of fewer rows (8 % 3); the stmatrix + TMA-store epilogue (the
    store of a tile in flight during the next tile's K loop); the pingpong schedule
    (two consumer warpgroups on alternate tiles of 128 x 128 or 64 x 256: 48 tiles, 4
    or 5 per block of 10, so consumer 1 has one tile fewer in some blocks; over 132
    blocks, consumer 1 of most blocks has none); column chunks (`chunk`: each tile's
    128 x 256 in 2 or 4 chunks, each its own accumulator, B buffers and C tile; with
    the TMA store, one C buffer of 128 x chunk that the chunks take turns at). Output poisoned with NaN,
    checked elementwise against float64 within `mma_error_bound` (`run_and_check`)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import gemm_bf16
    import gemm_bf16_hopper

    def build(m, n, k):
        return gemm_bf16_hopper.gemm_hopper_ws(m, n, k, **kw)

    assert gemm_bf16.run_and_check(build, (1024, 768, 2048), (256, 256, 512), "sm_90a") == 0


@pytest.mark.parametrize("shape", [(4000, 4000, 4000), (1000, 776, 1032), (1, 264, 8), (3000, 5000, 7000)])
@pytest.mark.parametrize("ws", [True, False], ids=["best-ws", "block-synchronous"])
def test_hopper_gemm_any_shape(shape, ws):
    """Both Hopper GEMMs at shapes that are not multiples of their tiles (M any, K and
    N multiples of 8): masked edge tiles whose TMA loads zero-fill and whose stores
    clip; output poisoned with NaN, checked elementwise against float64
    (`run_and_check`)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import gemm_bf16
    import gemm_bf16_hopper

    def build(m, n, k):
        if ws:
            return gemm_bf16_hopper.gemm_hopper_ws(m, n, k, **gemm_bf16_hopper.BEST_WS)
        return gemm_bf16_hopper.gemm_hopper(m, n, k)

    assert gemm_bf16.run_and_check(build, shape, (72, 264, 136), "sm_90a") == 0
