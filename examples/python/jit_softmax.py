"""Row softmax as a @tilec.jit kernel: one program per row, a run-time number of rows
M and of columns N, the row masked where N is not the block (docs/python-kernels.md).

`tilec.tile(x, (row, 0), (1, BLOCK))` is the row as a view; where N < BLOCK the tile is
masked and `tilec.load(..., other=-inf)` fills the missing elements, so they count for
nothing in the max and give exp(-inf) = 0 in the sum; the store writes only what exists.
The reductions leave a slice layout, `expand_dims` brings it back, and the operators
broadcast it over the row.

    python examples/python/jit_softmax.py
"""

import numpy as np

import tilec


@tilec.jit
def softmax(x, y, BLOCK: tilec.constexpr, num_warps: tilec.constexpr):
    layout = tilec.BlockedLayout([1, 4], [1, 32], [1, num_warps], [1, 0])
    row = tilec.program_id(0)
    v = tilec.load(tilec.tile(x, (row, 0), (1, BLOCK)), layout, other=float("-inf"))
    e = tilec.exp(v - tilec.expand_dims(tilec.max(v, 1), 1))
    tilec.store(tilec.tile(y, (row, 0), (1, BLOCK)), e / tilec.expand_dims(tilec.sum(e, 1), 1))


def reference(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


rng = np.random.default_rng(0)
on_gpu = tilec.gpu_available()
for m, n in ((6, 1000), (11, 700)):
    x = rng.standard_normal((m, n), dtype=np.float32)
    if on_gpu:
        import cupy as cp

        xd, yd = cp.asarray(x), cp.empty((m, n), cp.float32)
        softmax[(m,)](xd, yd, BLOCK=1024, num_warps=2)
        y, where = cp.asnumpy(yd), "on the GPU"
    else:
        y = np.zeros_like(x)
        softmax[(m,)](x, y, BLOCK=1024, num_warps=2)
        where = "on the CPU reference executor"
    ok = np.allclose(y, reference(x), rtol=2e-6, atol=1e-9)
    print(f"softmax of {m}x{n} {where}: {'Success' if ok else 'FAILED'}")
s = softmax.stats
print(f"specialisations used: {s.compiles + s.disk_hits} (compiled now: {s.compiles}, from the disk cache: {s.disk_hits})")
