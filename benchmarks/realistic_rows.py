"""Row kernels at the shapes users have: softmax, layer norm, RMSNorm and cumsum written
as a user writes them, against PyTorch and the same naive program in Triton, in one run,
as a ratio to cudaMemcpy of the same bytes.

    python benchmarks/realistic_rows.py --kinds softmax --json OUT.json --md OUT.md
    python benchmarks/realistic_rows.py [--quick] [--kinds softmax,layer_norm,rms_norm,cumsum]
        [--cols 128,768,...] [--rows 1,7,...] [--full] [--dtypes f32,f16,bf16]
        [--budget SECONDS] [--json OUT] [--md OUT]
    python benchmarks/realistic_rows.py --dry-run [--kinds ...]   # no GPU: build and compile each program
    python benchmarks/realistic_rows.py --kinds softmax,layer_norm,rms_norm --cols 50257,131072 \
        --rows 16384 --dtypes f16,f32 --variants stash --json OUT.json   # two-pass rows, stash or not
    python benchmarks/realistic_rows.py --kinds softmax,layer_norm,rms_norm --cols 50257,131072 \
        --rows 16384 --dtypes f16 --variants reread-order,reread-hints,reread-l2-hints,reread-prefetch,reread-l2-prefetch \
        --budget 120 --json OUT.json   # two-pass rows: L2 order, eviction priorities, prefetch, warps

The tilec kernels are examples/python/row_kernels.py as they are: one row per block, a
masked power-of-two tile, a run-time row count M, N fixed per program, layouts left to
the compiler (`#layout.auto`: `pack-rows` packs rows of at most 512 elements several to
a block, `choose-warps` picks the block's warps from the bytes per thread, `coalesce`
the threads per warp and vector widths); rows longer than
`row_kernels.ONLINE_ABOVE` are loops over chunks, written in the program where the
algorithm changes (online softmax, the norms' statistics) and made by the compiler where
it does not (cumsum: `chunk-rows` carries the running total). No configuration sweep. The Triton
kernels below are the same programs in Triton (one program per row, a masked block of
next_pow2(N), the Triton tutorial's num_warps (`row_kernels.num_warps`: f32 rows get
the warps tilec's rule gives them, f16 rows twice as many); the same loops over chunks for long rows, cumsum's
written by hand as tilec's compiler makes it). Every
result is checked against PyTorch in float64 before it is timed (the output poisoned
with NaN first; tolerances per op and dtype in `TOL`).

Shapes: N in {128, 768, 1000, 1001, 3072, 4096, 8192, 50257, 131072}, M in {1, 7, 4096,
16384, 65536}, f32 / f16 / bf16. By default the grid is sampled: every N at M = 16384,
and every M at N = 1000 and 4096 (`ALL_M_AT`); `--full` (or `--rows`) runs every M at
every N. A case whose input and output together pass `MAX_BYTES` is skipped (and
listed). One kind takes about 2-3 minutes on an H100/H200; run the kinds as separate
commands (one JSON each: benchmarks/report.py merges every realistic_rows*.json).
`--budget` (default 240 s) stops starting new programs once the run has taken that long
and lists what it did not run, so a command never passes the device's limit.

One tilec compile per (kernel, dtype, N): the same kernel serves every M; the run counts
the NVRTC compiles per key (`compiles`, with the disk cache off) and records them.

Timing: benchmarks/compute_bench.py's method (CUDA-graph replays of 20 launches, inputs
rotated over 256 MiB, or over 20 sets where a set is small, so that a launch does not find
its input in L2 where that matters; tilec / peers / cudaMemcpy of the same bytes
interleaved over 5 rounds; medians, and the spread of the round medians). Bytes moved =
the M x N input read and the output written. For M = 1 and 7 the kernels take a few
microseconds: the table gives microseconds per launch too, and the cudaMemcpy of the
same bytes there is itself at the launch floor.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples", "python"))
import row_kernels as rk  # noqa: E402

COLS = (128, 768, 1000, 1001, 3072, 4096, 8192, 50257, 131072)
ROWS = (1, 7, 4096, 16384, 65536)
DTYPES = ("f32", "f16", "bf16")
KINDS = ("softmax", "layer_norm", "rms_norm", "cumsum")
SAMPLE_M = 16384
"""The row count every N runs at in the sampled grid."""
ALL_M_AT = (1000, 4096)
"""The row lengths that run at every M in the sampled grid."""
QUICK = {"cols": (128, 1000, 4096, 50257), "rows": (7, 4096), "dtypes": ("f32", "f16"), "kinds": ("softmax",)}
ELEM_BYTES = {"f32": 4, "f16": 2, "bf16": 2}
MAX_BYTES = 8 << 30
"""Cases whose input + output pass this are skipped (65536 x 131072 f32 is 64 GiB)."""
BUDGET_S = 240.0
"""Seconds after which a run starts no new program (the device allows 300 per command; a
program's cases take a few seconds more)."""
MAX_SETS = 20
"""At most this many rotated input/output sets: a CUDA graph of 20 launches uses no more."""
GOAL = 0.95
"""The issue's goal: tilec at least this ratio to the cudaMemcpy of its bytes (where a
block has at least 16 KiB in flight), and never below the naive Triton program."""


VARIANTS: dict[str, dict[str, str]] = {
    "no-scan-vector": {"coalesce": "coalesce{scan_vector=false}"},
    "warps-bytes8": {"choose-warps": "choose-warps{bytes=8}"},
    "warps-bytes16": {"choose-warps": "choose-warps{bytes=16}"},
    "warps-bytes64": {"choose-warps": "choose-warps{bytes=64}"},
    "warps-bytes128": {"choose-warps": "choose-warps{bytes=128}"},
    "no-stash": {"choose-warps": "choose-warps{stash_rows=false}", "stash-rereads": ""},
    "stash": {"choose-warps": "stash-rereads,choose-warps{stash_rows=false}", "stash-rereads": ""},
    "stash-window": {"choose-warps": "choose-warps{stash_rows=false}"},
    "stash-window-w16": {"choose-warps": "choose-warps{bytes=8 stash_rows=false}"},
    "stash-window-w32": {"choose-warps": "choose-warps{bytes=4 max_warps=32 stash_rows=false}"},
    "stash-partial": {"choose-warps": "choose-warps{stash_partial=true}",
                      "stash-rereads": "stash-rereads{partial=true}"},
    "stash-one-wait": {"stash-rereads": "stash-rereads{ahead=false}"},
    "no-sink": {"sink-reductions": "sink-reductions{max_per_thread=0}"},
    "sink-exact": {"sink-reductions": "sink-reductions{exact=true}"},
    "keep-barriers": {"eliminate-barriers": "eliminate-barriers{enabled=false}"},
    "baseline43": {"sink-reductions": "sink-reductions{max_per_thread=0}",
                   "eliminate-barriers": "eliminate-barriers{enabled=false}"},
    "reread-order": {"choose-warps": "reread-order,choose-warps{stash_rows=false}", "stash-rereads": ""},
    "l2-rows": {"choose-warps": "choose-warps{l2_rows=true stash_rows=false}", "stash-rereads": ""},
    "reread-l2": {"choose-warps": "reread-order,choose-warps{l2_rows=true stash_rows=false}", "stash-rereads": ""},
    "reread-hints": {"choose-warps": "reread-order{cache_hints=true},choose-warps{stash_rows=false}",
                     "stash-rereads": ""},
    "reread-l2-hints": {"choose-warps": "reread-order{cache_hints=true},choose-warps{l2_rows=true stash_rows=false}",
                        "stash-rereads": ""},
    "reread-prefetch": {"choose-warps": "reread-order{cache_hints=true prefetch=true},choose-warps{stash_rows=false}",
                        "stash-rereads": ""},
    "reread-l2-prefetch": {"choose-warps": "reread-order{cache_hints=true prefetch=true},"
                                           "choose-warps{l2_rows=true stash_rows=false}", "stash-rereads": ""},
}
"""Compiler options a run may compare with the default (`--variants NAME,...`): each the
default pipeline with passes replaced (pass -> that pass with options, another pass, or
none: ""). The default reads a two-pass long row once (`stash-rereads` after `choose-warps`:
the window fill, at `choose-warps{stash_rows}`' warps); `no-stash` reads it twice (the
default before it); `stash` fills the stash in the first loop instead (slower than reading
twice on the H200, one block a multiprocessor); `stash-window` / `-w16` / `-w32` the
window fill at the bytes rule's warps / at 16 / at 32; `stash-partial` also stashes the first
chunks of rows that do not fit, at the warps `choose-warps{stash_partial}` gives that stash
(131072 f16: measured slower at 4 warps, before the fill overlapped the first loop); `stash-one-wait` copies the
whole window before the first loop, then waits once (the default overlaps the fill with
that loop, trip by trip). `no-sink` leaves every reduction in its loop (the default's
`sink-reductions` carries an accumulated reduction's unreduced tensor and reduces it once
after the loop); `sink-exact` sinks only max, min and integer sums; `keep-barriers` keeps every barrier the
lowering makes (the default's `eliminate-barriers` removes those that order no access);
`baseline43` is the default before both. The L2 variants below read twice (no stash).
`reread-hints` / `reread-l2-hints`: `reread-order{cache_hints}` (the first read of a
re-read row `evict_last` in L2, the second read and the outputs `evict_first`), without
and with `choose-warps{l2_rows}`; `reread-prefetch` / `reread-l2-prefetch`: those hints and
`reread-order{prefetch}` (the block asks L2 for its whole row first: one bulk prefetch).
`warps-bytes8` ... `warps-bytes128`: `choose-warps`' bytes per thread (default 32) at a
quarter to four times, i.e. four to a quarter of the warps: `--variants SWEEP` (these four)
is the configuration sweep that the issue's "within 5% of the best configuration" is
measured against (the table's "tilec / best" column).
A variant is timed beside the default, as its own column, only
where its CUDA differs from the default's."""

SWEEP = ("warps-bytes8", "warps-bytes16", "warps-bytes64", "warps-bytes128")
"""`--variants SWEEP`: the warps the compiler's rule could have chosen, from 4x to 1/4x."""


def variant_pipeline(name: str) -> str:
    """The default pipeline with the passes of variant `name` replaced."""
    from tilec.compiler.pipeline import NAMED_PIPELINES

    passes = NAMED_PIPELINES["default"].split(",")
    for old in VARIANTS[name]:
        if old not in passes:
            raise ValueError(f"variant {name}: no pass {old} in the default pipeline")
    return ",".join(q for p in passes if (q := VARIANTS[name].get(p, p)))


@dataclass
class Key:
    """One tilec program: a kernel, an element type, a row length; run at every M."""

    kind: str
    dtype: str
    n: int
    rows: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.kind} {self.dtype} N={self.n}"


def plan(kinds=KINDS, dtypes=DTYPES, cols=COLS, rows=ROWS, sample: bool = True) -> list[Key]:
    """The programs to build and the row counts each runs at; rows past MAX_BYTES go to
    `skipped`. `sample`: every N at SAMPLE_M, every M only at the N of ALL_M_AT (each
    where `rows` has it); else every M of `rows` at every N."""
    out = []
    for kind in kinds:
        for dtype in dtypes:
            for n in cols:
                k = Key(kind, dtype, n)
                for m in rows:
                    if sample and m != SAMPLE_M and n not in ALL_M_AT and len(rows) > 1:
                        continue
                    (k.rows if 2 * m * n * ELEM_BYTES[dtype] <= MAX_BYTES else k.skipped).append(m)
                out.append(k)
    return out


def build(key: Key):
    """The tilec Program of a key (examples/python/row_kernels.py), as the user writes it."""
    return rk.KERNELS[key.kind](key.n, key.dtype)


def dry_run(keys: list[Key], nvrtc: bool = False, variants=()) -> list[dict]:
    """Without a GPU: each key's program built, run through the default pipeline and
    printed as CUDA (compiled by NVRTC for sm_90 with `nvrtc`); what each became (the
    program's name, its rows per block, its warps, its row tile (a chunk where `chunk-rows` made a
    loop over chunks), whether it loops, its vector widths, the `variants` whose CUDA
    differs from the default's)."""
    import re

    from tilec.compiler.pipeline import emit, run_pipeline

    out = []
    for key in keys:
        program = build(key)
        module = program.module.clone()
        run_pipeline(module, "default")
        cuda = emit(module, "cuda")
        if nvrtc:
            from tilec.runtime.nvrtc import compile_cuda

            compile_cuda(cuda, arch="sm_90")
        shaped = emit(_shaped(program))
        tiles = re.findall(r"tile = array<i64: (\d+), (\d+)>", shaped)
        threads = re.findall(r"threads\((\d+)\)", shaped)
        out.append({"key": key.name, "program": program.name, "rows_per_block": int(tiles[0][0]) if tiles else 1,
                    "warps": int(threads[0]) // 32 if threads else None,
                    "tile": int(tiles[0][1]) if tiles else None, "loop": "scf.for" in shaped,
                    "vectors": sorted(set(re.findall(r"\b(?:bf16|f16|f32)x(\d+)\b", cuda)), key=int),
                    "cuda_bytes": len(cuda), "variants_differ": _differing(program, cuda, variants, nvrtc)})
    return out


def _differing(program, cuda: str, variants, nvrtc: bool) -> list[str]:
    """The variants (names of VARIANTS) whose CUDA for `program` is not `cuda` (each
    compiled by NVRTC for sm_90 with `nvrtc`)."""
    from tilec.compiler.pipeline import emit, run_pipeline

    out = []
    for v in variants:
        module = program.module.clone()
        run_pipeline(module, variant_pipeline(v))
        other = emit(module, "cuda")
        if other != cuda:
            out.append(v)
            if nvrtc:
                from tilec.runtime.nvrtc import compile_cuda

                compile_cuda(other, arch="sm_90")
    return out


def _shaped(program):
    """The program after the passes that choose rows per block, chunks and warps."""
    from tilec.compiler.pipeline import run_pipeline

    module = program.module.clone()
    run_pipeline(module, "chunk-rows,pack-rows,choose-warps")
    return module


class CompileCounter:
    """Counts NVRTC compiles (tilec.runtime.nvrtc.compile_cuda, which the kernel cache
    calls) while active."""

    def __init__(self):
        self.count = 0

    def __enter__(self):
        from tilec.runtime import nvrtc

        self._nvrtc, self._orig = nvrtc, nvrtc.compile_cuda

        def counted(*a, **kw):
            self.count += 1
            return self._orig(*a, **kw)

        nvrtc.compile_cuda = counted
        return self

    def __exit__(self, *exc):
        self._nvrtc.compile_cuda = self._orig


def compile_key(key: Key, arch: str | None = None, variant: str | None = None):
    """The one tilec kernel of a key (`arch` compiles for it without a GPU); `variant`:
    through `variant_pipeline(variant)` instead of the default pipeline."""
    import tilec

    if variant is None:
        return tilec.compile(build(key), arch=arch)
    return tilec.compile(build(key), variant_pipeline(variant), arch=arch)


def compile_variants(key: Key, kernel, variants, arch: str | None = None) -> dict:
    """The kernels of `variants` (names of VARIANTS) for a key whose CUDA differs from
    `kernel`'s (the default's)."""
    out = {}
    for v in variants:
        k = compile_key(key, arch, v)
        if k.source != kernel.source:
            out[v] = k
    return out


# --------------------------------------------------------------------------- Triton


def triton_kernels():
    """The same naive programs in Triton, or None where Triton is not installed."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * n_cols + offs, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def softmax_online_kernel(out_ptr, in_ptr, n_cols, CHUNK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = row * n_cols
        # loop-carried running max and sum: tensors of one element from the start (a
        # Python float would be a constexpr, which a loop cannot re-assign a tensor to)
        mx = tl.zeros([1], dtype=tl.float32) - float("inf")
        s = tl.zeros([1], dtype=tl.float32)
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            x = tl.load(in_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
            new = tl.maximum(mx, tl.max(x, axis=0))
            s = s * tl.exp(mx - new) + tl.sum(tl.exp(x - new), axis=0)
            mx = new
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            x = tl.load(in_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
            tl.store(out_ptr + base + cols, (tl.exp(x - mx) / s).to(out_ptr.dtype.element_ty), mask=cols < n_cols)

    @triton.jit
    def layer_norm_kernel(out_ptr, in_ptr, w_ptr, b_ptr, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=0) / n_cols
        xc = tl.where(mask, x - mean, 0.0)
        rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
        w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
        tl.store(out_ptr + row * n_cols + offs, (xc * rstd * w + b).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def rms_norm_kernel(out_ptr, in_ptr, w_ptr, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
        rstd = 1 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
        w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
        tl.store(out_ptr + row * n_cols + offs, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def layer_norm_chunked_kernel(out_ptr, in_ptr, w_ptr, b_ptr, n_cols, eps, CHUNK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = row * n_cols
        # running count, mean and sum of squared deviations, merged chunk by chunk (Chan)
        mean = tl.zeros([1], dtype=tl.float32)
        m2 = tl.zeros([1], dtype=tl.float32)
        count = tl.zeros([1], dtype=tl.float32)
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            mask = cols < n_cols
            x = tl.load(in_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            n_b = tl.minimum(n_cols - off, CHUNK).to(tl.float32)
            mean_b = tl.sum(x, axis=0) / n_b
            d = tl.where(mask, x - mean_b, 0.0)
            grown = count + n_b
            delta = mean_b - mean
            m2 = m2 + tl.sum(d * d, axis=0) + delta * delta * count * n_b / grown
            mean = mean + delta * n_b / grown
            count = grown
        rstd = 1 / tl.sqrt(m2 / n_cols + eps)
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            mask = cols < n_cols
            x = tl.load(in_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
            b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
            tl.store(out_ptr + base + cols, ((x - mean) * rstd * w + b).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def rms_norm_chunked_kernel(out_ptr, in_ptr, w_ptr, n_cols, eps, CHUNK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = row * n_cols
        q = tl.zeros([CHUNK], dtype=tl.float32)
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            x = tl.load(in_ptr + base + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            q += x * x
        rstd = 1 / tl.sqrt(tl.sum(q, axis=0) / n_cols + eps)
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            mask = cols < n_cols
            x = tl.load(in_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
            tl.store(out_ptr + base + cols, (x * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def cumsum_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * n_cols + offs, tl.cumsum(x, axis=0).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def cumsum_chunked_kernel(out_ptr, in_ptr, n_cols, CHUNK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = row * n_cols
        total = tl.zeros([1], dtype=tl.float32)
        for off in range(0, n_cols, CHUNK):
            cols = off + tl.arange(0, CHUNK)
            mask = cols < n_cols
            x = tl.load(in_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(out_ptr + base + cols, (tl.cumsum(x, axis=0) + total).to(out_ptr.dtype.element_ty), mask=mask)
            total += tl.sum(x, axis=0)

    def run(kind, x, y, w, b):
        m, n = x.shape
        block = triton.next_power_of_2(n)
        if n > rk.ONLINE_ABOVE:
            cw = dict(CHUNK=rk.CHUNK, num_warps=rk.num_warps(rk.CHUNK))
            if kind == "softmax":
                softmax_online_kernel[(m,)](y, x, n, **cw)
            elif kind == "layer_norm":
                layer_norm_chunked_kernel[(m,)](y, x, w, b, n, 1e-5, **cw)
            elif kind == "rms_norm":
                rms_norm_chunked_kernel[(m,)](y, x, w, n, 1e-6, **cw)
            else:
                cumsum_chunked_kernel[(m,)](y, x, n, **cw)
            return
        bw = dict(BLOCK=block, num_warps=rk.num_warps(block))
        if kind == "softmax":
            softmax_kernel[(m,)](y, x, n, **bw)
        elif kind == "layer_norm":
            layer_norm_kernel[(m,)](y, x, w, b, n, 1e-5, **bw)
        elif kind == "rms_norm":
            rms_norm_kernel[(m,)](y, x, w, n, 1e-6, **bw)
        else:
            cumsum_kernel[(m,)](y, x, n, **bw)

    return run


# --------------------------------------------------------------------------- one case


def reference(kind: str, x64, w, b):
    """The op in float64 (PyTorch), on the rounded inputs."""
    import torch

    if kind == "softmax":
        return torch.softmax(x64, dim=1)
    if kind == "layer_norm":
        return torch.nn.functional.layer_norm(x64, (x64.shape[1],), w.double(), b.double(), 1e-5)
    if kind == "rms_norm":
        return x64 * torch.rsqrt((x64 * x64).mean(dim=1, keepdim=True) + 1e-6) * w.double()
    return torch.cumsum(x64, dim=1)


def torch_peer(kind: str, x, w, b):
    import torch

    if kind == "softmax":
        return torch.softmax(x, dim=1)
    if kind == "layer_norm":
        return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, 1e-5)
    if kind == "rms_norm":
        return torch.nn.functional.rms_norm(x, (x.shape[1],), w, 1e-6)
    return torch.cumsum(x, dim=1)


TOL = {"f32": dict(atol=1e-6, rtol=1e-5), "f16": dict(atol=1e-4, rtol=1e-2), "bf16": dict(atol=1e-3, rtol=2e-2)}
"""Elementwise tolerances (torch.allclose against float64) of softmax, layer norm and
RMSNorm: the output's rounding (f16: 2^-11, bf16: 2^-8 relative) with room for the f32
math; f32 is held to 1e-5 relative."""
CUMSUM_TOL = {"f32": 2e-5, "f16": 2e-3, "bf16": 1e-2}
"""cumsum: max |error| over the case, relative to the largest |prefix sum| of its row
block (a prefix sum near zero after large terms has no relative accuracy to keep; the
sums are in f32, then rounded to the element type)."""
CHECK_ROWS = 1 << 26
"""Elements per slice of rows checked at a time (bounds the float64 reference's memory)."""


def close(kind: str, dtype: str, got, ref) -> bool:
    """Whether a result agrees with the float64 reference within the op's tolerance."""
    import torch

    got = got.double()
    if kind == "cumsum":
        return bool((got - ref).abs().max() <= CUMSUM_TOL[dtype] * ref.abs().max().clamp_min(1.0))
    return bool(torch.allclose(got, ref, **TOL[dtype]))


def checked(key: Key, x, y, w, b) -> bool:
    """`close` over the rows of y, a slice of rows at a time."""
    m, n = x.shape
    step = max(1, CHECK_ROWS // n)
    return all(close(key.kind, key.dtype, y[s:s + step], reference(key.kind, x[s:s + step].double(), w, b))
               for s in range(0, m, step))


def run_case(key: Key, m: int, kernel, tri, memcpy: float, extra: dict | None = None) -> dict:
    """One case timed: tilec's `kernel`, PyTorch, Triton's same program (`tri`) and the
    cudaMemcpy of the same bytes, each checked first; `extra` (name -> another tilec
    kernel of the key, e.g. with its warps written) are checked and timed beside them."""
    import cupy as cp
    import torch
    from compute_bench import ROTATE_BYTES, _event_times, interleaved
    from copy_bench import tbps

    td = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[key.dtype]
    n = key.n
    nbytes = 2 * m * n * ELEM_BYTES[key.dtype]
    sets = min(MAX_SETS, max(1, math.ceil(ROTATE_BYTES / nbytes)))
    g = torch.Generator(device="cuda").manual_seed(m * 131 + n)
    x = torch.randn(m, n, device="cuda", generator=g).to(td)
    xs = [x] + [x.clone() for _ in range(sets - 1)]
    ys = [torch.full_like(x, float("nan")) for _ in range(sets)]
    w = torch.randn(n, device="cuda", generator=g).to(td)
    b = torch.randn(n, device="cuda", generator=g).to(td)
    vecs = {"softmax": (), "layer_norm": (w, b), "rms_norm": (w,), "cumsum": ()}[key.kind]
    row = {"case": f"{key.name} M={m}", "kind": key.kind, "dtype": key.dtype, "n": n, "m": m,
           "bytes": nbytes, "rotated_sets": sets}

    def tilec_fn(i, s):
        kernel(xs[i], ys[i], *vecs, m, stream=None if s is None else cp.cuda.ExternalStream(s.cuda_stream))

    fns = {"tilec": tilec_fn}
    checks = {"tilec": tilec_fn}
    for name, k in (extra or {}).items():
        def extra_fn(i, s, k=k):
            k(xs[i], ys[i], *vecs, m, stream=None if s is None else cp.cuda.ExternalStream(s.cuda_stream))
        fns[name] = checks[name] = extra_fn
    try:
        torch_peer(key.kind, x[:1], w, b)
        fns["torch"] = lambda i, s: torch_peer(key.kind, xs[i], w, b)
    except Exception as e:  # e.g. torch.nn.functional.rms_norm before PyTorch 2.4
        row["torch_error"] = f"{type(e).__name__}: {str(e)[:120]}"
    if tri is not None:
        fns["triton"] = checks["triton"] = lambda i, s: tri(key.kind, xs[i], ys[i], w, b)
    for name, fn in checks.items():
        ys[0].fill_(float("nan"))
        try:
            fn(0, None)
            torch.cuda.synchronize()
            ok = checked(key, x, ys[0], w, b)
        except Exception as e:  # one broken peer must not hide the others
            row[f"{name}_error"] = f"{type(e).__name__}: {str(e)[:200]}"
            ok = False
        row[f"{name}_ok"] = ok
        if not ok:
            fns.pop(name)
    half = nbytes // 2

    def copy(i, s):
        cp.cuda.runtime.memcpyAsync(ys[i].data_ptr(), xs[i].data_ptr(), half,
                                    cp.cuda.runtime.memcpyDeviceToDevice, 0 if s is None else s.cuda_stream)

    fns["cudaMemcpy"] = copy
    timed = interleaved(fns, sets)
    queued = statistics.median(_event_times(copy, sets, 30))
    same = tbps(nbytes, min(timed["cudaMemcpy"][0], queued))
    row["memcpy_same_bytes_tbps"] = round(same, 3)
    row["memcpy_us"] = round(1e3 * min(timed["cudaMemcpy"][0], queued), 2)
    for name in ("tilec", "torch", "triton", *(extra or {})):
        if name in timed:
            ms, spread, how = timed[name]
            row[name] = {"tbps": round(tbps(nbytes, ms), 3), "ratio_same_bytes": round(tbps(nbytes, ms) / same, 3),
                         "ratio": round(tbps(nbytes, ms) / memcpy, 3), "us": round(1e3 * ms, 2),
                         "spread": round(spread, 3), "timing": how}
    return row


# --------------------------------------------------------------------------- output


SMS = 132
"""Streaming multiprocessors of an H100 SXM: fewer rows than this leave SMs idle, and the
kernels last a few microseconds (the launch floor)."""


def verdict(r: dict) -> str:
    """The goal for one row of results: at least GOAL of the cudaMemcpy of the same bytes
    where each block has at least 16 KiB of a row in flight, and never below Triton's
    same program; with fewer rows than SMs, the launch floor (the microseconds say)."""
    t, tri = r.get("tilec"), r.get("triton")
    if not isinstance(t, dict):
        return "no (tilec wrong or failed)" if r.get("tilec_ok") is False else "-"
    beats = not isinstance(tri, dict) or t["ratio_same_bytes"] >= tri["ratio_same_bytes"]
    vs = "" if beats else ", below Triton"
    if r["m"] < SMS:
        return "launch floor" + vs
    if r["n"] * ELEM_BYTES[r["dtype"]] < 16 << 10:
        return ("yes" if beats else "no") + " (rows < 16 KiB: vs Triton only)"
    return "yes" if t["ratio_same_bytes"] >= GOAL and beats else "no" + vs


def compile_line(results: list[dict], compiles: dict[str, int]) -> str:
    """How many NVRTC compiles the run's tilec programs took, and how many row counts
    each served (the issue's "one compile per (dtype, N), not per M")."""
    served: dict[str, int] = {}
    for r in results:
        served[r["case"].rsplit(" M=", 1)[0]] = served.get(r["case"].rsplit(" M=", 1)[0], 0) + 1
    many = {k: v for k, v in compiles.items() if v > 1}
    line = (f"NVRTC compiles: {sum(compiles.values())} for {len(compiles)} tilec programs "
            f"(one per kernel, dtype and N), serving {len(results)} cases; "
            f"{sum(1 for k in compiles if served.get(k, 0) > 1)} programs served several M each")
    return line + (": " + ", ".join(f"{k}: {v} compiles" for k, v in many.items()) + "." if many else
                   ", none compiled twice.")


def table(results: list[dict], compiles: dict[str, int], skipped: list[str], not_run: list[str] = (),
          variants=()) -> str:
    """The markdown table of a run (also what report.py puts in docs/performance.md);
    `variants` (names of VARIANTS) add a column each ("=" where the variant's CUDA is
    the default's)."""
    def cell(r, name):
        v = r.get(name)
        if not isinstance(v, dict):
            return "wrong" if r.get(f"{name}_ok") is False else "-"
        return f"{v['ratio_same_bytes']:.2f} ({v['us']:.1f} us)"

    def vcell(r, name):
        return cell(r, name) if name in r or f"{name}_ok" in r else "="

    def best(r):  # the default's time over the fastest correct of it and the variants (1.00: the default is best)
        times = [v["us"] for n in ("tilec", *variants) if isinstance(v := r.get(n), dict)]
        return f"{min(times) / r['tilec']['us']:.2f}" if isinstance(r.get("tilec"), dict) else "-"

    lines = [
        "| case | bytes | cudaMemcpy of them | tilec | PyTorch | Triton (same program) | goal |"
        + "".join(f" tilec {v} |" for v in variants) + (" tilec / best |" if variants else ""),
        "|---|---:|---:|---:|---:|---:|---|" + "---:|" * (len(variants) + bool(variants)),
    ]
    for r in results:
        lines.append(f"| {r['case']} | {r['bytes']} | {r['memcpy_same_bytes_tbps']:.2f} TB/s, {r['memcpy_us']:.1f} us "
                     f"| {cell(r, 'tilec')} | {cell(r, 'torch')} | {cell(r, 'triton')} | {verdict(r)} |"
                     + "".join(f" {vcell(r, v)} |" for v in variants) + (f" {best(r)} |" if variants else ""))
    lines += ["", "Ratios are to the cudaMemcpy of the same bytes in the same run (microseconds per launch in "
              "brackets). " + compile_line(results, compiles)]
    if skipped:
        lines += ["", f"Skipped (input + output above {MAX_BYTES >> 30} GiB): " + ", ".join(skipped) + "."]
    if not_run:
        lines += ["", "Not run (the run's time budget was spent): " + ", ".join(not_run) + "."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few shapes (a smoke test)")
    ap.add_argument("--kinds", default=None)
    ap.add_argument("--cols", default=None)
    ap.add_argument("--rows", default=None)
    ap.add_argument("--full", action="store_true", help="every M at every N (else the sampled grid)")
    ap.add_argument("--dtypes", default=None)
    ap.add_argument("--budget", type=float, default=BUDGET_S, help="start no new program after this many seconds")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: build, lower and print each program's CUDA")
    ap.add_argument("--variants", default="", help=f"compiler options timed beside the default ({', '.join(VARIANTS)}; SWEEP: the warps sweep)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args(argv)
    start = time.monotonic()
    base = QUICK if args.quick else {"cols": COLS, "rows": ROWS, "dtypes": DTYPES, "kinds": KINDS}

    def pick(opt, name, conv=str):
        return tuple(conv(v) for v in opt.split(",")) if opt else base[name]

    variants = tuple(w for v in args.variants.split(",") if v for w in (SWEEP if v == "SWEEP" else (v,)))
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v} (known: {', '.join(VARIANTS)})")
    keys = plan(pick(args.kinds, "kinds"), pick(args.dtypes, "dtypes"), pick(args.cols, "cols", int),
                pick(args.rows, "rows", int), sample=not (args.full or args.rows or args.quick))
    if args.dry_run:
        for d in dry_run(keys, variants=variants):
            print(json.dumps(d))
        print(f"{len(keys)} programs, {sum(len(k.rows) for k in keys)} cases, "
              f"{sum(len(k.skipped) for k in keys)} skipped")
        return 0
    import tilec

    if not tilec.gpu_available():
        print("realistic_rows: CuPy with a GPU is required (--dry-run needs none)", file=sys.stderr)
        return 1
    import cupy as cp
    import torch
    from copy_bench import GiB, memcpy_tbps

    os.environ.setdefault("TILEC_CACHE", "0")  # count every compile (no kernel from the disk cache)
    memcpy = memcpy_tbps(GiB // 2 if not args.quick else 64 << 20)
    tri = triton_kernels()
    arch = "sm_{}".format(cp.cuda.Device().compute_capability)
    results, compiles, skipped, not_run = [], {}, [], []
    for key in keys:
        if time.monotonic() - start > args.budget:
            not_run += [f"{key.name} M={m}" for m in key.rows]
            continue
        skipped += [f"{key.name} M={m}" for m in key.skipped]
        if not key.rows:  # every case skipped: nothing to compile
            continue
        # the variants compiled at once (for this device), outside the count of the default's compiles
        extra = compile_variants(key, compile_key(key), variants, arch) if variants else None
        with CompileCounter() as counter:
            kernel = compile_key(key)
            for m in key.rows:
                results.append(run_case(key, m, kernel, tri, memcpy, extra))
                print(json.dumps(results[-1]), flush=True)
                torch.cuda.empty_cache()
        compiles[key.name] = counter.count
    text = table(results, compiles, skipped, not_run, variants)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    command = "python benchmarks/realistic_rows.py " + " ".join(a for a in (argv if argv is not None else sys.argv[1:])
                                                               if not a.endswith((".json", ".md"))
                                                               and a not in ("--json", "--md"))
    if args.json:
        from run_info import run_info

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "memcpy_tbps": memcpy, "goal": GOAL, "results": results,
                       "compiles": compiles, "skipped": skipped, "not_run": not_run, "variants": list(variants),
                       "seconds": round(time.monotonic() - start, 1), "command": command.strip()},
                      f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    print(text)
    print(f"realistic_rows: {time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
