"""The mma.sync GEMM of examples/python/gemm_bf16.py, built with `tilec.Program`, is the
program the text generator it replaced (`gemm_source`, f-strings of IR) wrote:
tests/data/gemm_mma_ir.json records, for 15 configurations (the example, the fastest
at 8192, swizzled or padded tiles, with and without register double buffering,
grouped orders with even and uneven last groups, 2x2 and 4x2 warps, K steps of 32),
the sha256 of the printed IR of the text generator's programs, taken while both
existed and each program was checked equal to the built one, op for op, SSA names
included (the emitted CUDA's variable names come from them; the CUDA of two of them
was compared byte for byte but for the location comments). The same IR gives the same
CUDA; tests/unit/test_cuda_fingerprints.py guards the CUDA of examples/gemm_bf16.mlir."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16  # noqa: E402

RECORD = json.loads((ROOT / "tests" / "data" / "gemm_mma_ir.json").read_text())


@pytest.mark.parametrize("case", sorted(RECORD))
def test_built_gemm_is_the_recorded_program(case):
    r = RECORD[case]
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in r["kw"].items()}
    assert hashlib.sha256(str(gemm_bf16.gemm(*r["shape"], **kw)).encode()).hexdigest() == r["ir_sha256"]


def test_the_record_covers_the_options():
    kws = [r["kw"] for r in RECORD.values()]
    for option, values in (("swizzle", {True, False}), ("double_buffer", {True, False})):
        assert {kw.get(option, True) for kw in kws} == values, option
    assert {kw.get("group", 8) > 1 for kw in kws} == {True, False}
    assert any(r["shape"][0] // r["kw"].get("bm", 128) % max(1, r["kw"].get("group", 8)) for r in RECORD.values())
    assert {tuple(kw.get("warps", (2, 4))) for kw in kws} >= {(2, 4), (2, 2), (4, 2)}
