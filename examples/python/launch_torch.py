"""Compile a transpose and launch it on PyTorch tensors; check it against NumPy exactly.

    python examples/python/launch_torch.py

The same kernel as launch_cupy.py, called on `torch.Tensor`s: a tilec kernel takes
CUDA tensors as they are (no copy, no conversion). The output is filled with NaN
first, so an element the kernel forgets to write cannot pass the check.

Without PyTorch the script says so and stops (exit status 0). Without a GPU it still
compiles the CUDA through NVRTC for sm_90, and runs the GPU-level program on the CPU
reference executor (`tilec.run_reference`, which takes CPU tensors) instead.
"""

import sys

import numpy as np

import tilec

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed (pip install torch to run this example)")
    sys.exit(0)

M, N = 256, 512

program = tilec.Program("transpose")
src = program.pointer("src", "f32", align=16)
dst = program.pointer("dst", "f32", align=16)
program.copy(program.view(src, f"({M},{N}):({N},1)"), program.view(dst, f"({M},{N}):(1,{M})"))

x = torch.from_numpy(np.random.default_rng(0).standard_normal((M, N)).astype(np.float32))
expected = x.numpy().T

if tilec.gpu_available() and torch.cuda.is_available():
    kernel = tilec.compile(program)
    x_gpu = x.cuda()
    y_gpu = torch.full((N, M), float("nan"), dtype=torch.float32, device="cuda")
    kernel(x_gpu, y_gpu)
    torch.cuda.synchronize()
    result = y_gpu.cpu().numpy()
    where = "on the GPU (torch tensors)"
else:
    kernel = tilec.compile(program, arch="sm_90")  # NVRTC works without a GPU
    print(f"no GPU found: compiled {len(kernel.cubin)} bytes of sm_90 cubin with NVRTC, "
          "running on the CPU reference executor instead")
    y = torch.full((N, M), float("nan"), dtype=torch.float32)
    result = tilec.run_reference(kernel, {"src": x, "dst": y})["dst"]
    where = "on the CPU reference executor (torch CPU tensors)"

if not np.array_equal(result, expected):
    wrong = int((result != expected).sum())
    raise SystemExit(f"FAILED: {wrong} of {expected.size} elements differ from NumPy ({where})")
print(f"transpose {M}x{N} float32 {where}: identical to NumPy's x.T")
