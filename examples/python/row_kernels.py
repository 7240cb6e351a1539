"""Row softmax, layer norm, RMSNorm and cumsum as a user writes them with `tilec.Program`:
one row per block, a masked power-of-two tile over a row of any length N (`other` =
-inf for a max, 0 for a sum), a run-time number of rows M (one compile serves every M),
N fixed when the program is built (a compile per N and element type), and the layout
and the block's threads left to the compiler (`#layout.auto` and `threads="auto"`:
`pack-rows`, `choose-warps` and `coalesce` pick rows per block, warps, threads per warp
and vector widths from the facts, docs/passes.md).

    python examples/python/row_kernels.py          # each kernel on the CPU reference executor

Rows longer than registers hold (each function chooses this above `ONLINE_ABOVE`
elements) are loops over chunks written in the program (`softmax_online`: a running max
and sum, rescaled at each chunk, then a second loop writes the outputs; layer norm: a
running count, mean and sum of squared deviations merged chunk by chunk (Chan's
formula, as Welford's), then the outputs; RMSNorm: the sum of squares, then the
outputs): the program states the algorithm, the compiler chooses how each chunk is laid
out (`stash-rereads`, not in the default pipeline, can keep the chunks the first loop
loads in shared memory for the second loop where the row fits: one read of the row from
global memory, not two, but slower on the H200 at one block a multiprocessor). A cumsum is the same algorithm in chunks (each chunk's scan plus the running total
of the chunks before it), so it is written once for every N and the compiler's
`chunk-rows` makes the loop where the row tile is longer than registers hold. Rows of at most 512 elements are several to a block: the
compiler's `pack-rows` decides that for every one of these kernels.

Each function returns a `Program` whose function takes (src, dst[, weight[, bias]], m):
pointers of the element type `dtype` ("f32", "f16", "bf16") and the row count m. The math
is done in f32 (loads are extended, stores rounded), as PyTorch does for half types;
softmax's exponentials are `fastmath<afn>` (`__expf`), as Triton's `tl.exp` is approximate
(measured on the H200: f16 N = 3072 0.82 -> 0.91 of cudaMemcpy, the kernel being
instruction-bound at 8 elements per thread).
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr
from xdsl.dialects.builtin import IntAttr, IntegerAttr, StringAttr, TensorType, f32, i32
from xdsl.ir import Attribute

from tilec.compiler.builder import Program
from tilec.compiler.builder_types import element_type
from tilec.compiler.kernel_builder import Value
from tilec.dialects import layout
from tilec.dialects import layout_compute as lc
from tilec.dialects.auto_layout import AutoLayoutAttr
from tilec.dialects.layout_attrs import SliceLayoutAttr

ONLINE_ABOVE = 16384
"""Rows longer than this many elements are done in loops over chunks (`softmax_online`,
`layer_norm_chunked`, `rms_norm_chunked`; cumsum's loop is the compiler's, `chunk-rows`)."""
CHUNK = 4096
"""Elements of a row per chunk of `softmax_online`."""


def next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def num_warps(block: int) -> int:
    """Warps for a row tile of `block` elements: the Triton tutorial's rule, which the
    Triton peers of benchmarks/realistic_rows.py use. The tilec programs here leave their
    warps to the compiler (`choose-warps`' rule on bytes per thread)."""
    return 16 if block >= 8192 else 8 if block >= 2048 else 4


OPEN_WARPS = layout.OPEN_THREADS // 32
"""The warps of a `threads="auto"` launch's `#layout.auto` layouts until `choose-warps` picks them."""


class RowKernel:
    """The pieces of a row-wise kernel on a Program: auto layouts over the warps the
    compiler chooses, loads of a masked row tile, row reductions broadcast back over the row."""

    def __init__(self, p: Program, dtype: str, warps: int | None = None):
        """`warps`: the block's warps where the author writes them (the launch's threads
        are then 32 * warps), None where the launch leaves them to the compiler."""
        self.p = p
        self.dtype = element_type(dtype)
        self.full: Attribute = AutoLayoutAttr(2, OPEN_WARPS if warps is None else warps)
        self.rows: Attribute = SliceLayoutAttr(IntAttr(1), self.full)
        self.cols: Attribute = SliceLayoutAttr(IntAttr(0), self.full)

    def op(self, cls, operands, result_type, **props) -> Value:
        return self.p.insert(cls.create(operands=[v.ssa if isinstance(v, Value) else v for v in operands],
                                        result_types=[result_type], properties=props)).results[0]

    def load_row(self, tile: Value, width: int, other: float | None) -> Value:
        """The row tile as f32, elements past the row `other`."""
        t = TensorType(self.dtype, [1, width], self.full)
        oth = None if other is None else self.p.constant(other, self.dtype).ssa
        x = self.p.insert(layout.LoadOp(tile.ssa, t, oth)).results[0]
        return self.to_f32(x)

    def load_vector(self, tile: Value, width: int) -> Value:
        """A vector of the row's length (weights), broadcast over the rows, as f32."""
        t = TensorType(self.dtype, [width], self.cols)
        v = self.p.insert(layout.LoadOp(tile.ssa, t)).results[0]
        if self.dtype != f32:
            v = self.op(arith.ExtFOp, [v], TensorType(f32, [width], self.cols))
        e = self.op(layout.ExpandDimsOp, [v], TensorType(f32, [1, width], self.full), axis=IntegerAttr(0, 64))
        return self.op(layout.BroadcastOp, [e], TensorType(f32, [1, width], self.full))

    def to_f32(self, x: Value) -> Value:
        if self.dtype == f32:
            return x
        return self.op(arith.ExtFOp, [x], TensorType(f32, x.type.get_shape(), self.full))

    def store_row(self, y: Value, tile: Value) -> None:
        if self.dtype != f32:
            y = self.op(arith.TruncFOp, [y], TensorType(self.dtype, y.type.get_shape(), self.full))
        self.p.insert(layout.StoreOp(y.ssa, tile.ssa))

    def reduce(self, x: Value, kind: str) -> Value:
        """The row's `kind` ("max", "add") as a per-row value."""
        return self.op(layout.ReduceOp, [x], TensorType(f32, [1], self.rows),
                       axis=IntegerAttr(1, 64), kind=StringAttr(kind))

    def over_row(self, r: Value, width: int) -> Value:
        """A per-row value broadcast over the row."""
        e = self.op(layout.ExpandDimsOp, [r], TensorType(f32, [1, 1], self.full), axis=IntegerAttr(1, 64))
        return self.op(layout.BroadcastOp, [e], TensorType(f32, [1, width], self.full))

    def normalise(self, x: Value, d: Value) -> Value:
        """`x / d` allowing a reciprocal (`fastmath<arcp>`): `x * (1 / d)`, so a row
        divided by its broadcast sum takes one division per row, not one per element
        (Triton's `/` on f32 is approximate as well: `div.full.f32`)."""
        return self.op(arith.DivfOp, [x, d], x.type, fastmath=FastMathFlagsAttr((FastMathFlag.ALLOW_RECIP,)))

    def scan(self, x: Value, kind: str = "add") -> Value:
        """The inclusive `kind` scan along the row."""
        return self.op(lc.ScanOp, [x], x.type, axis=IntegerAttr(1, 64), kind=StringAttr(kind))

    def splat(self, x: float, shape, enc) -> Value:
        c = self.p.constant(x, "f32")
        return self.op(layout.SplatOp, [c], TensorType(f32, shape, enc))

    def unary(self, cls, x: Value) -> Value:
        return self.op(cls, [x], x.type)

    def exp(self, x: Value) -> Value:
        """exp(x) with `fastmath<afn>` (CUDA's `__expf`: 2 + floor(1.173 |x|) ulp), as
        Triton's `tl.exp` is `ex2.approx`: the programs compared compute the same, and the
        error is far below an f16/bf16 output's rounding (f32: within its 1e-5 tolerance)."""
        return self.op(math.ExpOp, [x], x.type, fastmath=FastMathFlagsAttr((FastMathFlag.APPROX_FUNC,)))

    def inside(self, width: int, n: int, start: Value | None = None) -> Value:
        """An i1 per element of the row tile: whether its column (`start` + its index in
        the tile, `start` an i32 value) is < n."""
        cols = self.op(layout.ArangeOp, [], TensorType(i32, [width], self.cols),
                       start=IntegerAttr(0, 64), end=IntegerAttr(width, 64))
        c2 = self.op(layout.ExpandDimsOp, [cols], TensorType(i32, [1, width], self.full), axis=IntegerAttr(0, 64))
        c2 = self.op(layout.BroadcastOp, [c2], TensorType(i32, [1, width], self.full))
        if start is not None:
            c2 = c2 + self.op(layout.SplatOp, [start], TensorType(i32, [1, width], self.full))
        nn = self.op(layout.SplatOp, [self.p.constant(n, "i32")], TensorType(i32, [1, width], self.full))
        return self.p.insert(lc.CmpiOp(c2.ssa, nn.ssa, "slt")).results[0]


def _rows_program(name: str, n: int, dtype: str, extra: tuple[str, ...] = ()):
    p = Program(name)
    src = p.pointer("src", dtype, align=16)
    dst = p.pointer("dst", dtype, align=16)
    vecs = [p.pointer(e, dtype, align=16) for e in extra]
    m = p.index("m")
    a = p.view(src, f"(?,{n}):({n},1)", dynamic=[m])
    b = p.view(dst, f"(?,{n}):({n},1)", dynamic=[m])
    vs = [p.view(v, f"{n}:1") for v in vecs]
    return p, m, a, b, vs


def softmax(n: int, dtype: str = "f32", warps: int | None = None) -> Program:
    """y = exp(x - max(x)) / sum(exp(x - max(x))) along each row of an M x N tensor.
    `warps` writes the block's warps (an override, as Triton's `num_warps=`); by default
    the compiler chooses them (`choose-warps`)."""
    if n > ONLINE_ABOVE:
        return softmax_online(n, dtype)
    block = next_pow2(n)
    p, m, a, b, _ = _rows_program("softmax", n, dtype)
    with p.launch(grid=(m, 1, 1), threads="auto" if warps is None else 32 * warps) as k:
        r = RowKernel(p, dtype, warps)
        x = r.load_row(p.tile(a, [k.bx, 0], [1, block]), block, float("-inf"))
        e = r.exp(x - r.over_row(r.reduce(x, "max"), block))
        r.store_row(r.normalise(e, r.over_row(r.reduce(e, "add"), block)), p.tile(b, [k.bx, 0], [1, block]))
    return p


def softmax_online(n: int, dtype: str = "f32", chunk: int = CHUNK) -> Program:
    """Softmax of rows longer than registers hold: a first loop over chunks of the row
    keeps the running max mx and the running sum s of exp(x - mx) (when a chunk raises
    the max, s is rescaled by exp(old - new)); a second loop writes exp(x - mx) / s."""
    chunks = -(-n // chunk)
    p, m, a, b, _ = _rows_program("softmax_online", n, dtype)
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = RowKernel(p, dtype)
        mx = r.splat(float("-inf"), [1], r.rows)
        s = r.splat(0.0, [1], r.rows)
        # `carry` makes mx and s the loop's slots: assigning their `ssa` in the body
        # gives the next trip's values, and after the loop they hold the last.
        with p.range(0, chunks, carry=[mx, s]) as j:
            x = r.load_row(p.tile(a, [k.bx, j], [1, chunk]), chunk, float("-inf"))
            new = r.op(arith.MaximumfOp, [mx, r.reduce(x, "max")], mx.type)
            scale = r.exp(mx - new)
            part = r.reduce(r.exp(x - r.over_row(new, chunk)), "add")
            s.ssa, mx.ssa = (s * scale + part).ssa, new.ssa
        inv_m, inv_s = r.over_row(mx, chunk), r.over_row(s, chunk)
        with p.range(0, chunks) as j:
            x = r.load_row(p.tile(a, [k.bx, j], [1, chunk]), chunk, float("-inf"))
            r.store_row(r.normalise(r.exp(x - inv_m), inv_s), p.tile(b, [k.bx, j], [1, chunk]))
    return p


def layer_norm(n: int, dtype: str = "f32", eps: float = 1e-5) -> Program:
    """y = (x - mean) / sqrt(var + eps) * weight + bias along each row (biased variance,
    as torch.nn.functional.layer_norm); weight and bias are vectors of N."""
    if n > ONLINE_ABOVE:
        return layer_norm_chunked(n, dtype, eps)
    block = next_pow2(n)
    p, m, a, b, (wv, bv) = _rows_program("layer_norm", n, dtype, ("weight", "bias"))
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = RowKernel(p, dtype)
        x = r.load_row(p.tile(a, [k.bx, 0], [1, block]), block, 0.0)
        inv_n = r.splat(1.0 / n, [1], r.rows)
        mean = r.reduce(x, "add") * inv_n
        xc = x - r.over_row(mean, block)
        xc = p.insert(lc.SelectOp(r.inside(block, n).ssa, xc.ssa, r.splat(0.0, [1, block], r.full).ssa)).results[0]
        var = r.reduce(xc * xc, "add") * inv_n
        rstd = r.unary(math.RsqrtOp, var + r.splat(eps, [1], r.rows))
        w = r.load_vector(p.tile(wv, [0], [block]), block)
        bias = r.load_vector(p.tile(bv, [0], [block]), block)
        r.store_row(xc * r.over_row(rstd, block) * w + bias, p.tile(b, [k.bx, 0], [1, block]))
    return p


def rms_norm(n: int, dtype: str = "f32", eps: float = 1e-6) -> Program:
    """y = x / sqrt(mean(x^2) + eps) * weight along each row (torch.nn.functional.rms_norm)."""
    if n > ONLINE_ABOVE:
        return rms_norm_chunked(n, dtype, eps)
    block = next_pow2(n)
    p, m, a, b, (wv,) = _rows_program("rms_norm", n, dtype, ("weight",))
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = RowKernel(p, dtype)
        x = r.load_row(p.tile(a, [k.bx, 0], [1, block]), block, 0.0)
        ms = r.reduce(x * x, "add") * r.splat(1.0 / n, [1], r.rows)
        rstd = r.unary(math.RsqrtOp, ms + r.splat(eps, [1], r.rows))
        w = r.load_vector(p.tile(wv, [0], [block]), block)
        r.store_row(x * r.over_row(rstd, block) * w, p.tile(b, [k.bx, 0], [1, block]))
    return p


def layer_norm_chunked(n: int, dtype: str = "f32", eps: float = 1e-5, chunk: int = CHUNK) -> Program:
    """Layer norm of rows longer than registers hold, in two loops over chunks of the
    row (two reads): the first keeps the running count, mean and sum of squared
    deviations, merging each chunk's own (its mean, then the squares about it over its
    elements inside the row: no cancellation) by Chan's formula, as Welford's; the
    second writes the outputs."""
    chunks = -(-n // chunk)
    p, m, a, b, (wv, bv) = _rows_program("layer_norm_chunked", n, dtype, ("weight", "bias"))
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = RowKernel(p, dtype)

        def per_row(x) -> Value:
            return r.splat(x, [1], r.rows) if isinstance(x, float) else r.op(layout.SplatOp, [x], TensorType(
                f32, [1], r.rows))

        mean, m2, count = per_row(0.0), per_row(0.0), per_row(0.0)
        with p.range(0, chunks, carry=[mean, m2, count]) as j:
            x = r.load_row(p.tile(a, [k.bx, j], [1, chunk]), chunk, 0.0)
            # the chunk's elements inside the row: min(chunk, n - j * chunk)
            left = per_row(float(n)) - per_row(j.cast("f32")) * per_row(float(chunk))
            n_b = r.op(arith.MinimumfOp, [left, per_row(float(chunk))], left.type)
            mean_b = r.reduce(x, "add") / n_b
            d = x - r.over_row(mean_b, chunk)
            inside = r.inside(chunk, n, start=j.cast("i32") * chunk)
            d = p.insert(lc.SelectOp(inside.ssa, d.ssa, r.splat(0.0, [1, chunk], r.full).ssa)).results[0]
            grown = count + n_b
            delta = mean_b - mean
            m2.ssa = (m2 + r.reduce(d * d, "add") + delta * delta * count * n_b / grown).ssa
            mean.ssa, count.ssa = (mean + delta * n_b / grown).ssa, grown.ssa
        var = m2 * per_row(1.0 / n)
        mean_c = r.over_row(mean, chunk)
        rstd_c = r.over_row(r.unary(math.RsqrtOp, var + per_row(eps)), chunk)
        with p.range(0, chunks) as j:
            xc = r.load_row(p.tile(a, [k.bx, j], [1, chunk]), chunk, 0.0) - mean_c
            w = r.load_vector(p.tile(wv, [j], [chunk]), chunk)
            bias = r.load_vector(p.tile(bv, [j], [chunk]), chunk)
            r.store_row(xc * rstd_c * w + bias, p.tile(b, [k.bx, j], [1, chunk]))
    return p


def rms_norm_chunked(n: int, dtype: str = "f32", eps: float = 1e-6, chunk: int = CHUNK) -> Program:
    """RMSNorm of rows longer than registers hold: a loop over chunks sums x^2, a second
    writes x * rsqrt(mean + eps) * weight."""
    chunks = -(-n // chunk)
    p, m, a, b, (wv,) = _rows_program("rms_norm_chunked", n, dtype, ("weight",))
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = RowKernel(p, dtype)
        q = r.splat(0.0, [1], r.rows)
        with p.range(0, chunks, carry=[q]) as j:
            x = r.load_row(p.tile(a, [k.bx, j], [1, chunk]), chunk, 0.0)
            q.ssa = (q + r.reduce(x * x, "add")).ssa
        ms = q * r.splat(1.0 / n, [1], r.rows)
        rstd_c = r.over_row(r.unary(math.RsqrtOp, ms + r.splat(eps, [1], r.rows)), chunk)
        with p.range(0, chunks) as j:
            x = r.load_row(p.tile(a, [k.bx, j], [1, chunk]), chunk, 0.0)
            w = r.load_vector(p.tile(wv, [j], [chunk]), chunk)
            r.store_row(x * rstd_c * w, p.tile(b, [k.bx, j], [1, chunk]))
    return p


def cumsum(n: int, dtype: str = "f32") -> Program:
    """The inclusive prefix sum along each row, summed in f32 and rounded to the element
    type (as PyTorch sums half types on the GPU). One form for every N: where the row
    tile is longer than registers hold, the compiler's `chunk-rows` makes it a loop over
    chunks carrying the row's running total (a scan needs no other algorithm in chunks)."""
    block = next_pow2(n)
    p, m, a, b, _ = _rows_program("cumsum", n, dtype)
    with p.launch(grid=(m, 1, 1), threads="auto") as k:
        r = RowKernel(p, dtype)
        x = r.load_row(p.tile(a, [k.bx, 0], [1, block]), block, 0.0)
        r.store_row(r.scan(x), p.tile(b, [k.bx, 0], [1, block]))
    return p


KERNELS = {"softmax": softmax, "layer_norm": layer_norm, "rms_norm": rms_norm, "cumsum": cumsum}


def main() -> None:
    import numpy as np

    import tilec

    for name, make in KERNELS.items():
        m, n = 3, 1000
        rng = np.random.default_rng(0)
        x = rng.standard_normal((m, n)).astype(np.float32)
        args = {"src": x.ravel(), "dst": np.zeros(m * n, np.float32), "m": m}
        if name in ("layer_norm", "rms_norm"):
            args["weight"] = rng.standard_normal(n).astype(np.float32)
        if name == "layer_norm":
            args["bias"] = rng.standard_normal(n).astype(np.float32)
        out = tilec.run_reference(make(n), args)
        print(f"{name} {m}x{n}: {np.asarray(out['dst'])[:4]}")


if __name__ == "__main__":
    main()
