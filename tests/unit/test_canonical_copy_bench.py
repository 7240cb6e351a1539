"""The CPU parts of benchmarks/canonical_copy_bench.py (the GPU run is the lead's): its
--quick cases keep each canonical copy's pattern, its byte counts, its --list of both
paths' kernel choices, its table, and report.py's section from its JSON."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import canonical_copy_bench as bench  # noqa: E402
import report  # noqa: E402
from helpers.canonical_copies import CANONICAL  # noqa: E402

from tilec.copy_plan import plan_copy  # noqa: E402


@pytest.mark.parametrize("case", CANONICAL, ids=lambda c: c.name.replace(" ", "_"))
def test_quick_cases_keep_the_pattern(case):
    quick = bench.quick_case(case)
    full, small = plan_copy(*case.operands()), plan_copy(*quick.operands())
    assert len(small.extents) == len(full.extents)
    assert [s in (0, 1) and s for s in small.src_strides] == [s in (0, 1) and s for s in full.src_strides]
    assert quick.num_elements * 4 <= case.num_elements


def test_bytes_moved_counts_each_src_element_once():
    by_name = {c.name: c for c in CANONICAL}
    t = by_name["transpose float16 8192x8192"]
    assert bench.bytes_moved(t) == 2 * 2 * 8192 * 8192
    row = by_name["row broadcast float32"]
    assert bench.bytes_moved(row) == 4 * 8192 * 8192 + 4 * 8192
    cast = by_name["cast float32->bfloat16"]
    assert bench.bytes_moved(cast) == (4 + 2) * 8192 * 8192


def test_list_prints_both_choices(capsys):
    assert bench.main(["--list", "--quick", "--only", "transpose float16 8192"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("transpose float16 8192x8192: copy_ ['tiled', [128, 64], 256], program ['tiled'")
    assert "(differ)" not in out


def _row(name, copy, program, torch):
    return {"case": name, "copy_": ["tiled", [128, 64], 256], "program": ["tiled", [128, 64], 256],
            "copy_ratio": copy, "program_ratio": program, "torch_ratio": torch,
            "copy_exact": True, "program_exact": True}


def test_report_section_from_the_json(tmp_path, monkeypatch):
    rows = [_row("transpose float16 8192x8192", 0.95, 0.96, 0.40)]
    rows.append({**_row("row broadcast float32", 1.1, 0.9, 0.5), "copy_": ["gather", None, None]})
    data = {"device": "NVIDIA H100", "date": "2026-11-28 10:00 UTC", "commit": "abc1234", "quick": False,
            "rows": rows}
    (tmp_path / "canonical_copies.json").write_text(json.dumps(data))
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    text = report.canonical_section()
    assert "| transpose float16 8192x8192 | 0.950 | 0.960 | 0.99 | - | - | 0.400 | yes | yes |" in text
    assert "| row broadcast float32 | 1.100 | 0.900 | 1.22 | - | - | 0.500 | yes | no: gather vs tiled |" in text
    assert "copy_ / Program: worst 0.99." in text


def test_box_cases_get_an_ab_table_of_their_phase_1_staging():
    pipeline = bench.registers_pipeline()
    assert pipeline.split(",").count("tile{box_stage=registers}") == 1 and ",tile," not in pipeline
    row = {"case": "box flat", "copy_ratio": 0.7, "program_ratio": 0.72, "torch_ratio": 0.5, "copy_exact": True,
           "program_exact": True, "copy_": ["box<flat>"], "program": ["box<flat>"],
           "program_registers_ratio": 0.61, "program_registers_exact": True,
           "copy_registers_ratio": 0.6, "copy_registers_exact": True}
    plain = {**{k: v for k, v in row.items() if "registers" not in k}, "case": "transpose"}
    text = bench.table([plain, row])
    assert "| box flat | 0.700 | 0.600 | 0.720 | 0.610 | yes |" in text
    assert "| transpose |" not in text.split("| box case |")[1]


def test_a_variant_replaces_its_pass_of_the_default_pipeline():
    pipeline = bench.variant_pipeline("tile{threads=128}")
    assert pipeline.split(",").count("tile{threads=128}") == 1 and ",tile," not in pipeline
    with pytest.raises(ValueError, match="no-such-pass"):
        bench.variant_pipeline("no-such-pass{x=1}")
    both = bench.variant_pipeline("copy-strategy{tiles_bytes=2}+tile{tiles_lanes=8}").split(",")
    assert "copy-strategy{tiles_bytes=2}" in both and "tile{tiles_lanes=8}" in both and "tile" not in both


def test_variants_get_a_table_of_their_own():
    row = {**_row("NHWC->NCHW float16", 0.9, 0.8, 0.3), "variant tile{tile=1,64,64}_ratio": 0.96,
           "variant tile{tile=1,64,64}_exact": True, "variant tile{threads=64}_error": "TilecError: no"}
    text = bench.table([row])
    assert "| NHWC->NCHW float16 | `tile{tile=1,64,64}` | 0.960 | 1.20 | yes |" in text
    assert "| NHWC->NCHW float16 | `tile{threads=64}` | TilecError: no | - | - |" in text


def test_a_variant_may_name_the_cases_it_is_timed_for():
    assert bench.variant_applies("tile{threads=256}", "head merge float16")
    assert bench.variant_applies("tile{threads=256}@8191x8209|head", "head merge float16")
    assert bench.variant_applies("tile{threads=256}@8191x8209|head", "transpose int8 8191x8209")
    assert not bench.variant_applies("tile{threads=256}@8191x8209|head", "NHWC->NCHW float16")


def test_the_table_states_each_copy_against_its_dram_bound():
    row = {**_row("gather uint8 rows of 5 at a pitch of 7", 0.70, 0.72, 0.15), "dram_bound": 0.8333}
    assert "| 0.700 | 0.720 | 0.97 | 0.833 | 0.84 | 0.150 |" in bench.table([row])


def test_the_dram_bound_is_the_cost_models_sector_count():
    # one rule for every case (passes/_copy_cost.dram_share): rows of 5 bytes at a pitch
    # of 7 read every source sector, 5 + 5 bytes moved for 7 + 5 (10 / 12); every other
    # canonical copy reads and writes only sectors it uses (gaps of a sector or more
    # between runs: every 2nd row), or nearly (columns 1:-1: 2 of 8192 elements a row)
    from helpers.canonical_copies import CANONICAL

    from tilec.copy_plan import plan_copy

    bounds = {c.name: bench.dram_bound(plan_copy(*c.operands())) for c in CANONICAL}
    assert bounds.pop("gather uint8 rows of 5 at a pitch of 7") == pytest.approx(10 / 12, abs=1e-4)
    assert all(b >= 0.999 for b in bounds.values()), bounds


def test_view_sector_use_counts_the_sectors_runs_touch():
    from tilec.passes._copy_cost import view_sector_use

    assert view_sector_use([100, 5], [7, 1], 1, 32) == pytest.approx(5 / 7)  # gaps within sectors
    assert view_sector_use([100, 8], [64, 1], 1, 32) == pytest.approx(8 / 32)  # a sector a run
    # 40-byte runs at a pitch of 72: starts 0 and 8 mod 32, 2 sectors each: 40 / 64
    assert view_sector_use([100, 40], [72, 1], 1, 32) == pytest.approx(40 / 64)
    assert view_sector_use([100, 37, 17], [629, 1, 37], 1, 32) == 1.0  # contiguous modes merged
    assert view_sector_use([100, 64], [0, 1], 4, 32) == 1.0  # a broadcast mode read once
