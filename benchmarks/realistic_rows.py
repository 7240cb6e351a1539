"""Row kernels at the shapes users have: softmax (and layer norm, RMSNorm) written as a user
writes them, against PyTorch and the same naive program in Triton, in one run, as a ratio
to cudaMemcpy of the same bytes.

    python benchmarks/realistic_rows.py [--quick] [--kinds softmax,layer_norm,rms_norm]
        [--cols 128,768,...] [--rows 1,7,...] [--dtypes f32,f16,bf16] [--json OUT] [--md OUT]

The tilec kernels are examples/python/row_kernels.py as they are: one row per block, a
masked power-of-two tile, a run-time row count M, N fixed per program, layouts left to
the compiler (`#layout.auto`: `pack-rows` packs short rows, `coalesce` picks threads and
vector widths); rows longer than `row_kernels.ONLINE_ABOVE` are softmaxed in chunks. No
configuration sweep. The Triton kernels below are the same programs in Triton (one
program per row, a masked block of next_pow2(N), the Triton tutorial's num_warps; the
chunked online softmax for long rows). Every result is checked against PyTorch in
float64 before it is timed (the output poisoned with NaN first).

Shapes: N in {128, 768, 1000, 1001, 3072, 4096, 8192, 50257, 131072}, M in {1, 7, 4096,
16384, 65536}, f32 / f16 / bf16; a case whose input and output together pass
`MAX_BYTES` is skipped (and listed). One tilec compile per (kernel, dtype, N): the same
kernel serves every M; the run counts the NVRTC compiles per key (`compiles`, with the
disk cache off) and records them.

Timing: benchmarks/compute_bench.py's method (CUDA-graph replays of 20 launches, inputs
rotated over 256 MiB so no launch finds its input in L2, tilec / peers / cudaMemcpy of
the same bytes interleaved over 5 rounds; medians, and the spread of the round
medians). Bytes moved = the M x N input read and the output written. For M = 1 and 7
the kernels take a few microseconds: the table gives microseconds per launch too, and
the cudaMemcpy of the same bytes there is itself at the launch floor.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples", "python"))
import row_kernels as rk  # noqa: E402

COLS = (128, 768, 1000, 1001, 3072, 4096, 8192, 50257, 131072)
ROWS = (1, 7, 4096, 16384, 65536)
DTYPES = ("f32", "f16", "bf16")
KINDS = ("softmax", "layer_norm", "rms_norm")
QUICK = {"cols": (128, 1000, 4096, 50257), "rows": (7, 4096), "dtypes": ("f32", "f16"), "kinds": ("softmax",)}
ELEM_BYTES = {"f32": 4, "f16": 2, "bf16": 2}
MAX_BYTES = 4 << 30
"""Cases whose input + output pass this are skipped (65536 x 131072 f32 is 64 GiB)."""
GOAL = 0.95
"""The issue's goal: tilec at least this ratio to the cudaMemcpy of its bytes (where a
block has at least 16 KiB in flight), and never below the naive Triton program."""


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


def plan(kinds=KINDS, dtypes=DTYPES, cols=COLS, rows=ROWS) -> list[Key]:
    """The programs to build and the row counts each runs at; rows past MAX_BYTES go to
    `skipped`."""
    out = []
    for kind in kinds:
        for dtype in dtypes:
            for n in cols:
                if kind != "softmax" and n > rk.ONLINE_ABOVE:
                    continue  # only softmax has the chunked form for rows longer than registers hold
                k = Key(kind, dtype, n)
                for m in rows:
                    (k.rows if 2 * m * n * ELEM_BYTES[dtype] <= MAX_BYTES else k.skipped).append(m)
                out.append(k)
    return out


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


def compile_key(key: Key, arch: str | None = None):
    """The one tilec kernel of a key (`arch` compiles for it without a GPU)."""
    import tilec

    return tilec.compile(rk.KERNELS[key.kind](key.n, key.dtype), arch=arch)


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

    def run(kind, x, y, w, b):
        m, n = x.shape
        block = triton.next_power_of_2(n)
        if kind == "softmax" and n > rk.ONLINE_ABOVE:
            softmax_online_kernel[(m,)](y, x, n, CHUNK=rk.CHUNK, num_warps=rk.num_warps(rk.CHUNK))
        elif kind == "softmax":
            softmax_kernel[(m,)](y, x, n, BLOCK=block, num_warps=rk.num_warps(block))
        elif kind == "layer_norm":
            layer_norm_kernel[(m,)](y, x, w, b, n, 1e-5, BLOCK=block, num_warps=rk.num_warps(block))
        else:
            rms_norm_kernel[(m,)](y, x, w, n, 1e-6, BLOCK=block, num_warps=rk.num_warps(block))

    return run


# --------------------------------------------------------------------------- one case


def reference(kind: str, x64, w, b):
    import torch

    if kind == "softmax":
        return torch.softmax(x64, dim=1)
    if kind == "layer_norm":
        return torch.nn.functional.layer_norm(x64, (x64.shape[1],), w.double(), b.double(), 1e-5)
    return x64 * torch.rsqrt((x64 * x64).mean(dim=1, keepdim=True) + 1e-6) * w.double()


def torch_peer(kind: str, x, w, b):
    import torch

    if kind == "softmax":
        return torch.softmax(x, dim=1)
    if kind == "layer_norm":
        return torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, 1e-5)
    return torch.nn.functional.rms_norm(x, (x.shape[1],), w, 1e-6)


TOL = {"f32": dict(atol=1e-6, rtol=1e-5), "f16": dict(atol=1e-4, rtol=1e-2), "bf16": dict(atol=1e-3, rtol=2e-2)}


def run_case(key: Key, m: int, kernel, tri, memcpy: float) -> dict:
    import cupy as cp
    import torch
    from compute_bench import ROTATE_BYTES, _event_times, interleaved
    from copy_bench import tbps

    td = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[key.dtype]
    n = key.n
    nbytes = 2 * m * n * ELEM_BYTES[key.dtype]
    sets = max(1, math.ceil(ROTATE_BYTES / nbytes))
    g = torch.Generator(device="cuda").manual_seed(m * 131 + n)
    x = torch.randn(m, n, device="cuda", generator=g).to(td)
    xs = [x] + [x.clone() for _ in range(sets - 1)]
    ys = [torch.full_like(x, float("nan")) for _ in range(sets)]
    w = torch.randn(n, device="cuda", generator=g).to(td)
    b = torch.randn(n, device="cuda", generator=g).to(td)
    vecs = {"softmax": (), "layer_norm": (w, b), "rms_norm": (w,)}[key.kind]
    ref = reference(key.kind, x.double(), w, b)
    row = {"case": f"{key.name} M={m}", "kind": key.kind, "dtype": key.dtype, "n": n, "m": m,
           "bytes": nbytes, "rotated_sets": sets}

    def tilec_fn(i, s):
        kernel(xs[i], ys[i], *vecs, m, stream=None if s is None else cp.cuda.ExternalStream(s.cuda_stream))

    fns = {"tilec": tilec_fn}
    checks = {"tilec": tilec_fn}
    try:
        torch_peer(key.kind, x, w, b)
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
            ok = bool(torch.allclose(ys[0].double(), ref, **TOL[key.dtype]))
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
    for name in ("tilec", "torch", "triton"):
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


def table(results: list[dict], compiles: dict[str, int], skipped: list[str]) -> str:
    """The markdown table of a run (also what report.py puts in docs/performance.md)."""
    def cell(r, name):
        v = r.get(name)
        if not isinstance(v, dict):
            return "wrong" if r.get(f"{name}_ok") is False else "-"
        return f"{v['ratio_same_bytes']:.2f} ({v['us']:.1f} us)"

    lines = [
        "| case | bytes | cudaMemcpy of them | tilec | PyTorch | Triton (same program) | goal |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        lines.append(f"| {r['case']} | {r['bytes']} | {r['memcpy_same_bytes_tbps']:.2f} TB/s, {r['memcpy_us']:.1f} us "
                     f"| {cell(r, 'tilec')} | {cell(r, 'torch')} | {cell(r, 'triton')} | {verdict(r)} |")
    lines += ["", "Ratios are to the cudaMemcpy of the same bytes in the same run (microseconds per launch in "
              "brackets). NVRTC compiles per tilec program (one serves every M): "
              + ", ".join(f"{k}: {v}" for k, v in compiles.items()) + "."]
    if skipped:
        lines += ["", f"Skipped (input + output above {MAX_BYTES >> 30} GiB): " + ", ".join(skipped) + "."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few shapes (a smoke test)")
    ap.add_argument("--kinds", default=None)
    ap.add_argument("--cols", default=None)
    ap.add_argument("--rows", default=None)
    ap.add_argument("--dtypes", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args(argv)
    base = QUICK if args.quick else {"cols": COLS, "rows": ROWS, "dtypes": DTYPES, "kinds": KINDS}

    def pick(opt, name, conv=str):
        return tuple(conv(v) for v in opt.split(",")) if opt else base[name]

    keys = plan(pick(args.kinds, "kinds"), pick(args.dtypes, "dtypes"), pick(args.cols, "cols", int),
                pick(args.rows, "rows", int))
    import tilec

    if not tilec.gpu_available():
        print("realistic_rows: CuPy with a GPU is required", file=sys.stderr)
        return 1
    import cupy as cp
    import torch
    from copy_bench import GiB, memcpy_tbps

    os.environ.setdefault("TILEC_CACHE", "0")  # count every compile (no kernel from the disk cache)
    memcpy = memcpy_tbps(GiB // 2 if not args.quick else 64 << 20)
    tri = triton_kernels()
    results, compiles, skipped = [], {}, []
    for key in keys:
        skipped += [f"{key.name} M={m}" for m in key.skipped]
        with CompileCounter() as counter:
            kernel = compile_key(key)
            for m in key.rows:
                results.append(run_case(key, m, kernel, tri, memcpy))
                print(json.dumps(results[-1]), flush=True)
                torch.cuda.empty_cache()
        compiles[key.name] = counter.count
    text = table(results, compiles, skipped)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    if args.json:
        from run_info import run_info

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "memcpy_tbps": memcpy, "goal": GOAL, "results": results,
                       "compiles": compiles, "skipped": skipped,
                       "command": "python benchmarks/realistic_rows.py" + (" --quick" if args.quick else "")},
                      f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
