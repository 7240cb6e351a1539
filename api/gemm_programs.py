"""The Hopper GEMM programs, C = epilogue(A @ B), built with `tilec.Program`: the
kernels `tilec.matmul` (api/gemm.py) picks from, and examples/python/gemm_bf16_hopper.py
runs. A is M x K, B is K x N, C is M x N, all row-major; A and B bf16 or f16, f32
accumulation on Hopper's warpgroup tensor cores (`wgmma`).

Any M, N, K with K and N multiples of 8 (the TMA needs 16-byte rows): edge tiles are
masked views, whose TMA loads fill the elements outside A and B with zeros and whose
stores write only the elements inside C; the K loop takes `ceil(K / bk)` steps rounded
up to a multiple of `stages`, the steps past K adding zeros. M may be a run-time value
(`m=None`: an index argument `m` after the pointers): the TMA tensor maps are encoded
at launch from it and the grid is computed from it, so one compiled kernel serves every
M (the token count of a model's GEMM).

`gemm_hopper`, per block of `bm / 64` warpgroups, a `bm x bn` tile of C:

- a ring of `stages` NVMMA-swizzled shared stages (128-byte swizzle; A K-major
  `bm x bk`, B MN-major `bk x bn`), each filled by two TMA loads
  (`layout.tma_load`, tensor maps encoded at launch) completing on the stage's
  mbarrier (`layout.mbarrier_arrive` with the stage's bytes); the loop over K is
  unrolled by `stages`, so stage `s` and its barrier are static and the phase a
  step waits on is `(kt / stages) % 2`;
- each step waits for its stage, issues one asynchronous `layout.mma {async}` on the
  shared tiles with a version-3 accumulator (`bk / 16` `wgmma.mma_async.m64n{bn}k16`
  per warpgroup, both operands through descriptors, then commit), waits for the
  previous step's (`layout.mma_wait {pending = 1}`: its own runs on under the next
  TMA wait; the loop's last is waited for after it), meets the block at a barrier
  (every warpgroup is done reading the previous stage) and starts the TMA load of the
  tile `stages - 1` steps ahead into the stage read one step before (past the end: the
  last tile again, waited on after the loop so that no copy is in flight at exit);
- the epilogue (`Epilogue`) computes on the accumulator in its layout and stores the
  result from it (pairs of 16-bit elements per thread).

`gemm_hopper_ws` is the warp-specialised form (a producer warpgroup filling the ring,
consumer warpgroups running the wgmma, mbarriers "full" and "empty" per stage,
`setmaxnreg`), optionally persistent over the multiprocessors in grouped tile order,
with a stmatrix + TMA-store epilogue in column chunks (its docstring).

The epilogue is written in the program on the accumulator tensor (`Epilogue.apply`):
per-column bias and the residual are loaded in the accumulator's layout, the
activation is the builder's elementwise math; nothing of it is special-cased by a pass.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from dataclasses import dataclass

from tilec.support.diagnostics import TilecError

INPUT_DTYPES = ("bf16", "f16", "f8E4M3FN", "f8E5M2")
"""The element types of A and B the programs take (wgmma's 16-bit kinds and the 8-bit
floats, `FP8_DTYPES`)."""

FP8_DTYPES = ("f8E4M3FN", "f8E5M2")
"""The 8-bit float operand types: `wgmma.m64nNk32`, B K-major (`b_kmajor`), A and B of
one type, per-tensor scales in the epilogue (`Epilogue.scale`)."""

OUT_DTYPES = ("bf16", "f16")
"""The element types of C (and of a bias or residual)."""

ACTIVATIONS = ("relu", "gelu", "silu", "silu_tanh")
"""The activations of an `Epilogue`: ReLU, GELU (erf form, PyTorch's default), SiLU, and
SiLU evaluated with one `tanh.approx` an element (`silu_tanh`, asked for by name: its
error is absolute, up to 2^-11.98 |y| of its input y, `Epilogue.apply`)."""

def silu_group_bounds(g: int) -> tuple[float, float]:
    """`Epilogue.div_group` G's clamp on SiLU's divisor and floor on its numerator: G divisors
    multiply to at most 2^124 (`cuda.DIV_GROUP_PRODUCT_EXPONENT`), so each is clamped to
    2^(124 / G) (2^62, 2^31); past it (y < -42.97, -21.49) the quotient is y 2^(-124 / G), so
    the numerator is floored at -2^(124 / G - 22) and the quotient is then at most 2^-22 in
    magnitude: within docs/matmul.md's absolute term (2^-20), not relative."""
    from tilec.dialects.cuda import DIV_GROUP_PRODUCT_EXPONENT

    e = DIV_GROUP_PRODUCT_EXPONENT // g
    return 2.0**e, -(2.0 ** (e - 22))


@dataclass(frozen=True)
class Epilogue:
    """What happens to the f32 accumulator of a tile before its store, in this order:
    `* scale_a * scale_b` (two f32 scalars: per-tensor scales of FP8 operands, as
    `torch._scaled_mm`'s), `+ bias` (a vector of N elements, broadcast over the rows),
    the activation, `+ residual` (an M x N matrix, row-major), then one rounding to
    `out_dtype`. Bias and residual have the element type `out_dtype` and are widened to
    f32 first. Arguments of the program, after `pa`, `pb`, `pc`: `pbias`, then `pres`,
    then `pscale_a` and `pscale_b` (pointers to one f32 each) where used.

        Epilogue(bias=True, activation="silu")          # silu(A @ B + bias) in bf16
        Epilogue(scale=True)                            # (A @ B) * scale_a * scale_b
    """

    bias: bool = False
    activation: str | None = None
    residual: bool = False
    out_dtype: str = "bf16"
    scale: bool = False
    exp2_fma: int = 0
    """`silu`: in how many of every 8 of a thread's elements its 2^(-y log2 e) is computed
    on the FMA pipe (`cuda.ex2_fma`, 11 instructions and no `MUFU`) rather than by
    `ex2.approx` (one `MUFU.EX2`): 0 to 8, the same function within the same bound
    (`apply`); `gemm_hopper_ws(exp2_fma=)`, `GemmConfig.exp2_fma`."""
    div_group: int = 0
    """`silu`: G = 2 or 4 quotients through one `rcp.approx` (0: one `div.approx` each): its
    divisor 1 + 2^(-y log2 e) clamped and its numerator floored (`silu_group_bounds`), so that
    lower-to-gpu's range walk groups G registers' quotients (`cuda.div_approx_group`): one
    `MUFU.RCP` for G elements (`apply`); `gemm_hopper_ws(div_group=)`, `GemmConfig.div_group`."""

    def __post_init__(self) -> None:
        if self.activation is not None and self.activation not in ACTIVATIONS:
            raise TilecError(f"activation {self.activation!r}: expected one of {', '.join(ACTIVATIONS)} or None")
        if self.exp2_fma not in range(9):
            raise TilecError(f"exp2_fma {self.exp2_fma!r}: expected 0 to 8 (eighths of the elements)")
        if self.div_group not in (0, 2, 4):
            raise TilecError(f"div_group {self.div_group!r}: expected 0, 2 or 4")
        if self.out_dtype not in OUT_DTYPES:
            raise TilecError(f"out_dtype {self.out_dtype!r}: expected one of {', '.join(OUT_DTYPES)}")

    @property
    def plain(self) -> bool:
        """Whether the epilogue only rounds the accumulator to `out_dtype`."""
        return not (self.bias or self.activation or self.residual or self.scale)

    def without_bias(self) -> Epilogue:
        """This epilogue without its `+ bias` (what is left where the bias started the
        accumulator: `gemm_hopper_ws(bias_smem_start=True)`)."""
        return dataclasses.replace(self, bias=False)

    def bias_rows(self, g, bias, rows: int, cols: int, layout=None):
        """The bias `bias` (as `vectors` loads it) widened to f32 and broadcast over the
        tile's `rows x cols` in the accumulator's layout (along its rows where `g.swap`)."""
        p, ax = g.p, 1 if getattr(g, "swap", False) else 0
        col = bias.cast("f32").named("biasf")
        return p.broadcast(p.expand_dims(col, ax).named("biasrow"), [rows, cols])

    def vectors(self, g, bx, by, rows: int, cols: int, layout=None, bias=None) -> dict:
        """The epilogue's vectors of N elements for the tile (`bx`, `by`) of `rows x
        cols`, loaded as they are in memory (not yet widened or broadcast) in the
        accumulator layout's slice along the rows (each thread loads only its own
        columns): {"scalea", "scaleb", "bias"} as the epilogue uses them. A program
        may load them before the tile's K loop and pass them to `apply`, so that their
        latency hides under the loop (`gemm_hopper_ws` does for its first column chunk).
        `bias`: a view of the tile's `cols` bias elements to load instead of the bias's
        global tile (`gemm_hopper_ws(bias_smem=True)`: the producer's copy in shared memory)."""
        from tilec.dialects.distributed import SliceLayout

        p, lay = g.p, layout or g.mma
        # a vector of N elements runs along the tile's columns, or its rows where the
        # program computes C^T (`g.swap`)
        ax, at, extent = (1, bx, rows) if getattr(g, "swap", False) else (0, by, cols)
        out = {}
        if self.scale:  # each scale viewed as N copies (stride 0), loaded as the bias is
            for name in ("ScaleA", "ScaleB"):
                t = p.tile(getattr(g, name), [at], [extent]).named(f"t{name.lower()}")
                out[name.lower()] = p.load(t, SliceLayout(ax, lay)).named(name.lower())
        if self.bias:  # the tile's columns of the bias, one per column a thread holds
            tb = bias if bias is not None else p.tile(g.Bias, [at], [extent]).named("tbias")
            out["bias"] = p.load(tb, SliceLayout(ax, lay)).named("bias")
        return out

    def apply(self, g, acc, bx, by, rows: int, cols: int, layout=None, vectors: dict | None = None):
        """The tile (`bx`, `by`) of `rows x cols` of C from its accumulator `acc`, in
        `out_dtype`, computed in the accumulator's layout `g.mma` (the scales and bias:
        `vectors`, as `Epilogue.vectors` loads them, loaded here where None, broadcast
        over the rows; the residual loaded in the accumulator's layout); `layout`:
        another layout of `acc` (the split-K reduction's).

        SiLU is y / (1 + 2^(-y log2 e)) with `fastmath<afn>` on both the exp2 and the
        division: one `ex2.approx.ftz` and one `div.approx.ftz` (a `MUFU.RCP` and a
        multiply) an element, no IEEE division (whose slow path would spill the
        pingpong tile's accumulators) and no `tanhf` (about 26 instructions an
        element); within docs/matmul.md's bound (its "Accuracy" section). Sharing
        one reciprocal among four quotients (max(y, y e) / (1 + e), e = 2^(-|y| log2 e):
        divisors in [1, 2], which lower-to-gpu's `cuda.div_approx_group` takes, 1.25
        special-function ops an element) was measured no cheaper on an H200: the
        epilogue's cost follows its instructions more than its `MUFU` ops, and this form
        has the fewest of the relative ones (benchmarks/NOTES.md, epi35).

        `silu_tanh` is the same function as h (1 + tanh h), h = y / 2: one multiply,
        one `tanh.approx.f32` (`math.tanh` with `fastmath<afn>`: one `MUFU.TANH`) and one
        `math.fma` an element, half the special-function work of `silu`. Its error is
        |h| times tanh.approx's (`TANH_APPROX_ERROR`, 2^-10.987) plus the fma's rounding:
        at most 2^-11.98 |y| + 2^-24 |silu(y)|, so within bf16's rounding of silu(y) for
        y >= 0 (|silu(y)| >= |y| / 2) but not where y is negative and silu(y) small
        (y = -8: 2^-9 against |silu(y)| = 2^-8.5); docs/matmul.md's bound has the term
        2^-11 |z| for it. Not the default for that reason: a caller asks for it by name.

        `exp2_fma` k > 0: `silu`'s exp2 carries `cuda.EXP2_FMA_ATTR` = k, which lower-to-gpu
        turns into `cuda.ex2_fma` (2^x of x clamped to [-125, 127], 2^-22 relative, no
        `MUFU`) in k of every 8 registers: the `MUFU` ops an element 2 - k / 8. The
        quotient is the same: below the clamp (y > 86.6) 1 + 2^-125 rounds to 1 as 1 + e^-y
        does; above it (y < -88.03) the divisor 1 + 2^127 exceeds 2^126, where `div.approx`
        gives 0 as it does for 1 + inf (the reference executor: y 2^-127, inside the bound's
        absolute 2^-20 term); the error within that term (tests/unit/test_ex2_fma.py: every
        bf16 y). 2 of 8 is the rule's for `silu`'s staggered tile (`gemm.staggered`): -0.5% and
        -0.6% per call in two calls at 8192 x 28672 x 4096 on the H200; 3 and 4 of 8 tie
        (benchmarks/NOTES.md, epi48).

        `div_group` G (2 or 4): `silu`'s divisor clamped to 2^(124 / G) by `arith.minnumf` (a NaN
        divisor becomes the clamp), so that `passes/_float_range.py` knows G of them multiply
        within 2^124 and lower-to-gpu computes G registers' quotients through one
        `cuda.div_approx_group` (G = 2: r = rcp(d0 d1), q0 = y0 (d1 r), q1 = y1 (d0 r)), 2^-21
        relative where `div.approx` is 2^-22; the numerator floored at -2^(124 / G - 22) by
        `arith.maximumf` (a NaN y stays NaN), so that past the clamp (y < -42.97 at G = 2,
        -21.49 at G = 4) the quotient is at most 2^-22 in magnitude (not relative; within the
        bound's absolute term; -inf gives -2^-22 where the default gives NaN)."""
        p = g.p
        y = acc.named("acc")
        if self.plain:
            return y.cast(self.out_dtype).named("h")
        v = self.vectors(g, bx, by, rows, cols, layout) if vectors is None else vectors
        ax = 1 if getattr(g, "swap", False) else 0
        for name in ("scalea", "scaleb") if self.scale else ():
            y = (y * p.broadcast(p.expand_dims(v[name], ax).named(f"{name}row"), [rows, cols])).named("scaled")
        if self.bias:  # widened, then broadcast over the rows
            y = (y + self.bias_rows(g, v["bias"], rows, cols)).named("biased")
        if self.activation == "relu":
            y = p.maximum(y, 0.0).named("relu")
        elif self.activation == "silu":  # y sigmoid(y) = y / (1 + e^-y), e^-y = 2^(-y log2 e)
            e = p.math("exp2", (y * -LOG2_E).named("ylog2e"), fastmath="afn").named("expneg")
            if self.exp2_fma:  # k of every 8 registers' exp2 on the FMA pipe (lower-to-gpu)
                from xdsl.dialects.builtin import IntegerAttr, i64

                from tilec.dialects import cuda

                e.ssa.owner.attributes[cuda.EXP2_FMA_ATTR] = IntegerAttr(self.exp2_fma, i64)
            d = (e + 1.0).named("denom")
            if self.div_group:  # never NaN, G of them within 2^124: quotients in groups (lower-to-gpu)
                clamp, floor = silu_group_bounds(self.div_group)
                d = p.minimum(d, clamp, propagate_nan=False).named("denomc")
                y = p.maximum(y, floor).named("ynum")  # a NaN stays: `max.NaN`
            y = p.div(y, d, fastmath="afn").named("silu")
        elif self.activation == "silu_tanh":  # y sigmoid(y) = h (1 + tanh h), h = y / 2
            h = (y * 0.5).named("halfy")
            y = p.fma(h, p.math("tanh", h, fastmath="afn").named("tanhh"), h).named("silu")
        elif self.activation == "gelu":  # y * (1 + erf(y / sqrt 2)) / 2
            e = p.math("erf", (y * 0.7071067811865476).named("yscaled")).named("erfy")
            y = ((y * 0.5).named("half") * (e + 1.0).named("erf1")).named("gelu")
        if self.residual:
            tr = p.tile(g.Res, [bx, by], [rows, cols]).named("tres")
            y = (y + p.load(tr, layout or g.mma).named("res").cast("f32").named("resf")).named("summed")
        return y.cast(self.out_dtype).named("h")


LOG2_E = 1.4426950408889634
"""log2(e): SiLU's e^-y is computed as 2^(-y log2 e) (`Epilogue.apply`)."""

PLAIN = Epilogue()
"""C = A @ B rounded to bf16."""

SCALE_BLOCK = 128
"""The extent of a block scale of FP8 operands (DeepSeek-V3's): one f32 scale of A per
row and 128 columns of K, one of B per 128 x 128 block (`gemm_hopper_ws(block_scales=True)`)."""

SCALE_PREFETCH_AHEAD = 8
"""`gemm_hopper_ws(scale_prefetch=True)`: the K blocks ahead of a trip's first step whose
scales it asks of L1: one 32-byte sector of a row's f32 scales."""

SCALE_PREFETCH_AHEAD_MN = 2
"""With `scale_a_mn_major` (A's scales MN-major: a step's rows in a sector of their own), the
K blocks ahead of each step whose A scales `scale_prefetch` asks of L1."""


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _k_steps(k: int, bk: int, stages: int) -> int:
    """The K steps of `bk` the loop takes: enough to cover K, rounded up to a multiple
    of `stages` (the loop is unrolled by the stages). The steps past K load boxes that
    lie wholly or partly outside A and B, which the TMA fills with zeros: they add
    nothing to C."""
    return _cdiv(_cdiv(k, bk), stages) * stages


def _check_shape(source: str, m: int | None, n: int, k: int, bm: int, stages: int, dtype: str = "bf16") -> None:
    """Any M, N, K the TMA can address: A's and B's rows 16-byte aligned (K and N
    multiples of 8 bf16, of 16 8-bit floats). Edge tiles are masked: their loads are
    zero-filled and their stores clipped by the TMA (layout.tma_load / tma_store). M
    None: run-time."""
    q = 16 if dtype in FP8_DTYPES else 8
    if min(1 if m is None else m, n, k) < 1 or k % q or n % q or bm % 64 or stages < 2:
        raise ValueError(
            f"{source}: M, N, K >= 1 with K and N multiples of {q} (16-byte rows for the TMA); "
            f"bm a multiple of 64; stages >= 2 (got {m}x{n}x{k}, bm {bm}, stages {stages})"
        )


def _program(m: int | None, n: int, k: int, bm: int, bn: int, bk: int, bc: int, stages: int, mma_warps: int,
             dtype: str = "bf16", epilogue: Epilogue = PLAIN, b_kmajor: bool = False, split_k: int = 1,
             block_scales: bool = False, swap_ab: bool = False, slots: int = 0, serial: bool = False,
             rounds: int = 1, cluster_split: bool = False, scale_a_mn: bool = False):
    """What both programs share up to their `layout.launch`, as a namespace `g`: the
    `tilec.Program` `g.p`, the views `g.A`, `g.B`, `g.C` (and `g.Bias`, `g.Res` of the
    epilogue), the accumulator layout `g.mma` (`bm x bc` over `mma_warps` warps), the
    shared layouts `g.SA`, `g.SB`, `g.SC` (NVMMA 128-byte swizzle) and the index
    constants; `g.gm` (block rows of C) is computed from the index argument `m` when M
    is None. `b_kmajor`: B is K-major in memory (the transpose of a row-major N x K
    matrix, a `torch.nn.Linear` weight), viewed as K x N with strides (1, K), and its
    shared stages are K-contiguous (`NvmmaSharedLayout(..., transposed=True)`): the
    wgmma descriptors are fitted to either (dialects/wgmma.py). `split_k` S > 1: a
    workspace `pw` of S x M x N f32 partial products (`g.W`, M x N x S, after the
    epilogue's operands) and `g.nk` the K steps of one split. `block_scales`: the
    block scales `pscale_a` (M x ceil(K / 128) f32, row-major, or with `scale_a_mn`
    MN-major, strides (1, M): `g.ScaleA`) and
    `pscale_b` (ceil(N / 128) x ceil(K / 128): `g.ScaleB`) after the epilogue's
    operands, and `g.kblast` the last K block. `swap_ab` (M run-time, B K-major): the
    program computes C^T = B^T A^T, its "A" (`g.A`) the N x K row-major B^T, its "B"
    (`g.B`) A^T (K x M, K-major), its C (`g.C`, and `g.Res`) C^T (N x M, strides (1,
    N)); `g.gm` block rows of N, `g.gn` block columns of the run-time M; `g.swap` says
    the per-column vectors of the epilogue (bias, scales) run along the rows; with
    `split_k`, `g.W` is the workspace seen as N x M x S (strides (1, N, M N)) and
    `g.reduce_views` the M x N views the reduction takes instead (`W`, `C`, `Res`, and
    `swap` False). `slots` > 0 (stream-K, swapped): a workspace `pw` of that many
    `bm x bn` f32 tiles, `g.WS` (bm x bn x slots, each tile column-major) as the units
    store them and `g.reduce_views` the fixup's (`WS` seen bn x bm x slots, `C` and
    `Res` M x N, `swap` False). `serial` with `slots` (stream-K summed in the kernel): a
    pointer `pctr` of `slots / 2` i32 counters (`g.Ctr`), one a tile of the tail. `serial` (with `split_k`): a pointer `pctr` of i32 after
    `pw` (`g.Ctr`): S + 1 slots per tile of C (gm x gn row-major), the tile's counter
    (zero on entry, left zero) and its units' flags (`gemm_hopper_ws(serial=True)`).
    `cluster_split` (with `split_k`): no workspace (the splits are summed through
    distributed shared memory, `gemm_hopper_ws(cluster_split=True)`)."""
    from types import SimpleNamespace

    from tilec.compiler.builder import Program
    from tilec.dialects.mma import NvidiaMmaLayout, NvmmaSharedLayout

    if dtype not in INPUT_DTYPES:
        raise TilecError(f"GEMM operands of {dtype!r}: expected one of {', '.join(INPUT_DTYPES)}")
    fp8 = dtype in FP8_DTYPES
    if fp8 and not b_kmajor:
        raise TilecError("GEMM operands of 8-bit floats: B must be K-major (b_kmajor; wgmma reads 8-bit operands K-major)")
    eb = 1 if fp8 else 2

    def smem(rows: int, cols: int, transposed: bool = False, ebytes: int = eb, width: int = 0):
        # `width`: the swizzle of a buffer of that many columns (a row-major buffer of column
        # chunks, each its own swizzle's panels)
        sw = min(128, (rows if transposed else width or cols) * ebytes)
        return NvmmaSharedLayout(sw, 8 * ebytes, transposed).composed([rows, cols])

    p = Program("gemm")
    g = SimpleNamespace(p=p, smem=smem, mma=NvidiaMmaLayout(3, [mma_warps, 1], [64, bc, 32 // eb]), eb=eb,
                        SA=smem(bm, bk), SB=smem(bk, bc, b_kmajor), SC=smem(bm, bc, ebytes=2), out=epilogue.out_dtype)
    ptrs = [p.pointer(name, t, align=16) for name, t in (("pa", dtype), ("pb", dtype), ("pc", epilogue.out_dtype))]
    views = [("A", (m, k), k), ("B", (k, n), n), ("C", (m, n), n)]
    if epilogue.bias:
        ptrs.append(p.pointer("pbias", epilogue.out_dtype, align=16))
        views.append(("Bias", None, n))
    if epilogue.residual:
        ptrs.append(p.pointer("pres", epilogue.out_dtype, align=16))
        views.append(("Res", (m, n), n))
    if epilogue.scale:
        for name in ("ScaleA", "ScaleB"):
            ptrs.append(p.pointer("pscale_" + name[-1].lower(), "f32", align=4))
            views.append((name, None, 0))
    kblocks = _cdiv(k, SCALE_BLOCK)
    if block_scales:  # per (row, K block) of A and per (128 x 128 block) of B
        for name, rows in (("ScaleA", m), ("ScaleB", _cdiv(n, SCALE_BLOCK))):
            ptrs.append(p.pointer("pscale_" + name[-1].lower(), "f32", align=4))
            views.append((name, (rows, kblocks), kblocks))
    pw = p.pointer("pw", "f32", align=16) if (split_k > 1 and not cluster_split) or slots else None
    pctr = p.pointer("pctr", "i32", align=4) if serial else None
    g.m = p.index("m") if m is None else None
    g.swap = swap_ab
    # N a multiple of the column chunks but not of the tile: the last block column's chunks past
    # N are whole tiles past the end, so N's extent is a run-time value (a constant) in the views
    # the chunks tile by plain loads and stores (the vectors; C and Res where M is static: with a
    # run-time M their tiles are masked already), and those tiles masked
    ncols = p.constant(n).named("npast") if not swap_ab and n % bn and not n % bc else None
    for ptr, (name, shape, stride) in zip(ptrs, views):
        if swap_ab and name in ("A", "B", "C", "Res"):  # C^T = B^T A^T
            lay, dyn = {"A": (f"({k},?):(1,{k})", [g.m]), "B": (f"({n},{k}):({k},1)", []),
                        "C": (f"({n},?):(1,{n})", [g.m]), "Res": (f"({n},?):(1,{n})", [g.m])}[name]
            setattr(g, {"A": "B", "B": "A"}.get(name, name), p.view(ptr, lay, dynamic=dyn).named(name))
            continue
        if shape is None:  # a vector of `stride` elements; a scale: one element seen N times
            lay = f"({n}):(0)" if name.startswith("Scale") else f"({stride}):(1)"
            if ncols is not None:
                lay = "(?):(0)" if name.startswith("Scale") else "(?):(1)"
            setattr(g, name, p.view(ptr, lay, dynamic=[] if ncols is None else [ncols]).named(name))
            continue
        if name == "B" and b_kmajor:
            g.B = p.view(ptr, f"({k},{n}):(1,{k})").named("B")
            continue
        r, c = shape
        dyn = [g.m] if r is None else []
        if name == "ScaleA" and scale_a_mn:  # MN-major: each K block's M scales contiguous
            setattr(g, name, p.view(ptr, f"({'?' if r is None else r},{c}):(1,{'?' if r is None else r})",
                                    dynamic=dyn + dyn).named(name))
            continue
        if ncols is not None and r is not None and name in ("C", "Res"):
            c, dyn = "?", [ncols]
        setattr(g, name, p.view(ptr, f"({'?' if r is None else r},{c}):({stride},1)", dynamic=dyn).named(name))
    if pw is not None and slots and not swap_ab:  # stream-K's partials, each bm x bn row-major (as C)
        g.WS = p.view(pw, f"({bm},{bn},{slots}):({bn},1,{bm * bn})").named("WS")
        g.reduce_views = {}
    elif pw is not None and slots:  # stream-K's shared tiles' partials, each bm x bn column-major
        g.WS = p.view(pw, f"({bm},{bn},{slots}):(1,{bm},{bm * bn})").named("WS")
        by_name = dict(zip((name for name, _, _ in views), ptrs))
        g.reduce_views = {"swap": False, "WS": p.view(pw, f"({bn},{bm},{slots}):({bm},1,{bm * bn})").named("WSR")}
        for name in ("C", "Res") if epilogue.residual else ("C",):
            g.reduce_views[name] = p.view(by_name[name], f"(?,{n}):({n},1)", dynamic=[g.m]).named(f"{name}mn")
    elif pw is not None:  # split s's partial products: W[:, :, s], M x N row-major, one after the other
        if m is None:
            mn = (g.m * p.constant(n).named("ncols")).named("mn")
            g.W = p.view(pw, f"(?,{n},{split_k}):({n},1,?)", dynamic=[g.m, mn]).named("W")
        else:
            g.W = p.view(pw, f"({m},{n},{split_k}):({n},1,{m * n})").named("W")
        g.reduce_views = {}  # what the reduction sees differently from the units
        if swap_ab:  # the units store C^T's partials (W seen as N x M x S); the reduction reads M x N
            g.reduce_views = {"swap": False, "W": g.W}
            g.W = p.view(pw, f"({n},?,{split_k}):(1,{n},?)", dynamic=[g.m, mn]).named("WT")
            by_name = dict(zip((name for name, _, _ in views), ptrs))
            for name in ("C", "Res") if epilogue.residual else ("C",):
                g.reduce_views[name] = p.view(by_name[name], f"(?,{n}):({n},1)", dynamic=[g.m]).named(f"{name}mn")
    nk = _k_steps(k, bk, stages * rounds) if split_k == 1 else _cdiv(_cdiv(_cdiv(k, bk), split_k), stages) * stages
    g.nk_steps = nk
    for name, x in [("c0", 0), ("c1", 1), ("c2", 2), ("cs", stages), ("nk", nk), ("last", nk - 1)]:
        setattr(g, name, p.constant(x).named(name))
    if block_scales:
        g.kblast = p.constant(kblocks - 1).named("kblast")
    if swap_ab:  # the rows are N's, the columns the run-time M's
        g.gm = p.constant(_cdiv(n, bm)).named("gm")
        g.gn = p.divui((g.m + p.constant(bn - 1).named("bn1")).named("mup"), p.constant(bn).named("bnc")).named("gn")
    elif m is None:
        g.gm = p.divui((g.m + p.constant(bm - 1).named("bm1")).named("mup"), p.constant(bm).named("bmc")).named("gm")
    else:
        g.gm = p.constant(_cdiv(m, bm)).named("gm")
    if not swap_ab:
        g.gn = p.constant(_cdiv(n, bn)).named("gn")
    if pctr is not None and slots:  # stream-K: a counter a tile of the tail (fewer than the blocks, slots / 2)
        g.Ctr = p.view(pctr, f"({slots // 2}):(1)").named("Ctr")
    elif pctr is not None:
        g.nctr = (g.gm * g.gn).named("nctr")
        g.Ctr = p.view(pctr, "(?):(1)", dynamic=[(g.nctr * p.constant(split_k + 1).named("ctrs")).named("nctrs")]
                       ).named("Ctr")
    return g


def _tile_of(g, m: int | None, n: int, bm: int, bn: int, group: int, cluster: tuple[int, int], t,
             along_n: bool = False) -> None:
    """`g.bx`, `g.by` of the persistent walk's tile `t` (`gemm_hopper_ws`): grouped order
    with `group` > 1 (`_grouped`; `along_n`: of `group` block columns), else row-major; with
    `cluster` (cm, cn) of more than one block, `t` is a group of cm block rows by cn block
    columns (`g.gm2` x `g.gn2` of them, in grouped order of `group / cm` group rows, `along_n`:
    of `group / cn` group columns) and the tile the block's of it, by its place in the cluster
    (`g.rx`, `g.ry`)."""
    p = g.p
    cm, cn = cluster
    if cm * cn == 1:
        if group > 1:
            _grouped(g, m, n, bm, bn, group, t, along_n)
        else:
            g.bx, g.by = p.divui(t, g.gn).named("bx"), p.remui(t, g.gn).named("by")
        return
    gm, gn = g.gm, g.gn
    g.gm, g.gn = g.gm2, g.gn2
    if group > 1:
        _grouped(g, m, n, cm * bm, cn * bn, max(1, group // (cn if along_n else cm)), t, along_n)
    else:
        g.bx, g.by = p.divui(t, g.gn).named("bx"), p.remui(t, g.gn).named("by")
    g.gm, g.gn = gm, gn
    if cm > 1:
        cmv = g.c2 if cm == 2 else p.constant(cm).named("cmr")
        g.bx = ((g.bx * cmv).named("pairrow") + g.rx).named("bx")
    if cn > 1:
        cnv = g.c2 if cn == 2 else p.constant(cn).named("cnr")
        g.by = ((g.by * cnv).named("paircol") + g.ry).named("by")


def _grouped(g, m: int | None, n: int, bm: int, bn: int, group: int, pid, along_n: bool = False) -> None:
    """`g.bx`, `g.by` of the linear tile index `pid` in grouped order (Triton's
    `GROUP_SIZE_M`): consecutive tiles walk down `group` block rows of C, then to the
    next block column, so the blocks in flight share their A and B tiles in L2; the
    last group has the rows that are left (at run time when M is). `along_n`: the same
    walk transposed (CUTLASS's raster along N): consecutive tiles walk along `group` block
    columns, then to the next block row; the last group has the columns that are left."""
    p = g.p
    if along_n:  # the walk of C^T's tiles, its block rows ours columns
        gm, gn = g.gm, g.gn
        g.gm, g.gn = gn, gm
        if m is None:
            _grouped_run_time_rows(g, group, pid)
        else:
            _grouped(g, n, m, bn, bm, group, pid)
        g.gm, g.gn = gm, gn
        g.bx, g.by = g.by, g.bx
        return
    if m is None:
        _grouped_run_time_rows(g, group, pid)
        return
    gm, gn = _cdiv(m, bm), _cdiv(n, bn)
    grw = p.constant(min(group, gm) * gn).named("grw")
    gs = gg = p.constant(min(group, gm)).named("gg")
    grpi, ingrp = p.divui(pid, grw).named("grpi"), p.remui(pid, grw).named("ingrp")
    grow0 = (grpi * gg).named("grow0")
    if gm % min(group, gm):
        gs = p.minui((p.constant(gm).named("grows") - grow0).named("gleft"), gg).named("gsz")
    g.bx = (grow0 + p.remui(ingrp, gs).named("grow")).named("bx")
    g.by = p.divui(ingrp, gs).named("by")


def _grouped_run_time_rows(g, group: int, pid) -> None:
    """`_grouped`'s walk over `g.gm` x `g.gn` block rows by columns as values (at run time
    when M is): groups of `group` block rows, the last one's rows those left."""
    p = g.p
    gg = p.constant(group).named("gg")
    grw = (gg * g.gn).named("grw")
    grpi, ingrp = p.divui(pid, grw).named("grpi"), p.remui(pid, grw).named("ingrp")
    grow0 = (grpi * gg).named("grow0")
    gs = p.minui((g.gm - grow0).named("gleft"), gg).named("gsz")
    g.bx = (grow0 + p.remui(ingrp, gs).named("grow")).named("bx")
    g.by = p.divui(ingrp, gs).named("by")


@contextmanager
def _launch(g, m: int | None, n: int, bm: int, bn: int, threads: int, group: int, nprog: int = 0, split: int = 1,
            stream: int = 0, cluster: tuple[int, int] = (1, 1), split_cluster: bool = False):
    """`layout.launch` over the tiles of C: a (M/bm, N/bn) grid; with `group` > 1 a
    linear one in grouped order; with `nprog` (persistent) a grid of `nprog` blocks
    (at most the tiles: at run time when M is; with `split` S, S units of work per
    tile; not persistent, a third grid axis of S, `g.split`; with `stream` (stream-K,
    the ring's stages) at most the tiles' trips of the ring, `g.trips` a tile's,
    `g.span` a block's, L of `gemm_hopper_ws`); with `cluster` (cm, cn) of C = cm cn > 1
    blocks (persistent) a grid of C min(nprog / C, groups) blocks in clusters of C,
    `g.ntiles` the groups of cm block rows by cn block columns (`g.gm2` x `g.gn2` of
    them), `g.cid` / `g.ncl` the block's cluster and the clusters, `g.crank` its rank,
    `g.crs` the ranks as constants; with `split_cluster` (not persistent, `split` S > 1)
    a grid of S gm x gn blocks in clusters of S along x, cluster (`g.bx`, `g.by`) taking
    tile (`g.bx`, `g.by`), its block of rank s (`g.split`, `g.crank`) split s (`g.crs` the
    ranks). Sets `g.bx`, `g.by` (not persistent) or `g.pid`."""
    p = g.p
    cm, cn = cluster
    size = cm * cn
    if size > 1:  # clusters of cm x cn blocks walk groups of cm block rows by cn block columns (gemm_hopper_ws)
        if cm == 1:
            g.gm2 = g.gm
        elif m is None:
            g.gm2 = p.ceildivui(g.gm, g.c2 if cm == 2 else p.constant(cm).named("cm")).named("gm2")
        else:
            g.gm2 = p.constant(_cdiv(_cdiv(m, bm), cm)).named("gm2")
        g.gn2 = g.gn if cn == 1 else p.constant(_cdiv(_cdiv(n, bn), cn)).named("gn2")
        g.ntiles = (g.gm2 * g.gn2).named("npairs")
        ncl = p.constant(nprog // size).named("clusters")
        if m is None:
            grid = ((p.minui(g.ntiles, ncl).named("ncl") * p.constant(size).named("cl")).named("nprog"), g.c1, g.c1)
        else:
            groups = _cdiv(_cdiv(m, bm), cm) * _cdiv(_cdiv(n, bn), cn)
            grid = (p.constant(size * min(nprog // size, groups)).named("nprog"), g.c1, g.c1)
        if stream:  # stream-K's units of work are the groups, its blocks the clusters
            units = p.divui(grid[0], p.constant(size).named("csize")).named("nclusters")
    elif stream:  # stream-K: the blocks share the tiles' trips of the ring
        g.ntiles = (g.gm * g.gn).named("ntiles")
        alltrips = (g.ntiles * p.constant(_cdiv(g.nk_steps, stream)).named("trips")).named("alltrips")
        grid = (p.minui(alltrips, p.constant(nprog).named("sms")).named("nprog"), g.c1, g.c1)
        units = grid[0]
    elif split > 1 and split_cluster:  # one cluster a tile, one block of it a split
        grid = ((g.gm * p.constant(split).named("splits")).named("units"), g.gn, g.c1)
    elif split > 1 and not nprog:  # one block a unit of work: the grid's third axis is the split
        grid = (g.gm, g.gn, p.constant(split).named("splits"))
    elif split > 1:  # persistent: the tiles' S units of work
        units = (g.gm * g.gn).named("tiles")
        g.ntiles = (units * p.constant(split).named("splits")).named("ntiles")
        grid = (p.minui(g.ntiles, p.constant(nprog).named("sms")).named("nprog"), g.c1, g.c1)
    elif m is None and (nprog or group > 1):
        g.ntiles = (g.gm * g.gn).named("ntiles")
        grid = ((p.minui(g.ntiles, p.constant(nprog).named("sms")).named("nprog") if nprog else g.ntiles), g.c1, g.c1)
    elif nprog:
        g.ntiles = p.constant(_cdiv(m, bm) * _cdiv(n, bn)).named("ntiles")
        grid = (p.constant(nprog).named("nprog"), g.c1, g.c1)
    elif group > 1:
        grid = (p.constant(_cdiv(m, bm) * _cdiv(n, bn)).named("ntiles"), g.c1, g.c1)
    else:
        grid = (g.gm, g.gn, g.c1)
    if stream:  # the full waves of tiles (groups) whole (`g.waves` a block, or cluster), the rest's trips shared
        g.trips = p.constant(_cdiv(g.nk_steps, stream)).named("trips")
        g.waves = p.divui(g.ntiles, units).named("waves")
        g.dp = (g.waves * units).named("dp")
        g.nsk = (g.ntiles - g.dp).named("nsk")
        g.ttrips = (g.nsk * g.trips).named("ttrips")
        # at least 1 (no trips shared: every block's range is empty, the fixup stores nothing)
        span = p.ceildivui(g.ttrips, units).named("span0")
        g.span = ((span + g.c1).named("span1") - p.minui(span, g.c1).named("spanpos")).named("span")
    g.nprog = grid[0]
    ctas = split if split_cluster else size
    with p.launch(grid=grid, threads=threads, cluster=ctas if ctas > 1 else None) as k:
        g.tid = k.tid
        if nprog or group > 1:
            g.pid = k.bx.named("pid")
            k.by.named("b1")
            if size > 1:
                cl = p.constant(size).named("cl")
                g.crank = p.cluster_rank().named("crank")
                g.crs = [g.c0, g.c1] + [p.constant(r).named(f"r{r}") for r in range(2, size)]
                g.cid = p.divui(g.pid, cl).named("cid")
                g.ncl = p.divui(g.nprog, cl).named("ncl")
            if not nprog:
                _grouped(g, m, n, bm, bn, group, g.pid)
        elif split_cluster:
            g.bx, g.by = p.divui(k.bx, p.constant(split).named("splits")).named("bx"), k.by
            g.split = g.crank = p.cluster_rank().named("crank")
            g.crs = [g.c0, g.c1] + [p.constant(r).named(f"r{r}") for r in range(2, split)]
        else:
            g.bx, g.by = k.bx, k.by
            if split > 1:
                g.split = k.bz.named("split")
        yield


def gemm_hopper(m: int | None, n: int, k: int, bm: int = 128, bn: int = 256, bk: int = 64, stages: int = 4,
                group: int = 1, dtype: str = "bf16", epilogue: Epilogue = PLAIN, b_kmajor: bool = False):
    """The program of C = epilogue(A @ B) (the module docstring) as a verified module;
    A m x k, B k x n of `dtype`, C m x n of the epilogue's `out_dtype`, all row-major
    (`pa`, `pb`, `pc`, the epilogue's operands, then `m` when M is None: run-time);
    B K-major (the transpose of a row-major N x K) with `b_kmajor` (`_program`)."""
    _check_shape("gemm_hopper", m, n, k, bm, stages, dtype)
    g = _program(m, n, k, bm, bn, bk, bn, stages, bm // 16, dtype, epilogue, b_kmajor)
    p = g.p
    with _launch(g, m, n, bm, bn, 2 * bm, group):
        sa, sb, bar = {}, {}, {}
        for s in range(stages):
            sa[s], sb[s] = p.alloc(g.SA, dtype).named(f"sa{s}"), p.alloc(g.SB, dtype).named(f"sb{s}")
            bar[s] = p.mbarrier_init(1).named(f"bar{s}")

        def load(s: int, kt, name: str) -> None:
            p.mbarrier_arrive(bar[s], tx=g.eb * (bm + bn) * bk)
            ta = p.tile(g.A, [g.bx, kt], [bm, bk]).named(f"ta{s}_{name}")
            tb = p.tile(g.B, [kt, g.by], [bk, bn]).named(f"tb{s}_{name}")
            p.tma_load(ta, sa[s], bar[s])
            p.tma_load(tb, sb[s], bar[s])

        for s in range(stages - 1):  # prologue: tiles 0 .. stages-2 into stages 0 .. stages-2
            load(s, p.constant(s).named(f"p{s}"), f"p{s}")
        acc = p.full([bm, bn], 0.0, "f32", g.mma, dense=True).named("zero")  # carried: named acc0, then acc
        with p.range(g.c0, g.nk, g.cs, carry=[acc]) as i:
            i.named("i")
            acc.named("acc0")
            phase = p.remui(p.divui(i, g.cs).named("round"), g.c2).named("phase")
            for s in range(stages):  # step i + s: stage s
                p.mbarrier_wait(bar[s], phase)
                d = p.mma(sa[s], sb[s], acc, is_async=True).named(f"d{s + 1}")
                # the previous step's wgmma have read their stage; this step's run on
                acc.assign(p.mma_wait(d, pending=1)[0].named(f"acc{s + 1}"))
                p.barrier()
                far = (i + p.constant(stages - 1 + s).named(f"o{s}")).named(f"far{s}")
                load((s + stages - 1) % stages, p.minui(far, g.last).named(f"next{s}"), f"next{s}")
        (acc,) = p.mma_wait(acc.named("inflight"), pending=0)
        # the loads past the end (the last tile again) land before the block exits
        endphase = p.constant((_k_steps(k, bk, stages) // stages) % 2).named("endphase")
        for s in range(stages - 1):
            p.mbarrier_wait(bar[s], endphase)
        h = epilogue.apply(g, acc, g.bx, g.by, bm, bn)
        p.store(h, p.tile(g.C, [g.bx, g.by], [bm, bn]).named("tc"))
    return p.module


def gemm_hopper_ws(
    m: int | None, n: int, k: int, bm: int = 128, bn: int = 256, bk: int = 64, stages: int = 4,
    producer_regs: int | None = None, consumer_regs: int | None = None, group: int = 1, persistent: int = 0,
    tma_epilogue: bool = False, pingpong: bool = False, handover: str = "drain", chunk: int = 0,
    dtype: str = "bf16", epilogue: Epilogue = PLAIN, b_kmajor: bool = False, split_k: int = 1,
    block_scales: bool = False, swap_ab: bool = False, overlap_epilogue: bool = False, cp_async: str = "",
    partials: int = 2, fma_promote: bool = False, stream_k: bool = False, cluster: tuple[int, int] = (1, 1),
    serial: bool = False, rounds: int = 1, cluster_split: bool = False, box_parts: bool = False,
    global_partials: bool = False, skip_padding: bool = False, a_registers: bool = False,
    one_wgmma: bool = False, pdl: bool = False, pdl_weight: bool = False, l2_ahead: int = 0,
    one_c_buffer: bool = False, stagger: int = 0, consumer_rows: int = 64, half_stores: bool = False,
    scale_prefetch: bool = False, scale_a_mn_major: bool = False, l2_promotion: int | None = None,
    small_stages: int = 0, pdl_late: bool = False, small_prefetch: bool = False, tile_parts: bool = False,
    clip_small: bool = False, b_first: bool = False, arrive_last: bool = False, consumers_apart: bool = False,
    chunk_buffers: bool = False, c_ring: int = 0, c_width: int = 0, c_height: int = 0, c_early: bool = False,
    k_rotate: bool = False,
    b_panels: bool = False, b_fill: bool = False, bias_smem: bool = False, bias_smem_start: bool = False, tile_whole: bool = False,
    k_rotate_step: int = 0, raster_n: bool = False, b_box: bool = False,
    epilogue_turns: bool = False, split_dispatch: bool = False, exp2_fma: int = 0, div_group: int = 0,
    rolled_chunks: bool = False,
):
    """The warp-specialised program of C = A @ B (`layout.warp_specialize`,
    dialects/layout_roles.py), as CUTLASS's sm90 cooperative kernel: a block of
    `bm / 64` consumer warpgroups and one producer warpgroup (`bm * 2 + 128` threads).

    The registers: ptxas gives a kernel that uses `setmaxnreg` the most its
    `__launch_bounds__` allow (168 per thread for 384 threads: 64512 in the block),
    and the regions move them: `dec` frees the producer's, `inc` takes them (it waits
    until they are free), so `bm / 64 * consumer_regs + producer_regs` may not exceed
    `(bm / 64 + 1) * 168` (232 x 2 + 40 = 504 = 3 x 168: all of them). By default the
    producer keeps `PRODUCER_REGS` (`PRODUCER_REGS_CP_ASYNC` where it loads both
    operands with `cp_async`) and the consumers take the most the block's registers
    leave them, rounded down to 8, at most `CONSUMER_REGS` (232 for one or two consumer
    warpgroups; 104 for the four of a swapped `bm` = 256, whose 640 threads launch with 96).

    - the producer (`setmaxnreg dec producer_regs`) fills the ring: the block's k-th
      K step overall (counting over its tiles) goes to stage `k % stages` after a wait
      on the stage's "empty" barrier (from the second round on: phase
      `(k / stages - 1) % 2`), with one `mbarrier_arrive` expecting the stage's bytes
      on its "full" barrier and two TMA loads completing on it;
    - the consumers (`setmaxnreg inc consumer_regs`) wait on "full" (phase
      `(k / stages) % 2`), run the stage's `layout.mma` (each warpgroup its 64 rows)
      and then hand the *previous* step's stage back on its "empty" barrier (one
      arrival per consumer warpgroup: its count is `bm / 64`): each `layout.mma` of a
      step is `{async}`, followed by `layout.mma_wait {pending = 1}` (its wgmma stays in
      flight while the next one issues; the wait's return says the one before has read
      its stage), as CUTLASS's consumer releases the stage `K_PIPE_MMAS` behind;
      after a tile's K loop, a `layout.mma_wait {pending = 0}` and its last stage is
      handed back; no block-wide barrier in the K loop; the
      epilogue stores the accumulator from its layout.

    `group` > 1: the tiles of C are taken in grouped order (`_grouped`).
    `persistent` = P > 0: a grid of min(P, tiles) blocks (P = the GPU's multiprocessors),
    block b taking tiles b, b + P, ... (CUTLASS's persistent tile scheduler): the ring
    and its barriers' phases run on across the block's tiles, so the producer loads
    the next tile's first stages while the consumers store the last one's C.
    `tma_epilogue`: the consumers write C's tile into a 128-byte-swizzled shared
    buffer (`layout.store`: `stmatrix`) and store it with the TMA (`layout.tma_store`,
    the consumers' threads meeting at a named barrier), waiting for the previous
    tile's store to have read the buffer first (`layout.tma_store_wait`) and for
    the last before the block exits: the store of a tile runs on beside the next
    tile's K loop. The buffer (`bm * bn * 2` bytes) comes beside the ring's
    `stages * (bm + bn) * bk * 2`: 3 stages of 128x256x64 with it.

    `pingpong` (needs `persistent`): CUTLASS's sm90 "pingpong" schedule. Two consumer
    regions of one warpgroup each (`warp_specialize warpgroups(1, 1, 1)`) take the
    block's tiles in turn: consumer 0 its 1st, 3rd, ... tile, consumer 1 its 2nd,
    4th, ..., each a whole `bm x bn` tile in its own accumulator (`bm / 64` wgmma of
    m64 per 16 of K). The producer fills the one ring with the block's tiles in order,
    so the consumers' K loops follow each other through the ring (the "empty"
    barriers count one arrival: one warpgroup reads a stage), and consumer 0's
    epilogue and restart run under consumer 1's wgmma. The consumers take turns
    through two "turn" mbarriers (CUTLASS's OrderedSequenceBarrier): a consumer
    waits for its turn before its K loop and gives the turn to the other after its
    last wait on a "full" barrier. Correctness needs this: both wait on the same
    "full" barriers, a round apart, and a wait on a parity whose phase has already
    completed returns at once. `handover` says when the turn is given: "drain"
    after the K loop (which waits for all its wgmma; the measured kernel), "issue"
    in the K loop's last step right after its last `layout.mma` is issued (the
    other's first wgmma then issues under this one's drain, as CUTLASS's consumer
    arrives after issuing its MMAs; the last step of every trip then waits for its
    wgmma), "loop" right after the K loop, before its wait for the wgmma still in
    flight (the last step's: CUTLASS's arrival between `mma` and `mma_tail`, with no
    wait added to the loop). With `tma_epilogue` each consumer has its own
    C buffer (its TMA store meets its own threads only).

    `chunk` = bc < bn: the block's `bn` columns in `bn / bc` column chunks, each with
    its own accumulator (`bm x bc`, `wgmma.m64n{bc}k16`), its own B stage buffers
    (`bk x bc`, loaded by their own TMA loads on the stage's "full" barrier) and its
    own `layout.tile` of C. The `tma_epilogue` then needs a C buffer of `bm x bc`
    only: chunk c is written (`stmatrix`) and stored once chunk c - 1's TMA store
    has read the buffer (`layout.tma_store_wait {pending = 0}`), so 4 stages of
    128 x 256 x 64 (192 KiB) fit beside a 128 x 128 buffer (32 KiB) in 227 KiB.

    `overlap_epilogue` (needs `persistent`, `tma_epilogue` and column chunks; not with
    pingpong, split-K or block scales): the epilogue of a tile's last column chunk runs
    under the tensor cores' work on the block's next tile instead of between the two.
    The consumers issue the next tile's first round of the ring (`stages` K steps) for
    every chunk but the last, without waiting for them, then compute and store the
    previous tile's last chunk (carried over the tile loop in its registers, with its
    coordinates), then issue the last chunk's wgmma of that round, handing each stage
    back once both have read it, and go on with the K loop from its second round;
    after the block's last tile, its last chunk. In the cooperative schedule both
    consumer warpgroups run the epilogue at once, so without it the tensor cores idle
    through the whole epilogue of every tile (the activation's MUFU work included).

    `cp_async` (the operands, "a", "b" or "ab"): the producer loads those operands'
    stages with 16-byte `cp.async` of its 128 threads instead of the TMA
    (`layout.cp_async_load`: the same swizzled stage layout, zeros outside A and B),
    each thread arriving on the stage's "full" barrier when the copies of each such
    `layout.cp_async_load` land (`cp.async.mbarrier.arrive.noinc`), so the "full"
    barriers count 1 + 128 arrivals per cp.async copy of a stage (A's, each column
    chunk's of B) and expect the TMA-loaded operands' bytes only. For rows whose stride is 16 mod 32
    bytes: the TMA reads every other such row from the middle of a 32-byte sector, and
    slowly (benchmarks/NOTES.md). B row-major only (not `b_kmajor`), not swapped.

    `cluster` = (cm, cn), cm cn of `CLUSTER_SIZES` (needs `persistent` P a multiple of
    cm cn, `stages` of cn, `stages` times the column chunks of cm; not with pingpong,
    split-K, cp_async or `overlap_epilogue`; with block scales and `swap_ab` too: swapped,
    (2, 1) pairs two units of N's rows, A^T, the wgmma's "B", multicast to both): the
    blocks run in thread-block clusters of cm cn (`launch(cluster=cm cn)`), as CUTLASS's
    cm x cn cluster shapes: cluster c takes groups of cm block rows by cn block columns,
    the block of rank r its tile (cm i + r % cm, cn j + r // cm) of group (i, j) (tiles
    past M or N: their loads are zeros, their stores write nothing), group p, p + P / (cm
    cn), ... of the ceil(gm / cm) x ceil(gn / cn) groups in grouped order of `group / cm`
    group rows, so every block of a cluster takes the same number of tiles and, at every
    step, shares A with its cluster row (the cn blocks of its block row) and B with its
    cluster column (the cm of its block column): by construction, for every M. Each
    block loads its share of the stage's boxes multicast (`cluster_loads`: A's tile by
    one block of the row, B's chunks spread over the column, each `tma_load(multicast=)`
    to the row or column; an operand not shared, cn or cm 1, loaded by each block
    alone), so 1 / cn of A's and 1 / cm of B's reads from L2 per multiprocessor. Each
    stage's "empty" barrier counts the consumers of the block's cluster row and column
    (`(cm + cn - 1) bm / 64`) and each consumer warpgroup arrives on those blocks'
    (`mbarrier_arrive(cta=r)`): every block whose loads reach it, so no block overwrites
    a stage a peer still reads (CUTLASS's multicast consumer arrival); the "full"
    barriers expect the same bytes as without clusters (the peers' boxes land on them).
    The cluster meets (`cluster_sync`) after the barriers' initialisation and before the
    blocks exit. `tile_parts` (a cluster of cm x 1 blocks, `one_wgmma` or one column chunk, B
    K-major): every
    stage block r of the cluster loads rows part r of cm of the stage's whole B tile (one box
    of bn / cm rows of N across the column chunks, into its rows of the stage's one buffer),
    multicast to the cluster, beside its own A tile: each block issues the same loads every
    stage (cuBLAS's `nvjet_sm90_tst_96x64_64x10_1x2`: 48 of 96 rows each; whole chunk boxes
    in turn leave one block two boxes of 32 rows and the other one). `tile_whole` (the same
    constraints, `stages` a multiple of cm, bn at most 256 rows): stage s's whole B tile as one
    box of bn rows, multicast, issued by block s mod cm alone (one weight request a stage for the
    cluster instead of cm or the chunks' three). `box_parts` (with a
    cluster): instead of whole boxes taken in turn, every
    stage each block of a cluster column loads its part of each of B's boxes (1 / cm of
    its rows along the shared buffer's outer mode: N where B is K-major, K else) and each
    of a cluster row its part of A's (1 / cn of the rows of M), multicast as the whole
    boxes are (`cluster_loads(parts=True)`, CUTLASS's split of a multicast tile); no
    constraint on `stages` or the chunks then, each part a multiple of the swizzle's
    8-row repeat (`layout.tma_load` into a `layout.tile` of the stage's buffer), A's and
    B's boxes at most one 128-byte swizzle wide (a wider box is stored as panels of 128
    bytes, where a part of its rows is not one contiguous piece of the buffer). For operands whose rows are 16 mod 32 bytes (benchmarks/NOTES.md: the L2
    -> SM sectors, not the copy engine).

    `skip_padding` (not with split-K, stream-K, block scales, pingpong, `overlap_epilogue`,
    `cp_async` or `swap_ab`): the steps of a tile's last trip of the ring that lie wholly
    past K (K's `ceil(K / bk)` steps rounded up to whole trips of `stages`, the K loop
    being unrolled by them) load nothing and run no wgmma: the producer waits for the
    stage's "empty" barrier and arrives on its "full" barrier expecting no bytes, the
    consumers wait for it and hand the stage back, so every barrier's phases run on as
    before. Each of the last stages of a trip that a step past K may fall on runs its
    loads and wgmma in a branch on its step (`ksteps`, K being a constant): the loops
    keep one trip's code (the last trip peeled off them was a second copy of those
    stages' wgmma: NVRTC compiled 1.5 times the wgmma, issue 39). 3000 x 5000 x 7000 in
    steps of 64: 110 steps a tile instead of 112; 4000^3: 63 instead of 64.

    `a_registers` (16-bit operands; not with block scales, `overlap_epilogue` or `swap_ab`):
    each K step's A tile is loaded once from its stage into registers (`layout.load` in
    the wgmma's A operand layout, `#layout.dot_op<opIdx = 0, kWidth = 2>`: `ldmatrix`),
    and every column chunk's wgmma takes A from them (`wgmma ... RS`) instead of reading
    it from shared memory again: 1 A read of the stage a step instead of one per chunk.

    `one_c_buffer` (pingpong with `tma_epilogue`): the two consumers share one C buffer
    instead of one each, their epilogues in turn through two "cfree" mbarriers: consumer
    c waits on cfree[c] before writing the buffer (for the other's previous tile's TMA
    store to have read it; not on the block's first tile), and after its last TMA store
    of the tile waits for that store to have read the buffer and arrives on cfree[1 - c]
    (the phases are the turns'). The other consumer's K loop runs meanwhile; 6 stages of
    128 x 128 x 64 (192 KiB) fit beside the one 32 KiB buffer (with two, 4 stages, or 5
    with the barriers after the buffers).

    `stagger` = L > 0 (`bm` 128; persistent; not with pingpong, split-K, stream-K, block
    scales, clusters, `overlap_epilogue`, `swap_ab`, `cp_async`, `one_wgmma`, `a_registers`
    or `skip_padding`; L < `stages` - 1): the cooperative tile in two consumer regions of
    one warpgroup each (`warp_specialize warpgroups(1, 1, 1)`), consumer h computing rows
    64 h .. 64 h + 63 of every tile (its A rows a `layout.tile` of the stage's A buffer)
    and storing them itself (its own C buffer of 64 x bc, its TMA store meeting its own
    threads), so the two warpgroups never meet: consumer 1 runs L K steps ahead of
    consumer 0 (consumer 0 waits, before the block's first tile, on a "lag" mbarrier that
    consumer 1 arrives at once its L-th step's wgmma are issued; from there the lag
    keeps itself: each consumer's epilogue lets the other run alone), and each one's
    epilogue (SiLU's MUFU work) runs while the other's wgmma still run, instead of both
    at once with the tensor cores idle. Each stage's "empty" barrier counts both. (With
    bias + `silu` at 8192 x 28672 x 4096 on the H200 the lag keeps its size, not its
    direction: clock64 stamps read consumer 1 ahead by ~500 clocks in half the tiles,
    consumer 0 by ~440 in the other half, so the two ~5200-clock epilogues overlap ~90%;
    the plain kernel keeps consumer 1 ahead, benchmarks/NOTES.md, epi47.) With
    `consumers_apart` (not with `epilogue_turns`) the two are one region run apart
    (`warp_specialize warpgroups(2, 1) apart(0)`, as the 192-row tile's): one copy of the
    consumer's code, consumer 0's wait on "lag" and consumer 1's arrival branches on
    `layout.warpgroup_index`, their C buffers one of 128 x bc, each its 64 rows (the same
    bytes); the rule's bias + `silu` kernel 2272 SASS instructions against 3968
    (benchmarks/NOTES.md, epi50).

    `epilogue_turns` (with `stagger`): the two consumers' epilogues in turn, consumer 1's
    (the one ahead) first: consumer 0 meets named barrier `EPILOGUE_TURN_BARRIER` (`bar.sync`)
    past its K loop (its last stage handed back), before its epilogue, and consumer 1 arrives
    there (`bar.arrive`) once its tile's epilogue has issued its last TMA store. Their
    epilogues' MUFU work (SiLU's) then does not share the schedulers, and consumer 0's
    epilogue runs while consumer 1's next K steps run, instead of the two epilogues at once
    with the tensor cores idle. Both consumers take the same tiles, so the arrivals and the
    meetings pair tile by tile where consumer 1 cannot arrive twice before consumer 0 meets
    once: its next tile's last step needs the stage consumer 0 hands back `stages` steps
    before, which lies past consumer 0's meeting where a tile has more K steps than stages.
    With one trip of the ring a tile (K <= `stages` `bk`) nothing changes. The barrier
    orders no memory: it only schedules. Slower where measured (benchmarks/NOTES.md,
    epi47): one consumer's SiLU epilogue alone runs at about half the MUFU pipes' rate
    (one warp a scheduler), the two at once near it.

    `exp2_fma` k (0 to 8): `epilogue`'s `Epilogue.exp2_fma`, SiLU's exp2 on the FMA pipe in k
    of every 8 elements (the epilogue's other fields as given; nothing else changes).

    `div_group` G (0, 2 or 4): `epilogue`'s `Epilogue.div_group`, SiLU's quotients G through one
    `rcp.approx` (the epilogue's other fields as given; nothing else changes).

    `rolled_chunks` (the TMA epilogue through one C buffer, column chunks; not with pingpong, split-K,
    stream-K, block scales, `overlap_epilogue`, `half_stores`, `chunk_buffers`, `c_ring` > 1 or
    `b_panels`): the tile's epilogue one trip of a loop over its column chunks (`#pragma unroll 1`)
    instead of a copy a chunk: the loop carries the chunks' accumulators and each trip stores
    the first and moves the others down one (chunk c + 1's into chunk c's registers: 64 moves a
    thread a trip for 64-row consumers of 128-column chunks), its column, bias (loaded in the
    trip; none before the K loop) and TMA store at the trip's chunk. The same values and
    stores in the same order; the epilogue's code a chunk's, not `bn / chunk` copies (issue 39:
    instruction fetch, benchmarks/NOTES.md epi49/epi50).

    `bias_smem` (persistent; the TMA epilogue; without a bias it changes nothing; not with pingpong, split-K,
    stream-K, block scales, clusters, `overlap_epilogue`, `swap_ab`, `small_stages` or
    `pdl_weight`): the producer copies the tile's `bn` bias elements into shared memory
    (one TMA box into a ring of two `bn`-element buffers, the block's tile j into buffer
    j % 2), completing on the "full" barrier of the tile's first K step (stage 0: a tile's
    steps are whole trips; its bytes expected by `layout.mbarrier_expect_tx` before the
    stage's arrival), and the epilogue loads each chunk's bias from there (shared loads,
    no global latency) instead of from global memory (the first chunk's before the K
    loop). No barrier of its own: the producer writes buffer j % 2 again for tile j + 2
    only after its wait on stage 0's "empty" barrier for that tile, which both consumers
    arrive at in tile j + 1's K loop, past their epilogues of tile j.
    `bias_smem_start` (with `bias_smem`; no per-tensor scales, which multiply the sum
    before the bias): the staged bias as the accumulators' starting value instead: each
    consumer waits on stage 0's "full" barrier of the tile's first step before its K loop
    (the loop's own wait there then returns at once), loads its columns' bias from
    shared memory, widens and broadcasts it into its chunks' accumulators, which the
    wgmma accumulate into; the epilogue adds no bias (`Epilogue.without_bias`). The sum
    is the same up to the rounding's order (the bias the first addend, not the last).

    `bm` = 192 (consumer warpgroups of 64 rows whose count, 3, is not a power of two; not
    with pingpong): one consumer region run apart by its three warpgroups
    (`warp_specialize warpgroups(3, 1) apart(0)`: one copy of the code; each warpgroup
    runs it as a region of its own), each computing its 64 rows of the tile (its A rows a
    `layout.tile` of the stage's 192-row A buffer at `layout.warpgroup_index`) into its own
    64-row accumulator and storing them through its 64 rows of one C buffer of 192 x bc,
    its TMA stores meeting its own 128 threads (named barrier 1 + its index): one
    `#layout.nvidia_mma` over the three warpgroups' 12 warps is no linear layout
    (`warpsPerCTA` and the tile's rows powers of two). With three regions of one
    warpgroup each (before), the kernel was three copies of the consumer's code: 345
    thousand characters of CUDA at 4000^3 against 127, NVRTC 1.07 s against 0.41 here.
    cuBLAS's 4000^3 tile, 192 x 160 (`192x160x64:4:c32:ow`: one m64n160k16 a consumer
    and step, 4 stages and the C buffer of 192 x 32 in 189 KiB; 512 threads,
    `setmaxnreg` 152 for the consumers' 80 accumulator registers and 40 for the
    producer). Each stage's "empty" barrier counts the three.

    `one_wgmma` (column chunks, `bn` <= 256; not with pingpong, block scales with one
    partial or `overlap_epilogue`): a stage's B is one shared buffer of `bk x bn` (the chunks' B
    buffers its column tiles, one after the other, each still loaded by its own TMA),
    and each K step issues every chunk's `layout.mma {async}` one after the other, then
    waits once (`pending` = the chunks: the previous step's groups retired), so that
    `lower-to-gpu` issues them as one `wgmma.m64n{bn}k16` a warpgroup (passes/lower_to_gpu/
    wgmma.py, `_run`): A read from shared memory once a step instead of once a chunk,
    as the accumulators, the epilogue and the C buffer stay the chunks' (128 x 192 in
    chunks of 64: one m64n192k16 instead of three m64n64k16).
    With `one_wgmma` the chunks may be 32 columns (a 64-byte swizzle for their B panels
    and the C buffer): 160 columns are five chunks of 32, one m64n160k16. With block
    scales (two partials) they may be 16 (a chunk never crosses a scale block of N), so
    that a tile's columns need not divide 128 (DeepGEMM's block N of 112, 144: 8192
    columns in rounds of 132 blocks with less left over): one m64n112k32 a step, each
    chunk its own partial and scale of B; where the tile lies in at most two scale
    blocks (`bn` <= 128 + the chunk) a step loads those two B scales and each chunk
    selects its block's (`paired`), instead of one load a chunk; B's stage is then one TMA
    box of `bn` rows (`whole_b`: a 2 KiB box a chunk of 16, 8 boxes a stage, ran the 128 x 128
    kernel at 0.72 of the rule's on the H200).

    `split_dispatch` (`one_wgmma` chunks of block scales in at most two scale blocks, not
    stream-K): the consumers' K loop built once for each way the tiles' chunks split
    between their two blocks of N's scales (7 at 112 columns over N = 8192; one where
    every tile lies in one block), each tile's taken by a chain of branches before its
    loop (DeepGEMM's `dispatch_num_former_iters`): each chunk's B scale a constant
    choice of the copy, no select a step; the same bits.

    `b_box` (`one_wgmma`, B K-major, no cluster, TMA loads): B's stage tile as one TMA box of
    `bn` rows into the stage's one buffer (block scales' `whole_b`), not a box a chunk: the decode
    halves' 64 x 96 tile two loads a stage (A's, the weight's) instead of four.

    `b_panels` (`one_wgmma`, B MN-major, B's boxes not shared (cm 1), TMA loads, no split-K or
    stream-K): B's stage tile as 128-byte swizzled panels (`bn // panel` of them, a panel 128
    bytes of columns) in one buffer and, where `bn` leaves one chunk past them (panels of two
    chunks), that chunk in a buffer of its own swizzle: one TMA box a panel and one for the
    chunk instead of one a chunk, and the wgmma the runs of chunks one descriptor reads (the
    256 x 160 tile: one m64n128k16 and one m64n32k16). A box's global start being a multiple
    of its width, odd block columns of such a tile take the chunk left as their first chunk
    and the panels after it (`g.bys`, the chunks' global columns, rotated by the block
    column's parity; the accumulators and the epilogue follow `g.bys`). `b_fill` (with
    `b_panels`, panels of two chunks and one left): the chunk left in the first columns of a
    third panel of the stage's buffer instead, its 64-byte box rows landing 128 bytes apart
    (the copy engine pads a box narrower than its swizzle row: `TmaGeometry.pad`): the stage's
    B one buffer of whole panels (the 256 x 160 tile: 64 x 192, 24 KiB, cuBLAS's), the wgmma
    one m64n{bn}k16 over the panels.

    `consumer_rows` = 128 (persistent, TMA epilogue; not with pingpong, swap_ab, block
    scales, split-K, stream-K, `overlap_epilogue`, `a_registers` or cp_async): `bm / 128`
    consumer warpgroups of 128 rows each instead of `bm / 64` of 64 (cuBLAS's 256 x 160 in
    two warpgroups). The accumulator layout is the same `#layout.nvidia_mma` over their
    warps, on twice the rows a warp: each warpgroup holds two m64 row blocks (rows 0-63 and
    128-191, 64-127 and 192-255 of 256), and each `layout.mma` lowers to one wgmma a row
    block (one commit group). `half_stores` (with it, on 256 rows): each column chunk's C is
    stored as its two row halves (the accumulator's top row bit is a register bit: split
    with no data moving, `_row_halves`) through two C buffers of 128 rows, each half written
    once the TMA store before the previous one has read its buffer (`tma_store_wait {pending
    = 1}`), so one half's `stmatrix` runs under the other's store, in the bytes of one
    chunk's buffer. `chunk_buffers` (TMA epilogue, column chunks; not with pingpong,
    `half_stores` or `overlap_epilogue`): a C buffer for each column chunk, so that a chunk's
    shared-memory writes wait for no earlier chunk's TMA store of the tile, only the first
    for the previous tile's stores (`tma_store_wait {pending = 0}` once a tile).
    `c_ring` = R, `c_width` = W, `c_height` = H (TMA epilogue; not with pingpong, `half_stores`,
    `overlap_epilogue` or `chunk_buffers`): each chunk's C stored as its row parts of H of a
    consumer region's rows, each as column parts of W (both dividing by a power of two; W a
    multiple of 16; split from the accumulator's registers with no data moving, `_halves`: a
    row bit to split must be a register bit) through a ring of R C buffers of H x W (in a region
    run apart each warpgroup's rows of them): the tile's part q written into buffer q % R once
    part q - R's TMA store has read it (`tma_store_wait {pending = R - 1}`, `_ring_wait`), so
    R - 1 stores read shared memory while a part is written. One path with the others: one C
    buffer is R = 1, `chunk_buffers` R = the tile's parts, `half_stores` R = 2, H = rows / 2.
    256 x 160 in chunks of 32: `c_ring=2, c_width=16`, two 256 x 16 buffers in one chunk's 16 KiB.
    `c_early` (with `c_ring` >= 2): the wait for a buffer moved a part earlier, so that one meeting
    a part is left: after part q is written, before its store's meeting, the region's first
    thread waits for part q + 1 - R's store (`tma_store_wait {pending = R - 2}`, `_early_wait`;
    its meeting is the store's), which then reads under part q's writes; only the tile's first
    part waits (for every store) before it is written.

    `dtype` (A and B), `epilogue`, `b_kmajor` and `m` None (run-time M) as in `gemm_hopper`; with a
    run-time M the persistent grid is min(`persistent`, tiles) computed at launch.

    `split_k` = S > 1 (split-K, for small M: the memory-bound regime, where the tiles
    of C alone leave most multiprocessors idle): each tile is S units of work, unit s
    taking the s-th of S equal ranges of K steps (the steps past K add zeros, as the
    TMA fills them) and storing its f32 partial product into the workspace `pw`
    (`W[:, :, s]`); a second launch (`_split_k_reduce`) sums the S partials in order
    and applies the epilogue once (the same bits on every run). Needs `persistent`
    (the units walked over the blocks) or `swap_ab` (one block a unit, the grid's
    third axis the split; C^T's partial stored through a view of the workspace with
    strides (1, N, M N), so the reduction reads M x N; persistent or not), no chunks
    but `one_wgmma`'s (each chunk's partial stored, and `serial`'s sum taken, chunk by
    chunk: the decode tile of all M's rows by 96 columns split over K), no pingpong, no
    TMA epilogue.

    `serial` (with `split_k`: CUTLASS's serial split-K fixup, no second launch): after storing its partial, a unit's consumer warpgroups meet
    (`layout.named_barrier`), consumer thread 0 fences (`layout.fence`, gpu scope: a
    release of the partial), adds 1 to its tile's counter (`layout.atomic_add` on
    `pctr`, one i32 a tile of C, relaxed) and fences again (the acquire), and the
    counter's old value goes to the consumers through the unit's flag in global
    memory (`pctr` past the counters; through shared memory, ptxas gave up `setmaxnreg`
    at O's M = 32 and spilled); the unit that
    arrives last (old value S - 1) subtracts S (the counter is 0 again for the next
    call: `pctr` is zero on entry and left zero, no memset), sums the S partials of its
    tile in order s = 0 .. S-1 from the workspace (the bits of `_split_k_reduce`), a
    chunk of `SERIAL_COLUMNS` columns at a time, applies the epilogue and stores C:
    in the accumulator's layout, or swapped as M x N in a blocked layout of 4-element
    rows along N (16-byte loads of the partials and stores of C along the weight's
    rows, as the second launch reads and writes them). Concurrent launches
    sharing one `pctr` are not allowed (each call's counters must be its own while it
    runs). With `stream_k` instead of `split_k`: stream-K's fixup in the kernel, no
    second launch. A block that stores a shared tile's partial into its slot arrives as
    above on the tile's counter (`pctr`: P counters, one a tile of the tail, in clusters
    one a tile of a group of the tail; zero on entry, left zero; the old value reaches
    the consumers through shared memory), the tile's blocks (clusters) b0 .. b1 counted
    from the schedule; the last to arrive (old value b1 - b0) puts the counter back to 0
    and sums the tile's partials in the order of its blocks (`_stream_k_sum`:
    `STREAM_K_SUM_ELEMENTS` a thread of the consumers, M x N along N as the fixup launch
    reads them, the same bits), applies the epilogue and stores C; no block waits for
    another, so the grid need not be resident at once.

    `cluster_split` (with `split_k` = S, 2 <= S <= `MAX_CLUSTER_SPLIT` dividing `bm / 4`,
    and `swap_ab`; not persistent, not `serial`): the S units of a tile run as the S blocks of one
    thread-block cluster (`launch(cluster=S)`: a grid of S gm x gn blocks, the block of
    rank s taking split s) and are summed through distributed shared memory: no
    workspace, no counters, no second launch, safe on any stream. Each unit's
    consumers store its f32 partial (`bm x bn`, N contiguous, `CLUSTER_SPLIT_PAD`
    between columns) into a shared buffer of their own (the ring's barriers placed after it, so 4 stages of M = 128 fit beside
    its 32 KiB); after the roles the cluster meets (`cluster_sync`), and each block
    sums `bm / S` rows of N of the tile, all its M columns, from the S blocks' buffers
    in split order (`layout.peer_view`: s = 0 .. S-1, the bits of `_split_k_reduce`),
    every thread of the block taking part (16-byte loads along N; with two or four
    consumer warpgroups, whose block of 3 or 5 does not split the tile evenly, the
    consumers' threads, in a second `warp_specialize`), applies the epilogue and stores
    its rows of C; the cluster meets again before any block exits (its
    buffer is read by the peers until then). A tile's weight stream is spread over S
    multiprocessors, its reduction and stores too.

    `global_partials` (with `cluster_split`): the units' f32 partials go through a
    workspace in global memory instead (`pw`, S x M x N as `split_k`'s: each unit stores
    its partial there, mostly into L2), and after the cluster meets each block sums its
    rows of the tile from the S partials there in split order (the same bits, one
    cluster barrier: no distributed shared memory): the shared memory a partial of
    `bm x bn` f32 takes (64 KiB at 128 x 128) is the ring's, for more stages.

    `block_scales` (8-bit float operands; DeepSeek-V3's fine-grained scaling, as
    DeepGEMM computes it): C = epilogue(sum over K blocks kb of (A_kb @ B_kb) *
    sa[m, kb] * sb[n / 128, kb]), with `pscale_a` (M x ceil(K / 128) f32, row-major)
    and `pscale_b` (ceil(N / 128) x ceil(K / 128)) after the epilogue's operands
    (`SCALE_BLOCK` = 128 = `bk`: one K step is one K block). Each K step's wgmma
    accumulate from zero into a partial accumulator of their own (`{async}`), and the
    partial times the step's scales (the tile's rows of `sa`, clipped at M, times the
    chunk's one `sb`) is added into the f32 main accumulator (the promotion, each 128
    of K: the fp8 wgmma's narrow accumulation never runs longer). A step's promotion
    runs under the next step's wgmma: in a trip of the K loop (a round of the ring)
    step s's wgmma are issued, then step s - 1's waited for (`pending` = the chunks),
    its stage handed back and its partials promoted; the trip's last step is waited
    for (`pending = 0`: a partial in flight across the loop's back edge makes ptxas
    serialize the wgmma), its stage handed back, and its partials carried to the
    next trip, promoted under that trip's first wgmma (and after the loop). A step's
    scales are read before its wgmma issue, a step before their use. The steps past K
    read the last K block's scales (their partial products are zeros). Needs `bk` =
    128, column chunks (or `bn`; swapped: `bm`) dividing 128, no pingpong, no
    split-K, no per-tensor `epilogue.scale`.

    `partials` (block scales only): how many partial accumulators of a chunk a
    consumer holds. 2 (the schedule above): a step's partials in flight while the
    previous step's are promoted, so a consumer warpgroup holds its main accumulators
    and two partials per chunk (`bm x bn` of main, `2 bm x bn` of partials over the
    block: 192 registers a thread at 128 x 128). 1 (DeepGEMM's schedule): one partial
    of `bm x bc`, reused by every chunk and step: in step s, chunk by chunk, the
    chunk's wgmma issued into it, waited for (`pending = 0`), the step's stage handed
    back after its last chunk's wait, and the partial promoted into the chunk's main
    accumulator before the next chunk's wgmma issues. A warpgroup's promotion then
    runs under the *other* consumer warpgroups' wgmma (the tensor cores are the
    multiprocessor's, shared), not its own; the registers are `bn / 2 + bc / 2` a
    thread (192 at 128 x 256 in chunks of 128), so a tile twice as wide fits. The
    scales of step s are read before its wait on the "full" barrier. Both schedules
    promote in the same order with the same arithmetic (the same bits).

    `rounds` (block scales with two partials): the ring's rounds a trip of the
    consumers' K loop takes (the K steps rounded up to `stages * rounds`): each trip
    ends waiting for its last wgmma (`pending = 0`, above), so with 2 the tensor cores
    drain once every 2 `stages` steps instead of every `stages`; the same bits.

    `fma_promote` (block scales only): each promotion `acc + partial * scale` as one
    `math.fma` (one rounding, one FFMA an element) instead of a multiply and an add
    (two roundings and two instructions under the FMA policy, `--fmad=false`). The
    rule's configurations take it (`FP8_BLOCK_CONFIGS`: 8-9% faster on the H200);
    ptxas takes it without spills in the two-partial kernels, but swaps the register
    blocks of the one-partial 128 x 256 kernel's accumulator and partial between chunks
    and spills there, so it stays a keyword.

    `swap_ab` (decode sizes: M run-time and small, B K-major): the program computes
    C^T = B^T A^T, so N rides the wgmma's 64 rows and M its N (`bn`, 8 to 256; the
    tile's columns past M are zero-filled loads and masked stores): its "A" is B^T
    (N x K row-major: the `torch.nn.Linear` weight itself), its "B" is A^T (K-major),
    its C^T is stored through a view of C with strides (1, N) from the accumulator's
    layout (no TMA store), the bias and scales run along its rows. The arguments are
    the same as without it; with `block_scales` A's scales run along its columns and
    B's along its rows (`bm` dividing 128). Needs `m` None, `b_kmajor`, no
    grouping, pingpong, chunks or TMA epilogue (split-K: above). Without `persistent`
    one block takes one unit of work (a tile, or with `split_k` one split of a tile:
    the grid's third axis); with it (`persistent` = P) min(P, units) blocks walk the
    units as the persistent tiles do (unit u: split u % S of tile u / S, tiles in
    row-major order of C^T's block rows and M's block columns), the ring running on
    across a block's units, so a block's start (barriers, `setmaxnreg`, the ring's
    first fill) is paid once per block, not once per unit.

    `stream_k` (needs `persistent` = P; not with `split_k`, pingpong, `overlap_epilogue`
    or one partial): a data-parallel + stream-K hybrid, as CUTLASS's
    stream-K scheduler with data-parallel waves. Over the grid's G = min(P, tiles x
    trips) blocks, the full waves of tiles, W = tiles // G each block (tiles b, b + G,
    ... below W G, in the walk's order: grouped with `group`), are taken whole as by
    `persistent` alone; then the rest, the tail, share their K work evenly in rounds of
    the ring (`stages` K steps, the tile's `nk / stages` trips): the T = tail x trips
    trips in order (tile-major), block b taking trips [b L, min((b + 1) L, T)) with L =
    max(1, ceil(T / G)), so no block takes more than one trip more than any other. A
    block walks the tail's tiles its range meets; a tile whose trips one block takes
    whole is stored with the epilogue, the segment of a tile shared by several blocks is
    stored as an f32 partial into the workspace `pw` of 2 G slots of `bm x bn` (slot 2
    b: block b's first tile of the tail, 2 b + 1: its last), swapped column-major (M's
    columns contiguous), else row-major; a second launch (`_stream_k_fixup`) sums each
    shared tile's partials in the order of its blocks (the same bits on every run),
    applies the epilogue and stores it (with `serial`: the tile's last block to arrive,
    in the same kernel, above). The ring and its phases run on across a block's
    tiles and segments. Swapped (decode sizes), tiles < G mostly: no full wave, all
    stream-K. With `cluster`, the units are the walk's groups of cm x cn tiles and the
    blocks sharing them the clusters (G = the grid's clusters): every block of a cluster
    walks the same segments, each its own tile of the group, so the multicast loads and
    the "empty" barriers' arrivals are as without stream-K; each block writes its own
    slots, and the fixup sums a tile's partials from the blocks of its rank. With
    `block_scales` (two partials) a segment's trips are whole K blocks, each promoted
    with its scales in the segment's K loop: its partial is the scaled f32 sum of its
    K blocks, and the fixup adds them as without scales.

    `pdl` (programmatic dependent launch, dialects/layout_tma.py): every thread runs
    `griddep_launch_dependents` after the barriers' initialisation (the stream's next
    kernel, launched as a dependent, may then place its blocks on the multiprocessors
    this grid leaves free or frees) and `griddep_wait` before the roles, so nothing of
    this kernel reads or writes global memory before the previous kernel has completed;
    the runtime launches the kernel with the attribute (`KernelInfo.programmatic`). What
    it overlaps: the launch, the blocks' start and the barriers' initialisation with the
    previous kernel's tail. `pdl_weight` (with `pdl`; not with cp_async or clusters of cn > 1): the
    producer waits instead in the block's first trip, after the loads of the weight's
    boxes of all the ring's stages (B's; swapped, A's = B^T) and before the small
    operand's, the consumers at the start of their role: the weight's first stages are
    in flight under the previous kernel's tail. In clusters of cm x 1 (the halves' pairs
    sharing the weight) each block loads its share of the multicast weight boxes
    (`cluster_loads`) before its wait: a peer's copies may land on a block's "full" barriers
    before that block's producer arrives on them (as in every trip). It needs the weight not written by the
    kernels before this one on the stream (a model's weights: constants).

    `pdl_late` (with `pdl`): the dependents are let in by the producer
    after its walk's last loads are issued instead of by every thread at the start, so the
    next kernel's blocks start (and wait) only while this one's last stages land and its
    consumers finish, not over its whole run.

    `l2_ahead` = D (swapped, not stream-K; in clusters of cm x 1, where each block loads
    its own weight rows): after each trip's loads the
    producer asks L2 for the unit's weight rows of the trip D trips later
    (`layout.prefetch`, `cp.async.bulk.prefetch.L2`: a row of `stages * bk` elements
    each), so that trip's TMA loads find them in L2: the weight's bytes in flight are
    then not bounded by the ring's shared memory (a multiprocessor's fill at M = 128,
    its ring's bytes over DRAM's latency), the ring's by L2's latency instead. Measured
    twice as slow on the H200 (64 prefetches of 1 KiB a trip; benchmarks/NOTES.md, dec37).

    `scale_prefetch` (block scales): the consumers ask L1 for scales ahead of their loads
    (`layout.prefetch_l1`): each trip B's and, row-major, A's rows' of the K block
    `SCALE_PREFETCH_AHEAD` (8: the next 32-byte sector of a row) on; with
    `scale_a_mn_major`, each step A's rows' `SCALE_PREFETCH_AHEAD_MN` (2) K blocks on.
    `scale_a_mn_major` (block scales): `pscale_a` holds A's scales MN-major (strides (1, M):
    each K block's M scales contiguous, as DeepGEMM takes them), so a warp's load of a
    step's scales of 8 consecutive rows reads one 32-byte sector instead of 8 lines.
    Both options until measured (benchmarks/NOTES.md, fp838).
    `l2_promotion` (bytes: 0, 64, 128, 256; None: `DEFAULT_L2_PROMOTION`, 128): the L2 sector
    promotion of the producer's TMA loads of A and B (not the clusters' multicast ones): 256
    brings a row's next K step (its next 128 bytes of 8-bit operands) into L2 with each miss.
    An option until measured.

    `small_stages` = R (swapped; R >= 2 dividing `stages` / 2 (the consumers hold a stage
    of each ring while they wait for the next); not with stream-K, block scales,
    clusters, `pdl_weight`, `l2_ahead` or cp_async): the small operand (A^T, the wgmma's "B")
    gets a ring of its own of R stages, with its own "full" and "empty" barriers, beside the
    weight's ring of `stages` stages, so that the weight's bytes in flight are not tied to
    A^T's: each stage of A^T is held only over L2's latency, each of the weight over DRAM's
    (Little's law for each; at M = 128 a step's A^T is twice its 64 rows of weight, so one
    ring of 4 stages of 48 KiB holds 64 KiB of weight, two rings of 8 x 16 and 2 x 32 KiB
    hold 128). The producer's thread issues, in a unit's first trip, the weight's steps 0 ..
    `stages` - 1 with A^T's steps 0 .. R - 1 after the last R of them, then each trip the
    weight's step i + s with A^T's step i + s - (`stages` - R) (both waits release once the
    consumers have finished step i + s - `stages`), and after the unit's last trip A^T's last
    `stages` - R steps; the consumers wait on both rings' "full" barriers and hand both
    stages back. A^T's phases are constants within a trip (`stages` / R even). At a unit's
    end the weight's lead drops to R + 1 steps (the next unit's first loads wait for A^T's
    tail): for one unit a block (the decode rule's grids) nothing is lost.
    `small_prefetch` (with `small_stages`, persistent): before its walk the producer of
    block b asks L2 for rows b, b + G, ... (below `bn`; those past M skipped) of A, the
    small operand (`layout.prefetch`, a row of K elements each, evict_last), so that A^T's stages,
    loaded `small_stages` - 1 steps ahead of their use, come from L2 rather than behind the
    first block's DRAM miss of each step.
    `k_rotate`: each tile's K steps loaded from step (by x stages) mod K's steps on, round
    the end (`by` the tile's block column; the trips whole: K's steps a multiple of `stages`),
    so that the block columns running together read the weight's rows at different K offsets
    (which DRAM pages the wave holds open); the phases and the sum's terms are the same, their
    order rotated. Not with split-K, stream-K, block scales, `pdl_weight`, `l2_ahead` or
    `small_stages`. `k_rotate_step` (with `k_rotate`; 0: `stages`): the K steps a block column
    rotates by, from (by x k_rotate_step) mod K's steps on; off a multiple of `stages` each
    stage's step is taken mod K's steps (a trip may go round the end).
    `raster_n` (persistent, grouped, not swapped, stream-K or the overlapped epilogue): the
    walk's groups along N (`_grouped(along_n=True)`, CUTLASS's raster along N): consecutive
    tiles (clusters) walk along `group` block columns (`group / cn` cluster columns), then to
    the next block row, instead of down `group` block rows.
    `b_first`: each stage's B loads (the weight where not swapped) issued before A's;
    `arrive_last`: the producer's arrival expecting a stage's bytes after its loads instead of
    before them (cuBLAS's order); with `cp_async` neither.
    `clip_small` (not with `small_stages`, `pdl_weight`, block scales or stream-K; swapped:
    not with clusters of shared loads): after the block's first trip A^T's box is cut to M's
    rows (`layout.tma_load {clip}`: the map's box `min(bn, M)` rows), its bytes expected at run
    time (`layout.mbarrier_expect_tx` of `min(bn, M) bk` elements' bytes beside the weight's
    static ones), so the TMA fills no row past M with zeros every step; the first trip loads
    whole boxes, whose zeros past M stay in every stage (the columns past M are not stored).
    The clipped stage's loads are the unclipped one's (one way to load a stage: `b_first` and
    `arrive_last` hold there too), its arrival expecting the weight's bytes. Unswapped (A's
    boxes each block's own, by the TMA: cn 1; the decode halves' pairs sharing B): the last
    block row's A box past its first trip cut to M's rows left, `(M - 1) mod bm + 1`
    (`layout.tma_load {clip, tail}`), its bytes expected at run time the same way; the other
    block rows, and all where M is a multiple of bm, load whole boxes.
    """
    from tilec.compiler.kernel_builder import Value
    from tilec.dialects.layout_roles import WARPGROUP
    from tilec.dialects.mma import NvidiaMmaLayout

    bc = chunk or bn
    # swapped: M's columns, any wgmma N; one wgmma a step: chunks of 32 (a 64-byte swizzle)
    if bn % bc or bc % (8 if swap_ab else 16 if one_wgmma and block_scales else 32 if one_wgmma else 64):
        raise ValueError(f"gemm_hopper_ws: chunk ({chunk}) must divide bn ({bn}) and be a multiple of 64 "
                         f"(of 32 with one_wgmma)")
    nch = bn // bc
    if consumer_rows not in (64, 128) or bm % consumer_rows or (consumer_rows > 64 and (
            pingpong or stagger or swap_ab or block_scales or split_k > 1 or stream_k or overlap_epilogue
            or a_registers or cp_async or not persistent or not tma_epilogue)):
        raise ValueError(f"gemm_hopper_ws: consumer_rows is 64 or 128 dividing bm, and 128 only with persistent "
                         f"tiles and the TMA epilogue, without pingpong, stagger, swap_ab, block_scales, split_k, "
                         f"stream_k, overlap_epilogue, a_registers or cp_async (got {consumer_rows}, bm {bm})")
    if consumers_apart and (pingpong or epilogue_turns or half_stores or split_k > 1 or stream_k or block_scales
                            or overlap_epilogue or cluster_split or not persistent or not tma_epilogue):
        raise ValueError("gemm_hopper_ws: consumers_apart needs persistent tiles and the TMA epilogue, without "
                         "pingpong, epilogue_turns, half_stores, split_k, stream_k, block_scales, overlap_epilogue "
                         "or cluster_split")
    if chunk_buffers and (not tma_epilogue or nch < 2 or pingpong or half_stores or overlap_epilogue):
        raise ValueError("gemm_hopper_ws: chunk_buffers needs the TMA epilogue and column chunks, without pingpong, "
                         "half_stores or overlap_epilogue")
    cw = c_width or bc  # the C ring's buffers' columns
    if (c_ring or c_width or c_height) and (
            not tma_epilogue or pingpong or half_stores or overlap_epilogue or c_ring < 0 or c_height < 0
            or bc % cw or (bc // cw) & (bc // cw - 1) or cw % 16 or chunk_buffers and c_ring):
        raise ValueError(f"gemm_hopper_ws: c_ring / c_width / c_height need the TMA epilogue, without pingpong, "
                         f"half_stores, overlap_epilogue or chunk_buffers' ring; c_width a multiple of 16 dividing "
                         f"the chunk's {bc} columns by a power of two (got c_ring {c_ring}, c_width {c_width}, "
                         f"c_height {c_height})")
    if c_early and c_ring < 2:
        raise ValueError(f"gemm_hopper_ws: c_early needs a C ring of 2 or more buffers (got c_ring {c_ring})")
    if half_stores and (consumer_rows != 128 or bm != 256):
        raise ValueError(f"gemm_hopper_ws: half_stores needs consumer_rows 128 on 256 rows (got {consumer_rows}, "
                         f"bm {bm})")
    _check_shape("gemm_hopper_ws", m, n, k, bm, stages, dtype)
    if persistent < 0 or group < 1:
        raise ValueError(f"gemm_hopper_ws: persistent ({persistent}) >= 0, group ({group}) >= 1")
    if raster_n and (not persistent or group < 2 or swap_ab or stream_k or overlap_epilogue):
        raise ValueError(f"gemm_hopper_ws: raster_n needs persistent tiles in groups (group > 1), not swapped, "
                         f"stream-K or the overlapped epilogue (got persistent {persistent}, group {group})")
    if split_k > 1 and (not (persistent or swap_ab) or pingpong or tma_epilogue or (chunk and not one_wgmma)):
        raise ValueError("gemm_hopper_ws: split_k needs persistent (or swapped) tiles and no pingpong, TMA epilogue "
                         "or chunks (but one_wgmma's)")
    if stagger and (bm != 128 or pingpong or not persistent or split_k > 1 or stream_k or block_scales
                    or cluster != (1, 1) or overlap_epilogue or swap_ab or cp_async or one_wgmma or a_registers
                    or skip_padding or not 0 < stagger < stages - 1):
        raise ValueError(f"gemm_hopper_ws: stagger needs bm 128, persistent tiles, 0 < stagger < stages - 1, "
                         f"without pingpong, split_k, stream_k, block_scales, clusters, overlap_epilogue, swap_ab, "
                         f"cp_async, one_wgmma, a_registers or skip_padding (got {stagger}, bm {bm}, {stages} stages)")
    if epilogue_turns and not stagger:
        raise ValueError("gemm_hopper_ws: epilogue_turns needs stagger")
    if rolled_chunks and (not tma_epilogue or nch < 2 or pingpong or split_k > 1 or stream_k or block_scales
                          or overlap_epilogue or half_stores or chunk_buffers or c_ring > 1 or b_panels):
        raise ValueError("gemm_hopper_ws: rolled_chunks needs the TMA epilogue through one C buffer and column "
                         "chunks, without pingpong, split_k, stream_k, block_scales, overlap_epilogue, half_stores, "
                         "chunk_buffers, c_ring > 1 or b_panels")
    if exp2_fma:
        epilogue = dataclasses.replace(epilogue, exp2_fma=exp2_fma)
    if div_group:
        epilogue = dataclasses.replace(epilogue, div_group=div_group)
    if one_c_buffer and not (pingpong and tma_epilogue):
        raise ValueError("gemm_hopper_ws: one_c_buffer needs pingpong and tma_epilogue")
    if pingpong and not persistent:
        raise ValueError("gemm_hopper_ws: the pingpong schedule needs persistent tiles (persistent > 0)")
    if swap_ab and (m is not None or not b_kmajor or group > 1 or pingpong or chunk or tma_epilogue):
        raise ValueError("gemm_hopper_ws: swap_ab needs a run-time M (m None) and B K-major, without group, "
                         "pingpong, chunk or tma_epilogue")
    if block_scales and (dtype not in FP8_DTYPES or bk != SCALE_BLOCK or SCALE_BLOCK % (bm if swap_ab else bc)
                         or pingpong
                         or split_k > 1 or epilogue.scale):
        raise ValueError(f"gemm_hopper_ws: block_scales need 8-bit float operands, bk = {SCALE_BLOCK}, column "
                         f"chunks (swapped: bm) dividing {SCALE_BLOCK}, no pingpong, no split_k and no "
                         f"per-tensor scale (got {dtype}, bk {bk}, chunk columns {bc})")
    if fma_promote and not block_scales:
        raise ValueError("gemm_hopper_ws: fma_promote needs block_scales")
    if split_dispatch and not (block_scales and one_wgmma and bc < SCALE_BLOCK and bn <= SCALE_BLOCK + bc
                               and not stream_k and not swap_ab):
        raise ValueError(f"gemm_hopper_ws: split_dispatch needs one_wgmma's chunks of block scales narrower than "
                         f"{SCALE_BLOCK}, a tile in at most two scale blocks (bn <= {SCALE_BLOCK} + chunk), no "
                         f"stream_k or swap_ab (got bn {bn}, chunk {bc})")
    if (scale_prefetch or scale_a_mn_major) and not block_scales:
        raise ValueError("gemm_hopper_ws: scale_prefetch and scale_a_mn_major need block_scales")
    if rounds < 1 or (rounds > 1 and not (block_scales and partials == 2)):
        raise ValueError(f"gemm_hopper_ws: rounds >= 1, and more than 1 only with block_scales and two partials "
                         f"(got {rounds})")
    if partials not in (1, 2) or (partials == 1 and not block_scales):
        raise ValueError(f"gemm_hopper_ws: partials is 1 or 2, and 1 only with block_scales (got {partials})")
    if overlap_epilogue and (not persistent or not tma_epilogue or nch < 2 or pingpong or split_k > 1
                             or block_scales):
        raise ValueError("gemm_hopper_ws: overlap_epilogue needs persistent tiles, the TMA epilogue and column "
                         "chunks, without pingpong, split_k or block_scales")
    if set(cp_async) - {"a", "b"} or (cp_async and swap_ab) or ("b" in cp_async and b_kmajor):
        raise ValueError(f"gemm_hopper_ws: cp_async names the operands loaded by cp.async, 'a', 'b' or 'ab', "
                         f"B row-major, not swapped (got {cp_async!r}, b_kmajor {b_kmajor}, swap_ab {swap_ab})")
    if serial and split_k < 2 and not stream_k:
        raise ValueError("gemm_hopper_ws: serial needs split_k > 1 or stream_k")
    if cluster_split and (not swap_ab or not 2 <= split_k <= MAX_CLUSTER_SPLIT or persistent or serial or stream_k
                          or cluster != (1, 1) or block_scales or bm % (4 * split_k)):
        raise ValueError(f"gemm_hopper_ws: cluster_split needs swap_ab, split_k in 2 .. {MAX_CLUSTER_SPLIT} dividing "
                         f"bm / 4, and no persistent, serial, stream_k, cluster or block_scales (got split_k "
                         f"{split_k}, bm {bm})")
    if global_partials and not cluster_split:
        raise ValueError("gemm_hopper_ws: global_partials needs cluster_split")
    if small_prefetch and (not small_stages or not persistent):
        raise ValueError("gemm_hopper_ws: small_prefetch needs small_stages and persistent")
    if pdl_late and not pdl:
        raise ValueError("gemm_hopper_ws: pdl_late needs pdl")
    if pdl_weight and (not pdl or cp_async or cluster[1] != 1):
        raise ValueError("gemm_hopper_ws: pdl_weight needs pdl, without cp_async or clusters of cn > 1")
    if l2_ahead < 0 or (l2_ahead and (not swap_ab or stream_k or cluster[1] != 1)):
        raise ValueError(f"gemm_hopper_ws: l2_ahead >= 0 trips, swapped, without stream_k, each block loading its "
                         f"own weight rows (cluster (cm, 1)) (got {l2_ahead}, cluster {cluster})")
    if small_stages and (not swap_ab or small_stages < 2 or stages % (2 * small_stages) or stream_k or block_scales
                         or cluster != (1, 1) or pdl_weight or l2_ahead or cp_async):
        raise ValueError(f"gemm_hopper_ws: small_stages (R) needs swap_ab and R >= 2 dividing stages / 2, without "
                         f"stream_k, block_scales, cluster, pdl_weight, l2_ahead or cp_async (got R {small_stages}, "
                         f"{stages} stages)")
    if stream_k and (not persistent or split_k > 1 or pingpong or overlap_epilogue
                     or (block_scales and partials != 2)):
        raise ValueError("gemm_hopper_ws: stream_k needs persistent, without split_k, pingpong or overlap_epilogue "
                         "(block_scales: with two partials)")
    if one_wgmma and (nch < 2 or bn > 256 or pingpong or (block_scales and partials != 2) or overlap_epilogue
                      or swap_ab):
        raise ValueError(f"gemm_hopper_ws: one_wgmma needs column chunks of at most 256 columns in all, without "
                         f"pingpong, block_scales with one partial, overlap_epilogue or swap_ab (got bn {bn}, "
                         f"{nch} chunks)")
    if a_registers and (block_scales or overlap_epilogue or swap_ab or dtype in FP8_DTYPES):
        raise ValueError("gemm_hopper_ws: a_registers is for 16-bit operands, not with block_scales, "
                         "overlap_epilogue or swap_ab")
    if skip_padding and (split_k > 1 or stream_k or block_scales or pingpong or overlap_epilogue or cp_async
                         or swap_ab):
        raise ValueError("gemm_hopper_ws: skip_padding is not for split_k, stream_k, block_scales, pingpong, "
                         "overlap_epilogue, cp_async or swap_ab")
    cm, cn = cluster
    size = cm * cn
    if tile_whole and (not tile_parts or stages % cm or bn > 256):
        raise ValueError(f"gemm_hopper_ws: tile_whole is a form of tile_parts, with stages a multiple of cm and "
                         f"bn at most 256 (a TMA box's rows; got tile_parts {tile_parts}, stages {stages}, bn {bn})")
    if tile_parts and (cn != 1 or cm < 2 or not (one_wgmma or nch == 1) or not b_kmajor or box_parts
                       or (bn // cm) % 8 or bn % cm
                       or (bk * (1 if dtype in FP8_DTYPES else 2) > 128 and not tile_whole)):
        raise ValueError(f"gemm_hopper_ws: tile_parts needs a cluster of cm x 1 blocks (cm > 1), one_wgmma or "
                         f"one column chunk, B K-major, bn / cm a multiple of 8, K steps one 128-byte swizzle "
                         f"wide (but with tile_whole) and no box_parts (got cluster {cluster}, bn {bn}, bk {bk})")
    if cm < 1 or cn < 1 or size not in CLUSTER_SIZES or (size > 1 and (
            not persistent or persistent % size
            or (not (box_parts or tile_parts) and ((stages * nch) % cm or stages % cn))
            or pingpong or split_k > 1 or cp_async or overlap_epilogue)) or (
            box_parts and (size == 1 or bm % (8 * cn) or (bc if b_kmajor else bk) % (8 * cm)
                           or max(bk, bk if b_kmajor else bc) * (1 if dtype in FP8_DTYPES else 2) > 128)):
        raise ValueError(f"gemm_hopper_ws: cluster (cm, cn) of {'/'.join(map(str, CLUSTER_SIZES))} blocks; "
                         f"clusters need persistent tiles over a multiple of cm cn blocks, stages times column "
                         f"chunks a multiple of cm, stages a multiple of cn (or box_parts: a cluster, its parts "
                         f"of A's rows and B's outer mode multiples of 8, the boxes one 128-byte swizzle wide), "
                         f"without pingpong, split_k, "
                         f"cp_async or overlap_epilogue (got cluster {cluster}, persistent "
                         f"{persistent}, {stages} stages, {nch} chunks)")
    if k_rotate_step and (not k_rotate or k_rotate_step < 0):
        raise ValueError(f"gemm_hopper_ws: k_rotate_step {k_rotate_step} is k_rotate's (a positive step count)")
    if k_rotate and (split_k > 1 or stream_k or block_scales or pdl_weight or l2_ahead or small_stages
                     or _cdiv(k, bk) % stages):
        raise ValueError("gemm_hopper_ws: k_rotate takes whole trips of one unit a tile (K's steps a multiple of "
                         "stages; no split-K, stream-K, block scales, pdl_weight, l2_ahead or small_stages)")
    if (b_first or arrive_last) and cp_async:
        raise ValueError("gemm_hopper_ws: b_first and arrive_last are for TMA loads, not cp_async")
    panel = 128 // (1 if dtype in FP8_DTYPES else 2)  # `b_panels`: the columns of a 128-byte swizzle
    if b_box and (not one_wgmma or not b_kmajor or size > 1 or cp_async or b_panels or bn > 256):
        raise ValueError(f"gemm_hopper_ws: b_box needs one_wgmma, B K-major, no cluster, TMA loads, no b_panels "
                         f"and bn at most 256 (a TMA box's rows; got bn {bn}, cluster {cluster})")
    if b_panels and (not one_wgmma or b_kmajor or cm > 1 or tile_parts or cp_async or split_k > 1 or stream_k
                     or bn <= panel or panel % bc or bn % panel not in (0, bc) or (bn % panel and panel != 2 * bc)):
        raise ValueError(f"gemm_hopper_ws: b_panels needs one_wgmma, B MN-major, B's boxes not shared (cm 1), TMA "
                         f"loads, no split-K or stream-K, bn over one 128-byte panel ({panel} columns) and either "
                         f"whole panels or panels of two chunks and one chunk left (got bn {bn}, chunks of {bc}, "
                         f"cluster {cluster})")
    if b_fill and not (b_panels and bn % panel):
        raise ValueError(f"gemm_hopper_ws: b_fill needs b_panels and one chunk left past the panels (got bn {bn}, "
                         f"chunks of {bc}, b_panels {b_panels})")
    if clip_small and (size > 1 if swap_ab else cn > 1 or "a" in cp_async) or clip_small and (
            small_stages or pdl_weight or block_scales or stream_k):
        raise ValueError("gemm_hopper_ws: clip_small needs, swapped, no clusters of shared loads, unswapped, A's "
                         "boxes its block's own by the TMA (cn 1), and no small_stages, pdl_weight, block_scales or "
                         "stream_k")
    if handover not in ("drain", "issue", "loop"):
        raise ValueError(f"gemm_hopper_ws: handover is 'drain', 'issue' or 'loop', got {handover!r}")
    bias_smem = bias_smem and epilogue.bias  # (without a bias: nothing to stage)
    # `epilogue_turns` pairs its arrivals and meetings only where consumer 1 cannot finish a
    # tile's K loop ahead of consumer 0's meeting of the tile before: more K steps than stages
    epilogue_turns = epilogue_turns and _k_steps(k, bk, stages) > stages
    bias_smem_start = bias_smem_start and bias_smem
    if bias_smem_start and epilogue.scale:
        raise ValueError("gemm_hopper_ws: bias_smem_start needs an epilogue without per-tensor scales")
    tail = epilogue.without_bias() if bias_smem_start else epilogue  # what is left after the K loop
    if bias_smem and (not persistent or not tma_epilogue or pingpong or split_k > 1
                      or stream_k or block_scales or size > 1 or overlap_epilogue or swap_ab or small_stages
                      or pdl_weight):
        raise ValueError("gemm_hopper_ws: bias_smem needs persistent tiles and the TMA epilogue, without "
                         "pingpong, split_k, stream_k, block_scales, clusters, overlap_epilogue, swap_ab, "
                         "small_stages or pdl_weight")
    wgs = 2 if pingpong or stagger else bm // consumer_rows
    # consumer warpgroups of a count that is not a power of two (192 rows: three of 64), each
    # running as a region of its own with its rows' accumulator: one `#layout.nvidia_mma` over
    # all their warps would have 12
    apart = bool(stagger) or consumers_apart or (not pingpong and wgs & (wgs - 1) != 0)
    # without the stagger's lag the consumers differ only in their rows and C buffer: one
    # region run apart by its warpgroups (`warp_specialize(apart=)`), one copy of the code;
    # with it (`consumers_apart`) the lag's wait and arrival are branches on the index
    shared = apart and (not stagger or consumers_apart)
    at_launch = 65536 // (128 * (wgs + 1)) // 8 * 8  # what __launch_bounds__ allows a thread
    if producer_regs is None:  # issuing cp.async of both operands holds more addresses
        producer_regs = PRODUCER_REGS_CP_ASYNC if len(set(cp_async)) == 2 else PRODUCER_REGS
    if consumer_regs is None:
        consumer_regs = min(CONSUMER_REGS, ((wgs + 1) * at_launch - producer_regs) // wgs // 8 * 8)
    if wgs * consumer_regs + producer_regs > (wgs + 1) * at_launch:
        raise ValueError(
            f"gemm_hopper_ws: {wgs} x {consumer_regs} + {producer_regs} registers per thread of a "
            f"warpgroup exceed the block's {(wgs + 1) * at_launch} ({wgs + 1} x {at_launch} at launch): "
            "setmaxnreg inc would wait forever"
        )
    nprog = persistent if m is None or split_k > 1 or size > 1 else min(persistent, _cdiv(m, bm) * _cdiv(n, bn))
    g = _program(m, n, k, bm, bn, bk, bc, stages, 4 if pingpong or apart else 4 * wgs, dtype, epilogue, b_kmajor,
                 split_k,
                 block_scales, swap_ab, 2 * persistent if stream_k else 0, serial, rounds,
                 cluster_split and not global_partials, scale_a_mn_major)
    p = g.p
    rows = bm // wgs if apart else bm  # the rows of C a consumer region computes a tile
    ch = rows // 2 if half_stores else c_height or rows  # the C ring's buffers' rows (a region's)
    if rows % ch or (rows // ch) & (rows // ch - 1):
        raise ValueError(f"gemm_hopper_ws: c_height ({c_height}) must divide a consumer's {rows} rows by a power "
                         f"of two")
    # the C ring's buffers: one a store part of the tile (`chunk_buffers`), `half_stores`' two, or `c_ring`
    ring = nch * (bc // cw) * (rows // ch) if chunk_buffers else 2 if half_stores else c_ring or 1
    if apart:  # each consumer's C buffer: its 64 rows
        g.SC = g.smem(rows, bc, ebytes=2)
    o = {s: p.constant(s).named(f"o{s}") for s in reversed(range(1, stages * rounds))}
    o[0] = g.c0
    # the steps of the last trip wholly past K, skipped (`skip_padding`): each of a trip's
    # last `pad` stages runs where its step lies inside K (a branch on the step, not a
    # second copy of the trip after the loop: one trip's code, issue 39's cold compile)
    pad = g.nk_steps - _cdiv(k, bk) if skip_padding else 0
    g.ksteps = p.constant(_cdiv(k, bk)).named("ksteps") if pad else None

    def inside(i) -> dict:
        """Stage -> whether its step of the trip from step `i` lies inside K (an `i1`), for
        the stages a trip may skip (`skip_padding`)."""
        return {s: ((i + o[s]).named(f"kin{s}") < g.ksteps).named(f"inside{s}") for s in range(stages - pad, stages)}
    with _launch(g, m, n, bm, bn, 128 * (wgs + 1), group, nprog, split_k, stages if stream_k else 0, cluster,
                 cluster_split):

        full, empty = {}, {}

        def barriers(s: int) -> None:
            # each cp.async copy of a stage: one arrival of each of the producer's 128 threads
            copies = ("a" in cp_async) + nch * ("b" in cp_async)
            full[s] = p.mbarrier_init(1 + WARPGROUP * copies).named(f"full{s}")
            # with clusters, the consumers of every block a stage's loads reach release it: the
            # block's cluster column (B's multicast) and cluster row (A's), each arriving on all
            empty[s] = p.mbarrier_init(1 if pingpong else wgs * (cm + cn - 1)).named(f"empty{s}")

        # with chunks the barriers come after all the stage buffers: each 8-byte barrier
        # between two 1024-byte-aligned buffers costs 1 KiB, which 4 x 48 + 32 KiB cannot spare;
        # so do they where the kilobytes would not fit (5 stages of 128 x 128 x 64 and two C buffers)
        cbufs = (1 if one_c_buffer or not pingpong else 2) if tma_epilogue else 0
        inline = nch == 1 and not cluster_split and not small_stages and barriers_fit(bm, bn, bk, stages, g.eb, cbufs)
        sa, sb, sbw = {}, {}, {}  # sbw: with one_wgmma, B's stage buffers (sb their chunks' tiles)
        sbl = {}  # `b_panels`: the shared side of B's boxes, a stage
        for s in range(stages):
            sa[s] = p.alloc(g.SA, dtype).named(f"sa{s}")
            if small_stages:  # A^T's ring of its own (`small_stages`), its barriers after the buffers
                if s < small_stages:
                    sb[s] = [p.alloc(g.SB, dtype).named(f"sb{s}")]
                continue
            if b_fill:  # whole panels, the chunk left the first columns of the last (a padded box)
                sbw[s] = p.alloc(g.smem(bk, _cdiv(bn, panel) * panel, width=panel), dtype).named(f"sbw{s}")
                sb[s] = [p.tile(sbw[s], [g.c0, p.constant(c).named(f"ch{c}")], [bk, bc]).named(f"sb{s}")
                         for c in range(nch)]
                sbl[s] = [p.tile(sbw[s], [g.c0, p.constant(j).named(f"pan{j}")], [bk, panel]).named(f"sbl{s}")
                          for j in range(bn // panel)] + [sb[s][-1]]
            elif one_wgmma and b_panels:  # 128-byte panels, then one buffer of the columns left
                wide, left = bn // panel * panel, bn % panel
                sbw[s] = p.alloc(g.smem(bk, wide, width=panel), dtype).named(f"sbw{s}")
                sbl[s] = [p.tile(sbw[s], [g.c0, p.constant(j).named(f"pan{j}")], [bk, panel]).named(f"sbl{s}")
                          for j in range(wide // panel)]
                sb[s] = [p.tile(sbw[s], [g.c0, p.constant(c).named(f"ch{c}")], [bk, bc]).named(f"sb{s}")
                         for c in range(wide // bc)]
                if left:
                    sbl[s].append(p.alloc(g.smem(bk, left), dtype).named(f"sbr{s}"))
                    sb[s] += [p.tile(sbl[s][-1], [g.c0, p.constant(c).named(f"ch{c}")], [bk, bc]).named(f"sb{s}")
                              for c in range(left // bc)]
            elif one_wgmma:  # the chunks' B buffers: column tiles of the stage's one buffer, side by side
                sbw[s] = p.alloc(g.smem(bk, bn, b_kmajor, width=bc), dtype).named(f"sbw{s}")
                sb[s] = [p.tile(sbw[s], [g.c0, p.constant(c).named(f"ch{c}")], [bk, bc]).named(f"sb{s}")
                         for c in range(nch)]
            else:
                sb[s] = [p.alloc(g.SB, dtype).named(f"sb{s}") for _ in range(nch)]
            if inline:
                barriers(s)
        # cluster_split: the unit's partial (N contiguous, `CLUSTER_SPLIT_PAD` between M's
        # columns), the barriers after it
        mine = (p.alloc(f"({bm},{bc}):(1,{bm + CLUSTER_SPLIT_PAD})", "f32").named("partial")
                if cluster_split and not global_partials else None)
        for s in range(0 if inline else stages):
            barriers(s)
        fulla, emptya = {}, {}  # `small_stages`: A^T's ring's barriers
        for s in range(small_stages):
            fulla[s] = p.mbarrier_init(1).named(f"fulla{s}")
            emptya[s] = p.mbarrier_init(wgs).named(f"emptya{s}")
        names = (["sc0", "sc1"] if pingpong and not one_c_buffer else ["sc"] if shared
                 else [f"sc{c}" for c in range(wgs)] if apart else ["sc"])
        # the C ring: `ring` buffers of `crows` x cw a consumer region (in a region run apart
        # each warpgroup's rows of them), one name where it is one buffer
        crows = (bm if shared else rows) // (rows // ch)
        scs = [[p.alloc(g.smem(crows, cw, ebytes=2), epilogue.out_dtype).named(x if ring == 1 else f"{x}c{i}")
                for i in range(ring)] for x in names] if tma_epilogue else [None] * len(names)
        if one_c_buffer:  # both consumers' C buffer is the one
            scs = scs * 2
        turns = [p.mbarrier_init(1).named(f"turn{c}") for c in (0, 1)] if pingpong else []
        cfree = [p.mbarrier_init(1).named(f"cfree{c}") for c in (0, 1)] if one_c_buffer else []
        lag = p.mbarrier_init(1).named("lag") if stagger else None  # consumer 1's first trip, for consumer 0
        # `bias_smem`: the bias's ring, tile j's `bn` elements in its part j % 2 (the docstring)
        sbias = p.alloc(f"({2 * bn}):(1)", epilogue.out_dtype).named("sbias") if bias_smem else None
        # stream-K summed in the kernel: the arrival's old value, from thread 0 to the consumers
        arrival = p.alloc("(1):(1)", "i32").named("arrival") if stream_k and serial else None
        if size > 1:  # the peers' barriers initialised before any block reaches them
            p.cluster_sync()
            # this block's place in its cluster: block row rx of cm, block column ry of cn
            cmr = g.c2 if cm == 2 else p.constant(cm).named("cmr")
            g.rx = g.crank if cn == 1 else g.c0 if cm == 1 else p.remui(g.crank, cmr).named("rx")
            g.ry = g.crank if cm == 1 else g.c0 if cn == 1 else p.divui(g.crank, cmr).named("ry")

            def rank_of(rx, ry):
                return ry if cm == 1 else rx if cn == 1 else (rx + (ry * cmr).named("col0")).named("peer")

            # the ranks whose loads reach this block: its cluster column (same ry: B's
            # multicast), then the rest of its cluster row (same rx: A's)
            peers = [g.crs[r] for r in range(cm)] if cn == 1 else [
                rank_of(g.crs[r], g.ry) for r in range(cm)]
            for j in range(1, cn):
                cnr = g.c2 if cn == 2 else p.constant(cn).named("cnr")
                other = p.remui((g.ry + (g.c1 if j == 1 else p.constant(j).named(f"ry{j}"))).named("ryj"), cnr)
                peers.append(rank_of(g.rx, other.named("ryo")))

        def release(s: int) -> None:
            """The consumers hand stage `s` back: on its "empty" barrier, and with
            clusters on those of every block whose loads reach this one (their multicast
            writes this block's stage)."""
            if size == 1:
                p.mbarrier_arrive(empty[s])
                if small_stages:  # and A^T's stage of step s
                    p.mbarrier_arrive(emptya[s % small_stages])
                return
            for r in peers:
                p.mbarrier_arrive(empty[s], cta=r)

        def chunk_columns() -> None:
            g.bys = [g.by]
            if b_panels and bn % panel:  # the chunk left first in odd block columns: panels at whole panels
                nchv = p.constant(nch).named("nch")
                first = (g.by * nchv).named("by")
                odd = (g.by & p.constant(1).named("one")).named("odd")
                g.bys = [(first + odd).named("by")]
                g.bys += [(g.bys[0] + p.constant(c).named(f"ch{c}")).named("by") for c in range(1, nch - 1)]
                g.bys.append((first + (p.constant(nch - 1).named("chl")
                                       - (odd * p.constant(nch - 1).named("chl")).named("odd"))).named("by"))
                g.bpan = (g.bys[0] // p.constant(panel // bc).named("panch")).named("bpan")
            elif nch > 1:
                nchv = p.constant(nch).named("nch")
                g.bys = [(g.by * nchv).named("by")]
                g.bys += [(g.bys[0] + p.constant(c).named(f"ch{c}")).named("by") for c in range(1, nch)]
                if b_panels:
                    g.bpan = (g.by * p.constant(bn // panel).named("pans")).named("bpan")

        def tiles(body, turn: int | None = None, carry: list | None = None) -> None:
            """The region's walk over its tiles: `body()` with `g.bx`, `g.by`, `g.bys` and
            `g.base` (the block's K steps before this tile) set; `turn` c (pingpong):
            only the block's tiles c, c + 2, ... (consumer c's). `carry` (persistent):
            Values carried from a tile to the next (`Program.range`'s), `g.later` the
            condition "not the block's first tile"."""
            if not persistent:
                g.base = p.constant(0).named("base")
                if split_k > 1:  # (swapped) the grid's third axis is the split
                    g.kbase = (g.split * g.nk).named("kbase")
                chunk_columns()
                return body()
            if stream_k:
                return stream_segments(body, carry)
            first, step = (g.cid, g.ncl) if size > 1 else (g.pid, g.nprog)
            walk0, walk = first, step  # the block's (cluster's) first tile and stride
            if turn is not None and m is None:  # the grid's blocks are a run-time value
                first = (g.pid + g.nprog).named("first_t") if turn else g.pid
                step = (g.nprog + g.nprog).named("step_t")
            elif turn is not None:
                first = (g.pid + p.constant(turn * nprog).named("turn")).named("first_t")
                step = p.constant(2 * nprog).named("step_t")
            with p.range(first, g.ntiles, step, carry=carry or []) as t:
                t.named("t")
                if carry:
                    g.t, g.later = t, t.ne(first).named("nextt")
                g.j = p.divui((t - walk0).named("tsub"), walk).named("j")
                g.base = (g.j * g.nk).named("base")
                if split_k > 1:  # unit t: split t % S of tile t / S
                    sv = p.constant(split_k).named("splits")
                    g.split, t = p.remui(t, sv).named("split"), p.divui(t, sv).named("tile")
                    g.kbase = (g.split * g.nk).named("kbase")
                _tile_of(g, m, n, bm, bn, group, cluster, t, raster_n)
                chunk_columns()
                body()

        def tile_at(t) -> None:
            """`g.bx`, `g.by` (and the chunks' columns) of tile (group) `t` (`_tile_of`)."""
            _tile_of(g, m, n, bm, bn, group, cluster, t, raster_n)
            chunk_columns()

        def stream_segments(body, carry: list | None = None) -> None:
            """Stream-K's walk (the docstring): first the block's tiles of the full waves
            (pid, pid + G, ... below `g.dp`) whole, with `g.dp_phase` set (Python), then
            `body()` per tile the block's trips [lo, hi) of the rest meet, with `g.bx`,
            `g.by`, the segment's K steps [`g.kfirst`, `g.klast`) of the tile, `g.base`
            (the block's K steps before the segment), `g.whole` (the block takes the
            tile whole) and `g.slot` (the workspace slot of its partial otherwise: 2 pid
            for the block's first tile, 2 pid + 1 for its last)."""
            unit, units = (g.cid, g.ncl) if size > 1 else (g.pid, g.nprog)  # clusters: the same for its blocks
            g.dp_phase = True
            with p.range(unit, g.dp, units) as t:
                t.named("t")
                g.j = p.divui((t - unit).named("tsub"), units).named("j")
                g.base = (g.j * g.nk).named("base")
                g.kfirst, g.klast = g.c0, g.nk
                tile_at(t)
                body()
            g.dp_phase = False
            lo = (unit * g.span).named("lo")
            hi = p.minui((lo + g.span).named("lo_span"), g.ttrips).named("hi")
            tlo = p.divui(lo, g.trips).named("tlo")
            thi = p.ceildivui(hi, g.trips).named("thi")
            with p.range(tlo, thi, g.c1) as t:
                t.named("t")
                t0 = (t * g.trips).named("t0")
                t1 = (t0 + g.trips).named("t1")
                start = ((lo + t0).named("lot0") - p.minui(lo, t0).named("lomin")).named("start")  # max(lo, t0)
                end = p.minui(hi, t1).named("end")
                g.kfirst = ((start - t0).named("sfirst") * g.cs).named("kfirst")
                g.klast = ((end - t0).named("slast") * g.cs).named("klast")
                g.base = ((g.waves * g.nk).named("dpsteps")
                          + ((start - lo).named("before") * g.cs).named("sksteps")).named("base")
                g.whole = (start.eq(t0).named("fromstart") & end.eq(t1).named("toend")).named("whole")
                g.slot = ((g.pid + g.pid).named("pid2") + p.minui((t - tlo).named("tafter"), g.c1).named("islast")
                          ).named("slot")
                g.ttail = t
                tile_at((t + g.dp).named("tsk"))
                body()

        # block scales: A's scales run along the tile's rows (its M), or its columns when swapped
        sax, sext = (0, bc) if swap_ab else (1, bm)
        # one wgmma over chunks narrower than a scale block, a tile over at most two blocks of N:
        # a step loads those two B scales, each chunk takes its block's (`one_wgmma`, the docstring)
        paired = block_scales and one_wgmma and bc < SCALE_BLOCK and bn <= SCALE_BLOCK + bc
        # one_wgmma's chunks with block scales (16 columns: 2 KiB boxes): B's stage one TMA box
        # (`b_box`: the same box for any one_wgmma chunks of a K-major B, no cluster)
        whole_b = (block_scales or b_box) and one_wgmma and size == 1 and not cp_async
        g.former_split = None  # `split_dispatch`: the chunks in the tile's first scale block, in a copy of the K loop

        def step_scales(s: int, i) -> list:
            """K step `i + s`'s scales (block scales): A's of the tile's rows (clipped at M;
            the steps past K read the last K block's), then each chunk's one of B (with
            clusters of several block columns, clipped at N's last block: a block
            column wholly past N reads the last one's and stores nothing)."""
            from tilec.dialects.distributed import SliceLayout

            kb = p.minui((i + o[s]).named(f"kstep{s}"), g.kblast).named(f"kb{s}")
            rows = p.slice(g.ScaleA, ["_", kb]).named(f"sacol{s}")
            at = g.by if swap_ab else g.bx
            held = [p.load(p.tile(rows, [at], [sext]).named(f"tsa{s}"), SliceLayout(sax, g.mma)).named(f"sarow{s}")]
            if scale_prefetch and scale_a_mn_major:  # MN-major: each step's rows a sector of their own
                ahead = p.constant(SCALE_PREFETCH_AHEAD_MN).named("pfmn")
                kpf = p.minui(((i + o[s]).named(f"kstep{s}") + ahead).named("kpf"), g.kblast).named("kbpf")
                p.prefetch_l1(p.tile(p.slice(g.ScaleA, ["_", kpf]).named("sacolpf"), [at], [sext]).named("tsapf"),
                              SliceLayout(sax, g.mma))
            if paired:  # the tile's first chunk's block of N and the next (clipped at N's last)
                nb = p.divui((g.bys[0] * p.constant(bc).named("bcc")).named("col0"),
                             p.constant(SCALE_BLOCK).named("sbk")).named("nb0")
                nxt = p.minui((nb + g.c1).named("nb1"), p.constant(_cdiv(n, SCALE_BLOCK) - 1).named("nblast"))
                return held + [g.ScaleB[nb, kb].named(f"sbv{s}"), g.ScaleB[nxt.named("nbc"), kb].named(f"sbw{s}")]
            for c in range(nch):
                # the block of N: of the chunk's columns, or of the tile's rows when swapped
                n0, step = (g.bx, bm) if swap_ab else (g.bys[c], bc)
                nb = n0 if step == SCALE_BLOCK else p.divui(
                    (n0 * p.constant(step).named("bcc")).named("col0"), p.constant(SCALE_BLOCK).named("sbk"))
                # a cluster's block columns, or the last block column's chunks (N a multiple of the
                # chunk, not of the tile), may lie wholly past N (storing nothing)
                if (cn > 1 or (nch > 1 and n % bn)) and not swap_ab:
                    nb = p.minui(nb, p.constant(_cdiv(n, SCALE_BLOCK) - 1).named("nblast")).named("nbc")
                held.append(g.ScaleB[nb, kb].named(f"sbv{s}"))
            return held

        def prefetch_scales(i) -> None:
            """`scale_prefetch`: the scales of K block `i + SCALE_PREFETCH_AHEAD` (clipped at
            the last) asked of L1 (`layout.prefetch_l1`), A's in the layout its loads take
            and B's (one element, every thread) of each chunk: the 32-byte sector after the
            one the trip's loads read, there before a step's loads first read it."""
            from tilec.dialects.distributed import BlockedLayout, SliceLayout

            ahead = p.constant(SCALE_PREFETCH_AHEAD).named("pfahead")
            kb = p.minui((i + ahead).named("kpf"), g.kblast).named("kbpf")
            if not scale_a_mn_major:  # (MN-major, each step asks for its own rows: `step_scales`)
                rows = p.slice(g.ScaleA, ["_", kb]).named("sacolpf")
                at = g.by if swap_ab else g.bx
                p.prefetch_l1(p.tile(rows, [at], [sext]).named("tsapf"), SliceLayout(sax, g.mma))
            one = BlockedLayout([1], [32], [4 * wgs], [0])  # every consumer thread holds the element
            for c in range(nch):
                n0, step = (g.bx, bm) if swap_ab else (g.bys[c], bc)
                nb = n0 if step == SCALE_BLOCK else p.divui(
                    (n0 * p.constant(step).named("bcc")).named("col0"), p.constant(SCALE_BLOCK).named("sbk"))
                # clipped at the last block column: a slice must lie inside ScaleB
                nb = p.minui(nb, p.constant(_cdiv(n, SCALE_BLOCK) - 1).named("nblast")).named("nbc")
                row = p.slice(g.ScaleB, [nb, "_"]).named("sbrowpf")
                p.prefetch_l1(p.tile(row, [kb], [1]).named("tsbpf"), one)

        def promote(accs: list, parts: list, held: list) -> None:
            """Each chunk's main accumulator += its partial (complete) times the partial's
            step's scales `held` (`step_scales`)."""
            for c, (a, part) in enumerate(zip(accs, parts)):
                sb = held[1] if paired else held[1 + c]
                if paired and g.former_split is not None:  # `split_dispatch`: this copy's chunk's block, a constant
                    sb = held[1] if c < g.former_split else held[2]
                elif paired:  # the chunk's block: the tile's first chunk's, or the next
                    col = (g.bys[c] * p.constant(bc).named("bcc")).named("colc")
                    first = p.divui(col, p.constant(SCALE_BLOCK).named("sbk")).eq(p.divui(
                        (g.bys[0] * p.constant(bc).named("bcc")).named("col0"),
                        p.constant(SCALE_BLOCK).named("sbk"))).named("former")
                    sb = p.where(first, held[1], held[2]).named("sbc")
                f = (held[0] * sb).named("scale")
                col = p.expand_dims(f, sax).named("scalecol")
                if fma_promote:  # one rounding: acc = fma(part, scale, acc)
                    col = p.broadcast(col, [bm, bc]).named("scales")
                    a.assign(p.fma(part.named("part"), col, a).named("acc"))
                else:
                    a.assign((a + part.named("part") * col).named("acc"))

        def scaled_trip(carry: list, i, phases: list) -> None:
            """A trip of the K loop with block scales (the docstring), `rounds` rounds of
            the ring (round r's "full" barriers waited for in `phases[r]`): step by step, the
            step's scales loaded, its wgmma issued into fresh partials, then the
            previous step's partials waited for (`pending` = the chunks: this step's
            stay in flight), that step's stage handed back and its partials promoted
            into the main accumulators. The trip's last step is waited for (`pending =
            0`: no wgmma in flight across the loop's back edge) and its stage handed
            back at the trip's end, its partials (complete) and scales carried to the
            next trip and promoted under that trip's first wgmma. `carry`: the loop's
            values, the chunks' main accumulators, the carried partials (zeros at a
            tile's start), their scales; updated in place."""
            accs, parts, held = carry[:nch], carry[nch:2 * nch], carry[2 * nch:]
            for q in range(stages * rounds):
                s = q % stages
                new_held = step_scales(q, i)  # read a step before they are needed
                if scale_prefetch and q == 0:
                    prefetch_scales(i)
                p.mbarrier_wait(full[s], phases[q // stages])
                news = [p.mma(sa[s], b, g.zero, is_async=True).named(f"d{s + 1}") for b in sb[s]]
                if q:  # step q - 1's wgmma are complete: its stage is free
                    done = p.mma_wait(*prev, pending=nch)
                    release((q - 1) % stages)
                    promote(accs, done, prev_held)
                else:  # the previous trip's last step (complete; passed through a wait for ptxas)
                    promote(accs, p.mma_wait(*parts, pending=nch), held)
                prev, prev_held = news, new_held
            done = p.mma_wait(*prev, pending=0)
            release(stages - 1)
            for x, y in zip(parts + held, done + prev_held):
                x.assign(y)

        def scaled_steps(accs: list, i, phase) -> None:
            """A trip of the K loop with block scales and one partial (`partials` = 1,
            the docstring): step by step, its scales read, then chunk by chunk its
            wgmma issued into the one partial, waited for (`pending = 0`), the stage
            handed back after the last chunk's, the partial promoted into the chunk's
            main accumulator. Nothing is in flight across the loop's back edge.
            `accs`: the chunks' main accumulators, updated in place."""
            for s in range(stages):
                held = step_scales(s, i)
                if scale_prefetch and s == 0:
                    prefetch_scales(i)
                p.mbarrier_wait(full[s], phase)
                for c, b in enumerate(sb[s]):
                    (part,) = p.mma_wait(p.mma(sa[s], b, g.zero, is_async=True).named(f"d{s + 1}"), pending=0)
                    if c == nch - 1:  # every chunk's wgmma has read the stage
                        release(s)
                    promote(accs[c:c + 1], [part], [held[0], held[1 + c]])

        def part_of(half):
            """The consumer's row block of the tile, in its rows (`apart`): an index (`half`
            itself where it is one: the warpgroup's index in a region run apart)."""
            if not isinstance(half, int):
                return half
            return g.c0 if half == 0 else g.c1 if half == 1 else g.c2 if half == 2 else p.constant(half).named("wgi")

        def consumer(sc, turn: int | None = None, half: int | None = None) -> None:
            bxr = g.bx  # the tile's row in units of the consumer's rows
            if half is not None:
                bxr = (g.bx * (g.c2 if wgs == 2 else p.constant(wgs).named("wgs")) + part_of(half)).named("bxh")
                if stagger and (not isinstance(half, int) or half == 0):
                    # consumer 1 ahead: its first trip of the ring before consumer 0's first step
                    first = g.j.eq(g.c0).named("firsttile")
                    if not isinstance(half, int):  # one region run apart: consumer 0's branch
                        first = (first & half.eq(g.c0).named("behind")).named("waitlag")
                    with p.if_(first):
                        p.mbarrier_wait(lag, g.c0)
            if turn is not None:
                # the other consumer's K loop has passed its last wait on each "full"
                # barrier, so this one's waits (a round later in each stage) see the
                # next phase, not one already completed
                q = p.divui(g.j, g.c2).named("q")

                def my_turn(bar) -> None:  # the other's arrival of its previous tile on `bar`
                    if turn == 0:
                        with p.if_(q.ne(g.c0).named("myturn")):
                            p.mbarrier_wait(bar, p.remui((q - g.c1).named("qprev"), g.c2).named("tphase"))
                    else:
                        p.mbarrier_wait(bar, p.remui(q, g.c2).named("tphase"))

                my_turn(turns[turn])
            # the epilogue's vectors (bias, scales) of the first chunk, loaded before the
            # K loop: their latency hides under it instead of starting the epilogue (the
            # other chunks' loads issue at its start and land under the first chunk's
            # math; all chunks' held over the loop spilled GELU's epilogue at 128 x 256).
            # Not with block scales: their loop holds two partials beside the accumulator
            # and the early vectors spilled it (14 bytes at 4096^3)
            accs = [Value(p, g.zero.ssa) for _ in range(nch)]
            if overlap_epilogue:  # the first round's wgmma, the previous tile's last chunk under them
                accs = first_round(sc)
            vecs = [epilogue.vectors(g, bxr, by, rows, bc) if split_k == 1 and not block_scales and c == 0
                    and not bias_smem and not rolled_chunks else None for c, by in enumerate(g.bys)]
            if bias_smem_start:  # the staged bias, once stage 0 of the tile's first step has landed
                # (the K loop's first trip does not wait there again: `plain_trip`)
                p.mbarrier_wait(full[0], p.remui(p.divui(kall(g.c0), g.cs).named("round0"), g.c2).named("phase0"))
                accs = [Value(p, epilogue.bias_rows(g, epilogue.vectors(g, bxr, by, rows, bc, bias=bias_view(c))[
                    "bias"], rows, bc).ssa) for c, by in enumerate(g.bys)]
            kfrom, kto = (g.kfirst, g.klast) if stream_k else (g.cs if overlap_epilogue else g.c0, g.nk)
            trip = g.cs if rounds == 1 else p.constant(stages * rounds).named("ctrip")

            def step_mma(s: int, src, sync: bool) -> None:
                """Stage `s`'s wgmma into `accs`, each waited for until the step's are the
                only ones in flight (`sync`: waited for whole)."""
                if a_registers:  # A once into registers for every chunk's wgmma
                    from tilec.dialects.mma import DotOperandLayout

                    src = p.load(sa[s], DotOperandLayout(0, g.mma, 2)).named(f"ar{s}")
                bs = sb[s % small_stages] if small_stages else sb[s]  # `small_stages`: A^T's ring
                if one_wgmma:  # every chunk's wgmma, then one wait: one wgmma (the docstring)
                    ds = [p.mma(src, b, a, is_async=True).named(f"d{s + 1}") for a, b in zip(accs, bs)]
                    for a, w in zip(accs, p.mma_wait(*ds, pending=nch)):
                        a.assign(w.named(f"acc{s + 1}"))
                    return
                for a, b in zip(accs, bs):
                    if sync:
                        a.assign(p.mma(src, b, a).named(f"acc{s + 1}"))
                        continue
                    d = p.mma(src, b, a, is_async=True).named(f"d{s + 1}")
                    a.assign(p.mma_wait(d, pending=1)[0].named(f"acc{s + 1}"))

            def plain_trip(phase, later, lead=None, guards=None) -> None:
                """A trip of the K loop without block scales, each stage handed back a step
                later; the previous trip's last stage at the first step where `later`
                (a Value, or a Python bool where the trip's place is known). `lead`
                (`stagger` L, consumer 1): where it holds, the arrival on "lag" after
                the trip's L-th step is issued. `guards` (`skip_padding`, `inside`):
                a stage's wgmma run where its step lies inside K; past it, the steps
                before are waited for (the stage before is handed back after them)."""
                for s in range(stages):
                    if s == 0 and bias_smem_start and later is not True:  # the tile's first: waited for already
                        if later is not False:
                            with p.if_(later):
                                p.mbarrier_wait(full[s], phase)
                    else:
                        p.mbarrier_wait(full[s], phase)
                    if small_stages:  # A^T's stage: its phase a constant of the trip (the docstring)
                        p.mbarrier_wait(fulla[s % small_stages], g.c1 if s // small_stages % 2 else g.c0)
                    # the loop's last step hands the turn over (handover "issue"): its wgmma complete first
                    sync = s == stages - 1 and turn is not None and handover == "issue"
                    src = sa[s]
                    if half is not None:  # the consumer's rows of the stage's A
                        src = p.tile(sa[s], [part_of(half), g.c0], [rows, bk]).named(f"sah{s}")
                    if guards and s in guards:
                        then, otherwise = p.if_else(guards[s], carry=accs)
                        with then:
                            step_mma(s, src, sync)
                        with otherwise:  # past K: the wgmma before have read their stages
                            for a, w in zip(accs, p.mma_wait(*(a.named("inflight") for a in accs), pending=0)):
                                a.assign(w)
                    else:
                        step_mma(s, src, sync)
                    if lead is not None and s == stagger - 1:  # consumer 0 may start (`stagger`)
                        with p.if_(lead):
                            p.mbarrier_arrive(lag)
                    if s:
                        release(s - 1)
                    elif later is True:
                        release(stages - 1)
                    elif later is not False:
                        with p.if_(later):
                            release(stages - 1)

            def k_loop(split: int | None = None) -> None:
                """The tile's K loop into `accs` (with two partials, the last step's partials
                promoted after it); `split` (`split_dispatch`): how many of the tile's chunks lie
                in its first block of N's scales, a constant of this copy of the loop."""
                g.former_split = split
                carry = accs
                if block_scales and partials == 2:  # and the last step's partials and scales, promoted next trip
                    carry = accs + [Value(p, g.zero.ssa) for _ in range(nch)] + [
                        Value(p, g.scale0.ssa)] + [Value(p, g.sb0.ssa) for _ in range(2 if paired else nch)]
                with p.range(kfrom, kto, trip, carry=carry) as i:
                    i.named("i")
                    for a in accs:
                        a.named("acc0")
                    rnd = p.divui(kall(i), g.cs).named("round")
                    phase = p.remui(rnd, g.c2).named("phase")
                    if block_scales and partials == 1:
                        scaled_steps(carry, i, phase)
                    elif block_scales:
                        scaled_trip(carry, i, [phase] + [
                            p.remui((rnd + p.constant(r).named(f"r{r}")).named(f"round{r}"), g.c2).named(f"phase{r}")
                            for r in range(1, rounds)])
                    else:
                        # the previous trip's last stage is handed back here (`first_round` hands its own)
                        lead = None
                        if stagger and (not isinstance(half, int) or half == 1):
                            # the block's first trip: consumer 1's L-th step lets consumer 0 start
                            lead = (g.j.eq(g.c0).named("firsttile") & i.eq(kfrom).named("firsttrip")).named("lead")
                            if not isinstance(half, int):  # one region run apart: consumer 1's branch
                                lead = (lead & half.eq(g.c1).named("ahead")).named("lead")
                        plain_trip(phase, i.ne(kfrom).named("later"), lead, inside(i) if pad else None)
                    if turn is not None and handover == "issue":
                        # the K loop's last wait on a full barrier is past: the other consumer's turn
                        lasti = p.constant(_k_steps(k, bk, stages) - stages).named("lasti")
                        with p.if_(i.eq(lasti).named("islast")):
                            p.mbarrier_arrive(turns[1 - turn])
                if block_scales and partials == 2:  # (each trip waits for its wgmma and hands its stages back)
                    # the last step's partials (with one partial, each step was promoted in its trip)
                    promote(accs, carry[nch:2 * nch], carry[2 * nch:])

            def split_branches(splits: list) -> None:
                """`k_loop` once for each of `splits`, the tile's (`g.former`) taken by a chain of
                branches."""
                if len(splits) == 1:
                    k_loop(splits[0])
                    return
                then, otherwise = p.if_else(g.former.eq(p.constant(splits[0]).named("split")).named("isplit"),
                                            carry=accs)
                with then:
                    k_loop(splits[0])
                with otherwise:
                    split_branches(splits[1:])

            if split_dispatch:  # the chunks before the tile's next block of N's scales (at most all)
                sbk = p.constant(SCALE_BLOCK).named("sbk")
                room = (sbk - p.remui((g.bys[0] * p.constant(bc).named("bcc")).named("col0"), sbk)).named("room")
                g.former = p.minui(p.divui(room, p.constant(bc).named("bcc")), p.constant(nch).named("nch")
                                   ).named("former")
                split_branches(sorted({min((SCALE_BLOCK - by * bn % SCALE_BLOCK) // bc, nch)
                                       for by in range(_cdiv(n, bn))}))
            else:
                k_loop()
            if not block_scales:
                if turn is not None and handover == "loop":  # past its last wait on a "full" barrier, its last
                    p.mbarrier_arrive(turns[1 - turn])  # wgmma in flight: the other's first issue under their drain
                accs = p.mma_wait(*(a.named("inflight") for a in accs), pending=0)
                # the loop waited for all its wgmma: the tile's last stage is free (unless the
                # loop had no trip: `first_round` handed its stages back)
                if persistent and not (overlap_epilogue and _k_steps(k, bk, stages) == stages):
                    release(stages - 1)
            if turn is not None and handover == "drain":  # the other consumer's turn: its K loop may start
                p.mbarrier_arrive(turns[1 - turn])
            # the unit's partial into its shared buffer (or with global_partials the workspace, below), summed after
            if cluster_split and not global_partials:
                p.store(accs[0].named("acc"), mine)
                return
            if split_k > 1:  # the unit's partial product, as it is (one_wgmma: chunk by chunk)
                w = p.slice(g.W, ["_", "_", g.split]).named("wsplit")
                for a, by in zip(accs, g.bys):
                    p.store(a.named("acc"), p.tile(w, [g.bx, by], [bm, bc]).named("tw"))
                if serial:
                    serial_fixup(sc)
                return
            if stream_k and not g.dp_phase:  # a tile shared with other blocks: its partial into the block's slot
                whole, shared = p.if_else(g.whole)
                with shared:
                    w = p.slice(g.WS, ["_", "_", g.slot]).named("wslot")
                    for c, a in enumerate(accs):
                        col = g.c0 if not c else p.constant(c).named(f"ch{c}")
                        p.store(a.named("acc"), p.tile(w, [g.c0, col], [bm, bc]).named("tw"))
                    if serial:  # the tile's last block to arrive sums its partials
                        stream_fixup()
                with whole:
                    for c, (a, by, vec) in enumerate(zip(accs, g.bys, vecs)):
                        store_chunk(sc, a, g.bx, by, vec, bm, c)
                return
            if overlap_epilogue:  # the last chunk waits for the next tile's first round (`first_round`)
                # `+ 0.0` (-0 becomes +0; a copy NVRTC keeps): values a wgmma wrote, read
                # in the next tile while its wgmma run, make ptxas wait for them first
                held[0].assign((accs[-1] + 0.0).named("held"))
                accs, vecs = accs[:-1], vecs[:-1]
            if one_c_buffer:  # the other consumer's previous tile's TMA store has read the one C buffer
                my_turn(cfree[turn])
            if epilogue_turns and half == 0:  # consumer 1's epilogue of the tile first (the docstring)
                p.named_barrier("sync", EPILOGUE_TURN_BARRIER, 2 * WARPGROUP)
            if rolled_chunks:  # one trip a chunk, the accumulators moving down (the docstring)
                from xdsl.dialects.builtin import IntegerAttr, i64

                from tilec.dialects.cuda import UNROLL_ATTR

                with p.range(g.c0, p.constant(nch).named("nch"), g.c1, carry=accs[:-1]) as c:  # (the last: as it is)
                    c.named("chunk")
                    c.ssa.owner.parent_op().attributes[UNROLL_ATTR] = IntegerAttr(1, i64)  # rolled in the CUDA
                    store_chunk(sc, accs[0], bxr, (g.bys[0] + c).named("by"), None, rows, c)
                    for x, y in zip(accs, accs[1:]):
                        x.assign(y)
            else:
                for c, (a, by, vec) in enumerate(zip(accs, g.bys, vecs)):
                    store_chunk(sc, a, bxr, by, vec, rows, c)
            if epilogue_turns and half == 1:  # its last TMA store issued: consumer 0's epilogue may start
                p.named_barrier("arrive", EPILOGUE_TURN_BARRIER, 2 * WARPGROUP)
            if one_c_buffer:  # this tile's store has read it: the other's turn at the buffer
                p.tma_store_wait(0)
                p.mbarrier_arrive(cfree[1 - turn])

        def serial_fixup(sc) -> None:
            """`serial`'s arrival and, in the last unit of a tile, its sum (the docstring),
            `SERIAL_COLUMNS` columns of the tile at a time."""
            from tilec.dialects.layout_roles import NamedBarrierOp
            consumers = WARPGROUP * wgs
            last = p.constant(split_k - 1, "i32").named("lastarrival")
            p.insert(NamedBarrierOp("sync", SERIAL_BARRIER, consumers))  # every partial store before the release
            # tile t's counter at t (S + 1), its units' flags after it: where a tile's slots lie
            # does not depend on M (calls of other M share the buffer)
            tile = ((g.bx * g.gn + g.by).named("tileix") * p.constant(split_k + 1).named("slots")).named("ctile")
            flag = ((tile + g.c1).named("flags0") + g.split).named("flag")
            with p.if_(g.tid.eq(g.c0).named("leader")):
                p.fence()
                old = p.atomic_add(g.Ctr, [tile], 1).named("arrival")
                p.fence()
                g.Ctr[flag] = old
                with p.if_(old.eq(last).named("resets")):
                    p.atomic_add(g.Ctr, [tile], -split_k)
            p.insert(NamedBarrierOp("sync", SERIAL_BARRIER, consumers))  # the old value, and the acquire
            fc = min(bc, SERIAL_COLUMNS // wgs if swap_ab else SERIAL_COLUMNS)
            if swap_ab:  # summed as M x N (N contiguous): 16-byte loads and stores along the weight's rows
                from types import SimpleNamespace

                from tilec.dialects.distributed import BlockedLayout

                fix = SimpleNamespace(**{**vars(g), **g.reduce_views})
                wr = min(4 * wgs, fc // 4)
                lay = BlockedLayout([1, 4], [4, 8], [wr, 4 * wgs // wr], [1, 0])
            else:
                fix = g
                lay = g.mma if fc == bc else NvidiaMmaLayout(3, [bm // 16, 1], [64, fc, 32 // g.eb])
            with p.if_(g.Ctr[flag].eq(last).named("lastunit")):
                # column chunks (and one_wgmma's): an accumulator and a partial in registers at a time
                for cy, h in ((cy, h) for cy in g.bys for h in range(bc // fc)):
                    by = cy if fc == bc else (cy * p.constant(bc // fc).named("fchunks")
                                              + p.constant(h).named(f"fc{h}")).named("fby")
                    at, shape = ([by, g.bx], [fc, bm]) if swap_ab else ([g.bx, by], [bm, fc])
                    acc = None
                    for s in range(split_k):
                        w = p.slice(fix.W, ["_", "_", s]).named(f"w{s}")
                        x = p.load(p.tile(w, at, shape).named(f"tw{s}"), lay).named(f"part{s}")
                        acc = x if acc is None else (acc + x).named(f"sum{s}")
                    out = epilogue.apply(fix, acc, *at, *shape, lay)
                    p.store(out, p.tile(fix.C, at, shape).named("tc"))

        def stream_fixup() -> None:
            """`stream_k` with `serial`: the block's arrival on its shared tile's counter
            and, in the tile's last block to arrive, the sum of the tile's partials (the
            docstring; `_stream_k_sum`)."""
            from types import SimpleNamespace

            from tilec.dialects.layout_roles import NamedBarrierOp

            consumers = WARPGROUP * wgs
            p.insert(NamedBarrierOp("sync", SERIAL_BARRIER, consumers))  # every partial store before the release
            t0 = (g.ttail * g.trips).named("t0")
            b0 = p.divui(t0, g.span).named("b0")
            b1 = p.divui((t0 + (g.trips - g.c1).named("trips1")).named("tlast"), g.span).named("b1")
            # at most the grid's last block: a block whose range is empty walks no tile (on the
            # reference executor, in lockstep, its lanes run the walk masked: their slots in range)
            units = g.ncl if size > 1 else g.nprog  # (in clusters the blocks sharing a group are clusters)
            b1 = p.minui(b1, (units - g.c1).named("lastpid")).named("b1")
            last = (b1 - b0).named("sharers1").cast("i32").named("lastarrival")
            csize = p.constant(size).named("csize") if size > 1 else None
            # its counter (in clusters: the group's tile of this block's rank)
            tile = ((g.ttail * csize).named("ctile") + g.crank).named("ctile") if size > 1 else g.ttail
            with p.if_(g.tid.eq(g.c0).named("leader")):
                p.fence()
                old = p.atomic_add(g.Ctr, [tile], 1).named("arrival")
                p.fence()
                arrival[g.c0] = old
                with p.if_(old.eq(last).named("resets")):
                    p.atomic_add(g.Ctr, [tile], (p.constant(-1, "i32").named("minus1") - last).named("reset"))
            p.insert(NamedBarrierOp("sync", SERIAL_BARRIER, consumers))  # the old value, and the acquire
            with p.if_(arrival[g.c0].eq(last).named("lastblock")):
                fix = SimpleNamespace(**{**vars(g), **g.reduce_views})
                tm, tn = (g.by, g.bx) if swap_ab else (g.bx, g.by)
                _stream_k_sum(fix, t0, b0, b1, tm, tn, bm, bn, wgs, epilogue, swap_ab,
                              (csize, g.crank) if size > 1 else None)

        def store_chunk(sc, a, bx, by, vec, rows: int = bm, c: int = 0) -> None:
            """The epilogue of the tile's `c`-th column chunk (`bx`, `by`) of C (in tiles of
            `rows` x bc) from its accumulator `a` (its vectors `vec`, or None: loaded here),
            stored from the registers, or with the TMA through the C ring `sc` (`ring` buffers)
            as its parts of `ch` x `cw` (row parts, each as column parts): the tile's part q
            (counted over its chunks) written into buffer q % ring once the TMA store that
            last read that buffer has (`_ring_wait`). `c` a Value (`rolled_chunks`, one C
            buffer): each part waits for the store before it."""
            if bias_smem and not bias_smem_start:  # the tile's bias from the producer's copy in shared memory
                vec = epilogue.vectors(g, bx, by, rows, bc, bias=bias_view(c))
            h = tail.apply(g, a, bx, by, rows, bc, vectors=vec)
            if not tma_epilogue:
                p.store(h, p.tile(g.C, [bx, by], [rows, bc]).named("tc"))
                return
            # the parts: row parts of `ch` (register bits: no data moving), each as column parts of `cw`
            xs, hgt = [h], rows
            while hgt > ch:
                xs, hgt = [y for x in xs for y in _halves(p, x, hgt, bc, g.mma)], hgt // 2
            w = bc
            while w > cw:
                mw = g.mma if w == bc else NvidiaMmaLayout(3, g.mma.warps_per_cta, [64, w, g.mma.instr_shape[2]])
                xs, w = [y for x in xs for y in _halves(p, x, ch, w, mw, 1)], w // 2
            rp, cp = rows // ch, bc // cw

            def index(base, n: int, i: int, name: str):  # part i of n of `base` in units of base / n
                if n == 1:
                    return base
                nv = g.c2 if n == 2 else p.constant(n).named(f"{name}s")
                iv = g.c0 if i == 0 else g.c1 if i == 1 else p.constant(i).named(f"{name}{i}")
                return ((base * nv).named(name) + iv).named(name)

            parts = [(x, [index(bx, rp, j // cp, "hrow"), index(by, cp, j % cp, "bycw")], [ch, cw])
                     for j, x in enumerate(xs)]
            for j, (x, at, shape) in enumerate(parts):
                # (`rolled_chunks`, one buffer: every part waits for the store before, as part 1's)
                q = c * len(parts) + j if isinstance(c, int) else 1
                tc = p.tile(g.C, at, shape).named("tch" if len(parts) > 1 else "tc")
                if (pending := _ring_wait(q, ring, c_early)) is not None:  # buffer q % ring's last store has read it
                    p.tma_store_wait(pending)
                buf = sc[q % ring]
                p.store(x.named(f"half{j}") if len(parts) > 1 else x, buf)
                if c_early and (pending := _early_wait(q, ring, nch * len(parts))) is not None:
                    p.tma_store_wait(pending)  # buffer (q + 1) % ring's last store has read it (the store's meeting)
                p.tma_store(buf, tc)

        # `overlap_epilogue`: the accumulator of the previous tile's last chunk, carried over
        # the tile loop (its coordinates are computed again from the tile's index: values
        # carried by a region's loop are the region's threads' only)
        held: list = []

        def last_chunk(t) -> tuple:
            """(block row, chunk column) of tile `t`'s last column chunk."""
            bx, by = g.bx, g.by
            if group > 1:
                _grouped(g, m, n, bm, bn, group, t)
            else:
                g.bx, g.by = p.divui(t, g.gn).named("bx"), p.remui(t, g.gn).named("by")
            out = g.bx, (g.by * p.constant(nch).named("nch") + p.constant(nch - 1).named("chl")).named("byl")
            g.bx, g.by = bx, by
            return out

        def first_round(sc) -> list:
            """`overlap_epilogue`'s first round of a tile's K loop (the docstring): every
            chunk's but the last wgmma of steps 0 .. stages - 1 issued (in flight), the
            previous tile's last chunk stored (not on the block's first tile), then the
            last chunk's wgmma of the round, each step's stage handed back once both
            chunks have read it; the round's last wgmma waited for (a value in flight
            may not enter the K loop). Returns the chunks' accumulators."""
            phase = p.remui(p.divui(g.base, g.cs).named("round0"), g.c2).named("phase0")
            heads = [Value(p, g.zero.ssa) for _ in range(nch - 1)]
            for s in range(stages):
                p.mbarrier_wait(full[s], phase)
                heads = [p.mma(sa[s], b, a, is_async=True).named(f"h{s + 1}") for a, b in zip(heads, sb[s])]
            with p.if_(g.later):
                store_chunk(sc, held[0], *last_chunk((g.t - g.nprog).named("tprev")), None)
            last = Value(p, g.zero.ssa)
            for s in range(stages):
                d = p.mma(sa[s], sb[s][-1], last, is_async=True).named(f"l{s + 1}")
                # the round's last wgmma complete before the K loop (no value in flight enters it)
                last, *heads = p.mma_wait(d, *heads, pending=1 if s < stages - 1 else 0)
                last.named(f"acc{s + 1}")
                if s:
                    release(s - 1)
            release(stages - 1)
            return [*heads, last]

        def kall(i):
            """The block's K steps before step `i` of the tile (`i` from the segment's
            first, `g.kfirst`, with stream-K)."""
            if stream_k:
                return (g.base + (i - g.kfirst).named("insegment")).named("kall")
            return (g.base + i).named("kall")

        def box_part(box: int, part: int, kt, s: int) -> tuple:
            """(global tile, shared tile) of part `part` of stage `s`'s box `box` (-1: A's,
            1 / cn of its rows; c: B's chunk c, 1 / cm of its outer mode's rows)."""
            parts = cn if box < 0 else cm
            pc, pn = p.constant(part).named(f"part{part}"), p.constant(parts).named("parts")
            if box < 0:
                at = ((g.bx * pn).named("bxp") + pc).named("bxp")
                return (p.tile(g.A, [at, kt], [bm // parts, bk]).named(f"tap{s}"),
                        p.tile(sa[s], [pc, g.c0], [bm // parts, bk]).named(f"sap{s}"))
            # with one_wgmma the part is a tile of the stage's whole B buffer (a TMA copy's
            # shared side is one tile of an alloc), chunk `box`'s columns
            bxc = p.constant(box).named(f"ch{box}") if s in sbw else g.c0
            if b_kmajor:  # B's rows of N (its shared buffer's outer mode)
                at = ((g.bys[box] * pn).named("byp") + pc).named("byp")
                col = ((bxc * pn).named("chp") + pc).named("chp") if s in sbw else pc
                return (p.tile(g.B, [kt, at], [bk, bc // parts]).named(f"tbp{s}"),
                        p.tile(sbw.get(s, sb[s][box]), [g.c0, col], [bk, bc // parts]).named(f"sbp{s}"))
            at = ((kt * pn).named("ktp") + pc).named("ktp")
            return (p.tile(g.B, [at, g.bys[box]], [bk // parts, bc]).named(f"tbp{s}"),
                    p.tile(sbw.get(s, sb[s][box]), [pc, bxc], [bk // parts, bc]).named(f"sbp{s}"))

        def prefetch_ahead(i) -> None:
            """`l2_ahead`: the weight's rows of the unit (A's, swapped) over the K steps of
            the trip `l2_ahead` trips after the one from step `i`, asked of L2 (one
            `layout.prefetch` a row of `stages * bk` elements: thread 0 of the producer;
            nothing where the row's span leaves the weight)."""
            from tilec.dialects.layout import PrefetchOp

            kt = i if split_k == 1 else (i + g.kbase).named("kpre")
            tk = (p.divui(kt, g.cs) + p.constant(l2_ahead).named("ahead")).named("tkpre")
            # only trips that start inside K (the last one's span clipped by the tile's mask)
            with p.if_((tk < p.constant(_cdiv(k, stages * bk)).named("ktrips")).named("inside")):
                row0 = (g.bx * p.constant(bm).named("bmrows")).named("row0")
                for r in range(bm):
                    row = row0 if r == 0 else (row0 + p.constant(r).named(f"r{r}")).named("prow")
                    view = p.tile(g.A, [row, tk], [1, stages * bk]).named("wrow")
                    p.insert(PrefetchOp(view.ssa))

        def producer_small() -> None:
            """`small_stages`' producer of a unit (the docstring): the weight's ring of
            `stages` and A^T's of R, A^T's steps `stages` - R behind the weight's."""
            sr, lag = small_stages, stages - small_stages

            def kt_of(i, off: int):
                kt = i if off == 0 else (i + p.constant(off).named(f"o{off}")).named("kt") if off > 0 else (
                    i - p.constant(-off).named(f"lag{-off}")).named("kt")
                return (kt + g.kbase).named("ks") if split_k > 1 else kt

            def load_w(s: int, kt) -> None:
                p.mbarrier_arrive(full[s], tx=g.eb * bm * bk)
                p.tma_load(p.tile(g.A, [g.bx, kt], [bm, bk]).named(f"ta{s}"), sa[s], full[s])

            def load_a(a: int, kt, wait=True) -> None:
                """A^T's step `a` of a trip (negative: the trip before), its "empty" barrier
                waited for first (`wait` True, or unless the Value `wait`)."""
                q, ph = a % sr, (a // sr - 1) % 2  # (the trip's first step a multiple of 2 R)
                if wait is True:
                    p.mbarrier_wait(emptya[q], g.c1 if ph else g.c0)
                else:
                    _, otherwise = p.if_else(wait)
                    with otherwise:
                        p.mbarrier_wait(emptya[q], g.c1 if ph else g.c0)
                p.mbarrier_arrive(fulla[q], tx=g.eb * bn * bk)
                p.tma_load(p.tile(g.B, [kt, g.bys[0]], [bk, bn]).named(f"tb{q}"), sb[q][0], fulla[q])

            # the unit's first trip: the block's first unit waits for no stage
            first = g.base.eq(g.c0).named("first")
            rnd = p.divui(g.base, g.cs).named("round")
            ephase = p.remui((rnd - g.c1).named("prev"), g.c2).named("ephase")
            for s in range(stages):
                _, otherwise = p.if_else(first)
                with otherwise:
                    p.mbarrier_wait(empty[s], ephase)
                load_w(s, kt_of(g.c0, s))
                if s >= lag:
                    load_a(s - lag, kt_of(g.c0, s - lag), first)
            with p.range(g.cs, g.nk, g.cs) as i:
                i.named("i")
                rnd = p.divui(kall(i), g.cs).named("round")
                ephase = p.remui((rnd - g.c1).named("prev"), g.c2).named("ephase")
                for s in range(stages):
                    p.mbarrier_wait(empty[s], ephase)
                    load_w(s, kt_of(i, s))
                    load_a(s - lag, kt_of(i, s - lag))
            for t in range(lag):  # A^T's last steps
                load_a(t - lag, kt_of(g.nk, t - lag))

        def producer() -> None:
            if small_stages:
                return producer_small()
            kto = g.klast if stream_k else g.nk
            with p.range(g.kfirst if stream_k else g.c0, kto, g.cs) as i:
                i.named("i")
                producer_trip(i)
                if l2_ahead:
                    prefetch_ahead(i)

        def producer_trip(i) -> None:
            """A trip of the producer's loop from step `i`: each step loads its stage,
            but a step past K (`skip_padding`: a branch on the step, `inside`) only waits
            for its stage and arrives on its "full" barrier, expecting no bytes. With
            `pdl_weight`, the
            block's first trip loads the weight's boxes of all its stages, then waits for
            the previous kernel (`griddep_wait`), then loads the small operand's."""
            rnd = p.divui(kall(i), g.cs).named("round")
            first = rnd.eq(g.c0).named("first")
            ephase = p.remui((rnd - g.c1).named("prev"), g.c2).named("ephase")
            if pdl_weight:
                then, otherwise = p.if_else(first)
                with then:
                    _weight_first_trip(i)
                with otherwise:
                    _trip(i, first, ephase)
                return
            _trip(i, first, ephase)

        def _weight_first_trip(i) -> None:
            """`pdl_weight`'s first trip of a block (`producer_trip`): no stage to wait for
            (steps past K, `skip_padding`, loaded too: zeros, which the copy engine fills).
            Each stage's arrival and the weight's loads (in clusters of cm x 1 the block's
            share of the multicast boxes, `cluster_loads`), the wait, then the small
            operand's loads (`load_stage`'s `part`)."""
            kts = []
            for s in range(stages):
                kt = (i + o[s]).named(f"kt{s}")
                if split_k > 1:
                    kt = (kt + g.kbase).named(f"ks{s}")
                load_stage(s, kt, part="weight")
                kts.append(kt)
            p.griddep_wait()
            for s, kt in enumerate(kts):
                load_stage(s, kt, part="small")

        def _trip(i, first, ephase) -> None:
            guards = inside(i) if pad else {}
            ik = i
            wrap = k_rotate_step % stages != 0  # a trip may go round K's end: each step mod K's steps
            if k_rotate:  # the tile's trips from (by x step) mod K's steps on, round the end
                step = p.constant(k_rotate_step).named("krstep") if k_rotate_step else g.cs
                rot = p.remui((g.by * step).named("krot"), g.nk).named("krot")
                ik = p.remui((i + rot).named("irot"), g.nk).named("irot")
            for s in range(stages):
                kt = (ik + o[s]).named(f"kt{s}")
                if k_rotate and wrap and s:
                    kt = p.remui(kt, g.nk).named(f"kt{s}")
                if split_k > 1:
                    kt = (kt + g.kbase).named(f"ks{s}")
                _, otherwise = p.if_else(first)
                with otherwise:
                    p.mbarrier_wait(empty[s], ephase)
                if bias_smem and s == 0:  # the tile's first step: its bias beside the stage (the docstring)
                    load_bias(i)
                if s in guards:  # past K: no bytes
                    then, otherwise = p.if_else(guards[s])
                    with then:
                        load_stage(s, kt, first)
                    with otherwise:
                        p.mbarrier_arrive(full[s])
                else:
                    load_stage(s, kt, first)

        def load_bias(i) -> None:
            """`bias_smem`: in the tile's first trip (`i` 0), its `bn` bias elements into part
            j % 2 of the bias's ring by one TMA box completing on stage 0's "full" barrier,
            its bytes expected there before the stage's arrival."""
            with p.if_(i.eq(g.c0).named("tilestart")):
                p.mbarrier_expect_tx(full[0], p.constant(bn * 2).named("biasbytes"))
                tb = p.tile(g.Bias, [g.by], [bn]).named("tbias")
                even, odd = p.if_else(p.remui(g.j, g.c2).named("bslot").eq(g.c0).named("evenslot"))
                for branch, part in ((even, g.c0), (odd, g.c1)):
                    with branch:
                        p.tma_load(tb, p.tile(sbias, [part], [bn]).named("sbiasj"), full[0])

        def bias_view(c: int):
            """`bias_smem`: the shared view of chunk `c`'s `bc` bias elements of the tile
            (part j % 2 of the bias's ring)."""
            at = p.remui(g.j, g.c2).named("bslot")
            if nch > 1:
                at = (at * p.constant(nch).named("nch")).named("bpart")
            if not isinstance(c, int):  # (`rolled_chunks`: the loop's chunk)
                at = (at + c).named("bpart")
            elif c:
                at = (at + p.constant(c).named(f"ch{c}")).named("bpart")
            return p.tile(sbias, [at], [bc]).named("sbiasc")

        def load_stage(s: int, kt, first=None, clip: bool = False, part: str = "", whole=None) -> None:
            """Stage `s`'s boxes of K step `kt`, their bytes expected on its "full" barrier.
            `clip_small`: after the block's first trip (`first`), A^T's box (unswapped: the
            last block row's A box) clipped to M's rows (`clip`), their run-time bytes expected beside the weight's
            (the rows past M keep the first trip's zeros); the same loads in the same
            order (`b_first`, `arrive_last`) either way. Unswapped, the stage's code is
            written once and only A's load and the arrival branch on `whole` (the block's
            first trip or a block row inside M): whole, the arrival expects the whole
            stage; clipped, the tail box's run-time bytes first, then the arrival the
            weight's (the arrival goes with A's load, in its place). `part` (`pdl_weight`'s first
            trip): "weight", the arrival expecting the whole stage's bytes and the weight's
            loads (B's; swapped, A's); "small", the other operand's loads alone."""
            if clip_small and first is not None and not swap_ab:  # (only the last block row's box crosses M)
                load_stage(s, kt, whole=(first | g.bx.ne(g.mlast).named("inner")).named("whole"))
                return
            if clip_small and first is not None:
                then, otherwise = p.if_else(first)
                with then:
                    load_stage(s, kt)
                with otherwise:
                    load_stage(s, kt, clip=True)
                return
            tx = g.eb * ((0 if whole is not None else bm * ("a" not in cp_async))
                         + (0 if clip and swap_ab else bn * ("b" not in cp_async))) * bk
            if clip:  # the clipped box's bytes, expected before any of the stage's copies is issued
                p.mbarrier_expect_tx(full[s], g.clip_bytes)
            if not arrive_last and not part and whole is None:
                p.mbarrier_arrive(full[s], tx=tx or None)
            ta = p.tile(g.A, [g.bx, kt], [bm, bk]).named(f"ta{s}")
            tbs = [] if whole_b else [p.tile(g.B, [kt, by], [bk, bc]).named(f"tb{s}") for by in g.bys]
            sbs = sb[s]
            if b_panels:  # B's boxes: the tile's 128-byte panels (`g.bpan` the first), then the chunk left
                tbs = [p.tile(g.B, [kt, (g.bpan + p.constant(j).named(f"pan{j}")).named("bpan")], [bk, panel])
                       .named(f"tb{s}") for j in range(bn // panel)]
                if bn % panel:
                    tbs.append(p.tile(g.B, [kt, g.bys[-1]], [bk, bc]).named(f"tb{s}"))
                sbs = sbl[s]

            def load_a() -> None:
                if whole is not None:  # A's box whole or its tail, the arrival with it (the docstring)
                    then, otherwise = p.if_else(whole)
                    for branch, cut in ((then, False), (otherwise, True)):
                        with branch:
                            if cut:
                                p.mbarrier_expect_tx(full[s], g.clip_bytes)
                            if not arrive_last:
                                p.mbarrier_arrive(full[s], tx=(tx if cut else tx + g.eb * bm * bk) or None)
                            p.tma_load(ta, sa[s], full[s], l2_promotion=l2_promotion, clip=cut, tail=cut)
                            if arrive_last:
                                p.mbarrier_arrive(full[s], tx=(tx if cut else tx + g.eb * bm * bk) or None)
                    return
                if cn == 1 and "a" in cp_async:
                    p.cp_async_load(ta, sa[s], full[s])
                elif cn == 1:
                    p.tma_load(ta, sa[s], full[s], l2_promotion=l2_promotion)

            def load_b() -> None:
                if tile_whole:  # the stage's whole B tile, one multicast box from rank s mod cm
                    with p.if_(g.crank.eq(g.crs[s % cm]).named("mystage")):
                        p.tma_load(p.tile(g.B, [kt, g.by], [bk, bn]).named(f"tbw{s}"),
                                   p.tile(sbw.get(s, sb[s][0]), [g.c0, g.c0], [bk, bn]).named(f"sbt{s}"),
                                   full[s], multicast=(1 << cm) - 1, l2_promotion=l2_promotion)
                    return
                if whole_b:  # block scales' narrow chunks: the stage's B tile one box, not a box a chunk
                    p.tma_load(p.tile(g.B, [kt, g.by], [bk, bn]).named(f"tbw{s}"),
                               p.tile(sbw[s], [g.c0, g.c0], [bk, bn]).named(f"sbt{s}"), full[s],
                               l2_promotion=l2_promotion)
                    return
                if tile_parts:  # each rank its rows of the stage's whole B tile, multicast to the cluster
                    pn = p.constant(cm).named("parts")
                    for r in range(cm):
                        pc = p.constant(r).named(f"part{r}")
                        with p.if_(g.crank.eq(g.crs[r]).named("mypart")):
                            at = ((g.by * pn).named("byp") + pc).named("byp")
                            p.tma_load(p.tile(g.B, [kt, at], [bk, bn // cm]).named(f"tbt{s}"),
                                       p.tile(sbw.get(s, sb[s][0]), [g.c0, pc], [bk, bn // cm]).named(f"sbt{s}"),
                                       full[s], multicast=(1 << cm) - 1, l2_promotion=l2_promotion)
                    return
                if size > 1:  # each rank its share of the stage's boxes, multicast (`cluster_loads`)
                    for r, loads in enumerate(cluster_loads(cm, cn, s, nch, box_parts)):
                        if loads:
                            with p.if_(g.crank.eq(g.crs[r]).named("myhalf")):
                                for box, part, mask in loads:
                                    tb, b = (ta, sa[s]) if box < 0 else (tbs[box], sb[s][box])
                                    if part >= 0:
                                        tb, b = box_part(box, part, kt, s)
                                    p.tma_load(tb, b, full[s], multicast=mask, l2_promotion=l2_promotion)
                    if cm > 1:
                        return
                for tb, b in zip(tbs, sbs):
                    if "b" in cp_async:
                        p.cp_async_load(tb, b, full[s])
                    else:
                        p.tma_load(tb, b, full[s], l2_promotion=l2_promotion, clip=clip and swap_ab)

            if part:  # `pdl_weight`'s first trip: the weight's loads before the wait, the small operand's after
                weight, small = (load_a, load_b) if swap_ab else (load_b, load_a)
                if part == "small":
                    small()
                    return
                if not arrive_last:
                    p.mbarrier_arrive(full[s], tx=tx or None)
                weight()
                if arrive_last:
                    p.mbarrier_arrive(full[s], tx=tx or None)
                return
            for load in (load_b, load_a) if b_first else (load_a, load_b):
                load()
            if arrive_last and whole is None:  # (the phase cannot complete before its arrival: the copies may land first)
                p.mbarrier_arrive(full[s], tx=tx or None)

        if clip_small and swap_ab:  # A^T's clipped box: min(bn, M) rows of bk a stage
            g.clip_bytes = (p.minui(g.m, p.constant(bn).named("bnc")) * p.constant(g.eb * bk).named("rowb")
                            ).named("clipbytes")
        elif clip_small:  # the last block row's A box: (M - 1) mod bm + 1 rows of bk a stage
            mv = g.m if g.m is not None else p.constant(m).named("mc")
            # the block row M ends inside (M / bm; none where M is a multiple of bm: whole boxes)
            g.mlast = p.divui(mv, p.constant(bm).named("bmc")).named("mlast")
            left = (p.remui((mv - g.c1).named("m1"), p.constant(bm).named("bmc")) + g.c1).named("mleft")
            g.clip_bytes = (left * p.constant(g.eb * bk).named("rowb")).named("clipbytes")
        if pdl:  # the stream's next kernel may start its blocks; this one waits for the previous
            if not pdl_late:  # (`pdl_late`: the producer, after its last loads)
                p.griddep_launch_dependents()
            if not pdl_weight:
                p.griddep_wait()
        roles = p.warp_specialize([1, 1, 1] if pingpong else [wgs, 1] if shared else [1] * (wgs + 1) if apart
                                  else [wgs, 1], apart=[0] if shared else [])
        for c, role in enumerate(roles[:-1]):
            with role:
                # a region run apart: the warpgroup's rows of the tile and of the C buffer
                wgi = p.warpgroup_index().named("wgi") if shared else None
                p.setmaxnreg("inc", consumer_regs)
                if pdl_weight:  # (the producer waits in its first trip, after the weight's loads)
                    p.griddep_wait()
                g.zero = p.full([rows, bc], 0.0, "f32", g.mma, dense=True).named("zero")
                if block_scales:  # the scales of the carried partials before a tile's first trip
                    from tilec.dialects.distributed import SliceLayout

                    g.scale0 = p.full([sext], 0.0, "f32", SliceLayout(sax, g.mma)).named("sarow0")
                    g.sb0 = p.constant(0.0, "f32").named("sbv0")
                if overlap_epilogue:
                    held[:] = [Value(p, g.zero.ssa)]
                own_sc = scs[c] if not shared or scs[c] is None else [
                    p.tile(b, [wgi, g.c0], [ch, cw]).named("scw") for b in scs[c]]
                tiles(lambda c=c: consumer(own_sc, c if pingpong else None, wgi if shared else c if apart else None),
                      c if pingpong else None, held)
                if overlap_epilogue:  # the block's last tile's last chunk (every block has a tile)
                    tlast = (g.pid + (p.divui((g.ntiles - g.c1).named("tmax") - g.pid, g.nprog).named("jlast")
                                      * g.nprog).named("jstep")).named("tlast")
                    store_chunk(own_sc, held[0], *last_chunk(tlast), None)
                if tma_epilogue:  # the last TMA store has read the C buffer before the block exits
                    p.tma_store_wait(0)
        with roles[-1]:
            p.setmaxnreg("dec", producer_regs)
            if small_prefetch:  # A's rows pid, pid + G, ... asked of L2 (the docstring)
                from tilec.dialects.layout import PrefetchOp

                with p.range(g.pid, p.constant(bn).named("bnrows"), g.nprog) as r:
                    r.named("arow")
                    p.insert(PrefetchOp(p.tile(g.B, [g.c0, r], [k, 1]).named("arowv").ssa, "evict_last"))
            tiles(producer)
            if pdl_late:  # every load of the block issued: the next kernel may start its blocks
                p.griddep_launch_dependents()
        if size > 1:  # no block exits while a peer may still arrive on its barriers or multicast to it
            p.cluster_sync()
        if cluster_split:
            _cluster_sum(g, mine, bm, bc, split_k, wgs + 1, epilogue)  # `mine` None: the workspace's
    if (split_k > 1 and not serial and not cluster_split) or (stream_k and not serial):
        from types import SimpleNamespace

        fix = SimpleNamespace(**{**vars(g), **g.reduce_views})
        if stream_k:
            _stream_k_fixup(fix, m, n, bm, bn, epilogue, swap_ab, group, cluster)
        else:
            _split_k_reduce(fix, m, n, split_k, epilogue)
    return p.module


SMEM_SM90 = 227 * 1024
"""The dynamic shared memory a block of sm_90 may take (`Target.smem_per_block`)."""


def barriers_fit(bm: int, bn: int, bk: int, stages: int, eb: int, cbufs: int) -> bool:
    """Whether a ring of `stages` whole (unchunked) `bm x bn x bk` stages of `eb`-byte
    elements, `cbufs` C buffers and a kilobyte a stage for the stage's
    barriers between its 1024-byte-aligned buffers fit `SMEM_SM90`: `gemm_hopper_ws`
    then allocates each stage's barriers after its buffers, else all after the ring
    and the C buffers (one kilobyte in all)."""
    ring = stages * (bm + bn) * bk * eb
    return ring + cbufs * bm * bn * 2 + 1024 * stages <= SMEM_SM90


def _halves(p, h, rows: int, cols: int, mma, dim: int = 0) -> tuple:
    """The two halves along `dim` (0: rows, `rows / 2 x cols` each, in `mma`; 1: columns,
    `rows x cols / 2` each, in `mma` of half its instruction's N) of `h` (`rows x cols` in
    `mma`, whose top bit of `dim` is a register bit: the row bit of
    `gemm_hopper_ws(consumer_rows=128)`'s accumulator, a column bit of 16 or more of any
    wgmma accumulator), with no data moving: the registers renamed so that bit is register
    bit 0 (`layout.convert_layout` to a `#layout.linear`), then `reshape` with the bit as
    its own dimension, `permute` it last and `split`."""
    from tilec.compiler.builder_types import encoding_attr
    from tilec.dialects.layout_attrs import LinearBases, LinearLayoutAttr, to_linear
    from tilec.dialects.mma import NvidiaMmaLayout

    size = (rows, cols)[dim]
    half = size // 2
    top = (half, 0) if dim == 0 else (0, half)
    full = to_linear(encoding_attr(mma), [rows, cols])
    regs = [tuple(b) for b in full.get_bases("register")]
    if top not in regs:
        raise ValueError(f"_halves: bit {half} of dimension {dim} of {rows} x {cols} is no register bit")
    regs = [top] + [b for b in regs if b != top]
    lanes, warps = ([tuple(b) for b in full.get_bases(d)] for d in ("lane", "warp"))

    def linear(f):
        return LinearLayoutAttr(LinearBases(tuple(map(f, regs)), tuple(map(f, lanes)), tuple(map(f, warps)), ()))

    x = p.convert_layout(h, linear(lambda b: b)).named("renamed")
    if dim == 0:
        x = p.reshape(x, [2, half, cols], linear(lambda b: (b[0] // half, b[0] % half, b[1]))).named("stacked")
        x = p.permute(x, [1, 2, 0], linear(lambda b: (b[0] % half, b[1], b[0] // half))).named("paired")
        return p.split(x, mma)
    x = p.reshape(x, [rows, 2, half], linear(lambda b: (b[0], b[1] // half, b[1] % half))).named("stacked")
    x = p.permute(x, [0, 2, 1], linear(lambda b: (b[0], b[1] % half, b[1] // half))).named("paired")
    m, _, k = mma.instr_shape
    return p.split(x, NvidiaMmaLayout(mma.version, mma.warps_per_cta, [m, half, k]))


def _ring_wait(q: int, ring: int, early: bool = False) -> int | None:
    """The `layout.tma_store_wait {pending}` before part `q` of a tile's C (its chunks' store
    parts in order) is written into buffer `q % ring` of a ring of `ring` C buffers, or None
    (no wait): from part `ring` on, part q - ring's store must have read the buffer and the
    ring - 1 stores after it may still read theirs; the tile's first part waits for every
    store (the previous tile's, issued a K loop before: each buffer its first `ring` parts
    write), so the others of its first `ring` wait for none. `ring` 1 is one C buffer (a wait
    for each part's previous store), `ring` = the tile's parts a buffer a part (one wait a tile).
    `early` (`c_early`): only the tile's first part waits here, the others' waits are
    `_early_wait`'s, a part before."""
    return 0 if q == 0 else None if early else ring - 1 if q >= ring else None


def _early_wait(q: int, ring: int, parts: int) -> int | None:
    """`c_early`'s `layout.tma_store_wait {pending}` after part `q` of a tile's `parts` is
    written into buffer `q % ring` and before its TMA store (whose meeting then orders the
    next part's writes after the wait), or None: part q + 1 (of this tile) goes to buffer
    (q + 1) % ring, last read by part q + 1 - ring's store, and of the stores issued by then
    (up to part q - 1's) the ring - 2 after it may still read theirs; buffers a previous tile's
    stores read are the tile's first part's wait (`_ring_wait`). `ring` >= 2."""
    return ring - 2 if ring <= q + 1 < parts else None


CLUSTER_SIZES = (1, 2, 4)
"""The blocks a cluster of `gemm_hopper_ws` may hold (`cluster` = (cm, cn), cm cn of them)."""


def cluster_loads(cm: int, cn: int, stage: int, chunks: int, parts: bool = False) -> list[list[tuple[int, int, int]]]:
    """The multicast TMA loads each rank of a `cm x cn` cluster of `gemm_hopper_ws`
    issues into stage `stage` of the ring, as (box, part, multicast mask) per rank: box
    -1 is A's tile, box c >= 0 B's column chunk c of `chunks`; part -1 the whole box.
    With `parts` (`gemm_hopper_ws(box_parts=True)`), every stage rank (rx, ry) loads
    part ry of cn of A's tile, multicast to its cluster row, and part rx of cm of each
    of B's chunks, multicast to its column: all of the cluster's ranks load at every
    stage, each 1 / cn of A and 1 / cm of B. Without: Rank r is block row rx = r %
    cm and block column ry = r // cm of the cluster's group of tiles: the cn blocks of
    a cluster row (same rx) share A's tile, the cm of a cluster column (same ry) share
    B's. The stage's A tile is loaded by the row's block ry = stage % cn and multicast
    to the row; B's chunk c by the column's block rx = (stage chunks + c) % cm,
    multicast to the column (where cn, or cm, is 1, each block loads its own A, or B,
    with a plain load instead). So over the ring's stages every block loads 1 / cn of
    the A tiles and 1 / cm of the B chunks its group needs (`stages` a multiple of cn,
    `stages * chunks` of cm), and a block's loads reach exactly its cluster row (A)
    and column (B): the blocks whose consumers release its stages."""
    out: list[list[tuple[int, int]]] = []
    for r in range(cm * cn):
        rx, ry = r % cm, r // cm
        loads: list[tuple[int, int]] = []
        if cn > 1 and (parts or stage % cn == ry):
            loads.append((-1, ry if parts else -1, sum(1 << (rx + cm * j) for j in range(cn))))
        for c in range(chunks):
            if cm > 1 and (parts or (stage * chunks + c) % cm == rx):
                loads.append((c, rx if parts else -1, sum(1 << (i + cm * ry) for i in range(cm))))
        out.append(loads)
    return out


PRODUCER_REGS = 40
"""The producer warpgroup's `setmaxnreg dec` of `gemm_hopper_ws` (CUTLASS's 40): TMA loads
issued by one thread, and `cp.async` of one operand (ptxas: no spills at 3000 x 5000 x
7000, 128 x 256 x 64, B or A by cp.async)."""

PRODUCER_REGS_CP_ASYNC = 72
"""The producer's registers where it loads both operands with `cp.async`: each thread keeps
both operands' addresses and row masks across the unrolled stages (at 56, ptxas spilled 12
bytes a thread at 3000 x 5000 x 7000, 128 x 256 x 64; at 40, 196)."""

CONSUMER_REGS = 232
"""The most registers a consumer warpgroup of `gemm_hopper_ws` takes by default (with
`PRODUCER_REGS`, all of the block's 3 x 168 at 384 threads)."""


SERIAL_COLUMNS = 64
"""The columns of a tile `gemm_hopper_ws(serial=True)`'s last unit sums at a time (its
accumulator and partials in registers: 64 x 64 f32 over a warpgroup is 32 a thread;
swapped, M's columns of all the tile's rows of N, 64 over the consumer warpgroups: four
warpgroups' 104 registers spilled the whole tile, and 64 columns of 256 rows)."""

SERIAL_BARRIER = 3
EPILOGUE_TURN_BARRIER = 4
"""`gemm_hopper_ws(epilogue_turns=True)`'s hardware barrier: 0 is `__syncthreads`', 1 .. 3
the staggered kernel's three regions' own (`warp_specialize warpgroups(1, 1, 1)`)."""
"""The hardware barrier (`bar.sync` id) of `gemm_hopper_ws(serial=True)`'s consumer
warpgroups (0 is `__syncthreads`'s, 1 and 2 the two regions')."""


MAX_CLUSTER_SPLIT = 8
"""The most splits `gemm_hopper_ws(cluster_split=True)` runs as one cluster (8 blocks: the
portable cluster size)."""


CLUSTER_SPLIT_PAD = 4
"""The f32 elements between two columns of M of `gemm_hopper_ws(cluster_split=True)`'s
partial in shared memory (N contiguous): the accumulator's stores, a thread's pairs of
columns 8 rows apart, land in 32 banks (in 8 without it: 4-way conflicts), and each
column stays 16-byte aligned for the sum's loads."""


CLUSTER_SUM_ELEMENTS = 32
"""The most elements of the S partials a thread of `gemm_hopper_ws(cluster_split=True)`'s
sum holds at once (all its loads in flight, then added) in a block of two warpgroups
(255 registers a thread), in a block of W warpgroups the power of two at most 2 / W
of it (three: 16, of 168 registers; 32 spilled 84 bytes with the widest epilogue at
QKV's M = 128 in 128-row units split twice): the sum takes that many columns of M at
a time."""


def _cluster_sum(g, mine, bm: int, bc: int, split: int, warpgroups: int, epilogue: Epilogue) -> None:
    """`cluster_split`'s sum (`gemm_hopper_ws`), after the roles: the cluster meets, the
    block of rank r sums rows r bm / S .. (r + 1) bm / S - 1 of N of the S blocks'
    partials `mine` (`bm x bc`, N contiguous) in split order through `layout.peer_view`,
    `CLUSTER_SUM_ELEMENTS` a thread or fewer (columns of M at a time), 16-byte loads along N by
    the block's `warpgroups` x 128 threads (where their count
    is not a power of two, which the tile's elements are, only the consumer
    warpgroups' threads: the first region of a `warp_specialize` of `warpgroups - 1`
    and 1), applies the epilogue and stores them (C^T's view, strides (1, N)); the
    cluster meets again: no block exits while a peer may still read its partial.
    `mine` None (`global_partials`): the S partials are the workspace's (`g.W`, N x M x
    S), the block's rows of the tile read from there, and no second meeting."""
    from contextlib import nullcontext

    from tilec.dialects.distributed import BlockedLayout

    p = g.p
    rows = bm // split
    tn = min(32, rows // 4)
    summing = warpgroups if warpgroups & (warpgroups - 1) == 0 else warpgroups - 1
    lay = BlockedLayout([4, 1], [tn, 32 // tn], [1, 4 * summing], [0, 1])
    p.cluster_sync()  # every unit's partial stored
    bx = (g.bx * p.constant(split).named("splits") + g.crank).named("sumrow")
    region = nullcontext() if summing == warpgroups else p.warp_specialize([summing, 1])[0]
    # columns of M at a time: at most CLUSTER_SUM_ELEMENTS of the S partials a thread of a
    # block of 2 warpgroups, fewer (a power of two) in proportion to the registers of more
    per = 1 << (CLUSTER_SUM_ELEMENTS * 2 // warpgroups).bit_length() - 1
    fc = min(bc, per * 128 * summing // (rows * split))
    with region:
        if mine is None:  # split s's partial: W[:, :, s], the block's rows at the tile of C's
            theirs = [p.slice(g.W, ["_", "_", s]).named(f"wsplit{s}") for s in range(split)]
        else:
            theirs = [p.peer_view(mine, g.crs[s]).named(f"peer{s}") for s in range(split)]
        for h in range(bc // fc):
            at = g.c0 if fc == bc else p.constant(h).named(f"fc{h}")
            by = g.by if fc == bc else (g.by * p.constant(bc // fc).named("fchunks") + at).named("fby")
            acc = None
            for s in range(split):
                part = (p.tile(theirs[s], [bx, by], [rows, fc]) if mine is None
                        else p.tile(theirs[s], [g.crank, at], [rows, fc]))
                x = p.load(part.named(f"tp{s}"), lay).named(f"part{s}")
                acc = x if acc is None else (acc + x).named(f"sum{s}")
            out = epilogue.apply(g, acc, bx, by, rows, fc, lay)
            p.store(out, p.tile(g.C, [bx, by], [rows, fc]).named("tc"))
    if mine is not None:
        p.cluster_sync()  # the peers have read this block's partial


SPLIT_K_TILE = (16, 128)
"""The rows and columns of C one block of the split-K reduction takes (128 threads,
4 f32 of a row each, 16 x 32 per pass)."""


def _split_k_reduce(g, m: int | None, n: int, split: int, epilogue: Epilogue) -> None:
    """The second launch of a split-K GEMM: per `SPLIT_K_TILE` tile of C, the sum of the
    S partial products `W[:, :, s]` in order s = 0 .. S-1 (f32), the epilogue on it
    and the store; a blocked layout, masked at M and N."""
    from tilec.dialects.distributed import BlockedLayout

    p = g.p
    rm, rn = SPLIT_K_TILE
    lay = BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    if m is None:
        rows = p.divui((g.m + p.constant(rm - 1).named("rm1")).named("mupr"), p.constant(rm).named("rmc")).named("gmr")
    else:
        rows = p.constant(_cdiv(m, rm)).named("gmr")
    with p.launch(grid=(rows, p.constant(_cdiv(n, rn)).named("gnr"), g.c1), threads=128) as k:
        acc = None
        for s in range(split):
            w = p.slice(g.W, ["_", "_", s]).named(f"w{s}")
            x = p.load(p.tile(w, [k.bx, k.by], [rm, rn]).named(f"tw{s}"), lay).named(f"part{s}")
            acc = x if acc is None else (acc + x).named(f"sum{s}")
        h = epilogue.apply(g, acc, k.bx, k.by, rm, rn, lay)
        p.store(h, p.tile(g.C, [k.bx, k.by], [rm, rn]).named("tc"))


STREAM_K_FIXUP_UNROLL = 4
"""The partials stream-K's fixup loads at once (their loads in flight together; the ones
past a tile's blocks read an address in range and are multiplied by 0, so the sum adds
every block's partial once, in the order of the blocks)."""

STREAM_K_ROWS = 16
"""The rows of M (columns of the swapped tile) one block of stream-K's fixup takes
(128 threads, 4 f32 of a row each, 16 x 32 per pass; the tile's `bm` rows of N across)."""


def _stream_k_fixup(g, m: int | None, n: int, bm: int, bn: int, epilogue: Epilogue, swap_ab: bool,
                    group: int, cluster: tuple[int, int] = (1, 1)) -> None:
    """Stream-K's second launch (`gemm_hopper_ws(stream_k=True)`): per tile t of the
    shared part (tile `g.dp` + t of C; blocks b0 = t T / L .. b1 = (t T + T - 1) / L of
    `g.span` L take its T trips, b0 < b1) and `STREAM_K_ROWS` of its rows of M, the sum
    of the blocks' partials in the order of the blocks (block b's slot 2 b + 1 where its
    range starts in an earlier tile, which only b0's can, else 2 b), the epilogue on it
    and the store into C (M x N, masked at M and N). A tile one block took whole was
    stored by the units' launch: its blocks of the fixup store nothing. Swapped, the
    tile's rows of M are its `bn` columns (the partials column-major, `g.WS` the fixup's
    view of them, N contiguous) and tile t is (t % gn, t / gn) of C^T; unswapped its
    `bm` rows (the partials row-major), tile t where the units' walk put it (grouped
    order with `group`). With `cluster` (cm, cn) of C > 1 blocks the units are groups of
    cm x cn tiles and the blocks sharing them clusters: the fixup's blocks C per group,
    rank r's tile (cm i + r % cm, cn j + r / cm) of group (i, j) summed from the slots
    of block C c + r of each cluster c sharing the group."""
    from tilec.dialects.distributed import BlockedLayout

    p = g.p
    rm = STREAM_K_ROWS
    rows_m, cols_n = (bn, bm) if swap_ab else (bm, bn)
    lay = BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    # at least one block (no shared tiles: it stores nothing)
    cm, cn = cluster
    size = cm * cn
    blocks = ((g.nsk + g.c1).named("nsk1") - p.minui(g.nsk, g.c1).named("anysk")).named("fixtiles")
    if size > 1:
        csize = p.constant(size).named("csize")
        blocks = (blocks * csize).named("fixblocks")
    with p.launch(grid=(blocks, p.constant(rows_m // rm).named("subs"), g.c1), threads=128) as k:
        t = k.bx.named("t")
        if size > 1:  # group t / C, the tile of rank t % C
            rank, t = p.remui(t, csize).named("rank"), p.divui(t, csize).named("group")
            cmr = p.constant(cm).named("cmr")
            g.rx, g.ry = p.remui(rank, cmr).named("rx"), p.divui(rank, cmr).named("ry")
        t0 = (t * g.trips).named("t0")
        last = (t0 + (g.trips - g.c1).named("trips1")).named("tlast")
        b0, b1 = p.divui(t0, g.span).named("b0"), p.divui(last, g.span).named("b1")
        shared = (b0.ne(b1).named("split") & (t < g.nsk).named("insk")).named("shared")
        with p.if_(shared):
            acc = _stream_k_partials(g, t0, b0, b1, k.by, rm, cols_n, lay, (csize, rank) if size > 1 else None)
            tc = (t + g.dp).named("tc")
            if swap_ab and size == 1:
                tm, tn = p.remui(tc, g.gn).named("tm"), p.divui(tc, g.gn).named("tn")
            else:  # (swapped: C^T's tile, its block row of N and block column of M)
                _tile_of(g, m, n, bm, bn, group, cluster, tc)
                tm, tn = (g.by, g.bx) if swap_ab else (g.bx, g.by)
            rows = (tm * p.constant(rows_m // rm).named("subs2") + k.by).named("rowblk")
            h = epilogue.apply(g, acc, rows, tn, rm, cols_n, lay)
            p.store(h, p.tile(g.C, [rows, tn], [rm, cols_n]).named("tc"))


def _stream_k_partials(g, t0, b0, b1, at, rm: int, cols_n: int, lay, cluster: tuple | None = None,
                       unroll: int = STREAM_K_FIXUP_UNROLL):
    """The sum of a shared stream-K tile's partials, rows `at` `rm` .. of its rows
    (`rows_m` of `_stream_k_fixup`), all its `cols_n` columns, in `lay` (f32): blocks b0
    .. b1 (the tile's first trip `t0`), in their order, `unroll` loads in flight at once
    (those past b1 multiplied by 0), from `g.WS` (block b's slot 2 b + 1 where its range
    starts in an earlier tile, else 2 b); `cluster` (C, rank): block C b + rank of
    cluster b."""
    from tilec.compiler.kernel_builder import Value

    p = g.p
    acc = Value(p, p.full([rm, cols_n], 0.0, "f32", lay).ssa)
    step = p.constant(unroll).named("unroll")
    one, zero = p.constant(1.0, "f32").named("one"), p.constant(0.0, "f32").named("fzero")
    with p.range(b0, (b1 + g.c1).named("b1p"), step, carry=[acc]) as bj:
        bj.named("bj")
        parts = []
        for u in range(unroll):  # the loads first, all in flight together
            bu = (bj + p.constant(u).named(f"u{u}")).named(f"bu{u}") if u else bj
            # clamped at b1: an address in range where block bu is past the tile's
            b = p.minui(bu, b1).named(f"bin{u}")
            # 1 where block b's range starts before the tile (its last tile), else 0
            before = p.minui((t0 - p.minui((b * g.span).named("blo"), t0).named("bmin")).named("bgap"), g.c1)
            if cluster is not None:  # cluster b's block of this rank
                csize, rank = cluster
                blk = ((b * csize).named("cblock") + rank).named("blk")
                slot = ((blk + blk).named("b2") + before.named("tail")).named(f"slot{u}")
            else:
                slot = ((b + b).named("b2") + before.named("tail")).named(f"slot{u}")
            w = p.slice(g.WS, ["_", "_", slot]).named("wslot")
            x = p.load(p.tile(w, [at, g.c0], [rm, cols_n]).named("tw"), lay).named(f"part{u}")
            parts.append(x if not u else (x * p.where((bu <= b1).named(f"in{u}"), one, zero)).named(f"kept{u}"))
        for x in parts:  # in the order of the blocks
            acc.assign((acc + x).named("sum"))
    return acc


STREAM_K_SUM_ELEMENTS = 64
"""The elements of each partial a consumer thread of `gemm_hopper_ws(stream_k=True,
serial=True)`'s in-kernel sum holds (`STREAM_K_SUM_UNROLL` partials in flight and the
sum: 192 registers of the 232 one or two consumer warpgroups take; four warpgroups,
104 registers: a quarter): the rows of the tile summed at a time (all 128 columns of
M of a 64-row tile at once: one round trip to L2 where a tile has two blocks)."""

STREAM_K_SUM_UNROLL = 2
"""The partials `gemm_hopper_ws(stream_k=True, serial=True)`'s in-kernel sum loads at
once (`_stream_k_partials`): a decode tile has mostly two blocks (QKV at M = 128: span
6 trips of a tile's 8), a third takes a second round."""


def _stream_k_sum(g, t0, b0, b1, tm, tn, bm: int, bn: int, wgs: int, epilogue: Epilogue, swap_ab: bool,
                  cluster: tuple | None = None) -> None:
    """`gemm_hopper_ws(stream_k=True, serial=True)`'s sum of a shared tile of the tail
    (its first trip `t0`, its blocks b0 .. b1; C's tile (`tm`, `tn`) of M x N: swapped,
    `bn` rows of M by `bm` of N),
    by the consumer warpgroups of its last block to arrive: `_stream_k_partials` of
    the rows a pass holds (`STREAM_K_SUM_ELEMENTS` a thread), the epilogue and the
    store, the bits of the fixup launch (`_stream_k_fixup`). `g` sees the fixup's
    views (`g.reduce_views`); `cluster` (C, rank): b0 .. b1 are clusters, each's block of
    this rank holding the partial."""
    from tilec.dialects.distributed import BlockedLayout

    p = g.p
    rows_m, cols_n = (bn, bm) if swap_ab else (bm, bn)
    per = STREAM_K_SUM_ELEMENTS if wgs <= 2 else STREAM_K_SUM_ELEMENTS // 4
    rm = min(rows_m, max(4, per * 128 * wgs // cols_n))
    wr = min(4 * wgs, rm // 4)
    lay = BlockedLayout([1, 4], [4, 8], [wr, 4 * wgs // wr], [1, 0])
    subs = p.constant(rows_m // rm).named("subs")
    for h in range(rows_m // rm):
        at = p.constant(h).named(f"sub{h}")
        acc = _stream_k_partials(g, t0, b0, b1, at, rm, cols_n, lay, cluster, unroll=STREAM_K_SUM_UNROLL)
        rows = (tm * subs + at).named("rowblk")
        out = epilogue.apply(g, acc, rows, tn, rm, cols_n, lay)
        p.store(out, p.tile(g.C, [rows, tn], [rm, cols_n]).named("tc"))


BEST_WS = {"bk": 64, "stages": 4, "group": 8, "persistent": 132, "tma_epilogue": True, "chunk": 128}
"""The fastest warp-specialised configuration measured on the H100 at 4096 and 8192
(benchmarks/NOTES.md, `wgmma:128x256x64:4:ws:p:g8:tma:c128`): 128 x 256 x 64 tiles in
two column chunks of 128 (two accumulators, one `wgmma.m64n128k16` each per warpgroup
and 16 of K), a 4-stage ring (192 KiB) beside a 32 KiB C buffer that the chunks' TMA
stores take turns at, grouped order of 8 block rows, persistent over the H100's 132
multiprocessors (`main` takes the GPU's own count)."""


