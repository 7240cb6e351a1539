"""The Hopper GEMMs of examples/python/gemm_bf16_hopper.py, built with `tilec.Program`,
are the programs the text generators they replaced wrote: tests/data/gemm_hopper_ir.json
records, for 22 configurations (BEST_WS, chunks, pingpong with either handover,
persistent and grouped schedules, the TMA epilogue, ragged shapes), the sha256 of the
printed IR of the text generators' programs, taken while both existed and each
program was checked equal to the built one, op for op, SSA names included (the
emitted CUDA's variable names come from them). The same IR gives the same CUDA byte
for byte; tests/unit/test_cuda_fingerprints.py guards the CUDA of the two examples."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16_hopper  # noqa: E402

RECORD = json.loads((ROOT / "tests" / "data" / "gemm_hopper_ir.json").read_text())


@pytest.mark.parametrize("case", sorted(RECORD))
def test_built_gemm_is_the_recorded_program(case):
    r = RECORD[case]
    build = gemm_bf16_hopper.gemm_hopper_ws if case.startswith("ws:") else gemm_bf16_hopper.gemm_hopper
    assert hashlib.sha256(str(build(*r["shape"], **r["kw"])).encode()).hexdigest() == r["ir_sha256"]


def test_the_record_covers_the_schedules():
    kws = [r["kw"] for name, r in RECORD.items() if name.startswith("ws:")]
    for option in ("chunk", "pingpong", "persistent", "group", "tma_epilogue"):
        assert any(option in kw for kw in kws), option
    assert {kw.get("handover", "drain") for kw in kws if kw.get("pingpong")} == {"drain", "issue"}
    assert any(name.startswith("sync:") for name in RECORD)
