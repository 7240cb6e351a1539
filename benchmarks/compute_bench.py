"""Compute benchmarks: row softmax, layer norm (forward) and row cumsum written in tilec,
against PyTorch and Triton's tutorial kernels, as a ratio to cudaMemcpy of the same
bytes in the same run.

    python benchmarks/compute_bench.py [--quick] [--cases softmax,cumsum] [--sweep] [--json OUT] [--md OUT]

For each case (16384 rows x 1024 / 4096 / 16384 columns; f32 and f16 for softmax and
layer norm; f32, and i32 bit-exact, for cumsum): compile the tilec program of
benchmarks/compute_kernels.py for each configuration tried (`--sweep` tries more warps /
rows per block / forms of exp), check it against PyTorch computed in float64 with the
output poisoned first (tolerance in the table's notes), then time it beside
`torch.softmax` / `torch.nn.functional.layer_norm` / `torch.cumsum`, Triton kernels
written as the Triton tutorials write them (fused softmax: one program per row; layer
norm: the tutorial's forward kernel) and a cudaMemcpy of the same bytes.
Bytes moved = read + write of the M x N tensor (layer norm's weight and bias, 2N, are
not counted).

Timing method (METHOD.md of the device notes): REPS launches of each timed function
(tilec, the peers, the same-bytes cudaMemcpy) are captured in one CUDA graph after
WARMUP launches, and each sample is one replay's time (CUDA events) over REPS: the
host's launch cost (tilec's Python launcher, Triton's) stays out even for the 20 us
kernels of N = 1024, which queued launches timed by events would measure when the host
is the slower side (a function whose capture fails is timed that way, and the row's
`timing` says so). L2 policy: every timed function cycles through `K` copies of its
input and output, K chosen so that the K sets hold at least ROTATE_BYTES (256 MiB,
five times the H100's 50 MiB L2): a launch never finds its input in L2 from an
earlier launch, as a real layer's input would not be. The configurations are ranked
with a short run each (3 replays of 10 launches); the best two are then timed with
the cudaMemcpy and the peers interleaved, ROUNDS rounds of 3 samples each (the order
rotating every round), and each reports the median over all its samples and the
spread of its round medians (max - min over the median): a difference smaller than
the spread is noise. The goal is judged on the ratio to the cudaMemcpy of the same
bytes (the issue's definition); the ratio to a 512 MiB cudaMemcpy (queued launches,
measured at the start and at the end of the run) is given beside it. Prints one table last.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import statistics
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

ROTATE_BYTES = 256 << 20
"""Bytes (inputs + outputs) that the rotated sets of one timed function span at least."""
ROUNDS, REPS, WARMUP = 5, 20, 3


def configs(kind: str, n: int, dtype: str, sweep: bool) -> list[dict]:
    """The tilec configurations tried for one case (the default only, without --sweep).

    softmax and layer norm: warps per row (16-byte accesses, so N / (32 * warps * V)
    accesses per thread), for N = 1024 also several rows per block and one warp per
    row (`row_warps` rows side by side: the reductions stay within a warp, and a block
    of several warps does not cap an SM at 32 resident warps). softmax tries each with
    the exp2 form (exp2(fma(x, log2 e, -max log2 e)), as Triton), layer norm each with
    its last multiply-add as one math.fma; the first also in the plain form."""
    if kind == "cumsum":
        if not sweep:
            return [{}]
        return [{"warps": w, "contiguous": c} for w, c in ((8, True), (8, False), (16, False))
                if n // (32 * w) >= 4]
    if not sweep:
        return [{}]
    v = 16 // np.dtype(DT[dtype]).itemsize
    warps = {1024: (1, 2, 4), 4096: (4, 8, 16)}.get(n, (8, 16))
    out = [{"warps": w} for w in warps if v * 32 * w <= n]
    if n <= 2048:
        out.append({"warps": 4 if v * 128 <= n else 1, "rows": 4})
        out += [{"warps": 1, "rows": rows, "row_warps": rw} for rw, rows in ((4, 4), (4, 8), (8, 8))]
    if kind == "softmax":
        out = [dict(c, exp2=True) for c in out] + [out[0]]
    else:
        out = [dict(c, fma=True) for c in out] + [out[0]]
    return out


def program(kind: str, m: int, n: int, dtype: str, cfg: dict):
    """The module of benchmark `kind` ("softmax", "layer_norm", "cumsum") at M x N of
    `dtype` in configuration `cfg` (benchmarks/compute_kernels.py)."""
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


def _event_times(fn, sets: int, reps: int, warmup: int = WARMUP) -> list[float]:
    """ms of each of `reps` queued launches of fn(i, None), i cycling over the `sets`
    rotated buffer sets; `warmup` launches first. Where the host takes longer to launch
    than the GPU to run, these include the host's time: `Graph` avoids that."""
    for i in range(warmup):
        fn(i % sets, None)
    cp.cuda.Device().synchronize()
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    for i, (start, stop) in enumerate(events):
        start.record()
        fn(i % sets, None)
        stop.record()
    events[-1][1].synchronize()
    return [cp.cuda.get_elapsed_time(a, b) for a, b in events]


class Graph:
    """`reps` launches of fn(i, stream) (i cycling over the rotated sets) captured in one
    CUDA graph (torch.cuda.graph; tilec and the cudaMemcpy launch on its capture stream,
    PyTorch and Triton on PyTorch's current stream, which is that stream), after
    `warmup` launches outside it. `ms()` replays it once and gives the time per launch:
    no host launch cost, however short the kernel (METHOD.md: many small launches)."""

    def __init__(self, fn, sets: int, reps: int = REPS, warmup: int = WARMUP):
        import torch

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(warmup):
                fn(i % sets, side)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph, capture_error_mode="thread_local"):
            stream = torch.cuda.current_stream()
            for i in range(reps):
                fn(i % sets, stream)
        self.reps = reps
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.graph.replay()  # one replay to warm up
        torch.cuda.synchronize()

    def ms(self) -> float:
        self.start.record()
        self.graph.replay()
        self.stop.record()
        self.stop.synchronize()
        return self.start.elapsed_time(self.stop) / self.reps


def _timer(fn, sets: int, reps: int = REPS):
    """A function giving one sample of ms per launch: a graph replay, or (if the
    capture fails) the median of queued launches timed by events."""
    try:
        g = Graph(fn, sets, reps)
        return g.ms, "graph"
    except Exception as e:  # e.g. an op that cannot be captured
        print(f"graph capture failed ({type(e).__name__}: {str(e)[:200]}); timing queued launches", flush=True)
        import torch

        torch.cuda.synchronize()
        return (lambda: statistics.median(_event_times(fn, sets, reps))), "events"


def interleaved(fns: dict, sets: int, rounds: int = ROUNDS, samples_per_round: int = 3) -> dict:
    """name -> (median ms per launch over all samples, spread of the round medians /
    median, "graph" or "events"): each round takes `samples_per_round` samples of every
    function, in an order rotated by one every round."""
    timers = {k: _timer(fn, sets) for k, fn in fns.items()}
    names = list(fns)
    samples: dict = {k: [] for k in names}
    medians: dict = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names):] + names[: r % len(names)]:
            t = [timers[k][0]() for _ in range(samples_per_round)]
            samples[k] += t
            medians[k].append(statistics.median(t))
    out = {}
    for k in names:
        med = statistics.median(samples[k])
        out[k] = (med, (max(medians[k]) - min(medians[k])) / med, timers[k][1])
    return out


def run_case(kind: str, m: int, n: int, dtype: str, memcpy: float, sweep: bool, tri,
             fmad_too: bool = False, only: dict | None = None) -> dict:
    import torch

    import tilec

    dt = DT[dtype]
    rng = np.random.default_rng(0)
    if dtype == "i32":
        xh = rng.integers(-1000, 1000, size=(m, n)).astype(dt)
    else:
        xh = rng.standard_normal((m, n)).astype(dt)
    nbytes = 2 * m * n * np.dtype(dt).itemsize
    sets = max(1, math.ceil(ROTATE_BYTES / nbytes))
    x = torch.as_tensor(xh, device="cuda")
    xs = [x] + [x.clone() for _ in range(sets - 1)]
    ys = [torch.empty_like(x) for _ in range(sets)]
    y = ys[0]
    wdt = np.float32 if dtype == "i32" else dt  # layer norm's weight and bias: x's type
    w = torch.as_tensor(rng.standard_normal(n).astype(wdt), device="cuda")
    b = torch.as_tensor(rng.standard_normal(n).astype(wdt), device="cuda")
    x64 = x.double()
    if kind == "softmax":
        ref = torch.softmax(x64, dim=1)
        tol = dict(atol=1e-6, rtol=1e-5) if dtype == "f32" else dict(atol=1e-4, rtol=1e-2)
        peers = {"torch.softmax": lambda i, s: torch.softmax(xs[i], dim=1)}
        if tri:
            peers["triton fused-softmax"] = lambda i, s: tri[0](xs[i], ys[i])
    elif kind == "layer_norm":
        ref = torch.nn.functional.layer_norm(x64, (n,), w.double(), b.double(), 1e-5)
        tol = dict(atol=1e-4, rtol=1e-4) if dtype == "f32" else dict(atol=2e-2, rtol=1e-2)
        peers = {"torch layer_norm": lambda i, s: torch.nn.functional.layer_norm(xs[i], (n,), w, b, 1e-5)}
        if tri:
            peers["triton layer-norm"] = lambda i, s: tri[1](xs[i], ys[i], w, b)
    else:
        ref = torch.cumsum(x64, dim=1)
        # float: the error of a sum of n terms, n * eps * sum |x| at worst; 1e-5 of the
        # running sum of |x| (about 84 eps) is far above what a scan gives in practice
        tol = None if dtype == "i32" else torch.cumsum(x64.abs(), dim=1) * 1e-5
        peers = {"torch.cumsum": lambda i, s: torch.cumsum(xs[i], dim=1)}
    row = {"case": f"{kind} {dtype} {m}x{n}", "bytes": nbytes, "rotated_sets": sets, "variants": {}}
    ranked = []
    kernels = {}
    cfgs = configs(kind, n, dtype, sweep) if only is None else [only]
    for cfg in cfgs:
        key = ",".join(f"{k}={v}" for k, v in cfg.items()) or "default"
        try:
            t0 = time.perf_counter()
            k = tilec.compile(program(kind, m, n, dtype, cfg))
            compile_s = time.perf_counter() - t0
            y.fill_(float("nan") if dtype != "i32" else -1)
            k(*((x, y, w, b) if kind == "layer_norm" else (x, y)))
            torch.cuda.synchronize()
            got = y.double()
            if dtype == "i32":
                ok = bool(torch.equal(y.long(), ref.long()))
            elif isinstance(tol, dict):
                ok = bool(torch.allclose(got, ref, **tol))
            else:
                ok = bool(((got - ref).abs() <= tol).all())

            def fn(i, s, k=k):
                args = (xs[i], ys[i], w, b) if kind == "layer_norm" else (xs[i], ys[i])
                k(*args, stream=None if s is None else cp.cuda.ExternalStream(s.cuda_stream))

            timer, _ = _timer(fn, sets, 10)
            speed = tbps(nbytes, statistics.median(timer() for _ in range(3)))
            row["variants"][key] = round(speed, 3) if ok else "WRONG"
            if ok:
                ranked.append((speed, key, compile_s))
                kernels[key] = fn
            if fmad_too:  # the same kernel compiled with NVRTC's FMA contraction (not the policy)
                kf = _with_fmad(k)
                args = (x, y, w, b) if kind == "layer_norm" else (x, y)
                row["variants"][key + " fmad=true"] = round(tbps(nbytes, median_ms(
                    lambda kf=kf, args=args: kf(*args))), 3)
        except Exception as e:  # one broken configuration must not hide the others
            row["variants"][key] = f"error: {type(e).__name__}: {str(e)[:300]}"
    ranked.sort(reverse=True)
    fns = {f"tilec {key}": kernels[key] for _, key, _ in ranked[:2]}
    half = nbytes // 2

    def copy(i, s):
        cp.cuda.runtime.memcpyAsync(ys[i].data_ptr(), xs[i].data_ptr(), half,
                                    cp.cuda.runtime.memcpyDeviceToDevice, 0 if s is None else s.cuda_stream)

    fns["cudaMemcpy"] = copy
    for name, fn in peers.items():
        try:
            fn(0, None)
            torch.cuda.synchronize()
            fns[name] = fn
        except Exception as e:
            row.setdefault("peer_errors", {})[name] = f"{type(e).__name__}: {str(e)[:120]}"
    timed = interleaved(fns, sets)
    # a cudaMemcpy captured in a graph is a memcpy node, which ran at 2.43 TB/s for 512
    # MiB and more (against 2.98 queued): the reference is the faster of the two
    queued = statistics.median(_event_times(copy, sets, 30))
    row["memcpy_same_bytes_tbps_graph_queued"] = [round(tbps(nbytes, timed["cudaMemcpy"][0]), 3),
                                                  round(tbps(nbytes, queued), 3)]
    same = tbps(nbytes, min(timed["cudaMemcpy"][0], queued))
    row["memcpy_same_bytes_tbps"] = round(same, 3)
    row["memcpy_same_bytes_spread"] = round(timed["cudaMemcpy"][1], 3)
    row["timing"] = {k: v[2] for k, v in timed.items()}
    best = None
    for _, key, compile_s in ranked[:2]:
        ms, spread, _ = timed[f"tilec {key}"]
        if best is None or ms < best[0]:
            best = (ms, key, compile_s, spread)
    if best:
        speed = tbps(nbytes, best[0])
        row.update(tilec_tbps=speed, ratio=speed / memcpy, ratio_same_bytes=speed / same,
                   spread=round(best[3], 3), config=best[1], compile_s=round(best[2], 1))
    row["peers"] = {}
    for name in peers:
        if name in timed:
            s_ = tbps(nbytes, timed[name][0])
            row["peers"][name] = {"tbps": round(s_, 3), "ratio_same_bytes": round(s_ / same, 3),
                                  "ratio": round(s_ / memcpy, 3), "spread": round(timed[name][1], 3)}
        else:
            row["peers"][name] = row.get("peer_errors", {}).get(name, "error")
    return row  # the buffers go with this frame; main() empties PyTorch's cache


GOALS = {"softmax": 0.97, "layer_norm": 0.9, "cumsum": 0.9}


def table(results: list[dict], memcpy: float, memcpy_end: float | None = None) -> str:
    end = f"; {memcpy_end:.2f} TB/s at the end" if memcpy_end else ""
    lines = [
        f"cudaMemcpy device-to-device, 512 MiB: {memcpy:.2f} TB/s (read + write) at the start{end}",
        "",
        ("| case | tilec TB/s | cudaMemcpy of the same bytes, TB/s | ratio to it (goal) | goal | met "
         "| ratio to 512 MiB cudaMemcpy | spread | tilec config | peers: TB/s (ratio to the same bytes) |"),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        goal = GOALS[r["case"].split()[0]]
        peers = ", ".join(f"{k} {v['tbps']:.2f} ({v['ratio_same_bytes']:.2f})" if isinstance(v, dict)
                          else f"{k} {v}" for k, v in r["peers"].items())
        if "tilec_tbps" not in r:
            lines.append(f"| {r['case']} | error | - | - | {goal} | no | - | - | {r['variants']} | {peers} |")
            continue
        met = "yes" if r["ratio_same_bytes"] >= goal else "no"
        lines.append(f"| {r['case']} | {r['tilec_tbps']:.2f} | {r['memcpy_same_bytes_tbps']:.2f} | "
                     f"{r['ratio_same_bytes']:.3f} | {goal} | {met} | {r['ratio']:.3f} | "
                     f"{100 * r['spread']:.1f}% | {r['config']} | {peers} |")
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
    big = GiB // 2 if not args.quick else 64 << 20
    memcpy = memcpy_tbps(big)
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
                import torch

                torch.cuda.empty_cache()
    memcpy_end = memcpy_tbps(big)
    text = table(results, memcpy, memcpy_end)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    stamp = datetime.date.today().isoformat()
    if args.json:
        from run_info import run_info  # benchmarks/ (this script's folder)

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "memcpy_tbps": memcpy, "memcpy_end_tbps": memcpy_end,
                       "results": results}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"Device: {dev}; date: {stamp}; command: `python benchmarks/compute_bench.py"
                    f"{' --quick' if args.quick else ''}{' --sweep' if args.sweep else ''}`\n\n{text}\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
