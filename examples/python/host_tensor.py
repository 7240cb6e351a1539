"""The guides' CPU-side tensors in tilec: a layout over a NumPy array, no GPU needed.

CuTe's Tensor guide makes a tensor over a host pointer (`make_tensor(ptr,
make_shape(8, 24))`), tiles it (`local_tile`), slices it (`A(_, 5)`) and partitions it
over threads (`local_partition`); Mojo's LayoutTensor guide builds a `LayoutTensor`
over host memory, `vectorize`s and `distribute`s it. `tilec.HostTensor` does the same
on a NumPy array with tilec's layout arithmetic (the reference executor's): every view
shares the array's memory, and `print` is `layout.print`'s (CuTe's print_tensor).

    python examples/python/host_tensor.py
"""

import numpy as np

import tilec

# CuTe: float* ptr = ...; Tensor A = make_tensor(ptr, make_shape(8, 24));  (column-major)
a = np.arange(8 * 24, dtype=np.float32)
A = tilec.HostTensor(a, "(8,24)")
print(A.tile((0, 0), (4, 8)))  # print_tensor(local_tile(A, Shape<_4,_8>{}, make_coord(0, 0)))
assert A[2, 5] == a[2 + 8 * 5]  # A(2, 5)

# local_tile, then write through it: the array changes
T = A.tile((1, 2), (4, 8))  # rows 4..7, columns 16..23
T[0, 0] = -1.0
assert a[4 + 8 * 16] == -1.0

# slices: A(_, 5) is column 5, A(2, _) row 2
np.testing.assert_array_equal(A[:, 5].numpy(), a.reshape(24, 8).T[:, 5])
np.testing.assert_array_equal(A[2, :].numpy(), a.reshape(24, 8).T[2, :])

# local_partition(A, Layout<Shape<_4,_8>>{}, 9): thread 9 owns rows 1, 5 and columns 2, 10, 18
F = A.distribute("(4,8):(1,4)", 9)
np.testing.assert_array_equal(F.numpy(), a.reshape(24, 8).T[1::4, 2::8])

# Mojo: a 16x16 row-major LayoutTensor, vectorize[1, 4]() and distribute[row_major(8, 4)](lane)
b = np.arange(16 * 16, dtype=np.float32)
tile = tilec.HostTensor(b, "(16,16):(16,1)")
fragment = tile.vectorize((1, 4)).distribute("(8,4):(4,1)", 5)
print(fragment)  # lane 5: rows 1 and 9, the second vector of 4 of each
np.testing.assert_array_equal(fragment.numpy()[:, 0], [b[20:24], b[148:152]])

# a NumPy array's own layout: rows of 10 int32
x = np.arange(60, dtype=np.int32).reshape(6, 10)
X = tilec.HostTensor(x)
X.tile((1, 1), (3, 5)).fill(0)
assert (x[3:6, 5:10] == 0).all() and x[0, 0] == 0 and x[0, 1] == 1
print(X)
print("Success")
