"""Tile, vectorize and distribute of swizzled (composed) shared views: a cp.async
pipeline writes each element at swizzle(offset), CuTe's ComposedLayout semantics with
the sub-view's offset folded in before the swizzle. The shared buffer is read back raw
through a plain re-view, so the test sees where every element landed, on the CPU
reference executor before and after lowering; the emitted CUDA compiles (NVRTC)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.cuda import emit_cuda
from tilec.compiler.pipeline import run_pipeline
from tilec.dialects.swizzle import Swizzle
from tilec.runtime.reference import check_equivalence, random_inputs, run


def program(bits: int, base: int, shift: int, vec: int, threads: str, static_stage: bool):
    """Two blocks; block b copies rows [64b, 64b+64) of a 128x64 bf16 tensor with
    cp.async into stage b (or, with `static_stage`, stage 1) of a swizzled 128x64
    shared buffer, then copies the buffer's stage raw (a plain re-view) to dst (a
    module built with `tilec.Program`)."""
    import tilec

    p = tilec.Program("k")
    a, o = (p.view(p.pointer(n, "bf16", align=16), "(128,64):(64,1)") for n in ("src", "dst"))
    with p.launch(grid=(2, 1, 1), threads=64) as k:
        swizzled = tilec.ComposedLayout(tilec.Swizzle(bits, base, shift), 0, tilec.Layout((128, 64), (64, 1)))
        s = p.alloc(swizzled, "bf16")
        stage = 1 if static_stage else k.bx
        fa = p.distribute(p.vectorize(p.tile(a, [k.bx, 0], [64, 64]), [1, vec]), k.tid, threads)
        fs = p.distribute(p.vectorize(p.tile(s, [stage, 0], [64, 64]), [1, vec]), k.tid, threads)
        p.copy_async(fa, fs, token=False)
        p.async_wait(pending=0)
        p.barrier()
        raw = p.view(s, "(128,64):(64,1)")
        p.copy(p.tile(raw, [stage, 0], [64, 64]), p.tile(o, [k.bx, 0], [64, 64]))
    return p.module


CASES = [
    # NVMMA 128-byte swizzle on bf16 (16-byte units of 8 elements), 16-byte vectors
    ((3, 3, 3), 8, "(8,8):(8,1)", False),
    ((3, 3, 3), 8, "(8,8):(8,1)", True),
    # threads down the columns first; 8-byte vectors in 4-element units
    ((2, 2, 3), 4, "(16,4):(1,16)", False),
    # 64-byte swizzle, 4-byte vectors (the vector inside a unit of 8)
    ((2, 3, 3), 2, "(2,32):(32,1)", False),
]


def expected(src: np.ndarray, sw: Swizzle, static_stage: bool) -> np.ndarray:
    """dst as the swizzled layout puts it, read back raw: element o of block b's 64x64
    tile goes to stage s (b, or 1 with a static stage) at swizzle(s*4096 + o), the
    stage's offset folded in before the swizzle (here a multiple of its period)."""
    out = np.empty_like(src[: 128 * 64])
    o = np.arange(4096)
    for b in range(2):
        s = 1 if static_stage else b
        dest = np.array([sw.apply(s * 4096 + x) for x in o]) - s * 4096
        tile = np.empty(4096, src.dtype)
        tile[dest] = src[b * 4096 + o]
        out[b * 4096 : (b + 1) * 4096] = tile
    return out


@pytest.mark.parametrize("swz,vec,threads,static_stage", CASES)
@pytest.mark.parametrize("pipeline", [None, "lower-to-gpu", "default"])
def test_each_element_lands_at_swizzle_of_its_offset(swz, vec, threads, static_stage, pipeline):
    m = program(*swz, vec, threads, static_stage)
    if pipeline:
        run_pipeline(m, pipeline)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    src = inputs["src"].reshape(-1)
    got = out["dst"].reshape(-1)[: 128 * 64]
    want = expected(src, Swizzle(*swz), static_stage)
    assert not np.array_equal(want, src[: 128 * 64])  # the swizzle does move elements
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("swz,vec,threads,static_stage", CASES)
def test_lowering_is_equivalent_and_cuda_compiles(swz, vec, threads, static_stage):
    before = program(*swz, vec, threads, static_stage)
    after = before.clone()
    run_pipeline(after, "lower-to-gpu")
    report = check_equivalence(before, after, seed=3)
    assert report, str(report)
    cuda = emit_cuda(after)
    assert f"tilec_cp_async<{vec * 2}>(smem + " in cuda
    assert " ^ " in cuda  # the swizzle's XOR
    compile_sm90_or_skip(cuda)
