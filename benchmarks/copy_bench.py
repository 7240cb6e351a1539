"""Data-movement benchmarks: tilec against cudaMemcpy, PyTorch, CuPy and Triton.

    python benchmarks/copy_bench.py [--quick] [--cases transpose,copy1d] [--json OUT] [--md benchmarks/NOTES.md]

For each case: build the tilec program with the builder, compile it with the default
pipeline, check the result exactly against CuPy on random data (output poisoned first),
then time it with CUDA events (median of many launches after warm-up, rotating between
input sets when the data fits in L2) beside a device-to-device cudaMemcpy of the same
number of bytes in the same run, and beside the peers where they do the same job.
TB/s = (bytes read + bytes written) / median time. Prints one table last.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

try:
    import cupy as cp
except ImportError:  # pragma: no cover - the benchmark needs a GPU machine
    cp = None

GiB = 1 << 30


# --------------------------------------------------------------------------- timing


def median_ms(fn: Callable[[], None], warmup: int = 5, reps: int = 30) -> float:
    """Median time of fn() in ms: CUDA events around each launch, all launches queued
    before one synchronisation (as triton.testing.do_bench does), so that the host-side
    cost of a launch overlaps the previous kernel instead of being timed as GPU time."""
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    for start, stop in events:
        start.record()
        fn()
        stop.record()
    events[-1][1].synchronize()
    return statistics.median(cp.cuda.get_elapsed_time(a, b) for a, b in events)


def tbps(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e12


def memcpy_tbps(nbytes_one_way: int) -> float:
    """cudaMemcpy device-to-device bandwidth, read + write bytes."""
    a = cp.empty(nbytes_one_way // 4, dtype=cp.float32)
    b = cp.empty_like(a)
    a[...] = 1.0

    def run():
        cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, cp.cuda.runtime.memcpyDeviceToDevice, 0)

    ms = median_ms(run)
    del a, b
    return tbps(2 * nbytes_one_way, ms)


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    dtype: str
    src_shape: tuple
    src_layout: str
    dst_layout: str
    dst_shape: tuple
    reference: Callable  # cupy src -> expected dst
    peers: dict = field(default_factory=dict)  # name -> callable(src, dst)
    bytes_moved: int = 0
    goal: float = 0.97
    text: str | None = None  # a hand-written tilec program instead of a builder copy
    pipeline: str | None = None  # compile with this pipeline instead of --pipelines


def _triton_kernels():
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def copy1d(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)

    @triton.jit
    def transpose(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        x = tl.load(src + rm[:, None] * N + rn[None, :], mask=mask)
        tl.store(dst + rn[None, :] * M + rm[:, None], x, mask=mask)

    @triton.jit
    def rows2(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        x = tl.load(src + rm[:, None] * (2 * N) + rn[None, :], mask=mask)
        tl.store(dst + rm[:, None] * N + rn[None, :], x, mask=mask)

    return triton, copy1d, transpose, rows2


def _torch():
    try:
        import torch

        return torch
    except ImportError:
        return None


def make_cases(quick: bool) -> list[Case]:
    s = 4096 if quick else 16384
    n1 = (1 << 24) if quick else (1 << 28)
    cases: list[Case] = []
    tri = _triton_kernels()
    torch = _torch()

    def tt(x):
        return torch.as_tensor(x, device="cuda")

    # 1D copy
    c = Case("copy 1D", "f32", (n1,), f"{n1}:1", f"{n1}:1", (n1,), lambda x: x.copy(), goal=0.99)
    if torch:
        c.peers["torch copy_"] = lambda x, y: tt(y).copy_(tt(x))
    c.peers["cupy copy"] = lambda x, y: y.__setitem__(Ellipsis, x)
    if tri:
        triton, copy1d, _, _ = tri
        c.peers["triton"] = lambda x, y: copy1d[(triton.cdiv(n1, 8192),)](tt(x), tt(y), n1, BLOCK=8192, num_warps=4)
    cases.append(c)

    # every second row into a contiguous tensor
    m, n = s, s
    c = Case("every 2nd row", "f32", (m, n), f"({m // 2},{n}):({2 * n},1)", f"({m // 2},{n}):({n},1)",
             (m // 2, n), lambda x: x[::2].copy())
    if torch:
        c.peers["torch [::2].contiguous"] = lambda x, y: tt(y).copy_(tt(x)[::2])
    if tri:
        triton, _, _, rows2 = tri
        c.peers["triton"] = lambda x, y: rows2[(triton.cdiv(m // 2, 64), triton.cdiv(n, 64))](
            tt(x), tt(y), m // 2, n, BM=64, BN=64)
    cases.append(c)

    def transpose_case(name, dtype, m, n, goal=0.97):
        c = Case(name, dtype, (m, n), f"({m},{n}):({n},1)", f"({m},{n}):(1,{m})", (n, m),
                 lambda x: x.T.copy(), goal=goal)
        if torch:
            c.peers["torch copy_(x.T)"] = lambda x, y: tt(y).copy_(tt(x).T)
        c.peers["cupy y[...] = x.T"] = lambda x, y: y.__setitem__(Ellipsis, x.T)
        if tri:
            triton, _, transpose, _ = tri
            for bm, bn in ((64, 64), (128, 64)):
                c.peers[f"triton {bm}x{bn}"] = (lambda bm, bn: lambda x, y: transpose[
                    (triton.cdiv(m, bm), triton.cdiv(n, bn))](tt(x), tt(y), m, n, BM=bm, BN=bn))(bm, bn)
        return c

    cases.append(transpose_case("transpose f32", "f32", s, s))
    cases.append(transpose_case("transpose f16", "f16", 2 * s, s, goal=0.95))
    cases.append(transpose_case("transpose f64", "f64", s, s // 2))
    # goal: within 3% of the divisible transpose's 0.98
    cases.append(transpose_case("transpose 16381x16411" if not quick else "transpose odd",
                                "f32", s - 3, s + 27, goal=0.95))
    # nested (tiled) layout -> row-major: the source holds 64x64 tiles, each row-major,
    # tiles in row-major order; element (i, j) is at tile (i/64, j/64), offset (i%64, j%64)
    t = 64
    nested = f"(({t},{s // t}),({t},{s // t})):(({t},{t * s}),(1,{t * t}))"
    c = Case("tiled -> row-major", "f32", (s * s,), nested, f"({s},{s}):({s},1)", (s, s),
             lambda x: x.reshape(s // t, s // t, t, t).transpose(0, 2, 1, 3).reshape(s, s).copy())
    cases.append(c)
    cases.extend(text_cases(s))
    for c in cases:
        esize = np.dtype(DTYPES[c.dtype]).itemsize
        c.bytes_moved = 2 * int(np.prod(c.dst_shape)) * esize
    return cases


DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


# --------------------------------------------------------------------------- tilec


def tile_program(name: str, m: int, n: int, ti: int, tj: int, body, *, transpose: bool = True,
                 threads: int = 128):
    """One block per ti x tj tile of an m x n row-major f32 tensor (`%src`), written to
    `%dst` transposed (column-major) or not, built with `tilec.Program`: `body(p, ta,
    tb)` builds what the block does with its tiles `%ta` (of src) and `%tb` (of dst)."""
    from tilec.compiler.builder import Program

    p = Program(name)
    a = p.view(p.pointer("src", "f32", align=16), f"({m},{n}):({n},1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=16), f"({m},{n}):(1,{m})" if transpose else f"({m},{n}):({n},1)")
    b.named("b")
    grid = (p.constant(-(-m // ti)).named("gx"), p.constant(-(-n // tj)).named("gy"), p.constant(1).named("c1"))
    with p.launch(grid=grid, threads=threads) as k:
        ta = p.tile(a, [k.bx, k.by], [ti, tj]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [ti, tj]).named("tb")
        body(p, ta, tb)
    return p.module


def round_trip_program(s: int, tm: int, tn: int, threads: int):
    """Each tile through a compact shared tile and back (`layout.copy` both ways: cp.async,
    or TMA where the `tma` pass runs)."""
    def body(p, ta, tb):
        smem = p.alloc(f"({tm},{tn}):({tn},1)", "f32", "smem").named("s")
        p.copy(ta, smem)
        p.barrier()
        p.copy(smem, tb)

    return tile_program("smem_round_trip", s, s, tm, tn, body, transpose=False, threads=threads)


def in_out_program(s: int, t: int):
    """The Gluon tutorial's transpose: loaded in `#in`, converted to `#out`, stored."""
    from tilec.dialects.distributed import BlockedLayout

    def body(p, ta, tb):
        v = p.load(ta, BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])).named("v")
        p.store(p.convert_layout(v, BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])).named("w"), tb)

    return tile_program("in_out", s, s, t, t, body)


def no_tma_pipeline() -> str:
    """The default pipeline without the `tma` pass: block-level copies through shared
    memory stay cp.async (and `coarsen-grid` / `software-pipeline` may pipeline them)."""
    from tilec.compiler.pipeline import NAMED_PIPELINES

    return NAMED_PIPELINES["default"].replace(",tma,", ",")

def tma_transpose_program(s: int, t: int, threads: int):
    """A transpose through shared memory whose load is one TMA box of t rows x 32 columns
    (128 bytes: the 128-byte swizzle's row) into a swizzled tile, read down its columns
    (4 consecutive rows per thread) and stored along dst's rows."""
    from tilec.dialects.cute import Layout
    from tilec.dialects.distributed import BlockedLayout
    from tilec.dialects.swizzle import ComposedLayout, Swizzle

    def body(p, ta, tb):
        smem = p.alloc(ComposedLayout(Swizzle(3, 2, 3), 0, Layout((t, 32), (32, 1))), "f32", "smem").named("s")
        p.copy(ta, smem)
        cols = BlockedLayout([4, 1], [8, 4], [1, threads // 32], [0, 1])
        p.store(p.load(smem, cols).named("w"), tb)

    return tile_program("tma_transpose", s, s, t, 32, body, threads=threads)


def _nvmma(ti: int, tj: int, transposed: bool):
    """The NVMMA 128-byte swizzled shared layout of a ti x tj f32 tile (`transposed`:
    the rows contiguous)."""
    from tilec.dialects.mma import NvmmaSharedLayout
    from tilec.dialects.mma_layouts import NvmmaComposed

    return NvmmaComposed(NvmmaSharedLayout(128, 32, transposed), [ti, tj])


def tma_transpose2_program(s: int, ti: int, tj: int, w: int):
    """A transpose through shared memory with TMA on both sides: the source tile lands in
    an NVMMA 128-byte swizzled row-major tile (32-column boxes side by side), each thread
    reads 4 rows of one column (a warp reads one row across 32 columns: 32 banks) and
    writes them as one 16-byte vector of the destination tile, NVMMA-swizzled with the
    rows contiguous (each 8 lanes: 8 distinct 16-byte chunks), which TMA stores write out."""
    from tilec.dialects.distributed import BlockedLayout

    def body(p, ta, tb):
        s1 = p.alloc(_nvmma(ti, tj, False), "f32", "smem").named("s")
        s2 = p.alloc(_nvmma(ti, tj, True), "f32", "smem").named("s2")
        p.copy(ta, s1)
        p.store(p.load(s1, BlockedLayout([4, 1], [1, 32], [min(w, ti // 4), 1], [0, 1])).named("v"), s2)
        p.barrier()
        p.copy(s2, tb)

    return tile_program("tma_transpose2", s, s, ti, tj, body, threads=32 * w)


def tma_transpose_wide_program(s: int, ti: int, tj: int, threads: int, reg: str):
    """A transpose whose load is TMA (NVMMA 128-byte swizzled tile, several 32-column boxes
    side by side) and whose store is from registers (`reg` of `WIDE_REG`: down the
    tile's columns, or 16-byte vectors along dst's rows)."""
    w = threads // 32 if reg == "cols" else min(threads // 32, ti // 4)

    def body(p, ta, tb):
        smem = p.alloc(_nvmma(ti, tj, False), "f32", "smem").named("s")
        p.copy(ta, smem)
        p.store(p.load(smem, WIDE_REG[reg](w)).named("v"), tb)

    return tile_program("tma_transpose_wide", s, s, ti, tj, body, threads=threads)


def _blocked(spt, tpw, wpc, order):
    from tilec.dialects.distributed import BlockedLayout

    return BlockedLayout(spt, tpw, wpc, order)


WIDE_REG = {
    "cols": lambda w: _blocked([4, 1], [8, 4], [1, w], [0, 1]),
    "rows": lambda w: _blocked([4, 1], [1, 32], [w, 1], [0, 1]),
}
"""The register layouts of `tma_transpose_wide_program` (of `w` warps)."""

def _sm_count() -> int:
    try:
        return int(cp.cuda.Device().attributes["MultiProcessorCount"])
    except Exception:  # no GPU: the H100 SXM's count (the cases are only built)
        return 132


RING_CASES = (
    (64, 64, 256, 3, 2, 0, 0),
    (128, 64, 256, 3, 1, 0, 0),
    (128, 64, 512, 3, 1, 0, 0),
    (128, 64, 256, 2, 0, 2, 0),
    (128, 64, 256, 2, 0, 4, 0),
    (128, 64, 256, 3, 0, 8, 0),
    (64, 64, 256, 2, 0, 2, 0),
    (64, 64, 256, 3, 0, 4, 0),
    (64, 64, 256, 3, 0, 16, 0),
)
"""TMA transposes pipelined by `tma{stages=N}` (tests/helpers/tma_programs.persistent_transpose):
(tile rows, tile columns, threads, stages, blocks per SM (a persistent grid), else
tiles per block (a grid of tiles / that many blocks), grouped tile order: tile rows
per group, 0 = tile after tile down the columns)."""


def ring_pipeline(stages: int) -> str:
    from tilec.compiler.pipeline import NAMED_PIPELINES

    return NAMED_PIPELINES["default"].replace(",tma,", f",tma{{stages={stages}}},")


WIDE_BOX_CASES = (
    (128, 128, 128, "swizzled", "rows"),
    (128, 128, 256, "swizzled", "rows"),
    (64, 256, 256, "swizzled", "rows"),
    (64, 64, 128, "compact", "rows"),
    (64, 64, 128, "compact", "cols"),
)
"""TMA transposes whose load is one box as wide as the tile (a compact shared tile,
`tests/helpers/tma_programs.tile_transpose(smem="compact")`), read a row per warp,
written into a tile with dst's rows contiguous (NVMMA-swizzled: 32-row boxes; compact:
one wide box) and stored by TMA: (tile rows, tile columns, L2 promotion of the load's
tensor map in bytes: `tma{l2_promotion=N}`, the out tile, the register layout)."""


def tma_pipeline(**options) -> str:
    from tilec.compiler.pipeline import NAMED_PIPELINES

    opts = ",".join(f"{k}={v}" for k, v in options.items())
    return NAMED_PIPELINES["default"].replace(",tma,", f",tma{{{opts}}},")


def text_cases(s: int) -> list[Case]:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    from helpers.tma_programs import persistent_transpose, tile_transpose

    out = []
    for t, threads in ((16, 64), (64, 256)):
        out.append(Case(f"smem round trip {t}x{t} (cp.async)", "f32", (s, s), "", "", (s, s),
                        lambda x: x.copy(), pipeline=no_tma_pipeline(),
                        text=str(round_trip_program(s, t, t, threads))))
    for t, threads in ((64, 128), (128, 128)):
        tt = (t, t) if t <= 64 else (t, 64)
        out.append(Case(f"smem round trip {tt[0]}x{tt[1]} (TMA)", "f32", (s, s), "", "", (s, s),
                        lambda x: x.copy(), goal=0.99,
                        text=str(round_trip_program(s, tt[0], tt[1], threads))))
    for t, threads in ((32, 128), (64, 256), (128, 256)):
        out.append(Case(f"transpose {t}x32 through smem (TMA load)", "f32", (s, s), "", "", (s, s),
                        lambda x: x.T.copy(), goal=0.98,
                        text=str(tma_transpose_program(s, t, threads))))
    for t in (64, 128):  # 128x128 is the Gluon tutorial's tile (64 KiB of shared memory)
        out.append(Case(f"Gluon in/out layouts {t}x{t} (convert_layout)", "f32", (s, s), "", "", (s, s),
                        lambda x: x.T.copy(), text=str(in_out_program(s, t))))
    for ti, tj, w in ((32, 32, 4), (64, 64, 8), (128, 64, 8), (128, 128, 8)):
        out.append(Case(f"transpose {ti}x{tj} through smem (TMA load + store, {32 * w} threads)", "f32", (s, s),
                        "", "", (s, s), lambda x: x.T.copy(), goal=0.98,
                        text=str(tma_transpose2_program(s, ti, tj, w))))
    for ti, tj, threads, reg in ((128, 128, 256, "cols"), (128, 128, 256, "rows"), (64, 128, 256, "cols"),
                                 (128, 64, 256, "rows")):
        out.append(Case(f"transpose {ti}x{tj} through smem (TMA load, register stores {reg}, {threads} threads)",
                        "f32", (s, s), "", "", (s, s), lambda x: x.T.copy(), goal=0.98,
                        text=str(tma_transpose_wide_program(s, ti, tj, threads, reg))))
    for ti, tj, l2, out_smem, regs in WIDE_BOX_CASES:
        store = "wide-box TMA store" if out_smem == "compact" else "TMA store"
        out.append(Case(f"transpose {ti}x{tj} TMA wide-box load + {store} (256 threads, {regs}, L2 {l2}B)", "f32",
                        (s, s), "", "", (s, s), lambda x: x.T.copy(), goal=0.98,
                        pipeline=tma_pipeline(l2_promotion=l2),
                        text=str(tile_transpose(s, s, ti, tj, smem="compact", out_smem=out_smem, regs=regs))))
    for ti, tj, threads, stages, per_sm, per_block, group in RING_CASES:
        if per_sm:
            blocks, grid = per_sm * _sm_count(), f"persistent, {per_sm}/SM"
        else:
            blocks, grid = (s // ti) * (s // tj) // per_block, f"{per_block} tiles/block"
        order = f", groups of {group}" if group else ""
        out.append(Case(f"transpose {ti}x{tj} TMA ring ({stages} stages, {grid}{order}, {threads} threads)",
                        "f32", (s, s), "", "", (s, s), lambda x: x.T.copy(), goal=0.98,
                        pipeline=ring_pipeline(stages),
                        text=str(persistent_transpose(s, s, ti, tj, blocks=blocks, threads=threads, group=group))))
    return out


def build_tilec(case: Case):
    from tilec.compiler.builder import Program

    if case.text is not None:
        from tilec.compiler.pipeline import parse_module

        return parse_module(case.text, case.name)

    p = Program(case.name.replace(" ", "_").replace(">", "").replace("-", "_").replace("/", "_"))
    src = p.pointer("src", case.dtype, align=16)
    dst = p.pointer("dst", case.dtype, align=16)
    p.copy(p.view(src, case.src_layout), p.view(dst, case.dst_layout))
    return p.module


def run_case(case: Case, memcpy: float, results: list[dict], pipelines=("default",), with_peers=True) -> None:
    import tilec

    dt = DTYPES[case.dtype]
    rng = np.random.default_rng(0)
    x = cp.asarray(rng.standard_normal(case.src_shape).astype(dt))
    y = cp.empty(case.dst_shape, dtype=dt)
    expect = case.reference(x)
    row = {"case": case.name, "dtype": case.dtype, "bytes": case.bytes_moved, "goal": case.goal}
    for pipeline in ((case.pipeline,) if case.pipeline else pipelines):
        t0 = time.perf_counter()
        module = build_tilec(case)
        try:
            kernel = tilec.compile(module, pipeline)
            compile_s = time.perf_counter() - t0
            y.fill(np.nan if np.issubdtype(dt, np.floating) else -1)
            kernel(x, y)
            cp.cuda.Device().synchronize()
            ok = bool(cp.array_equal(y.ravel(), expect.ravel()))
            speed = tbps(case.bytes_moved, median_ms(lambda: kernel(x, y)))
            row.setdefault("variants", {})[pipeline] = round(speed, 3) if ok else "WRONG"
            if ok and speed > row.get("tilec_tbps", 0):
                row.update(tilec_tbps=speed, ratio=speed / memcpy, correct=ok,
                           compile_s=compile_s, pipeline=pipeline)
            elif not ok:
                row["correct"] = False
        except Exception as e:  # report and go on: one broken case must not hide the others
            row.setdefault("variants", {})[pipeline] = f"error: {type(e).__name__}: {str(e)[:200]}"
    if "tilec_tbps" not in row:
        row["error"] = str(row.get("variants"))
    peers = {}
    for name, fn in (case.peers.items() if with_peers else ()):
        try:
            y.fill(0)
            fn(x, y)
            cp.cuda.Device().synchronize()
            peers[name] = round(tbps(case.bytes_moved, median_ms(lambda: fn(x, y))), 3)
        except Exception as e:
            peers[name] = f"error: {type(e).__name__}"
    row["peers"] = peers
    results.append(row)
    del x, y, expect
    cp.get_default_memory_pool().free_all_blocks()


def table(results: list[dict], memcpy: float) -> str:
    lines = [
        f"cudaMemcpy device-to-device: {memcpy:.2f} TB/s (read + write)",
        "",
        "| case | tilec TB/s | ratio to cudaMemcpy | goal | correct | peers (TB/s) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['case']} | error | - | {r['goal']} | - | {r['error']} |")
            continue
        peers = ", ".join(f"{k} {v}" for k, v in r["peers"].items())
        lines.append(
            f"| {r['case']} | {r['tilec_tbps']:.2f} | {r['ratio']:.3f} | {r['goal']} | "
            f"{'yes' if r['correct'] else 'NO'} | {peers} |"
        )
    return "\n".join(lines)


def _has_gpu() -> bool:
    import tilec

    return tilec.gpu_available()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--cases", default="", help="comma-separated substrings of case names")
    ap.add_argument("--json", default=None, help="write the results as JSON here")
    ap.add_argument("--md", default=None, help="write the table into this markdown file")
    ap.add_argument("--no-peers", action="store_true", help="time tilec only")
    ap.add_argument("--pipelines", default="default",
                    help="';'-separated pass pipelines to compare per case (the best is reported)")
    args = ap.parse_args(argv)
    if cp is None or not _has_gpu():
        print("copy_bench: CuPy with a GPU is required", file=sys.stderr)
        return 1
    cases = make_cases(args.quick)
    if args.cases:
        keys = args.cases.split(",")
        cases = [c for c in cases if any(k in c.name for k in keys)]
    memcpy = memcpy_tbps(GiB // 2 if not args.quick else 64 << 20)
    results: list[dict] = []
    from tilec.tools.progress import Progress  # a line on a terminal's stderr only

    with Progress(len(cases)) as progress:
        for c in cases:
            progress.step(f"{c.name}: compiling, checking, timing")
            run_case(c, memcpy, results, args.pipelines.split(";"), not args.no_peers)
            progress.clear()
            print(json.dumps(results[-1]), flush=True)
    text = table(results, memcpy)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    stamp = datetime.date.today().isoformat()
    if args.json:
        from run_info import run_info  # benchmarks/ (this script's folder)

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "memcpy_tbps": memcpy, "results": results}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"# Benchmarks\n\nDevice: {dev}; date: {stamp}; command: "
                    f"`python benchmarks/copy_bench.py{' --quick' if args.quick else ''}`\n\n{text}\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
