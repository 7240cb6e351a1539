"""Warp specialisation (dialects/layout_roles.py): the regions of a
`layout.warp_specialize` run concurrently on the reference executor
(runtime/reference/roles_impls.py), meeting through mbarriers whose misuse is reported
at the layout level and after `lower-to-gpu`; the warp-specialised Hopper GEMM of
examples/python/gemm_bf16_hopper.py is equivalent after the default pipeline and
compiles for sm_90a."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

from xdsl.dialects.builtin import IntegerAttr, ModuleOp

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16_hopper


def _ws(*args, **kw) -> ModuleOp:
    """The module of `gemm_hopper_ws` (the tests below break copies of it: `_fresh`)."""
    return gemm_bf16_hopper.gemm_hopper_ws(*args, **kw)


def _fresh(m: ModuleOp) -> ModuleOp:
    """A copy of `m` to run, lower or break."""
    return m.clone()


# ----------------------------------------------------------------------------- breaking a program
# The misuse tests break the generated program at named values (the SSA names it prints:
# `%empty0`, `%phase`, ...), as one would by editing the printed text, but on the IR.


def _hint(v) -> str | None:
    return v.name_hint


def _ops(m: ModuleOp, name: str, *operand_hints) -> list:
    """The ops `name` whose first operands carry the name hints `operand_hints` (a
    compiled regex each)."""
    return [o for o in m.walk() if o.name == name and len(o.operands) >= len(operand_hints)
            and all(re.fullmatch(h, _hint(v) or "") for h, v in zip(operand_hints, o.operands))]


def _value(m: ModuleOp, hint: str):
    """The one SSA value (op result) named `hint`."""
    (v,) = [r for o in m.walk() for r in o.results if r.name_hint == hint]
    return v


def _erase(ops) -> None:
    ops = list(ops)
    assert ops, "nothing to erase"
    for o in ops:
        o.detach()
        o.erase()


def _block_arg(m: ModuleOp, hint: str):
    """The first block argument named `hint` (a launch's `tid`)."""
    return next(a for o in m.walk() for r in o.regions for b in r.blocks for a in b.args if a.name_hint == hint)


def _set_int(op, name: str, value: int) -> None:
    """Property (or attribute) `name` of `op` set to `value`, of its type."""
    store = op.properties if name in op.properties else op.attributes
    store[name] = IntegerAttr(value, store[name].type)


SMALL = _ws(64, 64, 256, bm=64, bn=64, bk=64, stages=2)
"""1 consumer warpgroup, 1 producer; 4 K steps through 2 stages: each stage used twice."""


def test_ws_example_is_generated():
    """examples/gemm_bf16_hopper_ws.mlir (with its comments) is the program of
    `gemm_hopper_ws(*EXAMPLE_WS_SHAPE, **BEST_WS)` (tests/unit/test_examples.py runs it
    and checks it after the default pipeline)."""
    text = str(_ws(*gemm_bf16_hopper.EXAMPLE_WS_SHAPE, **gemm_bf16_hopper.BEST_WS))
    example = parse_module((ROOT / "examples" / "gemm_bf16_hopper_ws.mlir").read_text(), "t.mlir")
    assert str(example) == text


def _gemm_out(program: ModuleOp, level: str) -> tuple[dict, np.ndarray]:
    m = _fresh(program)
    if level == "lowered":
        run_pipeline(m, "default")
    inputs = random_inputs(m, 0)
    return inputs, run(m, inputs)["pc"]


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_small_ws_gemm_matches_numpy(level):
    """C = A @ B of the 64x64x256 program within the bf16 rounding of the f32 sum."""
    inputs, out = _gemm_out(SMALL, level)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, 256)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(256, 64)).astype(np.float64)
    got = bf16_to_f32(np.asarray(out).reshape(64, 64)).astype(np.float64)
    exact = a @ b
    # f32 accumulation of 256 products (gamma_256 * |a| @ |b|), then one bf16 rounding
    mag = abs(a) @ abs(b)
    bound = 256 * 2.0**-24 * mag + 2.0**-8 * (abs(exact) + 256 * 2.0**-24 * mag)
    assert np.all(abs(got - exact) <= bound)


@pytest.mark.parametrize("shape", [(64, 64, 256, 64, 64, 64, 2), (128, 256, 768, 128, 256, 64, 4)])
def test_ws_gemm_equivalent_and_compiles(shape):
    """Equivalent after `default` (the GPU-level program runs its regions concurrently
    too); the CUDA compiles for sm_90a; the consumers' `layout.mma {async}` run on
    under the next step (`layout.mma_wait {pending = 1}`: `wait_group 1`)."""
    m, n, k, bm, bn, bk, stages = shape
    after = assert_pass_preserves(_ws(m, n, k, bm=bm, bn=bn, bk=bk, stages=stages), "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert cuda.count("wgmma.wait_group.sync.aligned 1;") == stages
    assert cuda.count("setmaxnreg.inc.sync.aligned.u32 232;") == 1
    assert cuda.count("setmaxnreg.dec.sync.aligned.u32 40;") == 1
    assert "__syncthreads" not in cuda[cuda.index("if (threadIdx.x <") :]
    # the producer (waits, arrivals, TMA loads) runs on one warp; the consumers on all
    assert cuda.count("& 127) < 32") + cuda.count(" < 32;") == 1
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0
    threads = 128 * (bm // 64 + 1)
    if 65536 // threads <= 255:
        # ptxas keeps setmaxnreg and starts every thread with all that
        # __launch_bounds__ allows (the registers the regions then move)
        assert usage.registers == 65536 // threads // 8 * 8
        assert "setmaxnreg' ignored" not in result.log
    else:
        # 256 threads: 256 registers each is past the 255 of a thread, so ptxas cannot
        # fix the count at entry and drops setmaxnreg (remark C7508)
        assert "'setmaxnreg' ignored; unable to determine register count at entry" in result.log


def _no_wait_on_empty(m):
    _erase(_ops(m, "layout.mbarrier_wait", r"empty\d+", "ephase"))


def _no_wait_on_full(m):
    _erase(_ops(m, "layout.mbarrier_wait", "full1", "phase"))


def _wrong_phase(m):
    (wait,) = _ops(m, "layout.mbarrier_wait", "full1", "phase")
    wait.operands = (wait.operands[0], _value(m, "c0"))


def _empty_count_too_high(m):
    _set_int(_value(m, "empty0").owner, "count", 2)


def _stage_never_handed_back(m):
    _erase(_ops(m, "layout.mbarrier_arrive", "empty1"))


MISUSE = {
    "no wait on empty": (_no_wait_on_empty, "the barrier is reused before its phase completes"),
    "no wait on full": (_no_wait_on_full, "while a TMA load is still writing it"),
    "wrong phase": (_wrong_phase, "has completed and been waited on: the wait returns at once"),
    "empty count too high": (_empty_count_too_high, "the wait would never return", "missing 1 of its 2 arrivals"),
    "stage never handed back": (_stage_never_handed_back, "the wait would never return"),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("name", MISUSE)
def test_misuse_is_reported(name, level):
    breaks, *fragments = MISUSE[name]
    m = _fresh(SMALL)
    breaks(m)
    if level == "lowered":
        run_pipeline(m, "lower-to-gpu")
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    for f in fragments:
        assert f in str(info.value), str(info.value)


def _own_stage_release(program: ModuleOp, pending: int) -> ModuleOp:
    """The consumers hand back each step's own stage right after its
    `layout.mma_wait {pending = pending}`."""
    from xdsl.rewriter import InsertPoint, Rewriter

    from tilec.dialects.layout_tma import MBarrierArriveOp

    m = _fresh(program)
    _erase(o for o in m.walk() if o.name == "scf.if" and _hint(o.operands[0]) == "later"
           and [x.name for x in o.walk()][1:] == ["layout.mbarrier_arrive", "scf.yield"])
    _erase(_ops(m, "layout.mbarrier_arrive", "empty0"))
    for st in (0, 1):
        (wait,) = [o for o in _ops(m, "layout.mma_wait", f"d{st + 1}") if _hint(o.results[0]) == f"acc{st + 1}"]
        assert wait.properties["pending"].value.data == 1
        _set_int(wait, "pending", pending)
        Rewriter.insert_op(MBarrierArriveOp(_value(m, f"empty{st}")), InsertPoint.after(wait))
    assert len(_ops(m, "layout.mbarrier_arrive", r"empty\d+")) == 2
    return m


def test_handing_back_the_stage_just_read_after_waiting_for_it():
    """Arriving on a stage's own "empty" right after its `layout.mma` is correct once a
    `layout.mma_wait {pending = 0}` has retired the mma's group: the program is
    equivalent after the default pipeline, each step waits with `wait_group 0`."""
    after = assert_pass_preserves(_own_stage_release(SMALL, 0), "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "wgmma.wait_group.sync.aligned 1;" not in cuda
    # the two steps' waits, and the one after the loop
    assert cuda.count("wgmma.wait_group.sync.aligned 0;") == 3


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_handing_back_a_stage_an_mma_still_reads_is_a_race(level):
    """With `{pending = 1}` the step's own wgmma may still read its stage when the
    consumer hands it back, and the producer's TMA load overwrites it: the executor
    reports the race at the layout level (an `{async}` mma's shared reads last until a
    `layout.mma_wait` retires its group) and after lowering (`wgmma.wait_group`)."""
    m = _own_stage_release(SMALL, 1)
    if level == "lowered":
        run_pipeline(m, "default")
        assert "wgmma.wait_group.sync.aligned 1;" in emit(m, "cuda")
    with pytest.raises(ExecutionError, match="while a wgmma is still reading it"):
        run(m, random_inputs(m, 0))


def test_setmaxnreg_needs_sm_90a():
    """`setmaxnreg` exists only on sm_90a: CUDA that uses it is compiled for it."""
    from tilec.runtime.nvrtc import needs_arch_specific

    assert needs_arch_specific('asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");')
    assert not needs_arch_specific('asm volatile("bar.sync 0;" ::: "memory");')


def test_generator_refuses_a_register_split_over_the_block():
    with pytest.raises(ValueError, match=r"exceed the block's 504 \(3 x 168 at launch\)"):
        _ws(256, 256, 256, consumer_regs=240, producer_regs=40)


def test_writes_inside_regions_are_audited():
    """The regions run in threads of their own, in the caller's context: the write
    audit (memory.audit_writes, which the equivalence checks use) sees the consumers'
    stores of C."""
    from tilec.runtime.reference.memory import audit_writes

    m = _fresh(SMALL)
    with audit_writes() as audit:
        run(m, random_inputs(m, 0))
    assert int(np.asarray(audit.written["%pc"]).sum()) == 64 * 64


SCHEDULED = _ws(
    128, 192, 256, bm=64, bn=64, bk=64, stages=2, persistent=4, group=2, tma_epilogue=True
)
"""6 tiles (2 x 3) on 4 persistent blocks (two of them take 2 tiles: the ring's phases
run on across tiles), in grouped order of 2 block rows, C through stmatrix + TMA stores."""


def _check_gemm(program: ModuleOp, m: int, n: int, k: int, level: str) -> None:
    inputs, out = _gemm_out(program, level)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)
    got = bf16_to_f32(np.asarray(out).reshape(m, n)).astype(np.float64)
    exact, mag = a @ b, abs(a) @ abs(b)
    gamma = k * 2.0**-24  # f32 accumulation of k products, then one bf16 rounding
    assert np.all(abs(got - exact) <= gamma * mag + 2.0**-8 * (abs(exact) + gamma * mag))


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize(
    "kw",
    [
        {"persistent": 4, "group": 2, "tma_epilogue": True},
        {"persistent": 4},
        {"group": 2, "tma_epilogue": True},
        {"persistent": 9, "tma_epilogue": True, "bk": 32, "stages": 4},
    ],
    ids=["persistent-grouped-tma", "persistent", "grouped-tma", "more-blocks-than-tiles-bk32"],
)
def test_ws_schedules_match_numpy(kw, level):
    """The schedules and epilogues of the warp-specialised GEMM compute C = A @ B on
    the reference executor, before and after `default` (192 x 128 x 256: 3 block rows,
    so the last group of 2 has 1 row; 32-wide K tiles use a 64-byte swizzle for A)."""
    kw = {"bk": 64, "stages": 2, **kw}
    _check_gemm(_ws(192, 128, 256, bm=64, bn=64, **kw), 192, 128, 256, level)


def test_scheduled_ws_gemm_equivalent_and_compiles():
    """The persistent, grouped, TMA-store-epilogue GEMM is equivalent after `default`;
    its CUDA walks the tiles in both regions, stores C with stmatrix and TMA stores
    whose region meets at named barrier 1 (never __syncthreads after the split), waits
    for the previous store before the buffer is rewritten and before exit; it compiles
    for sm_90a without spills."""
    after = assert_pass_preserves(SCHEDULED, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    split = cuda[cuda.index("if (threadIdx.x <") :]
    assert "__syncthreads" not in split
    assert cuda.count("for (int t") == 2 and "< 6;" in cuda and "+= 4)" in cuda
    assert cuda.count("stmatrix.sync.aligned.m8n8.x4") == 4
    assert cuda.count('asm volatile("bar.sync 1, 128;" ::: "memory");') == 3
    assert cuda.count("tilec_bulk_wait_group_read<0>();") == 2
    assert cuda.count("cp.async.bulk.tensor.2d.global.shared::cta") == 1
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0


def test_full_size_scheduled_ws_gemm_compiles():
    """The benchmarked kernel (128 x 256 x 32 tiles, 4 stages, persistent over 132
    blocks, grouped by 8, TMA-store epilogue) at 4096^3 compiles for sm_90a: 168
    registers at entry, no spills, 16 stmatrix.x4 and 4 TMA store boxes of 64 x 128."""
    m = _ws(
        4096, 4096, 4096, bk=32, stages=4, persistent=132, group=8, tma_epilogue=True
    )
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    assert "// layout.store 128x256xbf16 to smem: 16 stmatrix.x4 per thread" in cuda
    assert "4 boxes 64x128 (dims [1, 0] of the view), swizzle 128B, 65536 bytes" in cuda
    assert "A K-major, swizzle 64B" in cuda
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert (usage.registers, usage.spill_stores) == (168, 0)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_missing_tma_store_wait_is_a_race(level):
    """Without the wait for the previous tile's TMA store, the next tile's stmatrix
    writes the C buffer while the store still reads it: reported at both levels."""
    m = _fresh(SCHEDULED)
    wait = next(o for o in m.walk() if o.name == "layout.tma_store_wait")  # the tile loop's
    assert wait.next_op is not None and wait.next_op.name == "layout.store"
    _erase([wait])
    if level == "lowered":
        run_pipeline(m, "default")
    with pytest.raises(ExecutionError, match="while a TMA store is still reading it"):
        run(m, random_inputs(m, 0))


def test_tma_store_wait_reached_by_part_of_the_region():
    """`layout.tma_store_wait` in a region meets the region's threads: reached by half
    of them, it is reported (a hang on the GPU)."""
    from xdsl.dialects import arith, scf
    from xdsl.dialects.builtin import IndexType
    from xdsl.ir import Block, Region
    from xdsl.rewriter import InsertPoint, Rewriter

    m = _fresh(SCHEDULED)
    region = next(o for o in m.walk() if o.name == "layout.warp_specialize").regions[0]
    wait = region.block.last_op  # the consumers' last wait, after their tile loop
    assert wait.name == "layout.tma_store_wait"
    c64 = arith.ConstantOp(IntegerAttr(64, IndexType()))
    low = arith.CmpiOp(_block_arg(m, "tid"), c64, "ult")
    c64.result.name_hint, low.result.name_hint = "c64", "low"
    Rewriter.insert_op([c64, low], InsertPoint.before(wait))
    wait.detach()
    region.block.add_op(scf.IfOp(low, [], Region(Block([wait, scf.YieldOp()]))))
    with pytest.raises(ExecutionError, match="only 64 of the 128 threads of the warp_specialize region"):
        run(m, random_inputs(m, 0))


@pytest.mark.parametrize("threads", [256, 64])
def test_named_barrier_counts_the_region(threads):
    """`cuda.named_barrier` of a region's threads must count them: more (nothing else
    arrives: a hang on the GPU) or fewer (an early release) is reported."""
    from tilec.dialects import cuda_roles

    m = _fresh(SCHEDULED)
    run_pipeline(m, "default")
    bars = [op for op in m.walk() if isinstance(op, cuda_roles.NamedBarrierOp)]
    assert len(bars) == 3 and all((b.index, b.count) == (1, 128) for b in bars)
    from xdsl.dialects.builtin import IntegerAttr, i64

    bars[0].properties["threads"] = IntegerAttr(threads, i64)
    want = (
        "the bar.sync 1 would never return: 128 of the 256 threads"
        if threads == 256
        else "bar.sync 1: 128 threads arrive at barrier 1 in block 0, whose phase counts 64"
    )
    with pytest.raises(ExecutionError, match=want):
        run(m, random_inputs(m, 0))


PINGPONG = _ws(
    192, 128, 256, bm=64, bn=64, bk=64, stages=2, persistent=2, group=2, tma_epilogue=True, pingpong=True
)
"""The pingpong schedule: 6 tiles on 2 blocks, 3 each: consumer 0 takes a block's 1st
and 3rd tile, consumer 1 its 2nd, through one 2-stage ring (4 K steps a tile)."""


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize(
    "kw",
    [
        {"persistent": 2, "group": 2, "tma_epilogue": True},
        {"persistent": 2},
        {"persistent": 4, "tma_epilogue": True, "bk": 32, "stages": 4},
        {"persistent": 9, "group": 2, "tma_epilogue": True},
        {"persistent": 2, "group": 2, "tma_epilogue": True, "one_c_buffer": True},
    ],
    ids=["grouped-tma", "register-epilogue", "bk32-odd-tiles", "more-blocks-than-tiles", "one-c-buffer"],
)
@pytest.mark.parametrize("handover", ["drain", "issue", "loop"])
def test_pingpong_schedules_match_numpy(kw, level, handover):
    """The pingpong schedule (two consumer warpgroups on alternate tiles, their K loops
    taking turns at the ring, the turn given after the K loop's wgmma drain, after its
    last wgmma is issued, or after the loop before its drain) computes C = A @ B on the
    reference executor, before and after
    `default`: 3 or 2 tiles a block (consumer 1 with one fewer than consumer 0, or
    none), 1 or 0 (more blocks than tiles)."""
    kw = {"bk": 64, "stages": 2, **kw}
    src = _ws(192, 128, 256, bm=64, bn=64, pingpong=True, handover=handover, **kw)
    assert "layout.warp_specialize warpgroups(1, 1, 1)" in str(src)
    _check_gemm(src, 192, 128, 256, level)


def test_pingpong_needs_persistent_tiles():
    with pytest.raises(ValueError, match="pingpong schedule needs persistent tiles"):
        _ws(256, 256, 256, pingpong=True)
    with pytest.raises(ValueError, match="handover is 'drain', 'issue' or 'loop'"):
        _ws(256, 256, 256, persistent=2, pingpong=True, handover="early")


PINGPONG_ISSUE = _ws(
    192,
    128,
    256,
    bm=64,
    bn=64,
    bk=64,
    stages=2,
    persistent=2,
    group=2,
    tma_epilogue=True,
    pingpong=True,
    handover="issue",
)


PINGPONG_LOOP = _ws(192, 128, 256, bm=64, bn=64, bk=64, stages=2, persistent=2, group=2, tma_epilogue=True,
                    pingpong=True, handover="loop")


def _consumer_1_takes_no_turn(m):
    # consumer 1 waits on the ring's "full" barriers a round after consumer 0: without
    # its turn, its first wait sees consumer 0's phase (completed) and returns at once
    # (the executor lets a second region wait on a phase another saw complete, as
    # attention's two consumer regions share each phase), then its arrival on the
    # stage's "empty" barrier (one arrival a phase) is one too many
    (wait,) = _ops(m, "layout.mbarrier_wait", "turn1", "tphase")
    phase = wait.operands[1].owner
    _erase([wait, phase])


def _consumer_0_keeps_the_turn(m):
    # consumer 0 never hands the turn over: consumer 1 waits forever
    _erase(_ops(m, "layout.mbarrier_arrive", "turn1"))


def _turn_in_the_first_step(m):
    # the turn given in the K loop's first step instead of its last: consumer 1 waits
    # on the "full" barriers two rounds ahead of consumer 0 (a tile is 2 rounds of the
    # 2-stage ring) and its wait sees consumer 0's completed phase of the same parity:
    # it returns at once, and consumer 1's arrival on "empty" is one too many
    lasts = [o for o in m.walk() if o.name == "arith.constant" and _hint(o.results[0]) == "lasti"]
    assert len(lasts) == 2 and all(o.value.value.data == 2 for o in lasts)
    for o in lasts:
        _set_int(o, "value", 0)


def _consumer_0_hands_over_before_its_last_wait(m):
    # handover "loop" with the turn given before the K loop instead of after it: consumer
    # 1's waits on the "full" barriers run ahead of consumer 0's and see its phases
    (arrive,) = _ops(m, "layout.mbarrier_arrive", "turn1")
    loop = arrive.prev_op
    assert loop.name == "scf.for"
    arrive.detach()
    loop.parent_block().insert_op_before(arrive, loop)


PINGPONG_ONE_C = _ws(192, 128, 256, bm=64, bn=64, bk=64, stages=2, persistent=2, group=2, tma_epilogue=True,
                     pingpong=True, handover="loop", one_c_buffer=True)


def _consumer_1_writes_c_without_its_turn(m):
    # one C buffer: consumer 1 writes it without waiting for consumer 0's TMA store to
    # have read it; consumer 0's next arrival on cfree1 then finds its phase unseen
    # (the executor does not model another region's store still reading the buffer)
    (wait,) = _ops(m, "layout.mbarrier_wait", "cfree1", "tphase")
    _erase([wait])


PINGPONG_MISUSE = {
    "consumer 1 does not wait for its turn": (PINGPONG, _consumer_1_takes_no_turn,
                                              "already has all its 1 arrivals and has not been seen complete by a wait"),
    "consumer 0 never gives the turn": (PINGPONG, _consumer_0_keeps_the_turn, "the wait would never return"),
    "turn given in the K loop's first step": (PINGPONG_ISSUE, _turn_in_the_first_step,
                                              "already has all its 1 arrivals and has not been seen complete by a wait"),
    "turn given before the K loop": (PINGPONG_LOOP, _consumer_0_hands_over_before_its_last_wait,
                                     "already has all its 1 arrivals and has not been seen complete by a wait"),
    "one C buffer written out of turn": (PINGPONG_ONE_C, _consumer_1_writes_c_without_its_turn,
                                         "already has all its 1 arrivals and has not been seen complete by a wait"),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("name", PINGPONG_MISUSE)
def test_pingpong_turn_misuse_is_reported(name, level):
    """Misuse of the consumers' turns is reported at both levels (a read of a stage
    still being loaded, or a hang, on the GPU)."""
    program, breaks, fragment = PINGPONG_MISUSE[name]
    m = _fresh(program)
    breaks(m)
    assert str(m) != str(program)
    if level == "lowered":
        run_pipeline(m, "default")
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize("handover", ["drain", "issue", "loop"])
def test_pingpong_equivalent_and_compiles(handover):
    """The pingpong program is equivalent after `default`; its CUDA has three regions
    of one warpgroup, each consumer's TMA store meeting at its own named barrier."""
    after = assert_pass_preserves({"drain": PINGPONG, "issue": PINGPONG_ISSUE, "loop": PINGPONG_LOOP}[handover],
                                  "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "if (threadIdx.x < 128) {  // warpgroup 0" in cuda
    assert "} else if (threadIdx.x < 256) {  // warpgroup 1" in cuda
    assert "} else {  // warpgroup 2" in cuda
    assert cuda.count('asm volatile("bar.sync 1, 128;" ::: "memory");') == 3
    assert cuda.count('asm volatile("bar.sync 2, 128;" ::: "memory");') == 3
    assert "__syncthreads" not in cuda[cuda.index("if (threadIdx.x <") :]
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0


def test_full_size_pingpong_compiles():
    """The fastest pingpong kernel at 4096 (benchmarks/NOTES.md, 128 x 128 x 64 tiles per
    consumer warpgroup, 4 stages, two 32 KiB C buffers, persistent over 132, grouped by
    8) compiles for sm_90a: 168 registers at entry, no spills; each consumer's
    accumulator takes 2 wgmma.m64n128k16 per 16 of K."""
    m = _ws(
        4096, 4096, 4096, bm=128, bn=128, bk=64, stages=4, persistent=132, group=8, tma_epilogue=True, pingpong=True
    )
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    assert "// layout.mma 128x128x64 (bf16): 8 wgmma.m64n128k16 per warpgroup" in cuda
    assert "// layout.store 128x128xbf16 to smem: 16 stmatrix.x4 per thread" in cuda
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert (usage.registers, usage.spill_stores) == (168, 0)


CHUNKED = _ws(
    128, 256, 256, bm=64, bn=128, bk=64, stages=2, persistent=3, group=2, tma_epilogue=True, chunk=64
)
"""4 tiles of 64 x 128 on 3 persistent blocks, each tile in 2 column chunks of 64: two
accumulators, two B buffers per stage, one 64 x 64 C buffer reused by the chunks."""


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize(
    "kw",
    [
        {"persistent": 3, "group": 2, "tma_epilogue": True},
        {"persistent": 3, "tma_epilogue": False},
        {"group": 2, "tma_epilogue": True},
        {"persistent": 3, "tma_epilogue": True, "pingpong": True},
    ],
    ids=["persistent-grouped-tma", "persistent-registers", "grouped-tma", "pingpong-tma"],
)
def test_chunked_ws_schedules_match_numpy(kw, level):
    """Column chunks (`chunk`): C = A @ B on the reference executor before and after
    `default`, each 64 x 128 tile (192 x 256 x 256: 6 tiles) computed and stored in two
    chunks of 64 columns; with the TMA-store epilogue the chunks take turns at one C
    buffer (the executor reports a chunk written before the previous one's store read
    it: `test_chunk_without_store_wait_is_a_race`)."""
    _check_gemm(_ws(192, 256, 256, bm=64, bn=128, bk=64, stages=2, chunk=64, **kw), 192, 256, 256, level)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_chunk_without_store_wait_is_a_race(level):
    """Without the wait between the chunks, the second chunk's stmatrix rewrites the C
    buffer that the first chunk's TMA store may still be reading: a reported race."""
    m = _fresh(CHUNKED)
    waits = [o for o in m.walk() if o.name == "layout.tma_store_wait"]
    assert all(w.properties["pending"].value.data == 0 for w in waits[:2])
    _erase([waits[1]])  # the wait before chunk 1's stmatrix (waits[0]: before chunk 0's)
    if level == "lowered":
        run_pipeline(m, "default")
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    assert "TMA store" in str(info.value), str(info.value)


def test_chunked_ws_gemm_equivalent_and_compiles():
    """The chunked program is equivalent after `default`; its CUDA has per step one
    wgmma group per chunk (the first deferred under the second), stores each chunk of
    C with stmatrix into the one C buffer and a TMA store, waits for the previous
    store's reads before each chunk, and compiles for sm_90a without spills."""
    after = assert_pass_preserves(CHUNKED, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert cuda.count("// layout.store 64x64xbf16 to smem:") == 2
    assert cuda.count("cp.async.bulk.tensor.2d.global.shared::cta") == 2
    # before each of the 2 chunks and before exit
    assert cuda.count("tilec_bulk_wait_group_read<0>();") == 3
    assert cuda.count("wgmma.m64n64k16 per warpgroup") == 4
    assert "__syncthreads" not in cuda[cuda.index("if (threadIdx.x <") :]
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert usage.spill_stores == 0


def test_full_size_chunked_ws_gemm_compiles():
    """The cooperative 128 x 256 x 64 kernel with 4 stages and a TMA-store epilogue in
    two chunks of 128 columns (cuBLAS's tile and ring at 4096: 4 x 48 KiB of stages and
    a 32 KiB C buffer, the barriers after them, fit in 227 KiB) compiles for sm_90a:
    168 registers, no spills, two accumulators of 2 x 8 wgmma.m64n128k16 per K step."""
    m = _ws(
        4096, 4096, 4096, bm=128, bn=256, bk=64, stages=4, persistent=132, group=8, tma_epilogue=True, chunk=128
    )
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    assert cuda.count("// layout.mma 128x128x64 (bf16): 4 wgmma.m64n128k16 per warpgroup") == 8
    assert cuda.count("// layout.store 128x128xbf16 to smem: 8 stmatrix.x4 per thread") == 2
    result = compile_sm90_or_skip(cuda)
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(result).values()
    assert (usage.registers, usage.spill_stores) == (168, 0)


def test_chunk_must_divide_the_tile():
    with pytest.raises(ValueError, match="chunk"):
        _ws(256, 256, 256, chunk=96)


def _phase_program(per_thread: bool):
    """A producer region whose waits sit in an `scf.if` of a loop carrying a count
    (the persistent attention's Q barrier): the phase is the region's own value;
    the other region's threads hold another copy of it. `per_thread`: the phase also
    differs between the region's threads (thread id mod 2)."""
    from tilec.compiler.builder import Program

    p = Program("phases")
    p.pointer("x", "f32")
    with p.launch(grid=(p.constant(2), p.constant(1), p.constant(1)), threads=256) as k:
        bar, back = p.mbarrier_init(1), p.mbarrier_init(1)
        c0, c1, c2, c3 = p.constant(0), p.constant(1), p.constant(2), p.constant(3)
        consumer, producer = p.warp_specialize([1, 1])
        with consumer:
            with p.range(c0, c3, c1) as i:
                p.mbarrier_wait(bar, p.remui(i, c2))
                p.mbarrier_arrive(back)
        with producer:
            n = p.constant(0)
            with p.range(k.bx, k.bx + c3, c1, carry=[n]):
                with p.if_(n.ne(c0)):
                    phase = p.remui(n - c1, c2)
                    p.mbarrier_wait(back, phase + p.remui(k.tid, c2) if per_thread else phase)
                p.mbarrier_arrive(bar)
                n.assign(n + c1)
            p.mbarrier_wait(back, c0)
    return p.module


def test_wait_phase_is_the_running_threads():
    """An mbarrier wait's phase is read from the threads that run it (the region's,
    under the `scf.if`'s mask), not from thread 0 of the block nor from the other
    region's copy; where those threads disagree it is an error."""
    run(_phase_program(False), {"x": np.zeros(1, np.float32)})
    with pytest.raises(ExecutionError, match="the phase differs between the threads of a block"):
        run(_phase_program(True), {"x": np.zeros(1, np.float32)})


def test_pingpong_one_c_buffer_equivalent_and_compiles():
    """Pingpong with one C buffer for both consumers (`one_c_buffer`): equivalent after
    `default`; one C buffer allocated, the two "cfree" barriers waited on and arrived at
    in the consumers' epilogues; NVRTC compiles it without spills."""
    assert str(PINGPONG_ONE_C).count("layout.alloc") == str(PINGPONG_LOOP).count("layout.alloc") - 1
    assert len(_ops(PINGPONG_ONE_C, "layout.mbarrier_wait", "cfree[01]")) == 2
    assert len(_ops(PINGPONG_ONE_C, "layout.mbarrier_arrive", "cfree[01]")) == 2
    after = assert_pass_preserves(PINGPONG_ONE_C, "default", seeds=(0,))
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(compile_sm90_or_skip(emit(after, "cuda"))).values()
    assert usage.spill_stores == 0


def test_one_c_buffer_needs_pingpong_and_the_tma_epilogue():
    with pytest.raises(ValueError, match="one_c_buffer needs pingpong and tma_epilogue"):
        _ws(256, 256, 256, persistent=2, tma_epilogue=True, one_c_buffer=True)
    with pytest.raises(ValueError, match="one_c_buffer needs pingpong and tma_epilogue"):
        _ws(256, 256, 256, persistent=2, pingpong=True, one_c_buffer=True)


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("kw", [{"tma_epilogue": True, "chunk": 64}, {"tma_epilogue": False}],
                         ids=["chunks-tma", "register-epilogue"])
def test_staggered_consumers_match_numpy(kw, level):
    """The cooperative 128-row tile in two consumer regions of one warpgroup, each its 64
    rows and its own epilogue (`stagger`; consumer 0 waits for consumer 1's first trip of
    the ring): C = A @ B on the reference executor, before and after `default`; 4 tiles
    on 2 blocks, 2 trips of the 4-stage ring each."""
    src = _ws(256, 256, 512, bm=128, bn=128, bk=64, stages=4, persistent=2, group=1, stagger=2, **kw)
    assert "layout.warp_specialize warpgroups(1, 1, 1)" in str(src)
    _check_gemm(src, 256, 256, 512, level)


def test_stagger_needs_the_cooperative_128_row_tile():
    with pytest.raises(ValueError, match="stagger needs bm 128"):
        _ws(256, 256, 256, bm=64, persistent=2, stagger=1)
    with pytest.raises(ValueError, match="stagger needs bm 128"):
        _ws(256, 256, 512, bm=128, bn=128, persistent=2, stages=4, stagger=3)


def test_staggered_consumer_0_without_the_lead_is_reported():
    """Consumer 1 never signals its first trip (`stagger`'s "lag" barrier): consumer 0's
    wait never returns, which the executor reports (a hang on the GPU)."""
    m = _ws(256, 256, 512, bm=128, bn=128, bk=64, stages=4, persistent=2, group=1, stagger=2, tma_epilogue=True)
    _erase(_ops(m, "layout.mbarrier_arrive", "lag"))
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    assert "the wait would never return" in str(info.value), str(info.value)


def test_staggered_consumers_equivalent_and_compile():
    """`stagger`: equivalent after `default`; each consumer's TMA store meets its own
    128 threads; NVRTC compiles it without spills."""
    m = _ws(256, 256, 512, bm=128, bn=256, bk=64, stages=4, persistent=2, group=1, stagger=2, tma_epilogue=True,
            chunk=128)
    after = assert_pass_preserves(m, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "bar.sync 1, 256" not in cuda and 'asm volatile("bar.sync 1, 128;" ::: "memory");' in cuda
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0
