"""The C ring (`GemmConfig.c_ring` / `c_width`, `:cr<R>:cw<W>`) against the rule, in turns, in
one process (benchmarks/matmul_bench.py's `compare` for each group of shapes with its own
configurations: the rule's, each named one, cuBLAS; `--repeat` rounds, the order rotated,
every result checked against float64 first), then, in the time left, the GPU tests named by
`-k`. Prints one short line a configuration: TFLOP/s per call / queued, the ratio to cuBLAS
per call / queued (the rounds' least-most), whether the result was within the bound.
`--warm` instead runs each configuration of the groups once and exits: its kernels compiled
into `$TILEC_CACHE_DIR` by processes beside the GPU tests, so that the timed process's first
calls only build the programs (`--part I/N`: every N-th configuration from the I-th, N such
processes side by side). `--groups 0,2` takes those groups only; `--spec "SHAPE=CFG+CFG@ROUNDS;..."` names
the groups instead of `GROUPS` (`@ROUNDS` left out: 8; `--rounds` overrides both).

    python dev/experiments/c_ring_turns.py --budget 58 --json OUT/turns.json --tests "c_ring and 392"
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE_3K = "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"
RULE_4K = "192x160x64:4:c32:ow:sp"  # the rule's 192 x 160 tile with one C buffer (its rule now adds :cr3)
RULE_GU = "256x160x64:4:c32:ow:w128:sp"
S3_3K = RULE_3K.replace(":4:", ":3:")  # the 256 x 160 tile in 3 stages: room for whole 256 x 32 buffers
S3_GU = RULE_GU.replace(":4:", ":3:")
GROUPS = [  # (shape, configurations beside the rule's, rounds), in the order of what decides most
    # b3k47 (issue 39): each part's wait for the next part's buffer before its own store (`:ce`, one meeting a
    # part): the rule's tile's two 256 x 16 buffers with and without it, four 128 x 16, two 64 x 32 a warpgroup
    # run apart, and six 256 x 16 in a 3-stage ring's freed bytes
    ("3000x5000x7000", [f"{RULE_3K}:cr2:cw16", f"{RULE_3K}:cr2:cw16:ce", f"{RULE_3K}:cr4:cw16:ch128:ce",
                        f"{RULE_3K}:ap:cr2:ch64:ce", f"{S3_3K}:cr6:cw16:ce"], 40),
    # the rule's 192 x 160 tile's three whole buffers (its rule) with the early waits
    ("4000", [f"{RULE_4K}:cr3:ce"], 24),
    # a model shape of the 256 x 160 tile (gate_up, M = 2048, B K-major)
    ("2048x28672x4096t", [f"{RULE_GU}:cr2:cw16", f"{RULE_GU}:cr2:cw16:ce"], 8),
    # sessions 44-45's groups (ring44, pair45) are in benchmarks/NOTES.md
]


def line(row: dict, ref: dict | None) -> str:
    """One configuration's short line: TFLOP/s per call / queued, of cuBLAS per call / queued
    (the rounds' range), then each round's time against the rule's of the same round, per call /
    queued: `x` median (range) and the rounds the rule was ahead."""
    label = row["config"]
    for head, short in ((S3_3K, "S3"), (S3_GU, "S3"), (RULE_3K, "R"), (RULE_4K, "T"), (RULE_GU, "R")):
        label = label.replace(head, short)
    out = f" {label:<17}{row['tflops']:4.0f}/{row['tflops_queued']:4.0f}"
    if ref is not None and row is not ref:
        pc, q = (row["tflops"] / ref["tflops"], row["tflops_queued"] / ref["tflops_queued"])
        rng = [f"({min(x):.3f}-{max(x):.3f})" if x else "" for x in (row.get("rounds_of_cublas"),
                                                                   row.get("rounds_of_cublas_queued"))]
        out += f" {pc:.3f}{rng[0]} / {q:.3f}{rng[1]}"
    if row.get("rounds_of_rule") and not row["config"].startswith("rule"):
        out += " x" + " / x".join(f"{statistics.median(x):.3f}({min(x):.3f}-{max(x):.3f}) {sum(v < 1 for v in x)}"
                                  for x in (row["rounds_of_rule"], row["rounds_of_rule_queued"]))
    return out + ("" if row["ok"] else "  FAIL")


def warm(mb, groups, t0: float, budget: float, part: tuple[int, int] = (0, 1)) -> int:
    """Each group's rule and configurations called once on its shape (compiled into the disk
    cache; nothing checked, nothing timed), until `budget` seconds from `t0`; with `part` (i,
    n) only every n-th of them from the i-th on (n processes compiling side by side)."""
    import torch

    import tilec
    from tilec import gemm

    calls = [(shape, name) for shape, names, _ in groups for name in [None, *names]][part[0]::part[1]]
    for shape, name in calls:
        if time.time() - t0 > budget:
            return 0
        m, n, k, kmajor = mb.shape_of(shape)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16).t() if kmajor else torch.randn(
            k, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        with mb.forced(gemm, None if name is None else mb.parse_config(name)):
            tilec.matmul(a, b, out=c)
        torch.cuda.synchronize()
        print(f"warm {shape} {name or 'rule'} at {time.time() - t0:.0f} s", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=58.0, help="seconds from the start for everything")
    ap.add_argument("--json")
    ap.add_argument("--tests", default="", help="-k of tests/gpu/test_matmul_gpu.py run in the time left")
    ap.add_argument("--groups", default="", help="indices of GROUPS to take (default: all)")
    ap.add_argument("--warm", action="store_true", help="run each configuration once (compile it) and exit")
    ap.add_argument("--part", default="0/1", help="I/N: with --warm, every N-th configuration from the I-th")
    ap.add_argument("--rounds", type=int, default=0, help="rounds of each group instead of its own")
    ap.add_argument("--spec", default="", help="SHAPE=CFG+CFG@ROUNDS;...: the groups instead of GROUPS")
    args = ap.parse_args()
    groups = [GROUPS[int(i)] for i in args.groups.split(",")] if args.groups else GROUPS
    if args.spec:
        groups = []
        for text in args.spec.split(";"):
            shape, _, rest = text.partition("=")
            names, _, rounds = rest.partition("@")
            groups.append((shape, names.split("+") if names else [], int(rounds or 8)))
    groups = [(shape, names, args.rounds or rounds) for shape, names, rounds in groups]
    t0 = time.time()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import matmul_bench as mb
    import torch

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    real_state, calls = mb.gpu_state, [0]

    def state() -> str:  # nvidia-smi at a group's first and every 4th round only (its time)
        calls[0] += 1
        return real_state() if calls[0] % 4 == 1 else "-"

    mb.gpu_state = state
    print(f"import {time.time() - t0:.0f} s", flush=True)
    if args.warm:
        return warm(mb, groups, t0, args.budget, tuple(int(x) for x in args.part.split("/")))
    rows_all, summary, logs = [], [], []
    for shape, names, rounds in groups:
        if time.time() - t0 > args.budget - 14:
            print(f"{shape}: skipped (time)")
            continue
        calls[0] = 0
        with contextlib.redirect_stdout(io.StringIO()) as log:  # compare's JSON lines: into --json's log
            rows = mb.compare([mb.shape_of(shape)], names, (), sms, rounds)
        logs.append(log.getvalue())
        rows_all += rows
        ref = next((r for r in rows if r["config"] == "cuBLAS"), None)
        rule = rows[0]["config"]
        summary.append(f"{shape} ({rounds} rounds, at {time.time() - t0:.0f} s) {rule}; GPU "
                       f"{rows[0].get('gpu_states', [''])[0]}")
        summary += [line(r, ref) for r in rows]
        print("\n".join(summary[-len(rows) - 1:]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows_all, indent=1))
        Path(args.json).with_suffix(".log").write_text("".join(logs))
    ok = all(r["ok"] for r in rows_all)
    left = args.budget - (time.time() - t0)
    if args.tests and left > 8:
        import pytest

        print(f"GPU tests -k '{args.tests}' ({left:.0f} s left) ...", flush=True)
        sys.path.insert(0, str(ROOT / "tests"))

        def stop(*_):  # the budget spent: pytest ends its session as on ^C
            raise KeyboardInterrupt

        signal.signal(signal.SIGALRM, stop)
        signal.alarm(int(left))
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--no-header", "-rfE", "--tb=line",
                              str(ROOT / "tests/gpu/test_matmul_gpu.py"), "-k", args.tests])
        signal.alarm(0)
        text = out.getvalue()
        if args.json:
            Path(args.json).with_name("tests.txt").write_text(text)
        ok = ok and rc == 0
        fails = [x[:120] for x in text.splitlines() if x.startswith(("FAILED", "ERROR"))][:2]
        last = ([x for x in text.splitlines() if x.strip()] or [""])[-1]
        summary.append(f"GPU tests -k '{args.tests}': pytest exit {int(rc)}: {last[-100:]} " + " | ".join(fails))
    print(f"== summary: R = {RULE_3K} (3000x5000x7000) / {RULE_GU} (gate_up), S3 = R in 3 stages, T = {RULE_4K}"
          " (one C buffer); TFLOP/s per call/queued; of cuBLAS per call / queued (rounds' range);"
          " x the rule's same round per call / queued, median (range) rounds the rule was ahead")
    print("\n".join(summary))
    print(f"done in {time.time() - t0:.0f} s, all results within the bound and tests passed: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
