"""`stash-rereads` on the row kernels of examples/python/row_kernels.py: which two-pass
rows take a shared-memory stash (a row that fits in the target's shared memory per
block), that the results do not change by a bit (CPU reference, against the pipeline
without the pass, and NumPy's within the kernels' tolerance), and that the lowered CUDA
compiles under NVRTC."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).parents[1] / "helpers"))
sys.path.insert(0, str(Path(__file__).parent))
import row_kernels as rk  # noqa: E402
from nvrtc import compile_sm90_or_skip  # noqa: E402
from test_row_kernels import CHUNKED, _inputs  # noqa: E402

from tilec.passes.stash_rereads import SCRATCH  # noqa: E402

NO_STASH = NAMED_PIPELINES["default"].replace("choose-warps,stash-rereads,", "choose-warps{stash_rows=false},")
"""The default pipeline without `stash-rereads` (a two-pass row read twice)."""
STASH = NO_STASH.replace("choose-warps{", "stash-rereads,choose-warps{")
"""`stash-rereads` before `choose-warps`: the loop fill (slower on the H200)."""
BEFORE_WARPS = "chunk-rows,pack-rows,stash-rereads"


def _stash_bytes(program) -> int:
    """The shared bytes the launch allocates after `stash-rereads` (0: no stash)."""
    from tilec.dialects.layout import AllocOp
    from tilec.dialects.layout_attrs import element_bytes

    module = program.module.clone()
    run_pipeline(module, BEFORE_WARPS)
    return sum(a.result.type.cute_layout.cosize() * element_bytes(a.result.type.element_type)
               for a in module.walk() if isinstance(a, AllocOp))


def _same_bits_as_two_reads(program, pipeline: str, args, reference: str = NO_STASH) -> np.ndarray:
    """`program`'s dst on the reference executor after `pipeline`, asserted bit for bit
    (NaNs alike) the dst of the same program read twice from global memory (`reference`,
    by default `NO_STASH`)."""
    outs = {}
    for p in (pipeline, reference):
        lowered = program.module.clone()
        run_pipeline(lowered, p)
        outs[p] = tilec.run_reference(lowered, args)["dst"]
    assert np.array_equal(outs[pipeline], outs[reference], equal_nan=True)
    return outs[pipeline]


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype,stashed", [
    (50257, "f16", 13 * 4096 * 2),  # 13 chunks of 4096: 104 KiB
    (50257, "f32", 13 * 4096 * 4),  # 208 KiB: fits sm_90's 227 KiB
    (131072, "f16", 0),  # 256 KiB: more than a block's 227 KiB
    (131072, "f32", 0),  # 512 KiB
    (16384, "f32", 0),  # one tile, no loop: nothing read twice
])
def test_row_kernels_take_the_stash_where_the_row_fits(name, n, dtype, stashed):
    program = rk.KERNELS[name](n, dtype)
    assert _stash_bytes(program) == stashed


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(5000, "f32"), (2500, "f16")])
def test_stash_changes_no_bit(name, n, dtype):
    """Rows in chunks of 1024 (the last partial): the pipeline with `stash-rereads` gives the
    default (without it) bit for bit, NumPy's within the kernels' tolerance;
    with `max_bytes` below the row's bytes nothing is stashed."""
    m = 3
    program = CHUNKED[name](n, dtype, chunk=1024)
    row = -(-n // 1024) * 1024 * {"f32": 4, "f16": 2}[dtype]
    assert _stash_bytes(program) == row
    small = program.module.clone()
    run_pipeline(small, f"chunk-rows,pack-rows,stash-rereads{{max_bytes={row + SCRATCH - 1}}}")
    assert "layout.alloc" not in emit(small)
    args, want = _inputs(name, m, n, dtype)
    got = _same_bits_as_two_reads(program, STASH, args).reshape(m, n).astype(np.float64)
    tol = {"f32": 2e-5, "f16": 2e-3}[dtype]
    assert np.abs(got - want).max() <= tol * np.abs(want).max()


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(50257, "f16"), (50257, "f32"), (24576, "f32")])
def test_stashed_row_kernels_compile_under_nvrtc(name, n, dtype):
    """The CUDA of a stashed row kernel (a shared array of the row, a __syncthreads
    before the second loop) compiles for sm_90."""
    lowered = rk.KERNELS[name](n, dtype).module.clone()
    run_pipeline(lowered, STASH)
    cuda = emit(lowered, "cuda")
    assert "__shared__" in cuda and "__syncthreads()" in cuda
    compile_sm90_or_skip(cuda)


WINDOW = NAMED_PIPELINES["default"]
"""The default pipeline: `stash-rereads` after `choose-warps`, where the launch's threads are
known, so re-read rows of a row-major view take the window fill (16-byte cp.async chunks of
the row's address-aligned window, before the first loop)."""


def test_the_default_pipeline_stashes_after_choose_warps():
    assert "choose-warps,stash-rereads," in WINDOW and "stash-rereads" not in NO_STASH
AFTER_WARPS = "chunk-rows,pack-rows,choose-warps,stash-rereads"


def _window_stash_bytes(program) -> int:
    from tilec.dialects.layout import AllocOp
    from tilec.dialects.layout_access import CopyChunkAsyncOp
    from tilec.dialects.layout_attrs import element_bytes

    module = program.module.clone()
    run_pipeline(module, AFTER_WARPS)
    if not any(isinstance(o, CopyChunkAsyncOp) for o in module.walk()):
        return 0
    return sum(a.result.type.cute_layout.cosize() * element_bytes(a.result.type.element_type)
               for a in module.walk() if isinstance(a, AllocOp))


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype,stashed", [
    (50257, "f16", 50264 * 2),  # the row and up to 7 elements before it, in 16-byte chunks
    (50257, "f32", 50260 * 4),  # 201040 bytes: fits sm_90's 227 KiB
    (24576, "f16", 24576 * 2),  # rows 16-byte aligned: the stash is the row
    (24578, "f16", 0),  # rows 4-byte aligned: the stash would give narrower loads
    (131072, "f16", 0),  # 256 KiB (its first chunks only with `partial`: measured slower)
    (16384, "f32", 0),  # one tile, no loop
])
def test_row_kernels_take_the_window_stash_where_the_row_fits(name, n, dtype, stashed):
    assert _window_stash_bytes(rk.KERNELS[name](n, dtype)) == stashed


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(5001, "f32"), (2501, "f16"), (5000, "f32"), (2504, "f16")])
@pytest.mark.parametrize("m", [1, 3])
def test_window_stash_changes_no_bit(name, n, dtype, m):
    """Rows of odd length (every row but the first starts off a 16-byte boundary; the last
    row's tail lies past the buffer's last whole 16-byte chunk) and of 16-byte multiples
    (the stash is the row), in chunks of 1024: the window fill gives the default's bits
    (the loads of the stash are as wide as the global loads were, so their layouts and
    the reductions' order are the same), NumPy's within the kernels' tolerance."""
    program = CHUNKED[name](n, dtype, chunk=1024)
    assert _window_stash_bytes(program) > 0
    args, want = _inputs(name, m, n, dtype)
    got = _same_bits_as_two_reads(program, WINDOW, args).reshape(m, n).astype(np.float64)
    tol = {"f32": 2e-5, "f16": 2e-3}[dtype]
    assert np.abs(got - want).max() <= tol * np.abs(want).max()


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(50257, "f16"), (50257, "f32")])
def test_window_stashed_row_kernels_compile_to_cp_async(name, n, dtype):
    """The window fill's CUDA: 16-byte cp.async of the row (the pointer 16-byte aligned,
    the chunk's index a multiple of 16 bytes), one wait, no spills."""
    from nvrtc import sm90_usage_or_skip

    lowered = rk.KERNELS[name](n, dtype).module.clone()
    run_pipeline(lowered, WINDOW)
    cuda = emit(lowered, "cuda")
    assert "tilec_cp_async<16>" in cuda and "tilec_cp_async_wait<0>" in cuda
    usage = sm90_usage_or_skip(cuda)
    assert usage.spill_stores == 0 and usage.spill_loads == 0


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype,max_bytes,held", [
    (5001, "f16", 8000, 2 * 1024 + 8),  # room for 2 of 5 chunks and the window's 16 bytes
    (5001, "f32", 12000, 2 * 1024 + 4),
    (5000, "f32", 12000, 2 * 1024),  # aligned rows: no spare chunk
    (2504, "f16", 5000, 1024),
])
@pytest.mark.parametrize("m", [1, 3])
def test_partial_window_stash_changes_no_bit(name, n, dtype, max_bytes, held, m):
    """`partial`: a row that does not fit in `max_bytes` has its first chunks stashed,
    each loop split in two at them (the stash's trips, then global memory's, a trip
    ahead); bits as the default's, both without `sink-reductions` (sunk, the two halves
    of a split loop are each reduced once: another order of the sum)."""
    from xdsl.dialects import scf

    from tilec.dialects.layout import LaunchOp, LoadOp
    program = CHUNKED[name](n, dtype, chunk=1024)
    pipeline = WINDOW.replace("stash-rereads", f"stash-rereads{{max_bytes={max_bytes} partial=true}}")
    module = program.module.clone()
    run_pipeline(module, f"chunk-rows,pack-rows,choose-warps,stash-rereads{{max_bytes={max_bytes} partial=true}}")
    text = emit(module)
    assert f"cute<(1,{held}):(0,1)>, smem>" in text and "layout.copy_chunk_async" in text
    launch = next(o for o in module.walk() if isinstance(o, LaunchOp))
    loops = [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]
    assert sum(any(isinstance(x, LoadOp) for x in o.walk()) for o in loops) == 4  # each loop as two
    args, _ = _inputs(name, m, n, dtype)
    unsunk = "sink-reductions,"
    _same_bits_as_two_reads(program, pipeline.replace(unsunk, ""), args, NO_STASH.replace(unsunk, ""))


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_window_stash_keeps_the_32_bit_kernel(name, dtype):
    """The window fill's index arithmetic is bounded per row (its chunk count at most the
    window's), so the 32-bit kernel serves as many rows as without the stash
    (`index_limit`: M = 16384 rows of 50257 stay 32-bit)."""
    from tilec.compiler.index_bounds import index_limit

    limits = []
    for pipeline in (WINDOW, NO_STASH):
        lowered = rk.KERNELS[name](50257, dtype).module.clone()
        run_pipeline(lowered, pipeline)
        limits.append(index_limit(lowered))
    assert limits[0] == limits[1] >= 16384


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype,m,pending", [(9001, "f16", 3, 7), (9001, "f16", 1, 7), (5001, "f32", 3, 6),
                                               (9216, "f16", 2, 7)])
def test_window_fill_overlapping_the_first_loop_changes_no_bit(name, n, dtype, m, pending):
    """Rows longer than the groups a wait leaves in flight, in trips of 1024: 9001 f16
    over 128 threads, 8 whole groups of 128 chunks (one a thread), 7 ahead; 5001 f32, 4
    groups of 256 chunks (two a thread), 3 ahead; 9216 f16, aligned rows (no head chunk,
    no rest): the first loop's trips issue the next group and wait for their own, and
    the reference executor, which fails a read of a chunk still being copied, gives the
    two reads' bits."""
    program = CHUNKED[name](n, dtype, chunk=1024)
    module = program.module.clone()
    run_pipeline(module, AFTER_WARPS)
    waits = {int(x) for x in re.findall(r"layout.async_wait \{pending = (\d+)", emit(module))}
    assert waits == {0, pending}
    args, _ = _inputs(name, m, n, dtype)
    _same_bits_as_two_reads(program, WINDOW, args)


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("dtype,pending", [("f16", 7), ("f32", 6)])
def test_window_fill_of_50257_overlaps_the_first_loop(name, dtype, pending):
    """At the users' shape (trips of 4096, 16 warps) the fill is issued in groups of a
    trip: 7 groups (f16, one 16-byte chunk a thread each) or 3 (f32, two) in flight ahead
    of the trip that reads; with `ahead=false` one wait before the first loop."""
    for pipeline, want in ((AFTER_WARPS, {0, pending}),
                           (AFTER_WARPS.replace("stash-rereads", "stash-rereads{ahead=false}"), {0})):
        module = rk.KERNELS[name](50257, dtype).module.clone()
        run_pipeline(module, pipeline)
        assert {int(x) for x in re.findall(r"layout.async_wait \{pending = (\d+)", emit(module))} == want


@pytest.mark.parametrize("name,vectors", [("layer_norm", 2), ("rms_norm", 1), ("softmax", 0)])
def test_weights_are_loaded_a_trip_ahead(name, vectors):
    """The second loop's global loads of a stashed row kernel (layer norm's weight and
    bias, RMSNorm's weight) are issued a trip ahead: trip 0's before the loop, each trip
    loading the next trip's tile into a value the loop carries (its bits checked by the
    tests above); with `ahead=false` they stay in the loop."""
    from xdsl.dialects import scf

    from tilec.dialects.layout import LaunchOp, LoadOp

    for pipeline, before in ((AFTER_WARPS, vectors),
                             (AFTER_WARPS.replace("stash-rereads", "stash-rereads{ahead=false}"), 0)):
        module = rk.KERNELS[name](50257, "f16").module.clone()
        run_pipeline(module, pipeline)
        launch = next(o for o in module.walk() if isinstance(o, LaunchOp))
        top = [o for o in launch.body.block.ops if isinstance(o, LoadOp) and o.view.type.memory_space == "gmem"]
        assert len(top) == before
        second = [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)][-1]
        assert len(second.iter_args) == before


@pytest.mark.parametrize("name", list(CHUNKED))
def test_window_fill_copied_by_some_threads_changes_no_bit(name):
    """Trips of 256 f16 (32 chunks of 16 bytes) over 64 threads: the first 32 copy each
    group, the others none and see the chunks after each trip's barrier; the two reads'
    bits."""
    program = CHUNKED[name](4001, "f16", chunk=256)
    module = program.module.clone()
    run_pipeline(module, AFTER_WARPS)
    text = emit(module)
    assert "threads(64)" in text and "layout.async_wait {pending = 7 : i64}" in text
    args, _ = _inputs(name, 2, 4001, "f16")
    _same_bits_as_two_reads(program, WINDOW, args)
