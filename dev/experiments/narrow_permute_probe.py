"""Experiment for issue #20 (narrow permutes): a "box" copy kernel, hand-written CUDA, to
measure the design before it is built in tilec IR. Not a test, not the API.

    python3 dev/experiments/narrow_permute_probe.py [--only 42,36] [--out DIR]
    python3 dev/experiments/narrow_permute_probe.py --compile-only   # NVRTC, no GPU

The design (benchmarks/NOTES.md, "The box kernel: 1-byte transposes without padding";
the kernel tilec builds from v3 is api/copy_box.py): each block copies a box of the
merged modes whose extents are exact (a short mode is taken whole, not padded
to a power of two; a long one in chunks). The box is a set of *src runs* (the src-order
prefix of box modes that are contiguous in the src: 37 x 17 = 629 bytes for case 42)
and a set of *dst runs* (likewise in the dst: 17 x T bytes). Phase 1 copies each src
run into its own shared-memory slot with aligned 4-byte loads, realigned by a funnel
shift (no byte loads); phase 2 gives each thread one 16-byte-aligned chunk of a dst run:
it walks the chunk's elements (coordinates incremented, no division per element),
reads each from shared memory, converts, packs them in registers and stores one
16-byte vector (a chunk cut by the run's ends stores element by element). The pattern
(rank, which modes form the runs, dtypes) is compiled in; extents, strides and box
extents are run-time values. That was v1 (its figures are in benchmarks/NOTES.md); the code
here is v2 (`kernel_source`: byte-pitched slots padded against bank conflicts, one dst
word per thread) and v3 (`kernel_source_v3`: cp.async into slots congruent mod 16).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

sys.path.insert(0, "benchmarks")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))

TYPES = {
    "int8": ("unsigned char", 1),
    "uint8": ("unsigned char", 1),
    "bool": ("unsigned char", 1),
    "int16": ("unsigned short", 2),
    "float16": ("unsigned short", 2),
    "bfloat16": ("unsigned short", 2),
}


def convert_expr(src: str, dst: str) -> str:
    if src == dst or (src, dst) in {("int8", "uint8"), ("uint8", "int8"), ("bool", "uint8"), ("bool", "int8")}:
        return "x"
    if src == "bool" and dst == "int16":
        return "(unsigned short)(x != 0)"
    if src == "float16" and dst == "bfloat16":
        return "__bfloat16_as_ushort(__float2bfloat16_rn(__half2float(__ushort_as_half(x))))"
    raise ValueError(f"no conversion {src}->{dst} in the probe")


def runs(order: list[int], strides, ns, box) -> list[int]:
    """The prefix of `order` (box modes, fastest first) that is contiguous in a view
    of these strides: the first of stride 1, each next one stepping over the previous
    whole ones; every mode but the last taken whole."""
    out: list[int] = []
    reach = 1
    for k in order:
        if box[k] == 1 or strides[k] != reach:
            break
        out.append(k)
        if box[k] != ns[k]:
            break
        reach *= ns[k]
    return out


def plan_box(ns, ss, ds, box):
    """(S, RS, D, RD, G): the src-run modes (src order), the other box modes (dst
    order: the dst's fastest first, so that consecutive dst elements along a mode
    outside the src run step by the slot pitch), the dst-run modes, the other box
    modes, the modes the grid steps (box extent below the extent), dst-fastest first."""
    rank = len(ns)
    sorder = sorted((k for k in range(rank) if box[k] > 1), key=lambda k: ss[k])
    dorder = sorted((k for k in range(rank) if box[k] > 1), key=lambda k: ds[k])
    S = runs(sorder, ss, ns, box)
    D = runs(dorder, ds, ns, box)
    assert S and D, (S, D)
    RS = [k for k in dorder if k not in S]
    RD = [k for k in dorder if k not in D]
    G = [k for k in range(rank) if box[k] < ns[k]][::-1]
    return S, RS, D, RD, G


def _prologue(e, src_dtype, dst_dtype, rank, S, D, G, tail, pointers) -> None:
    """What both kernels begin with: helpers, the signature (per mode n, ss, ds, box
    extent, smem stride, tiles and box-extent magic; then `tail`), the shared
    buffers' pointers, the block's origin and offsets, the valid run lengths."""
    st, es = TYPES[src_dtype]
    _, ed = TYPES[dst_dtype]
    e("#include <cuda_fp16.h>\n#include <cuda_bf16.h>")
    e("typedef unsigned int u32; typedef long long i64; typedef unsigned long long u64;")
    e("__device__ __forceinline__ u32 fdiv(u32 x, u32 m, u32 l) { return (u32)(((u64)__umulhi(x, m) + x) >> l); }")
    e(f"__device__ __forceinline__ u32 cvt({st} x) {{ return (u32)({convert_expr(src_dtype, dst_dtype)}); }}")
    args = ["const unsigned char* __restrict__ src", "unsigned char* __restrict__ dst"]
    for k in range(rank):
        args += [
            f"i64 n{k}",
            f"i64 ss{k}",
            f"i64 ds{k}",
            f"int b{k}",
            f"int sm{k}",
            f"int g{k}",
            f"u32 bm{k}",
            f"u32 bl{k}",
        ]
    args += tail
    e(f'extern "C" __global__ void __launch_bounds__(256) box_copy({", ".join(args)}) {{')
    e("  extern __shared__ __align__(16) unsigned char smem[];")
    for line in pointers:
        e(f"  {line}")
    e("  const u32 tid = threadIdx.x;")
    e("  u32 bid = blockIdx.x;")
    for k in range(rank):
        e(f"  i64 o{k} = 0;")
    for i, k in enumerate(G):
        if i == len(G) - 1:
            e(f"  o{k} = (i64)bid * b{k};")
        else:
            e(f"  o{k} = (i64)(bid % g{k}) * b{k}; bid /= g{k};")
    e("  const i64 sorig = " + " + ".join(f"o{k} * ss{k}" for k in range(rank)) + ";")
    e("  const i64 dorig = " + " + ".join(f"o{k} * ds{k}" for k in range(rank)) + ";")

    def valid(modes):
        return " * ".join(f"(i64)min((i64)b{k}, n{k} - o{k})" for k in modes)

    e(f"  const u32 LsB = (u32)({valid(S)} * {es});")
    e(f"  const i64 LdB = {valid(D)} * {ed};")


def kernel_source(src_dtype: str, dst_dtype: str, rank: int, S, RS, D, RD, G) -> str:
    st, es = TYPES[src_dtype]
    dt, ed = TYPES[dst_dtype]
    epw = 4 // ed  # dst elements per 32-bit word
    L = []
    e = L.append
    _prologue(
        e,
        src_dtype,
        dst_dtype,
        rank,
        S,
        D,
        G,
        ["u32 PB", "u32 pbm", "u32 pbl", "u32 SW", "u32 Cw", "u32 cwm", "u32 cwl", "u32 R", "u32 Rd"],
        [
            "u32* smw = (u32*)smem;",
            f"const {st}* sme = (const {st}*)smem;",
            "i64* srun = (i64*)(smem + ((SW * 4 + 15) & ~15u));",
            "i64* drun = srun + R;",
            "int* dsb = (int*)(drun + Rd);",
        ],
    )
    e("  for (u32 r = tid; r < R; r += 256) {")
    e("    u32 q = r; bool ok = true; i64 off = sorig;")
    for k in RS:
        e(f"    {{ u32 c = q % b{k}; q /= b{k}; ok = ok && o{k} + c < n{k}; off += c * ss{k}; }}")
    e(f"    srun[r] = ok ? off * {es} : -1;")
    e("  }")
    e("  for (u32 r = tid; r < Rd; r += 256) {")
    e("    u32 q = r; bool ok = true; i64 off = dorig; int sb = 0;")
    for k in RD:
        e(f"    {{ u32 c = q % b{k}; q /= b{k}; ok = ok && o{k} + c < n{k}; off += c * ds{k}; sb += c * sm{k}; }}")
    e(f"    drun[r] = ok ? off * {ed} : -1; dsb[r] = sb;")
    e("  }")
    e("  __syncthreads();")
    # phase 1: smem word w holds bytes 4w..4w+3 of the slots (run r at r * PB)
    e("  for (u32 w = tid; w < SW; w += 256) {")
    e("    const u32 b0 = 4 * w; const u32 r = fdiv(b0, pbm, pbl); const u32 q = b0 - r * PB;")
    e("    if (q + 4 <= PB) {")
    e("      const i64 so = srun[r];")
    e("      if (so < 0 || q >= LsB) continue;")
    e("      const u64 a = (u64)(src + so) + q;")
    e("      const u32* al = (const u32*)(a & ~3ull); const u32 m = a & 3;")
    e("      u32 v = __ldg(al);")
    e("      if (m) { u32 hi = (q + 4 - m < LsB) ? __ldg(al + 1) : 0u; v = __funnelshift_r(v, hi, 8 * m); }")
    e("      smw[w] = v;")
    e("    } else {")
    e("      u32 v = 0;")
    e("      for (u32 t = 0; t < 4; ++t) {")
    e("        u32 rr = r, qq = q + t; if (qq >= PB) { rr += 1; qq -= PB; }")
    e("        if (rr < R && qq < LsB) { const i64 so = srun[rr]; if (so >= 0) v |= (u32)src[so + qq] << (8 * t); }")
    e("      }")
    e("      smw[w] = v;")
    e("    }")
    e("  }")
    e("  __syncthreads();")
    # phase 2: one aligned dst word per thread step
    e("  for (u32 idx = tid; idx < Rd * Cw; idx += 256) {")
    e("    const u32 rd = fdiv(idx, cwm, cwl); const u32 c = idx - rd * Cw;")
    e("    const i64 doff = drun[rd];")
    e("    if (doff < 0) continue;")
    e("    const u64 start = (u64)dst + doff, end = start + LdB;")
    e("    const u64 cs = (start & ~3ull) + 4ull * c, ce = cs + 4;")
    e("    if (cs >= end) continue;")
    e("    const u64 lo = cs > start ? cs : start, hi = ce < end ? ce : end;")
    e(f"    u32 q = (u32)((lo - start) / {ed});")
    e("    int so = dsb[rd];")
    for i, k in enumerate(D):
        if i == len(D) - 1:
            e(f"    u32 c{k} = q; so += c{k} * sm{k};")
        else:
            e(f"    u32 c{k}; {{ u32 qq = fdiv(q, bm{k}, bl{k}); c{k} = q - qq * b{k}; q = qq; }} so += c{k} * sm{k};")
    adv = [f"c{D[0]}++; so += sm{D[0]};"]
    for i in range(len(D) - 1):
        k, nk = D[i], D[i + 1]
        adv.append(f"if (c{k} == (u32)b{k}) {{ c{k} = 0; so += sm{nk} - b{k} * sm{k}; c{nk}++;")
    adv.append("}" * (len(D) - 1))
    advance = " ".join(adv)
    e("    if (lo == cs && hi == ce) {")
    e("      u32 v = 0;")
    e("      #pragma unroll")
    e(f"      for (int t = 0; t < {epw}; ++t) {{ v |= cvt(sme[so]) << ({8 * ed} * t); {advance} }}")
    e("      *(u32*)cs = v;")
    e("    } else {")
    e(f"      for (u64 p = lo; p < hi; p += {ed}) {{ *({dt}*)p = ({dt})cvt(sme[so]); {advance} }}")
    e("    }")
    e("  }")
    e("}")
    return "\n".join(L)


def kernel_source_v3(src_dtype: str, dst_dtype: str, rank: int, S, RS, D, RD, G) -> str:
    """v3, for boxes whose dst-fastest mode lies inside the src run (D[0] in S):
    phase 1 copies each src run's 16-byte-aligned chunks with cp.async into a slot
    congruent to it mod 16 (no registers, no realignment); phase 2 gives each thread
    one 16-byte dst chunk, walked in words rotated by (lane >> 3) & 3 so that lanes
    stepping an odd number of smem words apart read 32 banks."""
    st, es = TYPES[src_dtype]
    dt, ed = TYPES[dst_dtype]
    assert D[0] in S
    epw = 4 // ed
    L = []
    e = L.append
    _prologue(
        e,
        src_dtype,
        dst_dtype,
        rank,
        S,
        D,
        G,
        ["u32 PB", "u32 NC", "u32 ncm", "u32 ncl", "u32 SW", "u32 Cd", "u32 cdm", "u32 cdl", "u32 R", "u32 Rd"],
        [
            "i64* srun = (i64*)(smem + SW);",
            "int* sl = (int*)(srun + R);",
            "i64* drun = (i64*)(sl + ((R + 1) & ~1u));",
            "int* dq = (int*)(drun + Rd);",
            "int* dr = dq + Rd;",
        ],
    )
    # run index strides over RS (in units of runs)
    rstr = {}
    acc = "1"
    for k in RS:
        rstr[k] = acc
        acc = f"{acc} * b{k}"
    e("  for (u32 r = tid; r < R; r += 256) {")
    e("    u32 q = r; bool ok = true; i64 off = sorig;")
    for k in RS:
        e(f"    {{ u32 c = q % b{k}; q /= b{k}; ok = ok && o{k} + c < n{k}; off += c * ss{k}; }}")
    e(f"    srun[r] = ok ? off * {es} : -1;")
    e(f"    sl[r] = r * PB + (int)(((u64)src + off * {es}) & 15);")
    e("  }")
    e("  for (u32 r = tid; r < Rd; r += 256) {")
    e("    u32 q = r; bool ok = true; i64 off = dorig; int qq = 0, rr = 0;")
    for k in RD:
        if k in S:
            e(f"    {{ u32 c = q % b{k}; q /= b{k}; ok = ok && o{k} + c < n{k}; off += c * ds{k}; qq += c * sm{k}; }}")
        else:
            e(
                f"    {{ u32 c = q % b{k}; q /= b{k}; ok = ok && o{k} + c < n{k}; off += c * ds{k}; rr += c * ({rstr[k]}); }}"
            )
    e(f"    drun[r] = ok ? off * {ed} : -1; dq[r] = qq; dr[r] = rr;")
    e("  }")
    e("  __syncthreads();")
    e("  for (u32 idx = tid; idx < R * NC; idx += 256) {")
    e("    const u32 r = fdiv(idx, ncm, ncl); const u32 j = idx - r * NC;")
    e("    const i64 so = srun[r];")
    e("    if (so < 0) continue;")
    e("    const u64 a = (u64)(src + so);")
    e("    if (16 * j >= (a & 15) + LsB) continue;")
    e("    const u64 g = (a & ~15ull) + 16ull * j;")
    e("    const u32 sa = (u32)__cvta_generic_to_shared(smem + r * PB + 16 * j);")
    e('    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(g));')
    e("  }")
    e('  asm volatile("cp.async.wait_all;" ::: "memory");')
    e("  __syncthreads();")
    e("  const u32 rot = (tid >> 3) & 3;")
    e("  for (u32 idx = tid; idx < Rd * Cd; idx += 256) {")
    e("    const u32 rd = fdiv(idx, cdm, cdl); const u32 c = idx - rd * Cd;")
    e("    const i64 doff = drun[rd];")
    e("    if (doff < 0) continue;")
    e("    const u64 start = (u64)dst + doff, end = start + LdB;")
    e("    const u64 cs = (start & ~15ull) + 16ull * c, ce = cs + 16;")
    e("    if (cs >= end || ce <= start) continue;")
    e("    const u64 lo = cs > start ? cs : start, hi = ce < end ? ce : end;")
    e(f"    const u32 qfirst = (u32)((lo - start) / {ed});")
    e("    const int qb = dq[rd], rb = dr[rd];")
    # decomposition of position p into coords, q (smem offset within the run) and r
    decl = " ".join(f"u32 c{k};" for k in D)
    e(f"    {decl} int q; int r; int slr;")

    def decompose(pos: str) -> None:
        e(f"    {{ u32 p = {pos}; q = qb; r = rb;")
        for i, k in enumerate(D):
            if i == len(D) - 1:
                e(f"      c{k} = p;")
            else:
                e(f"      {{ u32 pp = fdiv(p, bm{k}, bl{k}); c{k} = p - pp * b{k}; p = pp; }}")
            if k in S:
                e(f"      q += c{k} * sm{k};")
            else:
                e(f"      r += c{k} * ({rstr[k]});")
        e("      slr = sl[r]; }")

    adv = [f"c{D[0]}++; q += sm{D[0]};"]
    for i in range(len(D) - 1):
        k, nk = D[i], D[i + 1]
        back = f"q -= b{k} * sm{k};" if k in S else f"r -= b{k} * ({rstr[k]});"
        fwd = f"q += sm{nk};" if nk in S else f"r += {rstr[nk]};"
        adv.append(f"if (c{k} == (u32)b{k}) {{ c{k} = 0; {back} {fwd} c{nk}++; slr = sl[r];")
    adv.append("}" * (len(D) - 1))
    advance = " ".join(adv)
    e("    if (lo == cs && hi == ce) {")
    decompose(f"qfirst + {epw} * rot")
    e("      u32 w[4];")
    e("      #pragma unroll")
    e("      for (int j = 0; j < 4; ++j) {")
    e("        if (j == 4 - (int)rot) {")
    decompose("qfirst")
    e("        }")
    e("        u32 v = 0;")
    e("        #pragma unroll")
    e(
        f"        for (int t = 0; t < {epw}; ++t) {{ v |= cvt(*(const {st}*)(smem + slr + q * {es})) << ({8 * ed} * t); {advance} }}"
    )
    e("        w[j] = v;")
    e("      }")
    e("      uint4 o;")
    e("      o.x = rot == 0 ? w[0] : rot == 1 ? w[3] : rot == 2 ? w[2] : w[1];")
    e("      o.y = rot == 0 ? w[1] : rot == 1 ? w[0] : rot == 2 ? w[3] : w[2];")
    e("      o.z = rot == 0 ? w[2] : rot == 1 ? w[1] : rot == 2 ? w[0] : w[3];")
    e("      o.w = rot == 0 ? w[3] : rot == 1 ? w[2] : rot == 2 ? w[1] : w[0];")
    e("      *(uint4*)cs = o;")
    e("    } else {")
    decompose("qfirst")
    e(
        f"      for (u64 p = lo; p < hi; p += {ed}) {{ *({dt}*)p = ({dt})cvt(*(const {st}*)(smem + slr + q * {es})); {advance} }}"
    )
    e("    }")
    e("  }")
    e("}")
    return "\n".join(L)


def launch_args_v3(ns, ss, ds, box, S, RS, D, RD, G, es, ed):
    rank = len(ns)
    Ls = math.prod(box[k] for k in S)
    PB = (Ls * es + 15 + 15) // 16 * 16
    sm = [0] * rank
    acc = 1
    for k in S:
        sm[k] = acc
        acc *= box[k]
    R = math.prod(box[k] for k in RS)
    NC = PB // 16
    SW = R * PB
    Ld = math.prod(box[k] for k in D)
    Rd = math.prod(box[k] for k in RD)
    Cd = (Ld * ed + 15) // 16 + 1
    g = [math.ceil(n / b) for n, b in zip(ns, box)]
    args = _mode_args(ns, ss, ds, box, sm, g)
    nm, nl = magic(NC)
    cm, cl = magic(Cd)
    args += [
        ("u32", PB),
        ("u32", NC),
        ("u32", nm),
        ("u32", nl),
        ("u32", SW),
        ("u32", Cd),
        ("u32", cm),
        ("u32", cl),
        ("u32", R),
        ("u32", Rd),
    ]
    smem = SW + R * 8 + ((R + 1) & ~1) * 4 + Rd * 8 + Rd * 8
    blocks = math.prod(g)
    return args, smem, blocks


def _mode_args(ns, ss, ds, box, sm, g) -> list[tuple[str, int]]:
    out = []
    for k in range(len(ns)):
        bm, bl = magic(box[k])
        out += [("i64", ns[k]), ("i64", ss[k]), ("i64", ds[k]), ("i32", box[k]), ("i32", sm[k]), ("i32", g[k])]
        out += [("u32", bm), ("u32", bl)]
    return out


def magic(d: int) -> tuple[int, int]:
    l = (d - 1).bit_length()
    m = ((1 << 32) * ((1 << l) - d)) // d + 1
    return m & 0xFFFFFFFF, l


def slot_pitch(Ls: int, es: int, ed: int, d0_outside_run: bool) -> int:
    """Elements per src-run slot: the run, and where consecutive dst elements step
    from slot to slot, padded so that the 32 lanes of a warp (one dst word each) read
    32 different banks: (dst elements per word) * pitch * es / 4 an odd integer."""
    if not d0_outside_run:
        return Ls
    p = Ls
    while True:
        words = (4 // ed) * p * es
        if words % 4 == 0 and (words // 4) % 2 == 1:
            return p
        p += 1


def launch_args(ns, ss, ds, box, S, RS, D, RD, G, es, ed):
    rank = len(ns)
    Ls = math.prod(box[k] for k in S)
    P = slot_pitch(Ls, es, ed, D[0] not in S)
    sm = [0] * rank
    acc = 1
    for k in S:
        sm[k] = acc
        acc *= box[k]
    acc = P
    for k in RS:
        sm[k] = acc
        acc *= box[k]
    R = math.prod(box[k] for k in RS)
    PB = P * es
    SW = (R * PB + 3) // 4
    Ld = math.prod(box[k] for k in D)
    Rd = math.prod(box[k] for k in RD)
    Cw = (Ld * ed + 3) // 4 + 1
    g = [math.ceil(n / b) for n, b in zip(ns, box)]
    args = _mode_args(ns, ss, ds, box, sm, g)
    pm, pl = magic(PB)
    cm, cl = magic(Cw)
    args += [
        ("u32", PB),
        ("u32", pm),
        ("u32", pl),
        ("u32", SW),
        ("u32", Cw),
        ("u32", cm),
        ("u32", cl),
        ("u32", R),
        ("u32", Rd),
    ]
    smem = ((SW * 4 + 15) & ~15) + R * 8 + Rd * 8 + Rd * 4
    blocks = math.prod(g)
    return args, smem, blocks


BOXES = {
    # case: box variants over the merged modes (copy_plan's order)
    42: [(1, 37, 32, 17), (1, 37, 62, 17)],
    36: [(16, 1, 1, 1, 31, 19), (32, 1, 1, 1, 31, 19), (8, 1, 1, 1, 31, 19)],
    30: [(19, 2048), (19, 2154)],
    0: [(16, 1, 1, 4, 275), (8, 1, 1, 4, 275), (32, 1, 1, 1, 275)],
    23: [(64, 128), (32, 256), (16, 512)],
    29: [(42, 1, 128), (42, 1, 64), (42, 1, 256)],
    35: [(2048, 5), (4096, 5), (8192, 5)],
}


def variants(S, D):
    """(name, source generator, launch arguments) of the kernels that take a box."""
    out = [("v2", kernel_source, launch_args)]
    if D[0] in S:
        out.append(("v3", kernel_source_v3, launch_args_v3))
    return out


def box_variants(ns, ss, ds, box):
    S, _, D, _, _ = plan_box(ns, ss, ds, box)
    return variants(S, D)


def merged(case):
    from strided_copy_bench import case_views

    from tilec.copy_plan import Operand, plan_copy

    ss, sst, so, dsh, dst, do = case_views(case)
    es = TYPES[case.src_dtype][1]
    ed = TYPES[case.dst_dtype][1]
    p = plan_copy(Operand(do * ed, case.dst_dtype, dsh, dst), Operand(so * es, case.src_dtype, ss, sst))
    return list(p.extents), list(p.src_strides), list(p.dst_strides)


def compile_only(only):
    from strided_copy_bench import generate_cases

    from tilec.runtime.nvrtc import compile_cuda

    cases = generate_cases(0)
    for i in only:
        c = cases[i]
        ns, ss, ds = merged(c)
        for box in BOXES[i]:
            S, RS, D, RD, G = plan_box(ns, ss, ds, box)
            for name, gen, _ in variants(S, D):
                code = gen(c.src_dtype, c.dst_dtype, len(ns), S, RS, D, RD, G)
                compile_cuda(code, arch="sm_90")
                print(i, box, name, "S", S, "RS", RS, "D", D, "RD", RD, "G", G, "compiled")


def run(only, out):
    import copy_bench as cb
    import cupy as cp
    import numpy as np
    import torch
    from strided_copy_bench import _bits, _make, _median, generate_cases

    import tilec

    cases = generate_cases(0)
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for i in only:
        c = cases[i]
        ns, ss, ds = merged(c)
        src, dst_base, dst = _make(torch, c, gen)
        # the merged views' element 0 (no flips in these cases: checked below)
        es, ed = TYPES[c.src_dtype][1], TYPES[c.dst_dtype][1]
        dst_base.fill_(77)
        ref_base = dst_base.clone()
        ref_base[tuple(slice(*ix) for ix in c.dst_index)].copy_(src) if c.dst_base else ref_base.copy_(src)
        moved = c.bytes_read + c.bytes_written
        mc = cb.memcpy_tbps(moved // 2)
        t_tilec = _median(cb, lambda d=dst, s=src: tilec.copy_(d, s), 30)
        t_torch = _median(cb, lambda d=dst, s=src: d.copy_(s), 30)
        row = {"case": i, "tilec": cb.tbps(moved, t_tilec) / mc, "torch": cb.tbps(moved, t_torch) / mc, "box": {}}
        for box, (vname, gen, largs) in ((b, v) for b in BOXES[i] for v in box_variants(ns, ss, ds, b)):
            S, RS, D, RD, G = plan_box(ns, ss, ds, box)
            code = gen(c.src_dtype, c.dst_dtype, len(ns), S, RS, D, RD, G)
            fn = cp.RawModule(
                code=code, backend="nvrtc", options=("--gpu-architecture=sm_90", "-std=c++17")
            ).get_function("box_copy")
            args, smem, blocks = largs(ns, ss, ds, box, S, RS, D, RD, G, es, ed)
            if smem > 48 * 1024:
                fn.max_dynamic_shared_size_bytes = smem
            conv = {"i64": np.int64, "i32": np.int32, "u32": np.uint32}
            vals = [conv[t](v) for t, v in args]
            sp, dp = np.uint64(src.data_ptr()), np.uint64(dst.data_ptr())

            def go(fn=fn, blocks=blocks, args=(sp, dp, *vals), smem=smem):
                fn((blocks,), (256,), args, shared_mem=smem)

            dst_base.fill_(77)
            go()
            torch.cuda.synchronize()
            exact = bool(torch.equal(_bits(torch, dst_base), _bits(torch, ref_base)))
            t = _median(cb, go, 30)
            r = cb.tbps(moved, t) / mc
            row["box"][vname + " " + "x".join(map(str, box))] = {
                "ratio": r,
                "exact": exact,
                "smem": smem,
                "blocks": blocks,
            }
            print(
                f"case {i:02d} {vname} box {box} exact={exact} ratio {r:.3f} (tilec {row['tilec']:.3f} torch {row['torch']:.3f}) smem {smem}",
                flush=True,
            )
        rows.append(row)
        del src, dst_base, dst, ref_base
        torch.cuda.empty_cache()
    print("\ncase | tilec main | best box | box | PyTorch")
    for row in rows:
        best = max(row["box"].items(), key=lambda kv: kv[1]["ratio"] if kv[1]["exact"] else -1)
        print(
            f"{row['case']:02d} | {row['tilec']:.3f} | {best[1]['ratio']:.3f}{'' if best[1]['exact'] else ' NOT EXACT'} | {best[0]} | {row['torch']:.3f}"
        )
    if out:
        with open(os.path.join(out, f"narrow_probe_{'_'.join(map(str, only))}.json"), "w") as f:
            json.dump(rows, f, indent=1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="42,36,30,0,23,29,35")
    ap.add_argument("--out", default=None)
    ap.add_argument("--compile-only", action="store_true")
    a = ap.parse_args()
    only = [int(x) for x in a.only.split(",")]
    if a.compile_only:
        compile_only(only)
    else:
        run(only, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
