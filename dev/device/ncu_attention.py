"""Nsight Compute figures of the flash-attention forward (issue 40): `tilec.attention`
beside torch SDPA's cuDNN backend on the same shape, one kernel launch each, profiled
between `cudaProfilerStart`/`Stop` after a warm-up call (so the compile and the
warm-up are not profiled).

    device run (carry .whl): bash dev/device/ncu_attention.sh [SHAPE ...]

`python3 dev/device/ncu_attention.py IMPL SHAPE` is the profiled process (IMPL tilec,
cudnn or flash (torch's FlashAttention-2 backend); SHAPE BxHxSxD with a trailing c for causal, as benchmarks/attention_bench.py);
`python3 dev/device/ncu_attention.py --summary CSV ...` reads `ncu --csv --page raw`
files and prints one table: duration, SM and tensor-pipe throughput, DRAM throughput,
achieved occupancy, registers, and the warp stall reasons that cost most (cycles per
issued instruction)."""

from __future__ import annotations

import csv
import re
import sys


def profile(impl: str, shape: str) -> None:
    import torch

    causal = shape.endswith("c")
    b, h, s, d = (int(x) for x in shape.rstrip("c").split("x"))
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(3))
    if impl == "tilec":
        import tilec

        def call():
            tilec.attention(q, k, v, causal=causal)
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[impl]

        def call():
            with sdpa_kernel(backend):
                torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    call()
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


STALLS = re.compile(r"smsp__average_warps?_(?:latency_)?issue_stalled_(\w+?)_per_issue_active\.ratio$")
COLUMNS = (  # (heading, column-name pattern), the first match of each
    ("ns", r"^gpu__time_duration\.sum$"),
    ("SM %", r"^sm__throughput\.avg\.pct_of_peak_sustained_elapsed$"),
    ("tensor %", r"^sm__pipe_tensor_cycles_active\.avg\.pct_of_peak_sustained_elapsed$"),
    ("DRAM %", r"^gpu__dram_throughput\.avg\.pct_of_peak_sustained_elapsed$"),
    ("occupancy %", r"^sm__warps_active\.avg\.pct_of_peak_sustained_active$"),
    ("regs", r"^launch__registers_per_thread$"),
    ("issue/cycle", r"^smsp__issue_active\.avg\.per_cycle_active$"),
)


def _number(text: str) -> float:
    return float(text.replace(",", "")) if text else 0.0


def derived(r: dict) -> list[str]:
    """Counts made comparable across kernels run at different clocks: the GPC cycles
    (millions), the warp instructions issued (millions: issue per cycle summed over the
    SM sub-partitions, times the cycles), and the uniform-datapath and LSU (shared
    memory, shuffles) instructions in units of pct-of-peak x megacycles."""
    cycles = _number(r.get("gpc__cycles_elapsed.max", ""))
    issued = _number(r.get("smsp__issue_active.sum.per_cycle_active", "")) * cycles
    pipe = lambda name: _number(r.get(f"sm__inst_executed_pipe_{name}.avg.pct_of_peak_sustained_elapsed", "")) * cycles  # noqa: E731
    return [f"{cycles / 1e6:.2f}", f"{issued / 1e6:.0f}", f"{pipe('uniform') / 1e6:.1f}", f"{pipe('lsu') / 1e6:.1f}"]


DERIVED = ("Mcycles", "M warp inst", "uniform", "LSU")


def summary(paths: list[str]) -> None:
    heads = [h for h, _ in COLUMNS] + list(DERIVED)
    print("| kernel | shape | " + " | ".join(heads) + " | top stalls (cycles per issued instruction) |")
    print("|---|---|" + "---|" * len(heads) + "---|")
    for path in paths:
        with open(path) as f:
            lines = [ln for ln in f if ln.startswith('"')]  # ncu's own ==PROF== lines are not CSV
        rows = list(csv.DictReader(lines))
        rows = [r for r in rows if r.get("ID", "").isdigit()]  # the units row has no ID
        label = path.rsplit("/", 1)[-1].removesuffix(".csv")
        for r in rows:
            cells = []
            for _, pat in COLUMNS:
                key = next((c for c in r if re.match(pat, c)), None)
                cells.append(r[key] if key else "-")
            stalls = sorted(((float(v.replace(",", "")), STALLS.match(c).group(1)) for c, v in r.items()
                             if STALLS.match(c) and v and v.replace(",", "").replace(".", "", 1).isdigit()),
                            reverse=True)[:5]
            name = r.get("Kernel Name", "?")[:28]
            print(f"| {name} | {label} | " + " | ".join(cells + derived(r)) + " | "
                  + ", ".join(f"{n} {v:.2f}" for v, n in stalls) + " |")


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2:])
    else:
        profile(sys.argv[1], sys.argv[2])
