"""benchmarks/attention_bench.py's pure parts (the GPU run is the lead's): shapes as the
issue writes them, the configurations it tries are `attention_fwd` keywords, and the
table report.py prints from its JSON."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import attention_bench

from tilec.attention_op import resolved_config
from tilec.compiler.attention import attention_fwd


def test_default_shapes_are_the_issues_four():
    shapes = [attention_bench.parse_shape(s) for s in attention_bench.DEFAULT_SHAPES.split(",")]
    assert shapes == [(4, 32, 4096, 128, False), (4, 32, 4096, 128, True), (16, 16, 1024, 64, False),
                      (1, 32, 16384, 128, True)]


@pytest.mark.parametrize("name", attention_bench.CONFIGS)
def test_configs_build(name):
    """Each configuration builds as `tilec.attention` resolves it (132 multiprocessors)."""
    attention_fwd(64, "bf16", True, **dict(resolved_config(attention_bench.CONFIGS[name], 132)))


def test_resolved_config():
    """The persistent grid is the default (the multiprocessors' count), `persistent`:
    False the grid of one block per tile; the synchronous schedule is never persistent."""
    assert resolved_config(None, 132) == (("persistent", 132),)
    assert resolved_config({"persistent": True}, 132) == (("persistent", 132),)
    assert resolved_config({"bn": 64, "persistent": True}, 114) == (("bn", 64), ("persistent", 114))
    assert resolved_config({"persistent": False}, 132) == (("persistent", 0),)
    assert resolved_config({"persistent": 7}, 132) == (("persistent", 7),)
    assert resolved_config({"warp_specialized": False}, 132) == (("warp_specialized", False),)


def test_markdown_row():
    row = {"B": 4, "H": 32, "S": 4096, "D": 128, "causal": True, "tilec_ok": True, "tilec_tflops": 300.0,
           "tilec_tflops_queued": 310.0, "cudnn_tflops": 600.0, "flash_tflops": 150.0, "config": "ws-bn128",
           "registers": 168}
    table = attention_bench.markdown([row], "H200", "2026-11-28")
    assert "| 4x32x4096x128 | yes | 300 | 600 | 150 | - | - | 0.50 | 2.00 | 310 | - | - | - | - | ws-bn128 | 168 | ok |" in table
    queued = attention_bench.markdown([{**row, "cudnn_tflops_queued": 620.0, "flash_tflops_queued": 155.0}], "H200", "now")
    assert "| 310 | 620 | 155 | 0.50 | 2.00 | ws-bn128 |" in queued
    assert "FAIL" in attention_bench.markdown([{**row, "tilec_ok": False}], "H200", "now")


def test_hd256_sets():
    """`--shapes hd256 --configs hd256`: B4 H16 S4096 D256, causal and not, and each of
    its configurations builds at D = 256 (the tiles of compiler/attention_tiles.py)."""
    shapes = [attention_bench.parse_shape(s) for s in attention_bench.SHAPE_SETS["hd256"].split(",")]
    assert shapes == [(4, 16, 4096, 256, False), (4, 16, 4096, 256, True)]
    for name in attention_bench.CONFIG_SETS["hd256"].split(","):
        attention_fwd(256, "bf16", True, **dict(resolved_config(attention_bench.CONFIGS[name], 132)))


def test_config_sets_name_configs():
    """Every named configuration list (`--configs hd256`, `--configs overlap`) lists
    configurations of `CONFIGS`, and the overlap set's build at D = 128 and 64."""
    for names in attention_bench.CONFIG_SETS.values():
        assert all(n in attention_bench.CONFIGS for n in names.split(","))
    for name in attention_bench.CONFIG_SETS["overlap"].split(","):
        for d in (64, 128):
            attention_fwd(d, "bf16", True, **dict(resolved_config(attention_bench.CONFIGS[name], 132)))
