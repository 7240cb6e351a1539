"""The flash-attention forward program (compiler/attention.py, docs/attention.md) on the
CPU reference executor against float64 NumPy, before and after the default pipeline
(the executor also checks the TMA ring's mbarrier phases and the reads of stages
before their waits), and its CUDA for the real configurations compiled by NVRTC.

The bound (`_bound`): with u the unit roundoff of the input type (2^-8 bf16, 2^-11
f16), each probability P_ik is rounded to the input type before P V (relative u), the
output is rounded once (relative u of |O|), and the f32 sums over n = Skv terms (P V
by wgmma, the row sum l) add at most n 2^-24 relative each; the exp2 of f32 arguments
(scale * log2(e) folded in) adds a few f32 ulps of |scale * S|. S = Q K^T itself is an
f32 sum of D products (exact: bf16 / f16 products fit f32), each within
d_i = D 2^-23 E_i of its exact value, E_i = scale max_j sum_k |Q_ik K_jk| (2^-23: the
tensor cores' f32 sums may truncate); a change of at most d_i in row i's scores changes
its softmax weights by at most a factor exp(+-2 d_i), so O by 2 d_i A (to first order)
and the LSE by d_i. So, with A_ij = sum_k softmax_ik |V_kj|:

    |O - O_ref| <= u (A + |O_ref|) + (2 n 2^-24 + 2^-16 + 2 d) A

and the log-sum-exp within 2^-16 (1 + |LSE|) + d. The d term matters at D = 256
(about 2^-11.5 for normal inputs, where u (A + |O|) is 2^-8 of bf16).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.attention import attention_fwd
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.dtypes import bf16_to_f32, f32_to_bf16
from tilec.runtime.reference import run

UNIT_ROUNDOFF = {"bf16": 2.0**-8, "f16": 2.0**-11}


def _to_input(x: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(the array the kernel reads, its values in float64)."""
    if dtype == "bf16":
        bits = f32_to_bf16(x.astype(np.float32))
        return bits, bf16_to_f32(bits).astype(np.float64)
    h = x.astype(np.float16)
    return h, h.astype(np.float64)


def score_error(q, k, scale: float) -> np.ndarray:
    """d of the module docstring per row, (B, H, Sq, 1): S's f32 rounding bound."""
    e = np.abs(q) @ np.abs(k).transpose(0, 1, 3, 2) * scale
    return q.shape[-1] * 2.0**-23 * e.max(-1, keepdims=True)


def reference(q, k, v, causal: bool, scale: float):
    """O and LSE in float64 (k, v already repeated over the query heads of a kv head),
    and A = softmax @ |V| for the bound."""
    s = q @ k.transpose(0, 1, 3, 2) * scale
    sq, skv = s.shape[-2:]
    if causal:  # PyTorch's is_causal: top-left aligned
        s = np.where(np.arange(skv)[None, :] <= np.arange(sq)[:, None], s, -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.exp(s - mx)
    lsum = e.sum(-1, keepdims=True)
    return (e / lsum) @ v, (mx + np.log(lsum))[..., 0], (e / lsum) @ np.abs(v)


def _bound(a: np.ndarray, ref: np.ndarray, dtype: str, n: int, d: np.ndarray) -> np.ndarray:
    u = UNIT_ROUNDOFF[dtype]
    return u * (a + np.abs(ref)) + (2 * n * 2.0**-24 + 2.0**-16 + 2 * d) * a


def run_case(d, causal=False, group=1, b=1, h=1, sq=70, skv=70, bm=64, bn=64, dtype="bf16",
             level="layout", bshd=False, seed=0, ws=True, persistent=0, pingpong=False, overlap=None, stages=2,
             deferred_sum=True, min_blocks=None):
    """Run the program on the executor and check O and LSE; `bshd`: q, k, v, o live in
    (B, S, H, D) memory and are passed as (B, H, S, D) strided views (PyTorch's
    `x.transpose(1, 2)`); `ws`: the warp-specialised schedule (else the synchronous one);
    `persistent`: a grid of that many blocks looping over the tiles; `pingpong`: the
    consumer warpgroups take turns issuing their wgmma; `overlap` (None: its default),
    `stages`, `deferred_sum`, `min_blocks`: attention_fwd's."""
    hkv = h // group
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(d)
    q, q64 = _to_input(rng.standard_normal((b, h, sq, d)), dtype)
    k, k64 = _to_input(rng.standard_normal((b, hkv, skv, d)), dtype)
    v, v64 = _to_input(rng.standard_normal((b, hkv, skv, d)), dtype)
    module = attention_fwd(d, dtype, causal, group, bm=bm, bn=bn, warp_specialized=ws,
                           persistent=persistent, pingpong=pingpong, overlap=overlap, stages=stages,
                           deferred_sum=deferred_sum, min_blocks=min_blocks).module
    if level == "lowered":
        run_pipeline(module, "default")
    poison = np.full((b, h, sq, d), 0x7FC0, np.uint16) if dtype == "bf16" else np.full((b, h, sq, d), np.nan, np.float16)
    args = {"B": b, "H": h, "Hkv": hkv, "Sq": sq, "Skv": skv, "lse": np.full(b * h * sq, np.nan, np.float32)}
    for name, x in zip("qkvo", (q, k, v, poison)):
        if bshd:  # memory (B, S, H, D); strides of the (B, H, S, D) view
            mem = np.ascontiguousarray(x.transpose(0, 2, 1, 3))
            strides = (x.shape[2] * x.shape[1] * d, d, x.shape[1] * d)
        else:
            mem = x
            strides = (x.shape[1] * x.shape[2] * d, x.shape[2] * d, d)
        args[name] = mem.reshape(-1)
        for which, st in zip("bhs", strides):
            args[f"{name}s{which}"] = st
    out = run(module, args)
    o = np.asarray(out["o"])
    o = o.reshape((b, sq, h, d)).transpose(0, 2, 1, 3) if bshd else o.reshape((b, h, sq, d))
    o = (bf16_to_f32(o) if dtype == "bf16" else o).astype(np.float64)
    lse = np.asarray(out["lse"]).reshape(b, h, sq).astype(np.float64)
    kq = np.repeat(k64, group, 1)
    ref, ref_lse, a = reference(q64, kq, np.repeat(v64, group, 1), causal, scale)
    ds = score_error(q64, kq, scale)
    err = np.abs(o - ref)
    assert np.all(err <= _bound(a, ref, dtype, skv, ds)), f"max |O - ref| {err.max()}"
    assert np.all(np.abs(lse - ref_lse) <= 2.0**-16 * (1 + np.abs(ref_lse)) + ds[..., 0]), "LSE"


CASES = {
    # one full 64 x 64 block and a ragged one in each direction
    "ragged-d64": dict(d=64, sq=70, skv=70),
    "causal-d64": dict(d=64, causal=True, sq=70, skv=70),
    # GQA (2 query heads per kv head), 2 batches, Sq != Skv, f16, inputs in (B, S, H, D) memory
    "gqa-d128-f16-bshd": dict(d=128, group=2, b=2, h=4, sq=40, skv=100, dtype="f16", bshd=True),
    # causal with Sq > Skv (rows past Skv see every column) and a 128-wide KV block
    "causal-d128-sq-gt-skv": dict(d=128, causal=True, sq=100, skv=60, bn=128),
    # MQA: one kv head for 3 query heads; 3 KV blocks (the 2-stage ring's odd last step)
    "mqa-d64": dict(d=64, group=3, h=3, sq=16, skv=150),
}


@pytest.mark.parametrize("case", CASES)
def test_attention_layout_level(case):
    """The warp-specialised schedule (with bn = 64 the overlapped one: S carried across
    the KV loop, P_j V in flight under softmax_j+1). Its consumer loop runs a per-block number of KV
    steps (causal) inside the consumers' region: the executor chooses the carried
    tensors per block over the region's threads only (scf_impls.merge `active`)."""
    run_case(**CASES[case])


@pytest.mark.parametrize("case", ["causal-d64", "gqa-d128-f16-bshd"])
def test_attention_synchronous_schedule(case):
    """The block-synchronous schedule (every thread a consumer, a barrier per KV step
    before its stage is refilled)."""
    run_case(**CASES[case], ws=False)


@pytest.mark.parametrize("case", ["causal-d64", "mqa-d64"])
def test_attention_lowered(case):
    """After the default pipeline: the wgmma, the register renaming of P and the TMA
    ring as the GPU runs them."""
    run_case(**CASES[case], level="lowered")


@pytest.mark.parametrize("ws", [True, False], ids=["ws", "sync"])
def test_attention_default_config_lowered(ws):
    """The GPU's configuration (bm = bn = 128, two consumer warpgroups) after the
    default pipeline: causal, 150 rows (a ragged second Q and KV block)."""
    run_case(d=64, causal=True, sq=150, skv=150, bm=128, bn=128, level="lowered", ws=ws)


@pytest.mark.parametrize("d,causal,dtype,ws,bn", [(64, False, "bf16", True, 128), (128, True, "bf16", True, 128),
                                                  (128, False, "f16", True, 128), (128, True, "bf16", False, 128),
                                                  (128, True, "bf16", True, 64), (64, True, "bf16", True, 64)])
def test_attention_cuda_compiles(d, causal, dtype, ws, bn):
    """The CUDA of the real configurations compiles for sm_90a with no spills; P V takes
    P from registers (wgmma's register A), and every convert_layout is a renaming of
    registers (the accumulator layout and the A operand's are the same linear layout)."""
    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(d, dtype, causal, warp_specialized=ws, bn=bn).module  # bn 64: overlapped Q K^T
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    assert f"wgmma.m64n{d}k16 per warpgroup, A from registers" in src
    assert "tilec_ex2_approx_ftz" in src and "exp2f(" not in src  # the softmax's exp2: ex2.approx
    conversions = [line for line in src.splitlines() if "// convert_layout" in line]
    assert conversions and all("a renaming of registers, no data moves" in c for c in conversions)
    usage = resource_usage(compile_sm90_or_skip(src))["attention_fwd_kernel"]
    assert usage.spill_stores == 0


@pytest.mark.parametrize("deferred,overlap", [(False, False), (True, True)], ids=["quad-sum", "deferred-overlap"])
def test_attention_row_sum_either_way(deferred, overlap):
    """The row sum reduced across the quad every KV step (`deferred_sum=False`) or kept
    as per-thread partials rescaled each step and reduced once in the epilogue (the
    default, here with the overlapped loop too), after the default pipeline: causal,
    150 rows, persistent on 2 blocks (the partials restart per tile)."""
    run_case(d=64, causal=True, h=2, sq=150, skv=150, bm=128, bn=128, level="lowered", persistent=2,
             overlap=overlap, deferred_sum=deferred)


@pytest.mark.parametrize("overlap,softmaxes", [(False, 2), (True, 3)], ids=["plain", "overlapped"])
def test_attention_deferred_sum_leaves_the_loop_without_sum_shuffles(overlap, softmaxes):
    """The deferred row sum: the only shuffled adds are the epilogue's (two rows per
    thread, two butterfly steps across the quad: 4), where the per-step sum shuffles 4
    per softmax of the loop (the plain loop of 2 stages has 2; the overlapped one 3: the
    tile's first block's before the loop, one per step, the round's last in the branch
    where the tile has another round); the row max still shuffles per step."""
    import re

    def shuffled_adds(deferred):
        module = attention_fwd(128, "bf16", False, persistent=132, deferred_sum=deferred, overlap=overlap).module
        run_pipeline(module, "default")
        src = emit(module, "cuda")
        return len(re.findall(r"= \w+ \+ shfl(?:_\d+)?;", src)), src.count("__shfl_sync(")

    (adds, shfls), (adds_q, shfls_q) = shuffled_adds(True), shuffled_adds(False)
    assert (adds, adds_q) == (4, 4 * softmaxes)
    assert shfls_q - shfls == 4 * softmaxes - 4


PERSISTENT_CASES = {
    # 2 blocks over 3 x 2 tiles of 64 rows (ragged last q-block); the ring's phases and
    # Q's barriers carried across tiles
    "ragged-d64": dict(d=64, h=2, sq=150, skv=150, persistent=2),
    # causal, MQA (3 query heads on one kv head): tiles of 1, 2 and 3 KV steps, an odd
    # count (the ring's extra step), 9 tiles on 5 blocks (round 1, backwards, is partial)
    "causal-mqa-d64": dict(d=64, causal=True, group=3, h=3, sq=150, skv=150, persistent=5),
    # GQA, 2 batches, Sq != Skv, f16, (B, S, H, D) memory: 8 tiles on 3 blocks
    "gqa-d128-f16-bshd": dict(d=128, group=2, b=2, h=4, sq=40, skv=100, dtype="f16", bshd=True, persistent=3),
    # causal with Sq > Skv, 128-wide KV blocks; bn = 64 elsewhere is the overlapped consumer
    "causal-d64-sq-gt-skv": dict(d=64, causal=True, h=2, sq=100, skv=60, bn=128, persistent=2),
}


@pytest.mark.parametrize("case", PERSISTENT_CASES)
def test_attention_persistent(case):
    """The persistent schedule with more tiles than blocks: each block loops over its
    tiles, the K / V ring's phases run on across them (the executor checks every
    wait's phase, every stage's reuse and every read of Q's buffer against the next
    tile's TMA load), and every (q-block, head, batch) tile is written exactly
    where it belongs (the output starts as NaN)."""
    run_case(**PERSISTENT_CASES[case])


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_persistent_lowered(causal):
    """The GPU's configuration (bm = bn = 128), persistent on 2 blocks over 2 x 2
    tiles, after the default pipeline."""
    run_case(d=64, causal=causal, h=2, sq=150, skv=150, bm=128, bn=128, persistent=2, level="lowered")


@pytest.mark.parametrize("d,causal,bn", [(128, False, 128), (128, True, 128), (64, False, 128), (64, True, 128),
                                         (128, True, 64)])
def test_attention_persistent_cuda_compiles(d, causal, bn):
    """The persistent kernel's CUDA compiles for sm_90a with no spills: its tile loop
    around the KV loop keeps the consumers' registers (the grid is min(132, tiles));
    also the overlapped consumer (bn = 64) at D = 128 (at D = 64 it spills 12 to 24
    bytes: docs/attention.md)."""
    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(d, "bf16", causal, bn=bn, persistent=132).module
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    usage = resource_usage(compile_sm90_or_skip(src))["attention_fwd_kernel"]
    assert usage.spill_stores == 0 and usage.spill_loads == 0


@pytest.mark.parametrize("persistent,pingpong", [(0, False), (132, False), (132, True)],
                         ids=["grid", "persistent", "persistent-pingpong"])
def test_attention_producer_is_one_warp(persistent, pingpong):
    """The producer warpgroup (its loops carry scalars when persistent: the block's KV
    step count) runs its waits on "empty" and its TMA loads on its first warp only,
    after the `setmaxnreg dec` every warp of it executes (a warpgroup collective): the
    other three warps leave at once (lower_to_gpu/roles.py)."""
    module = attention_fwd(128, "bf16", True, persistent=persistent, pingpong=pingpong).module
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    producer = src[src.rindex("} else {  // warpgroup 2"):]
    head = producer.index("setmaxnreg.dec.sync.aligned.u32 24;")
    guard = producer.index(" < 32;")
    assert head < guard < min(producer.index("tilec_mbarrier_wait("), producer.index("cp.async.bulk.tensor"))
    assert producer.count(" < 32;") == 1
    # the consumers run on every warp
    assert " < 32;" not in src[src.index("setmaxnreg.inc"):src.rindex("} else {  // warpgroup 2")]


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_attention_overlap_bn128(level):
    """FlashAttention-3's intra-warpgroup overlap (`overlap`) at 128-wide KV blocks,
    persistent on 2 blocks over 2 x 2 causal tiles of 150 rows: S carried across the
    KV loop, P_j V in flight under softmax_j+1 (the executor reports any read of O
    before its wait and any refill of a stage P V still reads)."""
    run_case(d=64, causal=True, h=2, sq=150, skv=150, bm=128, bn=128, persistent=2, overlap=True, level=level)


def _assert_overlapped_consumer_compiles_clean(d: int, causal: bool, **schedule) -> None:
    """The persistent overlapped attention of `schedule` retires S_j+1 alone (`wait_group
    1`) and waits for P_j V after the softmax's row sums (`layout.mma_wait` `after`: their
    NaN-predicated fence right before the wait, in each of the loop's two steps); ptxas
    spills nothing and keeps every wgmma asynchronous (no C7512 / C7515 / C7520)."""
    import re

    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(d, "bf16", causal, overlap=True, persistent=132, **{"bn": 128, **schedule}).module
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    assert "wgmma.wait_group.sync.aligned 1;" in src
    anchored = re.findall(r'@p fence\.proxy\.async\.shared::cta; }" :: "f"\(\w+\), "f"\(\w+\) : "memory"\);\n'
                          r'\s+float w\w* = [^\n]*\n\s+asm volatile\("wgmma\.wait_group\.sync\.aligned 0;"', src)
    assert len(anchored) == 2 * (2 if schedule.get("pingpong") else 1)  # per consumer region
    result = compile_sm90_or_skip(src)
    usage = resource_usage(result)["attention_fwd_kernel"]
    assert usage.spill_stores == 0 and usage.spill_loads == 0 and usage.stack_bytes == 0
    assert not any(code in result.log for code in ("C7512", "C7515", "C7520")), result.log


@pytest.mark.parametrize("d,causal", [(128, False), (128, True), (64, False)])
def test_attention_overlap_bn128_compiles(d, causal):
    """The overlapped consumer at bn = 128, persistent (the benchmark's
    `persistent-bn128-overlap`): S_j+1 retired alone (`wait_group 1`) while P_j V runs
    on; ptxas spills nothing in the consumers' 240 registers and keeps every wgmma
    asynchronous (no C7512 / C7515 / C7520)."""
    _assert_overlapped_consumer_compiles_clean(d, causal)


def test_attention_persistent_grid():
    """The persistent grid is min(P, tiles), computed at launch from B, H and Sq (the
    host function): 132 blocks for 4 x 32 x 32 tiles, one per tile where there are
    fewer; 384 threads (two consumer warpgroups and the producer)."""
    from tilec.compiler.artifact import host_function
    from tilec.runtime.host import run_host

    module = attention_fwd(128, "bf16", True, persistent=132).module
    run_pipeline(module, "default")
    host = host_function(module)
    for (b, h, s), grid in [((4, 32, 4096), 132), ((1, 2, 150), 4), ((1, 1, 1), 1)]:
        (launch,) = run_host(host, ["q", "k", "v", "o", "lse", b, h, h, s, s, *[h * s * 128, s * 128, 128] * 4])
        assert launch.grid == (grid, 1, 1) and launch.block == (384, 1, 1)


def test_attention_config_errors():
    with pytest.raises(ValueError, match="head dim 96"):
        attention_fwd(96)
    with pytest.raises(ValueError, match="dtype 'f32'"):
        attention_fwd(64, "f32")
    with pytest.raises(ValueError, match="only with warp_specialized"):
        attention_fwd(64, persistent=132, warp_specialized=False)


def test_emitted_text_runs_with_its_args():
    """examples/python/attention.py --emit (what dev/device/sanitize.sh --attention runs
    under compute-sanitizer): MLIR whose `tilec.args` give every index argument and
    buffer size, so `tilec FILE --run ...` needs nothing more; it parses back and runs
    on the executor with the LSE of every row written."""
    import sys
    from pathlib import Path

    import tilec
    from tilec.runtime.reference import random_inputs

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import attention as example

    module = tilec.parse(example.emit_with_args(64, True, 1, 2, 1, 20, 20))
    lse = run(module, random_inputs(module, 0))["lse"]
    assert lse.shape == (40,) and np.all(np.isfinite(lse))
    # persistent (sanitize.sh's `D:causal:BxHxHKVxSQxSKV:P`): 2 x 3 tiles on 2 blocks
    module = tilec.parse(example.emit_with_args(64, True, 1, 3, 1, 150, 150, 2))
    lse = run(module, random_inputs(module, 0))["lse"]
    assert lse.shape == (450,) and np.all(np.isfinite(lse))
    # pingpong (sanitize.sh's `D:causal:BxHxHKVxSQxSKV:0:pingpong`)
    module = tilec.parse(example.emit_with_args(64, True, 1, 2, 1, 150, 150, 0, pingpong=True))
    assert "layout.named_barrier sync 4, 256" in str(module)
    lse = run(module, random_inputs(module, 0))["lse"]
    assert lse.shape == (300,) and np.all(np.isfinite(lse))


PINGPONG_CASES = {
    # two consumer warpgroups (bm = 128), each its 64 rows; a ragged second Q and KV block
    "ragged-d64": dict(d=64, sq=150, skv=150),
    "causal-d64": dict(d=64, causal=True, sq=150, skv=150),
    # D = 128, GQA, Sq > Skv, 64-wide KV blocks (two KV steps per round: the turn passes twice a round)
    "causal-gqa-d128-sq-gt-skv": dict(d=128, causal=True, group=2, h=2, sq=100, skv=60, bn=64),
    # f16, (B, S, H, D) memory, Sq = 40: warpgroup 1's rows all past Sq (its Q tile zeros, its O store clipped)
    "f16-bshd-short-q": dict(d=64, b=2, h=2, sq=40, skv=100, dtype="f16", bshd=True),
    # persistent: 9 causal MQA tiles on 5 blocks (tiles of 1 to 3 KV steps); the turns run on across tiles
    "persistent-causal-mqa-d64": dict(d=64, causal=True, group=3, h=3, sq=150, skv=150, bn=64, persistent=5),
    # persistent, D = 128: 4 tiles of 3 KV steps (the ring's extra, masked step) on 2 blocks
    "persistent-d128": dict(d=128, h=2, sq=150, skv=300, persistent=2),
    # a 4-stage ring of 64-wide KV blocks: 3 turns a round with P V left in flight (overlap); 6 causal
    # tiles of 1 or 2 rounds on 3 blocks
    "persistent-causal-4-stages": dict(d=64, causal=True, h=2, sq=300, skv=300, bn=64, stages=4, persistent=3),
}


@pytest.mark.parametrize("overlap", [False, True], ids=["turns", "turns+overlap"])
@pytest.mark.parametrize("case", PINGPONG_CASES)
def test_attention_pingpong(case, overlap):
    """The pingpong schedule (`attention_fwd(pingpong=True)`): each consumer warpgroup
    a region of its own, taking turns through two named barriers to issue its P V
    and next Q K^T; the executor runs the regions concurrently, counts the barriers'
    arrivals (a missing turn would be reported as a hang) and checks both
    warpgroups' waits on the shared "full" barriers. With `overlap`, P V runs on under
    the next softmax (O in flight across the loop's iterations, the executor reporting
    any read of it before its wait)."""
    run_case(bm=128, **{"bn": 128, **PINGPONG_CASES[case]}, pingpong=True, overlap=overlap)


@pytest.mark.parametrize("persistent,bn", [(0, 128), (3, 128), (3, 64)],
                         ids=["grid", "persistent", "persistent-bn64-overlap"])
def test_attention_pingpong_lowered(persistent, bn):
    """After the default pipeline (bar.sync / bar.arrive per thread): causal, 2 heads of
    150 rows, on the grid or on 3 persistent blocks over the 4 tiles; at bn = 64 with
    the intra-warpgroup overlap (wgmma.wait_group 1 retiring S while P V runs on)."""
    run_case(d=64, causal=True, h=2, sq=150, skv=150, bm=128, bn=bn, pingpong=True, persistent=persistent,
             level="lowered")


@pytest.mark.parametrize("d,causal,persistent,bn", [(128, False, 0, 128), (128, True, 0, 128), (64, False, 0, 128),
                                                    (128, True, 132, 128), (64, True, 132, 128), (128, False, 0, 64),
                                                    (128, True, 132, 64), (64, True, 132, 64)])
def test_attention_pingpong_cuda_compiles(d, causal, persistent, bn):
    """The pingpong kernel's CUDA compiles for sm_90a with no spills and no local memory
    under the 168 registers ptxas allots (S of the next step, P and O live at each
    turn; at bn = 64 and at D = 128 the overlapped form, the default there, P_j and O in
    flight under softmax_j+1); each consumer region syncs on its own turn barrier and
    arrives on the other's (4 and 5: 0 is __syncthreads's, 1 to 3 the regions' own).
    ptxas keeps the wgmma asynchronous (no C7515 / C7520 "wgmma serialized", no C7508
    "setmaxnreg ignored"), D = 64, bn = 64 too: the kernel states its blocks per
    multiprocessor (`__launch_bounds__(384, 1)`), without which ptxas could not tell the
    registers at entry there (C7508, and persistent C7520: docs/attention.md)."""
    from tilec.runtime.nvrtc import resource_usage

    module = attention_fwd(d, "bf16", causal, pingpong=True, persistent=persistent, bn=bn).module
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    w0, w1 = src.split("} else if (threadIdx.x < 256) {")
    assert 'bar.sync 4, 256;' in w0 and 'bar.arrive 5, 256;' in w0 and 'bar.sync 5' not in w0
    assert 'bar.sync 5, 256;' in w1 and 'bar.arrive 4, 256;' in w1 and 'bar.sync 4' not in w1
    assert ("wgmma.wait_group.sync.aligned 1;" in w0) == (bn == 64 or d >= 128)  # the overlap: S retired, P V on
    result = compile_sm90_or_skip(src)
    usage = resource_usage(result)["attention_fwd_kernel"]
    assert usage.registers <= 168 and usage.spill_stores == 0 and usage.spill_loads == 0 and usage.stack_bytes == 0
    assert "__launch_bounds__(384, 1)" in src
    assert not any(code in result.log for code in ("C7515", "C7520", "C7508")), result.log


@pytest.mark.parametrize("d,causal", [(128, False), (128, True), (64, False)])
def test_attention_pingpong_overlap_bn128_compiles(d, causal):
    """The pingpong with the intra-warpgroup overlap at bn = 128, persistent (the
    benchmark's `persistent-bn128-pingpong-overlap`): S_j+1 retired alone
    (`wait_group 1`) while P_j V runs on; with the consumers' 240 registers ptxas
    spills nothing and keeps every wgmma asynchronous (no C7512 / C7515 / C7520)."""
    _assert_overlapped_consumer_compiles_clean(d, causal, pingpong=True)


def test_attention_pingpong_is_an_option():
    """Off by default; its kernels differ from the default ones only where it is on."""
    from tilec.dialects.layout_roles import NamedBarrierOp

    assert not any(isinstance(op, NamedBarrierOp) for op in attention_fwd(128).module.walk())
    with pytest.raises(ValueError, match="pingpong needs warp_specialized and bm >= 128"):
        attention_fwd(64, bm=64, pingpong=True)
    with pytest.raises(ValueError, match="pingpong needs warp_specialized"):
        attention_fwd(64, warp_specialized=False, pingpong=True)


@pytest.mark.parametrize("overlap", [False, True])
def test_attention_two_blocks_per_multiprocessor(overlap):
    """One consumer warpgroup per block (bm = 64) and two blocks per multiprocessor
    (`min_blocks = 2`): the persistent grid is 2 P blocks (here 4 for 2 multiprocessors,
    over 6 causal tiles: a block loops over two), each block's ring and Q buffer its
    own; plain and overlapped loops."""
    run_case(d=64, causal=True, h=2, sq=150, skv=150, bm=64, bn=128, persistent=2, min_blocks=2, overlap=overlap)


def test_attention_synchronous_two_blocks():
    """The block-synchronous schedule at bm = 128, bn = 64 compiled for two blocks per
    multiprocessor (Triton's FlashAttention-2 shape): the executor's result is the
    schedule's, the launch bounds change only the registers."""
    run_case(d=64, causal=True, sq=150, skv=150, bm=128, bn=64, ws=False, min_blocks=2)


@pytest.mark.parametrize("bn,overlap", [(64, True), (128, False)])
def test_attention_three_warpgroups_pingpong(bn, overlap):
    """FlashAttention-3's D = 64 tile: 192 query rows on three consumer warpgroups taking
    turns (named barriers 5, 6, 7 in a ring: each syncs on its own, arrives on the next's),
    persistent over 2 blocks with more tiles than blocks, ragged (200 rows: the second
    q-block's last 184 rows past Sq), causal with the overlap and not without."""
    run_case(d=64, causal=overlap, h=2, sq=200, skv=200 if overlap else 150, bm=192, bn=bn, persistent=2,
             pingpong=True, overlap=overlap)


def test_attention_default_tiles_d64():
    """The rule's D = 64 schedule (compiler/attention_tiles.py): 128 x 64 blocks, two per
    multiprocessor (the persistent grid 2 P: 4 blocks for P = 2 over 6 tiles), the plain
    loop; causal and ragged."""
    run_case(d=64, causal=True, h=2, sq=300, skv=300, bm=None, bn=None, persistent=2)
