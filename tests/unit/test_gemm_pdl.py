"""Programmatic dependent launch (`layout.griddep_wait`, `layout.griddep_launch_dependents`,
dialects/layout_tma.py) in `gemm_hopper_ws(pdl=True)` and `pdl_weight=True` (the weight's
first stages loaded before the wait): on the reference executor (the ops are no-ops
there: one kernel at a time) before and after the default pipeline, swapped persistent
and split, unswapped, against float64 with the output poisoned; the lowered kernel's
`KernelInfo.programmatic` (the runtime's launch attribute) and its CUDA (the two PTX
instructions, the weight's loads before the wait in the producer); NVRTC compiles the
rule's QKV kernel at M = 128 with them without spills; what cannot take them is refused."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.cuda import kernel_infos
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

EP = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("case", [
    # 200 rows of N in 4 units over 3 blocks, K 1000 in 16 steps (2 stages): the block's
    # first trip is its first unit's only; split twice: 8 units, a block's later units
    ("swapped-persistent", {"bm": 64, "bn": 16, "split_k": 1, "persistent": 3}, (1, 16)),
    ("swapped-split2", {"bm": 64, "bn": 16, "split_k": 2, "persistent": 5}, (20,)),
    ("swapped-128-rows", {"bm": 128, "bn": 32, "split_k": 1, "persistent": 2}, (9,)),
])
def test_pdl_swapped_against_float64(case, weight):
    name, kw, ms = case
    n, k = 200, 1000
    module = gemm_hopper_ws(None, n, k, bk=64, stages=2, b_kmajor=True, swap_ab=True, epilogue=EP,
                            pdl=True, pdl_weight=weight, **kw)
    run_pipeline(module, "default")
    for m in ms:
        ops = _operands(m, n, k, EP, seed=m + kw["split_k"])
        _check(_run(module, m, n, EP, ops, b_kmajor=True, split_k=kw["split_k"]), ops, EP)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("weight", [False, True])
def test_pdl_unswapped_against_float64(level, weight):
    """B (the weight, row-major) loaded first where `pdl_weight`: 3 x 3 tiles of 64 x 128
    over 2 persistent blocks, 6 K steps in trips of 4."""
    m, n, k = 136, 264, 328
    module = gemm_hopper_ws(m, n, k, bm=64, bn=128, bk=64, chunk=64, stages=4, persistent=2, group=2,
                            tma_epilogue=True, epilogue=EP, pdl=True, pdl_weight=weight)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, EP, seed=k)
    _check(_run(module, m, n, EP, ops, dynamic_m=False), ops, EP)


HALVES = {"bm": 64, "bn": 96, "bk": 64, "chunk": 32, "one_wgmma": True, "b_kmajor": True, "tma_epilogue": True,
          "chunk_buffers": True, "cluster": (2, 1)}


@pytest.mark.parametrize(("stages", "skip", "late", "order"), [
    (2, True, False, ""), (4, False, True, ""), (3, True, True, "parts"), (2, True, False, "al"),
    (3, False, False, "tile")])
def test_pdl_weight_in_the_halves_pairs(stages, skip, late, order):
    """`pdl_weight` in clusters of 2 x 1 (QKV's halves sharing the weight): each block's share of
    the multicast weight boxes of its first trip before the wait, A's after, with `pdl_late`
    (`late`), box parts, cuBLAS's arrival after the loads (`al`) or tile parts; N 200 past the
    last tile, K 320 in 5 steps (padded last trips, skipped or not), 4 blocks over 6 tiles (a
    block's second tile: no first trip), the widest epilogue; M over one and two block rows."""
    n, k = 200, 320
    module = gemm_hopper_ws(None, n, k, stages=stages, persistent=4, skip_padding=skip, epilogue=EP, pdl=True,
                            pdl_weight=True, pdl_late=late, box_parts=order == "parts", tile_parts=order == "tile",
                            arrive_last=order == "al", **HALVES)
    run_pipeline(module, "default")
    for m in (100, 64):
        ops = _operands(m, n, k, EP, seed=m + stages)
        _check(_run(module, m, n, EP, ops, b_kmajor=True), ops, EP)


def test_the_halves_kernel_with_the_weight_first():
    """The halves' QKV kernel at M = 128 in pairs (`64x96x64:8:c32:ow:cl2:cb:pr256`) with `:pdlw:pdll`:
    the producer's first trip issues each stage's weight boxes (its share: 12 of the ring's 24
    chunk boxes) before its wait and A's 8 boxes after, the trigger after its last loads; NVRTC
    + ptxas: no spills."""
    from tilec.runtime.nvrtc import resource_usage

    # the rule's kernel without its one weight box (`b_box`: no cluster), in pairs
    rule = dataclasses.replace(gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True), cluster=(2, 1), b_box=False)
    config = dataclasses.replace(rule, pdl=True, pdl_weight=True, pdl_late=True)
    module = gemm.matmul_program(gemm.MatmulKey(config, 6144, 4096, "bf16", Epilogue(), 132, True, 128))
    run_pipeline(module, "default")
    (info,) = kernel_infos(module).values()
    assert info.programmatic
    cuda = emit(module, "cuda")
    producer = cuda[cuda.rindex("// warpgroup"):]
    head, tail = producer.split('asm volatile("griddepcontrol.wait;"', 1)
    assert "&pa_map" not in head and head.count("&pb_map") > 0
    assert tail.index("&pa_map") < tail.index("griddepcontrol.launch_dependents")
    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0


def test_cluster_split_with_pdl():
    n, k, m = 200, 1000, 20
    module = gemm_hopper_ws(None, n, k, bm=64, bn=32, bk=64, stages=2, b_kmajor=True, swap_ab=True, split_k=2,
                            cluster_split=True, epilogue=EP, pdl=True, pdl_weight=True)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, EP, seed=3)
    _check(_run(module, m, n, EP, ops, b_kmajor=True), ops, EP)


def _lowered(pdl: bool, weight: bool = False):
    config = dataclasses.replace(gemm.swap_config(128, rows=64), pdl=pdl, pdl_weight=weight)
    module = gemm.matmul_program(gemm.MatmulKey(config, 6144, 4096, "bf16", EP, 132, True, 32))
    run_pipeline(module, "default")
    return module


def test_the_kernel_is_launched_as_a_dependent():
    """`KernelInfo.programmatic` where the kernel holds the ops (the runtime then launches
    it through `cuLaunchKernelEx` with programmatic stream serialization); the CUDA
    has both instructions, and with `pdl_weight` the producer's weight loads of the first
    trip before its wait; NVRTC + ptxas: no spills."""
    from tilec.runtime.nvrtc import resource_usage

    assert not any(i.programmatic for i in kernel_infos(_lowered(False)).values())
    for weight in (False, True):
        module = _lowered(True, weight)
        (info,) = kernel_infos(module).values()
        assert info.programmatic
        cuda = emit(module, "cuda")
        assert cuda.count('asm volatile("griddepcontrol.launch_dependents;" ::: "memory");') == 1
        waits = cuda.count('asm volatile("griddepcontrol.wait;" ::: "memory");')
        assert waits == (2 if weight else 1)  # with the weight first: the producer's and the consumers'
        if weight:  # the producer (the last warpgroup): the weight's (pb's) 4 stages, the wait, A^T's (pa's)
            producer = cuda[cuda.index("// warpgroup 1"):]
            head, tail = producer.split('asm volatile("griddepcontrol.wait;"', 1)
            assert head.count("&pb_map") == 4 * 2 and "&pa_map" not in head
            assert tail.index("&pa_map") < tail.index("&pb_map")
        (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
        assert usage.spill_stores == 0 and usage.spill_loads == 0


def test_config_names_and_kwargs():
    c = dataclasses.replace(gemm.swap_config(128), pdl=True, pdl_weight=True)
    kw = c.kwargs(132)
    assert kw["pdl"] and kw["pdl_weight"]
    assert "pdl" not in gemm.swap_config(128).kwargs(132)


def test_what_cannot_take_it_is_refused():
    with pytest.raises(ValueError, match="pdl_weight needs pdl"):
        gemm_hopper_ws(None, 200, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True, pdl_weight=True)
    with pytest.raises(ValueError, match="pdl_weight needs pdl"):
        gemm_hopper_ws(264, 264, 328, bm=64, bn=128, bk=64, stages=4, persistent=4, cluster=(1, 2), pdl=True,
                       pdl_weight=True)


def test_a_programmatic_launch_goes_through_cuLaunchKernelEx(monkeypatch):
    """`RawLaunch(programmatic=True)`: `cuLaunchKernelEx` with one attribute,
    programmatic stream serialization (id 6) = 1, the call's stream, grid, block and
    shared bytes, and the packed parameters (the free slot filled); not `cuLaunchKernel`."""
    import ctypes

    from tilec.runtime import raw_launch

    assert ctypes.sizeof(raw_launch._LaunchAttribute) == 72
    seen = []

    def fake_ex(config, function, params, extra):
        c = config._obj
        attr = raw_launch._LaunchAttribute.from_address(c.attrs)
        ptrs = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        seen.append((function, tuple(c.grid), tuple(c.block), c.shared, c.stream, c.nattrs, attr.id, attr.value[0],
                     ctypes.c_uint64.from_address(ptrs[0]).value, extra))
        return 0

    def no_plain_launch():
        raise AssertionError("launched through cuLaunchKernel")

    monkeypatch.setattr(raw_launch, "_launch_ex", lambda: fake_ex)
    monkeypatch.setattr(raw_launch, "_kernel_launch", no_plain_launch)
    launch = raw_launch.RawLaunch((132,), (384,), 200000, ["u64", "i64"], [None, 7], programmatic=True)
    launch(0xF00, 0x55, 0x10000)
    assert seen == [(0xF00, (132, 1, 1), (384, 1, 1), 200000, 0x55, 1, 6, 1, 0x10000, None)]


def test_the_decode_rule_takes_pdl_where_the_option_says(monkeypatch):
    """`gemm.PDL` (off): the decode rule's pick launched as a dependent, the dependents let
    in after the producer's last loads (`:pdll`), the same configuration otherwise; never
    the weight first (`pdl_weight`: the caller's promise)."""
    plain = gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True)
    assert not plain.pdl
    monkeypatch.setattr(gemm, "PDL", True)
    gemm._decode_config.cache_clear()
    try:
        got = gemm.choose_config(128, 6144, 132, k=4096, b_kmajor=True)
    finally:
        gemm._decode_config.cache_clear()
    assert got == dataclasses.replace(plain, pdl=True, pdl_late=True, name=f"{plain.name}:pdll") and not got.pdl_weight
