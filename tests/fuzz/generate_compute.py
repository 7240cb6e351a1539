"""Random epilogue-like kernels around `math.tanh` with `fastmath<afn>` (PTX
`tanh.approx.f32` on f32: the GEMM epilogue's `silu_tanh`) and `cuda.opaque` (a scalar
kept in a register, as the copy box kernels keep their phase-2 box addresses), for the
fuzz tests and for `dev/device/sanitize.sh`, built with the typed Python builder, never
as IR text: valid programs, which must run on the CPU reference executor, compile
through the default pipeline with `--check-equivalence` and print CUDA that NVRTC
compiles.

`random_epilogue_kernel` draws `Epilogue`: B blocks each walk T row tiles (R x W
elements, rows of 16 to 128 bytes) of `x` in a loop, apply an activation and store the
tile into `y`: `silu_tanh` (h = x / 2, h + h tanh h as one `math.fma`, the epilogue's
form), `gelu_tanh` (x / 2 (1 + tanh(c (x + 0.044715 x^3)))), `tanh`, or nothing; the
tanh with `fastmath<afn>` or without; f32 (the approximate intrinsic), f16, bf16 or
f64 (CUDA's tanh whatever the flag). The loop's first row tile (the block's index
times T) may pass through `cuda.opaque` as an index, as an i32 or as an i64 (cast
there and back), computed before the loop and read on every trip.

Everything drawn comes from the `random.Random` passed in: a seed gives one program.
The GPU's `tanh.approx.f32` differs from the executor's tanh (float64, rounded): a
program with it has no bound `--run gpu --check` can check (runtime/cli.py); nor has
`silu_tanh` or `gelu_tanh` with CUDA's tanh, whose 1 + tanh cancels where tanh nears
-1 (a few ulps of tanh become many of the result: outside `ulp_budget`'s model). For
those `EpilogueProgram.gpu_check` is False and `sanitize.sh` runs them without `--check`.

The activation may also be `exp2` (`act="exp2"`, `Exp2`): 2^clamp(k x) in f32 (x widened
first, narrowed back), the clamp inside `cuda.EX2_FMA_RANGE` by `maxnumf` / `minnumf`;
with afn, the exp2 may carry `cuda.EXP2_FMA_ATTR` = 1 .. 8 (`Epilogue.on_fma`), which
lower-to-gpu turns into `cuda.ex2_fma` (2^x on the FMA pipe) in that many of every 8
registers (`cuda.ex2_fma_registers`). The executor rounds 2^x once either way, so the
program is equivalent after the pipeline; the GPU's `ex2.approx` is 2 ulps off it, so
`gpu_check` is False.

The activation may also be a division (`act="div"`): q = x / d in f32 (x widened first,
q narrowed back) with d a `Divisor` of x (`draw_divisor`: s 2^clamp(k x) + o, the clamp
by `arith.maxnumf` / `minnumf` (a NaN turned into the bound), by `arith.maximumf` /
`minimumf` (NaN kept), one-sided or none; or s (2 + tanh(...)) + o, through an op
passes/_float_range.py does not know), `fastmath<afn>` or not. With afn, lower-to-gpu
shares one reciprocal among 2 or 4 quotients (`cuda.div_approx_group`) where the range
it proves allows and a thread holds a group (`Epilogue.grouped`: from the generator's
own interval, `Divisor.group`, not the pass's walk), else one `div.approx` each; the
executor computes x / d rounded once, which `--check` cannot bound against either, so a
division is `gpu_check` False too.

`random_division_kernel` draws the same division alone (`Division`: one block, 1 to 16
registers a thread, the divisor also stored in `dv`) for the fuzz tests that run the
compiled program on chosen inputs (tests/fuzz/test_compute_ops.py); `group_model` is
the printed CUDA's arithmetic of a group in NumPy. `random_byte_perm_kernel` draws
`cuda.byte_perm` programs (`BytePerms`: chains of permutations of input words and
earlier results, random selectors), `byte_perm_model` is `__byte_perm` in NumPy.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from generate_mbarrier import _text

DTYPES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8}


CLAMPS = ("num", "floor", "cap", "nan", "none", "tanh")
"""How a `Divisor` bounds its exponent k x: "num" `maxnumf` by lo then `minnumf` by hi
(NaN becomes lo), "floor" `maxnumf` only, "cap" `minnumf` only (NaN becomes hi),
"nan" `maximumf` / `minimumf` (NaN kept), "none" nothing, "tanh" s (2 + tanh(maxnumf(k
x, lo))) + o: a number in range, through an op the range walk does not know."""


@dataclass(frozen=True)
class Divisor:
    """d = s 2^clamp(k x) + o of an f32 x (`CLAMPS`), `exp2` with `fastmath<afn>` where
    `afn_exp`."""

    clamp: str
    k: float
    lo: float
    hi: float
    s: float
    o: float
    afn_exp: bool

    def interval(self) -> tuple[float, float, bool]:
        """(lo, hi, nan): every value d takes lies in [lo, hi] or is NaN where `nan`, in
        exact arithmetic (the generator's own reasoning, not passes/_float_range.py's)."""
        if self.clamp == "tanh":
            return self.s * (2 + math.tanh(self.lo)) + self.o, self.s * 3 + self.o, False
        lo = 2.0 ** self.lo if self.clamp in ("num", "floor") else 0.0
        hi = 2.0 ** self.hi if self.clamp in ("num", "cap") else math.inf
        return self.s * lo + self.o, self.s * hi + self.o, self.clamp in ("nan", "none")

    def group(self) -> frozenset[int]:
        """The quotients a reciprocal may serve (`cuda.div_group_size`'s rule) by this
        interval: one G, or two where the range walk's widening (a relative 2^-20 a
        step) may cross a threshold; {1} for a divisor that may be NaN, or is unknown
        to the walk (`tanh`), or reaches 0 or infinity."""
        from tilec.dialects.cuda import div_group_size

        lo, hi, nan = self.interval()
        if nan or self.clamp == "tanh" or not lo > 0 or math.isinf(hi):
            return frozenset({1})
        wide = 2.0**-14
        return frozenset({div_group_size(lo, hi), div_group_size(lo * (1 - wide), hi * (1 + wide))})

    @property
    def powers_of_two(self) -> bool:
        """Whether d is a power of two for every integer x (s a power of two, o 0, k and
        the bounds integers): the grouped quotients are then exact."""
        ints = all(float(v).is_integer() for v in (self.k, self.lo, self.hi))
        return self.clamp in ("num", "cap", "floor") and self.o == 0 and ints and math.frexp(self.s)[0] == 0.5

    def build(self, p, x):
        """d of the builder value `x` (module docstring)."""
        t = x * self.k
        if self.clamp == "tanh":
            t = p.maximum(t, self.lo, propagate_nan=False)
            return (p.math("tanh", t) + 2.0) * self.s + self.o
        if self.clamp in ("num", "floor", "nan"):
            t = p.maximum(t, self.lo, propagate_nan=self.clamp == "nan")
        if self.clamp in ("num", "cap", "nan"):
            t = p.minimum(t, self.hi, propagate_nan=self.clamp == "nan")
        e = p.math("exp2", t, fastmath="afn" if self.afn_exp else None)
        return e * self.s + self.o if (self.s, self.o) != (1.0, 0.0) else e


def draw_divisor(rng: random.Random) -> Divisor:
    """A random `Divisor`: bounds inside and outside the ranges a group of 4 (2^+-31) or 2
    (2^+-62) takes, some at a threshold, some powers of two."""
    clamp = rng.choice(["num", "num", "num", "cap", "cap", "floor", "nan", "none", "tanh"])
    lo = rng.choice([-150.0, -126.0, -70.0, -40.0, -31.0, -20.0, -3.0, 0.0, 0.5, 2.0])
    hi = max(lo, rng.choice([-2.0, 0.0, 1.0, 10.0, 20.5, 30.0, 31.0, 40.0, 61.0, 62.0, 70.0, 100.0]))
    s = rng.choice([1.0, 1.0, 0.5, 3.0, 2.0**-20, 2.0**20])
    o = rng.choice([0.0, 0.0, 1.0, 0.25])
    while s * 2.0**hi + o >= 2.0**126:  # d finite in f32
        s /= 2**20
    k = rng.choice([-1.4426950408889634, -1.0, 1.0, 0.5, -3.0, 8.0])
    return Divisor(clamp, k, lo, hi, s, o, rng.random() < 0.5)


@dataclass(frozen=True)
class Exp2:
    """e = 2^clamp(k x) of an f32 x, the clamp [lo, hi] inside `cuda.EX2_FMA_RANGE`
    (`maxnumf` then `minnumf`: NaN becomes lo); `eighths` > 0: the exp2 carries
    `cuda.EXP2_FMA_ATTR` (only drawn with afn, which it needs)."""

    k: float
    lo: float
    hi: float
    eighths: int

    def build(self, p, x, fastmath):
        """e of the builder value `x` (f32)."""
        t = p.minimum(p.maximum(x * self.k, self.lo, propagate_nan=False), self.hi, propagate_nan=False)
        e = p.math("exp2", t, fastmath=fastmath)
        if self.eighths:
            from xdsl.dialects.builtin import IntegerAttr, i64

            from tilec.dialects import cuda

            e.ssa.owner.attributes[cuda.EXP2_FMA_ATTR] = IntegerAttr(self.eighths, i64)
        return e


def draw_exp2(rng: random.Random, afn: bool) -> Exp2:
    """A random `Exp2`: bounds at `cuda.EX2_FMA_RANGE`'s ends and inside, scales of
    either sign, 1 to 8 eighths on the FMA pipe (or none) where afn."""
    lo = rng.choice([-125.0, -100.0, -24.5, -3.0, 0.0])
    hi = max(lo + 1.0, rng.choice([1.0, 7.5, 30.0, 100.0, 127.0]))
    k = rng.choice([-1.4426950408889634, -1.0, 0.5, 1.0, 3.0, 20.0])
    return Exp2(k, lo, hi, rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 8]) if afn else 0)


@dataclass(frozen=True)
class Epilogue:
    """The drawn shape of a `random_epilogue_kernel` program (module docstring)."""

    dtype: str
    rows: int  # R
    cols: int  # W
    trips: int  # T: row tiles a block walks
    blocks: int
    warps: int
    act: str  # "silu_tanh" | "gelu_tanh" | "tanh" | "div" | "exp2" | "none"
    afn: bool
    opaque: str  # "none" | "index" | "i32" | "i64"
    divisor: Divisor | None = None  # act "div": d of q = x / d
    exp2: Exp2 | None = None  # act "exp2"

    @property
    def registers(self) -> int:
        """Elements of a row tile a thread holds (`epilogue_program`'s layout: v a row,
        its rows over the block's 32 / tc x warps row positions, replicated where fewer)."""
        v = max(1, min(16 // DTYPES[self.dtype], self.cols))
        tc = min(32, self.cols // v)
        return v * max(1, self.rows // ((32 // tc) * self.warps))

    @property
    def grouped(self) -> bool:
        """Whether lower-to-gpu shares a reciprocal among this division's quotients (f32
        whatever `dtype`: x is widened first): afn, a divisor whose range allows a group
        (`Divisor.group`) and a thread holding at least a group's quotients."""
        return (self.act == "div" and self.afn and min(self.divisor.group()) > 1
                and self.registers >= max(self.divisor.group()))

    @property
    def approximate(self) -> bool:
        """Whether the CUDA computes tanh with `tanh.approx.f32` (f32 and afn)."""
        return self.act in ("silu_tanh", "gelu_tanh", "tanh") and self.afn and self.dtype == "f32"

    @property
    def on_fma(self) -> bool:
        """Whether some of the exp2's registers go to `cuda.ex2_fma` (`Exp2.eighths`)."""
        return self.act == "exp2" and self.exp2.eighths > 0


@dataclass(frozen=True)
class EpilogueProgram:
    """A generated valid epilogue program: its text, pipeline, summary and function;
    `gpu_check`: whether `--run gpu --check` can compare its result with the
    executor's (module docstring: no tanh.approx.f32, no 1 + tanh)."""

    text: str
    pipeline: str
    summary: str
    function: str
    spec: Epilogue
    gpu_check: bool = True


def draw_epilogue(rng: random.Random) -> Epilogue:
    dtype = rng.choice(["f32", "f32", "f16", "bf16", "f64"])
    cols = rng.choice([16, 32, 64, 128]) // DTYPES[dtype]
    rows = rng.choice([1, 2, 4, 8, 16])
    act = rng.choice(["silu_tanh", "silu_tanh", "gelu_tanh", "tanh", "div", "div", "exp2", "exp2", "none"])
    trips, blocks, warps = rng.randint(1, 4), rng.choice([1, 2, 3]), rng.choice([1, 2, 4])
    afn, opaque = rng.random() < 0.75, rng.choice(["none", "index", "i32", "i64"])
    return Epilogue(dtype, rows, cols, trips, blocks, warps, act, afn, opaque,
                    draw_divisor(rng) if act == "div" else None, draw_exp2(rng, afn) if act == "exp2" else None)


def epilogue_program(s: Epilogue) -> str:
    """The MLIR text of the epilogue kernel `s`."""
    import tilec
    from tilec.compiler.builder import Program
    from tilec.dialects.cuda import OpaqueOp

    eb = DTYPES[s.dtype]
    R, W = s.rows, s.cols
    v = max(1, min(16 // eb, W))
    tc = min(32, W // v)
    lay = tilec.BlockedLayout([1, v], [32 // tc, tc], [s.warps, 1], [1, 0])
    fm = "afn" if s.afn else None
    p = Program("epilogue")
    n = s.blocks * s.trips * R
    x_view = p.view(p.pointer("x", s.dtype), f"({n},{W}):({W},1)")
    y_view = p.view(p.pointer("y", s.dtype), f"({n},{W}):({W},1)")
    with p.launch(grid=(s.blocks, 1, 1), threads=32 * s.warps) as k:
        first = k.bx * p.constant(s.trips)
        if s.opaque == "index":
            first = p.insert(OpaqueOp(first.ssa)).results[0]
        elif s.opaque in ("i32", "i64"):
            kept = p.insert(OpaqueOp(first.cast(s.opaque).ssa)).results[0]
            first = kept.cast("index")
        with p.range(0, s.trips) as i:
            at = first + i
            x = p.load(p.tile(x_view, [at, p.constant(0)], [R, W]), lay)
            if s.act == "silu_tanh":
                h = x * 0.5
                y = p.fma(h, p.math("tanh", h, fastmath=fm), h)
            elif s.act == "gelu_tanh":
                inner = (x + x * x * x * 0.044715) * 0.7978845608028654
                y = x * 0.5 * (p.math("tanh", inner, fastmath=fm) + 1.0)
            elif s.act == "tanh":
                y = p.math("tanh", x, fastmath=fm)
            elif s.act == "exp2":
                xf = x.cast("f32") if s.dtype != "f32" else x
                y = s.exp2.build(p, xf, fm)
                y = y.cast(s.dtype) if s.dtype != "f32" else y
            elif s.act == "div":
                xf = x.cast("f32") if s.dtype != "f32" else x
                y = p.div(xf, s.divisor.build(p, xf), fastmath=fm)
                y = y.cast(s.dtype) if s.dtype != "f32" else y
            else:
                y = x
            p.store(y, p.tile(y_view, [at, p.constant(0)], [R, W]))
    return _text(p)


def random_epilogue_kernel(rng: random.Random) -> EpilogueProgram:
    """A valid epilogue kernel (module docstring), through the default pipeline."""
    return _epilogue_kernel(draw_epilogue(rng))


def random_ex2_fma_kernel(rng: random.Random) -> EpilogueProgram:
    """A valid epilogue kernel whose activation is `exp2` with afn and 1 to 8 of every 8
    registers' 2^x on the FMA pipe (`Epilogue.on_fma`: `cuda.ex2_fma`), the rest of its
    shape drawn as `draw_epilogue` draws it: what `sanitize.sh --ex2fma` runs."""
    s, e = draw_epilogue(rng), draw_exp2(rng, True)
    e = replace(e, eighths=e.eighths or rng.randint(1, 8))
    return _epilogue_kernel(replace(s, act="exp2", afn=True, divisor=None, exp2=e))


def _epilogue_kernel(s: Epilogue) -> EpilogueProgram:
    items = ", ".join(f"{f}={getattr(s, f)}" for f in s.__dataclass_fields__)
    return EpilogueProgram(epilogue_program(s), "default", f"epilogue({items})", "epilogue", s,
                           gpu_check=s.act in ("none", "tanh") and not s.approximate)


@dataclass(frozen=True)
class Division:
    """The drawn shape of a `random_division_kernel` program: one block of `warps`
    warps divides an R x W f32 tile x by `divisor` of x, each thread `v` consecutive
    elements of a row (registers a thread: what lower-to-gpu groups)."""

    rows: int
    cols: int
    v: int
    warps: int
    afn: bool
    divisor: Divisor

    @property
    def registers(self) -> int:
        """Elements a thread holds (R x W over the block's threads: v or 2 v)."""
        return self.rows * self.cols // (32 * self.warps)


@dataclass(frozen=True)
class DivisionProgram:
    """A generated division kernel: x (R x W f32) -> y = x / d, dv = d."""

    text: str
    pipeline: str
    summary: str
    function: str
    spec: Division


def draw_division(rng: random.Random) -> Division:
    v = rng.choice([1, 2, 4, 8])
    tc = rng.choice([4, 8, 16, 32])
    warps = rng.choice([1, 2])
    rows = (32 // tc) * warps * rng.choice([1, 2])
    return Division(rows, tc * v, v, warps, rng.random() < 0.85, draw_divisor(rng))


def division_program(s: Division) -> str:
    """The MLIR text of the division kernel `s`."""
    import tilec
    from tilec.compiler.builder import Program

    R, W = s.rows, s.cols
    tc = W // s.v
    lay = tilec.BlockedLayout([1, s.v], [32 // tc, tc], [s.warps, 1], [1, 0])
    p = Program("division")
    views = {n: p.view(p.pointer(n, "f32"), f"({R},{W}):({W},1)") for n in ("x", "y", "dv")}
    with p.launch(grid=(1, 1, 1), threads=32 * s.warps):
        at = [p.constant(0), p.constant(0)]
        x = p.load(p.tile(views["x"], at, [R, W]), lay)
        d = s.divisor.build(p, x)
        p.store(p.div(x, d, fastmath="afn" if s.afn else None), p.tile(views["y"], at, [R, W]))
        p.store(d, p.tile(views["dv"], at, [R, W]))
    return _text(p)


def random_division_kernel(rng: random.Random) -> DivisionProgram:
    """A valid division kernel (module docstring), through the default pipeline."""
    s = draw_division(rng)
    items = ", ".join(f"{f}={getattr(s, f)}" for f in s.__dataclass_fields__)
    return DivisionProgram(division_program(s), "default", f"division({items})", "division", s)


def rcp_model(v, rcp_ulps: int = 0):
    """`rcp.approx.ftz.f32` of the f32 array `v` as the models take it: its correctly
    rounded reciprocal moved by `rcp_ulps` units in the last place (PTX: within 1 ulp)."""
    import numpy as np

    f = np.float32
    with np.errstate(all="ignore"):
        r = np.asarray(f(1) / np.asarray(v, f), f)
    for _ in range(abs(rcp_ulps)):
        r = np.nextafter(r, f(np.inf) if rcp_ulps > 0 else f(0)).astype(f)
    return r


def flush_subnormals(q):
    """`q` (f32) with its subnormal values flushed to 0 (`.ftz`)."""
    import numpy as np

    q = np.array(q, np.float32)
    q[np.abs(q) < np.finfo(np.float32).tiny] = 0
    return q


def group_model(x, d, g: int, rcp_ulps: int = 0):
    """`cuda.div_approx_group`'s quotients as the CUDA target prints them
    (compiler/cuda/cuda_ops.py), in f32 NumPy arithmetic: x[i] and d[i] (flat f32
    arrays, a multiple of `g` long) in consecutive groups of `g`; the reciprocal of the
    product `rcp_model`'s, subnormal results flushed to 0."""
    import numpy as np

    f = np.float32
    x, d = np.asarray(x, f).reshape(-1, g), np.asarray(d, f).reshape(-1, g)
    with np.errstate(all="ignore"):
        if g == 2:
            r = rcp_model(d[:, 0] * d[:, 1], rcp_ulps)
            q = np.stack([x[:, 0] * (d[:, 1] * r), x[:, 1] * (d[:, 0] * r)], axis=1)
        else:
            a, b = d[:, 0] * d[:, 1], d[:, 2] * d[:, 3]
            r = rcp_model(a * b, rcp_ulps)
            ra, rb = r * b, r * a
            q = np.stack([x[:, 0] * (d[:, 1] * ra), x[:, 1] * (d[:, 0] * ra),
                          x[:, 2] * (d[:, 3] * rb), x[:, 3] * (d[:, 2] * rb)], axis=1)
    return flush_subnormals(q.reshape(-1))


@dataclass(frozen=True)
class BytePerms:
    """The drawn shape of a `random_byte_perm_kernel` program: `threads` threads each
    read `words` i32 words (a[w, tid]) and compute `perms`: (i, j, selector), the
    permutation of values i and j of the list inputs-then-results (each an earlier
    one); every result is written (o[n, tid])."""

    threads: int
    words: int
    perms: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class BytePermProgram:
    text: str
    pipeline: str
    summary: str
    function: str
    spec: BytePerms


def draw_byte_perms(rng: random.Random) -> BytePerms:
    words = rng.randint(1, 4)
    perms = []
    for n in range(rng.randint(1, 8)):
        pool = words + n
        sel = sum(rng.randrange(8) << (4 * b) for b in range(4))
        if rng.random() < 0.2:  # a selector of _box_tile's 4 x 4 and 2 x 2 transposes
            sel = rng.choice([0x5140, 0x7362, 0x5410, 0x7632])
        perms.append((rng.randrange(pool), rng.randrange(pool), sel))
    return BytePerms(rng.choice([32, 64, 96, 128]), words, tuple(perms))


def byte_perm_program(s: BytePerms) -> str:
    """The MLIR text of the byte-permutation kernel `s`."""
    from tilec.compiler.builder import Program
    from tilec.dialects.cuda import BytePermOp

    p = Program("byte_perm")
    a = p.view(p.pointer("a", "i32"), f"({s.words},{s.threads}):({s.threads},1)")
    o = p.view(p.pointer("o", "i32"), f"({len(s.perms)},{s.threads}):({s.threads},1)")
    with p.launch(grid=(1, 1, 1), threads=s.threads) as k:
        vals = [a[p.constant(w), k.tid] for w in range(s.words)]
        for i, j, sel in s.perms:
            vals.append(p.insert(BytePermOp(vals[i].ssa, vals[j].ssa, sel)).results[0])
        for n in range(len(s.perms)):
            o[p.constant(n), k.tid] = vals[s.words + n]
    return _text(p)


def random_byte_perm_kernel(rng: random.Random) -> BytePermProgram:
    """A valid `cuda.byte_perm` kernel (module docstring), through the default pipeline."""
    s = draw_byte_perms(rng)
    return BytePermProgram(byte_perm_program(s), "default", f"byte_perm({s})", "byte_perm", s)


def byte_perm_model(a, b, selector: int):
    """CUDA's `__byte_perm(a, b, selector)` on i32 NumPy arrays, from the bytes of the
    pair: byte n of the result is byte `(selector >> 4 n) & 7` of the 8 bytes of `a`
    (0-3, little-endian) then `b` (4-7)."""
    import numpy as np

    a, b = np.broadcast_arrays(np.asarray(a, np.int32), np.asarray(b, np.int32))
    pair = np.concatenate([a[..., None].view(np.uint8), b[..., None].view(np.uint8)], axis=-1)
    pick = [(selector >> (4 * n)) & 7 for n in range(4)]
    return np.ascontiguousarray(pair[..., pick]).view(np.int32)[..., 0]


def run_generated(text: str, inputs: dict, pipeline: str | None = None):
    """The buffers after running `text` (through `pipeline` first, if given) on the
    reference executor with `inputs`."""
    from tilec.compiler.pipeline import parse_module, run_pipeline
    from tilec.runtime.reference.api import run

    module = parse_module(text)
    if pipeline:
        run_pipeline(module, pipeline)
    return run(module, inputs)
