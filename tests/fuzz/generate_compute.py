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
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from generate_mbarrier import _text

DTYPES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8}


@dataclass(frozen=True)
class Epilogue:
    """The drawn shape of a `random_epilogue_kernel` program (module docstring)."""

    dtype: str
    rows: int  # R
    cols: int  # W
    trips: int  # T: row tiles a block walks
    blocks: int
    warps: int
    act: str  # "silu_tanh" | "gelu_tanh" | "tanh" | "none"
    afn: bool
    opaque: str  # "none" | "index" | "i32" | "i64"

    @property
    def approximate(self) -> bool:
        """Whether the CUDA computes tanh with `tanh.approx.f32` (f32 and afn)."""
        return self.act != "none" and self.afn and self.dtype == "f32"


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
    return Epilogue(dtype, rows, cols, rng.randint(1, 4), rng.choice([1, 2, 3]), rng.choice([1, 2, 4]),
                    rng.choice(["silu_tanh", "silu_tanh", "gelu_tanh", "tanh", "none"]), rng.random() < 0.75,
                    rng.choice(["none", "index", "i32", "i64"]))


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
            else:
                y = x
            p.store(y, p.tile(y_view, [at, p.constant(0)], [R, W]))
    return _text(p)


def random_epilogue_kernel(rng: random.Random) -> EpilogueProgram:
    """A valid epilogue kernel (module docstring), through the default pipeline."""
    s = draw_epilogue(rng)
    items = ", ".join(f"{f}={getattr(s, f)}" for f in s.__dataclass_fields__)
    return EpilogueProgram(epilogue_program(s), "default", f"epilogue({items})", "epilogue", s,
                           gpu_check=s.act in ("none", "tanh") and not s.approximate)
