"""`tilec.matmul` against cuBLAS (`torch.matmul`) and Triton's tutorial matmul, bf16 in,
f32 accumulation, bf16 out, on the shapes a model has: 4000^3, 3000 x 5000 x 7000, the
Llama-3-8B projections (QKV 4096 -> 6144, O 4096 -> 4096, gate+up 4096 -> 28672, down
14336 -> 4096; `x @ w.t()` with w (N, K) as `torch.nn.Linear` holds it) at M (tokens)
in {1, 16, 128, 2048, 8192}, and the epilogue bias + SiLU
(+ the cast to bf16) against the plain GEMM of the same shape.

    python benchmarks/matmul_bench.py [--quick | --decode | --fp8] [--no-triton] [--json OUT] [--md OUT]
    python benchmarks/matmul_bench.py --shapes 3000x5000x7000,4000 [--configs NAME,...] [--epilogue]
    python benchmarks/matmul_bench.py --decode --configs NAME,... [--tokens 1,16] [--shapes qkv,o] [--budget S]

`--decode`: the decode sizes only (the projections at M in {1, 8, 16, 64, 128}, no
4000^3 rows, epilogue or FP8 rows; about a minute), and each row whose configuration
splits K (docs/matmul.md, "Decode sizes") also timed with the configuration the rule
takes without splits (`MAX_SPLIT_K` = 1): the "unsplit" columns. A decode GEMM takes
a few microseconds on the GPU, less than `tilec.matmul`'s Python launch path, so
events around one call measure the host as much as the kernels; `--decode` also
reports the kernels' own time (`device_ms`: the sum of the CUDA kernels' durations
per call, torch.profiler) as "device" GB/s, and the host's time of one call.

Every result is checked first, output poisoned with NaN, against float64 within the
bound of docs/matmul.md (tilec's, cuBLAS's and Triton's alike). Times: the median of
CUDA events around single calls, tilec's and cuBLAS's taking turns call by call
(`per_call_in_turns`: both see the GPU equally warm; until session 37 each was timed
alone, tilec's 20 calls then cuBLAS's) (Triton: `do_bench`'s median), TFLOP/s = 2MNK / t;
for M <= 128 also GB/s of the bytes a GEMM must move (A, B, C). "first call" is
tilec's first call of a shape's kernel (build, passes, NVRTC through the disk cache,
launch); "kernels" is the kernels that shape's first call compiled, then in brackets
all compiled so far (the count after 3000x5000x7000 was read as two kernels for that
shape: it compiles one, 4000^3's is the other): a new M of a cached (N, K,
configuration) compiles nothing. Runs in about two minutes on an H200.

`--decode --configs NAME,...`: the decode rows timed as a model's decode step runs
them instead, each row beside the named configurations forced in place of the rule's
(`parse_config`: `64x16x64:8:swapAB:splitK4:p1`, a name of `CONFIGS`, ...; `+p1`: the
rule's swapped configuration persistent, `variant`): a CUDA graph
of 20 calls over 4 copies of the weight in turn (so that the weight comes from DRAM,
not from L2 as a repeated call of a 32 MB weight would), the kernels' time per call,
beside `torch.matmul`'s in the same graph form and cudaMemcpy of the weight's bytes
(a device-to-device copy of N K / 2 bf16: N K bytes read and N K written, the
weight's 2 N K bytes in all; 4 buffers in turn, in a graph): "of memcpy" is the
copy's time over the GEMM's, the issue-39 goal 0.9.
`--tokens 1,16,128` and `--shapes qkv,o` choose the rows, `--budget S` stops starting
rows and configurations after S seconds. Every configuration's result is checked as
above (the output poisoned first).

`--fp8`: the FP8 rows only (below; well under two minutes); with `--shapes` at those
shapes instead, with `--configs` each named configuration forced beside the rule's
(`f8:` names in the per-tensor rows, `f8b:` names in the block-scaled rows; only the
kinds named: `--fp8 --shapes 4096,8192 --configs f8b:128x256x128:4:c128:part1` times
the block-scaled rows only), per call and queued.

`--shapes`: those shapes only (`MxNxK`, or `N` for N^3; B row-major; `MxNxKt`: B = w.t(),
K-major, as the model rows), each timed with
the rule's configuration, with each of `--configs` (names of `tilec.gemm.CONFIGS`; a
`:ov` suffix: the same with `overlap_epilogue`, `GemmConfig.overlap`; `:nov`: without;
`:cpa`, `:cpb`, `:cpab`: A, B or both loaded by cp.async, `GemmConfig.cp_async`; a
name without one loads both with the TMA, whatever the rule takes)
and with cuBLAS, per call (events around one call, the host's launch path included)
and queued (the mean of 20 calls between two events: the kernels' own throughput),
every result checked; `--epilogue` times each configuration with bias + SiLU (+ the cast) beside
its plain GEMM instead (`--epilogue silu,silu_tanh`: a row for each activation, each with
the bias, beside the same plain figure), the plain and epilogue kernels of a configuration
timed in turns, call by call (`per_call_in_turns`) and queued. `--repeat R`: R rounds of
timing in which the configurations take turns (the order rotated each round), each figure
the median of its rounds, and beside each ratio to cuBLAS the least and the most of the
rounds' own ratios (each round's figure over cuBLAS's of the same round: the spread of the
comparison), then the GPU's SM clock, power, temperature and clock event reasons at the start
of each round and at the end (`gpu_state`, nvidia-smi; 0x4: the power cap held the clock): a long GEMM (8192 x 28672 x 4096: 2.5 ms) slows the GPU as it
heats (queued 20 calls measured 12-18% slower than single calls in one run), so kernels
timed one after the other are not compared alike. A comparison for one device call (no
Triton, FP8 or decode rows). The default table's epilogue line is this comparison of the
rule's configuration with `silu` and `silu_tanh` (`EPILOGUE_SHAPE`, `EPILOGUE_ROUNDS`
rounds): until session 34 it
timed the plain kernel's 20 calls, then the epilogue's, after the whole table, on the
hottest GPU of the run, and read +16-20% where `--epilogue` read +5-6%.

FP8 rows (`FP8_SHAPES`, 4096^3 and 8192^3): float8_e4m3fn A (M, K) and B = w.t() (w
(N, K)), per-tensor scales, bf16 out: `tilec.matmul(a, w.t(), scale_a=, scale_b=)`
beside `torch._scaled_mm` (cuBLASLt), both checked against float64 within docs/matmul.md's
FP8 bound (`fp8_within_bound`). Block-scaled FP8 rows at the same shapes: scale_a (M,
K/128) and scale_b (N/128, K/128) f32 (DeepSeek-V3's), checked within the block-scaled
bound (`block_fp8_within_bound`), beside `torch._scaled_mm` with per-tensor scales (the
closest vendor figure: PyTorch's cuBLASLt path has no 128 x 128 block scales).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_bench import median_ms, parse_size, queued_ms, triton_matmul  # noqa: E402 - this folder

LLAMA = {"qkv": (6144, 4096), "o": (4096, 4096), "gate_up": (28672, 4096), "down": (4096, 14336)}
"""Llama-3-8B's projections, (N, K)."""

TOKENS = (1, 16, 128, 2048, 8192)

DECODE_TOKENS = (1, 8, 16, 64, 128)
"""M of `--decode`'s rows."""

FP8_SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192))
"""The FP8 rows: M, N, K."""

EPILOGUE_SHAPE = (8192, 28672, 4096)
"""The epilogue line's shape (Llama-3-8B's gate+up at 8192 tokens, B row-major)."""

EPILOGUE_ROUNDS = 15
"""Rounds of the epilogue line's timing in turns (`compare`'s `repeat`). Three rounds' spread
(epi48: +2.4-4.2% per call over plain) was wider than the distance to the goal's 3%: the line is
each round's paired ratio's median with the rounds' range (`overhead_spread`), ~0.45 s a round."""


def within_bound(got, a, b, bias=None, act=None):
    """docs/matmul.md's bound, in float64 on the GPU: whether every element is within."""
    import torch

    from tilec.dialects.layout_mma import mma_error_bound

    a64, b64 = a.double(), b.double()
    z = a64 @ b64
    mag = a64.abs() @ b64.abs()
    if bias is not None:
        z = z + bias.double()[None, :]
    y = z * torch.sigmoid(z) if act in ("silu", "silu_tanh") else z
    slope = 1.1 if act in ("silu", "silu_tanh") else 1.0
    gamma, _ = mma_error_bound(a.shape[1], "bf16")
    d0 = gamma * mag + 2.0**-22 * (mag + (bias.double().abs()[None, :] if bias is not None else 0.0))
    d = slope * d0 + 2.0**-20 * (y.abs() + 1.0)
    if act == "silu_tanh":  # tanh.approx's absolute error at z / 2 (docs/matmul.md)
        d = d + 2.0**-11 * (z.abs() + d0)
    got = got.double()
    return bool(torch.isfinite(got).all()) and bool(((got - y).abs() <= d + 2.0**-8 * (y.abs() + d)).all())


def fp8_within_bound(got, a, w, s):
    """docs/matmul.md's FP8 bound in float64 on the GPU: (a @ w.t()) s, fp8 accumulation's
    gamma (`mma_error_bound(K, "e4m3")`), the scale's f32 roundings, one bf16 rounding."""
    import torch

    from tilec.dialects.layout_mma import mma_error_bound

    a64, b64 = a.double(), w.double().t()
    y = (a64 @ b64) * s
    mag = (a64.abs() @ b64.abs()) * abs(s)
    gamma, _ = mma_error_bound(a.shape[1], "e4m3")
    d = gamma * mag + 2.0**-22 * y.abs() + 2.0**-20 * (y.abs() + 1.0)
    got = got.double()
    return bool(torch.isfinite(got).all()) and bool(((got - y).abs() <= d + 2.0**-8 * (y.abs() + d)).all())


def block_fp8_within_bound(got, a, w, sa, sb):
    """docs/matmul.md's block-scaled FP8 bound in float64 on the GPU: the sum over K
    blocks of (a_kb @ w_kb.t()) sa[:, kb] sb[n / 128, kb], each block's fp8 accumulation
    within gamma_128 (`mma_error_bound(128, "e4m3")`), the scales' products and the
    blocks' sum in f32 (gamma_{KB+2}), one bf16 rounding."""
    import torch

    from tilec.dialects.layout_mma import mma_error_bound

    a64, w64 = a.double(), w.double()
    n = w.shape[0]
    z = torch.zeros(a.shape[0], n, device=a.device, dtype=torch.float64)
    mag = torch.zeros_like(z)
    for kb in range(sa.shape[1]):
        ks = slice(kb * 128, (kb + 1) * 128)
        s = sa[:, kb, None].double() * sb[:, kb].double().repeat_interleave(128)[None, :n]
        z += (a64[:, ks] @ w64[:, ks].t()) * s
        mag += (a64[:, ks].abs() @ w64[:, ks].abs().t()) * s.abs()
    g1, _ = mma_error_bound(128, "e4m3")
    g2, _ = mma_error_bound(sa.shape[1] + 2, "bf16")
    d = (g1 + g2 + g1 * g2) * mag + 2.0**-22 * z.abs() + 2.0**-20 * (z.abs() + 1.0)
    got = got.double()
    return bool(torch.isfinite(got).all()) and bool(((got - z).abs() <= d + 2.0**-8 * (z.abs() + d)).all())


def fp8_rows(sms: int, shapes=FP8_SHAPES, names: tuple[str, ...] = ()) -> list[dict]:
    """The FP8 rows: tilec.matmul beside torch._scaled_mm (module docstring), at `shapes`
    (M, N, K); per shape the per-tensor row and the block-scaled row with the rule's
    configuration, each followed by one row per name of `names` forced in its place
    (`parse_config`: an `f8:` name per-tensor, an `f8b:` name block-scaled; with names,
    only the kinds they name have rows). Times per
    call (`tilec_tflops`, `ratio`) and queued (`tilec_tflops_queued`, `ratio_queued`:
    20 calls between two events, the kernels' own throughput), `_scaled_mm`'s alike."""
    import torch

    import tilec
    from tilec import gemm

    forced_cfgs = [parse_config(x) for x in names]
    out = []
    for m, n, k in shapes:
        g = torch.Generator(device="cuda").manual_seed(m + 7)
        a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        sa, sb = torch.tensor(0.37, device="cuda"), torch.tensor(1.9, device="cuda")
        s = float(sa) * float(sb)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        ref = torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        vendor = {"scaled_mm_ok": fp8_within_bound(ref, a, w, s)}
        mm = lambda: torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)  # noqa: B023, E731
        vendor["scaled_mm_tflops"] = flops / median_ms(mm) / 1e9
        vendor["scaled_mm_tflops_queued"] = flops / queued_ms(mm) / 1e9
        kb, nb = -(-k // 128), -(-n // 128)
        bsa = 0.5 + torch.rand(m, kb, device="cuda", generator=g)
        bsb = 0.5 + torch.rand(nb, kb, device="cuda", generator=g)
        kinds = [("fp8 e4m3", sa, sb, lambda got: fp8_within_bound(got, a, w, s), False),  # noqa: B023
                 ("fp8 e4m3 block-scaled", bsa, bsb,
                  lambda got: block_fp8_within_bound(got, a, w, bsa, bsb), True)]  # noqa: B023
        for label, xa, xb, check, block in kinds:
            if forced_cfgs and not any(x.block_scales == block for x in forced_cfgs):
                continue
            rule = gemm.choose_config(m, n, sms, k=k, fp8=True, block_scales=block, b_kmajor=True)
            for cfg in [None] + [x for x in forced_cfgs if x.block_scales == block]:
                with forced(gemm, cfg):
                    c.fill_(float("nan"))
                    t0 = time.time()
                    tilec.matmul(a, w.t(), scale_a=xa, scale_b=xb, out=c)
                    torch.cuda.synchronize()
                    row = {"case": f"{label} {m}x{n}x{k}", "m": m, "n": n, "k": k,
                           "config": (cfg or rule).name + ("" if cfg else " (rule)"),
                           "first_call_s": time.time() - t0, "tilec_ok": check(c)}
                    fn = lambda: tilec.matmul(a, w.t(), scale_a=xa, scale_b=xb, out=c)  # noqa: B023, E731
                    row["tilec_tflops"] = flops / median_ms(fn) / 1e9
                    row["tilec_tflops_queued"] = flops / queued_ms(fn) / 1e9
                row.update(vendor)
                row["ratio"] = row["tilec_tflops"] / row["scaled_mm_tflops"]
                row["ratio_queued"] = row["tilec_tflops_queued"] / row["scaled_mm_tflops_queued"]
                out.append(row)
                print(_short(row), flush=True)
    return out


class forced:  # noqa: N801 - used as `with forced(gemm, config):`
    """`gemm.choose_config` returns `config` (None: the rule's) while inside; the cached
    calls forgotten on the way in and out (as `unsplit`)."""

    def __init__(self, gemm, config) -> None:
        self.gemm, self.config, self.saved = gemm, config, gemm.choose_config

    def __enter__(self) -> None:
        if self.config is not None:
            self.gemm.choose_config = lambda *a, **kw: self.config
        self.gemm.forget_cached_calls()

    def __exit__(self, *exc) -> None:
        self.gemm.choose_config = self.saved
        self.gemm.forget_cached_calls()


def rotated(items: list, r: int) -> list:
    """`items` rotated left by `r` (mod their number): the order of round `r` when
    things take turns, so that each is timed first, second, ... equally often."""
    r %= max(len(items), 1)
    return items[r:] + items[:r]


def per_call_in_turns(fns: dict, start: int = 0, reps: int = 20, warmup: int = 3) -> dict:
    """The median time in ms of one call of each of `fns` (name -> callable), the calls
    interleaved: `reps` rounds, each calling every function once between its own two
    events, in `rotated(names, start + i)` order (after `warmup` calls of each). Two
    kernels so compared see the same GPU: one timed after the other (as `median_ms` of
    one, then of the other) meets a GPU that has heated or cooled in between."""
    import torch

    names = list(fns)
    for _ in range(warmup):
        for name in names:
            fns[name]()
    times: dict = {name: [] for name in names}
    for i in range(reps):
        for name in rotated(names, start + i):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            s.record()
            fns[name]()
            e.record()
            e.synchronize()
            times[name].append(s.elapsed_time(e))
    return {name: sorted(t)[len(t) // 2] for name, t in times.items()}


def gpu_state() -> str:
    """The GPU's SM clock (MHz), power draw (W), temperature (C) and active clock event
    reasons (nvidia-smi's bit mask: 0x4 the power cap, 0x20 / 0x40 thermal slowdown) now, as
    `nvidia-smi` reports them for the device PyTorch uses; "" where nvidia-smi fails. Recorded
    each round of `compare`, so that a reading says whether the power cap moved the clock."""
    import subprocess

    import torch

    try:
        uuid = str(torch.cuda.get_device_properties(0).uuid)
        ident = uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"
        out = subprocess.run(["nvidia-smi", "-i", ident, "--format=csv,noheader,nounits",
                              "--query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001 - no nvidia-smi: no state
        return ""
    return " ".join(x.strip() for x in out.split(","))


def compare(shapes: list[tuple[int, int, int]], names: list[str], epilogue, sms: int,
            repeat: int = 1) -> list[dict]:
    """`--shapes`' rows (the module docstring): per shape, the rule's configuration and
    each of `names`, then cuBLAS; TFLOP/s per call and queued; with `epilogue` (True:
    ("silu",); or activations, each with the bias; "bias": the bias alone), each
    configuration's time with the bias and each activation (and the cast) beside its
    plain one instead of cuBLAS's:
    a row per configuration and activation. Each is run and checked first; then timed
    `repeat` rounds, the configurations taking turns (`rotated`: the order rotated each
    round, so that a GPU slowing as it heats up weighs on all alike). Within a
    configuration its plain and epilogue kernels are timed in turns as well, call by call
    (`per_call_in_turns`) and queued (each `queued_ms` in rotated order). Each figure is
    the median of its rounds; an epilogue row's cost over plain (`overhead`, `overhead_queued`)
    the median of each round's paired cost, with the rounds' range (`overhead_spread`)."""
    import statistics

    import torch

    import tilec
    from tilec import gemm

    acts = [] if not epilogue else ["silu"] if epilogue is True else list(epilogue)
    rows = []
    for m, n, k, *kmajor in shapes:
        kmajor = bool(kmajor and kmajor[0])
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        if kmajor:  # x @ w.t(), w (N, K) as torch.nn.Linear holds it
            b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t()
        else:
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        rule = gemm.choose_config(m, n, sms, k=k, b_kmajor=kmajor).name
        shape = f"{m}x{n}x{k}" + ("t" if kmajor else "")
        variants = [(f"rule ({rule})", None)] + [(name, parse_config(name)) for name in names]
        shape_rows = {}
        for label, config in variants:
            with forced(gemm, config):
                for act in acts or [None]:
                    kw = {"bias": bias, "activation": None if act == "bias" else act} if act else {}
                    c.fill_(float("nan"))
                    t0 = time.time()
                    tilec.matmul(a, b, out=c, **kw)
                    torch.cuda.synchronize()
                    shape_rows[label, act] = {"shape": shape, "config": label,
                                              **({"epilogue": "bias" if act == "bias" else f"bias+{act}"}
                                                 if act else {}),
                                              "first_call_s": time.time() - t0,
                                              "ok": within_bound(c, a, b, bias if act else None,
                                                                 None if act == "bias" else act)}
        if not acts:
            ct = torch.matmul(a, b)
            shape_rows["cuBLAS", None] = {"shape": shape, "config": "cuBLAS", "ok": within_bound(ct, a, b)}
            variants.append(("cuBLAS", None))
        samples: dict = {label: {} for label, _ in variants}
        states = []
        for r in range(repeat):
            states.append(gpu_state())
            for label, config in rotated(variants, r):
                if label == "cuBLAS":
                    timed = {None: lambda: torch.matmul(a, b, out=ct)}  # noqa: B023 - run now
                else:
                    timed = {act: (lambda act=act: tilec.matmul(a, b, out=c, bias=bias,
                                                                activation=None if act == "bias" else act))
                             for act in acts}
                    timed[None] = lambda: tilec.matmul(a, b, out=c)  # noqa: B023 - run now
                with forced(gemm, config):
                    for key, ms in per_call_in_turns(timed, start=r).items():
                        samples[label].setdefault((key, "ms"), []).append(ms)
                    for key in rotated(list(timed), r):
                        samples[label].setdefault((key, "queued_ms"), []).append(queued_ms(timed[key]))
        states.append(gpu_state())
        for label, _ in variants:
            got = {key: statistics.median(v) for key, v in samples[label].items()}
            for act in acts or [None]:
                row = shape_rows[label, act]
                ms, queued = got[act, "ms"], got[act, "queued_ms"]
                row["tflops"], row["tflops_queued"] = flops / ms / 1e9, flops / queued / 1e9
                if not acts and label != "cuBLAS" and repeat > 1:
                    # each round's ratio to cuBLAS's figure of the same round: the spread of the comparison
                    ref = samples["cuBLAS"]
                    row["rounds_of_cublas"] = round_ratios(ref[None, "ms"], samples[label][None, "ms"])
                    row["rounds_of_cublas_queued"] = round_ratios(ref[None, "queued_ms"],
                                                                  samples[label][None, "queued_ms"])
                    # and to the rule's of the same round: the firmer figure of a configuration against it
                    rule_s = samples[variants[0][0]]
                    row["rounds_of_rule"] = round_ratios(rule_s[None, "ms"], samples[label][None, "ms"])
                    row["rounds_of_rule_queued"] = round_ratios(rule_s[None, "queued_ms"],
                                                                samples[label][None, "queued_ms"])
                if states[0]:
                    row["gpu_states"] = states
                if act:
                    row["ms"], row["queued_ms"] = ms, queued
                    row["plain_ms"], row["plain_queued_ms"] = got[None, "ms"], got[None, "queued_ms"]
                    # each round's epilogue over its own round's plain figure: the median and the range
                    for kind, key in (("ms", "overhead"), ("queued_ms", "overhead_queued")):
                        row[key], row[key + "_range"] = overhead_spread(samples[label][act, kind],
                                                                        samples[label][None, kind])
                rows.append(row)
                print(_short(row), flush=True)
    return rows


def round_ratios(ref: list[float], times: list[float]) -> list[float]:
    """Each round's time of the reference over the configuration's in the same round
    (`compare`'s `rounds_of_cublas`, `rounds_of_rule`): above 1 where the configuration was
    the faster in that round."""
    if len(ref) != len(times):
        raise ValueError(f"round_ratios: {len(ref)} reference rounds against {len(times)}")
    return [r / t for r, t in zip(ref, times)]


def overhead_spread(epilogue_ms: list[float], plain_ms: list[float]) -> tuple[float, list[float]]:
    """The epilogue's cost over the plain GEMM, its time over the plain kernel's of the same
    round minus 1: the median of the rounds' costs and [least, most]. Paired by round, so a GPU
    that heats or cools between rounds moves both kernels of a cost alike."""
    import statistics

    if len(epilogue_ms) != len(plain_ms) or not plain_ms:
        raise ValueError(f"overhead_spread: {len(epilogue_ms)} epilogue rounds against {len(plain_ms)}")
    costs = sorted(e / p - 1.0 for e, p in zip(epilogue_ms, plain_ms))
    return statistics.median(costs), [costs[0], costs[-1]]


def _pct_range(r: dict, key: str) -> str:
    """`+3.1%`, with ` (+1.9..+4.2)` (the rounds' range, `overhead_spread`) where the row has it."""
    rng = r.get(key + "_range")
    return f"{100 * r[key]:+.1f}%" + (f" ({100 * rng[0]:+.1f}..{100 * rng[1]:+.1f})" if rng else "")


def shape_of(text: str) -> tuple[int, int, int, bool]:
    """`--shapes`' `N`, `MxNxK` (B row-major) or `MxNxKt` (B = w.t(), w (N, K) row-major:
    K-major, as the model table's rows take it) -> (M, N, K, B K-major)."""
    kmajor = text.endswith("t")
    return (*parse_size(text[:-1] if kmajor else text), kmajor)


def _short(row: dict) -> str:
    """A row as one short JSON line (floats to 4 significant digits)."""
    return json.dumps({k: float(f"{v:.4g}") if isinstance(v, float) else v for k, v in row.items()})


def compare_markdown(rows: list[dict], title: str) -> str:
    """`--shapes`' table."""
    epi = any("overhead" in r for r in rows)
    head = ("| shape | config | epilogue | TFLOP/s | queued | plain ms | over plain | queued | check |\n"
            "|---|---|---|---:|---:|---:|---:|---:|---|") if epi else (
        "| shape | config | TFLOP/s | queued | of cuBLAS | queued | check |\n|---|---|---:|---:|---:|---:|---|")
    lines = [title, "", head]
    cublas = {r["shape"]: r for r in rows if r["config"] == "cuBLAS"}
    for r in rows:
        ok = "ok" if r["ok"] else "FAIL"
        if epi:
            lines.append(f"| {r['shape']} | {r['config']} | {r.get('epilogue', 'bias+silu')} | {r['tflops']:.0f} | "
                         f"{r['tflops_queued']:.0f} | {r['plain_ms']:.3f} | {_pct_range(r, 'overhead')} | "
                         f"{_pct_range(r, 'overhead_queued')} | {ok} |")
            continue
        ref = cublas.get(r["shape"])
        # with rounds: each round's ratio, least to most, in brackets
        spread = [f" ({min(x):.3f}-{max(x):.3f})" if x else "" for x in (r.get("rounds_of_cublas"),
                                                                       r.get("rounds_of_cublas_queued"))]
        ratio = (f"{r['tflops'] / ref['tflops']:.3f}{spread[0]} | {r['tflops_queued'] / ref['tflops_queued']:.3f}"
                 f"{spread[1]}" if ref else "- | -")
        lines.append(f"| {r['shape']} | {r['config']} | {r['tflops']:.0f} | {r['tflops_queued']:.0f} | {ratio} | "
                     f"{ok} |")
    states = {r["shape"]: r["gpu_states"] for r in rows if r.get("gpu_states")}
    lines += [f"GPU each round at {shape} (SM MHz, W, C, clock event reasons): {'; '.join(st)}"
              for shape, st in states.items()]
    return "\n".join(lines)


def cases(quick: bool, decode: bool = False) -> list[tuple[str, int, int, int, bool]]:
    """(label, M, N, K, B as a torch.nn.Linear weight's transpose)."""
    if decode:
        return [(f"{name} M={m}", m, n, k, True) for name, (n, k) in LLAMA.items() for m in DECODE_TOKENS]
    out = [("4000^3", 4000, 4000, 4000, False), ("3000x5000x7000", 3000, 5000, 7000, False)]
    for name, (n, k) in LLAMA.items():
        for m in TOKENS if not quick else (1, 2048):
            out.append((f"{name} M={m}", m, n, k, True))
    return out


def device_ms(fn, reps: int = 20) -> float | None:
    """The kernels' time per call of `fn` in ms: the sum of the durations of the CUDA
    kernels torch.profiler (CUPTI) records over `reps` calls, divided by `reps` (the
    host's launch path and the gaps between kernels left out); None where the profiler
    records no kernel."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                fn()
            torch.cuda.synchronize()
        us = 0.0
        for e in prof.key_averages():
            if str(e.device_type).endswith("CUDA"):
                us += getattr(e, "self_device_time_total", None) or getattr(e, "self_cuda_time_total", 0.0)
    except Exception as e:  # noqa: BLE001 - a profiler that cannot run: no device time
        print(f"device_ms: {e}")
        return None
    return us / reps / 1000 if us else None


def host_us(fn, reps: int = 20) -> float:
    """The median host time of one call of `fn` in microseconds (launches, not waited for)."""
    import torch

    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        times.append(1e6 * (time.perf_counter() - t0))
    torch.cuda.synchronize()
    return sorted(times)[reps // 2]


def _cluster(flag: str) -> tuple[int, int] | None:
    """The (cm, cn) of a flag `cl<CM>` or `cl<CM>x<CN>` (`gemm.cluster_name`), else None."""
    import re

    m = re.fullmatch(r"cl(\d+)(?:x(\d+))?", flag)
    return (int(m.group(1)), int(m.group(2) or 1)) if m else None


def parse_config(name: str):
    """The `GemmConfig` a configuration's name says: a name of `gemm.CONFIGS` (or of
    `FP8_CONFIGS`, `FP8_BLOCK_CONFIGS`, `SPLIT_K_TILES`), or `[f8:|f8b:]BMxBNxBK:STAGES`
    (`f8b:` block-scaled FP8; `part1`: one partial accumulator, `GemmConfig.partials`; `fma`: the
    promotion as one fma, `GemmConfig.fma_promote`; `sd`: the K loop a copy per split of the chunks between two scale
    blocks, `GemmConfig.split_dispatch`; `r<N>`: N rounds of the ring a trip of the
    consumers' K loop, `GemmConfig.rounds`) then any of `swapAB`,
    `splitK<S>`, `p<P>` (a swapped grid persistent over P blocks a multiprocessor),
    `c<C>` (column chunks), `pp` (pingpong; `ppi` / `ppl`: its turn handed over at issue / after
    the K loop, `GemmConfig.handover`; `oc`: one C buffer for both, `GemmConfig.one_c`), `st<L>`
    (the cooperative tile's consumers in turns L steps apart, `GemmConfig.stagger`), `ov` /
    `nov` (with / without the overlapped epilogue, `gemm_hopper_ws(overlap_epilogue=True)`), `cpa` /
    `cpb` / `cpab` (A, B or
    both loaded by cp.async, `gemm_hopper_ws(cp_async=...)`; without: the TMA), `cl<CM>` /
    `cl<CM>x<CN>` (clusters of CM block rows sharing B by CN block columns sharing A,
    `GemmConfig.cluster`; `cl1`: none), `bp` (with a cluster, each block its part of every
    shared box: `GemmConfig.box_parts`), `tp` / `tw` (clusters of cm x 1: each block its rows of
    the stage's whole B tile / the whole tile from one block a stage: `GemmConfig.tile_parts`,
    `tile_whole`), `sp` (the steps of the last trip past K skipped:
    `GemmConfig.skip_padding`), `ar` (A through registers for every chunk's wgmma:
    `GemmConfig.a_registers`), `ow` (the chunks' wgmma of a step as one: `GemmConfig.one_wgmma`), `w128` (each
    consumer warpgroup 128 rows of the tile: `GemmConfig.consumer_rows`), `hs` (with it, C's chunks
    stored as row halves through two buffers: `GemmConfig.half_stores`), `ap` (the consumer warpgroups one
    region run apart: `GemmConfig.consumers_apart`), `cb` (a C buffer a column chunk:
    `GemmConfig.chunk_buffers`), `cr<R>` / `cw<W>` / `ch<H>` (C's stores through a ring of R buffers
    of W columns and H rows: `GemmConfig.c_ring`, `c_width`, `c_height`; `ce`: each part's wait a part
    earlier, `GemmConfig.c_early`), `g<G>` (grouped
    order of G block rows, `GemmConfig.group`) (those four, `sk`, `sp` and `ar` also after a name of
    `CONFIGS`: `128x256x64:4:c128:ov:cpb`, `128x256x64:4:c128:cl2:g16`, `128x256x64:4:c128:sk`),
    `k<BK>` and `s<STAGES>` (instead of the head's; a later flag
    wins), `sk` (stream-K: `GemmConfig.stream_k`), `ser` / `noser` (split-K
    summed in the kernel / by a second launch: `GemmConfig.serial`), `csplit` / `nocsplit` (a
    tile's splits as the blocks of a cluster, summed through distributed shared memory:
    `GemmConfig.cluster_split`; `gp`: its partials through global memory,
    `GemmConfig.global_partials`), `pdl` / `pdlw` (programmatic dependent launch; `pdlw`: the
    weight's first stages loaded before the wait, `GemmConfig.pdl`, `GemmConfig.pdl_weight`; `pdll`: the
    dependents let in after the producer's last loads, `GemmConfig.pdl_late`), `l2p<D>` (swapped: the
    weight's rows D trips ahead asked of L2, `GemmConfig.l2_ahead`), `sr<R>` (swapped: A^T in a ring
    of R stages of its own, `GemmConfig.small_stages`; `srp`: A's rows asked of L2 first,
    `GemmConfig.small_prefetch`), `clip` (A^T's box, unswapped the last block row's A box,
    clipped to M after the first trip, `GemmConfig.clip_small`), `bf` / `al` (B's loads first / the arrival after the loads,
    `GemmConfig.b_first` / `arrive_last`), `kr` (each tile's K steps rotated by its block
    column: `GemmConfig.k_rotate`; `kr<S>`: by S steps a column, `k_rotate_step`), `wb` (B's boxes
    128-byte panels: `GemmConfig.b_panels`; `wbf`: the chunk left padded into a third panel, `b_fill`), `b1` (B's stage one box: `GemmConfig.b_box`), `rn` (the walk's groups along N: `GemmConfig.raster_n`), `bsm` / `bss`
    (the bias staged in shared memory by the producer, `GemmConfig.bias_smem`; `bss`: and the accumulators'
    start, `bias_smem_start`), `et` (the staggered consumers' epilogues in turn, `GemmConfig.epilogue_turns`),
    `fe<K>` (SiLU's exp2 on the FMA pipe in K of every 8 elements, `GemmConfig.exp2_fma`),
    `dg<G>` (SiLU's quotients G = 2 or 4 through one reciprocal, `GemmConfig.div_group`), `rc` (the
    epilogue a loop over the column chunks, `GemmConfig.rolled_chunks`),
    separated by colons: `64x16x64:8:swapAB:splitK4:p1`. Swapped and split
    configurations are ungrouped, as the rule's; other fields take `GemmConfig`'s defaults."""
    import dataclasses
    import re

    from tilec import gemm

    for c in gemm.CONFIGS + gemm.FP8_CONFIGS + gemm.FP8_BLOCK_CONFIGS + gemm.SPLIT_K_TILES:
        if c.name == name:
            return c
        flags = name[len(c.name) + 1:].split(":")
        groups = [int(f[1:]) for f in flags if re.fullmatch(r"g\d+", f)]
        clusters = [_cluster(f) for f in flags if _cluster(f)]
        if name.startswith(c.name + ":") and all(f in {"ov", "nov", "cpa", "cpb", "cpab", "bp", "tp", "tw", "sk", "sp", "ar",
                                                       "ow", "pdl", "pdlw", "pdll", "w128", "hs", "pf", "bf", "al", "ap",
                                                       "kr", "wb", "wbf", "b1", "bsm", "bss", "et", "ce", "rn"}
                                                 or re.fullmatch(r"g\d+|pr\d+|cr\d+|cw\d+|ch\d+|kr\d+|fe\d", f)
                                                 or _cluster(f) for f in flags):
            # the flags add to the named configuration's own (256x160x64:4:c32:ow:w128:sp:cl1x2:bp
            # keeps its one_wgmma and skip_padding); `nov` takes the overlap away
            cp = next((f[2:] for f in flags if f.startswith("cp")), c.cp_async)
            return dataclasses.replace(c, name=name, overlap=(c.overlap or "ov" in flags) and "nov" not in flags,
                                       cp_async=cp, stream_k=c.stream_k or "sk" in flags,
                                       cluster=clusters[-1] if clusters else c.cluster,
                                       box_parts=c.box_parts or "bp" in flags,
                                       tile_parts=c.tile_parts or bool({"tp", "tw"} & set(flags)),
                                       tile_whole=c.tile_whole or "tw" in flags,
                                       group=groups[-1] if groups else c.group,
                                       skip_padding=c.skip_padding or "sp" in flags,
                                       a_registers=c.a_registers or "ar" in flags,
                                       one_wgmma=c.one_wgmma or "ow" in flags,
                                       pdl=c.pdl or bool({"pdl", "pdlw", "pdll"} & set(flags)),
                                       pdl_weight=c.pdl_weight or "pdlw" in flags,
                                       pdl_late=c.pdl_late or "pdll" in flags,
                                       consumer_rows=128 if "w128" in flags else c.consumer_rows,
                                       half_stores=c.half_stores or "hs" in flags,
                                       consumers_apart=c.consumers_apart or "ap" in flags,
                                       chunk_buffers=c.chunk_buffers or "cb" in flags,
                                       c_ring=next((int(f[2:]) for f in flags if re.fullmatch(r"cr\d+", f)),
                                                   c.c_ring),
                                       c_width=next((int(f[2:]) for f in flags if re.fullmatch(r"cw\d+", f)),
                                                    c.c_width),
                                       c_height=next((int(f[2:]) for f in flags if re.fullmatch(r"ch\d+", f)),
                                                     c.c_height),
                                       c_early=c.c_early or "ce" in flags,
                                       scale_prefetch=c.scale_prefetch or "pf" in flags,
                                       b_first=c.b_first or "bf" in flags,
                                       k_rotate=c.k_rotate or any(re.fullmatch(r"kr\d*", f) for f in flags),
                                       k_rotate_step=next((int(f[2:]) for f in flags if re.fullmatch(r"kr\d+", f)),
                                                          c.k_rotate_step),
                                       bias_smem=c.bias_smem or bool({"bsm", "bss"} & set(flags)),
                                       bias_smem_start=c.bias_smem_start or "bss" in flags,
                                       epilogue_turns=c.epilogue_turns or "et" in flags,
                                       exp2_fma=next((int(f[2:]) for f in flags if re.fullmatch(r"fe\d", f)),
                                                     c.exp2_fma),
                                       div_group=next((int(f[2:]) for f in flags if re.fullmatch(r"dg\d", f)),
                                                      c.div_group),
                                       arrive_last=c.arrive_last or "al" in flags,
                                       b_panels=c.b_panels or bool({"wb", "wbf"} & set(flags)),
                                       b_fill=c.b_fill or "wbf" in flags,
                                       b_box=c.b_box or "b1" in flags,
                                       raster_n=c.raster_n or "rn" in flags,
                                       l2_promotion=next((int(f[2:]) for f in flags if re.fullmatch(r"pr\d+", f)),
                                                         c.l2_promotion))
    fp8, block = name.startswith(("f8:", "f8b:")), name.startswith("f8b:")
    head, stages, *flags = name.split(":", 1)[1].split(":") if fp8 else name.split(":")
    bm, bn, bk = (int(x) for x in head.split("x"))
    kw = {"split_k": 1, "block_scales": block}
    for f in flags:
        if f == "part1":
            kw["partials"] = 1
        elif f == "fma":
            kw["fma_promote"] = True
        elif f == "pf":
            kw["scale_prefetch"] = True
        elif f == "sd":
            kw["split_dispatch"] = True
        elif m := re.fullmatch(r"pr(\d+)", f):
            kw["l2_promotion"] = int(m.group(1))
        elif f == "swapAB":
            kw["swap_ab"] = True
        elif f == "oc":
            kw["one_c"] = True
        elif f in ("bsm", "bss"):
            kw["bias_smem"] = True
            kw["bias_smem_start"] = f == "bss"
        elif m := re.fullmatch(r"st(\d+)", f):
            kw["stagger"] = int(m.group(1))
        elif f == "et":
            kw["epilogue_turns"] = True
        elif f == "rc":
            kw["rolled_chunks"] = True
        elif m := re.fullmatch(r"fe(\d)", f):
            kw["exp2_fma"] = int(m.group(1))
        elif m := re.fullmatch(r"dg(\d)", f):
            kw["div_group"] = int(m.group(1))
        elif f in ("pp", "ppi", "ppl"):
            kw["pingpong"] = True
            kw["handover"] = {"pp": "drain", "ppi": "issue", "ppl": "loop"}[f]
        elif f == "sk":
            kw["stream_k"] = True
        elif f in ("ser", "noser"):
            kw["serial"] = f == "ser"
        elif f in ("csplit", "nocsplit"):
            kw["cluster_split"] = f == "csplit"
        elif f == "gp":
            kw["global_partials"] = True
        elif f in ("ov", "nov"):
            kw["overlap"] = f == "ov"
        elif f in ("cpa", "cpb", "cpab"):
            kw["cp_async"] = f[2:]
        elif _cluster(f):
            kw["cluster"] = _cluster(f)
        elif f == "bp":
            kw["box_parts"] = True
        elif f in ("tp", "tw"):
            kw["tile_parts"], kw["tile_whole"] = True, f == "tw" or kw.get("tile_whole", False)
        elif f == "sp":
            kw["skip_padding"] = True
        elif f == "ar":
            kw["a_registers"] = True
        elif f == "ow":
            kw["one_wgmma"] = True
        elif f == "w128":
            kw["consumer_rows"] = 128
        elif f == "hs":
            kw["half_stores"] = True
        elif f == "ap":
            kw["consumers_apart"] = True
        elif f == "cb":
            kw["chunk_buffers"] = True
        elif m := re.fullmatch(r"cr(\d+)", f):
            kw["c_ring"] = int(m.group(1))
        elif m := re.fullmatch(r"cw(\d+)", f):
            kw["c_width"] = int(m.group(1))
        elif m := re.fullmatch(r"ch(\d+)", f):
            kw["c_height"] = int(m.group(1))
        elif f == "ce":
            kw["c_early"] = True
        elif f in ("pdl", "pdlw"):
            kw["pdl"], kw["pdl_weight"] = True, f == "pdlw" or kw.get("pdl_weight", False)
        elif f == "pdll":
            kw["pdl"], kw["pdl_late"] = True, True
        elif m := re.fullmatch(r"l2p(\d+)", f):
            kw["l2_ahead"] = int(m.group(1))
        elif m := re.fullmatch(r"sr(\d+)", f):
            kw["small_stages"] = int(m.group(1))
        elif f == "srp":
            kw["small_prefetch"] = True
        elif f == "clip":
            kw["clip_small"] = True
        elif f == "bf":
            kw["b_first"] = True
        elif f == "kr":
            kw["k_rotate"] = True
        elif m := re.fullmatch(r"kr(\d+)", f):
            kw["k_rotate"], kw["k_rotate_step"] = True, int(m.group(1))
        elif f == "al":
            kw["arrive_last"] = True
        elif f == "wb":
            kw["b_panels"] = True
        elif f == "wbf":
            kw["b_panels"] = kw["b_fill"] = True
        elif f == "b1":
            kw["b_box"] = True
        elif f == "rn":
            kw["raster_n"] = True
        elif m := re.fullmatch(r"g(\d+)", f):
            kw["group"] = int(m.group(1))
        elif m := re.fullmatch(r"r(\d+)", f):
            kw["rounds"] = int(m.group(1))
        elif m := re.fullmatch(r"splitK(\d+)", f):
            kw["split_k"] = int(m.group(1))
        elif m := re.fullmatch(r"p(\d+)", f):
            kw["per_sm"] = int(m.group(1))
        elif m := re.fullmatch(r"c(\d+)", f):
            kw["chunk"] = int(m.group(1))
        elif m := re.fullmatch(r"k(\d+)", f):
            bk = int(m.group(1))
        elif m := re.fullmatch(r"s(\d+)", f):
            stages = m.group(1)
        else:
            raise ValueError(f"parse_config: {f!r} of {name!r}: expected swapAB, splitK<S>, p<P>, c<C>, k<BK>, "
                             "s<STAGES>, g<G>, r<N>, sk, ser, noser, csplit, nocsplit, gp, pp, ppi, ppl, oc, "
                             "st<L>, ov, nov, cpa, cpb, "
                             "cpab, cl<CM>[x<CN>], bp, tp, tw, sp, ar, ow, w128, hs, ap, cb, cr<R>, cw<W>, ch<H>, ce, pdl, pdlw, pdll, l2p<D>, sr<R>, srp, clip, bf, al, wb, bsm, bss, et, fe<K>, "
                             "part1, fma, pf, sd or pr<B>")
    group = kw.pop("group", 1 if kw.get("swap_ab") or kw["split_k"] > 1 else 8)
    return gemm.GemmConfig(name, bm, bn, bk, int(stages), efficiency=0.0, group=group,
                           operand_bytes=1 if fp8 else 2, **kw)


GRAPH_CALLS = 20
"""Calls in one CUDA graph of `graph_us`."""

ROTATE = 4
"""Copies of a weight (and memcpy buffers) a graph takes in turn: more bytes than L2 holds."""


def graph_us(fns) -> float | None:
    """Microseconds a call, from a CUDA graph of `GRAPH_CALLS` calls of `fns` in turn
    (compute_bench.py's `Graph`, each of `fns` run once before the capture; the median
    of 10 replays); None where the capture fails (said)."""
    import statistics

    from compute_bench import Graph  # benchmarks/ (this script's folder)

    try:
        g = Graph(lambda i, _stream: fns[i](), len(fns), reps=GRAPH_CALLS, warmup=len(fns))
        return 1000 * statistics.median(g.ms() for _ in range(10))
    except Exception as e:  # noqa: BLE001 - report and go on
        print(f"graph capture failed: {type(e).__name__}: {str(e)[:200]}")
        return None


def variant(name: str, rule):
    """The configuration `--configs`' `name` says for a row whose rule takes `rule`:
    `parse_config(name)`, or with a leading `+` the rule's swapped configuration with
    the flags after it (`+p1`: persistent, one block a multiprocessor; `+splitK2`: split
    twice instead; `+pr256`: the TMA loads' 256-byte L2 promotion, on an unswapped rule's
    configuration too; `+bf`, `+al`: the producer's load orders, `+cb`, a C buffer a
    chunk, and `+clip`, the last block row's A box clipped to M, on the tiles of M's halves
    too); False where `rule` is not swapped (but for `+pr<B>`, and the halves' `+bf` / `+al`
    / `+cb` / `+clip`),
    or where P blocks of the result would not fit a multiprocessor's shared memory together."""
    if not name.startswith("+"):
        return parse_config(name)
    if not rule.swap_ab:
        halves = rule.bm == 64 and rule.cluster[1] == 1 and re.fullmatch(r"(bf|al|cb|clip)(:(bf|al|cb|clip))*", name[1:])
        return parse_config(f"{rule.name}:{name[1:]}") if re.fullmatch(r"pr\d+", name[1:]) or halves else False
    cfg = parse_config(f"{rule.name}:{name[1:]}")
    from tilec.support.target import target

    return False if target("sm_90a").resident_blocks(cfg.smem_bytes()) < cfg.per_sm else cfg


def variant_rows(args, sms: int) -> list[dict]:
    """`--decode --configs`: per row the rule's configuration and each named one, timed
    in CUDA graphs beside cuBLAS and cudaMemcpy of the weight's bytes (module docstring)."""
    import torch

    import tilec
    from tilec import gemm

    names = [x for x in args.configs.split(",") if x]
    tokens = [int(x) for x in args.tokens.split(",")] if args.tokens else list(DECODE_TOKENS)
    shapes = args.shapes.split(",") if args.shapes else list(LLAMA)
    started, rows = time.time(), []
    for name in shapes:
        n, k = LLAMA[name]
        g = torch.Generator(device="cuda").manual_seed(n + k)
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(ROTATE)]
        src = [torch.empty(n * k // 2, device="cuda", dtype=torch.bfloat16) for _ in range(ROTATE)]
        dst = [torch.empty_like(x) for x in src]
        memcpy = graph_us([lambda i=i: dst[i].copy_(src[i]) for i in range(ROTATE)])
        for m in tokens:
            if time.time() - started > args.budget:
                print(f"budget: {name} M={m} not run")
                continue
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            ct = torch.empty_like(c)
            rule = gemm.choose_config(m, n, sms, k=k, b_kmajor=True)
            row = {"case": f"{name} M={m}", "m": m, "n": n, "k": k, "memcpy_us": memcpy,
                   "cublas_us": graph_us([lambda w=w: torch.matmul(a, w.t(), out=ct) for w in ws]),  # noqa: B023
                   "cublas_call_us": 1000 * median_ms(lambda: torch.matmul(a, ws[0].t(), out=ct)),  # noqa: B023
                   "configs": {}}
            for cfg in [None, *(variant(x, rule) for x in names)]:
                if cfg is False:
                    continue
                label = rule.name if cfg is None else cfg.name
                if label in row["configs"] or (cfg is not None and time.time() - started > args.budget):
                    continue
                try:
                    with forced(gemm, cfg):
                        c.fill_(float("nan"))
                        t0 = time.time()
                        tilec.matmul(a, ws[0].t(), out=c)
                        torch.cuda.synchronize()
                        first = time.time() - t0
                        ok = within_bound(c, a, ws[0].t())
                        us = graph_us([lambda w=w: tilec.matmul(a, w.t(), out=c) for w in ws])  # noqa: B023
                        call = 1000 * median_ms(lambda: tilec.matmul(a, ws[0].t(), out=c))  # noqa: B023
                except Exception as e:  # noqa: BLE001 - report the configuration and go on
                    row["configs"][label] = {"error": f"{type(e).__name__}: {str(e)[:160]}"}
                    print(f"{row['case']} {label}: {row['configs'][label]['error']}", flush=True)
                    continue
                row["configs"][label] = {"graph_us": us, "call_us": call, "ok": ok, "first_s": first,
                                         "rule": cfg is None}
                print(variant_line(row, label), flush=True)
            rows.append(row)
    return rows


def variant_line(row: dict, label: str) -> str:
    """One configuration of a `--configs` row as a line (printed as it is measured)."""
    v, mc, cb = row["configs"][label], row["memcpy_us"], row["cublas_us"]
    if not v.get("graph_us"):
        return f"{row['case']} {label}: no graph time; per call {v['call_us']:.1f} us, {'ok' if v['ok'] else 'FAIL'}"
    us = v["graph_us"]
    return (f"{row['case']} {label}{'*' if v['rule'] else ''}: {us:.1f} us ({(mc or 0) / us:.2f} of memcpy "
            f"{mc or 0:.1f} us, {(cb or 0) / us:.2f} of cuBLAS {cb or 0:.1f} us, per call "
            f"{row['cublas_call_us']:.1f}), per call {v['call_us']:.1f} us, "
            f"{'ok' if v['ok'] else 'FAIL'}")


def variant_markdown(rows: list[dict], title: str) -> str:
    """`--decode --configs`' table: per row and configuration the graph time, its
    ratio to cudaMemcpy of the weight's bytes and to cuBLAS (graphs both)."""
    lines = [title, "", "us a call in CUDA graphs (the weights in turn, from DRAM); of memcpy: the time of a "
             "copy of the weight's bytes over the GEMM's; * the rule's", "",
             "| case | memcpy us | cuBLAS us (of memcpy) | config | us | of memcpy | of cuBLAS | per call us | check |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mc, cb = r["memcpy_us"], r["cublas_us"]
        head = f"| {r['case']} | {mc:.1f} | {cb:.1f} ({mc / cb:.2f})" if mc and cb else f"| {r['case']} | - | -"
        for label, v in r["configs"].items():
            if "error" in v:
                lines.append(f"{head} | {label} | error: {v['error']} | | | | |")
            else:
                us, check = v["graph_us"], "ok" if v["ok"] else "FAIL"
                mark = "*" if v["rule"] else ""
                cells = (f"{us:.1f} | {(mc or 0) / us:.2f} | {(cb or 0) / us:.2f}" if us else "- | - | -")
                lines.append(f"{head} | {label}{mark} | {cells} | {v['call_us']:.1f} | {check} |")
            head = "| | |"
    return "\n".join(lines)


class unsplit:  # noqa: N801 - used as `with unsplit(gemm):`
    """The rule without splits (`gemm.MAX_SPLIT_K` = 1) while inside; the cached calls
    (prepared with the rule outside) forgotten on the way in and out."""

    def __init__(self, gemm) -> None:
        self.gemm, self.saved = gemm, gemm.MAX_SPLIT_K

    def __enter__(self) -> None:
        self.gemm.MAX_SPLIT_K = 1
        self.gemm.forget_cached_calls()

    def __exit__(self, *exc) -> None:
        self.gemm.MAX_SPLIT_K = self.saved
        self.gemm.forget_cached_calls()


def _kernels(row: dict) -> str:
    """The row's "kernels" cell: compiled by its first call (all so far); a run recorded
    before the first count was kept has only all so far."""
    return f"{row['compiled']} ({row['kernels']})" if "compiled" in row else str(row["kernels"])


def decode_markdown(rows: list[dict], title: str) -> str:
    """`--decode`'s table: GB/s of the bytes the GEMM must move, tilec's configuration and
    the rule's without splits beside cuBLAS."""
    def f(r: dict, key: str) -> str:
        return "-" if r.get(key) is None else f"{r[key]:.0f}"

    lines = [title, "", "GB/s of the bytes the GEMM must move: events around one call (host included), and the "
             "kernels' own time (device)", "",
             "| case | tilec config | tilec GB/s | tilec device GB/s | unsplit config | unsplit GB/s | "
             "unsplit device GB/s | cuBLAS GB/s | cuBLAS device GB/s | tilec / cuBLAS (device) | tilec host us | "
             "check |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ok = r["tilec_ok"] and r["cublas_ok"] and r.get("unsplit_ok", True)
        dev = (f"{r['tilec_dev_gbs'] / r['cublas_dev_gbs']:.2f}" if r.get("tilec_dev_gbs") and r.get("cublas_dev_gbs")
               else "-")
        lines.append(f"| {r['case']} | {r['config']} | {f(r, 'tilec_gbs')} | {f(r, 'tilec_dev_gbs')} | "
                     f"{r.get('unsplit_config', '-')} | {f(r, 'unsplit_gbs')} | {f(r, 'unsplit_dev_gbs')} | "
                     f"{f(r, 'cublas_gbs')} | {f(r, 'cublas_dev_gbs')} | {dev} | {f(r, 'tilec_host_us')} | "
                     f"{'ok' if ok else 'FAIL'} |")
    return "\n".join(lines)


def fp8_markdown(fp8: list[dict]) -> list[str]:
    """The FP8 rows' table, as markdown lines."""
    lines = [
        "| FP8 case | tilec config | tilec TFLOP/s | torch._scaled_mm TFLOP/s (per-tensor) | tilec / _scaled_mm "
        "| queued | first call (s) | check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    def queued(r: dict) -> str:  # runs from before the queued timing have none
        return f"{r['ratio_queued']:.2f}" if "ratio_queued" in r else "-"

    return lines + [
        f"| {r['case']} | {r['config']} | {r['tilec_tflops']:.0f} | {r['scaled_mm_tflops']:.0f} | {r['ratio']:.2f} | "
        f"{queued(r)} | {r['first_call_s']:.2f} | "
        f"{'ok' if r['tilec_ok'] and r['scaled_mm_ok'] else 'FAIL'} |"
        for r in fp8
    ]


def markdown(rows: list[dict], epilogue: dict, new_m: list[dict], title: str, fp8: list[dict] = ()) -> str:
    """The run's table (the epilogue line, the FP8 rows, the new-M lines) as markdown,
    headed by `title`."""
    lines = [
        title,
        "",
        "| case | M | N | K | tilec config | tilec TFLOP/s | cuBLAS TFLOP/s | tilec / cuBLAS | Triton TFLOP/s | "
        "tilec GB/s | cuBLAS GB/s | first call (s) | kernels | check |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        tri_s = f"{r['triton_tflops']:.0f}" if "triton_tflops" in r else "-"
        oks = "ok" if r["tilec_ok"] and r["cublas_ok"] and r.get("triton_ok", True) else "FAIL"
        gbs = (f"{r['tilec_gbs']:.0f} | {r['cublas_gbs']:.0f}") if r["m"] <= 128 else "- | -"
        lines.append(
            f"| {r['case']} | {r['m']} | {r['n']} | {r['k']} | {r['config']} | {r['tilec_tflops']:.0f} | "
            f"{r['cublas_tflops']:.0f} | {r['ratio']:.2f} | {tri_s} | {gbs} | {r['first_call_s']:.2f} | "
            f"{_kernels(r)} | {oks} |"
        )
    lines += [
        "",
        f"Epilogue at {epilogue['shape']}: plain {epilogue['plain_ms']:.3f} ms, bias + SiLU + cast "
        f"{epilogue['bias_silu_ms']:.3f} ms ({_pct_range(epilogue, 'overhead')})"
        + (f"; queued {epilogue['plain_queued_ms']:.3f} / {epilogue['bias_silu_queued_ms']:.3f} ms "
           f"({_pct_range(epilogue, 'overhead_queued')}), {epilogue['rounds']} rounds in turns"
           + (" (medians of the rounds' paired costs, their range)" if "overhead_range" in epilogue else "")
           if "overhead_queued" in epilogue else "")
        + (f"; with `silu_tanh` {100 * epilogue['silu_tanh_overhead']:+.1f}% per call, "
           f"{100 * epilogue['silu_tanh_overhead_queued']:+.1f}% queued" if "silu_tanh_overhead" in epilogue else "")
        + f", PyTorch unfused {epilogue['torch_unfused_ms']:.3f} ms; {'ok' if epilogue['ok'] else 'FAIL'}",
    ]
    if fp8:
        lines += [""] + fp8_markdown(fp8)
    lines += [f"New M of a cached kernel (QKV): M = {x['m']} after M = {x['after']}: first call "
              f"{1000 * x['first_call_s']:.1f} ms, {x['compiled']} kernels compiled" for x in new_m]
    return "\n".join(lines)


def write_outputs(args, dev: str, results: dict, table: str | None = None) -> None:
    """`--json` (the run's information and `results`) and `--md` (`table`), where asked."""
    if args.json:
        from run_info import run_info  # benchmarks/ (this script's folder)

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), **results}, f, indent=1)
    if args.md and table is not None:
        with open(args.md, "w") as f:
            f.write(table + "\n")


def main(argv=None) -> int:
    import torch

    import tilec
    from tilec import gemm

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="M in {1, 2048} only")
    ap.add_argument("--decode", action="store_true", help="the decode sizes only, beside the rule without splits")
    ap.add_argument("--fp8", action="store_true", help="the FP8 rows only (per-tensor and block-scaled)")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--shapes", help="MxNxK,...: compare configurations at these shapes only; with --decode: the "
                                     f"projections of the rows (default {','.join(LLAMA)}) (module docstring)")
    ap.add_argument("--configs", default="",
                    help="configurations to time beside the rule's (parse_config's names, comma-separated; "
                         "with --decode also +FLAGS on the rule's swap), with --shapes, --decode or --fp8")
    ap.add_argument("--tokens", help="with --decode --configs: M of the rows (default 1,8,16,64,128)")
    ap.add_argument("--budget", type=float, default=1e9,
                    help="with --decode --configs: seconds after which no row or configuration starts")
    ap.add_argument("--epilogue", nargs="?", const="silu", default=None,
                    help="with --shapes: bias + each activation (comma-separated; default silu; `bias`: the "
                         "bias alone) against plain instead of cuBLAS")
    ap.add_argument("--repeat", type=int, default=1,
                    help="with --shapes: rounds of timing, the configurations taking turns (medians reported)")
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    dev = torch.cuda.get_device_name()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if args.fp8:
        started = time.time()
        shapes = [parse_size(x) for x in args.shapes.split(",")] if args.shapes else FP8_SHAPES
        fp8 = fp8_rows(sms, shapes, tuple(x for x in args.configs.split(",") if x))
        table = "\n".join([f"tilec.matmul FP8, {dev} ({sms} SMs); {time.time() - started:.0f} s", ""]
                          + fp8_markdown(fp8))
        write_outputs(args, dev, {"fp8": fp8}, table)
        print(table)
        return 0 if all(r["tilec_ok"] for r in fp8) else 1
    if args.shapes and not args.decode:
        started = time.time()
        rows = compare([shape_of(x) for x in args.shapes.split(",")], [x for x in args.configs.split(",") if x],
                       args.epilogue.split(",") if args.epilogue else (), sms, args.repeat)
        table = compare_markdown(rows, f"tilec.matmul configurations, {dev} ({sms} SMs); {time.time() - started:.0f} s")
        write_outputs(args, dev, {"compare": rows}, table)
        print(table)
        return 0 if all(r["ok"] for r in rows) else 1
    if args.decode and args.configs:
        started = time.time()
        rows = variant_rows(args, sms)
        table = variant_markdown(rows, f"tilec.matmul decode sizes, configurations side by side, bf16, {dev} "
                                       f"({sms} SMs); {time.time() - started:.0f} s")
        write_outputs(args, dev, {"variants": rows})
        print(table)
        return 0 if all(v.get("ok", False) for r in rows for v in r["configs"].values()) else 1
    tri = None
    if not args.no_triton:
        try:
            tri = triton_matmul()[0]
        except Exception as e:  # noqa: BLE001 - report and go on without Triton
            print(f"Triton unavailable: {e}")
    rows = []
    started = time.time()
    for label, m, n, k, linear in cases(args.quick, args.decode):
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        if linear:  # x @ w.t(), w (N, K) as torch.nn.Linear holds it: B K-major
            b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t()
        else:
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        before = len(gemm._kernels)
        t0 = time.time()
        tilec.matmul(a, b, out=c)
        torch.cuda.synchronize()
        first = time.time() - t0
        row = {"case": label, "m": m, "n": n, "k": k, "b": "w.t()" if linear else "row-major",
               "config": gemm.choose_config(m, n, sms, k=k, b_kmajor=linear).name,
               "first_call_s": first, "kernels": len(gemm._kernels),
               "compiled": len(gemm._kernels) - before, "tilec_ok": within_bound(c, a, b)}
        flops, nbytes = 2.0 * m * n * k, 2.0 * (m * k + k * n + m * n)
        ct = torch.matmul(a, b)
        row["cublas_ok"] = within_bound(ct, a, b)
        # tilec's and cuBLAS's calls in turns, so that both meet the GPU as warm (a long
        # GEMM heats it: timed one after the other, the second ran at other clocks)
        times = per_call_in_turns({"tilec": lambda: tilec.matmul(a, b, out=c),  # noqa: B023 - run now
                                   "cublas": lambda: torch.matmul(a, b, out=ct)})  # noqa: B023 - run now
        t = times["tilec"]
        row["tilec_tflops"], row["tilec_gbs"] = flops / t / 1e9, nbytes / t / 1e6
        t = times["cublas"]
        row["cublas_tflops"], row["cublas_gbs"] = flops / t / 1e9, nbytes / t / 1e6
        if args.decode:
            def gbs(ms, nbytes=nbytes):
                return None if ms is None else nbytes / ms / 1e6

            row["tilec_dev_gbs"] = gbs(device_ms(lambda: tilec.matmul(a, b, out=c)))  # noqa: B023 - run now
            row["cublas_dev_gbs"] = gbs(device_ms(lambda: torch.matmul(a, b, out=ct)))  # noqa: B023 - run now
            row["tilec_host_us"] = host_us(lambda: tilec.matmul(a, b, out=c))  # noqa: B023 - run now
        if args.decode and gemm.choose_config(m, n, sms, k=k, b_kmajor=linear).split_k > 1:
            with unsplit(gemm):
                row["unsplit_config"] = gemm.choose_config(m, n, sms, k=k, b_kmajor=linear).name
                c.fill_(float("nan"))
                tilec.matmul(a, b, out=c)
                row["unsplit_ok"] = within_bound(c, a, b)
                t = median_ms(lambda: tilec.matmul(a, b, out=c))  # noqa: B023 - run now
                row["unsplit_dev_gbs"] = gbs(device_ms(lambda: tilec.matmul(a, b, out=c)))  # noqa: B023 - run now
            row["unsplit_gbs"] = nbytes / t / 1e6
        if tri is not None:
            import triton

            cr = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            tri(a, b, cr)
            row["triton_ok"] = within_bound(cr, a, b)
            t = triton.testing.do_bench(lambda: tri(a, b, cr), return_mode="median")  # noqa: B023 - run now
            row["triton_tflops"] = flops / t / 1e9
        row["ratio"] = row["tilec_tflops"] / row["cublas_tflops"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    # a new M of a cached kernel: no compile (QKV at M = 1999 after 2048 (--decode: 100 after 128), M = 3 after 1)
    new_m = []
    for m, seen in ((100, 128), (3, 1)) if args.decode else ((1999, 2048), (3, 1)):
        n, k = LLAMA["qkv"]
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        before = len(gemm._kernels)
        t0 = time.time()
        tilec.matmul(a, w.t())
        torch.cuda.synchronize()
        new_m.append({"m": m, "after": seen, "first_call_s": time.time() - t0, "compiled": len(gemm._kernels) - before})
        print(json.dumps(new_m[-1]), flush=True)
    if args.decode:
        table = decode_markdown(rows, f"tilec.matmul decode sizes, bf16, {dev} ({sms} SMs); "
                                      f"{time.time() - started:.0f} s")
        write_outputs(args, dev, {"rows": rows, "new_m": new_m}, table)
        print(table)
        oks = [r["tilec_ok"] and r.get("unsplit_ok", True) for r in rows]
        return 0 if all(oks) and not any(x["compiled"] for x in new_m) else 1
    # the epilogue: bias + SiLU (and bias + SiLU with one tanh.approx, `silu_tanh`) (+ the
    # cast) against the plain GEMM of one shape, timed as
    # `--shapes ... --epilogue --repeat EPILOGUE_ROUNDS` times it (in turns: `compare`)
    m, n, k = EPILOGUE_SHAPE
    row, tanh_row = compare([EPILOGUE_SHAPE], [], ("silu", "silu_tanh"), sms, EPILOGUE_ROUNDS)
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    t_torch_epi = median_ms(lambda: torch.nn.functional.silu(torch.matmul(a, b) + bias))
    del a, b, bias
    epilogue = {"shape": row["shape"], "config": row["config"], "plain_ms": row["plain_ms"],
                "bias_silu_ms": row["ms"], "overhead": row["overhead"], "plain_queued_ms": row["plain_queued_ms"],
                "bias_silu_queued_ms": row["queued_ms"], "overhead_queued": row["overhead_queued"],
                "overhead_range": row["overhead_range"], "overhead_queued_range": row["overhead_queued_range"],
                "silu_tanh_overhead": tanh_row["overhead"], "silu_tanh_overhead_queued": tanh_row["overhead_queued"],
                "rounds": EPILOGUE_ROUNDS, "torch_unfused_ms": t_torch_epi, "ok": row["ok"] and tanh_row["ok"]}
    print(json.dumps(epilogue), flush=True)
    epi_ok = epilogue["ok"]
    fp8 = fp8_rows(sms)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")  # noqa: UP017
    table = markdown(rows, epilogue, new_m,
                     f"tilec.matmul, bf16 -> bf16 (f32 accumulation), {dev} ({sms} SMs), {date}; "
                     f"{time.time() - started:.0f} s", fp8)
    write_outputs(args, dev, {"rows": rows, "epilogue": epilogue, "new_m": new_m, "fp8": fp8, "in_turns": True}, table)
    print(table)
    fp8_ok = all(r["tilec_ok"] for r in fp8)
    return 0 if all(r["tilec_ok"] for r in rows) and epi_ok and fp8_ok and not any(x["compiled"] for x in new_m) else 1


if __name__ == "__main__":
    sys.exit(main())
