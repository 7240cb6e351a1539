"""tilec programs for row softmax, layer norm (forward) and row cumsum of an M x N
row-major tensor, built with `tilec.Program` (verified modules): the benchmark (benchmarks/compute_bench.py) and the examples
(examples/softmax.mlir, layernorm.mlir, cumsum.mlir were written by these functions)
share them.

Layouts (docs/tutorial.md, "From copy to softmax"): softmax and layer norm give each
block `rows` rows, each row spread over the block's lanes and warps with 16 bytes per
thread per access (`#layout.blocked<[1, V], [1, 32], [1, W], [1, 0]>`), so loads and
stores are 16-byte vectors, coalesced, and the row reductions are butterfly shuffles
then one round through shared memory. cumsum needs the axis in registers, then lanes,
then warps (a scan's layout), so each thread holds N / (32 W) consecutive elements.

These are the tuned forms at power-of-two N (a tile of exactly one row, explicit
layouts, the configuration chosen by compute_bench.py's sweep). For any N, a run-time
row count and layouts chosen by the compiler, the kernels a user writes are
examples/python/row_kernels.py (benchmarks/realistic_rows.py times them).
"""

from __future__ import annotations

from contextlib import contextmanager
from types import SimpleNamespace

import tilec

_ELEM = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4}


def _check_shape(m: int, n: int, rows: int = 1) -> None:
    """These generators tile a row exactly (no mask): N a power of two, M a multiple of
    the rows per block."""
    if n <= 0 or n & (n - 1):
        raise ValueError(f"compute_kernels: N = {n} is not a power of two (the tuned generators tile a row "
                         "exactly); for any N use examples/python/row_kernels.py (masked tiles)")
    if rows <= 0 or m % rows:
        raise ValueError(f"compute_kernels: M = {m} is not a multiple of rows = {rows}")


def row_layout(n: int, dtype: str, warps: int | None = None, row_warps: int = 1) -> tuple[tilec.BlockedLayout, int]:
    """The blocked layout of a softmax / layer norm row, and its number of warps: 16
    bytes per thread per access, 32 lanes, up to 16 warps along the row; `row_warps`
    groups of them side by side along the rows (each group its own rows: the row
    reductions stay inside the group)."""
    v = 16 // _ELEM[dtype]
    if warps is None:
        warps = max(1, min(16, n // (v * 32 * 4)))
    return tilec.BlockedLayout([1, v], [1, 32], [row_warps, warps], [1, 0]), warps * row_warps


@contextmanager
def _rows(name: str, m: int, n: int, rows: int, dtype: str, layout, threads: int, extra: tuple[str, ...] = ()):
    """A kernel over `rows` x `n` tiles of the m x n row-major `src` and `dst`, one tile
    per block; yields a namespace: the Program `p`, the tiles `ta` (of src) and `tb`
    (of dst), the row layout `b`, its slice along the rows `r`, the extra pointer
    arguments by name, and `load()` / `store(y)`, which read and write the tile in
    float32 (half types extended and rounded)."""
    p = tilec.Program(name)
    src, dst = p.pointer("src", dtype, align=16), p.pointer("dst", dtype, align=16)
    g = SimpleNamespace(p=p, b=layout, r=tilec.SliceLayout(1, layout))
    for arg in extra:
        setattr(g, arg, p.pointer(arg, dtype, align=16))
    a = p.view(src, f"({m},{n}):({n},1)").named("a")
    b = p.view(dst, f"({m},{n}):({n},1)").named("b")
    g.views = [p.view(getattr(g, arg), f"({n}):(1)").named(arg[0] + "v") for arg in extra]
    grid = (p.constant(m // rows).named("cg"), p.constant(1).named("c1"))
    with p.launch(grid=(*grid, grid[1]), threads=threads) as k:
        c0 = p.constant(0).named("c0")
        g.ta = p.tile(a, [k.bx, c0], [rows, n]).named("ta")
        g.tb = p.tile(b, [k.bx, c0], [rows, n]).named("tb")

        def load():
            x = p.load(g.ta, layout)
            return x.named("x") if dtype == "f32" else x.named("xh").cast("f32").named("x")

        def store(y) -> None:
            p.store(y if dtype == "f32" else y.cast(dtype).named("yh"), g.tb)

        g.load, g.store = load, store
        yield g


def _row_bcast(g, name: str, v, rows: int, n: int):
    """A per-row value (slice layout) expanded and broadcast to the whole tile."""
    return g.p.broadcast(g.p.expand_dims(v, 1).named(f"{name}1"), [rows, n]).named(name)


def softmax(m: int, n: int, dtype: str = "f32", rows: int = 1, warps: int | None = None,
            row_warps: int = 1, exp2: bool = False):
    """y = exp(x - max(x)) / sum(exp(x - max(x))) along each row, in float32.

    `exp2` computes exp(x - max) as Triton does: exp2(fma(x, log2 e, -max * log2 e))
    with `fastmath<afn>` (PTX ex2.approx.ftz: 2 ulp, results under 2^-126 flushed to
    0), one FMA and one MUFU.EX2 per element; the rounding of max * log2 e moves the
    argument by at most |max * log2 e| * 2^-24. Both are far under the tolerance of a
    float32 softmax, but `--check` cannot bound a fastmath program."""
    _check_shape(m, n, rows)
    enc, w = row_layout(n, dtype, warps, row_warps)
    with _rows("softmax", m, n, rows, dtype, enc, 32 * w) as g:
        p = g.p
        x = g.load()
        mx = p.reduce(x, 1, "max").named("mx")
        if exp2:
            l2e = p.constant(1.44269504, "f32").named("l2e")
            l2er = p.splat(l2e, [rows], g.r).named("l2er")
            l2ef = p.splat(l2e, [rows, n], g.b).named("l2ef")
            nml = (-(mx * l2er).named("ml")).named("nml")
            d = p.fma(x, l2ef, _row_bcast(g, "nmb", nml, rows, n)).named("d")
            e = p.math("exp2", d, fastmath="afn").named("e")
        else:
            e = p.math("exp", (x - _row_bcast(g, "mb", mx, rows, n)).named("d")).named("e")
        s = p.reduce(e, 1, "add").named("s")
        ones = p.splat(p.constant(1.0, "f32").named("one"), [rows], g.r).named("ones")
        inv = (ones / s).named("inv")
        g.store((e * _row_bcast(g, "ib", inv, rows, n)).named("y"))
    return p.module


def layer_norm(m: int, n: int, dtype: str = "f32", rows: int = 1, warps: int | None = None,
               eps: float = 1e-5, row_warps: int = 1, fma: bool = False):
    """y = (x - mean) * rsqrt(var + eps) * weight + bias along each row (biased
    variance, as torch.nn.functional.layer_norm), in float32; weight and bias are
    vectors of N of x's element type (as a half-precision model keeps them). `fma`
    computes the last two steps as one `math.fma` (one rounding instead of two, one
    instruction instead of two under tilec's --fmad=false policy)."""
    _check_shape(m, n, rows)
    enc, w = row_layout(n, dtype, warps, row_warps)
    with _rows("layer_norm", m, n, rows, dtype, enc, 32 * w, ("weight", "bias")) as g:
        p = g.p
        x = g.load()
        sums = p.reduce(x, 1, "add").named("sum")
        rns = p.splat(p.constant(1.0 / n, "f32").named("rn"), [rows], g.r).named("rns")
        mean = (sums * rns).named("mean")
        xc = (x - _row_bcast(g, "meanb", mean, rows, n)).named("xc")
        ss = p.reduce((xc * xc).named("sq"), 1, "add").named("ss")
        var = (ss * rns).named("var")
        epss = p.splat(p.constant(eps, "f32").named("eps"), [rows], g.r).named("epss")
        rstd = p.math("rsqrt", (var + epss).named("ve")).named("rstd")
        rstdb = _row_bcast(g, "rstdb", rstd, rows, n)
        cols = tilec.SliceLayout(0, enc)
        wt, bt = (p.load(v, cols).named(name + ("" if dtype == "f32" else "h"))
                  for v, name in zip(g.views, ("wt", "bt")))
        if dtype != "f32":
            wt, bt = wt.cast("f32").named("wt"), bt.cast("f32").named("bt")
        wt1, bt1 = p.expand_dims(wt, 0).named("wt1"), p.expand_dims(bt, 0).named("bt1")
        wb, bb = p.broadcast(wt1, [rows, n]).named("wb"), p.broadcast(bt1, [rows, n]).named("bb")
        xn = (xc * rstdb).named("xn")
        y = p.fma(xn, wb, bb) if fma else (xn * wb).named("xw") + bb
        g.store(y.named("y"))
    return p.module


def cumsum(m: int, n: int, dtype: str = "f32", warps: int | None = None, contiguous: bool = False):
    """Inclusive prefix sum along each row (one row per block). By default 16 bytes per
    thread per access, coalesced, the pattern repeated along the row in registers (scan
    chunks); `contiguous` gives each thread n / (32 warps) consecutive elements instead."""
    _check_shape(m, n)
    if warps is None:
        warps = max(1, min(8, n // (32 * 16)))
    per = n // (32 * warps) if contiguous else min(16 // _ELEM.get(dtype, 4), n // (32 * warps))
    enc = tilec.BlockedLayout([1, per], [1, 32], [1, warps], [1, 0])
    with _rows("cumsum", m, n, 1, dtype, enc, 32 * warps) as g:
        x = g.p.load(g.ta, enc).named("x")
        g.p.store(g.p.scan(x, 1, "add").named("y"), g.tb)
    return g.p.module
