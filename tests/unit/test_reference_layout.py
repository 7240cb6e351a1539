"""The CPU reference executor on the layout dialect: whole-tensor copies, block tiles,
thread fragments, distributed values; planted bugs reported; passes checked with
`assert_pass_preserves`."""

from __future__ import annotations

import inspect
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for helpers

from helpers.equivalence import assert_pass_preserves, parse  # noqa: E402

import tilec  # noqa: E402

from tilec.runtime.reference import (  # noqa: E402
    ExecutionError,
    check_equivalence,
    random_inputs,
    run,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_module(m, seed: int = 0, **kw):
    inputs = random_inputs(m, seed, **kw)
    return inputs, run(m, inputs)


def expect_error(m, *fragments: str, **kw) -> ExecutionError:
    inputs = random_inputs(m, 0, **kw)
    with pytest.raises(ExecutionError) as info:
        run(m, inputs)
    for f in fragments:
        assert f in str(info.value), str(info.value)
    return info.value


HERE = __file__
LINES: dict[str, int] = {}
"""The line of this file that builds an op a test's error names (filled as built)."""


def lineno() -> int:
    """The caller's line."""
    return inspect.currentframe().f_back.f_lineno  # type: ignore[union-attr]


# ------------------------------------------------------------------ whole-tensor level


def transpose_64(dst_layout: str = "(64,64):(1,64)"):
    """A whole-tensor copy of a row-major 64x64 into `dst_layout` (column-major: a transpose)."""
    p = tilec.Program("transpose")
    a = p.view(p.pointer("src", "f32", align=16), "(64,64):(64,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=16), dst_layout).named("b")
    p.copy(a, b)
    return p.module


def test_whole_tensor_transpose():
    inputs, out = run_module(transpose_64())
    assert inputs["src"].shape == (4096,)
    assert np.isnan(inputs["dst"]).all()  # output poisoned
    assert np.array_equal(out["dst"], inputs["src"].reshape(64, 64).T.reshape(-1))


def test_strided_rows_buffer_sizes_come_from_the_views():
    m = parse((EXAMPLES / "strided_rows.mlir").read_text())
    inputs = random_inputs(m, 0)
    assert inputs["src"].shape == (511 * 1024 + 512,)  # cosize of (512,512):(1024,1)
    assert inputs["dst"].shape == (512 * 512,)
    out = run(m, inputs)
    src = np.concatenate([inputs["src"], np.zeros(512, np.float32)]).reshape(512, 1024)
    assert np.array_equal(out["dst"].reshape(512, 512), src[:, :512])


def dynamic():
    """A (?,?) copy in 4x4 tiles (masked at the edges) of a (gx, gy) grid: m = 5, n = 7,
    gx = gy = 2 from the tilec.args attribute."""
    p = tilec.Program("copy")
    src, dst = p.pointer("src", "f32", align=None), p.pointer("dst", "f32", align=None)
    m, n, gx, gy = p.index("m", 5), p.index("n", 7), p.index("gx", 2), p.index("gy", 2)
    a = p.view(src, "(?,?):(?,1)", dynamic=[m, n, n]).named("a")
    b = p.view(dst, "(?,?):(?,1)", dynamic=[m, n, n]).named("b")
    with p.launch(grid=(gx, gy, 1), threads=32) as k:
        p.copy(p.tile(a, [k.bx, k.by], [4, 4]), p.tile(b, [k.bx, k.by], [4, 4]))
    return p.module


def test_dynamic_extents_are_bound_from_arguments():
    inputs, out = run_module(dynamic())
    assert inputs["src"].shape == (35,) and (inputs["m"], inputs["n"]) == (5, 7)
    assert np.array_equal(out["dst"], inputs["src"])
    inputs, out = run_module(dynamic(), args={"m": 3, "n": 2, "gx": 1, "gy": 1})
    assert inputs["src"].shape == (6,)
    assert np.array_equal(out["dst"], inputs["src"])


def test_a_grid_too_small_leaves_elements_unwritten():
    m = dynamic()
    inputs = random_inputs(m, 0, args={"gy": 1})
    out = run(m, inputs)
    dst = out["dst"].reshape(5, 7)
    assert np.array_equal(dst[:, :4], inputs["src"].reshape(5, 7)[:, :4])
    assert np.isnan(dst[:, 4:]).all()  # still the poison


def test_copy_to_a_view_that_repeats_an_address_is_ambiguous():
    p = tilec.Program("f")
    a = p.view(p.pointer("src", "f32", align=None), "(4,4):(4,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=None), "(4,4):(0,1)").named("b")
    p.copy(a, b)
    expect_error(p.module, "maps two elements to element", "the result would depend on the order")


# each block copies its 4x4 tile of src into its own 4 elements of dst, through a
# view whose rows all map to those 4 (stride 0): legal only where the rows are equal
def repeating_tiles():
    """src (2,4,4):(16,4,1) to dst (2,4,4):(4,0,1), block bx copying tile [bx, 0, 0] of
    1x4x4 (32 threads, 2 blocks)."""
    p = tilec.Program("f")
    a = p.view(p.pointer("src", "f32", align=None), "(2,4,4):(16,4,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=None), "(2,4,4):(4,0,1)").named("b")
    with p.launch(grid=(2, 1, 1), threads=32) as k:
        ta = p.tile(a, [k.bx, 0, 0], [1, 4, 4]).named("ta")
        tb = p.tile(b, [k.bx, 0, 0], [1, 4, 4]).named("tb")
        p.copy(ta, tb)
    return p.module


@pytest.mark.parametrize("conflicting", [0, 1])
def test_a_repeated_address_is_checked_in_every_block(conflicting):
    """Blocks whose tiles repeat an address: a block that writes equal values to it is
    fine, and one that writes different values is reported, whichever block it is."""
    m = repeating_tiles()
    src = np.tile(np.arange(4, dtype=np.float32), 8)  # every tile's rows equal
    out = run(m, {"src": src, "dst": np.zeros(8, np.float32)})
    np.testing.assert_array_equal(out["dst"], np.tile(np.arange(4, dtype=np.float32), 2))
    src[16 * conflicting + 9] = -1  # row 2 of one block's tile
    with pytest.raises(ExecutionError, match=f"maps two elements to element {4 * conflicting + 1} of %dst"):
        run(m, {"src": src, "dst": np.zeros(8, np.float32)})


# ------------------------------------------------------------------------- block level


def stage(blocks_x: int = 8):
    """32x64 tiles of a 256x256 copied through shared memory by `blocks_x` x 4 blocks
    (8 cover it; more reach past the tensor)."""
    p = tilec.Program("stage")
    a = p.view(p.pointer("p", "f32", align=None), "(256,256):(256,1)").named("a")
    b = p.view(p.pointer("q", "f32", align=None), "(256,256):(256,1)").named("b")
    with p.launch(grid=(blocks_x, 4, 1), threads=128) as k:
        LINES["tile a"] = lineno() + 1
        ta = p.tile(a, [k.bx, k.by], [32, 64]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [32, 64]).named("tb")
        s = p.alloc("(32,64):(64,1)", "f32", "smem").named("s")
        p.copy(ta, s)
        p.copy(s, tb)
    return p.module


def test_block_level_copies_are_redundant_and_race_free():
    # Every thread copies the whole tile in and out: no barrier is needed, as each
    # thread reads what it (also) wrote.
    inputs, out = run_module(stage())
    assert np.array_equal(out["q"], inputs["p"])


def test_tile_coordinate_out_of_range():
    e = expect_error(stage(blocks_x=9), "tile coordinate 8 of mode 0 is out of range")
    assert e.location.startswith(f"{HERE}:{LINES['tile a']}:")


BLOCKED = tilec.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])


def masked(align: int = 16):
    """64x64 tiles of an m x 64 tensor (m = 100, gx = 2 blocks from tilec.args),
    loaded and stored in 16-byte vectors; the edge tile is masked."""
    p = tilec.Program("masked")
    src, dst = p.pointer("src", "f32", align=align), p.pointer("dst", "f32", align=align)
    m, gx = p.index("m", 100), p.index("gx", 2)
    a = p.view(src, "(?,64):(64,1)", dynamic=[m]).named("a")
    b = p.view(dst, "(?,64):(64,1)", dynamic=[m]).named("b")
    with p.launch(grid=(gx, 1, 1), threads=128) as k:
        ta = p.tile(a, [k.bx, 0], [64, 64]).named("ta")
        tb = p.tile(b, [k.bx, 0], [64, 64]).named("tb")
        p.store(p.load(ta, BLOCKED, vector=4).named("v"), tb, vector=4)
    return p.module


def test_masked_edge_tiles():
    inputs, out = run_module(masked())
    assert inputs["src"].shape == (6400,)
    assert np.array_equal(out["dst"], inputs["src"])


def test_masked_tile_exactly_full():
    inputs, out = run_module(masked(), args={"m": 128, "gx": 2})
    assert np.array_equal(out["dst"], inputs["src"])


# ------------------------------------------------------------------------ thread level

THREADS = "(8,32):(32,1)"


def mojo(align: int = 16, threads: int = 256):
    """Mojo's copy: 32x128 tiles of a 512x512, vectorised by 4 along rows and distributed
    over (8,32) threads (256; a launch of more threads reaches past the thread layout)."""
    p = tilec.Program("mojo_copy")
    a = p.view(p.pointer("src", "f32", align=align), "(512,512):(512,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=align), "(512,512):(512,1)").named("b")
    with p.launch(grid=(16, 4, 1), threads=threads) as k:
        ta = p.tile(a, [k.bx, k.by], [32, 128]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [32, 128]).named("tb")
        va, vb = p.vectorize(ta, [1, 4]).named("va"), p.vectorize(tb, [1, 4]).named("vb")
        fa = p.distribute(va, k.tid, THREADS).named("fa")
        fb = p.distribute(vb, k.tid, THREADS).named("fb")
        p.copy(fa, fb)
    return p.module


def test_distribute_and_vectorize():
    inputs, out = run_module(mojo())
    assert np.array_equal(out["dst"], inputs["src"])


def test_vector_access_needs_an_aligned_pointer():
    expect_error(masked(align=4), "16-byte vector access of %src, whose start is aligned to only 4 bytes")


def test_copy_of_vectors_from_an_unaligned_pointer_is_done_element_wise():
    inputs, out = run_module(mojo(align=4))
    assert np.array_equal(out["dst"], inputs["src"])


def test_copy_async_needs_aligned_vectors():
    expect_error(copy_async(align=4), "whose start is aligned to only 4 bytes")


def test_thread_id_beyond_the_thread_layout():
    expect_error(mojo(threads=512), "thread id 256 is not below the 256 threads")


def copy_async(reverse: bool = False, wait: bool = True, barrier: bool = True, align: int = 16):
    """Mojo's copy through shared memory: each thread's fragment in by cp.async
    (`layout.copy_async`), waited (`wait`), a barrier (`barrier`), and out; `reverse`:
    thread t writes back the fragment thread 255 - t copied in."""
    p = tilec.Program("cp_async")
    a = p.view(p.pointer("src", "f32", align=align), "(512,512):(512,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=align), "(512,512):(512,1)").named("b")
    with p.launch(grid=(16, 4, 1), threads=256) as k:
        s = p.alloc("(32,128):(128,1)", "f32", "smem").named("s")
        reader = (255 - k.tid).named("other") if reverse else k.tid
        ta = p.tile(a, [k.bx, k.by], [32, 128]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [32, 128]).named("tb")
        va, vb = p.vectorize(ta, [1, 4]).named("va"), p.vectorize(tb, [1, 4]).named("vb")
        vs = p.vectorize(s, [1, 4]).named("vs")
        fa = p.distribute(va, k.tid, THREADS).named("fa")
        fb = p.distribute(vb, reader, THREADS).named("fb")
        fs = p.distribute(vs, k.tid, THREADS).named("fs")
        p.copy_async(fa, fs, token=False)
        if wait:
            p.async_wait(pending=0)
        if barrier:
            p.barrier()
        p.copy(p.distribute(vs, reader, THREADS).named("gs"), fb)
    return p.module


def test_copy_async():
    inputs, out = run_module(copy_async())
    assert np.array_equal(out["dst"], inputs["src"])


def test_copy_async_read_before_wait():
    expect_error(copy_async(wait=False), "while a cp.async is still writing it")


def test_copy_async_read_by_another_thread_needs_a_barrier():
    # Thread t writes back (to its place) the fragment that thread 255 - t copied in.
    expect_error(copy_async(reverse=True, barrier=False), "data race on shared memory", "no barrier in between")
    inputs, out = run_module(copy_async(reverse=True))
    assert np.array_equal(out["dst"], inputs["src"])


# ------------------------------------------------------------------ distributed values

IN = tilec.BlockedLayout([1, 1], [1, 32], [8, 1], [1, 0])
OUT = tilec.BlockedLayout([1, 1], [32, 1], [1, 8], [0, 1])


def in_out(n: int = 256, barrier: bool = True, convert: bool = False, load_vector: bool = False):
    """An n x n transpose in 32x32 tiles: loaded in IN (a row per warp), stored to a
    shared tile, a barrier (`barrier`), loaded in OUT (a column per warp) and stored to
    the column-major dst. `convert`: 2x the tile, moved from IN to OUT by
    `convert_layout` instead of shared memory. `load_vector`: loaded in OUT with 4-wide
    vectors (the registers are not contiguous)."""
    p = tilec.Program("transpose")
    a = p.view(p.pointer("src", "f32", align=16), f"({n},{n}):({n},1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=16), f"({n},{n}):(1,{n})").named("b")
    with p.launch(grid=(n // 32, n // 32, 1), threads=256) as k:
        ta = p.tile(a, [k.bx, k.by], [32, 32]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [32, 32]).named("tb")
        if convert:
            v = p.load(ta, IN).named("v")
            w = p.convert_layout((v * 2.0).named("x"), OUT).named("w")
        else:
            s = p.alloc("(32,32):(33,1)", "f32", "smem").named("s")
            v = p.load(ta, OUT, vector=4) if load_vector else p.load(ta, IN)
            p.store(v.named("v"), s)
            if barrier:
                p.barrier()
            LINES["load s"] = lineno() + 1
            w = p.load(s, OUT).named("w")
        p.store(w, tb)
    return p.module


def test_thread_level_transpose_through_shared_memory():
    inputs, out = run_module(in_out())
    assert np.array_equal(out["dst"], inputs["src"].reshape(256, 256).T.reshape(-1))


def test_thread_level_transpose_performance():
    """256x256 f32 transpose at the thread level: 64 blocks of 256 threads, 4 elements
    per thread, through shared memory with a barrier (target: < 2 s)."""
    m = in_out()
    inputs = random_inputs(m, 0)
    run(m, inputs)  # warm-up: caches of layout evaluations
    start = time.perf_counter()
    out = run(m, inputs)
    elapsed = time.perf_counter() - start
    print(f"\nreference executor: layout-level 256x256 transpose (64 blocks x 256 threads) in {elapsed:.3f} s")
    assert np.array_equal(out["dst"], inputs["src"].reshape(256, 256).T.reshape(-1))
    assert elapsed < 4.0


def test_missing_barrier_between_layouts_is_a_race():
    e = expect_error(in_out(barrier=False), "data race on shared memory", "%s[", "no barrier in between")
    assert e.location.startswith(f"{HERE}:{LINES['load s']}:")


def test_convert_layout_and_elementwise():
    inputs, out = run_module(in_out(convert=True))
    assert np.array_equal(out["dst"], (2 * inputs["src"]).reshape(256, 256).T.reshape(-1))


def test_vector_of_non_contiguous_registers():
    # OUT holds a column per thread: registers are 256 elements apart in the tile.
    expect_error(in_out(load_vector=True), "not contiguous vector access")


def rowsum(kind: str):
    """The `kind` reduction of each row of a 16x32 tile (one block)."""
    bl = tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    p = tilec.Program("rowsum")
    a = p.view(p.pointer("src", "f32", align=16), "(16,32):(32,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=16), "16:1").named("b")
    with p.launch(grid=(1, 1, 1), threads=128):
        v = p.load(a, bl, vector=4).named("v")
        p.store(p.reduce(v, 1, kind).named("s"), b)
    return p.module


@pytest.mark.parametrize("kind", ["add", "max", "min", "mul"])
def test_reduce(kind):
    inputs, out = run_module(rowsum(kind))
    x = inputs["src"].reshape(16, 32).astype(np.float64)
    want = {"add": x.sum(1), "max": x.max(1), "min": x.min(1), "mul": x.prod(1)}[kind]
    np.testing.assert_allclose(out["dst"], want, rtol=1e-4, atol=1e-6)


def test_reduce_order_is_the_gpu_order():
    # Registers of a thread first (in order), then a butterfly over the lane bits.
    inputs, out = run_module(rowsum("add"))
    x = inputs["src"].reshape(16, 32, order="C")
    # lane bits along dim 1 are bits 2..4 of the column (threadsPerWarp[1] = 8)
    part = x.reshape(16, 8, 4)
    acc = part[:, :, 0]
    for r in range(1, 4):
        acc = acc + part[:, :, r]
    for bit in (1, 2, 4):
        idx = np.arange(8) ^ bit
        acc = acc + acc[:, idx]
    assert np.array_equal(out["dst"], acc[:, 0])


# --------------------------------------------------------------- equivalence of passes


@pytest.mark.parametrize(
    "example", ["transpose.mlir", "strided_rows.mlir", "gluon_memcpy_2d.mlir", "gluon_in_out_layouts.mlir"]
)
@pytest.mark.parametrize("pipeline", ["tile", "tile,distribute", "tile,distribute,vectorize"])
def test_passes_preserve_the_examples(example, pipeline):
    text = (EXAMPLES / example).read_text()
    assert_pass_preserves(text, pipeline, seeds=(0,))


def test_assert_pass_preserves_catches_a_wrong_transformation():
    def wrong_pass(module):
        # "Simplify" the destination view to row-major: no longer a transpose.
        return transpose_64(dst_layout="(64,64):(64,1)")

    with pytest.raises(AssertionError, match="buffer %dst differs at flat index 1:"):
        assert_pass_preserves(transpose_64(), wrong_pass)


def test_assert_pass_preserves_returns_the_transformed_module():
    after = assert_pass_preserves(stage(), "distribute", seeds=(0, 1))
    assert "layout.distribute" in str(after) and "layout.barrier" in str(after)


def test_check_equivalence_across_levels():
    assert check_equivalence(transpose_64(), in_out(n=64), seed=3)


# ------------------------------------------------------------------- the other view ops


def test_divide_and_slice():
    p = tilec.Program("views")
    src, dst, row = (p.pointer(n, "f32", align=None) for n in ("src", "dst", "row"))
    a = p.view(src, "(64,64):(64,1)").named("a")
    p.copy(p.divide(a, (4, 8), "zipped").named("z"), p.view(dst, "4096:1").named("b"))
    r = p.slice(a, [p.constant(5).named("c5"), "_"]).named("r")
    p.copy(r, p.view(row, "64:1").named("o"))
    inputs, out = run_module(p.module)
    src = inputs["src"]
    want = src.reshape(16, 4, 8, 8).transpose(2, 0, 3, 1).reshape(-1)  # (tc, tr, c0, r0)
    assert np.array_equal(out["dst"], want)
    assert np.array_equal(out["row"], src[5 * 64 : 6 * 64])


def test_nested_slice_coordinates_as_cute():
    """CuTe's slicing examples (Tensor guide): A = ((3,2),(2,5,2)):((4,1),(2,13,100)).
    Each element by hand from the guide's strides: E = A(make_coord(_,1),
    make_coord(0,_,1)) is (3,5):(4,13) at offset 1*1 + 1*100; F = A(make_coord(2,_),
    make_coord(_,3,_)) is (2,2,2):(1,2,100) at offset 2*4 + 3*13; B = A(2,_) at offset
    2*4 (the linear index 2 of mode (3,2) is (2,0))."""
    p = tilec.Program("slices")
    src, de, df, db = (p.pointer(n, "f32", align=None) for n in ("src", "de", "df", "db"))
    a = p.view(src, "((3,2),(2,5,2)):((4,1),(2,13,100))").named("a")
    e = p.slice(a, [("_", 1), (0, "_", 1)]).named("e")
    f = p.slice(a, [(2, "_"), ("_", 3, "_")]).named("f")
    bb = p.slice(a, [2, "_"]).named("b")
    assert str(e.type) == "!layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>"
    assert str(f.type) == "!layout.tensor<f32, #layout.cute<(2,2,2):(1,2,100)>, gmem>"
    assert str(bb.type) == "!layout.tensor<f32, #layout.cute<((2,5,2)):((2,13,100))>, gmem>"
    p.copy(e, p.view(de, "(3,5):(1,3)").named("oe"))
    p.copy(f, p.view(df, "(2,2,2):(1,2,4)").named("of"))
    p.copy(bb, p.view(db, "((2,5,2)):((1,2,10))").named("ob"))
    inputs, out = run_module(p.module)
    src = inputs["src"]
    e = [src[101 + 4 * i + 13 * j] for j in range(5) for i in range(3)]
    f = [src[8 + 39 + a + 2 * b + 100 * c] for c in range(2) for b in range(2) for a in range(2)]
    bb = [src[8 + 2 * a + 13 * b + 100 * c] for c in range(2) for b in range(5) for a in range(2)]
    assert np.array_equal(out["de"], np.array(e, dtype=src.dtype))
    assert np.array_equal(out["df"], np.array(f, dtype=src.dtype))
    assert np.array_equal(out["db"], np.array(bb, dtype=src.dtype))


def test_partition():
    p = tilec.Program("partition")
    a = p.view(p.pointer("src", "f32", align=None), "128:1").named("a")
    b = p.view(p.pointer("dst", "f32", align=None), "128:1").named("b")
    with p.launch(grid=(1, 1, 1), threads=32) as k:
        part = p.partition(a, k.tid, "(32,4):(1,32)").named("p")
        q = p.partition(b, k.tid, "(32,4):(4,1)").named("q")
        assert str(part.type) == "!layout.tensor<f32, #layout.cute<4:32>, gmem>"
        p.copy(part, q)
    inputs, out = run_module(p.module)
    # thread t, value v: dst[4t + v] = src[t + 32v]
    assert np.array_equal(out["dst"], inputs["src"].reshape(4, 32).T.reshape(-1))


def test_arange_expand_dims_broadcast():
    blocked = tilec.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    p = tilec.Program("iota")
    d = p.view(p.pointer("dst", "i32", align=None), "(32,16):(16,1)").named("d")
    with p.launch(grid=(1, 1, 1), threads=128):
        r = p.arange(0, 16, tilec.SliceLayout(0, blocked)).named("r")
        p.store(p.broadcast(p.expand_dims(r, 0).named("e"), [32, 16]).named("bc"), d)
    inputs, out = run_module(p.module)
    sentinel = inputs["dst"][0]
    assert sentinel not in range(16)  # poisoned before the run
    assert np.array_equal(out["dst"].reshape(32, 16), np.tile(np.arange(16, dtype=np.int32), (32, 1)))


def test_every_op_of_the_dialects_has_an_implementation():
    from tilec.dialects.cuda import Cuda
    from tilec.dialects.layout import Layout
    from tilec.runtime.reference.api import _functions

    implemented = set()
    for fns in _functions():
        implemented |= {op for op, _ in fns._impls()}
    missing = [op.name for d in (Layout, Cuda) for op in d.operations if op not in implemented]
    assert not missing, f"the reference executor cannot run {missing}"
