"""The staggered consumers' epilogues in turn (`gemm_hopper_ws(epilogue_turns=True)`,
`GemmConfig.epilogue_turns`, named `:et`): consumer 0 meets a named barrier past its K loop
that consumer 1 arrives at once its tile's last TMA store is issued. On the reference
executor at odd shapes against float64 (output poisoned), after the default pipeline (the
executor counts the hardware barrier's arrivals: a pairing off by a tile hangs or fails);
the emitted CUDA's one `bar.sync` / `bar.arrive` of the barrier; NVRTC + ptxas compile the
rule's SiLU kernel with it without spills; with one trip of the ring a tile nothing changes;
it needs the stagger."""

from __future__ import annotations

import pytest
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import EPILOGUE_TURN_BARRIER, Epilogue, gemm_hopper_ws

SILU = Epilogue(bias=True, activation="silu")

CASES = {
    # 72 x 136 x 520: rows past M, a narrow second block column, a K tail (9 steps of 64 in 3
    # trips of 4 stages); one block, 4 tiles
    "one-block": dict(m=72, n=136, k=520, ep=SILU,
                      kw=dict(bm=128, bn=128, bk=64, stages=4, persistent=1, tma_epilogue=True, stagger=1)),
    # more tiles than blocks (3 blocks, 2-3 tiles each), 64-column chunks, the bias staged, L = 2
    "chunks-bias-smem": dict(m=200, n=264, k=328, ep=Epilogue(bias=True, activation="silu_tanh", out_dtype="f16"),
                             kw=dict(bm=128, bn=128, bk=64, stages=4, persistent=3, tma_epilogue=True, stagger=2,
                                     chunk=64, bias_smem=True)),
    "plain": dict(m=130, n=72, k=200, ep=Epilogue(),
                  kw=dict(bm=128, bn=64, bk=32, stages=3, persistent=2, tma_epilogue=True, stagger=1)),
}


@pytest.mark.parametrize("name", CASES)
def test_epilogue_turns_at_odd_shapes(name):
    case = CASES[name]
    m, n, k, ep = case["m"], case["n"], case["k"], case["ep"]
    module = gemm_hopper_ws(None, n, k, epilogue=ep, epilogue_turns=True, **case["kw"])
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=n + k)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_one_meeting_and_one_arrival_a_tile():
    case = CASES["one-block"]
    mods = [gemm_hopper_ws(None, case["n"], case["k"], epilogue=case["ep"], epilogue_turns=t, **case["kw"])
            for t in (True, False)]
    for mod in mods:
        run_pipeline(mod, "default")
    new, old = emit(mods[0], "cuda"), emit(mods[1], "cuda")
    b = EPILOGUE_TURN_BARRIER
    assert new.count(f"bar.sync {b}, 256;") == 1 and new.count(f"bar.arrive {b}, 256;") == 1
    assert f"bar.sync {b}," not in old and f"bar.arrive {b}," not in old


def test_one_trip_a_tile_changes_nothing():
    """K <= stages x bk: consumer 1 could finish a tile's K loop before consumer 0 meets the
    barrier of the tile before (the docstring): the option is off there."""
    kw = dict(CASES["one-block"]["kw"])
    mods = [gemm_hopper_ws(None, 136, 256, epilogue=SILU, epilogue_turns=t, **kw) for t in (True, False)]
    for mod in mods:
        run_pipeline(mod, "default")
    assert emit(mods[0], "cuda") == emit(mods[1], "cuda")


def test_it_needs_the_stagger():
    with pytest.raises(ValueError, match="epilogue_turns"):
        gemm_hopper_ws(None, 136, 200, bm=128, bn=128, bk=64, stages=4, epilogue=SILU, persistent=1,
                       tma_epilogue=True, epilogue_turns=True)


def test_the_rule_kernel_with_epilogue_turns_compiles():
    """gate_up's 8192 x 28672 x 4096, the rule's `128x256x64:4:c128:st1:bsm` for bias + SiLU with
    `:et`: the name passes the option, NVRTC + ptxas compile it without spills."""
    import sys
    from pathlib import Path

    from helpers.nvrtc import compile_sm90_or_skip

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    from tilec import gemm
    from tilec.runtime.nvrtc import resource_usage

    cfg = parse_config("128x256x64:4:c128:st1:bsm:et")
    assert cfg.epilogue_turns and cfg.stagger == 1 and cfg.bias_smem
    key = gemm.MatmulKey(cfg, 28672, 4096, "bf16", SILU, 132, False, gemm.index_bits(8192, 28672, 4096, cfg))
    module = gemm.matmul_program(key)
    run_pipeline(module, "default")
    text = emit(module, "cuda")
    assert f"bar.arrive {EPILOGUE_TURN_BARRIER}, 256;" in text
    (usage,) = resource_usage(compile_sm90_or_skip(text)).values()
    assert usage.spill_stores == usage.spill_loads == 0
