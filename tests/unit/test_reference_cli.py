"""`tilec --run cpu` and `tilec -p ... --check-equivalence` (runtime/reference/cli.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tilec.support.diagnostics import TilecError
from tilec.compiler.pipeline import parse_module
from tilec.runtime.reference.cli import check_equivalence_cli, run_cpu_cli

ROOT = Path(__file__).resolve().parents[2]
IN_OUT_SMEM = ROOT / "tests" / "filecheck" / "lower-to-gpu" / "in_out_smem.mlir"


def module(path: Path):
    return parse_module(path.read_text(), path.name)


def test_run_cpu_summarises_buffers():
    out = run_cpu_cli(module(ROOT / "examples" / "gluon_memcpy_2d.mlir"), seed=0)
    assert "@memcpy_2d on the CPU reference executor (seed 0): ok" in out
    assert "%src: 200000 x float32 (input)" in out
    assert "%dst: 200000 x float32 (output)" in out and "every element written" in out


def test_run_cpu_reports_a_race_with_its_location():
    m = module(IN_OUT_SMEM)
    (barrier,) = [o for o in m.walk() if o.name == "layout.barrier"]
    barrier.detach()
    barrier.erase()  # the other ops keep their places in the file
    with pytest.raises(TilecError) as info:
        run_cpu_cli(m)
    assert str(info.value).startswith("in_out_smem.mlir:")
    assert "data race on shared memory" in str(info.value)


def test_check_equivalence_each_pass():
    out = check_equivalence_cli(module(ROOT / "examples" / "transpose.mlir"), "tile,distribute", each=True)
    assert "equivalent after 'tile' (seed 0" in out
    assert "equivalent after 'tile,distribute' (seed 0" in out


def test_driver_runs_on_the_cpu():
    r = subprocess.run(
        [sys.executable, "-m", "tilec.tools.tilec", str(ROOT / "examples" / "strided_rows.mlir"), "--run", "cpu"],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "@strided_rows on the CPU reference executor" in r.stdout
