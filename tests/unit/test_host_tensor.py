"""tilec.HostTensor: the guides' CPU-side tensors over NumPy arrays, checked against
NumPy indexing of the same memory (CuTe's make_tensor on a host pointer, Mojo's
LayoutTensor on host memory), and against the reference executor's layout.tile /
layout.vectorize / layout.distribute of the same layouts."""

import numpy as np
import pytest

import tilec
from tilec.support.diagnostics import TilecError

HostTensor = tilec.HostTensor


def cute_8x24():
    a = np.arange(8 * 24, dtype=np.float32)
    return a, HostTensor(a, "(8,24)")  # make_tensor(ptr, make_shape(8, 24)): column-major


def test_bare_shape_is_column_major_and_elements_read_and_write_the_array():
    a, A = cute_8x24()
    M = a.reshape(24, 8).T  # M[m, n] = a[m + 8 n]
    assert A.shape == (8, 24)
    np.testing.assert_array_equal(A.numpy(), M)
    assert A[2, 5] == M[2, 5] and A[42] == a[42]  # A(2, 5), A[i] (colexicographic)
    A[2, 5] = -1.0
    assert a[2 + 8 * 5] == -1.0


def test_default_layout_is_the_arrays_own():
    x = np.arange(6 * 10, dtype=np.int32).reshape(6, 10)
    X = HostTensor(x)
    assert str(X.layout) == "(6,10):(10,1)"
    np.testing.assert_array_equal(X.numpy(), x)
    X[4, 7] = 99
    assert x[4, 7] == 99
    f = np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4))
    F = HostTensor(f)
    assert str(F.layout) == "(3,4):(1,3)"
    np.testing.assert_array_equal(F.numpy(), f)


def test_local_tile_is_numpys_block():
    a, A = cute_8x24()
    M = a.reshape(24, 8).T
    for bx in range(2):
        for by in range(3):
            T = A.tile((bx, by), (4, 8))  # local_tile(A, Shape<_4,_8>, (bx, by))
            np.testing.assert_array_equal(T.numpy(), M[4 * bx:4 * bx + 4, 8 * by:8 * by + 8])
    T = A.tile((1, 2), (4, 8))
    before = M.copy()
    T.fill(0.0)  # writes through to the array, and only the tile
    before[4:8, 16:24] = 0
    np.testing.assert_array_equal(M, before)


def test_slices_are_numpys():
    a, A = cute_8x24()
    M = a.reshape(24, 8).T
    np.testing.assert_array_equal(A[:, 5].numpy(), M[:, 5])  # A(_, 5)
    np.testing.assert_array_equal(A[2, :].numpy(), M[2, :])  # A(2, _)
    # the guide's nested slice: A(make_coord(_, 1), make_coord(0, _, 1)) over
    # ((2,3),(2,2,6)):((1,2),(6,12,24)): keeps the 2 of mode 0 and the middle 2 of mode 1
    s = np.arange(24 * 24, dtype=np.float32)
    S = HostTensor(s, "((2,3),(2,2,6)):((1,2),(6,12,24))")
    sub = S[(slice(None), 1), (0, slice(None), 1)]
    assert str(sub.layout) == "(2,2):(1,12)"
    want = [[s[i + 2 + 12 * j + 24] for j in range(2)] for i in range(2)]
    np.testing.assert_array_equal(sub.numpy(), want)


def test_nested_coordinates_by_leaf():
    n = np.arange(16, dtype=np.float32)
    N = HostTensor(n, "((2,2),(2,2)):((1,4),(2,8))")
    assert N[1, 0, 0, 1] == n[1 + 8]  # Mojo nested_tensor[1, 0, 0, 1]
    assert N[(1, 0), (0, 1)] == n[9]  # CuTe A(make_coord(make_coord(1, 0), make_coord(0, 1)))
    assert N[1, 2] == n[1 + 8]  # one index per mode (mode 1's 1-D index 2 = (0, 1))


def test_vectorize_and_distribute_as_mojos_guide_says():
    b = np.arange(16 * 16, dtype=np.float32)
    M = b.reshape(16, 16)
    V = HostTensor(b, "(16,16):(16,1)").vectorize((1, 4))
    assert V.shape == (16, 4)  # 16x4 vectors of 1x4 (docs/seeds.md)
    np.testing.assert_array_equal(V[3, 2], M[3, 8:12])
    np.testing.assert_array_equal(V.numpy(), M.reshape(16, 4, 4))
    for lane in range(32):
        F = V.distribute("(8,4):(4,1)", lane)  # distribute[row_major(8, 4)](lane)
        assert F.shape == (2, 1)
        r, c = divmod(lane, 4)
        np.testing.assert_array_equal(F.numpy()[:, 0], [M[r, 4 * c:4 * c + 4], M[r + 8, 4 * c:4 * c + 4]])
    F = V.distribute("(8,4):(4,1)", 31)
    F[1, 0] = [-1, -2, -3, -4]
    np.testing.assert_array_equal(M[15, 12:16], [-1, -2, -3, -4])


def test_vector_writes_land_on_their_lanes_in_a_padded_matrix():
    """Writing a vector element (`V[r, c] = lanes`) sets exactly that element's lanes,
    also where elements do not start at a multiple of the vector width (rows of 8
    in a pitch of 10, so row r starts at 10 r), and a scalar is broadcast to them."""
    b = np.zeros(6 * 10, dtype=np.float32)
    M = b.reshape(6, 10)
    V = HostTensor(b, "(6,8):(10,1)").vectorize((1, 4))
    assert V.shape == (6, 2)
    want = np.zeros((6, 10), dtype=np.float32)
    for r in range(6):
        for c in range(2):
            V[r, c] = 100 * r + 10 * c + np.arange(1, 5)
            want[r, 4 * c:4 * c + 4] = 100 * r + 10 * c + np.arange(1, 5)
    np.testing.assert_array_equal(M, want)
    V[3, 1] = -7
    want[3, 4:8] = -7
    np.testing.assert_array_equal(M, want)
    np.testing.assert_array_equal(V[3, 1], [-7] * 4)


def test_outer_partition_as_cutes_guide_says():
    a, A = cute_8x24()
    M = a.reshape(24, 8).T
    for t in range(32):  # local_partition(A, (4,8):(1,4), t): rows t%4, t%4+4; cols t/4 + 8k
        F = A.distribute("(4,8):(1,4)", t)
        np.testing.assert_array_equal(F.numpy(), M[t % 4::4, t // 4::8])


def test_layout_arithmetic_is_the_reference_executors():
    """The same tile of the same layout read by a reference-executed kernel
    (layout.tile + layout.read) and by HostTensor."""
    p = tilec.Program("tile_read")
    src = p.pointer("src", "f32")
    dst = p.pointer("dst", "f32")
    A, D = p.view(src, "(8,24)"), p.view(dst, "(32):(1)")
    with p.launch(grid=(1, 1, 1), threads=32) as k:
        T = p.tile(A, (1, 2), (4, 8))
        D[k.tid] = T[k.tid % 4, k.tid // 4]
    a, H = cute_8x24()
    out = tilec.run_reference(p, {"src": a, "dst": np.zeros(32, np.float32)})["dst"]
    T = H.tile((1, 2), (4, 8))
    np.testing.assert_array_equal(out, [T[t % 4, t // 4] for t in range(32)])


def test_print_is_layout_prints_text_with_a_host_pointer():
    x = np.arange(8, dtype=np.int32)
    assert str(HostTensor(x, "(2,4):(4,1)")) == (
        "ptr[32b] o (2,4):(4,1):\n     0      1      2      3\n     4      5      6      7")


def test_errors():
    a, A = cute_8x24()
    with pytest.raises(TilecError, match="out of range for mode 1"):
        A[0, 24]
    with pytest.raises(TilecError, match="does not divide"):
        A.tile((0, 0), (3, 8))
    with pytest.raises(TilecError, match="reaches element"):
        HostTensor(np.zeros(10, np.float32), "(8,24)")
    with pytest.raises(TilecError, match="strided"):
        HostTensor(np.zeros((4, 4), np.float32)[:, ::2], "(4,2)")
    with pytest.raises(TilecError, match="3 indices for a view of rank 2"):
        A[1, 2, 3]
