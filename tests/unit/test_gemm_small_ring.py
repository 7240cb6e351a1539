"""`gemm_hopper_ws(small_stages=R)` (swapped): A^T's ring of R stages of its own beside the
weight's ring of `stages`, A^T's loads `stages` - R steps behind the weight's. On the
reference executor after the default pipeline against float64, output poisoned: unsplit,
persistent blocks walking several units (the weight's lead dropping at a unit's end), one
trip a unit (the producer's loop empty), split and summed by a second launch, in the kernel
(`serial`) and in clusters (`cluster_split`); the CUDA of QKV at M = 128 (8 + 2 stages)
compiles without spills; the configuration's name, shared memory and keywords; what cannot
take it is refused."""

from __future__ import annotations

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

EP = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


@pytest.mark.parametrize(("stages", "small", "k", "kw", "ms"), [
    # 200 rows of N in 4 units over 3 blocks, 16 K steps of 64: block 0 takes units 0 and 3
    (4, 2, 1000, {"persistent": 3}, (1, 16)),
    (8, 2, 1000, {"persistent": 3}, (9,)),
    # one trip a unit: the producer's loop runs no trip, A^T's tail all of its lag
    (4, 2, 256, {"persistent": 3}, (5,)),
    (8, 2, 1000, {}, (16,)),
    # split twice: 8 units over 5 blocks, the second launch; in the kernel; in clusters
    (4, 2, 1000, {"split_k": 2, "persistent": 5}, (20,)),
    (4, 2, 1000, {"split_k": 2, "persistent": 5, "serial": True}, (20,)),
    (4, 2, 1000, {"split_k": 2, "cluster_split": True}, (20,)),
    # 128-row units (two consumer warpgroups arrive on each ring's "empty" barriers) in pairs
    (8, 2, 1000, {"split_k": 2, "cluster_split": True, "bm": 128}, (9,)),
])
def test_small_ring_against_float64(stages, small, k, kw, ms):
    n = 200
    bn = 32 if kw.get("split_k") else 16
    kw = {"bm": 64, **kw}
    module = gemm_hopper_ws(None, n, k, bn=bn, bk=64, stages=stages, b_kmajor=True, swap_ab=True,
                            epilogue=EP, small_stages=small, **kw)
    run_pipeline(module, "default")
    split = 1 if kw.get("cluster_split") else kw.get("split_k", 1)
    counters = 4 * 1 * 3 if kw.get("serial") else 0  # a counter and 2 flags a tile
    for m in ms:
        ops = _operands(m, n, k, EP, seed=m + stages)
        _check(_run(module, m, n, EP, ops, b_kmajor=True, split_k=split, counters=counters), ops, EP)


def test_the_kernel_compiles_without_spills():
    """QKV at M = 128 in 64-row units: the weight's 8 stages of 16 KiB, A^T's 2 of 32 KiB;
    O split twice in pairs with 8 + 2 stages beside the partial; QKV in 128-row pairs, 8 + 2
    stages of 64 of K beside a partial of 64 KiB; 16 + 4 stages of 64 of K with A's rows
    asked of L2 first."""
    import sys
    from pathlib import Path

    from tilec.runtime.nvrtc import resource_usage

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    for name, n in (("64x128x128:8:swapAB:p1:sr2", 6144), ("64x128x128:8:swapAB:splitK2:csplit:sr2", 4096),
                    ("128x128x64:8:swapAB:splitK2:csplit:sr2", 6144), ("64x128x64:16:swapAB:p1:sr4:srp", 6144)):
        c = parse_config(name)
        assert c.small_stages in (2, 4) and c.kwargs(132)["small_stages"] == c.small_stages
        assert c.smem_bytes() <= 232448
        module = gemm.matmul_program(gemm.MatmulKey(c, n, 4096, "bf16", EP, 132, True, 128))
        run_pipeline(module, "default")
        cuda = emit(module, "cuda")
        (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
        assert usage.spill_stores == 0 and usage.spill_loads == 0


def test_smem_bytes():
    c = gemm.GemmConfig("x", 64, 128, 128, 8, efficiency=0.0, swap_ab=True, per_sm=1, small_stages=2)
    assert c.smem_bytes() == (8 * 64 + 2 * 128) * 128 * 2 + 1024
    assert "small_stages" not in gemm.swap_config(128).kwargs(132)


@pytest.mark.parametrize(("kw", "match"), [
    ({"stages": 4, "small_stages": 1}, "small_stages"),  # the consumers hold one stage while waiting the next
    ({"stages": 6, "small_stages": 2}, "small_stages"),  # 6 / 2 odd: A^T's phases not constants of a trip
    ({"stages": 4, "small_stages": 2, "swap_ab": False, "bn": 128, "b_kmajor": False}, "small_stages"),
    ({"stages": 4, "small_stages": 2, "persistent": 4, "stream_k": True}, "small_stages"),
    ({"stages": 4, "small_stages": 2, "persistent": 4, "cluster": (2, 1)}, "small_stages"),
])
def test_what_cannot_take_it_is_refused(kw, match):
    kw = {"bm": 64, "bn": 16, "bk": 64, "b_kmajor": True, "swap_ab": True, **kw}
    m = None if kw["swap_ab"] else 264
    with pytest.raises(ValueError, match=match):
        gemm_hopper_ws(m, 256, 1024, **kw)


def test_pdl_late_against_float64_and_its_trigger():
    """`pdl_late`: the trigger after the producer's walk (once, after its last TMA load),
    not at the start; the ops are no-ops on the executor; refused without `pdl` or with
    `pdl_weight`."""
    n, k, m = 200, 1000, 13
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=4, b_kmajor=True, swap_ab=True, persistent=3,
                            epilogue=EP, pdl=True, pdl_late=True, small_stages=2)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, EP, seed=5)
    _check(_run(module, m, n, EP, ops, b_kmajor=True), ops, EP)
    cuda = emit(module, "cuda")
    trigger = 'asm volatile("griddepcontrol.launch_dependents;" ::: "memory");'
    assert cuda.count(trigger) == 1
    assert cuda.rindex("cp.async.bulk.tensor") < cuda.index(trigger)
    with pytest.raises(ValueError, match="pdl_late needs pdl"):
        gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True, pdl_late=True)


@pytest.mark.parametrize("m", [1, 16])
def test_small_prefetch_against_float64_and_its_prefetches(m):
    """`small_prefetch`: A's rows asked of L2 by the blocks in turn (no effect on the
    executor's values); one bulk prefetch of a row of K elements in a loop over the rows."""
    n, k = 200, 1000
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=4, b_kmajor=True, swap_ab=True, persistent=3,
                            epilogue=EP, small_stages=2, small_prefetch=True)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, EP, seed=7)
    _check(_run(module, m, n, EP, ops, b_kmajor=True), ops, EP)
    cuda = emit(module, "cuda")
    assert cuda.count("tilec_prefetch_l2<1>(pa + ") == 1 and ", 2000ull);" in cuda
    with pytest.raises(ValueError, match="small_prefetch needs"):
        gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=4, b_kmajor=True, swap_ab=True, small_stages=2,
                       small_prefetch=True)


def test_config_flags():
    """`sr<R>`, `srp` and `pdll` after a swapped name; the rule's name with PDL (`:pdll`)
    parses back to the rule's configuration where `gemm.PDL` puts it on."""
    import dataclasses
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config("64x128x64:16:swapAB:p1:sr4:srp:pdll")
    assert (c.bk, c.stages, c.small_stages, c.small_prefetch, c.pdl, c.pdl_late) == (64, 16, 4, True, True, True)
    kw = c.kwargs(132)
    assert kw["small_stages"] == 4 and kw["small_prefetch"] and kw["pdl"] and kw["pdl_late"]
    c = parse_config("128x256x64:4:c128:pdll")
    assert (c.pdl, c.pdl_late, c.pdl_weight) == (True, True, False)
    rule = gemm.choose_config(16, 4096, 132, k=4096, b_kmajor=True)
    assert parse_config(f"{rule.name}:pdll") == dataclasses.replace(rule, pdl=True, pdl_late=True,
                                                                    name=f"{rule.name}:pdll")
