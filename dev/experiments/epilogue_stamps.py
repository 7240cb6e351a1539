"""The exposed epilogue measured directly (issue 39: bias + SiLU + cast <= 3% over the plain
GEMM at 8192 x 28672 x 4096): `clock64` stamps a tile, per consumer warpgroup, in the
rule's kernels, read back from a `__device__` buffer, then the same kernels (unstamped)
timed in turns.

    python3 dev/experiments/epilogue_stamps.py [--shape 8192x28672x4096] [--budget 20]
        [--deadline 55] [--out DIR] [--variant LABEL=ACT@CONFIG ...] [--against LABEL]

The stamps: each consumer warpgroup's thread 0 writes `clock64` at seven points of each
of its tiles (the CUDA of the variant's kernel rewritten here, as epilogue_ncu.py's `pf`;
nothing of the product changes): 0 the tile's start (the loop's head), 1 the K loop's end
(past `wgmma.wait_group 0`), 2 / 4 before chunk 0's / 1's wait for the C buffer (the last
TMA store's reads, `cp.async.bulk.wait_group.read 0`), 3 / 5 past that wait and the named
barrier after it, 6 the tile's last TMA store issued. ptxas may move arithmetic across a
stamp (the reads are `volatile` asm with a memory clobber: memory operations and other
volatile asm stay in order), so the split of a chunk's math between 1-2 and 3-4 is
approximate; the tile's (0 -> next 0), the K loop's (0 -> 1) and the epilogue's (1 -> 6)
are not. Per variant the table gives the medians over every block's tiles but its first and
last, both consumers: the tile, the K loop, the epilogue and its parts, and the stagger
(consumer 1's K loop end minus consumer 0's of the same tile). The exposed epilogue is the
tile's clocks over plain's.

Then rounds in turns of the unstamped kernels (per call, `per_call_in_turns`, and queued,
10 calls), every one checked against float64 first (output poisoned), the stamped ones too.
Default variants: `plain` (the rule's `128x256x64:4:c128` without an epilogue), `silu` (bias +
`silu`, the rule's `:st1:bsm`), `et` (the same with the consumers' epilogues in turn,
`GemmConfig.epilogue_turns`), `late` (a prototype, the rule's CUDA rewritten by `late_chunk`:
chunk 1's math after chunk 0's TMA store; a CONFIG of `--variant` may end in `#late`; with `:fe<k>`
also in `#es` / `#fy`, `tilec_ex2_fma` in fewer dependent steps: `SHORT`, `FUSED`),
`plain1` (the plain kernel with `:st1`: the staggered schedule's own plain), `et2` (`:et`
with the stagger L = 2). `--against LABEL`: every variant over that one too, with the rounds it won. With `:et` stamp 7 is consumer 0's past its wait for consumer 1's
epilogue ("turn": 7 - 1).

An experiment: nothing of the product changes."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import queued_ms  # noqa: E402
from matmul_bench import forced, gpu_state, parse_config, per_call_in_turns, rotated, within_bound  # noqa: E402

from tilec.gemm_programs import EPILOGUE_TURN_BARRIER  # noqa: E402

SUFFIX = "#stamps"
"""A configuration name's suffix that asks `gemm.matmul_kernel` for the stamped kernel."""
TILES = 64
"""Stamped tiles a block and consumer (more wrap around)."""
POINTS = 8
"""Stamps a tile (7 used)."""
BLOCKS = 264
"""Blocks the buffer has room for."""
DECL = (f"__device__ unsigned long long tilec_stamps[{BLOCKS * 2 * TILES * POINTS}];\n"
        "#define TL(i) do { if ((threadIdx.x & 127) == 0) { long long tl_v; "
        "asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(tl_v) :: \"memory\"); tl_row[i] = tl_v; } } while (0)\n")


def stamped(src: str) -> str:
    """`src` (a warp-specialized GEMM's CUDA: consumer warpgroups 0 and 1, each a persistent
    tile loop `for (int t = bx; t < ntiles; t += nprog)`) with the module docstring's seven
    stamps in each consumer's tile loop."""
    lines = src.split("\n")
    out: list[str] = []
    wg = None
    heads = [(i, m.group(3)) for i, s in enumerate(lines)
             if (m := re.match(r"^  (\} else )?if \(threadIdx\.x < (128|256)\) \{  // warpgroups? (0\.\.1|0|1)$", s))]
    starts = [i for i, _ in heads]
    wgs = ["(threadIdx.x >> 7)" if w == "0..1" else w for _, w in heads]  # one region for both, or one each
    if len(starts) not in (1, 2):
        raise ValueError(f"stamped: {len(starts)} consumer regions found, expected 1 or 2")
    # per region: the tile loop's line, the last commit of a TMA store in the loop
    last_commit = {}
    for r, s0 in enumerate(starts):
        end = next(i for i in range(s0 + 1, len(lines)) if lines[i].startswith("  } else"))
        commits = [i for i in range(s0, end) if lines[i] == "        tilec_bulk_commit_group();"]
        if not commits:
            raise ValueError("stamped: no TMA store commit in a consumer's tile loop")
        last_commit[r] = commits[-1]
    i, chunk, pending_bar, in_wait0, counts = 0, 0, None, False, {}
    while i < len(lines):
        s = lines[i]
        if i in starts:
            wg = starts.index(i)
            chunk = 0
        elif s.startswith("  } else") or s.startswith("extern \"C\" __global__"):
            if s.startswith("extern"):
                out.append(DECL)
            wg = None if not s.startswith("  } else if (threadIdx.x < 256)") else wg
        if wg is not None and re.match(r"^    for \(int (\w+) = bx; \1 < ntiles; \1 \+= nprog\) \{$", s):
            out += ["    int tl_it = 0;", s,
                    "      unsigned long long* tl_row = tilec_stamps"
                    f" + (((unsigned)blockIdx.x * 2u + {wgs[wg]}) * {TILES}u"
                    f" + ((unsigned)tl_it % {TILES}u)) * {POINTS}u;", "      TL(0);"]
            counts[(wg, 0)] = counts.get((wg, 0), 0) + 1
            chunk = 0
            i += 1
            continue
        if wg is not None and s.startswith('      asm volatile("wgmma.wait_group.sync.aligned 0;"'):
            in_wait0 = True
        if in_wait0 and s.endswith(");"):
            out += [s, "      TL(1);"]
            counts[(wg, 1)] = counts.get((wg, 1), 0) + 1
            in_wait0 = False
            i += 1
            continue
        if (wg is not None and re.match(r"^      if \(\w+\) \{$", s) and i + 1 < len(lines)
                and lines[i + 1] == "        tilec_bulk_wait_group_read<0>();" and chunk < 2):
            out.append(f"      TL({2 + 2 * chunk});")
            pending_bar = 3 + 2 * chunk
            chunk += 1
        bar = r'^      asm volatile\("bar\.sync \d+, (128|256);" ::: "memory"\);$'
        if pending_bar is not None and re.match(bar, s):
            out += [s, f"      TL({pending_bar});"]
            counts[(wg, pending_bar)] = counts.get((wg, pending_bar), 0) + 1
            pending_bar = None
            i += 1
            continue
        out.append(s)
        if wg is not None and s == f'      asm volatile("bar.sync {EPILOGUE_TURN_BARRIER}, 256;" ::: "memory");':
            out.append("      TL(7);")  # `:et`: consumer 0 past its wait for consumer 1's epilogue
        if wg is not None and i == last_commit[wg]:
            assert lines[i + 1] == "      }", lines[i + 1]
            out += [lines[i + 1], "      TL(6);", "      tl_it++;"]
            counts[(wg, 6)] = counts.get((wg, 6), 0) + 1
            i += 2
            continue
        i += 1
    for w in range(len(starts)):
        for point in (0, 1, 3, 5, 6):
            if counts.get((w, point)) != 1:
                raise ValueError(f"stamped: consumer {w}'s stamp {point} placed {counts.get((w, point), 0)} times")
    return "\n".join(out)


LATE = "#late"
"""A configuration name's mark: chunk 1's math after chunk 0's TMA store (`late_chunk`)."""


def _regions(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, end line, warpgroup) of each consumer region of a staggered kernel."""
    out = []
    for i, s in enumerate(lines):
        m = re.match(r"^  (\} else )?if \(threadIdx\.x < (128|256)\) \{  // warpgroup ([01])$", s)
        if m:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("  } else"))
            out.append((i, end, m.group(3)))
    if len(out) != 2:
        raise ValueError(f"{len(out)} staggered consumer regions found, expected 2")
    return out


def _wait0(lines: list[str], a: int, b: int) -> tuple[int, list[str]]:
    """(last line, accumulator names) of the K loop's closing `wgmma.wait_group 0` in lines a..b."""
    i = next(j for j in range(a, b) if lines[j].startswith('      asm volatile("wgmma.wait_group.sync.aligned 0;"'))
    j = next(j for j in range(i, b) if lines[j].endswith(");"))
    names = re.findall(r'"\+f"\((\w+)\)', "\n".join(lines[i:j + 1]))
    return j, names


def late_chunk(src: str) -> str:
    """The staggered kernel `src` with each consumer's second column chunk's accumulators
    passed through an empty `asm volatile` ("+f") after its first chunk's TMA store is
    issued: ptxas can no longer compute chunk 1 before chunk 0's store, so chunk 0's store
    reads its buffer while chunk 1 is computed (the C stores earlier)."""
    lines = src.split("\n")
    for a, b, _ in reversed(_regions(lines)):
        j, names = _wait0(lines, a, b)
        first = next(i for i in range(j, b) if lines[i] == "        tilec_bulk_commit_group();")
        half = names[len(names) // 2:]
        pins = ", ".join(f'"+f"({x})' for x in half)
        lines.insert(first + 2, f'      asm volatile("" : {pins});  // late chunk')
    return "\n".join(lines)


SHORT = "#es"
"""A configuration name's mark: `tilec_ex2_fma`'s degree-5 polynomial (Horner's rule, 5 fmas one
after another) evaluated as (1 + c1 f) + f^2 ((c2 + c3 f) + f^2 (c4 + c5 f)) instead: one
multiply more, 3 dependent steps after f instead of 5 (2^-22.3 relative, CPU emulation)."""


def short_chain(src: str) -> str:
    """`src` with `tilec_ex2_fma`'s Horner steps replaced by `SHORT`'s form (a prototype)."""
    lines = src.split("\n")
    at = next(i for i, x in enumerate(lines) if x.strip().startswith("float p = fmaf("))
    cs = re.findall(r"(-?[0-9.e+-]+f)", " ".join(lines[at:at + 5]))  # c5, c4, c3, c2, c1, 1.0f in order
    c5, c4, c3, c2, c1 = cs[:5]
    lines[at:at + 5] = [f"  const float f2 = f * f;", f"  const float pa = fmaf({c1}, f, 1.0f);",
                        f"  const float pb = fmaf({c3}, f, {c2});", f"  const float pc = fmaf({c5}, f, {c4});",
                        "  const float p = fmaf(f2, fmaf(f2, pc, pb), pa);"]
    return "\n".join(lines)


FUSED = "#fy"
"""A configuration name's mark: `SHORT`'s polynomial, and 2^x taken from y where x = y * -log2 e
(`probe_ex2_fma_y`): y clamped to [-88.0296, 86.6433] (x within [-125, 127]), t = fma(y, -log2 e,
1.5 * 2^23), f = fma(y, -log2 e, -j) rounded once (no rounding of x: the |y| 2^-24 term gone),
the multiply by -log2 e left dead: one instruction and one dependent step fewer."""

FUSED_HELPER = """
__device__ __forceinline__ float probe_ex2_fma_y(float y) {
  y = fminf(fmaxf(y, -88.0296f), 86.6433f);
  const float t = fmaf(y, -1.442695f, 12582912.0f);
  const float f = fmaf(y, -1.442695f, -(t - 12582912.0f));
  const float f2 = f * f;
  const float pa = fmaf(C1, f, 1.0f);
  const float pb = fmaf(C3, f, C2);
  const float pc = fmaf(C5, f, C4);
  const float p = fmaf(f2, fmaf(f2, pc, pb), pa);
  return __uint_as_float(__float_as_uint(p) + (__float_as_uint(t) << 23));
}
"""


def fused_y(src: str) -> str:
    """`src` with each `tilec_ex2_fma(x)` whose x is `y * (-1.442695f)` computed from y by
    `probe_ex2_fma_y` (`FUSED`; a prototype)."""
    from tilec.dialects.cuda import EX2_FMA_POLY

    scaled = dict(re.findall(r"const float (\w+) = (\w+) \* \(-1\.442695f\);", src))
    src = re.sub(r"tilec_ex2_fma\((\w+)\)", lambda m: f"probe_ex2_fma_y({scaled[m.group(1)]})", src)
    helper = FUSED_HELPER
    for i, c in enumerate(EX2_FMA_POLY, 1):
        helper = helper.replace(f"C{i}", f"{c:.9g}f")
    at = src.index("__device__ __forceinline__ float tilec_ex2_fma(")
    return src[:at] + helper.lstrip("\n") + "\n" + src[at:]


RCP_FMA = "#rf"
"""A configuration name's mark, `#rf<k>`: SiLU's quotient y / d, d = 1 + 2^x, by a reciprocal on the FMA
pipe (`probe_div_fma`) in k of every 6 elements whose 2^x is `MUFU.EX2` (with `:fe2`: k of 8 elements),
`div.approx` (`MUFU.RCP` + `FMUL`) in the others: d clamped to 2^126 (`div.approx` gives 0 past it; here
y 2^-126, both within the bound's absolute term), the seed 0x7EF311C3 - bits(d) (5.1% relative at most,
10% at 2^125-2^126), one cubic step r (1 + e + e^2) and one Newton step r (1 + e), e = 1 - d r (fmas): 2^-23.6
relative below d = 2^125 (f32 CPU emulation over every mantissa; 2^-19.8 above, y < -86.6 where silu(y) is
below 2^-117), about `rcp.approx`'s 1 ulp; then y r: 1 `FMNMX`, 1 integer
subtract, 5 `FFMA` in 6 dependent steps where `MUFU.RCP` is one op (a prototype)."""

RCP_FMA_HELPER = """
__device__ __forceinline__ float probe_div_fma(float y, float d) {
  d = fminf(d, 8.50705917e37f);
  float r = __uint_as_float(0x7EF311C3u - __float_as_uint(d));
  float e = fmaf(-d, r, 1.0f);
  r = fmaf(r, fmaf(e, e, e), r);
  e = fmaf(-d, r, 1.0f);
  return y * fmaf(r, e, r);
}
"""


def rcp_fma(src: str, k: int) -> str:
    """`src` with k of every 6 `tilec_div_approx_ftz(y, d)` whose d is `t + 1.0f`, t an
    `tilec_ex2_approx_ftz`, taken by `probe_div_fma` (`RCP_FMA`; in order of the source: the i-th such
    division where i mod 6 < k)."""
    defs = dict(re.findall(r"const float (t_\d+) = (.+);", src))

    def on_mufu(d: str) -> bool:
        m = re.fullmatch(r"(t_\d+) \+ 1\.0f", defs.get(d, ""))
        return bool(m) and defs.get(m.group(1), "").startswith("tilec_ex2_approx_ftz(")

    seen = [0]

    def sub(m):
        if not on_mufu(m.group(2)):
            return m.group(0)
        i, seen[0] = seen[0], seen[0] + 1
        return f"probe_div_fma({m.group(1)}, {m.group(2)})" if i % 6 < k else m.group(0)

    out = re.sub(r"tilec_div_approx_ftz\((t_\d+), (t_\d+)\)", sub, src)
    if seen[0] == 0:
        raise ValueError("rcp_fma: no division by 1 + ex2.approx found")
    at = out.index("__device__ __forceinline__ float tilec_ex2_approx_ftz(")
    return out[:at] + RCP_FMA_HELPER.lstrip("\n") + "\n" + out[at:]


PAIR = "#pr"
"""A configuration name's mark, `#pr<k>`: k of every 3 pairs of SiLU's quotients y / d on consecutive lines whose
d are 1 + `ex2.approx` (with `:fe2` one pair of each 4 elements, `#pr3` all: 1.5 `MUFU` an element) share one
`rcp.approx` (`probe_div_pair`): both d
clamped to 2^63 (a clamped d's quotient y 2^-63 at y < -43.6, within the bound's absolute term), r = rcp(d1 d2),
1 / d1 = d2 r, 1 / d2 = d1 r: 2 `FMNMX` and 3 `FMUL` where the second `MUFU.RCP` was, about 2.5 ulp against
`div.approx`'s 2 (a prototype: within docs/matmul.md's bound, not proven faithful)."""

PAIR_HELPER = """
__device__ __forceinline__ float2 probe_div_pair(float y1, float d1, float y2, float d2) {
  d1 = fminf(d1, 9.22337204e18f);
  d2 = fminf(d2, 9.22337204e18f);
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d1 * d2));
  return make_float2(y1 * (d2 * r), y2 * (d1 * r));
}
"""


PAIR_ALL = "#pa"
"""A configuration name's mark: every two SiLU quotients on consecutive lines share one `rcp.approx`
(`probe_div_pair`), whichever pipe took their 2^x (`div_pairs(..., any_exp2=True)`; with `:fe2` 1.25 `MUFU`
an element: what a clamped divisor would give through lower-to-gpu's `cuda.div_approx_group`)."""


def div_pairs(src: str, k: int, any_exp2: bool = False) -> str:
    """`src` with k of every 3 pairs of `tilec_div_approx_ftz(y, d)` statements on consecutive lines, both d
    `t + 1.0f` with t an `tilec_ex2_approx_ftz` (or, `any_exp2`, a `tilec_ex2_fma` too), computed by one
    `probe_div_pair` (`PAIR`, `PAIR_ALL`)."""
    defs = dict(re.findall(r"const float (t_\d+) = (.+);", src))
    kinds = ("tilec_ex2_approx_ftz(", "tilec_ex2_fma(") if any_exp2 else ("tilec_ex2_approx_ftz(",)

    def on_mufu(d: str) -> bool:
        m = re.fullmatch(r"(t_\d+) \+ 1\.0f", defs.get(d, ""))
        return bool(m) and defs.get(m.group(1), "").startswith(kinds)

    pat = re.compile(r"^(\s*)const float (t_\d+) = tilec_div_approx_ftz\((t_\d+), (t_\d+)\);$")
    lines, i, pairs = src.split("\n"), 0, 0
    while i + 1 < len(lines):
        a, b = pat.match(lines[i]), pat.match(lines[i + 1])
        if a and b and on_mufu(a.group(4)) and on_mufu(b.group(4)):
            if pairs % 3 < k:
                ind, pp = a.group(1), "pp_" + a.group(2)
                lines[i] = (f"{ind}const float2 {pp} = probe_div_pair({a.group(3)}, {a.group(4)}, {b.group(3)}, "
                            f"{b.group(4)}); const float {a.group(2)} = {pp}.x;")
                lines[i + 1] = f"{ind}const float {b.group(2)} = {pp}.y;"
            pairs += 1
            i += 2
            continue
        i += 1
    if not pairs:
        raise ValueError("div_pairs: no two divisions by 1 + ex2.approx on consecutive lines")
    out = "\n".join(lines)
    at = out.index("__device__ __forceinline__ float tilec_ex2_approx_ftz(")
    return out[:at] + PAIR_HELPER.lstrip("\n") + "\n" + out[at:]


def install() -> None:
    """`gemm.matmul_kernel` builds the stamped kernel for a configuration named `X#stamps`."""
    import copy

    from tilec import gemm

    original = gemm.matmul_kernel

    def matmul_kernel(key):
        name = key.config.name
        if "#" not in name:
            return original(key)
        plain = dataclasses.replace(key, config=dataclasses.replace(key.config, name=name[:name.index("#")]))
        k = copy.copy(original(plain))
        if LATE in name:
            k.source = late_chunk(k.source)
        if SHORT in name:
            k.source = short_chain(k.source)
        if FUSED in name:
            k.source = fused_y(k.source)
        if m := re.search(RCP_FMA + r"(\d)", name):
            k.source = rcp_fma(k.source, int(m.group(1)))
        if m := re.search(PAIR + r"(\d)", name):
            k.source = div_pairs(k.source, int(m.group(1)))
        if PAIR_ALL in name:
            k.source = div_pairs(k.source, 3, any_exp2=True)
        if name.endswith(SUFFIX):
            k.source = stamped(k.source)
        k._compiled, k._modules, k._functions, k._packed = {}, {}, {}, {}
        gemm._kernels[key] = k
        return k

    gemm.matmul_kernel = matmul_kernel


def read_stamps(kernel) -> "object":
    """The stamps of `kernel`'s last launch: an int64 array [blocks, 2, TILES, POINTS]."""
    import cupy
    import numpy as np

    module = next(iter(kernel._modules.values()))
    ptr = module.get_global_var("tilec_stamps")
    n = BLOCKS * 2 * TILES * POINTS
    mem = cupy.cuda.UnownedMemory(ptr, n * 8, kernel)
    arr = cupy.ndarray((n,), dtype=cupy.int64, memptr=cupy.cuda.MemoryPointer(mem, 0))
    return np.asarray(arr.get()).reshape(BLOCKS, 2, TILES, POINTS)


def zero_stamps(kernel) -> None:
    import cupy

    module = next(iter(kernel._modules.values()))
    cupy.cuda.runtime.memset(module.get_global_var("tilec_stamps"), 0, BLOCKS * 2 * TILES * POINTS * 8)
    cupy.cuda.runtime.deviceSynchronize()


PARTS = ("tile", "kloop", "epi", "pre0", "wait0", "mid", "wait1", "post", "stagger", "turn")


def split(s, blocks: int) -> dict:
    """The medians (clocks) of the module docstring's parts over every block's tiles but its
    first and last, both consumers; also the means of `tile` and `epi`."""
    import numpy as np

    vals: dict = {p: [] for p in PARTS}
    for b in range(blocks):
        n = int(np.count_nonzero(s[b, 0, :, 6]))
        n1 = int(np.count_nonzero(s[b, 1, :, 6]))
        for w in (0, 1):
            nn = n if w == 0 else n1
            for t in range(1, min(nn, TILES) - 1):
                r, nxt = s[b, w, t], s[b, w, t + 1]
                vals["tile"].append(nxt[0] - r[0])
                vals["kloop"].append(r[1] - r[0])
                vals["epi"].append(r[6] - r[1])
                vals["pre0"].append(r[2] - r[1])
                vals["wait0"].append(r[3] - r[2])
                vals["mid"].append(r[4] - r[3])
                vals["wait1"].append(r[5] - r[4])
                vals["post"].append(r[6] - r[5])
                if r[7]:  # `:et`: consumer 0's wait for consumer 1's epilogue
                    vals["turn"].append(r[7] - r[1])
                if w == 1 and t < n:
                    vals["stagger"].append(int(s[b, 1, t, 1]) - int(s[b, 0, t, 1]))
    med = {p: (statistics.median(v) if v else float("nan")) for p, v in vals.items()}
    med["tile_mean"] = float(np.mean(vals["tile"])) if vals["tile"] else float("nan")
    med["epi_mean"] = float(np.mean(vals["epi"])) if vals["epi"] else float("nan")
    med["n"] = len(vals["tile"])
    return med


class _NoStamps(Exception):
    """`--stamp-runs 0`: no stamped kernel."""


def main() -> None:
    start = time.time()
    import torch

    import tilec
    from tilec import gemm

    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="8192x28672x4096")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds of rounds")
    ap.add_argument("--deadline", type=float, default=55.0, help="seconds since the start past which nothing starts")
    ap.add_argument("--compile-by", type=float, default=30.0)
    ap.add_argument("--stamp-runs", type=int, default=3, help="stamped launches a variant (the table: the last); 0: no stamped kernel built")
    ap.add_argument("--out", default=".")
    ap.add_argument("--variant", action="append", default=[], help="LABEL=ACT@CONFIG (ACT: silu, silu_tanh, bias "
                    "or plain); the first is the one the others are over")
    ap.add_argument("--against", default=None, help="a second baseline LABEL: each variant over it too, with the "
                    "rounds it won")
    args = ap.parse_args()
    left = lambda: args.deadline - (time.time() - start)  # noqa: E731
    install()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    m, n, k = (int(x) for x in args.shape.split("x"))
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)

    specs = args.variant or ["plain=plain@rule", "silu=silu@rule:st1:bsm", "et=silu@rule:st1:bsm:et",
                             "late=silu@rule:st1:bsm#late", "plain1=plain@rule:st1", "et2=silu@rule:st2:bsm:et"]
    rule = gemm.choose_config(m, n, sms, k=k)
    variants = {}
    for spec in specs:
        label, rest = spec.split("=")
        act, name = rest.split("@")
        name, *marks = name.replace("rule", rule.name, 1).split("#")
        cfg = parse_config(name)
        cfg = dataclasses.replace(cfg, name=cfg.name + "".join("#" + x for x in marks))
        variants[label] = (cfg, None if act in ("bias", "plain") else act, act != "plain")
    print("variants: " + ", ".join(f"{v} {act or ('bias' if wb else 'plain')}@{cfg.name}"
                                   for v, (cfg, act, wb) in variants.items()), flush=True)
    fns, configs, checks, stamps = {}, {}, {}, {}
    for v, (cfg, act, with_bias) in variants.items():
        if time.time() - start > args.compile_by:
            print(f"{v}: left out (compile deadline)", flush=True)
            continue
        kw = {"bias": bias, "activation": act} if with_bias else {}
        fn = lambda kw=kw: tilec.matmul(a, b, out=c, **kw)  # noqa: E731
        t0 = time.time()
        # the stamped kernel first: checked, then its stamps
        scfg = dataclasses.replace(cfg, name=cfg.name + SUFFIX)
        try:
            if not args.stamp_runs:
                raise _NoStamps
            with forced(gemm, scfg):
                c.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                sok = within_bound(c, a, b, kw.get("bias"), act)
                kern = next(kk for key, kk in gemm._kernels.items() if key.config.name == scfg.name)
                for _ in range(args.stamp_runs):
                    zero_stamps(kern)
                    fn()
                    torch.cuda.synchronize()
                stamps[v] = read_stamps(kern)
        except _NoStamps:
            sok = None
        except Exception as e:  # noqa: BLE001 - say it and go on without stamps
            print(f"{v}: stamps {type(e).__name__}: {str(e)[:200]}", flush=True)
            sok = None
        with forced(gemm, cfg):
            c.fill_(float("nan"))
            try:
                fn()
                torch.cuda.synchronize()
                ok = within_bound(c, a, b, kw.get("bias"), act)
            except Exception as e:  # noqa: BLE001 - say it and leave the variant out
                print(f"{v}: {type(e).__name__}: {str(e)[:160]}", flush=True)
                checks[v] = type(e).__name__
                continue
            fn()
            fast = dict(gemm._fast)
        call = lambda fn=fn, fast=fast: (setattr(gemm, "_fast", fast), fn())  # noqa: E731
        checks[v] = f"{'ok' if ok else 'FAIL'}/stamped {'-' if sok is None else 'ok' if sok else 'FAIL'}"
        print(f"{v} ({cfg.name}): compiled and checked in {time.time() - t0:.1f} s, {checks[v]}", flush=True)
        fns[v], configs[v] = call, cfg

    blocks = min(sms, BLOCKS)
    table = {v: split(s, blocks) for v, s in stamps.items()}
    first = next(iter(fns))
    per = {v: [] for v in fns}
    queued = {v: [] for v in fns}
    states = [gpu_state()]
    t0, r = time.time(), 0
    while r < 3 or (time.time() - t0 < args.budget and left() > 4):
        for v, ms in per_call_in_turns(fns, start=r, reps=3, warmup=1).items():
            per[v].append(ms)
        for v in rotated(list(fns), r):
            queued[v].append(queued_ms(fns[v], reps=10, warmup=1))
        r += 1
    states.append(gpu_state())

    def rel(xs, ys) -> str:
        d = sorted(100 * (x / y - 1) for x, y in zip(xs, ys))
        return f"{statistics.median(d):+.2f}% [{d[len(d) // 4]:+.2f}, {d[min(len(d) - 1, 3 * len(d) // 4)]:+.2f}]"

    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "stamps_rounds.json").write_text(json.dumps(
        {"shape": [m, n, k], "configs": {v: configs[v].name for v in fns}, "per_call_ms": per, "queued_ms": queued,
         "gpu_state": states, "stamps": table}, indent=1, default=float))
    import numpy as np
    for v, s in stamps.items():
        np.save(Path(args.out) / f"stamps_{v}.npy", s[:blocks])
    print("nvidia-smi (MHz W C reasons): " + " | ".join(states))
    print(f"\nSUMMARY {m}x{n}x{k}, {r} rounds in {time.time() - t0:.0f} s; MHz W: "
          + " | ".join(" ".join(x.split()[:2]) for x in states))
    print("checks (unstamped/stamped): " + ", ".join(f"{v} {checks[v].replace('/stamped ', '/')}" for v in checks))
    print("stamps, clocks a consumer's tile (medians): " + " ".join(PARTS))
    b0 = table.get(first)
    for v, t in table.items():
        over = f" exposed {t['tile'] - b0['tile']:+.0f} (means {t['tile_mean'] - b0['tile_mean']:+.0f})" if b0 else ""
        print(f"{v}: " + " ".join(f"{t[p]:.0f}" for p in PARTS) + f" n={t['n']}{over}", flush=True)
    print(f"turns (over {first}): per call ms [quartiles] | queued ms")
    for v in fns:
        print(f"{v}: {statistics.median(per[v]):.4f} {rel(per[v], per[first]) if v != first else ''} | "
              f"{statistics.median(queued[v]):.4f} {rel(queued[v], queued[first]) if v != first else ''}", flush=True)
    base = args.against if args.against in fns else None
    if base:
        print(f"over {base}: per call [quartiles] won | queued [quartiles] won")
        for v in fns:
            if v != base:
                won = lambda xs, ys: sum(x < y for x, y in zip(xs, ys))  # noqa: E731
                print(f"{v}: {rel(per[v], per[base])} {won(per[v], per[base])}/{r} | "
                      f"{rel(queued[v], queued[base])} {won(queued[v], queued[base])}/{r}", flush=True)


if __name__ == "__main__":
    main()
