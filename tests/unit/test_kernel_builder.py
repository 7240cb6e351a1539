"""Kernels built from Python (compiler/kernel_builder.py) in the seeds' own style: the
result is the same program as its IR text (run on the same inputs, the same outputs),
and it goes through the default pipeline to CUDA that NVRTC compiles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import check_equivalence, random_inputs, run
from tilec.support.diagnostics import TilecError

EXAMPLES = Path(__file__).parents[2] / "examples"


def initialize_tensor():
    """Seed 000's first kernel, as examples/mojo_initialize_tensor.mlir writes it."""
    p = tilec.Program("initialize_tensor")
    tensor = p.view(p.pointer("buf", "f32", align=4), "(32,8):(8,1)")
    with p.launch(grid=(4, 4, 1), threads=(8, 8)) as k:
        gx, gy = k.global_idx("x"), k.global_idx("y")
        with p.if_((gx < 32) & (gy < 8)):
            tensor[gx, gy] = tensor[gx, gy] + 1.0
    return p.module


def copy_through_shared():
    """Mojo's copy through shared memory (as examples/mojo_tile_copier.mlir copies its tiles), with an async
    token: 16x16 tiles, one warp per tile, (8,4):(4,1) threads over vectors of 4."""
    p = tilec.Program("copy_async")
    a = p.view(p.pointer("src", "f32"), "(256,256):(256,1)")
    b = p.view(p.pointer("dst", "f32"), "(256,256):(256,1)")
    with p.launch(grid=(16, 16, 1), threads=32) as k:
        ta, tb = p.tile(a, (k.bx, k.by), (16, 16)), p.tile(b, (k.bx, k.by), (16, 16))
        s = p.alloc("(16,16):(16,1)", "f32", "smem")
        fa = p.distribute(p.vectorize(ta, (1, 4)), k.tid, "(8,4):(4,1)")
        fs = p.distribute(p.vectorize(s, (1, 4)), k.tid, "(8,4):(4,1)")
        t = p.copy_async(fa, fs)
        p.async_wait(t)
        p.barrier()
        p.copy(fs, p.distribute(p.vectorize(tb, (1, 4)), k.tid, "(8,4):(4,1)"))
    return p.module


def scaled_rows():
    """A distributed load, arithmetic on the tensor and a store, and a loop."""
    p = tilec.Program("scaled_rows")
    a = p.view(p.pointer("src", "f32"), "(64,64):(64,1)")
    b = p.view(p.pointer("dst", "f32"), "(64,64):(64,1)")
    enc = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
    with p.launch(grid=(2, 2, 1), threads=128) as k:
        ta, tb = p.tile(a, (k.bx, k.by), (32, 32)), p.tile(b, (k.bx, k.by), (32, 32))
        v = p.load(ta, enc)
        p.store(v * v + v, tb)
        p.barrier()  # the diagonal below is rewritten by other threads than stored it
        with p.range(0, 4) as i:
            with p.if_((k.tid < 4) & (i.eq(k.tid))):
                tb[k.tid, i] = ta[k.tid, i] * 3.0
    return p.module


def test_the_seed_kernel_built_in_python_is_its_ir_text():
    built = initialize_tensor()
    text = parse_module((EXAMPLES / "mojo_initialize_tensor.mlir").read_text())
    inputs = random_inputs(text, seed=5)
    np.testing.assert_array_equal(run(built, inputs)["buf"], run(text, inputs)["buf"])
    np.testing.assert_array_equal(run(built, inputs)["buf"], np.asarray(inputs["buf"]) + np.float32(1))


@pytest.mark.parametrize("build", [initialize_tensor, copy_through_shared, scaled_rows])
def test_built_kernels_run_and_compile(build):
    m = build()
    inputs = random_inputs(m, seed=1)
    before = run(m, inputs)
    run_pipeline(m, "default")
    after = run(m, inputs)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])
    assert compile_sm90_or_skip(emit(m, "cuda")).cubin


def test_copy_through_shared_copies_and_scaled_rows_computes():
    m = copy_through_shared()
    inputs = random_inputs(m, seed=2)
    np.testing.assert_array_equal(run(m, inputs)["dst"], inputs["src"])
    m = scaled_rows()
    inputs = random_inputs(m, seed=3)
    x = np.asarray(inputs["src"]).reshape(64, 64)
    want = x * x + x
    for bx in range(2):
        for by in range(2):
            for r in range(4):
                want[bx * 32 + r, by * 32 + r] = x[bx * 32 + r, by * 32 + r] * np.float32(3)
    np.testing.assert_array_equal(run(m, inputs)["dst"].reshape(64, 64), want)


def test_mistakes_are_diagnostics():
    p = tilec.Program("f")
    x = p.index("n")
    with pytest.raises(TilecError, match="only views and buffers are indexed"):
        x[0]
    v = p.view(p.pointer("a", "f32"), "(4,4):(4,1)")
    with pytest.raises(TilecError, match="'/' is not defined on index"):
        x / 2
    with pytest.raises(TilecError, match="3 indices for a view of rank 2"):
        with p.launch() as k:
            v[k.tid, 0, 0]
        p.module


def test_cute_tiled_copy_through_registers_as_the_guide_writes_it():
    """Seed 001: zipped_divide by Tile<Layout<_8,_3>, Layout<_4,_2>>, make_tensor_like of
    a tile in registers, copy in and out: the same results as the example's IR text."""
    p = tilec.Program("tiled_copy_registers")
    gmem = p.view(p.pointer("src", "f32", align=4), "(24,16)")  # make_shape(24, 16)
    out = p.view(p.pointer("dst", "f32", align=4), "(24,16)")
    tiler = ("8:3", "4:2")  # Tile<Layout<_8,_3>, Layout<_4,_2>>
    gmem_tiled, out_tiled = p.divide(gmem, tiler, "zipped"), p.divide(out, tiler, "zipped")
    assert str(gmem_tiled.type.cute_layout) == "((8,4),(3,(2,2))):((3,48),(1,(24,192)))"
    with p.launch(grid=(12, 1, 1), threads=1) as k:
        tile = p.slice(gmem_tiled, ["_", k.bx])
        rmem = p.alloc_like(tile)  # make_tensor_like(gmem_tiled(_, 0))
        assert str(rmem.type.cute_layout) == "((8,4)):((1,8))"  # the guide: // ((_8,_4))
        p.copy(tile, rmem)
        p.copy(rmem, p.slice(out_tiled, ["_", k.bx]))
    text = parse_module((EXAMPLES / "cute_tiled_copy_registers.mlir").read_text())
    inputs = random_inputs(text, seed=4)
    np.testing.assert_array_equal(run(p.module, inputs)["dst"], run(text, inputs)["dst"])


def test_nested_slice_coordinates_as_the_guide_writes_them():
    """Seed 001's slices of A = ((_3,2),(2,_5,_2)):((4,1),(_2,13,100)): a tuple is
    make_coord, and the result has one mode per '_' (the guide's comments)."""
    p = tilec.Program("slices")
    a = p.view(p.pointer("a", "f32"), "((3,2),(2,5,2)):((4,1),(2,13,100))")
    want = {
        (2, "_"): "((2,5,2)):((2,13,100))",
        ("_", 5): "((3,2)):((4,1))",
        (("_", "_"), 5): "(3,2):(4,1)",
        (("_", 1), (0, "_", 1)): "(3,5):(4,13)",
        ((2, "_"), ("_", 3, "_")): "(2,2,2):(1,2,100)",
    }
    for coord, layout_text in want.items():
        assert str(p.slice(a, list(coord)).type.cute_layout) == layout_text
    with pytest.raises(TilecError, match="a coordinate of 2 elements for mode"):
        p.slice(a, ["_", (0, "_")])
    assert "[(_, 1), (0, _, 1)]" in str(p.module)


def test_dim_of_a_partial_tile_as_mojo_asks_it():
    """Mojo's `tile.dim(0)`: the last 32-row tile of 100 rows has 4 rows inside, the
    others 32 (the block whose tile is partial writes 7 at its index, the others 32)."""
    p = tilec.Program("dims")
    a = p.view(p.pointer("a", "f32"), "(100,8):(8,1)")
    out = p.view(p.pointer("out", "f32"), "4:1")
    with p.launch(grid=(4, 1, 1), threads=1) as k:
        n = p.dim(p.tile(a, (k.bx, 0), (32, 8)), 0)
        with p.if_(n < 32):
            out[k.bx] = 7.0
        with p.if_(n >= 32):
            out[k.bx] = 32.0
    inputs = random_inputs(p.module, 0)
    np.testing.assert_array_equal(run(p.module, inputs)["out"], np.float32([32, 32, 32, 7]))


def _same_as_example(p, name: str, seed: int) -> None:
    """The built program computes what examples/NAME computes, on the same inputs."""
    text = parse_module((EXAMPLES / name).read_text())
    inputs = random_inputs(text, seed=seed)
    want, got = run(text, inputs), run(p.module, inputs)
    for buf in want:
        np.testing.assert_array_equal(got[buf], want[buf])


def test_seed_000_copy_from_async_example_from_python():
    """Seed 000's copy_from_async_example as Mojo writes it (with the barrier it lacks)."""
    p = tilec.Program("copy_from_async")
    tensor = p.view(p.pointer("buf", "f32", align=16), "(128,128):(128,1)")
    with p.launch(grid=(8, 8, 1), threads=(16, 16)) as k:
        lane = k.tid % 32
        global_tile = p.tile(tensor, (k.bx, k.by), (16, 16))
        shared_tile = p.alloc("(16,16):(16,1)", "f32", "smem")
        thread_layout = "(8,4):(4,1)"  # row_major(WARP_SIZE // 4, 4)
        global_fragment = p.distribute(p.vectorize(global_tile, (1, 4)), lane, thread_layout)
        shared_fragment = p.distribute(p.vectorize(shared_tile, (1, 4)), lane, thread_layout)
        p.async_wait(p.copy_async(global_fragment, shared_fragment))
        p.barrier()
        gx, gy = k.global_idx("x"), k.global_idx("y")
        with p.if_((gx < 128) & (gy < 128)):
            shared_tile[k.thread_idx("x"), k.thread_idx("y")] = (gx * 128 + gy).cast("f32")
        p.barrier()
        p.copy(shared_fragment, global_fragment)
    _same_as_example(p, "mojo_copy_from_async.mlir", seed=5)


def test_seeds_002_004_tile_copier_example_from_python():
    """The TileTensor guide's tile_copier_example as Mojo writes it."""
    p = tilec.Program("tile_copier")
    tensor = p.view(p.pointer("buf", "f32", align=16), "(128,128):(128,1)")
    with p.launch(grid=(8, 8, 1), threads=(16, 16)) as k:
        lane = k.tid % 32
        global_tile = p.tile(tensor, (k.by, k.bx), (16, 16))
        shared_tile = p.alloc("(16,16):(16,1)", "f32", "smem")
        g = p.distribute(p.vectorize(global_tile, (1, 4)), lane, "(8,4):(4,1)")
        s = p.distribute(p.vectorize(shared_tile, (1, 4)), lane, "(8,4):(4,1)")
        p.async_wait(p.copy_async(g, s))
        p.barrier()
        with p.if_((k.global_idx("y") < 128) & (k.global_idx("x") < 128)):
            ty, tx = k.thread_idx("y"), k.thread_idx("x")
            shared_tile[ty, tx] = shared_tile[ty, tx] + 1.0
        p.barrier()
        p.copy(s, g)
    _same_as_example(p, "mojo_tile_copier.mlir", seed=6)
    run_pipeline(p.module, "default")
    compile_sm90_or_skip(emit(p.module, "cuda"))


def test_mojo_load4_times_two_on_a_vectorized_view():
    """Mojo's `elements = tensor.load[4](x, y); tensor.store(x, y, elements * 2)` on a
    vectorized view: the Python number (and a scalar Value) beside a vector is splat,
    the result matches NumPy on the reference executor, and the CUDA compiles."""
    p = tilec.Program("scale")
    a = p.view(p.pointer("a", "f32"), "(8,4):(4,1)")
    b = p.view(p.pointer("b", "f32"), "(8,4):(4,1)")
    va, vb = p.vectorize(a, (1, 4)), p.vectorize(b, (1, 4))
    with p.launch(grid=(1, 1, 1), threads=8) as k:
        elements = va[k.tid, 0]
        vb[k.tid, 0] = 1.0 + elements * 2.0 - p.constant(0.5, "f32")
    m = p.module
    inputs = random_inputs(m, seed=3)
    x = np.array(inputs["a"]).copy()
    before = m.clone()
    run_pipeline(m, "default")
    assert check_equivalence(before, m, seed=0)
    out = run(m, inputs)
    np.testing.assert_array_equal(np.asarray(out["b"]), (np.float32(1.0) + x * np.float32(2.0)) - np.float32(0.5))
    compile_sm90_or_skip(emit(m, "cuda"))


def test_what_cannot_be_built_is_located_at_the_users_line():
    """A vector times an index, and a write of i32 into an f32 view (refused when the
    module is verified): TilecErrors at this file's lines, not xDSL exceptions."""
    p = tilec.Program("bad")
    a = p.view(p.pointer("a", "f32"), "(8,4):(4,1)")
    va = p.vectorize(a, (1, 4))
    with p.launch(grid=(1, 1, 1), threads=8) as k:
        line = __import__("inspect").currentframe().f_lineno + 2
        with pytest.raises(TilecError) as e:
            va[k.tid, 0] * k.tid
        assert str(e.value).startswith(f"{__file__}:{line}:13: ")  # the column of the expression
        assert "'*' of vector<4xf32> and index" in str(e.value)
        line = __import__("inspect").currentframe().f_lineno + 1
        a[k.tid, 0] = p.constant(1, "i32")
    with pytest.raises(TilecError) as e:
        p.module
    assert str(e.value).startswith(f"{__file__}:{line}:9: ")
    assert "is f32, not i32" in str(e.value)


def test_nested_coordinates_from_python_are_the_ir_texts():
    """`N[(m0, m1), (n0, n1)]` (TileTensor's `Coord(Coord(m0, m1), Coord(n0, n1))`)
    builds tests/filecheck/lower-to-gpu/element_access_nested.mlir: the same outputs."""
    path = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "element_access_nested.mlir"
    p = tilec.Program("nested")
    nv = p.view(p.pointer("n", "f32"), "((2,2),(2,4)):((1,4),(2,8))")
    dv = p.view(p.pointer("d", "f32"), "32:1")
    with p.launch(grid=(1, 1, 1), threads=32) as k:
        t = k.tid
        m0, m1, n0, n1 = t % 2, (t // 2) % 2, (t // 4) % 2, t // 8
        dv[t] = nv[(m0, m1), (n0, n1)]
        nv[t % 4, (n0, n1)] = nv[(m0, m1), t // 4]
    built = p.module
    text = parse_module(path.read_text(), path.name)
    inputs = random_inputs(text, seed=2)
    want = run(text, {k: np.array(v).copy() for k, v in inputs.items()})
    got = run(built, inputs)
    for name in ("n", "d"):
        np.testing.assert_array_equal(got[name], want[name])
    assert "layout.read %" in str(built) and "[(%" in str(built)


def test_unsigned_index_arithmetic_names_and_if_else():
    """`divui` / `remui` / `minui` build the unsigned ops, `ne` a `cmpi ne`, `named`
    the SSA names the IR prints, `if_else` both branches of an `scf.if`, and
    `full(..., dense=True)` one `arith.constant dense`; the program computes, per thread
    t of 64, out[t] = (t / 3) % 4 + min(t, 40) on the even t and -1 on the odd, and a
    dense zero tensor stored adds nothing."""
    p = tilec.Program("unsigned")
    out = p.view(p.pointer("out", "f32", align=4), "(64):(1)")
    zeros = p.view(p.pointer("zeros", "f32", align=16), "(4,32):(32,1)")
    with p.launch(grid=(1, 1, 1), threads=64) as k:
        q = p.remui(p.divui(k.tid, 3), 4).named("q")
        v = (q + p.minui(k.tid, 40)).named("v")
        then, otherwise = p.if_else(p.remui(k.tid, 2).ne(0).named("odd"))
        with then:
            out[k.tid] = -1.0
        with otherwise:
            out[k.tid] = v.cast("f32")
        z = p.full([4, 32], 0.0, "f32", tilec.BlockedLayout([1, 1], [1, 32], [2, 1], [1, 0]), dense=True)
        p.store(z.named("z"), zeros)
    text = str(p.module)
    for line in ("%q = arith.remui", "arith.divui %tid", "%v = arith.addi %q", "arith.minui %tid",
                 "%odd = arith.cmpi ne", "} else {", "%z = arith.constant dense<0.000000e+00>"):
        assert line in text, line
    outs = run(p.module, {"out": np.zeros(64, np.float32), "zeros": np.ones(128, np.float32)})
    t = np.arange(64)
    want = np.where(t % 2 == 1, -1.0, (t // 3) % 4 + np.minimum(t, 40)).astype(np.float32)
    assert np.array_equal(outs["out"], want)
    assert np.array_equal(outs["zeros"], np.zeros(128, np.float32))
    run_pipeline(p.module, "default")
    assert compile_sm90_or_skip(emit(p.module, "cuda")).cubin


def test_a_verifier_message_is_its_first_line_with_the_reason_after_a_colon():
    """`verify_message` gives xDSL's first line (without its "Operation does not verify"
    prefix), joined with the next line's reason where the first ends in ':' (an expected
    attribute rewritten as 'expected X, got Y'); later lines (the op's text) are dropped."""
    from tilec.compiler.messages import verify_message

    text = "Operation does not verify: bad layout\n  (the op as xDSL prints it)\n  more"
    assert verify_message(text) == "bad layout"
    text = "Operation does not verify: operand 'x':\nExpected attribute i32 but got i64\n  (the op)"
    assert verify_message(text) == "operand 'x': expected i32, got i64"
    assert verify_message("\n  one line only  \n") == "one line only"
