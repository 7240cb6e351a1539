"""Compute benchmarks: row softmax, layer norm (forward) and row cumsum written in tilec,
against PyTorch and Triton's tutorial kernels, as a ratio to cudaMemcpy of the same
bytes in the same run.

    python benchmarks/compute_bench.py [--quick] [--cases softmax,cumsum] [--sweep] [--json OUT] [--md OUT]

For each case (16384 rows x 1024 / 4096 / 16384 columns; f32 and f16 for softmax and
layer norm; f32, and i32 bit-exact, for cumsum): compile the tilec program of
benchmarks/compute_kernels.py for each configuration tried (`--sweep` tries more warps /
rows per block; the best is reported), check it against PyTorch computed in float64
(tolerance in the table's notes), then time it with CUDA events (median, launches queued,
as benchmarks/copy_bench.py) beside `torch.softmax` / `torch.nn.functional.layer_norm` /
`torch.cumsum` and Triton kernels written as the Triton tutorials write them (fused
softmax: one program per row; layer norm: the tutorial's forward kernel).
Bytes moved = read + write of the M x N tensor (layer norm's weight and bias, 2N, are
not counted). Prints one table last.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compute_kernels as ck  # noqa: E402
from copy_bench import GiB, median_ms, memcpy_tbps, tbps  # noqa: E402

try:
    import cupy as cp
except ImportError:  # pragma: no cover - the benchmark needs a GPU machine
    cp = None


def _triton():
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
        # the fused-softmax tutorial's kernel, one program per row
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK_SIZE)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + row * stride + offs, (num / den).to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def layer_norm_kernel(X, Y, W, B, stride, N, eps, BLOCK_SIZE: tl.constexpr):
        # the layer-norm tutorial's forward kernel (without storing mean and rstd)
        row = tl.program_id(0)
        Y += row * stride
        X += row * stride
        _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
            _mean += a
        mean = tl.sum(_mean, axis=0) / N
        _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
            x = tl.where(cols < N, x - mean, 0.)
            _var += x * x
        var = tl.sum(_var, axis=0) / N
        rstd = 1 / tl.sqrt(var + eps)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            w = tl.load(W + cols, mask=mask).to(tl.float32)
            b = tl.load(B + cols, mask=mask).to(tl.float32)
            x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
            y = (x - mean) * rstd * w + b
            tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)

    def softmax(x, y):
        n = x.shape[1]
        block = triton.next_power_of_2(n)
        warps = 4 if block < 2048 else (8 if block < 4096 else 16)
        softmax_kernel[(x.shape[0],)](y, x, x.stride(0), n, BLOCK_SIZE=block, num_warps=warps)

    def layer_norm(x, y, w, b):
        n = x.shape[1]
        block = min(65536 // x.element_size(), triton.next_power_of_2(n))
        warps = min(max(block // 256, 1), 8)
        layer_norm_kernel[(x.shape[0],)](x, y, w, b, x.stride(0), n, 1e-5, BLOCK_SIZE=block, num_warps=warps)

    return softmax, layer_norm


DT = {"f32": np.float32, "f16": np.float16, "i32": np.int32}


def configs(kind: str, n: int, dtype: str, sweep: bool) -> list[dict]:
    """The tilec configurations tried for one case (the default only, without --sweep)."""
    if kind == "cumsum":
        if not sweep:
            return [{}]
        return [{"warps": w, "contiguous": c} for w in (4, 8, 16, 32) for c in (False, True)
                if n // (32 * w) >= 4]
    if not sweep:
        return [{}]
    v = 16 // np.dtype(DT[dtype]).itemsize
    out = []
    for w in (1, 2, 4, 8, 16):
        if v * 32 * w > n:
            continue
        for rows in ((1, 2, 4) if n <= 2048 else (1,)):
            out.append({"warps": w, "rows": rows})
    if n <= 2048:
        # one warp per row, several rows per block: no shared memory in the reductions,
        # and blocks of several warps (a block of one warp caps an SM at 32 warps)
        for rw, rows in ((2, 2), (4, 4), (8, 8), (4, 8)):
            out.append({"warps": 1, "rows": rows, "row_warps": rw})
    return out


def program(kind: str, m: int, n: int, dtype: str, cfg: dict) -> str:
    if kind == "softmax":
        return ck.softmax(m, n, dtype, **cfg)
    if kind == "layer_norm":
        return ck.layer_norm(m, n, dtype, **cfg)
    return ck.cumsum(m, n, dtype, **cfg)


def _with_fmad(k):
    """`k` recompiled with `--fmad=true` (support/target.py's policy is false)."""
    import dataclasses

    from tilec.runtime.launch import Kernel

    cached = getattr(k, "_fmad_twin", None)
    if cached is None:
        a = k.artifact
        cached = k._fmad_twin = Kernel(dataclasses.replace(a, target=dataclasses.replace(a.target, fmad=True)),
                                       arg_specs=[s for s in k.arg_specs if s is not None])
    return cached


def run_case(kind: str, m: int, n: int, dtype: str, memcpy: float, sweep: bool, tri, fmad_too: bool = False) -> dict:
    import torch

    import tilec

    dt = DT[dtype]
    rng = np.random.default_rng(0)
    if dtype == "i32":
        xh = rng.integers(-1000, 1000, size=(m, n)).astype(dt)
    else:
        xh = rng.standard_normal((m, n)).astype(dt)
    x = torch.as_tensor(xh, device="cuda")
    y = torch.empty_like(x)
    wdt = np.float32 if dtype == "i32" else dt  # layer norm's weight and bias: x's type
    w = torch.as_tensor(rng.standard_normal(n).astype(wdt), device="cuda")
    b = torch.as_tensor(rng.standard_normal(n).astype(wdt), device="cuda")
    x64 = x.double()
    if kind == "softmax":
        ref = torch.softmax(x64, dim=1)
        tol = dict(atol=1e-6, rtol=1e-5) if dtype == "f32" else dict(atol=1e-4, rtol=1e-2)
        peers = {"torch.softmax": lambda: torch.softmax(x, dim=1)}
        if tri:
            peers["triton fused-softmax"] = lambda: tri[0](x, y)
    elif kind == "layer_norm":
        ref = torch.nn.functional.layer_norm(x64, (n,), w.double(), b.double(), 1e-5)
        tol = dict(atol=1e-4, rtol=1e-4) if dtype == "f32" else dict(atol=2e-2, rtol=1e-2)
        peers = {"torch layer_norm": lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)}
        if tri:
            peers["triton layer-norm"] = lambda: tri[1](x, y, w, b)
    else:
        ref = torch.cumsum(x64, dim=1)
        # float: the error of a sum of n terms, n * eps * sum |x| at worst; 1e-5 of the
        # running sum of |x| (about 84 eps) is far above what a scan gives in practice
        tol = None if dtype == "i32" else torch.cumsum(x64.abs(), dim=1) * 1e-5
        peers = {"torch.cumsum": lambda: torch.cumsum(x, dim=1)}
    nbytes = 2 * m * n * np.dtype(dt).itemsize
    row = {"case": f"{kind} {dtype} {m}x{n}", "bytes": nbytes, "variants": {}}
    best = None
    for cfg in configs(kind, n, dtype, sweep):
        key = ",".join(f"{k}={v}" for k, v in cfg.items()) or "default"
        try:
            t0 = time.perf_counter()
            k = tilec.compile(program(kind, m, n, dtype, cfg))
            compile_s = time.perf_counter() - t0
            args = (x, y, w, b) if kind == "layer_norm" else (x, y)
            y.fill_(float("nan") if dtype != "i32" else -1)
            k(*args)
            torch.cuda.synchronize()
            got = y.double()
            if dtype == "i32":
                ok = bool(torch.equal(y.long(), ref.long()))
            elif isinstance(tol, dict):
                ok = bool(torch.allclose(got, ref, **tol))
            else:
                ok = bool(((got - ref).abs() <= tol).all())
            speed = tbps(nbytes, median_ms(lambda: k(*args)))
            row["variants"][key] = round(speed, 3) if ok else "WRONG"
            if ok and (best is None or speed > best[0]):
                best = (speed, key, compile_s)
            if fmad_too:  # the same kernel compiled with NVRTC's FMA contraction (not the policy)
                row["variants"][key + " fmad=true"] = round(tbps(nbytes, median_ms(lambda: _with_fmad(k)(*args))), 3)
        except Exception as e:  # one broken configuration must not hide the others
            row["variants"][key] = f"error: {type(e).__name__}: {str(e)[:300]}"
    # the goals are ratios to cudaMemcpy of the bytes moved: the same bytes too
    same = memcpy_tbps(nbytes // 2)
    row["memcpy_same_bytes_tbps"] = round(same, 3)
    if best:
        row.update(tilec_tbps=best[0], ratio=best[0] / memcpy, ratio_same_bytes=best[0] / same,
                   config=best[1], compile_s=round(best[2], 1))
    row["peers"] = {}
    for name, fn in peers.items():
        try:
            fn()
            torch.cuda.synchronize()
            s = tbps(nbytes, median_ms(fn))
            row["peers"][name] = f"{s:.2f} ({s / memcpy:.2f})"
        except Exception as e:
            row["peers"][name] = f"error: {type(e).__name__}: {str(e)[:120]}"
    del x, y, x64, ref
    torch.cuda.empty_cache()
    return row


GOALS = {"softmax": 0.97, "layer_norm": 0.9, "cumsum": 0.9}


def table(results: list[dict], memcpy: float) -> str:
    lines = [
        f"cudaMemcpy device-to-device: {memcpy:.2f} TB/s (read + write)",
        "",
        ("| case | tilec TB/s | ratio to cudaMemcpy | ratio to cudaMemcpy of the same bytes | goal | tilec config "
         "| peers: TB/s (ratio) |"),
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        goal = GOALS[r["case"].split()[0]]
        peers = ", ".join(f"{k} {v}" for k, v in r["peers"].items())
        if "tilec_tbps" not in r:
            lines.append(f"| {r['case']} | error | - | - | {goal} | {r['variants']} | {peers} |")
            continue
        lines.append(f"| {r['case']} | {r['tilec_tbps']:.2f} | {r['ratio']:.3f} | "
                     f"{r['ratio_same_bytes']:.3f} ({r['memcpy_same_bytes_tbps']:.2f} TB/s) | {goal} | "
                     f"{r['config']} | {peers} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2048 rows (a smoke test)")
    ap.add_argument("--cases", default="softmax,layer_norm,cumsum")
    ap.add_argument("--cols", default="1024,4096,16384")
    ap.add_argument("--dtypes", default=None, help="e.g. f16 (default: f32,f16; cumsum f32,i32)")
    ap.add_argument("--sweep", action="store_true", help="try more tilec configurations per case")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    ap.add_argument("--fmad-too", action="store_true",
                    help="also time each kernel compiled with --fmad=true (the FMA policy's cost)")
    args = ap.parse_args(argv)
    if cp is None:
        print("compute_bench: CuPy with a GPU is required", file=sys.stderr)
        return 1
    m = 2048 if args.quick else 16384
    memcpy = memcpy_tbps(GiB // 2 if not args.quick else 64 << 20)
    tri = _triton()
    results = []
    for kind in args.cases.split(","):
        dtypes = ("f32", "f16") if kind != "cumsum" else ("f32", "i32")
        if args.dtypes:
            dtypes = tuple(d for d in dtypes if d in args.dtypes.split(","))
        for dtype in dtypes:
            for n in (int(c) for c in args.cols.split(",")):
                if kind == "cumsum" and dtype == "i32" and n != 4096:
                    continue  # the integer case checks bit-exactness on one shape
                results.append(run_case(kind, m, n, dtype, memcpy, args.sweep, tri, args.fmad_too))
                print(json.dumps(results[-1]), flush=True)
    text = table(results, memcpy)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    stamp = datetime.date.today().isoformat()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev, "date": stamp, "memcpy_tbps": memcpy, "results": results}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"Device: {dev}; date: {stamp}; command: `python benchmarks/compute_bench.py"
                    f"{' --quick' if args.quick else ''}{' --sweep' if args.sweep else ''}`\n\n{text}\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
