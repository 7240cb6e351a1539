"""The Hopper GEMMs of examples/python/gemm_bf16_hopper.py built with `tilec.Program`
(`gemm_hopper_ws_program`) are the programs of the text generators
(`gemm_hopper_ws_source`): the same IR op for op, SSA names included (the emitted
CUDA's variable names come from them), so the same CUDA byte for byte (but for the comments that give each op's location:
the text's line or the Python's)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16_hopper  # noqa: E402

SMALL = {"bm": 64, "bn": 64, "bk": 64, "stages": 2}
WS_CONFIGS = {
    "best-ws": ((256, 256, 512), gemm_bf16_hopper.BEST_WS),
    "best-ws-ragged": ((4000, 4000, 4000), gemm_bf16_hopper.BEST_WS),
    "small": ((64, 64, 256), SMALL),
    "cooperative": ((128, 256, 768), {}),
    "grouped": ((192, 128, 256), {**SMALL, "group": 2, "tma_epilogue": True}),
    "scheduled": ((128, 192, 256), {**SMALL, "persistent": 4, "group": 2, "tma_epilogue": True}),
    "persistent-registers": ((192, 128, 256), {**SMALL, "persistent": 2}),
    "bk32": ((4096, 4096, 4096), {"bk": 32, "stages": 4, "persistent": 132, "group": 8, "tma_epilogue": True}),
    "pingpong": ((192, 128, 256), {**SMALL, "persistent": 2, "group": 2, "tma_epilogue": True, "pingpong": True}),
    "pingpong-issue": ((192, 128, 256), {**SMALL, "persistent": 9, "group": 2, "pingpong": True, "handover": "issue"}),
    "pingpong-regs": ((192, 128, 256), {**SMALL, "persistent": 2, "pingpong": True}),
    "chunked": ((128, 256, 256), {**SMALL, "bn": 128, "persistent": 3, "group": 2, "tma_epilogue": True, "chunk": 64}),
    "chunked-grouped": ((192, 256, 256), {**SMALL, "bn": 128, "group": 2, "tma_epilogue": True, "chunk": 64}),
    "chunked-pingpong": ((192, 256, 256), {**SMALL, "bn": 128, "chunk": 64, "persistent": 2, "pingpong": True,
                                           "tma_epilogue": True}),
    "odd-all": ((200, 264, 136), {**SMALL}),
    "odd-persistent-grouped": ((200, 264, 136), {**SMALL, "persistent": 3, "group": 2, "tma_epilogue": True}),
    "one-row": ((1, 8, 8), {**SMALL}),
}


@pytest.mark.parametrize("case", WS_CONFIGS)
def test_ws_program_is_the_text_generators(case):
    shape, kw = WS_CONFIGS[case]
    text = parse_module(gemm_bf16_hopper.gemm_hopper_ws_source(*shape, **kw), "t.mlir")
    built = gemm_bf16_hopper.gemm_hopper_ws_program(*shape, **kw)
    assert str(built) == str(text)


@pytest.mark.parametrize("case", ["best-ws", "pingpong", "chunked", "odd-persistent-grouped"])
def test_ws_program_emits_the_same_cuda(case):
    shape, kw = WS_CONFIGS[case]
    text = parse_module(gemm_bf16_hopper.gemm_hopper_ws_source(*shape, **kw), "t.mlir")
    built = gemm_bf16_hopper.gemm_hopper_ws_program(*shape, **kw)
    for m in (text, built):
        run_pipeline(m, "default")
    assert _code(emit(built, "cuda")) == _code(emit(text, "cuda"))


def _code(cuda: str) -> str:
    """The CUDA without its location comments (`// file:line:col`, which name the text's
    lines or the Python's)."""
    return re.sub(r"(?m)^\s*// \S+:\d+:\d+\n", "", cuda)


PLAIN_CONFIGS = {
    "example": ((256, 256, 256), {}),
    "default-4096": ((4096, 4096, 4096), {}),
    "ragged": ((72, 264, 136), {"bm": 64, "bn": 64, "stages": 2}),
    "grouped": ((4096, 4096, 4096), {"group": 8}),
    "grouped-odd": ((640, 512, 256), {"bm": 128, "bn": 128, "group": 4, "stages": 3}),
}


@pytest.mark.parametrize("case", PLAIN_CONFIGS)
def test_program_is_the_text_generators(case):
    shape, kw = PLAIN_CONFIGS[case]
    text = parse_module(gemm_bf16_hopper.gemm_hopper_source(*shape, **kw), "t.mlir")
    built = gemm_bf16_hopper.gemm_hopper_program(*shape, **kw)
    assert str(built) == str(text)


@pytest.mark.parametrize("case", ["example", "ragged"])
def test_program_emits_the_same_cuda(case):
    shape, kw = PLAIN_CONFIGS[case]
    text = parse_module(gemm_bf16_hopper.gemm_hopper_source(*shape, **kw), "t.mlir")
    built = gemm_bf16_hopper.gemm_hopper_program(*shape, **kw)
    for m in (text, built):
        run_pipeline(m, "default")
    assert _code(emit(built, "cuda")) == _code(emit(text, "cuda"))
