"""Experiment: the f16 softmax row kernel (N = 1000, M = 16384) with exp accurate vs
fastmath<afn>, and the division by the row sum vs a multiply by its reciprocal.
    python dev/experiments/softmax_math.py"""
import sys
sys.path.insert(0, "examples/python")
import cupy as cp
import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr

import row_kernels as rk
import tilec

def softmax(n, dtype, recip):
    block = rk.next_pow2(n)
    p, m, a, b, _ = rk._rows_program("softmax", n, dtype)
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = rk.RowKernel(p, dtype)
        x = r.load_row(p.tile(a, [k.bx, 0], [1, block]), block, float("-inf"))
        e = r.unary(math.ExpOp, x - r.over_row(r.reduce(x, "max"), block))
        s = r.reduce(e, "add")
        if recip:
            inv = r.splat(1.0, [1], r.rows) / s
            y = e * r.over_row(inv, block)
        else:
            y = e / r.over_row(s, block)
        r.store_row(y, p.tile(b, [k.bx, 0], [1, block]))
    return p


def variant(fast_exp: bool, recip: bool, dtype: str, n: int):
    p = softmax(n, dtype, recip)
    for op in list(p.module.walk()):
        if fast_exp and isinstance(op, math.ExpOp):
            op.properties["fastmath"] = FastMathFlagsAttr((FastMathFlag.APPROX_FUNC,))
    return tilec.compile(p)

def time(k, x, y, m):
    for _ in range(3): k(x, y, m)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    s.record()
    for _ in range(50): k(x, y, m)
    e.record(); e.synchronize()
    return cp.cuda.get_elapsed_time(s, e) / 50 * 1e3

for dtype, n in [("f16", 1000), ("f16", 4096), ("f16", 3072), ("f32", 1000)]:
    m = 16384
    nd = {"f16": np.float16, "f32": np.float32}[dtype]
    x = cp.asarray(np.random.randn(m, n).astype(nd)); y = cp.empty_like(x)
    ref = None
    for fe, rc in [(False, False), (True, False), (False, True), (True, True)]:
        k = variant(fe, rc, dtype, n)
        src = k.source if hasattr(k, "source") else ""
        us = time(k, x, y, m)
        out = cp.asnumpy(y).astype(np.float64)
        ref = out if ref is None else ref
        print(f"{dtype} N={n} fast_exp={fe} recip={rc}: {us:.1f} us, max |diff| vs first {np.abs(out-ref).max():.2e}, __expf in src: {'__expf' in src}", flush=True)
