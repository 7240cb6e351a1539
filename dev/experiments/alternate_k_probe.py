"""QKV (N 6144, K 4096) at decode M in CUDA graphs over 4 weight copies (each call's weight from
DRAM, as `matmul_bench.py --decode --configs` times), the rule's kernel against named variants
(`+ak`: `GemmConfig.alternate_k`, two consumer warpgroups taking the ring's stages in turn) and
cuBLAS, **in turns**: every graph is built and its result checked (output poisoned, float64
bound) first, then each round replays every graph once, the order rotated each round; the
figure is the median of the rounds and their range. Then the same with one weight (L2-warm,
"one weight": the kernel's time without the DRAM stream of a new weight). After the rounds each
graph is replayed once more into a poisoned output and its last call checked ("ok": both checks;
what a programmatic launch's overlap with the call before would break). `--after-mul`: also graphs
of each call (4 weights) after an elementwise kernel that writes A (`torch.mul(a_src, 1.0, out=a)`,
A's same bits): a decode step's order, where the kernel before the GEMM is not a GEMM.
`--memcpy`: also a cudaMemcpy of the weight's bytes (half of them read, half written: the
weight's bytes moved, matmul_bench's decode table's measure) in graphs of 4 copies, timed in the
same rounds (`memcpy_us`; probe_summary.py: each configuration's fraction of its bandwidth).

    python dev/experiments/alternate_k_probe.py [--tokens 128,100] [--configs +ak] [--rounds 15] [--after-mul]
        [--profile-cublas] [--memcpy] [--json OUT]
    python dev/experiments/alternate_k_probe.py --cases "128x6144x4096/CONFIG 72x14336x4096/CONFIG/CONFIG" ...

`--json`: each M's medians and ranges and each round's times (`<kind>_rounds`, the ratios
within a round: `probe_summary.py`); `--profile-cublas`: cuBLAS's kernels a call at each M.

A variant that does not build is said and left out. An experiment: nothing of the product
changes (issue 39, benchmarks/NOTES.md, qkv44; dec44: the stage counts, K steps of 128)."""

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch

import tilec
from tilec import gemm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from compute_bench import Graph  # noqa: E402 - benchmarks/
from matmul_bench import ROTATE, forced, rotated, variant, within_bound  # noqa: E402

GRAPH_CALLS = 20


def cublas_kernels(call) -> list[dict]:
    """The GPU kernels one `call()` launches (after a warm call), from torch.profiler's trace:
    each its name and the launch shape the trace records (grid, block, registers per thread,
    shared memory; a field the trace lacks is left out)."""
    import tempfile

    from torch.profiler import ProfilerActivity, profile

    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        events = json.load(open(f.name)).get("traceEvents", [])
    keys = ("grid", "block", "registers per thread", "shared memory", "cluster", "blocks per SM")
    return [{"name": e.get("name"), **{x: e["args"][x] for x in keys if x in e.get("args", {})}}
            for e in events if e.get("cat") == "kernel"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", default="128,100")
    ap.add_argument("--configs", default="+ak")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--n", type=int, default=6144)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--json")
    ap.add_argument("--profile-cublas", action="store_true",
                    help="also cuBLAS's kernels a call at each M: name, grid, block, registers, shared memory")
    ap.add_argument("--after-mul", action="store_true",
                    help="also graphs of each call after an elementwise kernel writing A (a decode step's order)")
    ap.add_argument("--memcpy", action="store_true",
                    help="also a cudaMemcpy of the weight's bytes in the same rounds (memcpy_us)")
    ap.add_argument("--cases", help="'MxNxK/CONFIG/CONFIG ...' (space-separated): these shapes, each with its own "
                                    "configurations, in place of --tokens, --n, --k and --configs")
    args = ap.parse_args()
    if args.cases:
        cases = [(*(int(v) for v in c.split("/")[0].split("x")), c.split("/")[1:]) for c in args.cases.split()]
    else:
        cases = [(int(m), args.n, args.k, args.configs.split(",")) for m in args.tokens.split(",")]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    out, weights = [], {}
    for m, n, k, names in cases:
        if (n, k) not in weights:  # one shape's weights at a time
            weights.clear()
            g = torch.Generator(device="cuda").manual_seed(n + k)
            weights[n, k] = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(ROTATE)]
        ws = weights[n, k]
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        rule = gemm.choose_config(m, n, sms, k=k, b_kmajor=True)
        cfgs = {f"{rule.name} (rule)": None}
        for name in names:
            cfg = variant(name, rule)
            if cfg:
                cfgs[cfg.name] = cfg
        a_src = a.clone()
        graphs, warm, after, checks, outs = {}, {}, {}, {}, {}

        def build(label, mm, c) -> None:
            mm(a, ws[0].t(), c)
            torch.cuda.synchronize()
            checks[label] = within_bound(c, a, ws[0].t())
            outs[label] = c
            graphs[label] = Graph(lambda i, _s: mm(a, ws[i].t(), c), ROTATE, reps=GRAPH_CALLS, warmup=ROTATE)
            warm[label] = Graph(lambda i, _s: mm(a, ws[0].t(), c), 1, reps=GRAPH_CALLS, warmup=1)
            if args.after_mul:  # A written by the kernel before each call (x * 1: A's same bits)
                after[label] = Graph(lambda i, _s: (torch.mul(a_src, 1.0, out=a), mm(a, ws[i].t(), c)), ROTATE,
                                     reps=GRAPH_CALLS, warmup=ROTATE)

        for label, cfg in cfgs.items():
            try:
                with forced(gemm, cfg):
                    build(label, lambda a, b, c: tilec.matmul(a, b, out=c),
                          torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16))
            except Exception as e:  # noqa: BLE001 - a variant that does not build is said, the rest run
                print(f"M={m} {label}: not built: {str(e)[-200:]}", flush=True)
        build("cuBLAS", lambda a, b, c: torch.matmul(a, b, out=c), torch.empty(m, n, device="cuda",
                                                                               dtype=torch.bfloat16))
        if args.memcpy:  # the weight's bytes moved (n k / 2 elements read and written), 4 buffers in turn
            src = [torch.empty(n * k // 2, device="cuda", dtype=torch.bfloat16) for _ in range(ROTATE)]
            dst = [torch.empty_like(x) for x in src]
            graphs["memcpy"] = Graph(lambda i, _s: dst[i].copy_(src[i]), ROTATE, reps=GRAPH_CALLS, warmup=ROTATE)
        row = {"m": m, "n": n, "k": k, "configs": {}}
        if args.profile_cublas:  # cuBLAS's kernels for this M: names and launch shapes (torch.profiler)
            try:
                row["cublas_kernels"] = cublas_kernels(lambda: torch.matmul(a, ws[0].t(), out=outs["cuBLAS"]))
            except Exception as e:  # noqa: BLE001 - the profile is an aside: the rounds run without it
                row["cublas_kernels"] = [{"error": str(e)[-200:]}]
            for kern in row["cublas_kernels"]:
                print(f"M={m} cuBLAS kernel: {kern}", flush=True)
        kinds = [("graphs_us", graphs), ("one_weight_us", warm)] + ([("after_mul_us", after)] if after else [])
        for kind, gs in kinds:
            names = list(gs)
            times = {x: [] for x in names}
            for r in range(args.rounds):
                for x in rotated(names, r):
                    times[x].append(1000 * gs[x].ms())
            if "memcpy" in times:  # not a configuration: its own field
                t = times.pop("memcpy")
                row["memcpy_us"], row["memcpy_us_rounds"] = (statistics.median(t), min(t), max(t)), t
            for x in times:
                t = times[x]
                row["configs"].setdefault(x, {"ok": checks[x]})[kind] = (statistics.median(t), min(t), max(t))
                row["configs"][x][f"{kind}_rounds"] = t  # each round's, for ratios within a round
        for x, c in outs.items():  # after the rounds: each graph's last call checked (PDL's overlaps included)
            last = ws[(GRAPH_CALLS - 1) % ROTATE]
            for gs, w in ((graphs, last), (warm, ws[0]), (after, last)):
                if x not in gs:
                    continue
                c.fill_(float("nan"))
                gs[x].graph.replay()
                torch.cuda.synchronize()
                row["configs"][x]["ok"] = row["configs"][x]["ok"] and bool(within_bound(c, a, w.t()))
        cb = row["configs"]["cuBLAS"]
        graphs.pop("memcpy", None)
        print(f"M={m}: us, median [min-max] of {args.rounds} rounds in turns (of cuBLAS)"
              + (f"; memcpy of the weight's bytes {row['memcpy_us'][0]:.2f}" if "memcpy_us" in row else ""))
        for x, v in row["configs"].items():
            gm, gl, gh = v["graphs_us"]
            wm, wl, wh = v["one_weight_us"]
            print(f" {x}: graphs {gm:.2f} [{gl:.2f}-{gh:.2f}] ({cb['graphs_us'][0] / gm:.3f}); "
                  f"1 weight {wm:.2f} [{wl:.2f}-{wh:.2f}] ({cb['one_weight_us'][0] / wm:.3f}) "
                  + (f"after a mul {v['after_mul_us'][0]:.2f} ({cb['after_mul_us'][0] / v['after_mul_us'][0]:.3f}) "
                     if after else "") + f"{'ok' if v['ok'] else 'FAIL'}", flush=True)
        out.append(row)
        if args.json:  # after each M: what a time limit cuts off later keeps the rows before
            Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
