"""benchmarks/matmul_bench.py's configuration comparison (`--shapes`, `--configs`) without
a GPU: the names it takes and the table it prints (the timing itself runs on the GPU)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tilec import gemm

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import matmul_bench  # noqa: E402


def test_named_configurations_are_the_rules_own_with_or_without_overlap():
    c = matmul_bench.parse_config("128x128x64:4:pp")
    assert c is next(x for x in gemm.CONFIGS if x.name == "128x128x64:4:pp")
    ov = matmul_bench.parse_config("128x256x64:4:c128:ov")
    assert ov.overlap and ov.name == "128x256x64:4:c128:ov" and (ov.bm, ov.bn, ov.chunk) == (128, 256, 128)
    nov = matmul_bench.parse_config("128x256x64:4:c128:nov")
    assert not nov.overlap and (nov.bm, nov.bn, nov.chunk) == (128, 256, 128)
    odd = matmul_bench.parse_config("96x96x64:4")  # not a name of CONFIGS: read from its fields
    assert (odd.bm, odd.bn, odd.bk, odd.stages, odd.overlap) == (96, 96, 64, 4, False)


def test_cluster_and_box_parts_flags():
    """`cl<CM>[x<CN>]` and `bp` after a name of the rule's configurations or a head of
    fields: `GemmConfig.cluster` and `box_parts`, passed to `gemm_hopper_ws`."""
    c = matmul_bench.parse_config("f8b:128x128x128:4:cl2:bp")
    assert c.block_scales and c.cluster == (2, 1) and c.box_parts
    assert c.kwargs(132)["box_parts"] and c.kwargs(132)["cluster"] == (2, 1)
    d = matmul_bench.parse_config("f8b:128x128x128:4:cl1x2")
    assert d.cluster == (1, 2) and not d.box_parts and "box_parts" not in d.kwargs(132)
    e = matmul_bench.parse_config("f8b:128x128x128:4:fma:cl2:bp")
    assert e.fma_promote and e.cluster == (2, 1) and e.box_parts


def test_forced_configuration_is_taken_inside_only():
    ov = matmul_bench.parse_config("128x256x64:4:c128:ov")
    rule = gemm.choose_config(3000, 5000, 132, k=7000)
    with matmul_bench.forced(gemm, ov):
        assert gemm.choose_config(3000, 5000, 132, k=7000) is ov
    assert gemm.choose_config(3000, 5000, 132, k=7000) == rule


def test_shapes_name_b_kmajor_with_a_t():
    """`--shapes`' `MxNxKt`: B = w.t() (K-major), as the model table's rows; `MxNxK` and
    `N` row-major."""
    assert matmul_bench.shape_of("8192x28672x4096t") == (8192, 28672, 4096, True)
    assert matmul_bench.shape_of("3000x5000x7000") == (3000, 5000, 7000, False)
    assert matmul_bench.shape_of("4000") == (4000, 4000, 4000, False)


def test_comparison_tables():
    rows = [{"shape": "3000x5000x7000", "config": "rule (x)", "tflops": 500.0, "tflops_queued": 520.0, "ok": True},
            {"shape": "3000x5000x7000", "config": "cuBLAS", "tflops": 700.0, "tflops_queued": 650.0, "ok": True}]
    table = matmul_bench.compare_markdown(rows, "title")
    assert "| 3000x5000x7000 | rule (x) | 500 | 520 | 0.714 | 0.800 | ok |" in table
    # with rounds: each round's ratio to cuBLAS's, least to most, and the GPU's state each round
    rows[0].update(rounds_of_cublas=[0.70, 0.75, 0.69], rounds_of_cublas_queued=[0.8, 0.81, 0.79],
                   gpu_states=["1980 600.5 55 0x0", "1755 699.8 61 0x4"])
    table = matmul_bench.compare_markdown(rows, "title")
    assert "| rule (x) | 500 | 520 | 0.714 (0.690-0.750) | 0.800 (0.790-0.810) | ok |" in table
    assert "GPU each round at 3000x5000x7000 (SM MHz, W, C, clock event reasons): 1980 600.5 55 0x0; 1755" in table
    epi = [{"shape": "8192x28672x4096", "config": "rule (x)", "epilogue": "bias+silu_tanh", "tflops": 700.0,
            "tflops_queued": 710.0, "ok": False, "plain_ms": 2.5, "plain_queued_ms": 2.4, "overhead": 0.059,
            "overhead_queued": 0.041}]
    assert ("| 8192x28672x4096 | rule (x) | bias+silu_tanh | 700 | 710 | 2.500 | +5.9% | +4.1% | FAIL |"
            in matmul_bench.compare_markdown(epi, "title"))
    assert matmul_bench._short({"x": 671.23456, "s": "a"}) == '{"x": 671.2, "s": "a"}'


def test_rotated_turns_put_each_first_equally_often():
    items = ["a", "b", "c"]
    firsts = [matmul_bench.rotated(items, r)[0] for r in range(6)]
    assert firsts == ["a", "b", "c", "a", "b", "c"]
    assert matmul_bench.rotated(items, 4) == ["b", "c", "a"] and matmul_bench.rotated([], 3) == []


class _Clock:
    """A stand-in for torch (`per_call_in_turns` reads torch.cuda's events): each
    recorded event reads a clock that the timed functions advance."""

    def __init__(self) -> None:
        self.now = 0.0
        clock = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                self.t = None

            def record(self) -> None:
                self.t = clock.now

            def synchronize(self) -> None:
                pass

            def elapsed_time(self, end) -> float:
                return end.t - self.t

        self.cuda = type("cuda", (), {"Event": Event, "synchronize": staticmethod(lambda: None)})


def test_per_call_in_turns_interleaves_the_calls_and_takes_medians(monkeypatch):
    """The plain and epilogue kernels are timed call by call in alternation: a GPU
    slowing down over the run (each call 1% slower than the one before) weighs on both
    alike, where timing all of one then all of the other would read the later one 20%
    slower."""
    clock = _Clock()
    monkeypatch.setitem(sys.modules, "torch", clock)
    calls: list[str] = []
    slow = [1.0]

    def kernel(name: str, ms: float):
        def run() -> None:
            calls.append(name)
            clock.now += ms * slow[0]
            slow[0] *= 1.01
        return run

    got = matmul_bench.per_call_in_turns({"epi": kernel("epi", 1.05), "plain": kernel("plain", 1.0)}, reps=20,
                                         warmup=1)
    assert calls[:2] == ["epi", "plain"] and calls[2:6] == ["epi", "plain", "plain", "epi"]
    assert len(calls) == 2 + 40
    assert abs(got["epi"] / got["plain"] - 1.05) < 0.015  # within a call's drift, not 20 calls'


def test_the_epilogue_line_says_both_activations_per_call_and_queued():
    epilogue = {"shape": "8192x28672x4096", "plain_ms": 2.75, "bias_silu_ms": 2.92, "overhead": 0.062,
                "plain_queued_ms": 2.75, "bias_silu_queued_ms": 2.87, "overhead_queued": 0.043,
                "silu_tanh_overhead": 0.034, "silu_tanh_overhead_queued": 0.007, "rounds": 3,
                "torch_unfused_ms": 3.7, "ok": True}
    line = matmul_bench.markdown([], epilogue, [], "t").splitlines()[-1]
    assert line == ("Epilogue at 8192x28672x4096: plain 2.750 ms, bias + SiLU + cast 2.920 ms (+6.2%); queued "
                    "2.750 / 2.870 ms (+4.3%), 3 rounds in turns; with `silu_tanh` +3.4% per call, +0.7% queued, "
                    "PyTorch unfused 3.700 ms; ok")


def test_the_epilogue_cost_is_the_median_of_each_rounds_paired_cost_with_its_range():
    # round 2's GPU is slower for both kernels: paired by round it does not widen the cost
    med, rng = matmul_bench.overhead_spread([1.03, 2.06, 1.05], [1.0, 2.0, 1.0])
    assert abs(med - 0.03) < 1e-12 and [round(x, 6) for x in rng] == [0.03, 0.05]
    with pytest.raises(ValueError, match="2 epilogue rounds against 1"):
        matmul_bench.overhead_spread([1.0, 1.0], [1.0])
    row = {"shape": "s", "config": "rule (x)", "epilogue": "bias+silu", "tflops": 700.0, "tflops_queued": 710.0,
           "ok": True, "plain_ms": 2.5, "plain_queued_ms": 2.4, "overhead": 0.031, "overhead_range": [0.019, 0.042],
           "overhead_queued": 0.028, "overhead_queued_range": [0.005, 0.05]}
    assert "| 2.500 | +3.1% (+1.9..+4.2) | +2.8% (+0.5..+5.0) | ok |" in matmul_bench.compare_markdown([row], "t")
    epilogue = {"shape": "s", "plain_ms": 2.75, "bias_silu_ms": 2.92, "overhead": 0.031,
                "overhead_range": [0.019, 0.042], "plain_queued_ms": 2.75, "bias_silu_queued_ms": 2.87,
                "overhead_queued": 0.028, "overhead_queued_range": [0.005, 0.05], "rounds": 15,
                "torch_unfused_ms": 3.7, "ok": True}
    line = matmul_bench.markdown([], epilogue, [], "t").splitlines()[-1]
    assert "cast 2.920 ms (+3.1% (+1.9..+4.2)); queued 2.750 / 2.870 ms (+2.8% (+0.5..+5.0)), 15 rounds" in line


def test_round_ratios_are_the_references_time_over_the_configurations_of_each_round():
    # above 1 where the configuration was the faster in that round (`rounds_of_rule`, `rounds_of_cublas`)
    assert matmul_bench.round_ratios([2.0, 3.0], [1.0, 4.0]) == [2.0, 0.75]
    with pytest.raises(ValueError, match="2 reference rounds against 1"):
        matmul_bench.round_ratios([2.0, 3.0], [1.0])
