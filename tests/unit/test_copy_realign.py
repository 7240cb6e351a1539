"""The realign strategy as `tilec.copy_` reaches it, without a GPU: which copies the
plan states the realign facts for (pointers aligned down, moved by their misalignments)
and the `copy-strategy` pass takes, the key and arguments, and the program (the
whole-tensor program and the compiled kernel) on the CPU reference executor against
NumPy, bit for bit, the bytes around dst untouched (poisoned): every shift of src
against dst, heads and tails, rows shorter than 16 bytes, outer modes with carries and
broadcasts, 64-bit offsets; a property test over random row copies. (The strategy
itself: passes/_realign_tile.py, tests/unit/test_realign_strategy.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import copy_choice
from helpers.operands import operand
from hypothesis import given, settings
from hypothesis import strategies as st

from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.copy_routes import forced_routes
from tilec.copy_program import copy_program
from tilec.passes import _realign_tile


@pytest.fixture
def always(routes):
    routes(realign="always")


def _aligned(n: int, dtype, fill=None, rng=None) -> np.ndarray:
    """`n` elements of `dtype` whose data starts 16-byte aligned (as GPU allocations)."""
    e = np.dtype(dtype).itemsize
    raw = np.empty(n * e + 64, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start : start + n * e].view(dtype)
    if rng is not None:
        a[...] = rng.integers(-100, 100, size=n)
    else:
        a[...] = fill
    return a


def _rows(base, off, rows, n, pitch):
    e = base.itemsize
    return np.lib.stride_tricks.as_strided(base[off:], (rows, n), (pitch * e, e))


def _check(dst_base, dst, src, compiled, kernels):
    want = dst_base.copy()
    np.lib.stride_tricks.as_strided(
        want[(dst.ctypes.data - dst_base.ctypes.data) // dst.itemsize :], dst.shape, dst.strides
    )[...] = src
    copy_numpy(dst, src, compiled=compiled, kernels=kernels)
    assert np.array_equal(dst_base, want), (dst.shape, dst.strides, src.strides)


def test_key_and_arguments(always):
    # rows of 100 bytes, src at byte 5 with a pitch of 203, dst at byte 3 flat
    plan = plan_copy(operand((11, 100), dtype="int8", ptr=4099), operand((11, 100), (203, 1), dtype="int8", ptr=8197))
    key = plan.key
    assert key.aligned_pointers and key.index_bits == 32 and key.src_align == key.dst_align == 16
    assert plan.src_ptr == 8192 and plan.dst_ptr == 4096
    assert plan.extra == (5, 3) and plan.args == (11, 100, 203, 100, 5, 3)
    text = copy_program(key)
    assert text.count("layout.addptr") == 2 and "funnel_shift" not in text  # facts only; the pass decides
    assert copy_choice(plan) == ("realign", None, _realign_tile.REALIGN_THREADS)
    # shapes, pitches and misalignments of one pattern share the key
    other = plan_copy(operand((7, 3001), (3010, 1), dtype="int8", ptr=4106), operand((7, 3001), dtype="int8", ptr=8193))
    assert other.key == key
    # int64 rows of 5 at a pitch of 10 (46): misalignments in elements, 8-byte chunks
    p46 = plan_copy(
        operand((999, 5), (10, 1), dtype="int64", ptr=4096 + 176), operand((999, 5), dtype="int64", ptr=8192)
    )
    assert p46.extra == (0, 0) and p46.key.aligned_pointers and p46.key.small_extents[-1] == 8


def test_chunks_per_row():
    # 40-byte rows at a pitch of 80 from an aligned dst: 3 chunks
    assert _realign_tile.chunks_per_row(5, 8, 0, 16, 16) == 3
    # rows of 7775 bytes at a pitch of 7776 (04): every row starts 1 byte in
    assert _realign_tile.chunks_per_row(7775, 1, 1, 16, 16) == 486
    # at a pitch of 7777: a row may start at any byte of a chunk
    assert _realign_tile.chunks_per_row(7775, 1, 1, 1, 16) == -(-(15 + 7775) // 16)
    assert _realign_tile.chunks_per_row(3, 1, 15, 16, 16) == 2
    # 8-byte chunks: rows of 5 int64 at any 8-byte start span 5
    assert _realign_tile.chunks_per_row(5, 8, 1, 8, 8) == 5 == _realign_tile.chunks_per_row(5, 8, 0, 8, 8)


def test_not_stated():
    # a conversion, a transposed row, a 1-mode copy, aligned rows: no realign facts
    assert not plan_copy(operand((9, 100), (101, 1), dtype="int16"), operand((9, 100), dtype="float16")).key.aligned_pointers
    assert not plan_copy(operand((9, 100), (101, 1), dtype="int16"), operand((9, 100), (1, 9), dtype="int16")).key.aligned_pointers
    assert not plan_copy(operand((100,), dtype="int8", ptr=1), operand((100,), dtype="int8", ptr=2)).key.aligned_pointers
    assert not plan_copy(operand((9, 100), (112, 1), dtype="int8"), operand((9, 100), (128, 1), dtype="int8")).key.aligned_pointers
    # an element-misaligned pointer cannot be stated as an aligned one plus elements
    assert not plan_copy(operand((9, 100), (101, 1), dtype="int16", ptr=1), operand((9, 100), dtype="int16")).key.aligned_pointers
    with forced_routes(realign="never"):
        assert not plan_copy(operand((9, 100), (101, 1), dtype="int8"), operand((9, 100), dtype="int8")).key.aligned_pointers


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("compiled", [False, True])
def test_every_shift_head_tail_and_short_row(always, dtype, compiled, nvrtc_available):
    """Rows of 37 elements from every src offset of a 16-byte chunk into every dst offset
    (every shift, head and tail; compiled: dst at 0 and v - 1), shorter rows (a chunk's
    elements and fewer, one more, two chunks and 3) from every src offset into dst at 0
    and v - 1 (every shift; heads at a chunk's two ends), rows at pitches that move each
    row's offsets."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(21)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    v = 16 // np.dtype(dtype).itemsize
    base = _aligned(4096, dtype, rng=rng)
    out = _aligned(4096, dtype, fill=77)
    lengths = (1, 2, v - 1, v + 1, 2 * v + 3, 37) if not compiled else (2, v + 1, 37)
    for n in sorted({max(2, x) for x in lengths}):
        for so in range(v):
            for do in range(v) if not compiled and n == 37 else (0, v - 1):
                out[...] = 77
                src = _rows(base, so, 5, n, n + 1 + so % 3)
                dst = _rows(out, do, 5, n, n + 2 + do % 2)
                _check(out, dst, src, compiled, kernels)
    if compiled:
        assert all(k.aligned_pointers and k.index_bits == 32 for k in kernels._entries)


@pytest.mark.parametrize("compiled", [False, True])
def test_outer_modes_broadcasts_and_64_bit_offsets(always, monkeypatch, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(4)
    for limit in (_realign_tile.INDEX32_LIMIT, 100):
        monkeypatch.setattr(_realign_tile, "INDEX32_LIMIT", limit)
        kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
        for dtype in ("int8", "int16"):
            e = np.dtype(dtype).itemsize
            base = _aligned(8192, dtype, rng=rng)
            out = _aligned(8192, dtype, fill=77)
            # (3, 5, 7, 31) contiguous -> rows of 31 at a pitch of 33, outer pitches padded (04, 16, 34)
            src = base[: 3 * 5 * 7 * 31].reshape(3, 5, 7, 31)
            st_ = (5 * 8 * 33 + 3, 8 * 33, 33, 1)
            dst = np.lib.stride_tricks.as_strided(out[3:], src.shape, tuple(s * e for s in st_))
            _check(out, dst, src, compiled, kernels)
            # a row broadcast along an outer mode, rows at odd offsets into padded rows
            row = np.lib.stride_tricks.as_strided(base[7:], (4, 3, 45), (0, 47 * e, e))
            dst = np.lib.stride_tricks.as_strided(out[1:], (4, 3, 45), (3 * 46 * e, 46 * e, e))
            out[...] = 77
            _check(out, dst, row, compiled, kernels)
        if compiled:
            assert {(k.aligned_pointers, k.index_bits) for k in kernels._entries} == {(True, 32 if limit > 100 else 64)}


@settings(max_examples=40, deadline=None)
@given(
    e=st.sampled_from([1, 2, 4, 8]),
    rows=st.integers(1, 6),
    n=st.integers(2, 70),
    so=st.integers(0, 15),
    do=st.integers(0, 15),
    spad=st.integers(0, 20),
    dpad=st.integers(0, 20),
)
def test_random_row_copies_match_numpy(e, rows, n, so, do, spad, dpad):
    """Any rows, pads and element offsets: the whole program against NumPy, with the
    bytes around dst poisoned."""
    with forced_routes(realign="always"):
        dtype = f"int{8 * e}"
        rng = np.random.default_rng(n * 31 + so)
        base = _aligned(2048, dtype, rng=rng)
        out = _aligned(2048, dtype, fill=77)
        so, do = so % (16 // e), do % (16 // e)
        src = _rows(base, so, rows, n, n + spad)
        dst = _rows(out, do, rows, n, n + dpad)
        _check(out, dst, src, False, None)


def test_index_bits_count_offsets_chunks_and_a_block():
    """32-bit offsets where every offset from the aligned pointers (two vectors to
    spare), every flat chunk index and a block past the end fit; the plan promises them
    (`tilec.index_bits = 32`) and the pass reads the promise."""
    # reach = the src stride + 8 (the row) + 4 * 2 (two vectors of 2 elements)
    near = plan_copy(operand((2, 9), (11, 1), dtype="int64", ptr=8), operand((2, 9), (2**31 - 17, 1), dtype="int64"))
    far = plan_copy(operand((2, 9), (11, 1), dtype="int64", ptr=8), operand((2, 9), (2**31 - 16, 1), dtype="int64"))
    assert near.key.aligned_pointers and far.key.aligned_pointers
    assert (near.key.index_bits, far.key.index_bits) == (32, 64)
    assert "tilec.index_bits = 32" in copy_program(near.key)
    assert "tilec.index_bits" not in copy_program(far.key)


@pytest.mark.parametrize("dtype,name", [("float16", None), ("uint16", "bfloat16"), ("float32", None),
                                        ("float64", None), ("bool", None)])
def test_float_and_bool_rows_compiled(dtype, name, nvrtc_available):
    """Rows of floats (bfloat16 as its bits) and bools: the compiled kernel (the
    pointer tensors, the funnel shift and the vectors of the element type) against
    NumPy, bytes compared, the bytes around dst poisoned."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(8)
    kernels = CopyKernels(arch="sm_90", disk=False)
    base = _aligned(4096, dtype, rng=rng)
    out = _aligned(4096, dtype, fill=0)
    e = base.itemsize
    src = np.lib.stride_tricks.as_strided(base[3:], (5, 37), (41 * e, e))
    dst = np.lib.stride_tricks.as_strided(out[1:], (5, 37), (39 * e, e))
    want = out.copy()
    np.lib.stride_tricks.as_strided(want[1:], (5, 37), (39 * e, e))[...] = src
    copy_numpy(dst, src, compiled=True, kernels=kernels, src_dtype=name, dst_dtype=name)
    assert np.array_equal(out.view(np.uint8), want.view(np.uint8))
    assert [k.aligned_pointers for k in kernels._entries] == [True]


@pytest.mark.parametrize("chunks,prefetch", [(2, 0), (4, 0), (None, 1), (2, 1)])
def test_chunks_per_thread_and_prefetch_options_compiled(always, chunks, prefetch, nvrtc_available):
    """The `tile` pass's `realign_chunks=C` (C chunks a thread, f, f + threads, ...) and
    `realign_prefetch=1` (`layout.ptr_prefetch` of the chunks of sectors a row covers in
    part): the compiled kernel against NumPy, the bytes around dst poisoned, rows of
    16-byte chunks (int16) and of 8-byte ones (int64 rows of 5 at a pitch of 10, as 46)."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.compiler.pipeline import expand_pipeline

    opts = f"threads=64 realign_prefetch={prefetch}" + (f" realign_chunks={chunks}" if chunks else "")
    pipeline = ",".join(f"tile{{{opts}}}" if p == "tile" else p for p in expand_pipeline("default").split(","))
    kernels = CopyKernels(arch="sm_90", disk=False, pipeline=pipeline)
    rng = np.random.default_rng(chunks)
    for dtype, n, pitch, rows in (("int16", 37, 40, 50), ("int64", 5, 10, 90)):
        base = _aligned(8192, dtype, rng=rng)
        out = _aligned(8192, dtype, fill=77)
        src = _rows(base, 1, rows, n, n)
        dst = _rows(out, 3, rows, n, pitch)
        _check(out, dst, src, True, kernels)
    assert all(k.aligned_pointers for k in kernels._entries)
    cuda = [str(e.kernel.source) for e in kernels._entries.values()]
    assert len(cuda) == 2 and all(("prefetch.global.L2" in c) == bool(prefetch) for c in cuda)


@pytest.mark.parametrize("mode", [2, 3, 4, 5])
def test_prefetch_a_wave_ahead_inside_the_destination(always, monkeypatch, mode):
    """`realign_prefetch=2`: each thread asks L2 for the sector of the chunk a wave on
    (`_realign_tile.prefetch_ahead`, made 96 chunks here so that it falls inside the
    copy), a block of the first wave for its own; the executor of the kernel's GPU-level
    code checks that every chunk
    asked for lies inside the destination (as a load's) and the copy against NumPy, the
    bytes around dst poisoned, rows of 16-byte chunks (int16, int32 as 34) and of 8-byte
    ones (int64 rows of 5 at a pitch of 10, as 46). `realign_prefetch=3` (the sectors by
    bulk prefetches of 16 bytes), `=4` (bulk, each row's first and last chunks only) and
    `=5` (as 4, after the source loads) likewise, in the CUDA too."""
    from tilec.compiler.pipeline import expand_pipeline

    monkeypatch.setattr(_realign_tile, "prefetch_ahead", lambda target, threads, rows: 96)
    opts = f"threads=64 realign_prefetch={mode}"
    pipeline = ",".join(f"tile{{{opts}}}" if p == "tile" else p for p in expand_pipeline("default").split(","))
    kernels = CopyKernels(arch="sm_90", disk=False, pipeline=pipeline)
    rng = np.random.default_rng(2)
    for dtype, n, pitch, rows in (("int16", 37, 40, 50), ("int32", 56, 59, 30), ("int64", 5, 10, 90)):
        base = _aligned(8192, dtype, rng=rng)
        out = _aligned(8192, dtype, fill=77)
        src = _rows(base, 1, rows, n, n)
        dst = _rows(out, 3, rows, n, pitch)
        _check(out, dst, src, True, kernels)
    assert all(k.aligned_pointers for k in kernels._entries)
    if mode in (3, 4, 5):
        assert all("cp.async.bulk.prefetch.L2" in str(e.kernel.source) for e in kernels._entries.values())


@pytest.mark.parametrize("mode", [4, 5])
def test_prefetch_ends_asks_each_row_first_and_last_chunk(always, monkeypatch, mode):
    """`realign_prefetch=4` (and 5, the same asks after the source loads): the mask of `layout.ptr_prefetch` holds for a row's first
    chunk and for its last chunk unless the next row starts inside that (whose first
    chunk asks), and no other: the kernel's GPU-level code on the executor with the
    prefetches recorded (int32 rows of 56 at a pitch of 59, as 34: 15 chunks a row at
    most, two asks a row; int16 rows of 37 at 38: some tails shared)."""
    from tilec.compiler.pipeline import expand_pipeline
    from tilec.runtime.reference import cuda_impls
    from tilec.runtime.reference.executor import _grid
    from tilec.runtime.reference.memory_impls import thread_indices

    asked: list[int] = []
    line = cuda_impls.CudaFunctions._line_prefetch

    def record(interp, op, args):
        grid = _grid(interp, op)
        tids = grid.active_tids()
        asked.extend(int(x) for x in np.broadcast_to(thread_indices(grid, tids, (args[1],))[0], tids.shape))
        return line(interp, op, args)

    monkeypatch.setattr(cuda_impls.CudaFunctions, "_line_prefetch", staticmethod(record))
    pipeline = ",".join(f"tile{{threads=64 realign_prefetch={mode}}}" if p == "tile" else p
                        for p in expand_pipeline("default").split(","))
    kernels = CopyKernels(arch="sm_90", disk=False, pipeline=pipeline)
    for dtype, rows, n, pitch, dmis, v in (("int32", 30, 56, 59, 3, 4), ("int16", 50, 37, 38, 3, 8)):
        asked.clear()
        base = _aligned(8192, dtype, rng=np.random.default_rng(4))
        out = _aligned(8192, dtype, fill=77)
        _check(out, _rows(out, dmis, rows, n, pitch), _rows(base, 1, rows, n, n), True, kernels)
        want = []
        for r in range(rows):
            d = dmis + r * pitch
            head, tail = d // v * v, (d + n - 1) // v * v
            want.append(head)
            if tail != head and not (r < rows - 1 and tail <= d + pitch < tail + v):
                want.append(tail)
        assert sorted(asked) == sorted(want)
    assert len(want) < 2 * rows  # int16 rows of 37 at 38: some tails shared with the next row's head


@pytest.mark.parametrize("chunk,mode", [(None, 6), (16, 6), (16, 7)])
def test_prefetch_edges_asks_each_row_first_and_last_element(always, monkeypatch, chunk, mode):
    """`realign_prefetch=6`: bulk prefetches at each row's first element (`edge` 0) and its
    last (`edge` = the element's bytes), by the threads of the row's first and last chunks,
    and no other; the real-address test is the CUDA's (`if ((address + edge) & 31)`). The
    kernel's GPU-level code on the executor with the prefetches recorded: int64 rows of 5 at
    a pitch of 10 (46) in 8-byte and 16-byte chunks (`realign_bytes`), int16 rows of 37 at
    38 (a row's tail and the next row's head in one sector). `realign_prefetch=7`: one
    `row` ask a row at its first element (the executor checks its last too)."""
    from tilec.compiler.pipeline import expand_pipeline
    from tilec.runtime.reference import cuda_impls
    from tilec.runtime.reference.executor import _grid
    from tilec.runtime.reference.memory_impls import thread_indices

    asked: list[int] = []
    line = cuda_impls.CudaFunctions._line_prefetch

    def record(interp, op, args):
        grid = _grid(interp, op)
        tids = grid.active_tids()
        asked.extend(int(x) for x in np.broadcast_to(thread_indices(grid, tids, (args[1],))[0], tids.shape))
        return line(interp, op, args)

    monkeypatch.setattr(cuda_impls.CudaFunctions, "_line_prefetch", staticmethod(record))
    opts = f"threads=64 realign_prefetch={mode}" + (f" realign_bytes={chunk}" if chunk else "")
    pipeline = ",".join(f"tile{{{opts}}}" if p == "tile" else p for p in expand_pipeline("default").split(","))
    kernels = CopyKernels(arch="sm_90", disk=False, pipeline=pipeline)
    for dtype, rows, n, pitch, dmis in (("int64", 40, 5, 10, 2), ("int16", 30, 37, 38, 3)):
        asked.clear()
        base = _aligned(4096, dtype, rng=np.random.default_rng(6))
        out = _aligned(4096, dtype, fill=77)
        _check(out, _rows(out, dmis, rows, n, pitch), _rows(base, 1, rows, n, n), True, kernels)
        mis = dmis % (16 // base.itemsize)  # offsets from the aligned-down pointer
        want = [mis + r * pitch + k for r in range(rows) for k in ((0, n - 1) if mode == 6 else (0,))]
        assert sorted(asked) == sorted(want)
    cuda = [str(e.kernel.source) for e in kernels._entries.values()]
    form = "& 31ull)" if mode == 6 else "tilec_prefetch_row(dst"
    assert all(form in c and "cp.async.bulk.prefetch.L2" in c for c in cuda)


@pytest.mark.parametrize("div32", [1, 0])
def test_div32_realign_exact(always, div32):
    """`div32=1` (the default, `_realign_tile.REALIGN_DIV32`) on a realign copy of 32-bit
    offsets: the chunk index divided by run-time extents (the chunks a row, the outer
    extents) as 32-bit multiply-highs (`_gather_tile.divmod32`); `div32=0` as 64-bit
    products; the compiled kernel on the executor against NumPy, the bytes around dst
    poisoned, three modes whose extents are powers of two and not."""
    from tilec.compiler.pipeline import expand_pipeline

    pipeline = ",".join(f"tile{{threads=64 div32={div32}}}" if p == "tile" else p
                        for p in expand_pipeline("default").split(","))
    kernels = CopyKernels(arch="sm_90", disk=False, pipeline=pipeline)
    rng = np.random.default_rng(5)
    for dtype, outer, n, pitch in (("int32", (3, 7), 56, 59), ("int16", (4, 5), 37, 40), ("int8", (2, 8), 100, 101)):
        base = _aligned(8192, dtype, rng=rng)
        out = _aligned(8192, dtype, fill=77)
        e = base.itemsize
        rows = outer[0] * outer[1]
        src = np.lib.stride_tricks.as_strided(base[1:], (*outer, n), (outer[1] * n * e, n * e, e))
        dst = np.lib.stride_tricks.as_strided(out[3:], (*outer, n), ((outer[1] * pitch + 5) * e, pitch * e, e))
        assert rows * pitch + 5 * outer[0] + 3 < 8192
        _check(out, dst, src, True, kernels)
    assert kernels._entries and all(k.aligned_pointers and k.index_bits == 32 for k in kernels._entries)
    assert all(("__umulhi" in str(e.kernel.source)) == bool(div32) for e in kernels._entries.values())


@pytest.mark.parametrize("dtype,n,pitch,late", [("int32", 56, 59, True), ("int16", 56, 59, True),
                                                ("int64", 60, 63, True), ("int32", 8, 9, False),
                                                ("int8", 24, 27, False), ("int16", 254, 256, True),
                                                ("int8", 200, 203, False), ("int16", 300, 303, False),
                                                ("int64", 5, 10, True), ("int64", 3, 5, False)])
def test_prefetch_rule_takes_the_late_ends_for_rows_known_128_to_512_bytes(dtype, n, pitch, late):
    """`_realign_tile.prefetch_rule`: rows whose bound spans `ENDS_ROW_BYTES` (128-512
    bytes) take `realign_prefetch=5` (the ends' bulk prefetches after the loads), rows of
    8-byte elements known to span 40-512 bytes 6 (the real partial sectors' bulk prefetches,
    `EDGES_ROW_BYTES`: int64 rows of 60, and of 5 as 46, class 8), others mode 1; copy_'s
    realign key states the rows' class where it picks 5 or 6 (the strided set's 34: int32
    rows of 56, class 64, 256 bytes; 16: int16 rows of 254, class 256,
    `copy_key.REALIGN_ROW_CLASS`), not for rows of unknown length (int8 rows of 200, int16
    rows of 300) nor short ones (int32 8: 32 bytes; int64 rows of 3, class 4: 32 bytes)."""
    from tilec.copy_plan import Operand

    e = np.dtype(dtype).itemsize
    plan = plan_copy(Operand((1 << 40) + e, dtype, (4096, n), (pitch, 1)), Operand(1 << 20, dtype, (4096, n), (n, 1)))
    assert plan.key.aligned_pointers
    assert (plan.key.small_extents[-1] is not None) == (late or e == 8 and n <= 64)
    source = str(CopyKernels(arch="sm_90", disk=False).get(plan.key).kernel.source)
    assert ("cp.async.bulk.prefetch.L2" in source) == late and "prefetch.global.L2" in source


@pytest.mark.parametrize("bound,e,want", [(None, 4, (1, None)), (32, 4, (5, None)), (64, 4, (5, None)),
                                          (128, 4, (5, 2)), (256, 4, (5, 2)), (512, 4, (1, None)),
                                          (64, 2, (5, None)), (128, 2, (5, None)), (256, 2, (5, 2)),
                                          (512, 2, (5, 2)), (128, 1, (5, None)), (256, 1, (5, None)),
                                          (512, 1, (5, None)), (1024, 1, (1, None)), (64, 8, (6, None)),
                                          (16, 4, (1, None)), (8, 8, (6, None)), (5, 8, (6, None)),
                                          (4, 8, (1, None)), (65, 8, (1, None))])
def test_row_rule_by_rows_bytes_and_element_size(bound, e, want):
    """`_realign_tile.row_rule`: the real partial sectors (6) for rows of 8-byte elements known
    to span 40-512 bytes (`EDGES_ROW_BYTES`), the ends late (5) for other rows known to span
    128-512 bytes (`ENDS_ROW_BYTES`), and with 2 chunks a thread for 2- and 4-byte elements
    over 256 up to 1024 bytes (`ENDS_PAIR_BYTES`); mode 1 and the default chunks otherwise."""
    assert _realign_tile.row_rule(bound, e) == want


@pytest.mark.parametrize("dtype,n,cls", [("int16", 65, 128), ("int16", 128, 128), ("int16", 129, 256),
                                         ("int16", 254, 256), ("float32", 120, 128), ("int32", 250, 256),
                                         ("int32", 257, None), ("int8", 200, None), ("int64", 100, None),
                                         ("int16", 30, None), ("int32", 56, 64)])
@pytest.mark.parametrize("longest", [None, 64])
def test_realign_key_classes_rows_up_to_256_elements(dtype, n, cls, longest):
    """copy_'s realign key states the class of rows of 2- and 4-byte elements up to
    `copy_key.REALIGN_ROW_CLASS` (256) elements where `row_rule` reads it (128 and 256
    past `SMALL_EXTENT`; int16 rows of 30, class 32, 64 bytes, read by no rule, stay unstated);
    the `realign_rows` route of 64 keeps main's key (classes up to `SMALL_EXTENT`)."""
    from tilec.copy_plan import Operand

    e = np.dtype(dtype).itemsize
    with forced_routes(realign_rows=longest):
        plan = plan_copy(Operand((1 << 40) + e, dtype, (4096, n), (n + 3, 1)),
                         Operand(1 << 20, dtype, (4096, n), (n, 1)))
    assert plan.key.aligned_pointers
    assert plan.key.small_extents[-1] == (cls if longest is None or (cls or 0) <= 64 else None)


def test_classed_rows_take_the_ends_and_two_chunks_exact(always):
    """The default kernels of rows classed 128 and 256 (int16 rows of 200: 400 bytes, the
    ends late and 2 chunks a thread; int16 rows of 100: 200 bytes, the ends late, 1 chunk;
    int32 rows of 130 at two misalignments): the compiled kernel on the executor against
    NumPy, the bytes around dst poisoned, rows shifted differently along an outer mode."""
    kernels = CopyKernels(arch="sm_90", disk=False)
    rng = np.random.default_rng(45)
    for dtype, rows, n, pitch, dmis in (("int16", 9, 200, 203, 3), ("int16", 9, 100, 101, 5),
                                        ("int32", 7, 130, 133, 1), ("int32", 7, 130, 135, 0)):
        base = _aligned(4096, dtype, rng=rng)
        out = _aligned(4096, dtype, fill=77)
        _check(out, _rows(out, dmis, rows, n, pitch), _rows(base, 1, rows, n, n), True, kernels)
    classes = {k.small_extents[-1] for k in kernels._entries if k.aligned_pointers}
    assert classes == {128, 256}
    sources = [str(e.kernel.source) for e in kernels._entries.values()]
    assert all("cp.async.bulk.prefetch.L2" in s for s in sources)
