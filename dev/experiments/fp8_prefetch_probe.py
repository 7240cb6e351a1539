"""A probe (issue 39, fp838): does an L1 prefetch of the block scales' next 32-byte sector
shorten the block-scaled K loop at 8192^3? Experiment only, not a compiler path: the rule's
emitted CUDA is patched as text here (one `prefetch.global.L1` of A's two rows' and B's
scale a trip ahead, 8 K blocks on: the sector that the loop's loads would otherwise first
read from L2 inside a step, where the promotion's FMUL waits on the scoreboard those loads
share), compiled and timed in turns against the unpatched rule and `torch._scaled_mm`,
both results checked as benchmarks/matmul_bench.py checks them.

    python3 dev/experiments/fp8_prefetch_probe.py [--variants pf,pf16] 8192 4096 8192x8192x1024   (on the GPU)

A variant NAME+mn (`rule+mn`, `f8b:128x128x128:4:pf+mn`) gives tilec.matmul A's scales MN-major
(strides (1, M)), which it runs with `gemm_hopper_ws(scale_a_mn_major=True)`.
`trule` is the per-tensor rule (`choose_config(..., fp8=True)`); a per-tensor configuration (`f8:...`,
`trule`) runs with one-element scales and is checked against the per-tensor bound, beside the
block-scaled variants (the long K: is a K step dearer at K = 8192 without the promotion too?).
`--rounds N` (default 3): the rounds of per-call-in-turns and queued timings (each round in rotated
order; 0: each variant compiled, into the disk cache, and checked, nothing timed); after them each
variant's ratios to the rule's time of the same round, median and range. `--clocks S`: in each round
then each variant launched back to back for S seconds under `nvidia-smi`'s samples of the SM clock,
the power and the clocks' event reasons (`sustained`); last, the medians over the rounds of each
variant's ratios to `_scaled_mm` per call, queued and sustained.
`--cublas-block`: also cuBLAS's own block-scaled kernel (`torch._scaled_mm` with A's 1 x 128 scales
MN-major and B's 128 x 128 as (K blocks, N blocks), PyTorch's DeepSeek recipe on sm_90, CUDA 12.9+),
checked against the same float64 bound, as `cublas_block`.
A variant with a colon is a configuration's name (benchmarks/matmul_bench.py's `parse_config`),
built as the compiler builds it (`--variants f8b:128x128x128:4:pf`: `GemmConfig.scale_prefetch`,
the same prefetches as `pf`, the rows checked against M).
    python3 dev/experiments/fp8_prefetch_probe.py --patch FILE.cu [VARIANT]   (the patched text, on the CPU)
"""

from __future__ import annotations

import re
import sys

PF_AHEAD = 8
"""K blocks ahead: one 32-byte sector of a row's f32 scales."""


def patch(src: str, ahead: int = PF_AHEAD) -> tuple[str, int]:
    """`src` with the prefetches after each trip's first step's B-scale load, and their count."""
    lines = src.split("\n")
    out, n, i = [], 0, 0
    kb_re = re.compile(r"\s*const int (t_\d+) = \(unsigned int\)i < \(unsigned int\)(\d+) \? i : \2;")
    while i < len(lines):
        line = lines[i]
        out.append(line)
        m = kb_re.match(line)
        i += 1
        if not m:
            continue
        kb, last = m.group(1), int(m.group(2))
        arow = brow = None
        while i < len(lines):
            line = lines[i]
            out.append(line)
            i += 1
            if arow is None and (ma := re.search(r"pscale_a\[(t_\d+)\]", line)):
                arow = ma.group(1)
            if mb := re.search(r"const float x_\d+ = pscale_b\[(t_\d+)\];", line):
                brow = mb.group(1)
                break
        if arow is None or brow is None:
            raise ValueError("patch: the trip's scale loads not found")
        pad = re.match(r"\s*", line).group(0)
        out += [f"{pad}{{ const int pf_k = ({kb} + {ahead} < {last} ? {kb} + {ahead} : {last}) - {kb};",
                f'{pad}  asm volatile("prefetch.global.L1 [%0];" :: "l"(pscale_a + ({arow} + pf_k)));',
                f'{pad}  asm volatile("prefetch.global.L1 [%0];" :: "l"(pscale_a + ({arow} + {8 * (last + 1)} + pf_k)));',
                f'{pad}  asm volatile("prefetch.global.L1 [%0];" :: "l"(pscale_b + ({brow} + pf_k))); }}']
        n += 1
    return "\n".join(out), n


def patch_dep(src: str) -> tuple[str, int]:
    """`src` with each step's scale products (of the step before, `a * b` after its
    `wgmma.wait_group 1`) computed first in the step, and the step's scale loads'
    indices made to depend on them (`min(x, x + (sign bits >> 31))`, always `x`): the
    FMUL then runs before the step's loads are issued, so it cannot wait on the
    scoreboard they share with the earlier loads it reads."""
    lines = src.split("\n")
    kb_re = re.compile(r"\s*const int (t_\d+) = \(unsigned int\)(\w+) < \(unsigned int\)(\d+) \? \2 : \3;")
    prod_re = re.compile(r"\s*const float t_\d+ = (\w+) \* (\w+);")
    starts = [i for i, line in enumerate(lines) if kb_re.match(line)]
    ends = starts[1:] + [next(i for i, line in enumerate(lines) if "wgmma.wait_group.sync.aligned 0;" in line)]
    n = 0
    for q, (lo, hi) in reversed(list(enumerate(zip(starts, ends)))):
        prods = [prod_re.match(line).groups() for line in lines[lo:hi] if prod_re.match(line)][:2]
        if len(prods) < 2:
            continue
        for j in range(lo, hi):
            lines[j] = re.sub(r"(pscale_[ab])\[(t_\d+)\]",
                              lambda m: f"{m.group(1)}[(int)min((unsigned){m.group(2)}, (unsigned){m.group(2)} + dep{q})]",
                              lines[j])
        pad = re.match(r"\s*", lines[lo]).group(0)
        lines[lo + 1:lo + 1] = [
            f"{pad}const float pre{q}a = {prods[0][0]} * {prods[0][1]};",
            f"{pad}const float pre{q}b = {prods[1][0]} * {prods[1][1]};",
            f"{pad}const unsigned dep{q} = (__float_as_uint(pre{q}a) | __float_as_uint(pre{q}b)) >> 31;"]
        n += 1
    return "\n".join(lines), n


def patch_mn(src: str) -> tuple[str, int]:
    """`src` reading A's scales MN-major (stored K block by K block, each block's M rows
    contiguous, as DeepGEMM takes them): every `pscale_a[row * KB + kb]` becomes
    `pscale_a[kb * m + row]`, so a warp's loads of 8 consecutive rows touch one 32-byte
    sector instead of 8 lines (KB, the K blocks, from the K loop's clamp; `m` the
    kernel's run-time M). The caller passes the scales so stored."""
    kb_re = re.compile(r"\(unsigned int\)i < \(unsigned int\)(\d+) \? i : \1;")
    kb = int(kb_re.search(src).group(1)) + 1
    out, n = re.subn(r"pscale_a\[([^\]]+)\]",
                     lambda mm: f"pscale_a[((unsigned)({mm.group(1)}) % {kb}u) * (unsigned)m + "
                                f"(unsigned)({mm.group(1)}) / {kb}u]", src)
    return out, n


def patch_mn_ahead(src: str, ahead: int = 2) -> tuple[str, int]:
    """`patch_mn`, and after each load of A's scales a `prefetch.global.L1` of the same rows'
    scales `ahead` K blocks on (clipped at the last): MN-major, a step's sector is read by
    that step alone, so each step's loads would otherwise go to L2."""
    kb = int(re.search(r"\(unsigned int\)i < \(unsigned int\)(\d+) \? i : \1;", src).group(1)) + 1
    lines, n = [], 0
    for line in src.split("\n"):
        lines.append(line)
        mm = re.search(r"= pscale_a\[([^\]]+)\];", line)
        if mm:
            x = f"(unsigned)({mm.group(1)})"
            pad = re.match(r"\s*", line).group(0)
            lines.append(f'{pad}asm volatile("prefetch.global.L1 [%0];" :: "l"(pscale_a + '
                         f'(min({x} % {kb}u + {ahead}u, {kb - 1}u) * (unsigned)m + {x} / {kb}u)));')
            n += 1
    return patch_mn("\n".join(lines))[0], n


CPA_HELPER = """__device__ __forceinline__ void fp_cpa(float* dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\\n" :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src) : "memory");
}
"""


def patch_cpa(src: str) -> tuple[str, int]:
    """`src` with the block scales through shared memory by `cp.async` (fp840): each step's
    three scale loads of a consumer thread become 4-byte `cp.async` into the thread's own
    slots (two rounds of A's two rows and B's one, `fp_sc[2][3][256]`), one group a step;
    after its group the step waits for the group before (`cp.async.wait_group 1`, issued a
    step earlier) and reads that step's scales with `LDS`. The scale products then wait on
    a short scoreboard, not on the `LDG` scoreboard the next step's loads share (fp837's
    13% of samples on the `FMUL`). After the loop, `wait_group 0` and the last step's slots."""
    lines = src.split("\n")
    out, n, step, in_consumer, pending = [], 0, 0, False, 0
    a_re = re.compile(r"(\s*)const float (x_?\d*) = pscale_a\[(t_\d+)\];")
    b_re = re.compile(r"(\s*)const float (x_?\d*) = pscale_b\[(t_\d+)\];")
    prod_re = re.compile(r"(\s*)const float (t_\d+) = (\w+) \* (\w+);")
    a_count = 0
    for line in lines:
        if line.startswith('extern "C" __global__'):
            out.append(CPA_HELPER)
        if "setmaxnreg.inc" in line:
            out.append(line)
            pad = re.match(r"\s*", line).group(0)
            out += [f"{pad}__shared__ float fp_sc[2][3][256];", f"{pad}int fp_par = 0;",
                    f"{pad}for (int q = 0; q < 6; ++q) fp_sc[q / 3][q % 3][threadIdx.x] = 0.0f;"]
            in_consumer = True
            continue
        if in_consumer and (m := a_re.match(line)):
            pad, x, idx = m.groups()
            out += [f"{pad}const float {x} = 0.0f;",
                    f"{pad}fp_cpa(&fp_sc[fp_par][{a_count % 2}][threadIdx.x], pscale_a + {idx});"]
            a_count += 1
            continue
        if in_consumer and (m := b_re.match(line)):
            pad, x, idx = m.groups()
            j = step
            out += [f"{pad}const float {x} = 0.0f;",
                    f"{pad}fp_cpa(&fp_sc[fp_par][2][threadIdx.x], pscale_b + {idx});",
                    f'{pad}asm volatile("cp.async.commit_group;\\n" ::: "memory");',
                    f'{pad}asm volatile("cp.async.wait_group 1;\\n" ::: "memory");',
                    f"{pad}const float fp_a0_{j} = fp_sc[fp_par ^ 1][0][threadIdx.x];",
                    f"{pad}const float fp_a1_{j} = fp_sc[fp_par ^ 1][1][threadIdx.x];",
                    f"{pad}const float fp_b_{j} = fp_sc[fp_par ^ 1][2][threadIdx.x];",
                    f"{pad}fp_par ^= 1;"]
            step += 1
            a_count = 0
            pending = 2
            n += 1
            continue
        if in_consumer and (m := prod_re.match(line)):
            pad, t, _x, _y = m.groups()
            if pending:
                j = step - 1
                out.append(f"{pad}const float {t} = fp_a{2 - pending}_{j} * fp_b_{j};")
                pending -= 1
                continue
            if step:  # after the loop: the last step's scales
                if _x.startswith("r_"):
                    which = "first" if "fp_post" not in "".join(out[-3:]) else "second"
                    if which == "first":
                        out += [f'{pad}asm volatile("cp.async.wait_group 0;\\n" ::: "memory");',
                                f"{pad}// fp_post"]
                    k = 0 if which == "first" else 1
                    out.append(f"{pad}const float {t} = fp_sc[fp_par ^ 1][{k}][threadIdx.x] * "
                               f"fp_sc[fp_par ^ 1][2][threadIdx.x];")
                    continue
        out.append(line)
    return "\n".join(out), n


VARIANTS = {"pf": lambda s: patch(s), "pf16": lambda s: patch(s, 16), "dep": patch_dep,
            "pfdep": lambda s: patch_dep(patch(s)[0]), "mn": patch_mn, "mnpf": patch_mn_ahead,
            "cpa": patch_cpa}
MN_MAJOR = ("mn", "mnpf")
"""The variants that read A's scales MN-major (`patch_mn`)."""
"""The probe's variants of the rule's CUDA. `dep` (checked in the SASS on the CPU): ptxas then
computes each step's products right after that step's own loads, inside the wgmma issue,
waiting on them as before; it is not run by default."""


REASONS_FIELDS = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")
"""nvidia-smi's names of the bit mask of why the clocks are held (the newer first)."""


def sustained(fns: dict, seconds: float, flops: float, start: int = 0) -> dict:
    """Each of `fns` launched back to back for about `seconds` (one synchronisation at the
    end), in `rotated(names, start)` order, while `nvidia-smi` samples the SM clock, the
    board's power and the clocks' event reasons every 20 ms: name -> (TFLOP/s of those
    launches, the median clock (MHz), power (W) and the reasons' bit masks seen (hex) of the
    samples inside its window, its first quarter dropped: the clock settling). Whether a
    variant is slower a step at the same clock, or runs at a lower clock."""
    import datetime
    import subprocess
    import tempfile
    import time

    import torch
    from matmul_bench import rotated

    dev = str(torch.cuda.current_device())
    fields = "timestamp,clocks.sm,power.draw"
    for r in REASONS_FIELDS:
        if subprocess.run(["nvidia-smi", "-i", dev, f"--query-gpu={r}", "--format=csv,noheader"],
                          capture_output=True).returncode == 0:
            fields += "," + r
            break
    log = tempfile.NamedTemporaryFile("w+", suffix=".csv", delete=False)
    smi = subprocess.Popen(["nvidia-smi", "-i", dev, f"--query-gpu={fields}", "--format=csv,noheader,nounits",
                            "-lms", "20"], stdout=log, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    windows = {}
    for name in rotated(list(fns), start):
        f = fns[name]
        f()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        reps = max(2, int(seconds / max(time.perf_counter() - t0, 1e-4)))
        begin, t0 = time.time(), time.perf_counter()
        for _ in range(reps):
            f()
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        windows[name] = (begin + dt / 4, begin + dt, flops * reps / dt / 1e12)
        time.sleep(0.1)
    smi.terminate()
    smi.wait()
    rows = []
    for line in open(log.name):
        parts = [x.strip() for x in line.split(",")]
        try:
            ts = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            rows.append((ts, float(parts[1]), float(parts[2]), parts[3] if len(parts) > 3 else ""))
        except (ValueError, IndexError):
            continue
    med = (lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan"))
    out = {}
    for name in fns:
        lo, hi, tf = windows[name]
        inside = [r for r in rows if lo <= r[0] <= hi]
        out[name] = (tf, med([r[1] for r in inside]), med([r[2] for r in inside]),
                     "/".join(sorted({r[3] for r in inside if r[3]})))
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["--patch"]:
        text, n = VARIANTS[argv[2] if len(argv) > 2 else "pf"](open(argv[1]).read())
        sys.stdout.write(text)
        print(f"// {n} trips patched", file=sys.stderr)
        return 0
    import dataclasses
    import os

    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    from matmul_bench import (block_fp8_within_bound, forced, fp8_within_bound, parse_config, per_call_in_turns,
                              queued_ms, rotated)

    import tilec
    from tilec import compiling, gemm
    from tilec.runtime import cache as kcache

    state = {"on": None, "patched": {}}
    orig = kcache.KernelCache.compile

    def compile_(self, source, **kw):
        if state["on"] and "pscale_a[" in source:
            source, state["patched"][state["on"]] = VARIANTS[state["on"]](source)
        return orig(self, source, **kw)

    kcache.KernelCache.compile = compile_
    names, rounds, clocks, peer_block = ["pf", "pf16"], 3, 0.0, False
    while argv[:1] in (["--variants"], ["--rounds"], ["--clocks"], ["--cublas-block"]):
        if argv[0] == "--cublas-block":
            peer_block, argv = True, argv[1:]
            continue
        if argv[0] == "--variants":
            names = [x for x in argv[1].split(",") if x]
        elif argv[0] == "--rounds":
            rounds = int(argv[1])
        else:
            clocks = float(argv[1])
        argv = argv[2:]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    ok = True
    for size in argv:  # N (N^3) or MxNxK
        m, n, k = (int(x) for x in size.split("x")) if "x" in size else (int(size),) * 3
        g = torch.Generator(device="cuda").manual_seed(m + 7)
        a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        kbs, nbs = -(-k // 128), -(-n // 128)  # ragged K or N: the last block's scales cover what is left
        bsa = 0.5 + torch.rand(m, kbs, device="cuda", generator=g)
        bsb = 0.5 + torch.rand(nbs, kbs, device="cuda", generator=g)
        sa, sb = torch.tensor(0.37, device="cuda"), torch.tensor(1.9, device="cuda")
        # A's scales stored MN-major (K block by K block), seen as a row-major (M, KB) tensor (for the
        # patched variants), and as what it is (strides (1, M): tilec.matmul's MN-major kernels)
        bsa_mn = bsa.t().contiguous().view(m, kbs)
        bsa_t = bsa.t().contiguous().t()
        rule = gemm.choose_config(m, n, sms, k=k, fp8=True, block_scales=True, b_kmajor=True)
        rule_t = gemm.choose_config(m, n, sms, k=k, fp8=True, b_kmajor=True)
        outs, fns = {}, {}
        wt = w.t()
        for label in ("rule", *names):
            base = label.removesuffix("+mn")  # NAME+mn: A's scales given MN-major to tilec.matmul
            cfg = (rule if base == "rule" else rule_t if base == "trule" else parse_config(base) if ":" in base
                   else dataclasses.replace(rule, name=f"{rule.name}:{base}probe"))
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            state["on"] = label if label in VARIANTS else None
            if state["on"]:  # compile_program keeps kernels by the program's text, the same as the rule's:
                compiling._compiled.clear()  # a patched variant must compile its own (fp840: calls 1-2 timed the rule)
            xa = bsa_mn if label in MN_MAJOR else bsa_t if label.endswith("+mn") else bsa
            xb = bsb
            if not cfg.block_scales:  # a per-tensor configuration (`f8:...`, `trule`): the one-element scales
                xa, xb = sa, sb
            try:
                with forced(gemm, cfg):
                    tilec.matmul(a, wt, scale_a=xa, scale_b=xb, out=c)
                    torch.cuda.synchronize()
                    (fast,) = gemm._fast.values()  # the call's prepared launches (forced() cleared the others)
            except Exception as e:  # noqa: BLE001 - one variant's failure reported, the others timed
                print(f"{size} {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                ok = False
                continue
            finally:
                if state["on"]:  # nor may a later variant of the same text get the patched kernel
                    compiling._compiled.clear()
                state["on"] = None
            good = (block_fp8_within_bound(c, a, w, bsa, bsb) if cfg.block_scales
                    else fp8_within_bound(c, a, w, float(sa) * float(sb)))
            ok &= bool(good)
            outs[label] = good
            fns[label] = (lambda f, c, xa, xb: lambda: f(a, wt, None, None, c, xa, xb))(fast, c, xa, xb)
            if fns[label]() is None:
                print(f"{size} {label}: the prepared launch declined the call", flush=True)
                del fns[label]
                ok = False
        if peer_block:  # cuBLAS's own block-scaled kernel (CUDA 12.9+, PyTorch's DeepSeek recipe on sm_90):
            # A's 1 x 128 scales MN-major, B's 128 x 128 as (K blocks, N blocks) of strides (1, K blocks)
            try:
                assert k % 512 == 0, "B's 128 x 128 scales padded to 4 K blocks: not here"
                bsb_t = bsb.t()
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                c.copy_(torch._scaled_mm(a, wt, scale_a=bsa_t, scale_b=bsb_t, out_dtype=torch.bfloat16))
                outs["cublas_block"] = block_fp8_within_bound(c, a, w, bsa, bsb)
                fns["cublas_block"] = lambda: torch._scaled_mm(a, wt, scale_a=bsa_t, scale_b=bsb_t,
                                                               out_dtype=torch.bfloat16)
            except Exception as e:  # noqa: BLE001 - the peer missing is reported, the rest timed
                print(f"{size} cublas_block: {type(e).__name__}: {str(e)[:160]}", flush=True)
        fns["scaled_mm"] = lambda: torch._scaled_mm(a, wt, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        if not rounds:  # `--rounds 0`: compiled (into the disk cache) and checked only
            print(f"{size} checked: {outs}, rule {rule.name}", flush=True)
            continue
        seen: dict = {name: [] for name in fns}
        for rnd in range(rounds):
            t = per_call_in_turns(fns, start=rnd)
            q = {name: queued_ms(fns[name]) for name in rotated(list(fns), rnd)}
            line = ", ".join(f"{name} {flops / t[name] / 1e9:.0f} ({t['scaled_mm'] / t[name]:.3f}) q {flops / q[name] / 1e9:.0f} "
                             f"({q['scaled_mm'] / q[name]:.3f})" for name in fns)
            print(f"{size} round {rnd}: {line}", flush=True)
            sus = sustained(fns, clocks, flops, start=rnd) if clocks else {}
            if sus:
                print(f"{size} round {rnd} sustained: " + ", ".join(
                    f"{name} {x[0]:.0f} ({x[0] / sus['scaled_mm'][0]:.3f}) {x[1]:.0f} MHz {x[2]:.0f} W {x[3]}"
                    for name, x in sus.items()), flush=True)
            for name in fns:
                seen[name].append((t[name], q[name], sus[name][0] if sus else float("nan")))
        # medians over the rounds of each ratio to _scaled_mm (per call, queued, sustained)
        ratio = {}
        for name in fns:
            per = sorted(seen["scaled_mm"][i][0] / seen[name][i][0] for i in range(rounds))
            que = sorted(seen["scaled_mm"][i][1] / seen[name][i][1] for i in range(rounds))
            sus_r = sorted(seen[name][i][2] / seen["scaled_mm"][i][2] for i in range(rounds))
            ratio[name] = (per[rounds // 2], que[rounds // 2], sus_r[rounds // 2])
        print(f"{size} medians (per call / queued / sustained, of _scaled_mm): " + ", ".join(
            f"{name} {r[0]:.3f}/{r[1]:.3f}/{r[2]:.3f}" for name, r in ratio.items()), flush=True)
        if "rule" in fns:  # each variant against the rule of the same round: median [range] of the rounds
            def against(i: int, name: str) -> list:
                return sorted(seen["rule"][r][i] / seen[name][r][i] for r in range(rounds))

            print(f"{size} x the rule (per call / queued, median [min, max] of {rounds} rounds): " + ", ".join(
                f"{name} {pc[rounds // 2]:.3f} [{pc[0]:.3f}, {pc[-1]:.3f}] / {qu[rounds // 2]:.3f} "
                f"[{qu[0]:.3f}, {qu[-1]:.3f}]" for name in fns if name != "rule"
                for pc, qu in [(against(0, name), against(1, name))]), flush=True)
        print(f"{size} checked: {outs}, rule {rule.name}, patched {state['patched']}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
