"""Write a kernel in Python the way Mojo's LayoutTensor guide writes its first one, run it.

Seed 000's `initialize_tensor_from_cpu_example`: a 32x8 float32 tensor incremented in
place, one thread per element, `tensor[x, y] = tensor[x, y] + 1` under a bounds check,
8x8 blocks on a 4x4 grid. `with p.launch(...)` opens the kernel; indexing a view reads
or writes one element; Python operators build the index arithmetic.

    python examples/python/build_kernel.py     # the IR, the CUDA, and a run (GPU if any, else CPU)
"""

import numpy as np

import tilec

p = tilec.Program("initialize_tensor")
tensor = p.view(p.pointer("buf", "f32", align=4), "(32,8):(8,1)")
with p.launch(grid=(4, 4, 1), threads=(8, 8)) as k:  # grid_dim=(4, 4), block_dim=(8, 8)
    gx, gy = k.global_idx("x"), k.global_idx("y")  # global_idx.x, global_idx.y
    with p.if_((gx < 32) & (gy < 8)):
        tensor[gx, gy] = tensor[gx, gy] + 1.0

print("// The kernel as IR:")
print(tilec.emit(p))
kernel = tilec.compile(p, arch="sm_90")
print("// The CUDA C++:")
print(kernel.source)

host = np.arange(32 * 8, dtype=np.float32)
if tilec.gpu_available():
    import cupy as cp

    buf = cp.asarray(host)
    kernel(buf)
    got, where = cp.asnumpy(buf), "on the GPU"
else:
    got, where = tilec.run_reference(p, {"buf": host})["buf"], "on the CPU reference executor"
print(f"{where}: {'Success' if np.array_equal(got, host + 1) else 'FAILED'}")
