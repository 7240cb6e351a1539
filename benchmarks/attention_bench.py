"""Flash-attention forward benchmark (issue 40): `tilec.attention` (compiler/attention.py)
beside torch SDPA's cuDNN, FlashAttention-2 and memory-efficient backends
(`torch.nn.attention.sdpa_kernel`) and a Triton fused-attention kernel written here
after the pattern of Triton's tutorial 06 (FlashAttention-2: one program per 128-row
Q block, `tl.dot` for Q K^T and P V, the online softmax with exp2; causal blocks
before the diagonal unmasked, the diagonal block masked), bf16, (B, H, S, D) tensors.

    python benchmarks/attention_bench.py [--shapes 4x32x4096x128,4x32x4096x128c,...] [--no-triton] [--json OUT] [--md OUT]
    python benchmarks/attention_bench.py --shapes hd256 --configs hd256 --json OUT   # head dim 256
    python benchmarks/attention_bench.py --configs overlap --no-triton --json OUT   # the overlapped schedules

A shape is BxHxSxD, with a trailing `c` for causal; the default is the issue's four;
`SHAPE_SETS` names lists (`hd256`: B4 H16 S4096 D256, causal and not), `CONFIG_SETS`
lists of configurations.
TFLOP/s = 4 B H S^2 D / time (halved for causal). Each kernel is checked first
against float64 on 256 query rows of two heads (spread over the sequence): within
the bound of tests/unit/test_attention.py. Times: CUDA events around each call
after warm-up, the median of 20 (Triton: `triton.testing.do_bench`'s median), and
queued (20 calls back to back between two events: each library's host path hidden
behind the kernels before), for tilec and each SDPA backend; `--rounds N` repeats both
N times and keeps the medians (cuDNN's figures move by up to 17% between rounds).
tilec's output is written into the same tensors each call.
The tilec configurations of `CONFIGS` are each compiled, checked and timed; the
fastest correct one is the table's (all are in the JSON). One run; finishes in well
under 300 s on an H100/H200.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_bench import median_ms, queued_ms  # noqa: E402 - this folder: one timing of a call for every benchmark

DEFAULT_SHAPES = "4x32x4096x128,4x32x4096x128c,16x16x1024x64,1x32x16384x128c"
CONFIGS = {
    # persistent over the multiprocessors, warp-specialised, the default rule's tiles and loop (compiler/
    # attention_tiles.py: 128 x 128 blocks, the overlapped loop, at D = 128; two blocks of 128 x 64 per
    # multiprocessor, the plain loop, at D = 64; the name is the D = 128 tiles')
    "persistent-bn128": {"persistent": True},
    # the D = 64 default before session 32: one block of 128 x 128 per multiprocessor, each wgmma waited for
    "persistent-bn128-1x": {"bn": 128, "persistent": True},
    "persistent-bn64-overlap": {"bn": 64, "overlap": True, "min_blocks": 1, "persistent": True},  # 128 x 64 blocks, P_j V under softmax_j+1
    # FlashAttention-3's intra-warpgroup overlap at 128 x 128 blocks: S_j+1 and P_j V issued together, P_j V under
    # softmax_j+1 at every step, its wait issued after the softmax's row sums (`layout.mma_wait` `after`); no spills
    "persistent-bn128-overlap": {"overlap": True, "persistent": True},
    "ws-bn128": {"persistent": False},  # tilec.attention's default: one block per (q-block, head, batch) tile
    "ws-bn64-overlap": {"bn": 64, "overlap": True, "min_blocks": 1, "persistent": False},
    # FlashAttention-3's pingpong: the two consumer warpgroups take turns issuing their wgmma
    # (named barriers), one's softmax under the other's P V and next Q K^T
    "ws-bn128-pingpong": {"pingpong": True, "overlap": False, "persistent": False},
    "persistent-bn128-pingpong": {"pingpong": True, "overlap": False, "persistent": True},
    # the pingpong with the intra-warpgroup overlap too (P V under the next softmax; bn = 64 fits the registers)
    "ws-bn64-pingpong-overlap": {"bn": 64, "pingpong": True, "persistent": False},
    "persistent-bn64-pingpong-overlap": {"bn": 64, "pingpong": True, "persistent": True},
    # the pingpong with the intra-warpgroup overlap at 128-wide KV blocks (FlashAttention-3's hdim-128 schedule):
    # in a warpgroup's turn S_j+1 then P_j V issued, only S_j+1 waited for, softmax_j+1 under P_j V and the other
    # warpgroup's turn; compiles without spills at D 64 and 128 (ptxas: up to R237 of the consumers' 240)
    "persistent-bn128-pingpong-overlap": {"pingpong": True, "overlap": True, "persistent": True},
    # 4 stages: 3 of each round's 4 P V run under the next softmax (the round's last is waited for in its turn)
    "persistent-bn64-s4-pingpong-overlap": {"bn": 64, "stages": 4, "pingpong": True, "persistent": True},
    # the rule's tiles (compiler/attention_tiles.py: bn = 64 and one consumer warpgroup at D = 256), the overlapped
    # Q K^T off (at D = 128 the plain loop, each wgmma waited for); with `persistent-bn128` and `ws-bn128` (which
    # name no bn: the rule's too) at D = 256
    "persistent-no-overlap": {"persistent": True, "overlap": False},
    "ws-no-overlap": {"persistent": False, "overlap": False},
    # several blocks per multiprocessor (`min_blocks`: `__launch_bounds__(threads, N)`, the consumers' `setmaxnreg`
    # the block's share): one block's softmax, Q load and epilogue under another's wgmma. bm = 64: one consumer
    # warpgroup a block (232 registers at two blocks, 136 at three); bm = 128 at two blocks: 104 a consumer
    "persistent-bm64-2x": {"bm": 64, "min_blocks": 2, "overlap": False, "persistent": True},
    "persistent-bm64-2x-overlap": {"bm": 64, "min_blocks": 2, "overlap": True, "persistent": True},
    "persistent-bm64-bn64-2x": {"bm": 64, "bn": 64, "min_blocks": 2, "persistent": True},
    "persistent-bm64-bn64-3x": {"bm": 64, "bn": 64, "min_blocks": 3, "persistent": True},
    "persistent-bn64-2x": {"bn": 64, "min_blocks": 2, "overlap": False, "persistent": True},
    # the D = 64 rule's tiles with a deeper K / V ring (3, 4 stages: 84, 100 KiB a block, two fit a SM). The loop
    # is unrolled by the stages and a tile's KV blocks rounded up to a multiple of them (the extra steps masked
    # out), so 4 stages waste up to 3 steps a tile where 2 waste 1 (causal tiles, ragged S): the rule keeps 2
    "persistent-bn64-2x-s3": {"bn": 64, "min_blocks": 2, "stages": 3, "overlap": False, "persistent": True},
    "persistent-bn64-2x-s4": {"bn": 64, "min_blocks": 2, "stages": 4, "overlap": False, "persistent": True},
    # Triton's FlashAttention-2 shape: no producer, 8 warps on 128 x 64 blocks, two blocks a multiprocessor
    "sync-bn64-2x": {"warp_specialized": False, "bn": 64, "min_blocks": 2},
    # FlashAttention-3's hdim-64 tile: 192 query rows, three consumer warpgroups taking turns (160 registers each),
    # the intra-warpgroup overlap too; at bn = 128 (FlashAttention-3's) ptxas spills 36 bytes
    "persistent-bm192-bn64-pingpong": {"bm": 192, "bn": 64, "pingpong": True, "overlap": True, "persistent": True},
    "persistent-bm192-pingpong": {"bm": 192, "pingpong": True, "overlap": True, "persistent": True},
}
"""The tilec configurations tried (`tilec.attention_op.attention`'s `config`: `attention_fwd`
keywords, `resolved_config` filling in the persistent grid); the fastest correct one is reported."""

SHAPE_SETS = {"hd256": "4x16x4096x256,4x16x4096x256c"}
"""Named shape lists for `--shapes`."""
CONFIG_SETS = {"blocks": "persistent-bn128,persistent-bn128-1x,persistent-bn64-overlap,persistent-bn64-2x,sync-bn64-2x,persistent-bm64-2x,"
                         "persistent-bm64-bn64-3x,persistent-bm192-bn64-pingpong,persistent-bm192-pingpong,"
                         "persistent-bn64-pingpong-overlap,persistent-bm64-2x-overlap,persistent-bm64-bn64-2x",
               "hd256": "persistent-bn128,ws-bn128,persistent-no-overlap,ws-no-overlap",
               "overlap": "persistent-bn128,persistent-no-overlap,persistent-bn128-overlap,persistent-bn128-pingpong,"
                          "persistent-bn128-pingpong-overlap"}
"""Named configuration lists for `--configs`: at D = 256 the rule's tiles (the pingpong needs two consumer
warpgroups, bn = 128 does not fit), persistent or not, overlapped or not; `overlap`: the default and the
plain persistent loop beside FlashAttention-3's intra-warpgroup overlap, its inter-warpgroup pingpong and
both, at 128-wide KV blocks (issue 40's A/B in one run); `blocks`: the default beside the schedules of
several blocks per multiprocessor (`min_blocks`)."""


def parse_shape(text: str) -> tuple[int, int, int, int, bool]:
    causal = text.endswith("c")
    b, h, s, d = (int(x) for x in text.rstrip("c").split("x"))
    return b, h, s, d, causal


def check(out, q, k, v, causal: bool) -> tuple[bool, float]:
    """Whether `out` is within the documented bound of float64 on 256 query rows of
    heads 0 and 1 of batch 0, and the largest error there."""
    import torch

    s_len, d = q.shape[2], q.shape[3]
    rows = torch.linspace(0, s_len - 1, min(256, s_len), device=q.device).long().unique()
    q64 = q[0, :2, rows].double()
    k64, v64 = k[0, :2].double(), v[0, :2].double()
    sc = q64 @ k64.transpose(-1, -2) / math.sqrt(d)
    if causal:
        cols = torch.arange(s_len, device=q.device)
        sc = sc.masked_fill(cols[None, None, :] > rows[None, :, None], float("-inf"))
    pr = torch.softmax(sc, -1)
    ref, a = pr @ v64, pr @ v64.abs()
    ds = d * 2.0**-23 * (q64.abs() @ k64.abs().transpose(-1, -2) / math.sqrt(d)).amax(-1, keepdim=True)
    bound = 2.0**-8 * (a + ref.abs()) + (2 * s_len * 2.0**-24 + 2.0**-16 + 2 * ds) * a
    err = (out[0, :2, rows].double() - ref).abs()
    return bool(torch.isfinite(out[0, :2, rows]).all()) and bool((err <= bound).all()), float(err.max())


def triton_attention():
    """The Triton fused-attention forward (module docstring); returns f(q, k, v, causal)."""
    import torch
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": bn}, num_stages=s, num_warps=w)
        for bn, s, w in [(64, 3, 4), (64, 4, 8), (128, 3, 8), (128, 2, 8)]
    ]

    @triton.jit
    def _block(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, offs_m, offs_n, lo, hi, qk_scale,
               BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
        for start in range(lo, hi, BLOCK_N):
            k = tl.load(k_ptrs + start * stride_kn)
            s = tl.dot(q, k)
            if MASKED:
                keep = offs_m[:, None] >= (start + offs_n[None, :])
                s = tl.where(keep, s * qk_scale, -1.0e6)
                m_new = tl.maximum(m_i, tl.max(s, 1))
            else:
                m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
                s = s * qk_scale
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_ptrs + start * stride_vn)
            acc = acc * alpha[:, None]
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_new
        return acc, l_i, m_i

    @triton.autotune(configs=configs, key=["S", "D", "CAUSAL"])
    @triton.jit
    def _fwd(Q, K, V, O, sqb, sqh, sqs, skb, skh, sks, svb, svh, svs, sob, soh, sos, H, S, qk_scale,
             D: tl.constexpr, CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        pid_m = tl.program_id(0)
        bh = tl.program_id(1)
        b, h = bh // H, bh % H
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, D)
        q = tl.load(Q + b * sqb + h * sqh + offs_m[:, None] * sqs + offs_d[None, :])
        k_ptrs = K + b * skb + h * skh + offs_n[None, :] * sks + offs_d[:, None]  # K^T tile (D, BLOCK_N)
        v_ptrs = V + b * svb + h * svh + offs_n[:, None] * svs + offs_d[None, :]
        acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        if CAUSAL:
            acc, l_i, m_i = _block(acc, l_i, m_i, q, k_ptrs, v_ptrs, sks, svs, offs_m, offs_n, 0,
                                   pid_m * BLOCK_M, qk_scale, BLOCK_N, False)
            acc, l_i, m_i = _block(acc, l_i, m_i, q, k_ptrs, v_ptrs, sks, svs, offs_m, offs_n,
                                   pid_m * BLOCK_M, (pid_m + 1) * BLOCK_M, qk_scale, BLOCK_N, True)
        else:
            acc, l_i, m_i = _block(acc, l_i, m_i, q, k_ptrs, v_ptrs, sks, svs, offs_m, offs_n, 0, S,
                                   qk_scale, BLOCK_N, False)
        acc = acc / l_i[:, None]
        tl.store(O + b * sob + h * soh + offs_m[:, None] * sos + offs_d[None, :], acc.to(O.dtype.element_ty))

    def attention(q, k, v, causal: bool):
        b, h, s, d = q.shape
        assert s % 128 == 0, "this Triton kernel takes S a multiple of 128"
        o = torch.empty_like(q)
        grid = lambda meta: (triton.cdiv(s, meta["BLOCK_M"]), b * h)  # noqa: E731
        _fwd[grid](q, k, v, o, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3], *o.stride()[:3], h, s,
                   1.0 / math.sqrt(d) * 1.4426950408889634, D=d, CAUSAL=causal)
        return o

    return attention, _fwd


def _timed(call, rounds: int) -> tuple[float, float]:
    """(per call, queued) milliseconds of `call`: each the median over `rounds` of
    gemm_bench's `median_ms` / `queued_ms`. Per call counts the host's launch path (a
    call's events bracket it); queued hides it behind the kernels before."""
    per, queued = [], []
    for _ in range(rounds):
        per.append(median_ms(call))
        queued.append(queued_ms(call))
    return sorted(per)[len(per) // 2], sorted(queued)[len(queued) // 2]


def main(argv=None) -> int:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from tilec.attention_op import attention, kernel_for, resolved_config

    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--configs", default=",".join(CONFIGS), help=f"tilec configurations to try: {', '.join(CONFIGS)}")
    ap.add_argument("--rounds", type=int, default=1,
                    help="time each kernel this many rounds (each a median of 20 calls and 20 queued); keep the medians")
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    dev = torch.cuda.get_device_name()
    tri = None
    if not args.no_triton:
        try:
            tri = triton_attention()
        except Exception as e:  # noqa: BLE001 - report and go on without Triton
            print(f"Triton unavailable: {e}")
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    rows = []
    for text in SHAPE_SETS.get(args.shapes, args.shapes).split(","):
        b, h, s, d, causal = parse_shape(text)
        flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        g = torch.Generator(device="cuda").manual_seed(s + d)
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
        row = {"shape": text, "B": b, "H": h, "S": s, "D": d, "causal": causal}
        row["configs"] = {}
        for name in CONFIG_SETS.get(args.configs, args.configs).split(","):
            config = CONFIGS[name]
            try:
                out = attention(q, k, v, causal=causal, config=config)
                torch.cuda.synchronize()
                ok, err = check(out, q, k, v, causal)
                o_buf, l_buf = torch.empty_like(q), torch.empty(b, h, s, device="cuda")

                def call(config=config, o_buf=o_buf, l_buf=l_buf):
                    attention(q, k, v, causal=causal, config=config, out=o_buf, lse=l_buf)  # noqa: B023

                t, tq = _timed(call, args.rounds)
                sms = torch.cuda.get_device_properties(q.device).multi_processor_count
                res = next(iter(kernel_for(d, "bf16", causal, 1, 1.0 / math.sqrt(d),
                                           resolved_config(config, sms)).resource_usage().values()))
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  tilec {name} {text}: failed: {str(e)[:300]}", flush=True)
                continue
            row["configs"][name] = {"tflops": flops / t / 1e9, "tflops_queued": flops / tq / 1e9, "ok": ok,
                                    "err": err, "registers": res.registers, "spill_stores": res.spill_stores}
            print(f"  tilec {name}: {flops / t / 1e9:.0f} TFLOP/s (queued {flops / tq / 1e9:.0f}), {res.registers} registers, "
                  f"spills {res.spill_stores}, {'ok' if ok else 'WRONG'}", flush=True)
            if ok and flops / t / 1e9 > row.get("tilec_tflops", 0):
                row.update(tilec_ok=True, tilec_err=err, tilec_tflops=flops / t / 1e9,
                           tilec_tflops_queued=flops / tq / 1e9, config=name,
                           registers=res.registers, spill_stores=res.spill_stores)
        row.setdefault("tilec_ok", False)
        for name, be in backends.items():
            try:
                with sdpa_kernel(be):
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    torch.cuda.synchronize()
                    row[f"{name}_ok"], _ = check(o, q, k, v, causal)
                    t, tq = _timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),  # noqa: B023
                                   args.rounds)
                    row[f"{name}_tflops"], row[f"{name}_tflops_queued"] = flops / t / 1e9, flops / tq / 1e9
            except Exception as e:  # noqa: BLE001 - a backend may not take this shape
                print(f"  SDPA {name} {text}: unavailable: {str(e)[:200]}", flush=True)
        if tri is not None:
            import triton

            fn, kern = tri
            try:
                o = fn(q, k, v, causal)
                torch.cuda.synchronize()
                row["triton_ok"], _ = check(o, q, k, v, causal)
                row["triton_tflops"] = flops / triton.testing.do_bench(
                    lambda: fn(q, k, v, causal), return_mode="median") / 1e9  # noqa: B023
                row["triton_config"] = str(kern.best_config)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  Triton {text}: failed: {str(e)[:300]}", flush=True)
        rows.append(row)
        print(json.dumps(row), flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")  # noqa: UP017
    table = markdown(rows, dev, date)
    if args.json:
        sys.path.insert(0, __file__.rsplit("/", 1)[0])
        from run_info import run_info

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "rows": rows}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(table + "\n")
    print(table)
    return 0 if all(r.get("tilec_ok") for r in rows) else 1


def markdown(rows: list[dict], dev: str, date: str) -> str:
    """The table of a run (benchmarks/report.py prints the same from the JSON)."""

    def f(r, key):
        return f"{r[key]:.0f}" if key in r else "-"

    lines = [
        f"Attention forward, bf16, {dev}, {date}; TFLOP/s = 4 B H S^2 D / time (halved for causal)",
        "",
        "| B x H x S x D | causal | tilec | cuDNN | FA2 (flash) | efficient | Triton | tilec / cuDNN | tilec / FA2 "
        "| queued: tilec | cuDNN | FA2 | tilec / cuDNN | tilec / FA2 | tilec config | regs | check |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    for r in rows:
        oks = all(r.get(f"{n}_ok", True) for n in ("tilec", "cudnn", "flash", "efficient", "triton"))

        def ratio(key, mine="tilec_tflops"):
            return f"{r[mine] / r[key]:.2f}" if key in r and mine in r else "-"

        q = "tilec_tflops_queued"
        lines.append(
            f"| {r['B']}x{r['H']}x{r['S']}x{r['D']} | {'yes' if r['causal'] else 'no'} | {f(r, 'tilec_tflops')} | "
            f"{f(r, 'cudnn_tflops')} | {f(r, 'flash_tflops')} | {f(r, 'efficient_tflops')} | {f(r, 'triton_tflops')} | "
            f"{ratio('cudnn_tflops')} | {ratio('flash_tflops')} | {f(r, q)} | {f(r, 'cudnn_tflops_queued')} | "
            f"{f(r, 'flash_tflops_queued')} | {ratio('cudnn_tflops_queued', q)} | {ratio('flash_tflops_queued', q)} | "
            f"{r.get('config', '-')} | {r.get('registers', '-')} | {'ok' if oks else 'FAIL'} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
