"""Flash-attention configurations A/B'd in one device call (issue 40): each (config,
shape) compiles in a process of its own, in parallel (the compiles, 10-20 s each, would
not fit a short device call one after another), then the processes time one at a time
in turns (a barrier between turns), with torch SDPA's cuDNN and FlashAttention-2 backends
timed in the same turns, `--rounds` rounds. Timing as benchmarks/attention_bench.py's:
the median of 20 calls each between two events, and 20 calls queued; each tilec result
checked against float64 first (`check`: ok / WRONG).

    python3 dev/device/attention_turns.py --shapes 16x16x1024x64 --configs persistent-bn128,persistent-bn64-2x

The configurations are attention_bench.CONFIGS's names; prints TFLOP/s per call (queued)
for each round."""

from __future__ import annotations

import argparse
import os
import queue
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))


def inputs(text):
    import torch
    from attention_bench import parse_shape

    b, h, s, d, causal = parse_shape(text)
    g = torch.Generator(device="cuda").manual_seed(s + d)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    return 4.0 * b * h * s * s * d / (2 if causal else 1), causal, q, k, v


def child(me, n, rounds, name, shapes, bar, out):
    ok = None
    try:
        import torch
        from attention_bench import CONFIGS, check, median_ms, queued_ms

        from tilec.attention_op import attention

        cfg, ok = CONFIGS[name], {}
        for text in shapes:
            _, causal, q, k, v = inputs(text)
            o = attention(q, k, v, causal=causal, config=cfg)
            torch.cuda.synchronize()
            ok[text] = check(o, q, k, v, causal)[0]
            del q, k, v, o
        out.put(("compiled", name, shapes))
    except Exception as e:  # noqa: BLE001 - report and sit the turns out
        out.put(("error", name, shapes, str(e)[:300]))
        ok = None
    bar.wait()
    for r in range(rounds):
        for turn in range(n):
            if turn == me and ok is not None:
                for text in shapes:
                    flops, causal, q, k, v = inputs(text)
                    ob, lb = torch.empty_like(q), torch.empty(q.shape[:3], device="cuda")
                    call = lambda: attention(q, k, v, causal=causal, config=cfg, out=ob, lse=lb)  # noqa: E731, B023
                    t, tq = median_ms(call), queued_ms(call)
                    out.put(("time", name, text, r, flops / t / 1e9, flops / tq / 1e9, ok[text]))
                    del q, k, v, ob, lb
            bar.wait()


def main() -> None:
    import multiprocessing as mp

    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="16x16x1024x64")
    ap.add_argument("--configs", default="persistent-bn128")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    shapes, cfgs = args.shapes.split(","), args.configs.split(",")
    t0 = time.time()
    ctx = mp.get_context("fork")  # before any CUDA use in this process
    jobs = [(c, [s]) for c in cfgs for s in shapes]
    n = len(jobs) + 1
    bar, out = ctx.Barrier(n, timeout=90), ctx.Queue()
    procs = [ctx.Process(target=child, args=(i, n, args.rounds, c, g, bar, out)) for i, (c, g) in enumerate(jobs)]
    for p in procs:
        p.start()
    import torch
    import torch.nn.functional as F
    from attention_bench import median_ms
    from torch.nn.attention import SDPBackend, sdpa_kernel

    res = {}

    def drain():
        while True:
            try:
                m = out.get_nowait()
            except queue.Empty:
                return
            if m[0] == "time":
                _, name, text, r, tf, tfq, ok = m
                res.setdefault((name, text), []).append((tf, tfq, ok))
            elif m[0] == "error":
                print(*m, f"{time.time() - t0:.0f}s", flush=True)

    try:
        bar.wait()
        drain()
        print(f"compiled {time.time() - t0:.0f}s", flush=True)
        for _ in range(args.rounds):
            for turn in range(n):
                if turn == n - 1:
                    for text in shapes:
                        flops, causal, q, k, v = inputs(text)
                        for be, key in ((SDPBackend.CUDNN_ATTENTION, "cudnn"), (SDPBackend.FLASH_ATTENTION, "fa2")):
                            with sdpa_kernel(be):
                                t = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))  # noqa: B023
                            res.setdefault((key, text), []).append((flops / t / 1e9, 0, True))
                        del q, k, v
                bar.wait()
                drain()
    except Exception as e:  # noqa: BLE001 - print what was timed
        print("barrier:", type(e).__name__, str(e)[:200], flush=True)
    time.sleep(0.5)
    drain()
    print(f"timed {time.time() - t0:.0f}s; TFLOP/s per call (queued) by round, ok = checked against float64")
    for text in shapes:
        print(text)
        for key in ["cudnn", "fa2", *cfgs]:
            v = res.get((key, text), [])
            print("  %-34s %s" % (key, "  ".join("%.0f(%.0f)%s" % (a, b, "" if ok else " WRONG") for a, b, ok in v)),
                  flush=True)
    for p in procs:
        p.join(timeout=2)


if __name__ == "__main__":
    main()
