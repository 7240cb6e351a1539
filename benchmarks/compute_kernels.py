"""tilec programs for row softmax, layer norm (forward) and row cumsum of an M x N
row-major tensor, as text: the benchmark (benchmarks/compute_bench.py) and the examples
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

_ELEM = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4}


def _check_shape(m: int, n: int, rows: int = 1) -> None:
    """These generators tile a row exactly (no mask): N a power of two, M a multiple of
    the rows per block."""
    if n <= 0 or n & (n - 1):
        raise ValueError(f"compute_kernels: N = {n} is not a power of two (the tuned generators tile a row "
                         "exactly); for any N use examples/python/row_kernels.py (masked tiles)")
    if rows <= 0 or m % rows:
        raise ValueError(f"compute_kernels: M = {m} is not a multiple of rows = {rows}")


def _blocked(spt, tpw, wpc):
    return (f"#layout.blocked<{{sizePerThread = {list(spt)}, threadsPerWarp = {list(tpw)}, "
            f"warpsPerCTA = {list(wpc)}, order = [1, 0]}}>")


def row_layout(n: int, dtype: str, warps: int | None = None, row_warps: int = 1) -> tuple[str, int]:
    """The blocked layout of a softmax / layer norm row, and its number of warps: 16
    bytes per thread per access, 32 lanes, up to 16 warps along the row; `row_warps`
    groups of them side by side along the rows (each group its own rows: the row
    reductions stay inside the group)."""
    v = 16 // _ELEM[dtype]
    if warps is None:
        warps = max(1, min(16, n // (v * 32 * 4)))
    return _blocked([1, v], [1, 32], [row_warps, warps]), warps * row_warps


def _header(name: str, m: int, n: int, rows: int, dtype: str, enc: str, extra_args: str = "") -> str:
    return f"""#b = {enc}
#r = #layout.slice<{{dim = 1, parent = #b}}>
!G = !layout.tensor<{dtype}, #layout.cute<({m},{n}):({n},1)>, gmem>
!T = !layout.tensor<{dtype}, #layout.cute<({rows},{n}):({n},1)>, gmem>
func.func @{name}(%src: !layout.ptr<{dtype}, align 16>, %dst: !layout.ptr<{dtype}, align 16>{extra_args}) {{
  %a = layout.view %src : !layout.ptr<{dtype}, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<{dtype}, align 16> -> !G"""


def _launch(m: int, rows: int, threads: int, n: int) -> str:
    return f"""
  %cg = arith.constant {m // rows} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%cg, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {{tile = array<i64: {rows}, {n}>}} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {{tile = array<i64: {rows}, {n}>}} : !G -> !T"""


def _load_f32(rows: int, n: int, dtype: str) -> str:
    t = f"tensor<{rows}x{n}x{dtype}, #b>"
    if dtype == "f32":
        return f"\n    %x = layout.load %ta : !T -> {t}"
    return (f"\n    %xh = layout.load %ta : !T -> {t}"
            f"\n    %x = arith.extf %xh : {t} to tensor<{rows}x{n}xf32, #b>")


def _store_f32(rows: int, n: int, dtype: str, v: str) -> str:
    t = f"tensor<{rows}x{n}x{dtype}, #b>"
    if dtype == "f32":
        return f"\n    layout.store {v}, %tb : {t}, !T"
    return (f"\n    %yh = arith.truncf {v} : tensor<{rows}x{n}xf32, #b> to {t}"
            f"\n    layout.store %yh, %tb : {t}, !T")


def _row_bcast(name: str, src: str, rows: int, n: int) -> str:
    """A per-row value (slice layout) expanded and broadcast to the whole tile."""
    return (f"\n    %{name}1 = layout.expand_dims {src} {{axis = 1 : i64}} : tensor<{rows}xf32, #r> -> tensor<{rows}x1xf32, #b>"
            f"\n    %{name} = layout.broadcast %{name}1 : tensor<{rows}x1xf32, #b> -> tensor<{rows}x{n}xf32, #b>")


def softmax(m: int, n: int, dtype: str = "f32", rows: int = 1, warps: int | None = None,
            row_warps: int = 1, exp2: bool = False) -> str:
    """y = exp(x - max(x)) / sum(exp(x - max(x))) along each row, in float32.

    `exp2` computes exp(x - max) as Triton does: exp2(fma(x, log2 e, -max * log2 e))
    with `fastmath<afn>` (PTX ex2.approx.ftz: 2 ulp, results under 2^-126 flushed to
    0), one FMA and one MUFU.EX2 per element; the rounding of max * log2 e moves the
    argument by at most |max * log2 e| * 2^-24. Both are far under the tolerance of a
    float32 softmax, but `--check` cannot bound a fastmath program."""
    _check_shape(m, n, rows)
    enc, w = row_layout(n, dtype, warps, row_warps)
    f = f"tensor<{rows}x{n}xf32, #b>"
    r = f"tensor<{rows}xf32, #r>"
    body = _load_f32(rows, n, dtype) + f"""
    %mx = layout.reduce %x {{axis = 1 : i64, kind = "max"}} : {f} -> {r}"""
    if exp2:
        body += f"""
    %l2e = arith.constant 1.44269504 : f32
    %l2er = layout.splat %l2e : f32 -> {r}
    %l2ef = layout.splat %l2e : f32 -> {f}
    %ml = arith.mulf %mx, %l2er : {r}
    %nml = arith.negf %ml : {r}""" + _row_bcast("nmb", "%nml", rows, n) + f"""
    %d = math.fma %x, %l2ef, %nmb : {f}
    %e = math.exp2 %d fastmath<afn> : {f}"""
    else:
        body += _row_bcast("mb", "%mx", rows, n) + f"""
    %d = arith.subf %x, %mb : {f}
    %e = math.exp %d : {f}"""
    body += f"""
    %s = layout.reduce %e {{axis = 1 : i64, kind = "add"}} : {f} -> {r}
    %one = arith.constant 1.000000e+00 : f32
    %ones = layout.splat %one : f32 -> {r}
    %inv = arith.divf %ones, %s : {r}""" + _row_bcast("ib", "%inv", rows, n) + f"""
    %y = arith.mulf %e, %ib : {f}""" + _store_f32(rows, n, dtype, "%y")
    return (_header("softmax", m, n, rows, dtype, enc) + _launch(m, rows, 32 * w, n) + body
            + "\n  }\n  func.return\n}\n")


def layer_norm(m: int, n: int, dtype: str = "f32", rows: int = 1, warps: int | None = None,
               eps: float = 1e-5, row_warps: int = 1, fma: bool = False) -> str:
    """y = (x - mean) * rsqrt(var + eps) * weight + bias along each row (biased
    variance, as torch.nn.functional.layer_norm), in float32; weight and bias are
    vectors of N of x's element type (as a half-precision model keeps them). `fma`
    computes the last two steps as one `math.fma` (one rounding instead of two, one
    instruction instead of two under tilec's --fmad=false policy)."""
    _check_shape(m, n, rows)
    enc, w = row_layout(n, dtype, warps, row_warps)
    f = f"tensor<{rows}x{n}xf32, #b>"
    r = f"tensor<{rows}xf32, #r>"
    vec = f"!layout.tensor<{dtype}, #layout.cute<({n}):(1)>, gmem>"
    extra = f", %weight: !layout.ptr<{dtype}, align 16>, %bias: !layout.ptr<{dtype}, align 16>"
    head = _header("layer_norm", m, n, rows, dtype, enc, extra) + f"""
  %wv = layout.view %weight : !layout.ptr<{dtype}, align 16> -> {vec}
  %bv = layout.view %bias : !layout.ptr<{dtype}, align 16> -> {vec}"""
    cols = f"tensor<{n}xf32, #layout.slice<{{dim = 0, parent = #b}}>>"
    colsx = f"tensor<{n}x{dtype}, #layout.slice<{{dim = 0, parent = #b}}>>"
    if dtype == "f32":
        wload = f"""
    %wt = layout.load %wv : {vec} -> {cols}
    %bt = layout.load %bv : {vec} -> {cols}"""
    else:
        wload = f"""
    %wth = layout.load %wv : {vec} -> {colsx}
    %bth = layout.load %bv : {vec} -> {colsx}
    %wt = arith.extf %wth : {colsx} to {cols}
    %bt = arith.extf %bth : {colsx} to {cols}"""
    body = _load_f32(rows, n, dtype) + f"""
    %sum = layout.reduce %x {{axis = 1 : i64, kind = "add"}} : {f} -> {r}
    %rn = arith.constant {1.0 / n:e} : f32
    %rns = layout.splat %rn : f32 -> {r}
    %mean = arith.mulf %sum, %rns : {r}""" + _row_bcast("meanb", "%mean", rows, n) + f"""
    %xc = arith.subf %x, %meanb : {f}
    %sq = arith.mulf %xc, %xc : {f}
    %ss = layout.reduce %sq {{axis = 1 : i64, kind = "add"}} : {f} -> {r}
    %var = arith.mulf %ss, %rns : {r}
    %eps = arith.constant {eps:e} : f32
    %epss = layout.splat %eps : f32 -> {r}
    %ve = arith.addf %var, %epss : {r}
    %rstd = math.rsqrt %ve : {r}""" + _row_bcast("rstdb", "%rstd", rows, n) + wload + f"""
    %wt1 = layout.expand_dims %wt {{axis = 0 : i64}} : {cols} -> tensor<1x{n}xf32, #b>
    %bt1 = layout.expand_dims %bt {{axis = 0 : i64}} : {cols} -> tensor<1x{n}xf32, #b>
    %wb = layout.broadcast %wt1 : tensor<1x{n}xf32, #b> -> {f}
    %bb = layout.broadcast %bt1 : tensor<1x{n}xf32, #b> -> {f}
    %xn = arith.mulf %xc, %rstdb : {f}""" + (f"""
    %y = math.fma %xn, %wb, %bb : {f}""" if fma else f"""
    %xw = arith.mulf %xn, %wb : {f}
    %y = arith.addf %xw, %bb : {f}""") + _store_f32(rows, n, dtype, "%y")
    return head + _launch(m, rows, 32 * w, n) + body + "\n  }\n  func.return\n}\n"


def cumsum(m: int, n: int, dtype: str = "f32", warps: int | None = None, contiguous: bool = False) -> str:
    """Inclusive prefix sum along each row (one row per block). By default 16 bytes per
    thread per access, coalesced, the pattern repeated along the row in registers (scan
    chunks); `contiguous` gives each thread n / (32 warps) consecutive elements instead."""
    _check_shape(m, n)
    if warps is None:
        warps = max(1, min(8, n // (32 * 16)))
    per = n // (32 * warps) if contiguous else min(16 // _ELEM.get(dtype, 4), n // (32 * warps))
    enc = _blocked([1, per], [1, 32], [1, warps])
    t = f"tensor<1x{n}x{dtype}, #b>"
    head = _header("cumsum", m, n, 1, dtype, enc).replace("#r = #layout.slice<{dim = 1, parent = #b}>\n", "")
    return (head + _launch(m, 1, 32 * warps, n) + f"""
    %x = layout.load %ta : !T -> {t}
    %y = layout.scan %x {{axis = 1 : i64, kind = "add"}} : {t}
    layout.store %y, %tb : {t}, !T
  }}
  func.return
}}
""")
