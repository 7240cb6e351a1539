"""A first @tilec.jit kernel: y = x + 1 over n elements, written as Gluon writes it.

Each program (block) takes BLOCK elements: `tilec.arange` gives their offsets in a
blocked layout (4 consecutive elements per thread, 32 threads per warp, 4 warps),
`x.ptr + offs` is a tensor of pointers, and the mask keeps the last block inside n.
The kernel is traced and compiled once per specialisation, not per shape: the second
call below, on other sizes, compiles nothing (`add_one.stats`). Arrays are CuPy's
where a GPU is found, else NumPy's, run on the CPU reference executor.

    python examples/python/jit_copy.py
"""

import numpy as np

import tilec


@tilec.jit
def add_one(x, y, n, BLOCK: tilec.constexpr):
    layout = tilec.BlockedLayout([4], [32], [4], [0])
    offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, layout)
    mask = offs < n
    tilec.store(y.ptr + offs, tilec.load(x.ptr + offs, mask=mask) + 1.0, mask=mask)


if tilec.gpu_available():
    import cupy as xp

    where = "on the GPU (CuPy arrays)"
else:
    xp, where = np, "on the CPU reference executor (NumPy arrays)"

for n in (1000, 5000):  # 1000 % 16 == 8 and 5000 % 16 == 8: one specialisation
    x = xp.arange(n, dtype=xp.float32)
    y = xp.zeros_like(x)
    add_one[(tilec.cdiv(n, 512),)](x, y, n, BLOCK=512)
    ok = bool((y == x + 1).all())
    print(f"n = {n} {where}: {'Success' if ok else 'FAILED'}")
s = add_one.stats
print(f"specialisations used: {s.compiles + s.disk_hits} (compiled now: {s.compiles}, from the disk cache: {s.disk_hits})")
print("// The traced kernel:")
print(tilec.emit(add_one.trace(np.zeros(8, np.float32), np.zeros(8, np.float32), 8, BLOCK=512)))
