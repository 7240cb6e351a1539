"""`tilec.copy_` of one strided pattern on CuPy arrays, checked on the host against
NumPy: what `dev/device/sanitize.sh --copy` runs under compute-sanitizer (the box
kernels of odd transposes, whose `tiles` flavour keeps its phase-2 box addresses in
registers through `cuda.opaque`: passes/_box_tile.py).

    python3 dev/device/copy_check.py SPEC [--calls N] [--compile-only]

SPEC is DTYPE:SHAPE:SRC_STRIDES[:+SRC_OFFSET][:to=DTYPE][:NAME=VALUE ...], extents and strides in
elements joined by `x`: dst is a contiguous array of SHAPE, src a strided view of SHAPE
with SRC_STRIDES into a buffer of its own, SRC_OFFSET elements in (a pointer off its
16-byte alignment); each NAME=VALUE a tuning value of `copy_routes.TUNING_NAMES` forced
for the copies (`copy_routes.forced_routes`; an integer, or `box_stage`'s word), or a
route's setting (`box=never`: the tiled kernel of a copy the box would take); `to=DTYPE`
makes dst of another element type (a converting copy, e.g. `bool:1000x1001:1x1000:to=int16`:
the converting `box<tiles>`). E.g.
`int8:1000x1001:1x1000` (dst (1000, 1001) from the transpose of a contiguous (1001,
1000) array: `box<tiles>`), `int8:1000x1001:1x1000:+5`,
`int8:999x1001:1x999:+3:tiles_interleave=1:tiles_stage=16` (the interleaved slots, off
by default: `cuda.byte_perm`). The
operands are made on the host and copied over (no kernel but tilec's), dst is
poisoned before each call, and `--calls N` (default 2) copies N times (the second call
through the cached launcher). Prints one line a call and the kernel's strategy; exits
1 where dst differs. `--compile-only` (no GPU): plans the copy (`copy_plan.plan_copy`),
builds its kernel and compiles it with NVRTC for sm_90a, printing its strategy (from
the `copy-strategy` pass), its registers, whether it keeps values opaque, whether it
permutes bytes (`cuda.byte_perm`: the interleaved `tiles` box), whether its parts go
through a ring of boxes (`layout.cp_async_arrive`: `box_ring`, box flat's default) and the
residues its key states (`box<rows>`: its source step mod 32 and destination run step mod
16, `copy_key.ROWS_RESIDUES`, promised by `layout.view {divisible, residue}`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np


def parse(spec: str) -> tuple[str, tuple[int, ...], tuple[int, ...], int]:
    """(dtype, shape, src strides, src offset) of SPEC (module doc), its tuning values
    left out (`tuning`)."""
    dtype, shape, strides, *rest = spec.split(":")
    offsets = [int(r.lstrip("+")) for r in rest if r.startswith("+")]
    return (dtype, tuple(int(x) for x in shape.split("x")), tuple(int(x) for x in strides.split("x")),
            offsets[0] if offsets else 0)


def tuning(spec: str) -> dict[str, int | str]:
    """The NAME=VALUE tuning values and route settings of SPEC (module doc), checked
    against `copy_routes.TUNING_NAMES` and `ROUTE_NAMES` (`box=never`: a route's
    setting, one of `SETTINGS`)."""
    from tilec.copy_routes import ROUTE_NAMES, SETTINGS, TUNING_NAMES

    out: dict[str, int | str] = {}
    for item in spec.split(":")[3:]:
        if item.startswith("+") or item.startswith("to="):
            continue
        name, eq, value = item.partition("=")
        if not eq or name not in TUNING_NAMES + ROUTE_NAMES or (name in ROUTE_NAMES and value not in SETTINGS):
            raise SystemExit(f"copy_check: {spec}: {item!r} is not NAME=VALUE with NAME one of "
                             f"{', '.join(TUNING_NAMES)} or a route ({', '.join(ROUTE_NAMES)}) set to one of "
                             f"{', '.join(SETTINGS)}")
        out[name] = value if name in ROUTE_NAMES else int(value) if value.lstrip("-").isdigit() else value
    return out


def dst_dtype(spec: str) -> str:
    """dst's element type: `to=DTYPE` of SPEC, else the source's."""
    items = spec.split(":")
    return next((i[3:] for i in items[3:] if i.startswith("to=")), items[0])


def strategy_and_source(dtype: str, shape, strides, offset: int, to: str | None = None) -> tuple[str, Any, Any]:
    """The `copy-strategy` pass's choice for this copy (a `box<tiles>` over a merged
    destination mode said so), its compiled kernel and the plan's `CopyKey`."""
    from tilec.compiler.pipeline import expand_pipeline, parse_module, run_pipeline
    from tilec.compiling import compile_program
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_program import copy_program
    from tilec.dialects.layout import CopyOp

    itemsize = np.dtype(dtype).itemsize
    dst_strides, step = [], 1
    for n in reversed(shape):
        dst_strides.insert(0, step)
        step *= n
    plan = plan_copy(Operand(1 << 20, to or dtype, shape, tuple(dst_strides)),
                     Operand((2 << 20) + offset * itemsize, dtype, shape, strides))
    pipeline = kernel_pipeline(plan.key, "default")
    module = parse_module(copy_program(plan.key))
    passes = expand_pipeline(pipeline).split(",")
    upto = next(i for i, p in enumerate(passes) if p.split("{")[0] == "copy-strategy")
    run_pipeline(module, ",".join(passes[: upto + 1]))
    strategy = next(op for op in module.walk() if isinstance(op, CopyOp)).strategy_name or "tiled"
    if plan.key.dst_flat and strategy == "box<tiles>":  # over a merged destination mode
        strategy += " (merged)"
    kernel = compile_program(copy_program(plan.key), pipeline)
    return strategy, kernel, plan.key


def compile_only(spec: str) -> int:
    from tilec.copy_routes import forced_routes
    from tilec.runtime.nvrtc import resource_usage

    with forced_routes(**tuning(spec)):
        strategy, kernel, key = strategy_and_source(*parse(spec), dst_dtype(spec))
    usage = resource_usage(kernel.compile("sm_90a"))
    regs = ", ".join(f"{r.registers} registers, {r.spill_stores} spill stores" for r in usage.values())
    opaque = 'asm volatile("" : "+' in kernel.source
    perm = "__byte_perm(" in kernel.source
    ring = "tilec_cp_async_mbarrier_arrive(" in kernel.source
    stated = (("source", key.src_residues), ("destination run", key.dst_residues))
    residues = [f"{side} step {r} mod {m}" for side, facts in stated for m, r in facts if m > 1]
    print(f"copy_check: {spec}: {strategy}, compiled ({regs}){', cuda.opaque' if opaque else ''}"
          f"{', cuda.byte_perm' if perm else ''}{', a ring of boxes (cp_async_arrive)' if ring else ''}"
          f"{', keyed by its residues (' + ', '.join(residues) + ')' if residues else ''}")
    return 0


def run(spec: str, calls: int) -> int:
    import cupy as cp

    import tilec
    from tilec.copy_routes import forced_routes

    dtype, shape, strides, offset = parse(spec)
    itemsize = np.dtype(dtype).itemsize
    span = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    rng = np.random.default_rng(0)
    base = rng.integers(-100, 100, span).astype(dtype) if np.dtype(dtype).kind in "iub" else \
        rng.standard_normal(span).astype(dtype)
    host = np.lib.stride_tricks.as_strided(base[offset:], shape, [s * itemsize for s in strides])
    dev_base = cp.asarray(base)
    src = cp.lib.stride_tricks.as_strided(dev_base[offset:], shape, [s * itemsize for s in strides])
    to = dst_dtype(spec)
    host = host.astype(to)
    dst = cp.empty(shape, to)
    ok = True
    for call in range(calls):
        dst.fill(0x5A if np.dtype(to).kind in "iub" else np.nan)
        with forced_routes(**tuning(spec)):
            tilec.copy_(dst, src)
        cp.cuda.Device().synchronize()
        good = np.array_equal(cp.asnumpy(dst), host)
        ok &= good
        print(f"copy_check: {spec} call {call + 1}: {'ok' if good else 'DIFFERS from NumPy'}")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", help="DTYPE:SHAPE:SRC_STRIDES[:+SRC_OFFSET][:NAME=VALUE ...]")
    ap.add_argument("--calls", type=int, default=2)
    ap.add_argument("--compile-only", action="store_true")
    args = ap.parse_args(argv)
    if args.compile_only:
        return compile_only(args.spec)
    return run(args.spec, args.calls)


if __name__ == "__main__":
    sys.exit(main())
