"""On an H100/H200: `tilec.attention` (compiler/attention.py through api/attention_op.py)
against PyTorch's attention computed in float64, within the bound of
tests/unit/test_attention.py (`_bound`: P rounded to the input type, the output
rounded once, f32 sums, S's f32 rounding d = D 2^-23 scale max_j sum_k |Q_ik K_jk|);
LSE within 2^-16 (1 + |LSE|) + d. Head dims 64, 128 and 256, bf16
and f16, causal and not, ragged sequence lengths, Sq != Skv, GQA and MQA, strided
(B, S, H, D) inputs; the output is checked in every element (it is a new tensor, and
NaN-poisoning is not needed: every element compared must be within the bound)."""

from __future__ import annotations

import math

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

torch = pytest.importorskip("torch")

import tilec  # noqa: E402

UNIT_ROUNDOFF = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11}


def _reference(q, k, v, causal, scale):
    """O, LSE, A = softmax @ |V| and d (S's rounding bound, per row) in float64 (k, v
    repeated over the group)."""
    g = q.shape[1] // k.shape[1]
    q, k, v = q.double(), k.double().repeat_interleave(g, 1), v.double().repeat_interleave(g, 1)
    s = q @ k.transpose(-1, -2) * scale
    if causal:
        sq, skv = s.shape[-2:]
        keep = torch.ones(sq, skv, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s, -1)
    pr = torch.exp(s - lse[..., None])
    d = q.shape[-1] * 2.0**-23 * (q.abs() @ k.abs().transpose(-1, -2) * scale).amax(-1, keepdim=True)
    return pr @ v, lse, pr @ v.abs(), d


def _check(b, h, hkv, sq, skv, d, causal, dtype, bshd=False, scale=None, config=None):
    g = torch.Generator(device="cuda").manual_seed(b * 1000 + sq + skv + d)

    def make(heads, s):
        if bshd:  # (B, S, H, D) memory, passed as its (B, H, S, D) transpose
            return torch.randn(b, s, heads, d, device="cuda", dtype=dtype, generator=g).transpose(1, 2)
        return torch.randn(b, heads, s, d, device="cuda", dtype=dtype, generator=g)

    q, k, v = make(h, sq), make(hkv, skv), make(hkv, skv)
    if config is None:
        out, lse = tilec.attention(q, k, v, causal=causal, scale=scale, return_lse=True)
    else:
        from tilec.attention_op import attention

        out, lse = attention(q, k, v, causal=causal, scale=scale, return_lse=True, config=config)
    torch.cuda.synchronize()
    ref, ref_lse, a, ds = _reference(q, k, v, causal, scale if scale is not None else 1 / math.sqrt(d))
    u = UNIT_ROUNDOFF[dtype]
    bound = u * (a + ref.abs()) + (2 * skv * 2.0**-24 + 2.0**-16 + 2 * ds) * a
    err = (out.double() - ref).abs()
    assert bool((err <= bound).all()), f"max |O - ref| {err.max().item()} (bound there {bound.flatten()[err.argmax()]})"
    lerr = (lse.double() - ref_lse).abs()
    assert bool((lerr <= 2.0**-16 * (1 + ref_lse.abs()) + ds[..., 0]).all()), f"max |LSE - ref| {lerr.max().item()}"
    return q, k, v, out, lse


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "f16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128])
def test_attention_square(d, causal, dtype):
    _check(2, 4, 4, 1024, 1024, d, causal, dtype)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("sq,skv", [(1, 1), (77, 77), (200, 333), (333, 200), (1000, 1000)])
def test_attention_ragged(sq, skv, causal):
    """Sequence lengths that are no multiple of the 128-row blocks, Sq != Skv."""
    _check(1, 3, 3, sq, skv, 64, causal, torch.bfloat16)


@pytest.mark.parametrize("h,hkv", [(8, 2), (8, 1)], ids=["gqa", "mqa"])
def test_attention_gqa(h, hkv):
    _check(2, h, hkv, 300, 300, 128, True, torch.bfloat16)


def test_attention_strided_bshd_and_scale():
    """(B, S, H, D) tensors read in place through their strides; an explicit scale."""
    _check(2, 4, 2, 257, 129, 64, False, torch.float16, bshd=True, scale=0.3)


@pytest.mark.parametrize("h,s,d,seed", [(8, 512, 128, 5), (4, 1024, 256, 6)], ids=["d128", "hd256"])
def test_attention_matches_sdpa(h, s, d, seed):
    """Beside torch SDPA itself (its own rounding): within twice its error (head dims 128 and 256)."""
    import torch.nn.functional as F

    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.randn(2, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    out = tilec.attention(q, k, v, causal=True)
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
    sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert (out.double() - ref).abs().max() <= 2 * (sdpa.double() - ref).abs().max() + 2.0**-8


def test_attention_one_kernel_for_all_lengths():
    """Sequence lengths are run-time arguments: a new length compiles nothing."""
    from tilec.attention_op import kernel_for

    q = torch.randn(1, 2, 100, 64, device="cuda", dtype=torch.bfloat16)
    tilec.attention(q, q, q)
    before = kernel_for.cache_info().misses
    q = torch.randn(1, 2, 3000, 64, device="cuda", dtype=torch.bfloat16)
    tilec.attention(q, q, q)
    assert kernel_for.cache_info().misses == before


@pytest.mark.parametrize("config", [{"bn": 64, "min_blocks": 1}, {"warp_specialized": False}, {"persistent": False},
                                    {"bn": 64, "min_blocks": 1, "persistent": False}, {"overlap": True},
                                    {"overlap": True, "persistent": 7}],
                         ids=["bn64-overlap", "synchronous", "grid", "grid-bn64-overlap", "bn128-overlap",
                              "7-blocks-bn128-overlap"])
@pytest.mark.parametrize("d", [64, 128])
def test_attention_other_schedules(d, config):
    """The overlapped schedule (`overlap`, the default at bn = 64 and at D = 128: P_j V
    in flight under softmax_j+1; also at D = 64, bn = 128), the block-synchronous one,
    and the grid of one block per tile (`persistent`: False), causal and ragged."""
    _check(2, 4, 2, 333, 333, d, True, torch.bfloat16, config=config)


BLOCKS_PER_SM = {
    "bm64-2x": {"bm": 64, "min_blocks": 2, "overlap": False},
    "bm64-2x-overlap": {"bm": 64, "min_blocks": 2, "overlap": True},
    "bm64-bn64-3x": {"bm": 64, "bn": 64, "min_blocks": 3},
    "bn64-2x": {"bn": 64, "min_blocks": 2, "overlap": False},
    "bm192-bn64-pingpong": {"bm": 192, "bn": 64, "pingpong": True},
    "bm192-pingpong-overlap": {"bm": 192, "pingpong": True, "overlap": True},
}


@pytest.mark.parametrize("blocks", [7, True], ids=["7-sms", "all-sms"])
@pytest.mark.parametrize("name", BLOCKS_PER_SM)
def test_attention_blocks_per_multiprocessor(name, blocks):
    """Several blocks per multiprocessor (`min_blocks`: each block's consumers at its
    share of the registers) and FlashAttention-3's 192-row D = 64 tiles (three consumer
    warpgroups taking turns), persistent over 7 multiprocessors or all of them (the
    grid `min_blocks` times that), causal, ragged, GQA: 16 x 2 x 2 tiles of 128 rows."""
    _check(2, 4, 2, 1999, 1999, 64, True, torch.bfloat16, config={**BLOCKS_PER_SM[name], "persistent": blocks})


def test_attention_synchronous_two_blocks_per_multiprocessor():
    """The block-synchronous schedule at 128 x 64 blocks, two blocks a multiprocessor
    (Triton's FlashAttention-2 shape), causal and not."""
    for causal in (False, True):
        _check(2, 4, 2, 1999, 1999, 64, causal, torch.bfloat16,
               config={"warp_specialized": False, "bn": 64, "min_blocks": 2})


@pytest.mark.parametrize("blocks", [7, True], ids=["7-blocks", "all-sms"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128])
def test_attention_persistent_many_tiles(d, causal, blocks):
    """The persistent schedule with many tiles per block: 7 blocks, or the
    multiprocessors, over 16 x 2 x 2 (q-block, head, batch) tiles of ragged lengths
    (1999 rows: a ragged last q-block), GQA; each tile's next one loads under its
    last step, the ring's phases carried across tiles (a wrong phase hangs or reads a
    stale stage: the check catches the second)."""
    _check(2, 4, 2, 1999, 1999, d, causal, torch.bfloat16, config={"persistent": blocks})


def test_attention_persistent_tiles_beyond_the_sms():
    """The persistent kernel over the multiprocessors where the tiles outnumber them
    several times over (32 x 16 x 2 = 1024 tiles), causal (snake order), f16."""
    _check(2, 16, 16, 4096, 4096, 128, True, torch.float16, config={"persistent": True})


@pytest.mark.parametrize("bn", [128, 64], ids=["bn128", "bn64-overlap"])
@pytest.mark.parametrize("persistent", [False, 7, True], ids=["grid", "7-blocks", "all-sms"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128])
def test_attention_pingpong(d, causal, persistent, bn):
    """The pingpong schedule (`pingpong`: True): the two consumer warpgroups take turns
    through named barriers 4 and 5 (a lost turn hangs: the test would time out); on
    the grid, 7 persistent blocks (many tiles each: the turns run on across tiles) or
    the multiprocessors; ragged lengths, GQA; at bn = 64 and at D = 128 with the
    intra-warpgroup overlap (P V under the next softmax: the default there)."""
    _check(2, 4, 2, 1999, 1999, d, causal, torch.bfloat16,
           config={"pingpong": True, "persistent": persistent, "bn": bn})


@pytest.mark.parametrize("persistent", [7, True], ids=["7-blocks", "all-sms"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128])
def test_attention_pingpong_overlap_bn128(d, causal, persistent):
    """The pingpong with the intra-warpgroup overlap at 128-wide KV blocks
    (benchmarks/attention_bench.py's `persistent-bn128-pingpong-overlap`: S_j+1
    waited for alone, P_j V running on under softmax_j+1)."""
    _check(2, 4, 2, 1999, 1999, d, causal, torch.bfloat16,
           config={"pingpong": True, "overlap": True, "persistent": persistent})


@pytest.mark.parametrize("sq,skv", [(1, 1), (40, 100), (200, 333), (333, 200)])
def test_attention_pingpong_ragged(sq, skv):
    """Short and ragged lengths under the pingpong schedule: with Sq = 1 or 40 the second
    warpgroup's 64 rows lie past Sq (its Q tile zeros, its O store clipped)."""
    _check(1, 3, 3, sq, skv, 64, True, torch.bfloat16, config={"pingpong": True})


def test_attention_pingpong_f16_bshd_many_tiles():
    """f16 (B, S, H, D) inputs read in place, 1024 causal tiles over the multiprocessors."""
    _check(2, 16, 16, 4096, 4096, 128, True, torch.float16, bshd=True, config={"pingpong": True, "persistent": True})


def test_attention_into_given_tensors():
    """`out=` and `lse=` are written in place; a repeated call (the same tensors) gives
    the same result; a wrong `out` is a TilecError."""
    from tilec.attention_op import attention
    from tilec.support.diagnostics import TilecError

    q = torch.randn(2, 4, 200, 64, device="cuda", dtype=torch.bfloat16)
    ref, ref_lse = attention(q, q, q, causal=True, return_lse=True)
    out, lse = torch.empty_like(q), torch.empty(2, 4, 200, device="cuda")
    for _ in range(2):
        got = attention(q, q, q, causal=True, out=out, lse=lse)
        assert got is out and torch.equal(out, ref) and torch.equal(lse, ref_lse)
    with pytest.raises(TilecError, match="out must be"):
        attention(q, q, q, out=torch.empty(2, 4, 200, 128, device="cuda", dtype=torch.bfloat16))


@pytest.mark.parametrize("config", [None, {"persistent": False}, {"overlap": False}, {"persistent": 7}],
                         ids=["default", "grid", "no-overlap", "7-blocks"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_hd256(causal, config):
    """Head dim 256 (compiler/attention_tiles.py's tiles: 64 x 64, one consumer
    warpgroup, 256 threads): ragged lengths, Sq != Skv, GQA, bf16; persistent (the
    default, or 7 blocks over many tiles each) and on the grid; with and without
    the overlapped Q K^T."""
    _check(2, 4, 2, 333, 517, 256, causal, torch.bfloat16, config=config)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_hd256_f16_bshd(causal):
    """Head dim 256, f16, (B, S, H, D) inputs read in place, MQA, 1000 rows."""
    _check(1, 4, 1, 1000, 1000, 256, causal, torch.float16, bshd=True)


def test_attention_repeated_call_plans_and_compiles_nothing():
    """A second call of the same structure takes the first call's plan (api/attention_op.py
    `_Plan`): no kernel compiled, no plan made; the same result."""
    from tilec import attention_op

    q = torch.randn(1, 2, 100, 64, device="cuda", dtype=torch.bfloat16)
    first = attention_op.attention(q, q, q, causal=True)
    misses, plans = attention_op.kernel_for.cache_info().misses, len(attention_op._PLANS)
    second = attention_op.attention(q, q, q, causal=True)
    assert attention_op.kernel_for.cache_info().misses == misses and len(attention_op._PLANS) == plans
    assert torch.equal(first, second)


@pytest.mark.parametrize("bshd", [False, True], ids=["bhsd", "bshd"])
def test_attention_new_pointers_through_the_launcher(bshd):
    """Calls of one structure with new inputs and new outputs each (the earlier ones kept
    alive, so no pointer repeats) go through the plan's prepared call (its
    pointers and tensor maps written per call): each result within the bound, and
    self-attention (q as k and v) too."""
    from tilec import attention_op

    _check(1, 4, 2, 333, 333, 128, True, torch.bfloat16, bshd=bshd)  # plans the structure, builds the launcher
    kept = [_check(1, 4, 2, 333, 333, 128, True, torch.bfloat16, bshd=bshd) for _ in range(3)]
    assert len({t.data_ptr() for call in kept for t in call}) == 15  # no pointer repeats
    assert any(p.launcher for p in attention_op._PLANS.values())
    q = torch.randn(2, 4, 200, 64, device="cuda", dtype=torch.bfloat16)
    first = attention_op.attention(q, q, q)
    again = attention_op.attention(q.clone(), q.clone(), q.clone())
    assert torch.equal(first, again)
