"""Random VALID copy programs (tests/fuzz/generate.py) through the default pipeline's
passes with random options, checked on the CPU reference executor (issue #10).

The executor's bounds, race and alignment checks make every unsafe access of the
compiled program a failure, and `--check-equivalence` compares every output buffer bit
for bit with the program as written. Two levels:

* up to `lower-convert-layout` (the layout level): must be equivalent, always;
* the whole pipeline (GPU level, then CUDA): must be equivalent, except for the
  lower-to-gpu bugs listed in `harness.KNOWN_BUGS` (pinned in test_known_bugs.py),
  which are counted as hypothesis events; TILEC_FUZZ_STRICT=1 fails on them too.

Also the mbarrier programs of tests/fuzz/generate_mbarrier.py (TMA rings, warp-specialised
producer/consumer pipelines, plain loops that `software-pipeline` schedules), built with
the Python builder: equivalent after the default pipeline (the executor's mbarrier,
phase and race checks passing at both levels), and NVRTC compiles their CUDA.

Also epilogue-like kernels around `math.tanh` and divisions with `fastmath<afn>` and `cuda.opaque`
(tests/fuzz/generate_compute.py), partials summed across a cluster through distributed shared memory
(tests/fuzz/generate_dsmem.py: `layout.peer_view`, `cuda.map_shared_rank`), and
thread-block cluster rings (tests/fuzz/generate_cluster.py: multicast TMA loads into
the peers, remote arrivals on their "empty" barriers, cluster_sync) and serial split-K's
counter protocol (tests/fuzz/generate_atomic.py: partials, fences, atomic arrivals, the
last unit's ordered sum and counter reset), checked the same way; the split-K programs
also on `--run cpu`, whose every output must be written (a counter left non-zero would
leave a second launch's output unwritten).

Programs are drawn from a seed (`random.Random(seed)`, the generator's own
distribution; a failure prints the seed and the program). CI budget: about a minute (derandomized); TILEC_FUZZ_EXAMPLES=N for N programs.
"""

from __future__ import annotations

import os
import random
import re
import sys

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from generate_atomic import draw_split_k, random_split_k_kernel
from generate_atomic import defects_of as split_k_defects
from generate_cluster import draw_cluster, random_cluster_kernel
from generate_cluster import defects_of as cluster_defects
from generate_coarsen import GRID_X, TYPES, draw_coarsen, plan_of, random_coarsen_kernel
from generate_compute import draw_epilogue, random_epilogue_kernel, random_ex2_fma_kernel
from generate_dsmem import draw_dsmem, random_dsmem_kernel
from generate_dsmem import defects_of as dsmem_defects
from generate import (
    ELEMENT_TYPES,
    random_chunk_kernel,
    random_copy_program,
    random_element_kernel,
    random_funnel_kernel,
    random_prefetch_l1_kernel,
    random_realign_copy,
    random_slice_iterator_kernel,
    realign_pipeline,
)
from generate_mbarrier import (
    DEFECTS,
    defects_of,
    draw_plain,
    draw_ring,
    draw_ws,
    random_named_barrier_kernel,
    random_plain_loop_kernel,
    random_clipped_ring_kernel,
    random_ring_kernel,
    random_ws_kernel,
)
from harness import budget, check_outcome, known_bug, run_tilec
from helpers.nvrtc import compile_sm90_or_skip

VALID = settings(
    max_examples=budget(60),
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _layout_level(pipeline: str) -> str:
    return pipeline.split(",lower-to-gpu")[0]


@VALID
@given(seed=st.integers(0, 2**32 - 1))
def test_layout_level_passes_preserve_random_copies(seed):
    prog = random_copy_program(random.Random(seed))
    out = run_tilec(["-p", _layout_level(prog.pipeline), "--check-equivalence"], prog.text)
    assert out.rc == 0, f"{prog.summary}\n-p '{_layout_level(prog.pipeline)}'\n{out.describe()}\n{prog.text}"
    assert "@copy: equivalent after" in out.stdout


@VALID
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_copies(seed):
    prog = random_copy_program(random.Random(seed))
    # The largest programs run 2^14 elements through the executor twice at GPU level:
    # a few seconds, more on a loaded machine; a hang is still caught.
    out = run_tilec(["-p", prog.pipeline, "--check-equivalence"], prog.text, timeout=90)
    check_outcome(out)
    if out.rc != 0 and (bug := known_bug(out)) is not None:
        event(f"known bug {bug}")
        return
    assert out.rc == 0, f"{prog.summary}\n-p '{prog.pipeline}'\n{out.describe()}\n{prog.text}"
    assert "@copy: equivalent after" in out.stdout
    cuda = run_tilec(["-p", prog.pipeline, "-t", "cuda"], prog.text)
    assert cuda.rc == 0 and "__global__" in cuda.stdout, cuda.describe()


@settings(VALID, max_examples=budget(30))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_slices_and_iterators(seed):
    """Nested slice coordinates and buffer iterators (layout.slice, layout.iter_*)
    through the default pipeline: equivalent, and CUDA is printed."""
    _check_default_pipeline(random_slice_iterator_kernel(random.Random(seed)), "slices")


@settings(VALID, max_examples=budget(30))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_element_kernels(seed):
    """layout.read / layout.write kernels (every coordinate form, 1-D and 2-D blocks)
    through the default pipeline: equivalent, and CUDA is printed."""
    _check_default_pipeline(random_element_kernel(random.Random(seed)), "elements")


@settings(VALID, max_examples=budget(30))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_funnel_kernels(seed):
    """Pointer-tensor kernels around layout.funnel_shift (one element type, or 32-bit
    words taken apart into 1- to 8-byte elements; random row pitches and per-row
    shifts) through the default pipeline: equivalent, and CUDA is printed."""
    _check_default_pipeline(random_funnel_kernel(random.Random(seed)), "funnel")


@settings(VALID, max_examples=budget(20))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_chunk_kernels(seed):
    """layout.copy_chunk_async kernels (1- to 4-byte elements, chunks of 4 to 16 bytes
    at steps that keep or break their alignment), beside loads and stores with random
    L2 cache hints and an optional layout.prefetch, through the default pipeline:
    equivalent on the CPU (the executor's cp.async and race checks), and the CUDA
    compiles under NVRTC."""
    prog = random_chunk_kernel(random.Random(seed))
    _check_default_pipeline(prog, "chunks")
    cuda = run_tilec(["-p", "default", "-t", "cuda"], prog.text)
    assert compile_sm90_or_skip(cuda.stdout).cubin, prog.summary


@settings(VALID, max_examples=budget(20))
@given(seed=st.integers(0, 2**32 - 1))
def test_prefetch_l1_kernels_change_nothing(seed):
    """Kernels around `layout.prefetch_l1` (generate.random_prefetch_l1_kernel: a block's own
    tile in the load's layout or another, a tile block rows ahead, a column or row of one as a
    slice; ragged tensors, m static or at run time, before the load or after the store) through
    the default pipeline: equivalent on the CPU (every element asked for inside `a`'s buffer, at
    the layout level and, as `cuda.prefetch_l1`, after the lowering's guards), NVRTC compiles the
    CUDA (`prefetch.global.L1`), and `b` is NumPy's copy of `a`, bit for bit: the prefetch
    changes no value."""
    import numpy as np

    import tilec
    from tilec.compiler.pipeline import run_pipeline
    from tilec.runtime.reference import random_inputs, run

    prog = random_prefetch_l1_kernel(random.Random(seed))
    _check_default_pipeline(prog, "prefetch")
    cuda = run_tilec(["-p", "default", "-t", "cuda"], prog.text)
    assert 'asm volatile("prefetch.global.L1' in cuda.stdout, prog.summary
    assert compile_sm90_or_skip(cuda.stdout).cubin, prog.summary
    module = tilec.parse(prog.text)
    run_pipeline(module, "default")
    assert any(op.name == "cuda.prefetch_l1" for op in module.walk()), prog.summary
    inputs = random_inputs(module, seed=seed)
    got = run(module, {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
    rows, cols = np.arange(prog.m)[:, None], np.arange(prog.n)
    want = inputs["b"].copy()
    want[rows * prog.pb + cols] = inputs["a"][rows * prog.pa + cols]
    assert np.array_equal(got["b"].view(np.uint8), want.view(np.uint8)), prog.summary


def test_prefetch_l1_generator_draws_every_form():
    """Every element size, m static and at run time, each view asked for (the block's own
    tile, a tile ahead, a column, a row) in the load's layout and another, before the load
    and after the store."""
    progs = [random_prefetch_l1_kernel(random.Random(s)) for s in range(120)]
    text = " ".join(p.summary for p in progs)
    for form in ("i8 ", "f16 ", "bf16 ", "f32 ", "f64 ", "?x", "first:", "after the store:", "own", "ahead+1",
                 "ahead+2", "column", "row", "(the load layout)"):
        assert form in text, form
    assert {p.m % 2 for p in progs} == {0, 1}


@settings(VALID, max_examples=budget(20))
@given(seed=st.integers(0, 2**32 - 1))
def test_realign_sector_prefetch_changes_nothing(seed):
    """Copies the realign strategy takes (generate.random_realign_copy: rows of 1- to 8-byte
    elements from and to pointers moved by run-time misalignments, row pitches with and
    without gaps, rank 2 or 3, buffers that end at the views' last 16-byte chunk) through
    the default pipeline with the strategy's sector prefetch: equivalent on the CPU (each
    sector asked for inside `dst`'s buffer, as `layout.ptr_prefetch` and, after the
    lowering's guards, `cuda.prefetch_global_l2`), the CUDA's `prefetch.global.L2` where the
    destination's rows leave gaps; and the executor's `dst` is NumPy's copy, bit for bit,
    with the prefetch, with its bulk form (`tile{realign_prefetch=3}`), with the bulk
    form of each row's ends after the source loads (`tile{realign_prefetch=5}`; 4 asks the
    same before them: its unit and lit tests), with a row's real partial sectors
    (`tile{realign_prefetch=6}`) and without it (`tile{realign_prefetch=0}`)."""
    import numpy as np

    import tilec
    from tilec.compiler.pipeline import run_pipeline
    from tilec.runtime.reference import random_inputs, run

    prog = random_realign_copy(random.Random(seed))
    out = run_tilec(["-p", prog.pipeline, "--check-equivalence"], prog.text, timeout=90)
    check_outcome(out)
    assert out.rc == 0 and "@realign: equivalent after" in out.stdout, f"{prog.summary}\n{out.describe()}"
    gap = prog.dst_strides[-2] != prog.shape[-1]
    cuda = run_tilec(["-p", prog.pipeline, "-t", "cuda"], prog.text)
    assert cuda.rc == 0 and ("prefetch.global.L2" in cuda.stdout) == gap, prog.summary
    inputs = random_inputs(tilec.parse(prog.text), seed=seed)
    want = inputs["dst"].copy()
    j = np.indices(prog.shape).reshape(len(prog.shape), -1).T
    want[prog.dmis + j @ np.array(prog.dst_strides)] = inputs["src"][prog.smis + j @ np.array(prog.src_strides)]
    for prefetch, bulk, ends, late, edges in ((True, False, False, False, False), (True, True, False, False, False),
                                              (True, True, True, True, False), (True, True, False, False, True),
                                              (False, False, False, False, False)):
        module = tilec.parse(prog.text)
        run_pipeline(module, realign_pipeline(prefetch, bulk, ends, late, edges))
        asked = [op for op in module.walk() if op.name == "cuda.prefetch_global_l2"]
        assert bool(asked) == (prefetch and gap), (prefetch, prog.summary)
        # the default's form is `_realign_tile.prefetch_rule`'s (bulk for rows of 128-512 bytes)
        assert (prefetch and not bulk) or all((op.bulk is not None) == bulk for op in asked), (bulk, prog.summary)
        got = run(module, {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
        assert np.array_equal(got["dst"].view(np.uint8), want.view(np.uint8)), (prefetch, prog.summary)


def test_realign_generator_draws_every_form():
    """Every element type, rank 2 and 3, rows with gaps and abutting, misaligned and
    aligned pointers on both sides."""
    from generate import REALIGN_TYPES

    progs = [random_realign_copy(random.Random(s)) for s in range(120)]
    assert {p.summary.split()[0] for p in progs} == set(REALIGN_TYPES)
    assert {len(p.shape) for p in progs} == {2, 3}
    assert {p.dst_strides[-2] == p.shape[-1] for p in progs} == {True, False}
    assert {p.src_strides[-2] == p.shape[-1] for p in progs} == {True, False}
    assert {p.smis > 0 for p in progs} == {p.dmis > 0 for p in progs} == {True, False}


@settings(VALID, max_examples=budget(5))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_epilogues(seed):
    """Epilogue-like kernels (generate_compute.random_epilogue_kernel: silu_tanh as the
    GEMM's epilogue writes it, gelu_tanh or tanh, with `fastmath<afn>` or without, on
    f32, f16, bf16, f64, a division by a random divisor of x, or an exp2 of x partly on the FMA pipe (`cuda.ex2_fma`, counted per register); the loop's first row
    tile kept by `cuda.opaque` as an index, an i32 or an i64) through the default
    pipeline: equivalent on the CPU, NVRTC compiles the CUDA, which calls
    `tanh.approx.f32` exactly where f32 asks for afn, shares a reciprocal among
    quotients (`cuda.div_approx_group`) exactly where the generator's own range of the
    divisor allows (`Epilogue.grouped`), and passes the kept value through an empty
    `asm volatile`."""
    prog = random_epilogue_kernel(random.Random(seed))
    _check_default_pipeline(prog, "epilogue")
    cuda = run_tilec(["-p", "default", "-t", "cuda"], prog.text).stdout
    assert compile_sm90_or_skip(cuda).cubin, prog.summary
    assert ("tilec_tanh_approx(" in cuda) == prog.spec.approximate, prog.summary
    assert ("tilec_rcp_approx_ftz(" in cuda) == prog.spec.grouped, prog.summary
    assert ("tilec_ex2_fma(" in cuda) == prog.spec.on_fma, prog.summary
    if prog.spec.act == "exp2":
        _check_ex2_fma_registers(prog)
    kept = {"none": None, "index": 'asm volatile("" : "+', "i32": '"+r"', "i64": '"+l"'}[prog.spec.opaque]
    assert (kept is None) == ('asm volatile("" : "+' not in cuda) and (kept is None or kept in cuda), prog.summary


def _check_ex2_fma_registers(prog) -> None:
    """The exp2 program's lowered module: `cuda.ex2_fma` on exactly `eighths` of every 8
    of a thread's registers (`cuda.ex2_fma_registers`), `math.exp2` on the others, and no
    `tilec.exp2_fma` marking left."""
    from xdsl.dialects import math as xmath

    from tilec.compiler.pipeline import parse_module, run_pipeline
    from tilec.dialects import cuda

    module = parse_module(prog.text)
    run_pipeline(module, "default")
    ops = list(module.walk())
    on_fma = sum(isinstance(op, cuda.Ex2FmaOp) for op in ops)
    on_mufu = [op for op in ops if isinstance(op, xmath.Exp2Op)]
    n = on_fma + len(on_mufu)
    assert n > 0 and on_fma == sum(cuda.ex2_fma_registers(n, prog.spec.exp2.eighths)), prog.summary
    assert not any(cuda.EXP2_FMA_ATTR in op.attributes for op in on_mufu), prog.summary


def test_epilogue_generator_draws_every_form():
    """Over a few hundred seeds the epilogue generator draws every activation, element
    type and opaque form, tanh.approx.f32 and not, grouped divisions and not; `--run gpu --check` is asked of the
    programs without the approximation and without 1 + tanh only."""
    eps = [draw_epilogue(random.Random(s)) for s in range(300)]
    assert {e.act for e in eps} == {"silu_tanh", "gelu_tanh", "tanh", "div", "exp2", "none"}
    assert {e.on_fma for e in eps} == {True, False} and {e.exp2.eighths for e in eps if e.on_fma} == set(range(1, 9))
    assert {e.grouped for e in eps} == {True, False}
    assert {e.dtype for e in eps} == {"f32", "f16", "bf16", "f64"} and {e.afn for e in eps} == {True, False}
    assert {e.opaque for e in eps} == {"none", "index", "i32", "i64"} and {e.approximate for e in eps} == {True, False}
    progs = [random_epilogue_kernel(random.Random(s)) for s in range(8)]
    assert all(q.gpu_check == (q.spec.act in ("none", "tanh") and not q.spec.approximate) for q in progs)


def _check_default_pipeline(prog, function: str) -> None:
    """`prog` through the default pipeline: equivalent on the CPU, and CUDA is printed."""
    out = run_tilec(["-p", "default", "--check-equivalence"], prog.text, timeout=90)
    check_outcome(out)
    assert out.rc == 0, f"{prog.summary}\n{out.describe()}\n{prog.text}"
    assert f"@{function}: equivalent after" in out.stdout
    cuda = run_tilec(["-p", "default", "-t", "cuda"], prog.text)
    assert cuda.rc == 0 and "__global__" in cuda.stdout, cuda.describe()


@settings(VALID, max_examples=budget(25))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_mbarrier_rings(seed):
    """Block-level TMA rings on mbarriers (generate_mbarrier.random_ring_kernel: staged
    buffers, mbarrier_array / mbarrier_at at a run-time stage or separate barriers,
    expect-tx arrivals, 1 or 2 arrivals per phase, prefetch, carried (stage, phase),
    TMA stores) through the default pipeline: the executor's mbarrier and race checks
    pass at both levels, the outputs are equal, and NVRTC compiles the CUDA."""
    _check_mbarrier_program(random_ring_kernel(random.Random(seed)))


@settings(VALID, max_examples=budget(10))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_clipped_rings(seed):
    """Rings whose TMA loads are clipped to the tensor (`layout.tma_load {clip}`, half of
    them `{clip, tail}`: the box the last box of the row of tiles), each
    tile's bytes expected at run time (`layout.mbarrier_expect_tx`) before arrivals
    expecting none: the executor's byte counts and checks pass at both levels, the
    outputs are equal (the edge tiles' rows past the tensor not written), NVRTC compiles
    (with tail: the tensor map's box the last box's rows)."""
    prog = random_clipped_ring_kernel(random.Random(seed))
    _check_mbarrier_program(prog)
    lowered = run_tilec(["-p", prog.pipeline], prog.text).stdout
    maps = [line for line in lowered.splitlines() if "= cuda.tensor_map %src" in line]  # the loads' maps
    assert maps and all(("clip, tail}" in m) == ("tail=True" in prog.summary) for m in maps), prog.summary


def test_clipped_ring_generator_draws_tails():
    """The clipped rings come with `{clip, tail}` and without, and the text says so."""
    progs = [random_clipped_ring_kernel(random.Random(s)) for s in range(12)]
    loads = [[line for line in q.text.splitlines() if "layout.tma_load" in line] for q in progs]
    with_tail = {all("tail" in line for line in lines) for lines in loads if lines}
    assert with_tail == {True, False}
    assert all(("tail=True" in q.summary) == any("tail" in line for line in lines) for q, lines in zip(progs, loads))
    # `tail=True` (sanitize.sh --clipped): every load the last box of a ragged tile (rows > 1, cut)
    ragged = [random_clipped_ring_kernel(random.Random(s), tail=True) for s in range(4)]
    assert all("tail=True" in q.summary and "rows=1," not in q.summary and "cut=0," not in q.summary for q in ragged)


def test_ex2_fma_generator_puts_exp2_on_the_fma_pipe():
    """`random_ex2_fma_kernel` (sanitize.sh --ex2fma): an epilogue whose activation is exp2 with
    afn and 1 to 8 eighths on the FMA pipe, its shape drawn as the epilogues'; unchecked on the
    GPU (ex2.approx)."""
    progs = [random_ex2_fma_kernel(random.Random(s)) for s in range(8)]
    assert all(q.spec.on_fma and q.spec.afn and not q.gpu_check for q in progs)
    assert all("tilec.exp2_fma" in q.text for q in progs)
    assert len({q.spec.dtype for q in progs}) > 1


@settings(VALID, max_examples=budget(20))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_warp_specialized_pipelines(seed):
    """Producer / consumer regions of layout.warp_specialize on full and empty mbarrier
    arrays (generate_mbarrier.random_ws_kernel: TMA, cp.async or register-store
    producers, either empty-wait form, 1 or 2 consumer warpgroups, setmaxnreg) through
    the default pipeline: checked as the rings are."""
    _check_mbarrier_program(random_ws_kernel(random.Random(seed)))


@settings(VALID, max_examples=budget(12))
@given(seed=st.integers(0, 2**32 - 1))
def test_named_barriers_of_random_warp_specialized_pipelines(seed):
    """Warp-specialised pipelines with `layout.named_barrier` among a subset of their
    warps (generate_mbarrier.random_named_barrier_kernel: the consumer warpgroups alone
    exchanging each tile through shared memory between two `bar.sync id, 128 *
    consumers`, or handing the last tile to the producer by `bar.arrive` / `bar.sync`
    of the whole block): the executor's barrier counts and race checks pass at both
    levels, the outputs are equal, NVRTC compiles the CUDA, which has the bar.sync."""
    prog = random_named_barrier_kernel(random.Random(seed))
    _check_mbarrier_program(prog)
    cuda = run_tilec(["-p", prog.pipeline, "-t", "cuda"], prog.text)
    assert re.search(r"bar\.sync ([3-9]|1[0-5]), (128|256|384);", cuda.stdout), prog.summary


@settings(VALID, max_examples=budget(20))
@given(seed=st.integers(0, 2**32 - 1))
def test_software_pipeline_schedules_of_random_plain_loops_are_checked(seed):
    """Plain single-buffered loops (generate_mbarrier.random_plain_loop_kernel: TMA on
    one mbarrier or cp.async, 1 or 2 operands, a carried sum, copies, stores or TMA
    stores of each step's tiles, 1 to 9 trips on 1 to 4 stages) through
    `software-pipeline` or `warp-specialize` (unrolled or rolled) and the default
    passes: the schedule made passes the executor's mbarrier, cp.async and race
    checks with the outputs equal, NVRTC compiles the CUDA, with 2 or more stages the
    loop was pipelined (its shared buffers were multiplied), and where
    `warp-specialize` takes it, it was split into producer and consumers."""
    prog = random_plain_loop_kernel(random.Random(seed))
    _check_mbarrier_program(prog)
    if prog.pipelined:
        piped = run_tilec(["-p", "software-pipeline{rolled=false}"], prog.text)  # the form that clones
        assert piped.rc == 0 and piped.stdout.count("layout.alloc") > prog.text.count("layout.alloc"), prog.summary
    if prog.specialized:
        split = run_tilec(["-p", "warp-specialize"], prog.text)
        assert split.rc == 0 and "layout.warp_specialize" in split.stdout, prog.summary


@settings(VALID, max_examples=budget(10))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_cluster_rings(seed):
    """Thread-block cluster rings (generate_cluster.random_cluster_kernel: 2- or 4-block
    clusters, B multicast within sharing groups of 2 or 4 ranks, consumers arriving on
    their own and their peers' "empty" barriers, cluster_sync after the barriers'
    initialisation and before exit) through their pipeline: the executor's mbarrier,
    byte-count, cluster and race checks pass at both levels, the outputs are equal,
    NVRTC compiles the CUDA, which states the cluster and multicasts. The parts of B
    go into buffers of their own or into parts of one buffer (`layout.tile` of a stage:
    `box_parts`), unswizzled or swizzled as wide as its rows (32, 64 or 128 bytes)."""
    prog = random_cluster_kernel(random.Random(seed))
    cuda = _check_mbarrier_program(prog)
    assert "__cluster_dims__(" in cuda and ".multicast::cluster" in cuda, prog.summary
    assert "tilec_mbarrier_arrive_cluster(" in cuda and "tilec_cluster_sync();" in cuda, prog.summary


@settings(VALID, max_examples=budget(12))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_split_k_counters(seed):
    """Serial split-K's counter protocol (generate_atomic.random_split_k_kernel: units as
    blocks in either order, a 2-D grid or persistent blocks; release and acquire by
    fences or by the arrival's order; the old value through shared memory or a global
    flag; the counter put back by the last unit after its sum or on its arrival; one or
    two launches on the same counters) through the default pipeline: the executor's
    hand-over and race checks pass at both levels, the outputs are equal, every output
    is written (`--run cpu`), the counters and flags end at 0 (so that `--run gpu --check`
    finds the same bits whatever order the GPU's units arrive in), NVRTC compiles the
    CUDA and its atomics and fences."""
    import tilec
    from tilec.runtime.reference import random_inputs, run

    prog = random_split_k_kernel(random.Random(seed))
    cuda = _check_mbarrier_program(prog)
    assert "atom." in cuda and ".gpu.global.add.u32" in cuda, prog.summary
    ran = run_tilec(["--run", "cpu"], prog.text, timeout=90)
    assert ran.rc == 0, f"{prog.summary}\n{ran.describe()}"
    module = tilec.parse(prog.text)
    assert not run(module, random_inputs(module, seed=1))["ctr"].any(), prog.summary


@settings(VALID, max_examples=budget(6))
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_pipeline_preserves_random_cluster_sums(seed):
    """Partials summed across a thread-block cluster through distributed shared memory
    (generate_dsmem.random_dsmem_kernel: `layout.peer_view` of each peer's buffer or of
    its tile, read by one rank a part, by every rank or by rank 0, or pushed into the
    peers' inboxes; constant or rotated peers, kept by `cuda.opaque` or not; 1 to 3 rounds, each between two
    cluster_syncs) through the default pipeline: the executor's cluster and race checks
    pass at both levels, the outputs are equal, NVRTC compiles the CUDA, which maps
    the peers' buffers (`mapa`) and meets at the cluster's barriers."""
    prog = random_dsmem_kernel(random.Random(seed))
    cuda = _check_mbarrier_program(prog)
    assert "mapa.u64" in cuda and "tilec_cluster_sync();" in cuda and "__cluster_dims__(" in cuda, prog.summary
    assert ('asm volatile("" : "+' in cuda) == ("peer=kept" in prog.summary), prog.summary  # cuda.opaque


@settings(VALID, max_examples=budget(12))
@given(seed=st.integers(0, 2**32 - 1))
def test_coarsened_round_trips_match_numpy(seed):
    """Shared-memory round trips for `coarsen-grid` (generate_coarsen.random_coarsen_kernel:
    every element size, ragged tensors, padded pitches, row- or column-major buffers, one
    or two pairs, grids whose x is prime, small or divisible, with or without `tma`, random
    `margin` / `max_stages` / `max_tiles`, some around the griddep ops): the pass does what
    `plan_launch` planned (grid x divided by k, the loop marked with S stages; a launch it
    leaves unchanged), the whole pipeline is equivalent on the CPU, NVRTC compiles the CUDA
    (`griddepcontrol` where the program has the ops), and the destinations are NumPy's
    copy of the sources bit for bit, nothing else written."""
    import numpy as np
    from xdsl.dialects import scf

    import tilec
    from tilec.compiler.pipeline import run_pipeline
    from tilec.dialects.layout import LaunchOp
    from tilec.passes._pipeline_plan import STAGES_ATTR
    from tilec.passes._analysis import constant_index
    from tilec.runtime.reference import random_inputs, run

    prog = random_coarsen_kernel(random.Random(seed))
    spec = prog.spec
    plan, grid_x, after = plan_of(spec)
    launch = next(o for o in after.walk() if isinstance(o, LaunchOp))
    loops = [o for o in launch.walk() if isinstance(o, scf.ForOp) and STAGES_ATTR in o.attributes]
    if plan is None:
        assert constant_index(launch.grid_x) == grid_x and not loops, prog.summary
    else:
        assert constant_index(launch.grid_x) == grid_x // plan.tiles, (prog.summary, plan)
        assert [o.attributes[STAGES_ATTR].value.data for o in loops] == [plan.stages], (prog.summary, plan)
    assert plan is None or not spec.griddep, "a body with griddep ops is not straight tile work"
    cuda = _check_mbarrier_program(prog)
    assert ("griddepcontrol.wait" in cuda) == bool(spec.griddep), prog.summary
    module = tilec.parse(prog.text)
    run_pipeline(module, prog.pipeline)
    inputs = random_inputs(module, seed=seed)
    got = run(module, {k: v.copy() for k, v in inputs.items()})
    (m, n), (sb, db) = spec.extents, spec.batch_strides
    z, rows = np.arange(spec.batch)[:, None, None], np.arange(m)[:, None]
    for i in range(spec.pairs):
        a, b = inputs[f"a{i}"], inputs[f"b{i}"]
        want = b.copy()
        want[z * db + rows * spec.dst_pitch + np.arange(n)] = a[z * sb + rows * spec.src_pitch + np.arange(n)]
        assert np.array_equal(got[f"b{i}"].view(np.uint8), want.view(np.uint8)), (prog.summary, i)


def test_coarsen_generator_draws_every_form():
    """Every element size, grids the pass coarsens and grids it leaves (prime x, tma,
    griddep), both buffer orders, one and two pairs, each griddep placement."""
    import dataclasses

    spec = [draw_coarsen(random.Random(s)) for s in range(300)]
    assert {s.dtype for s in spec} == set(TYPES) and {s.grid[0] for s in spec} == set(GRID_X)
    assert {s.rows_along_x for s in spec} == {False, True} and {s.batch for s in spec} == {1, 2, 3}
    assert {(s.tma, s.smem_col_major, s.pairs, s.griddep) for s in spec} >= \
        {(t, c, p, g) for t in (False, True) for c in (False, True) for p in (1, 2) for g in ("", "first", "last")} - \
        {(True, True, 2, "first"), (True, True, 2, "last")}
    plans = [plan_of(dataclasses.replace(s, tma=False, griddep="")) for s in spec[:40]]
    assert any(p is None for p, _, _ in plans) and any(p is not None for p, _, _ in plans)
    # (2 stages hold one tile ahead, no more than one tile a block: never planned)
    assert {p.stages for p, _, _ in plans if p} >= {3, 4} and {p.tiles for p, _, _ in plans if p} >= {2, 4, 8}


def _check_mbarrier_program(prog) -> str:
    out = run_tilec(["-p", prog.pipeline, "--check-equivalence"], prog.text, timeout=90)
    check_outcome(out)
    assert out.rc == 0, f"{prog.summary}\n{out.describe()}\n{prog.text}"
    assert f"@{prog.function}: equivalent after" in out.stdout
    cuda = run_tilec(["-p", prog.pipeline, "-t", "cuda"], prog.text)
    assert cuda.rc == 0 and "__global__" in cuda.stdout, cuda.describe()
    if prog.mbarriers is not None:
        assert ("tilec_mbarrier_wait" in cuda.stdout) == prog.mbarriers
    compile_sm90_or_skip(cuda.stdout)
    return cuda.stdout


def test_mbarrier_generators_draw_every_form():
    """Over a few hundred seeds the mbarrier generators draw every form they are meant
    to fuzz (a form never drawn is never tested), and every defect is drawable."""
    rings = [draw_ring(random.Random(s)) for s in range(300)]
    wss = [draw_ws(random.Random(s)) for s in range(300)]
    assert {r.bars for r in rings} == {"array", "separate"}
    assert {r.phase for r in rings if r.bars == "array"} == {"divide", "carried"}
    assert {r.consume for r in rings} == {"copy", "tensor", "tma_store"}
    assert {r.count for r in rings} == {1, 2} and {len(r.dtypes) for r in rings} == {1, 2}
    assert {r.stages for r in rings} == {1, 2, 3, 4} and {r.prefetch for r in rings} == {0, 1, 2, 3}
    assert any(r.cut for r in rings) and {r.grid for r in rings} == {1, 2, 3}
    assert {t for r in rings for t in r.dtypes} == set(ELEMENT_TYPES)
    assert {w.fill for w in wss} == {"tma", "cp.async", "store", "cp_async_load"}
    assert {w.min_blocks for w in wss} == {None, 1, 2}
    assert {w.empty_wait for w in wss} == {"guard", "parity"}
    assert {w.consumers for w in wss} == {1, 2} and {w.producer_first for w in wss} == {True, False}
    assert {w.regs for w in wss} == {True, False} and {w.compute for w in wss} == {True, False}
    assert {w.named for w in wss} == {None, "exchange", "handover"}
    assert {w.consumers for w in wss if w.named == "exchange"} == {1, 2}
    assert {w.apart for w in wss} == {True, False}  # the consumers run apart, and not
    plains = [draw_plain(random.Random(s)) for s in range(300)]
    assert {(q.form, q.compute) for q in plains} == {(f, c) for f in ("tma", "cp.async") for c in
                                                      ("sum", "copy", "tensor", "tma_store")} - {("cp.async", "tma_store")}
    assert {q.stages for q in plains} == {1, 2, 3, 4}
    assert {q.schedule for q in plains} == {"unrolled", "rolled", "ws", "ws-rolled"}
    assert {q.compute for q in plains if q.specialized} == {"tensor", "tma_store"}
    assert {len(q.dtypes) for q in plains} == {1, 2} and {q.warps for q in plains} == {1, 2, 4, 8}
    for specs in (rings, wss, plains):  # trip counts known only at run time (an index argument)
        assert {x.dynamic for x in specs} == {True, False}
    defects = {d for s in rings + wss for d in defects_of(s)}
    assert defects == set(DEFECTS)


def test_cluster_and_split_k_generators_draw_every_form():
    """Over a few hundred seeds the cluster-ring and split-K generators draw every form
    they are meant to fuzz, and every defect of theirs is drawable."""
    from generate_atomic import DEFECTS as SPLIT_K_DEFECTS
    from generate_cluster import DEFECTS as CLUSTER_DEFECTS

    cls = [draw_cluster(random.Random(s)) for s in range(300)]
    assert {(c.cluster, c.group) for c in cls} == {(2, 2), (4, 2), (4, 4)}
    assert {c.strided for c in cls if c.group < c.cluster} == {True, False}
    assert {c.mask(r) for c in cls for r in range(c.cluster)} == {0b11, 0b1100, 0b101, 0b1010, 0b1111}
    assert {c.clusters for c in cls} == {1, 2} and {c.own for c in cls} == {True, False}
    assert {c.stages for c in cls} == {1, 2, 3} and {c.consumers for c in cls} == {1, 2}
    assert {c.empty_wait for c in cls} == {"guard", "parity"} and any(c.trips > c.stages for c in cls)
    assert {c.parts for c in cls} == {"buffers", "tile"} and {c.cluster for c in cls if c.parts == "tile"} == {2, 4}
    assert {c.swizzle for c in cls if c.parts == "tile"} == {0, 32, 64, 128}
    assert {t for c in cls for t in [c.dtype]} == set(ELEMENT_TYPES)
    assert {d for c in cls for d in cluster_defects(c)} == set(CLUSTER_DEFECTS)
    sks = [draw_split_k(random.Random(s)) for s in range(300)]
    assert {s.units for s in sks} == {"tile-major", "split-major", "grid2d", "persistent"}
    assert {(s.release, s.acquire) for s in sks} == {(r, a) for r in ("fence", "order") for a in ("fence", "order")}
    assert {s.flag for s in sks} == {"smem", "gmem"} and {s.reset for s in sks} == {"after-sum", "on-arrival"}
    assert {s.launches for s in sks} == {1, 2} and {s.splits for s in sks} == {2, 3, 4}
    assert {s.access for s in sks} == {"element", "tensor"}
    assert {s.persistent for s in sks if s.units == "persistent"} == {1, 2, 3}
    assert any(s.elements % s.threads for s in sks) and any(s.elements > s.threads for s in sks)
    assert {d for s in sks for d in split_k_defects(s)} == set(SPLIT_K_DEFECTS)


def test_cluster_sum_generator_draws_every_form():
    """Over a few hundred seeds the DSMEM generator (generate_dsmem.py) draws every
    form it is meant to fuzz, and every defect of its is drawable."""
    from generate_dsmem import DEFECTS as DSMEM_DEFECTS
    from generate_dsmem import DTYPES as DSMEM_TYPES

    sums = [draw_dsmem(random.Random(s)) for s in range(300)]
    assert {s.mode for s in sums} == {"split", "all", "root", "push"}
    forms = {(p, f) for p in ("const", "rotated", "kept") for f in ("view-tile", "tile-view")}
    assert {(s.peer, s.form) for s in sums} == forms
    assert {s.cluster for s in sums} == {2, 4} and {s.clusters for s in sums} == {1, 2}
    assert {s.lay for s in sums} == {"rows", "cols"} and {s.rounds for s in sums} == {1, 2, 3}
    assert {s.warps for s in sums} == {1, 2, 4} and {s.double for s in sums} == {True, False}
    assert {s.dtype for s in sums} == set(DSMEM_TYPES) and any(s.part > 1 for s in sums)
    assert {d for s in sums for d in dsmem_defects(s)} == set(DSMEM_DEFECTS)


def test_generator_is_reproducible_and_writes_files(tmp_path):
    """`python -m tests.fuzz.generate --count N --out DIR` (used by
    dev/device/sanitize.sh) writes N parseable programs, the same for the same seed."""
    from generate import main

    a = [random_copy_program(random.Random(7)).text for _ in range(2)]
    assert a[0] == a[1]
    assert main(["--count", "3", "--out", str(tmp_path), "--seed", "5", "--funnel", "2", "--mbarrier", "2",
                 "--cluster", "1", "--atomic", "1", "--dsmem", "1", "--epilogue", "1", "--coarsen", "1"]) == 0
    files = sorted(tmp_path.glob("prog_*.mlir"))
    assert len(files) == 3
    alone = tmp_path / "alone"
    assert main(["--count", "3", "--out", str(alone), "--seed", "5"]) == 0
    assert [f.read_text() for f in files] == [f.read_text() for f in sorted(alone.glob("prog_*.mlir"))]
    files += sorted(tmp_path.glob("funnel_*.mlir"))
    files += sorted(tmp_path.glob("mbarrier_*.mlir"))
    files += sorted(tmp_path.glob("cluster_*.mlir")) + sorted(tmp_path.glob("atomic_*.mlir"))
    files += sorted(tmp_path.glob("dsmem_*.mlir")) + sorted(tmp_path.glob("epilogue_*.mlir"))
    files += sorted(tmp_path.glob("coarsen_*.mlir"))
    assert len(files) == 12
    for f in files:
        out = run_tilec([str(f)])
        assert out.rc == 0, out.describe()


def test_generator_draws_every_element_type_and_both_divisions():
    """The corpus reaches every element type tilec supports (FP8 included) in copies and
    element kernels, and `arith.divf` with and without a reciprocal (`fastmath<arcp>` /
    `fast`) in element kernels: a type or op the generator never draws is never fuzzed."""
    from tilec.compiler.cuda.c_types import SUPPORTED_ELEMENT_TYPES

    assert sorted(ELEMENT_TYPES) == sorted(SUPPORTED_ELEMENT_TYPES.split(", "))
    copies = [random_copy_program(random.Random(s)).summary.split()[0] for s in range(200)]
    assert set(copies) == set(ELEMENT_TYPES)
    texts = [random_element_kernel(random.Random(s)).text for s in range(300)]
    assert {t.split(": ")[1].split()[0] for t in texts} == set(ELEMENT_TYPES)
    divisions = [line for t in texts for line in t.splitlines() if "arith.divf" in line]
    assert any("fastmath<arcp>" in d for d in divisions)
    assert any("fastmath<fast>" in d for d in divisions)
    assert any("fastmath" not in d for d in divisions)
    assert any(": f8E4M3FN" in d for d in divisions) and any(": f8E5M2" in d for d in divisions)


def test_copy_programs_state_true_promises_modulo_their_values():
    """The copy programs' views state `divisible` alone, with `residue` (zeros among them)
    and not at all, and every promise is true of the value `tilec.args` binds (the
    executor refuses a false one): index operand k of a view is `residue[k]` modulo
    `divisible[k]`, as `ViewOp.congruences` reads them. Some pipelines choose the copy's
    strategy first (`copy-strategy`, whose cost model reads the promises), the tile's
    threads then left to the strategy."""
    import tilec
    from tilec.dialects.layout import ViewOp

    forms = set()
    for s in range(40):
        prog = random_copy_program(random.Random(s))
        if prog.pipeline.startswith("copy-strategy,"):
            forms.add("copy-strategy")
            assert "threads=" not in prog.pipeline, prog.pipeline
        if "divisible" not in prog.text:
            forms.add("none")
            continue
        fn = next(op for op in tilec.parse(prog.text).walk() if op.name == "func.func")
        values = {name: attr.value.data for name, attr in fn.attributes["tilec.args"].data.items()}
        names = [arg.name_hint for arg in fn.body.block.args]
        for view in (op for op in fn.walk() if isinstance(op, ViewOp) and op.divisible is not None):
            forms.add("residue" if view.residue is not None else "divisible")
            if view.residue is not None and not any(r for _, r in view.congruences()):
                forms.add("zero residues")
            for operand, (m, r) in zip(view.dynamic, view.congruences()):
                value = values[names[operand.index]]
                assert value % m == r, (s, prog.summary, operand.index, value, m, r)
    assert forms == {"none", "divisible", "residue", "zero residues", "copy-strategy"}
