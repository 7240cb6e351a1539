"""The bias staged in shared memory by the producer (`gemm_hopper_ws(bias_smem=True)`,
`GemmConfig.bias_smem`, named `:bsm`): one TMA box of the tile's bias a tile into a ring
of two, completing on the tile's first stage's "full" barrier; the epilogue loads it
from shared memory. On the reference executor at odd shapes against float64 (output
poisoned), after the default pipeline: the staggered cooperative tile (the rule's form
for SiLU), chunks, more tiles than blocks (the ring's two parts reused), K tails
(`skip_padding`); the emitted CUDA has no global bias loads; NVRTC + ptxas compile the
rule's kernel at gate_up's shape without spills; the forms it does not take raise.
`bias_smem_start` (`:bss`): the staged bias as the accumulators' start, no bias add in
the epilogue."""

from __future__ import annotations

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

SILU = Epilogue(bias=True, activation="silu")

CASES = {
    # 72 x 136 x 200: 2 block rows (the second's rows past M), 2 block columns of 128 (the
    # second 8 wide), 4 K steps of 64 (the last 8 deep) in 4 stages; one block: 4 tiles,
    # the bias's ring's parts each used twice
    "staggered": dict(m=72, n=136, k=200, ep=Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16"),
                      kw=dict(bm=128, bn=128, bk=64, stages=4, persistent=1, tma_epilogue=True, stagger=1)),
    "staggered-chunks": dict(m=200, n=264, k=200, ep=SILU,
                             kw=dict(bm=128, bn=128, bk=64, stages=4, persistent=2, tma_epilogue=True, stagger=2,
                                     chunk=64)),
    "cooperative-bias-alone": dict(m=72, n=40, k=48, ep=Epilogue(bias=True),
                                   kw=dict(bm=128, bn=64, bk=32, stages=2, persistent=3, group=2,
                                           tma_epilogue=True)),
    "skipped-steps": dict(m=72, n=136, k=200, ep=Epilogue(bias=True, activation="silu_tanh"),
                          kw=dict(bm=128, bn=128, bk=64, stages=4, persistent=1, tma_epilogue=True,
                                  skip_padding=True)),
}


@pytest.mark.parametrize("start", [False, True], ids=["epilogue", "start"])
@pytest.mark.parametrize("name", CASES)
def test_bias_smem_at_odd_shapes(name, start):
    """`start`: the staged bias as the accumulators' start (`bias_smem_start`)."""
    case = CASES[name]
    m, n, k, ep = case["m"], case["n"], case["k"], case["ep"]
    module = gemm_hopper_ws(None, n, k, epilogue=ep, bias_smem=True, bias_smem_start=start, **case["kw"])
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=n + k)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_the_epilogue_reads_the_bias_from_shared_memory():
    """The kernel's only reads of `pbias` are the producer's TMA boxes (its tensor map):
    no global load of the bias in the epilogue, one `mbarrier.expect_tx` of the box's bytes."""
    case = CASES["staggered-chunks"]
    mods = [gemm_hopper_ws(None, case["n"], case["k"], epilogue=case["ep"], bias_smem=b, **case["kw"])
            for b in (True, False)]
    for mod in mods:
        run_pipeline(mod, "default")
    new, old = emit(mods[0], "cuda"), emit(mods[1], "cuda")
    assert "pbias +" in old and "pbias +" not in new
    assert "pbias_map" in new and "pbias_map" not in old
    assert new.count("tilec_mbarrier_expect_tx(reinterpret_cast") == 1


def test_without_a_bias_nothing_changes():
    kw = dict(bm=128, bn=128, bk=64, stages=4, persistent=2, tma_epilogue=True, stagger=1)
    ep = Epilogue(activation="silu")
    mods = [gemm_hopper_ws(None, 136, 200, epilogue=ep, bias_smem=b, **kw) for b in (True, False)]
    for mod in mods:
        run_pipeline(mod, "default")
    assert emit(mods[0], "cuda") == emit(mods[1], "cuda")


@pytest.mark.parametrize("kw", [dict(persistent=2, pingpong=True, tma_epilogue=True), dict(persistent=0,
                                tma_epilogue=True), dict(persistent=2), dict(persistent=2, split_k=2)])
def test_where_it_does_not_apply(kw):
    with pytest.raises(ValueError, match="bias_smem"):
        gemm_hopper_ws(None, 136, 200, bm=128, bn=128, bk=64, stages=4, epilogue=SILU, bias_smem=True, **kw)


def test_the_rule_kernel_with_bias_smem_compiles():
    """gate_up's 8192 x 28672 x 4096 with the staggered tile `128x256x64:4:c128:st1` and bias +
    SiLU, named with `:bsm` (and `:bss`): the config passes the option and counts the ring's bytes,
    NVRTC + ptxas compile it with no more spilled bytes than without (none: the first
    chunk's bias is no longer held over the K loop)."""
    import sys
    from pathlib import Path

    from tilec import gemm
    from tilec.gemm_programs import SMEM_SM90
    from tilec.runtime.nvrtc import resource_usage

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    spills = []
    for name in ("128x256x64:4:c128:st1", "128x256x64:4:c128:st1:bsm", "128x256x64:4:c128:st1:bss"):
        config = parse_config(name)
        assert config.kwargs(132).get("bias_smem", False) is (":bs" in name)
        assert config.kwargs(132).get("bias_smem_start", False) is name.endswith(":bss")
        assert config.smem_bytes() <= SMEM_SM90
        key = gemm.MatmulKey(config, 28672, 4096, "bf16", SILU, 132, False, gemm.index_bits(8192, 28672, 4096, config))
        module = gemm.matmul_program(key)
        run_pipeline(module, "default")
        (usage,) = resource_usage(compile_sm90_or_skip(emit(module, "cuda"))).values()
        spills.append(usage.spill_stores + usage.spill_loads)
    assert spills[1] == spills[2] == 0 <= spills[0]


def test_the_staged_start_adds_no_bias_in_the_epilogue():
    """`bias_smem_start`: the bias's shared loads before the K loop (as many as the
    epilogue's with `bias_smem` alone) and fewer adds (none of the bias's)."""
    case = CASES["staggered-chunks"]
    mods = [gemm_hopper_ws(None, case["n"], case["k"], epilogue=case["ep"], bias_smem=True, bias_smem_start=b,
                           **case["kw"]) for b in (True, False)]
    for mod in mods:
        run_pipeline(mod, "default")
    new, old = emit(mods[0], "cuda"), emit(mods[1], "cuda")
    assert new.count("ldmatrix") == old.count("ldmatrix") > 0
    assert new.count("+ t_") < old.count("+ t_")


def test_the_staged_start_without_per_tensor_scales():
    with pytest.raises(ValueError, match="bias_smem_start"):
        gemm_hopper_ws(None, 136, 200, bm=128, bn=128, bk=64, stages=4, persistent=2, tma_epilogue=True,
                       epilogue=Epilogue(bias=True, scale=True), bias_smem=True, bias_smem_start=True)
