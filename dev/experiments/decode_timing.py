"""How the decode rows of matmul_bench are timed, and what the kernels do alone
(issue 39: decode M <= 128 >= 0.9 of cudaMemcpy bandwidth). matmul_bench times one
call between two events (`median_ms`), which at 10-50 us kernels includes the host's
launch path. This probe times each decode shape three ways, tilec beside cuBLAS
(`torch.matmul(x, w.t())`) and cudaMemcpy of the same bytes: one call (as today), 50
calls queued between two events, and a CUDA graph of 20 calls replayed. At M = 128 it
also forces the swapped kernel with 128 columns (64 rows of N a unit) and its splits,
beside the rule's pick, to see whether the 128 x 128 split-K tile is the limit.

    python3 dev/experiments/decode_timing.py [--json OUT.json]

An experiment: nothing of the product changes. One RESULT line per row, then a table."""

import argparse
import json
import sys
import time
from pathlib import Path

import torch

import tilec
from tilec import gemm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import median_ms  # noqa: E402 - one timing of a call for every benchmark

SHAPES = {"qkv": (6144, 4096), "o": (4096, 4096), "down": (4096, 14336), "gate_up": (28672, 4096)}


def queued_ms(fn, calls: int = 50) -> float:
    """Milliseconds a call when `calls` calls are queued back to back (median of 5)."""
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(5):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(calls):
            fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / calls)
    return sorted(out)[2]


def graph_ms(fn, calls: int = 20) -> float | None:
    """Milliseconds a call replayed from a CUDA graph of `calls` calls (None: capture failed)."""
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn()
        g.replay()
        torch.cuda.synchronize()
        return median_ms(g.replay, reps=10, warmup=2) / calls
    except Exception as e:  # noqa: BLE001 - an experiment reports what failed
        print("graph capture failed:", type(e).__name__, str(e)[:200])
        return None


def memcpy_ms(nbytes: int) -> float:
    src = torch.empty(nbytes // 2, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    return queued_ms(lambda: dst.copy_(src), 20)


def forced(cfg):
    """A context that makes the decode rule pick `cfg`."""
    class _F:
        def __enter__(self):
            self.saved = gemm._decode_config
            gemm._decode_config = lambda *a: cfg
            gemm.forget_cached_calls()

        def __exit__(self, *exc):
            gemm._decode_config = self.saved
            gemm.forget_cached_calls()
    return _F()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    started, rows = time.time(), []
    for m in (1, 16, 128):
        for name, (n, k) in SHAPES.items():
            if time.time() - started > 150:
                break
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            ct = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            nbytes = 2 * (m * k + n * k + m * n)
            mc = memcpy_ms(nbytes)
            rule = gemm.choose_config(m, n, 132, k=k, b_kmajor=True)
            cfgs = [None]
            if m == 128:
                swap = gemm.swap_config(128)
                cfgs += [swap] + gemm.splits(swap, k, 3)
            cub = lambda: torch.matmul(x, w.t(), out=ct)  # noqa: E731,B023
            tc = (median_ms(cub), queued_ms(cub), graph_ms(cub))
            for cfg in cfgs:
                label = rule.name if cfg is None else cfg.name
                fn = lambda: tilec.matmul(x, w.t(), out=c)  # noqa: E731,B023
                try:
                    if cfg is None:
                        fn()
                        tt = (median_ms(fn), queued_ms(fn), graph_ms(fn))
                    else:
                        with forced(cfg):
                            fn()
                            tt = (median_ms(fn), queued_ms(fn), graph_ms(fn))
                    err = (c.double() - x.double() @ w.double().t()).abs().max().item()
                except Exception as e:  # noqa: BLE001 - an experiment reports what failed
                    print("RESULT", json.dumps({"shape": f"{name} M={m}", "config": label, "error": str(e)[:300]}))
                    continue
                r = {"shape": f"{name} M={m}", "config": label, "memcpy_us": mc * 1e3,
                     "tilec_us": [None if t is None else t * 1e3 for t in tt],
                     "cublas_us": [None if t is None else t * 1e3 for t in tc], "max_abs_err": err}
                rows.append(r)
                print("RESULT", json.dumps(r), flush=True)
    print(f"\ndecode timing, bf16, {time.time() - started:.0f} s; ratios: memcpy time / kernel time "
          "(one call | 50 queued | graph)")
    print("| shape | config | memcpy us | tilec us (1/q/g) | tilec ratio q | tilec ratio g | cuBLAS ratio q | cuBLAS ratio g | err |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t, cb, mc = r["tilec_us"], r["cublas_us"], r["memcpy_us"]
        f = lambda v: "-" if v is None else f"{mc / v:.2f}"  # noqa: E731,B023
        print(f"| {r['shape']} | {r['config']} | {mc:.1f} | {'/'.join('-' if v is None else f'{v:.1f}' for v in t)} | "
              f"{f(t[1])} | {f(t[2])} | {f(cb[1])} | {f(cb[2])} | {r['max_abs_err']:.3g} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
