"""benchmarks/gemm_dot_bench.py without a GPU: `--dry-run` builds the plain-loop GEMM
for sm_80 (cp.async pipeline of `num_stages` stages, mma.sync) and the hand-written
mma.sync GEMM, compiles each with NVRTC, launches nothing and prints its table."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import gemm_dot_bench  # noqa: E402


def test_parse_tile_reads_the_stages():
    assert gemm_dot_bench.parse_tile("128x128x32:8:3") == (128, 128, 32, 8, 3)
    assert gemm_dot_bench.parse_tile("64x128x32:4") == (64, 128, 32, 4, None)


def test_dry_run_compiles_the_sm_80_plain_loop_and_the_hand_written_gemm(capsys):
    pytest.importorskip("cupy")
    assert gemm_dot_bench.main(["--sizes", "256", "--targets", "sm_80", "--tiles", "128x128x32:8:3,64x64x32:4:5",
                                "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "sm_80 128x128x32:8:3: compiled (" in out
    assert "sm_80 64x64x32:4:5: compiled (" in out
    assert "hand mma.sync 128x256x64:2x4:4:s:db:g8: compiled (" in out
    table = out.split("\n\n", 1)[1]
    assert "tilec sm_80 plain loop" in table and "hand mma.sync" in table
    assert "256x256x256 |       - | " in table


def test_variant_pipelines_change_only_the_passes_they_name():
    """`--variants`: each is the default pipeline with the named passes' options set."""
    from tilec.compiler.pipeline import NAMED_PIPELINES

    default = NAMED_PIPELINES["default"]
    assert gemm_dot_bench.variant_pipeline("default") == default
    off = gemm_dot_bench.variant_pipeline("no-prefetch")
    assert off == default.replace("prefetch-operands", "prefetch-operands{enabled=false}")
    rolled = gemm_dot_bench.variant_pipeline("rolled")
    assert rolled == default.replace("software-pipeline", "software-pipeline{rolled=true}")
    # the default pipeline rolls cp.async loops: `unrolled` and `prefetch-rotate` say
    # rolled=false, so they stay what they name
    unrolled = gemm_dot_bench.variant_pipeline("unrolled")
    assert unrolled == default.replace("software-pipeline", "software-pipeline{rolled=false}")
    rotate = gemm_dot_bench.variant_pipeline("prefetch-rotate")
    assert rotate == unrolled.replace("prefetch-operands", "prefetch-operands{rotate=true}")


def test_the_fastest_measured_sm_80_tile_comes_first():
    tiles = gemm_dot_bench.TILES["sm_80"].split(",")
    assert tiles[0] == "128x256x64:8:3" and len(set(tiles)) == len(tiles)
    for spec in tiles:
        gemm_dot_bench.parse_tile(spec)


def test_dry_run_compiles_each_variant(capsys):
    pytest.importorskip("cupy")
    assert gemm_dot_bench.main(["--sizes", "256", "--targets", "sm_80", "--tiles", "128x128x32:4:3", "--no-hand",
                                "--variants", "default,no-prefetch,rolled,unrolled", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for label in ("128x128x32:4:3: compiled (", "128x128x32:4:3 [no-prefetch]: compiled (",
                  "128x128x32:4:3 [rolled]: compiled (", "128x128x32:4:3 [unrolled]: compiled ("):
        assert f"sm_80 {label}" in out
