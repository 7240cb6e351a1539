"""Is the queued gap to cuBLAS the power cap? (issue 39, b3k47.) Each kernel of a shape (the
rule's tilec kernel, named configurations forced, cuBLAS) run queued, back to back, for a
window of `--window` seconds, the kernels' windows in turns (A B C A B C ..., the order
rotated each round), while a thread samples the GPU's SM clock and power (`nvidia-smi`, or
NVML through `pynvml` where importable) every few tens of milliseconds. Every tilec result
is first checked against float64 (`matmul_bench.within_bound`).

For each kernel, the medians over its windows (the first `--settle` seconds of a window
left out: the clock and the power follow the load with a lag) of:

- TFLOP/s (events around each batch of queued launches: the kernel's own time),
- the SM clock (MHz) and the power (W) sampled within the window,
- FLOP a clock of the whole GPU (TFLOP/s over MHz: the kernel's work per cycle, the clock
  taken out) and GFLOP/J (TFLOP/s over W).

tilec's TFLOP/s over cuBLAS's = (its FLOP a clock over cuBLAS's) x (its clock over cuBLAS's):
where the clock ratio is under 1 at equal power (the cap), the kernel draws more energy per
FLOP; where the FLOP-a-clock ratio is under 1, the gap is the kernel's cycles.

    python dev/experiments/power_turns.py --shapes 3000x5000x7000,4000 --window 1.2 --rounds 3 \
        --configs "3000x5000x7000=256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr6:cw16" --json OUT/power.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Sampler(threading.Thread):
    """(time, SM MHz, W) samples of the GPU PyTorch uses, every `period` seconds, from NVML
    (`pynvml`) where importable, else one `nvidia-smi` query a sample (its own ~20-50 ms)."""

    def __init__(self, period: float = 0.02):
        super().__init__(daemon=True)
        import torch

        self.period, self.samples, self.stop = period, [], threading.Event()
        uuid = str(torch.cuda.get_device_properties(0).uuid)
        self.device = uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"  # (Thread has an `ident`)
        self.read, self.source = self._nvml() or (self._smi, "nvidia-smi")

    def _nvml(self):
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception:  # noqa: BLE001 - no NVML binding: nvidia-smi
            return None
        h = None
        for ident in (self.device, self.device.encode()):  # bindings take str or bytes
            try:
                h = pynvml.nvmlDeviceGetHandleByUUID(ident)
                break
            except Exception:  # noqa: BLE001 - the other spelling
                continue
        if h is None:
            return None

        def read():
            return (pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                    pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0)
        return read, "NVML"

    def _smi(self):
        out = subprocess.run(["nvidia-smi", "-i", self.device, "--format=csv,noheader,nounits",
                              "--query-gpu=clocks.sm,power.draw.instant"], capture_output=True, text=True,
                             timeout=5).stdout
        if "N/A" in out or "Invalid" in out or not out.strip():
            out = subprocess.run(["nvidia-smi", "-i", self.device, "--format=csv,noheader,nounits",
                                  "--query-gpu=clocks.sm,power.draw"], capture_output=True, text=True,
                                 timeout=5).stdout
        mhz, w = (float(x) for x in out.strip().split(",")[:2])
        return mhz, w

    def run(self):
        while not self.stop.is_set():
            t = time.time()
            try:
                mhz, w = self.read()
            except Exception:  # noqa: BLE001 - a failed read is a missing sample
                mhz = w = None
            if mhz is not None:
                self.samples.append(((t + time.time()) / 2, mhz, w))
            self.stop.wait(max(0.0, self.period - (time.time() - t)))

    def within(self, t0: float, t1: float) -> list[tuple[float, float, float]]:
        return [s for s in self.samples if t0 <= s[0] <= t1]


def window(fn, seconds: float, batch: int = 10) -> tuple[float, float, float]:
    """`fn` queued back to back for `seconds` (batches of `batch` between two events; the
    host never waits but for the batch before the last): (start, end, median ms a launch of
    the batches after the first)."""
    import torch

    t0 = time.time()
    times, pending = [], None
    while time.time() - t0 < seconds:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(batch):
            fn()
        e.record()
        if pending is not None:
            pending[1].synchronize()
            times.append(pending[0].elapsed_time(pending[1]) / batch)
        pending = (s, e)
    pending[1].synchronize()
    times.append(pending[0].elapsed_time(pending[1]) / batch)
    return t0, time.time(), statistics.median(times[1:] or times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="3000x5000x7000,4000", help="MxNxK[t],... (t: B K-major)")
    ap.add_argument("--configs", default="", help="SHAPE=CFG+CFG;...: configurations forced beside the rule")
    ap.add_argument("--window", type=float, default=1.2, help="seconds a kernel's window")
    ap.add_argument("--settle", type=float, default=0.4, help="seconds of a window not sampled")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--end", type=float, default=55.0, help="seconds from the start for the windows to end by")
    ap.add_argument("--json")
    args = ap.parse_args()
    t0 = time.time()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import matmul_bench as mb
    import torch

    import tilec
    from tilec import gemm

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    extra = dict(g.split("=") for g in filter(None, args.configs.split(";")))
    sampler = Sampler()
    sampler.start()
    print(f"import {time.time() - t0:.0f} s; samples from {sampler.source}", flush=True)
    good, rows = True, []
    shapes = args.shapes.split(",")
    for si, text in enumerate(shapes):
        m, n, k, kmajor = mb.shape_of(text)
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        b = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t() if kmajor
             else torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g))
        flops = 2.0 * m * n * k
        rule = gemm.choose_config(m, n, sms, k=k, b_kmajor=kmajor).name
        arms = {}
        for name in [None, *filter(None, extra.get(text, "").split("+"))]:
            config = mb.parse_config(name) if name else None
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            with mb.forced(gemm, config):
                tilec.matmul(a, b, out=c)
                torch.cuda.synchronize()
                ok = bool(mb.within_bound(c, a, b))
            good &= ok

            arms[f"rule {rule}" if name is None else name] = (lambda c=c: tilec.matmul(a, b, out=c), ok, config)
        ct = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        torch.matmul(a, b, out=ct)
        arms["cuBLAS"] = (lambda: torch.matmul(a, b, out=ct), bool(mb.within_bound(ct, a, b)), None)
        left = args.end - (time.time() - t0)
        per_shape = left / (len(shapes) - si)
        rounds = max(1, min(args.rounds, int(per_shape / (args.window * len(arms)))))
        got = {name: [] for name in arms}
        for r in range(rounds):
            for name in mb.rotated(list(arms), r):
                with mb.forced(gemm, arms[name][2]):  # its call cached once, the window's launches alike
                    s, e, ms = window(arms[name][0], args.window)
                got[name].append((ms, sampler.within(s + args.settle, e)))
        print(f"== {text} ({rounds} rounds of {args.window} s windows, {time.time() - t0:.0f} s)", flush=True)
        print(f" {'kernel':<42} TFLOP/s   MHz     W  FLOP/clk  GFLOP/J  (range of the windows' TFLOP/s)")
        shape_rows = []
        for name, wins in got.items():
            tf = [flops / ms / 1e9 for ms, _ in wins]
            mhz = [x[1] for _, smp in wins for x in smp]
            w = [x[2] for _, smp in wins for x in smp]
            row = {"shape": text, "kernel": name, "ok": arms[name][1], "tflops": statistics.median(tf),
                   "tflops_windows": tf, "mhz": statistics.median(mhz) if mhz else None,
                   "watts": statistics.median(w) if w else None, "samples": len(mhz),
                   "samples_raw": [smp for _, smp in wins]}
            if row["mhz"]:
                row["flop_per_clock"] = row["tflops"] * 1e12 / (row["mhz"] * 1e6)  # the whole GPU's
                row["gflop_per_joule"] = row["tflops"] * 1e3 / row["watts"]
            shape_rows.append(row)
        cub = shape_rows[-1]
        for row in shape_rows:
            rel = ""
            if row is not cub and row.get("mhz") and cub.get("mhz"):
                rel = (f" | of cuBLAS: {row['tflops'] / cub['tflops']:.3f} = clk-work "
                       f"{row['flop_per_clock'] / cub['flop_per_clock']:.3f} x MHz {row['mhz'] / cub['mhz']:.3f}"
                       f" (W {row['watts'] / cub['watts']:.3f})")
            label = row["kernel"].replace("256x160x64:4:c32:ow:w128:sp:cl1x2:bp", "R")
            print(f" {label[:42]:<42} {row['tflops']:6.0f} {row['mhz'] or 0:5.0f} {row['watts'] or 0:5.0f} "
                  f"{(row.get('flop_per_clock') or 0) / 1e3:8.0f}k {row.get('gflop_per_joule') or 0:7.0f}  "
                  f"({min(row['tflops_windows']):.0f}-{max(row['tflops_windows']):.0f}){rel}"
                  + ("" if row["ok"] else "  NOT WITHIN THE BOUND"), flush=True)
        rows += shape_rows
    sampler.stop.set()
    if args.json:
        Path(args.json).write_text(json.dumps({"source": sampler.source, "rows": rows}, indent=1))
    print(f"done in {time.time() - t0:.0f} s; every result within the bound: {good}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
