"""Compile a transpose and launch it on CuPy arrays; check it against NumPy exactly.

    python examples/python/launch_cupy.py

`tilec.compile` runs the default pipeline (tile, distribute, vectorize, conversions
through shared memory, lower to GPU) and NVRTC; the returned kernel is called like a
function on device arrays, which it checks (dtype, size, alignment) before launching.
The output is filled with NaN first, so an element the kernel forgets to write cannot
pass the check.

Without a GPU (or without CuPy's driver) the script still compiles the CUDA through
NVRTC for sm_90, and runs the very same GPU-level program on the CPU reference
executor (`tilec.run_reference`) instead of the GPU, and says so.
"""

import numpy as np

import tilec

M, N = 256, 512

program = tilec.Program("transpose")
src = program.pointer("src", "f32", align=16)
dst = program.pointer("dst", "f32", align=16)
# Element (i, j) of src (row-major M x N) goes to element (i, j) of a column-major
# view of dst, i.e. dst[j][i] of the row-major N x M buffer.
program.copy(program.view(src, f"({M},{N}):({N},1)"), program.view(dst, f"({M},{N}):(1,{M})"))

x = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
expected = x.T

if tilec.gpu_available():
    import cupy as cp

    kernel = tilec.compile(program)  # NVRTC compiles for this GPU on the first call
    x_gpu = cp.asarray(x)
    y_gpu = cp.full((N, M), cp.nan, dtype=cp.float32)
    kernel(x_gpu, y_gpu)
    result = cp.asnumpy(y_gpu)
    where = "on the GPU"
else:
    kernel = tilec.compile(program, arch="sm_90")  # NVRTC works without a GPU
    print(f"no GPU found: compiled {len(kernel.cubin)} bytes of sm_90 cubin with NVRTC, "
          "running on the CPU reference executor instead")
    y = np.full((N, M), np.nan, dtype=np.float32)
    result = tilec.run_reference(kernel, {"src": x, "dst": y})["dst"]
    where = "on the CPU reference executor"

if not np.array_equal(result, expected):
    wrong = int((result != expected).sum())
    raise SystemExit(f"FAILED: {wrong} of {expected.size} elements differ from NumPy ({where})")
print(f"transpose {M}x{N} float32 {where}: identical to NumPy's x.T")
