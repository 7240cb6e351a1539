"""layout.read / layout.write on the CPU reference executor against NumPy: the three
coordinate forms (per mode, linear, per leaf of a nested shape), a vectorized view's
vector element, per-thread coordinates inside a launch; accesses outside a masked
tile's tensor and coordinates outside their mode are errors. (The lowering:
tests/filecheck/lower-to-gpu/element_access.mlir, with equivalence; on a GPU:
tests/gpu/test_element_access_gpu.py.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilec.runtime.reference import ExecutionError, random_inputs, run

LIT = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "element_access.mlir"


def _forms_expected(i):
    a = np.asarray(i["a"]).reshape(-1)
    A = lambda m, n: a[m * 4 + n]  # (8,4):(4,1)
    tid = np.arange(32)
    b = np.asarray(i["b"]).copy()
    b[(tid % 4) * 8 + tid // 4] = A(tid // 4, tid % 4)  # B (4,8):(8,1), B[j, i] = A[i, j]
    c = A(tid % 8, tid // 8)  # A[tid]: colexicographic over (8, 4)
    n = np.asarray(i["n"]).reshape(-1)
    m0, m1, n0, n1 = tid % 2, (tid // 2) % 2, (tid // 4) % 2, tid // 8
    d = n[m0 * 1 + m1 * 4 + n0 * 2 + n1 * 8]  # ((2,2),(2,4)):((1,4),(2,8))
    v = np.asarray(i["v_in"]).reshape(8, 4)
    w = np.asarray(i["w"]).reshape(8, 4).copy()
    w[7 - np.arange(8)] = v  # W[7 - t] = V[t], whole rows of 4
    return {"b": b, "c": c, "d": d, "w": w.reshape(-1)}


def test_the_three_coordinate_forms_and_vector_elements():
    inputs = random_inputs(LIT.read_text(), seed=3, entry="forms")
    out = run(LIT.read_text(), inputs, entry="forms")
    for name, want in _forms_expected(inputs).items():
        np.testing.assert_array_equal(np.asarray(out[name]).reshape(-1), want, err_msg=name)


def test_a_masked_tile_read_and_written_in_place():
    inputs = random_inputs(LIT.read_text(), seed=4, entry="guarded_tile")
    out = run(LIT.read_text(), inputs, entry="guarded_tile")
    np.testing.assert_array_equal(out["t"], np.asarray(inputs["t"]) * np.float32(2))


def _masked_read(coords):
    """Each of 64 threads of block (bx, 0) reads one element of an 8x8 masked tile of a
    30x8 tensor at `coords(tx, ty)` (tx = tid % 8, ty = tid / 8), and keeps it (a
    module built with `tilec.Program`)."""
    import tilec

    p = tilec.Program("f")
    t = p.view(p.pointer("t", "f32", align=None), "(30,8):(8,1)")
    with p.launch(grid=(4, 1, 1), threads=64) as k:
        tile = p.tile(t, [k.bx, k.by], [8, 8])
        tx, ty = p.remui(k.tid, 8), p.divui(k.tid, 8)
        tile[coords(tx, ty)]
    return p.module


def test_reading_past_the_tensor_through_a_masked_tile_is_an_error():
    module = _masked_read(lambda tx, ty: (ty, tx))  # block 3's rows 30, 31 lie outside
    # the first thread that reads outside (ty = 6, tx = 0) and its coordinate are named
    with pytest.raises(ExecutionError, match=r"thread 48 of block 3 reads an element .* lies outside its tensor "
                                             r"\(coordinate \[6, 0\]\)"):
        run(module, random_inputs(module, seed=0))


def test_a_coordinate_outside_its_mode_is_an_error():
    module = _masked_read(lambda tx, ty: (9, tx))
    with pytest.raises(ExecutionError, match="coordinate 9 out of range for mode 0"):
        run(module, random_inputs(module, seed=0))


BLOCK_SHAPE = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "block_shape.mlir"


def test_a_3d_block_gives_each_thread_its_global_coordinates():
    text = BLOCK_SHAPE.read_text()
    out = run(text, random_inputs(text, seed=0))
    x, y, z = np.meshgrid(np.arange(8), np.arange(6), np.arange(2), indexing="ij")
    for name, want in (("xs", x), ("ys", y), ("zs", z)):
        got = np.asarray(out[name]).reshape(2, 6, 8).transpose(2, 1, 0)  # (8,6,2):(1,8,48)
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_vector_elements_of_an_aligned_view_copy():
    inputs = random_inputs(LIT.read_text(), seed=6, entry="vector_element")
    out = run(LIT.read_text(), inputs, entry="vector_element")
    np.testing.assert_array_equal(out["dst"], inputs["src"])


def test_dim_gives_a_partial_tiles_extent():
    text = (Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "dim.mlir").read_text()
    out = run(text, random_inputs(text, seed=0))
    np.testing.assert_array_equal(np.asarray(out["o"]).reshape(4, 2), [[8, 8], [8, 8], [8, 8], [6, 8]])


def test_compile_only_reports_every_kernel_of_a_file_with_several_functions(capsys):
    """`--compile-only` compiles the whole translation unit (a regression: after the
    compiled artifact it asked for a single host function)."""
    pytest.importorskip("cupy")
    from tilec.tools.tilec import main

    rc = main([str(LIT), "-p", "default", "--compile-only", "--arch", "sm_90"])
    out = capsys.readouterr()
    if rc != 0 and "NVRTC" in out.err:
        pytest.skip(f"NVRTC unavailable: {out.err.strip()}")
    assert rc == 0, out.err
    assert "// compiled for sm_90" in out.out
    for kernel in ("forms_kernel", "guarded_tile_kernel", "vector_element_kernel"):
        assert f"// {kernel}:" in out.out


NESTED = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "element_access_nested.mlir"


def test_nested_coordinates_address_as_numpy_does():
    """`%N[(%m0, %m1), (%n0, %n1)]` reads element m0*1 + m1*4 + n0*2 + n1*8 of the
    ((2,2),(2,4)):((1,4),(2,8)) view; `%N[(%m0, %m1), %n]` takes mode 1 by its 1-D index
    and `%N[%m, (%n0, %n1)]` mode 0: the same element, written back in place."""
    inputs = random_inputs(NESTED.read_text(), seed=5)
    n = np.asarray(inputs["n"]).reshape(-1).copy()
    out = run(NESTED.read_text(), inputs)
    tid = np.arange(32)
    m0, m1, n0, n1 = tid % 2, (tid // 2) % 2, (tid // 4) % 2, tid // 8
    np.testing.assert_array_equal(np.asarray(out["d"]).reshape(-1), n[m0 + m1 * 4 + n0 * 2 + n1 * 8])
    np.testing.assert_array_equal(np.asarray(out["n"]).reshape(-1), n)


def test_a_nested_index_outside_its_sub_mode_is_an_error():
    """@nested of element_access_nested.mlir with its first read at `(%m, %m1)`: %m (tid
    mod 4) reaches 2, past the 2 of the sub-mode it indexes."""
    import tilec

    p = tilec.Program("nested")
    nv = p.view(p.pointer("n", "f32", align=None), "((2,2),(2,4)):((1,4),(2,8))").named("N")
    dv = p.view(p.pointer("d", "f32", align=None), "32:1").named("D")
    with p.launch(grid=(1, 1, 1), threads=32) as k:
        m0 = p.remui(k.tid, 2).named("m0")
        q = p.divui(k.tid, 2).named("q")
        m1 = p.remui(q, 2).named("m1")
        m = p.remui(k.tid, 4).named("m")
        nn = p.divui(k.tid, 4).named("nn")
        q2 = p.divui(q, 2).named("q2")
        n0, n1 = p.remui(q2, 2).named("n0"), p.divui(q2, 2).named("n1")
        dv[k.tid] = nv[(m, m1), (n0, n1)].named("z")
        nv[m, (n0, n1)] = nv[(m0, m1), nn].named("y")
    with pytest.raises(ExecutionError, match="index 2 of the nested coordinate is out of range for its sub-mode of 2"):
        run(p.module, random_inputs(p.module, seed=0))


WIDTH = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "element_access_width.mlir"


@pytest.mark.parametrize(("entry", "step"), [("load4", 4), ("load4_unaligned", 3)])
def test_contiguous_elements_at_element_coordinates(entry, step):
    """Mojo's load[4](x, y) / store[4](x, y, v * 2): thread t reads row t // 8 from column
    step * (t % 8), four elements along the row, and writes them doubled."""
    inputs = random_inputs(WIDTH.read_text(), seed=6, entry=entry)
    a = np.asarray(inputs["a"]).reshape(8, 32)
    want = np.asarray(inputs["b"]).reshape(8, 32).copy()
    for t in range(64):
        x, y = t // 8, step * (t % 8)
        want[x, y:y + 4] = a[x, y:y + 4] * np.float32(2)
    out = run(WIDTH.read_text(), inputs, entry=entry)
    np.testing.assert_array_equal(np.asarray(out["b"]).reshape(8, 32), want)


def test_contiguous_elements_past_their_mode_are_an_error():
    """@load4 of element_access_width.mlir with each thread's column one further
    (4 * (t % 8) + 1): thread 7 reads columns 29..32 of a 32-column row."""
    import tilec

    p = tilec.Program("load4")
    a = p.view(p.pointer("a", "f32", align=16), "(8,32):(32,1)").named("A")
    b = p.view(p.pointer("b", "f32", align=16), "(8,32):(32,1)").named("B")
    with p.launch(grid=(1, 1, 1), threads=64) as k:
        x = p.divui(k.tid, 8).named("x")
        y = (p.remui(k.tid, 8).named("j") * 4 + 1).named("y")
        b.store(4, x, y, a.load(4, x, y).named("elements") * 2.0)
    m = p.module
    with pytest.raises(ExecutionError, match="reads 4 contiguous elements from index 29 of mode 1, which has 32"):
        run(m, random_inputs(m, seed=0))


def test_mojo_load_and_store_from_python_compile_to_vector_accesses():
    import tilec
    from helpers.nvrtc import compile_sm90_or_skip
    from tilec.compiler.pipeline import emit, run_pipeline

    p = tilec.Program("load4")
    a = p.view(p.pointer("a", "f32"), "(8,32):(32,1)")
    b = p.view(p.pointer("b", "f32"), "(8,32):(32,1)")
    with p.launch(grid=(1, 1, 1), threads=64) as k:
        x, y = k.tid // 8, (k.tid % 8) * 4
        elements = a.load(4, x, y)
        b.store(4, x, y, elements * 2.0)
    m = p.module
    inputs = random_inputs(m, seed=1)
    want = np.asarray(inputs["a"]) * np.float32(2)
    run_pipeline(m, "default")
    np.testing.assert_array_equal(np.asarray(run(m, inputs)["b"]), want)
    cuda = emit(m, "cuda")
    assert "reinterpret_cast<const f32x4*>(a + " in cuda
    compile_sm90_or_skip(cuda)


def test_element_access_adds_a_tiles_base_whose_bits_overlap_its_offsets():
    """Block b reads and writes the 2x5 tile of rows 2b, 2b+1 of a (6,5):(5,1) tensor:
    the tiles start at elements 0, 10 and 20, whose low bits overlap the in-tile offsets
    0..9, so an element's key is the tile's base plus its offset (not their bitwise or
    exclusive or, which agree with the sum only on aligned tiles)."""
    import tilec

    p = tilec.Program("f")
    a = p.view(p.pointer("a", "f32", align=None), "(6,5):(5,1)")
    b = p.view(p.pointer("b", "f32", align=None), "(6,5):(5,1)")
    with p.launch(grid=(3, 1, 1), threads=10) as k:
        i, j = p.divui(k.tid, 5), p.remui(k.tid, 5)
        p.tile(b, [k.bx, k.by], [2, 5])[i, j] = p.tile(a, [k.bx, k.by], [2, 5])[i, j]
    inputs = random_inputs(p.module, seed=2)
    out = run(p.module, inputs)
    np.testing.assert_array_equal(np.asarray(out["b"]).reshape(-1), np.asarray(inputs["a"]).reshape(-1))
