"""`tilec.matmul` on FP8 (torch.float8_e4m3fn / float8_e5m2) on the GPU, against float64
within the documented bound (docs/matmul.md, "FP8") and beside `torch._scaled_mm`:
ragged shapes, per-tensor scales as floats and as 0-d tensors, bias + activation after
the scales, one kernel for many M; block-scaled FP8 (DeepSeek-V3's per (row, 128 of K)
and per 128 x 128 scales) against float64 within the block-scaled bound and beside the
torch reference of the operands dequantised to f32. The float64 oracle runs on the GPU
(torch float64: a 4096^3 case's bound in milliseconds, not seconds on the host)."""

from __future__ import annotations

import pytest
from helpers.matmul_oracle import block_scaled_within_bound, outside
from helpers.torch_gpu import torch_cuda

import tilec
from tilec.dialects.layout_mma import mma_error_bound
from tilec.support.diagnostics import TilecError

pytestmark = [pytest.mark.gpu, pytest.mark.torch]


def fp8_within_bound(got, a, b, s, bias=None, act=None):
    """docs/matmul.md's FP8 bound, float64 tensors on the GPU: z = (a @ b) s (+ bias),
    y = act(z); d = L (gamma_fp8 |s| |a| @ |b| + 2^-22 (|z| + |bias|)) + 2^-20 (|y| + 1),
    then one bf16 rounding: |got - y| <= d + 2^-8 (|y| + d). gamma_fp8 is
    mma_error_bound's for e4m3 (the hardware's fp8 accumulation keeps about 14 bits)."""
    gamma, _ = mma_error_bound(a.shape[1], "e4m3")
    z = (a @ b) * s
    mag = abs(a) @ abs(b) * abs(s)
    if bias is not None:
        z = z + bias[None, :]
    y = z if act is None else z / (1.0 + (-z).exp())
    slope = 1.1 if act == "silu" else 1.0
    d = slope * (gamma * mag + 2.0**-22 * (abs(z) + (abs(bias)[None, :] if bias is not None else 0.0)))
    d = d + 2.0**-20 * (abs(y) + 1.0)
    return got.isfinite() & (abs(got - y) <= d + 2.0**-8 * (abs(y) + d))


def _case(torch, m, n, k, dtype=None, seed=0):
    dtype = dtype or torch.float8_e4m3fn
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(dtype)
    w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(dtype)  # (N, K): b = w.t() K-major
    sa = torch.tensor(0.37, device="cuda")
    sb = torch.tensor(1.9, device="cuda")
    return a, w, sa, sb


def _f64(t):
    """`t` in float64, on the GPU (the oracle's operands)."""
    return t.double()


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (4000, 4000, 4000), (1, 4096, 4096), (127, 1040, 528),
                                   (72, 48, 32)])
def test_fp8_ragged_shapes_against_float64_and_scaled_mm(shape):
    torch = torch_cuda()
    m, n, k = shape
    a, w, sa, sb = _case(torch, m, n, k)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=out)
    assert got is out and got.dtype == torch.bfloat16
    s = float(sa) * float(sb)
    ok = fp8_within_bound(_f64(got), _f64(a), _f64(w).T, s)
    assert ok.all(), outside(ok)
    if m % 16 == 0 and n % 16 == 0:  # torch._scaled_mm's own shape rule
        ref = torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
        assert fp8_within_bound(_f64(ref), _f64(a), _f64(w).T, s).all()


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (5, 1040, 528), (64, 8192, 8192)])
def test_fp8_swap_ab_decode(shape):
    """FP8 decode sizes where the rule takes the swap (C^T = B^T A^T), scales and bias
    along C^T's rows."""
    from tilec import gemm

    torch = torch_cuda()
    m, n, k = shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert gemm.choose_config(m, n, sms, k=k, fp8=True, b_kmajor=True).swap_ab
    a, w, sa, sb = _case(torch, m, n, k, seed=m)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, bias=bias)
    ok = fp8_within_bound(_f64(got), _f64(a), _f64(w).T, float(sa) * float(sb), _f64(bias))
    assert ok.all(), outside(ok)


@pytest.mark.parametrize("shape", [(1, 2048, 8192), (5, 1024, 8192)])
def test_fp8_swap_ab_split_k_decode(shape):
    """FP8 decode sizes where the rule splits the swap along K: the reduction multiplies
    the summed f32 partials by the scales, then adds the bias; two runs give the same bits."""
    from tilec import gemm

    torch = torch_cuda()
    m, n, k = shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    config = gemm.choose_config(m, n, sms, k=k, fp8=True, b_kmajor=True)
    assert config.swap_ab and config.split_k > 1
    a, w, sa, sb = _case(torch, m, n, k, seed=m)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, bias=bias)
    again = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, bias=bias)
    assert torch.equal(got, again)
    ok = fp8_within_bound(_f64(got), _f64(a), _f64(w).T, float(sa) * float(sb), _f64(bias))
    assert ok.all(), outside(ok)


def test_fp8_e5m2_float_scales_bias_silu():
    torch = torch_cuda()
    m, n, k = 300, 512, 1024
    a, w, _, _ = _case(torch, m, n, k, torch.float8_e5m2, seed=3)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    got = tilec.matmul(a, w.t(), scale_a=0.5, scale_b=0.25, bias=bias, activation="silu")
    ok = fp8_within_bound(_f64(got), _f64(a), _f64(w).T, 0.125, _f64(bias), "silu")
    assert ok.all()


def test_fp8_one_kernel_for_many_m():
    from tilec import gemm

    torch = torch_cuda()
    n, k = 1024, 512
    _, w, sa, sb = _case(torch, 8, n, k)
    tilec.matmul(_case(torch, 2048, n, k)[0], w.t(), scale_a=sa, scale_b=sb)
    before = len(gemm._kernels)
    for m in (1999, 1500):
        a = _case(torch, m, n, k, seed=m)[0]
        got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb)
        assert fp8_within_bound(_f64(got), _f64(a), _f64(w).T, float(sa) * float(sb)).all()
    assert len(gemm._kernels) == before


def test_fp8_refusals():
    torch = torch_cuda()
    a, w, sa, sb = _case(torch, 64, 64, 64)
    with pytest.raises(TilecError, match="need scale_a and scale_b"):
        tilec.matmul(a, w.t())
    with pytest.raises(TilecError, match="K-major"):
        tilec.matmul(a, w.t().contiguous(), scale_a=sa, scale_b=sb)
    with pytest.raises(TilecError, match="one-element float32 CUDA tensor"):
        tilec.matmul(a, w.t(), scale_a=sa.double(), scale_b=sb)


def _block_case(torch, lead, n, k, dtype=None, seed=0):
    """Block-scaled operands: a (*lead, K) and w (N, K) of `dtype`, scale_a (*lead,
    ceil(K/128)) and scale_b (ceil(N/128), ceil(K/128)) f32 over 2^-4 .. 2^4 (a scale of
    the wrong block shows)."""
    dtype = dtype or torch.float8_e4m3fn
    g = torch.Generator(device="cuda").manual_seed(seed)
    kb, nb = -(-k // 128), -(-n // 128)
    a = (torch.randn(*lead, k, device="cuda", generator=g) * 4).to(dtype)
    w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(dtype)

    def scales(*shape):
        e = torch.randint(-4, 5, shape, device="cuda", generator=g).float()
        return (2.0**e * (0.5 + 0.5 * torch.rand(*shape, device="cuda", generator=g))).contiguous()

    return a, w, scales(*lead, kb), scales(nb, kb)


def _dequantised_reference(torch, a, w, sa, sb):
    """The torch reference: a and w dequantised to f32 with their block scales, one f32
    matmul (TF32 off)."""
    k, n = a.shape[-1], w.shape[0]
    a32 = a.float() * sa.repeat_interleave(128, dim=-1)[..., :k]
    w32 = w.float() * sb.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return a32 @ w32.t()
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def _block_check(torch, got, a, w, sa, sb, bias=None, act=None):
    """tilec's result, and the dequantised torch reference, within docs/matmul.md's
    block-scaled bound (the GPU's fp8 accumulation within each K block)."""
    k, n = a.shape[-1], w.shape[0]
    a64, w64 = _f64(a).reshape(-1, k), _f64(w)
    sa64, sb64 = _f64(sa).reshape(a64.shape[0], -1), _f64(sb)
    b64 = None if bias is None else _f64(bias)
    ok = block_scaled_within_bound(_f64(got).reshape(-1, n), a64, w64, sa64, sb64, b64, act, fp8_accumulation=True)
    assert ok.all(), outside(ok)
    if bias is None and act is None:
        ref = _dequantised_reference(torch, a, w, sa, sb).reshape(-1, n)
        assert block_scaled_within_bound(_f64(ref), a64, w64, sa64, sb64, fp8_accumulation=True, out="f32").all()


def _forced_block_matmul(torch, monkeypatch, config, shape, seed):
    """tilec.matmul of a block-scaled case (`_block_case`) of `shape` with `config` forced,
    with bias + SiLU where M is 1000, checked (`_block_check`)."""
    from tilec import gemm

    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})  # the same structure forced to another configuration: prepared afresh
    m, n, k = shape
    a, w, sa, sb = _block_case(torch, (m,), n, k, seed=seed)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16) if m == 1000 else None
    act = "silu" if bias is not None else None
    got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, bias=bias, activation=act)
    _block_check(torch, got, a, w, sa, sb, bias, act)


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (1000, 1040, 528), (1, 4096, 4096), (72, 48, 32),
                                   (300, 7168, 2112)])
def test_fp8_block_scaled_against_float64_and_dequantised_torch(shape):
    torch = torch_cuda()
    m, n, k = shape
    a, w, sa, sb = _block_case(torch, (m,), n, k)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=out)
    assert got is out
    _block_check(torch, got, a, w, sa, sb)


@pytest.mark.parametrize("shape", [(1, 7168, 2048), (16, 2112, 7168), (50, 4096, 4096)])
def test_fp8_block_scaled_swap_ab_decode(shape):
    """Block-scaled decode sizes take the swap (A's scales along C^T's columns, B's along
    its rows)."""
    from tilec import gemm

    torch = torch_cuda()
    m, n, k = shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert gemm.choose_config(m, n, sms, k=k, fp8=True, block_scales=True, b_kmajor=True).swap_ab
    a, w, sa, sb = _block_case(torch, (m,), n, k, seed=m)
    _block_check(torch, tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb), a, w, sa, sb)


def test_fp8_block_scaled_e5m2_leading_dims_bias_silu():
    torch = torch_cuda()
    n, k = 384, 640
    a, w, sa, sb = _block_case(torch, (2, 37), n, k, torch.float8_e5m2, seed=5)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, bias=bias, activation="silu")
    assert got.shape == (2, 37, n) and got.dtype == torch.bfloat16
    _block_check(torch, got, a, w, sa, sb, bias, "silu")


def test_fp8_block_scaled_one_kernel_for_many_m():
    from tilec import gemm

    torch = torch_cuda()
    n, k = 1024, 512
    a0, w, sa0, sb = _block_case(torch, (2048,), n, k)
    tilec.matmul(a0, w.t(), scale_a=sa0, scale_b=sb)
    before = len(gemm._kernels)
    for m in (1999, 1500):
        a, _, sa, _ = _block_case(torch, (m,), n, k, seed=m)
        got = tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb)
        _block_check(torch, got, a, w, sa, sb)
    assert len(gemm._kernels) == before


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (4096, 4096, 4096)])
@pytest.mark.parametrize(("bn", "chunk"), [(256, 128), (128, 0)])
def test_fp8_block_scaled_one_partial_schedule(bn, chunk, shape, monkeypatch):
    """The one-partial schedule (`partials` = 1, DeepGEMM's: each chunk's step waited for
    and promoted before the next wgmma) forced, 128 x 256 in chunks of 128 and 128 x 128,
    at a ragged shape (with bias + SiLU) and at 4096^3."""
    from tilec import gemm

    torch = torch_cuda()
    config = gemm.GemmConfig(f"f8b:128x{bn}x128:4:part1", 128, bn, 128, 4, efficiency=1.0, chunk=chunk,
                             operand_bytes=1, block_scales=True, partials=1)
    _forced_block_matmul(torch, monkeypatch, config, shape, seed=3)


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (4096, 4096, 4096)])
def test_fp8_block_scaled_fma_promotion(shape, monkeypatch):
    """The rule's 128 x 128 tile with each promotion one fma (`fma_promote`) forced, at a
    ragged shape (bias + SiLU) and at 4096^3."""
    import dataclasses

    from tilec import gemm

    torch = torch_cuda()
    config = dataclasses.replace(gemm.FP8_BLOCK_CONFIGS[0], name="f8b:128x128x128:4:fma", fma_promote=True)
    _forced_block_matmul(torch, monkeypatch, config, shape, seed=4)


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (4096, 4096, 4096)])
@pytest.mark.parametrize("bn", [112, 128])
def test_fp8_block_scaled_one_wgmma_chunks_of_16(bn, shape, monkeypatch):
    """One wgmma a step over chunks of 16 columns (`one_wgmma` with block scales), each chunk
    its scale block's B scale: the 128 x 112 tile (tiles over two blocks of N's scales) and
    128 x 128 so, at a ragged shape (bias + SiLU) and at 4096^3."""
    from tilec import gemm

    torch = torch_cuda()
    config = gemm.GemmConfig(f"f8b:128x{bn}x128:4:fma:c16:ow", 128, bn, 128, 4, efficiency=1.0, chunk=16,
                             one_wgmma=True, operand_bytes=1, block_scales=True, fma_promote=True)
    _forced_block_matmul(torch, monkeypatch, config, shape, seed=6)


def test_fp8_block_scaled_split_dispatch(monkeypatch):
    """The 128 x 112 tile in one wgmma over chunks of 16 with the K loop a copy per split of
    the chunks between two scale blocks (`split_dispatch`, `:sd`; N = 1040: all seven splits
    and blocks in different copies at once), ragged, bias + SiLU."""
    from tilec import gemm

    torch = torch_cuda()
    config = gemm.GemmConfig("f8b:128x112x128:4:fma:c16:ow:sd", 128, 112, 128, 4, efficiency=1.0, chunk=16,
                             one_wgmma=True, operand_bytes=1, block_scales=True, fma_promote=True,
                             split_dispatch=True)
    _forced_block_matmul(torch, monkeypatch, config, (1000, 1040, 528), seed=7)


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (1, 4096, 4096), (4096, 4096, 4096)])
def test_fp8_block_scaled_scale_prefetch(shape, monkeypatch):
    """The rule's 128 x 128 tile with the scales 8 K blocks ahead asked of L1
    (`scale_prefetch`, `:pf`) forced, at a ragged shape (bias + SiLU; the last block row's
    rows past M not asked for), one row and 4096^3."""
    import dataclasses

    from tilec import gemm

    torch = torch_cuda()
    config = dataclasses.replace(gemm.FP8_BLOCK_CONFIGS[0], name="f8b:128x128x128:4:pf", scale_prefetch=True)
    _forced_block_matmul(torch, monkeypatch, config, shape, seed=5)


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (4096, 4096, 4096)])
@pytest.mark.parametrize("prefetch", [False, True])
def test_fp8_block_scaled_scale_a_mn_major(shape, prefetch, monkeypatch):
    """A's block scales given MN-major (strides (1, M), DeepGEMM's layout): tilec.matmul runs
    the kernel that reads them so (`scale_a_mn_major`), with and without `scale_prefetch`
    forced, at a ragged shape (bias + SiLU) and at 4096^3; and the same call with the
    scales row-major gives the same bits."""
    import dataclasses

    from tilec import gemm

    torch = torch_cuda()
    config = dataclasses.replace(gemm.FP8_BLOCK_CONFIGS[0], name="f8b:128x128x128:4" + ":pf" * prefetch,
                                 scale_prefetch=prefetch)
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    m, n, k = shape
    a, w, sa, sb = _block_case(torch, (m,), n, k, seed=6)
    sa_mn = sa.t().contiguous().t()
    assert sa_mn.stride() == (1, m)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16) if m == 1000 else None
    act = "silu" if bias is not None else None
    got = tilec.matmul(a, w.t(), scale_a=sa_mn, scale_b=sb, bias=bias, activation=act)
    _block_check(torch, got, a, w, sa, sb, bias, act)
    assert torch.equal(got, tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, bias=bias, activation=act))


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (4096, 4096, 4096)])
@pytest.mark.parametrize(("cluster", "box_parts"), [((2, 1), False), ((2, 1), True), ((1, 2), True), ((2, 2), True)])
def test_fp8_block_scaled_clusters(cluster, box_parts, shape, monkeypatch):
    """The rule's 128 x 128 tile forced into clusters (`GemmConfig.cluster`): pairs sharing
    B by whole stages in turn, or each block its part of every box (`box_parts`), pairs
    sharing A, 2 x 2; at a ragged shape (blocks past M and N, bias + SiLU) and 4096^3."""
    import dataclasses

    from tilec import gemm

    torch = torch_cuda()
    config = dataclasses.replace(gemm.FP8_BLOCK_CONFIGS[0], cluster=cluster, box_parts=box_parts,
                                 name=f"f8b:128x128x128:4:{gemm.cluster_name(cluster)}{':bp' if box_parts else ''}")
    _forced_block_matmul(torch, monkeypatch, config, shape, seed=5)


@pytest.mark.parametrize("shape", [(1000, 1040, 528), (4096, 4096, 4096)])
@pytest.mark.parametrize("flags", [{"stream_k": True}, {"stream_k": True, "serial": True}, {"group": 16},
                                   {"group": 32}])
def test_fp8_block_scaled_stream_k_tail_and_group(flags, shape, monkeypatch):
    """The rule's 128 x 128 tile with its last round shared along K (`GemmConfig.stream_k`,
    `:sk`; `serial`: summed by each shared tile's last block, `:sk:ser`), or walked in groups
    of 16 or 32 block rows (`GemmConfig.group`, `:g16`, `:g32`), forced: 1000 x 1040 (72
    tiles, no full wave on 132 blocks: every tile shared, bias + SiLU) and 4096^3 (1024
    tiles: 7 full waves, the last 100 tiles' 800 trips 7 a block) against float64."""
    import dataclasses

    from tilec import gemm

    torch = torch_cuda()
    name = ("f8b:128x128x128:4" + (":sk" if flags.get("stream_k") else "") + (":ser" if flags.get("serial") else "")
            + (f":g{flags['group']}" if "group" in flags else ""))
    config = dataclasses.replace(gemm.FP8_BLOCK_CONFIGS[0], name=name, **flags)
    _forced_block_matmul(torch, monkeypatch, config, shape, seed=6)


def test_fp8_block_scale_refusals():
    torch = torch_cuda()
    a, w, sa, sb = _block_case(torch, (64,), 256, 384)
    with pytest.raises(TilecError, match=r"scale_a has shape \(64, 2\), expected \(64, 3\)"):
        tilec.matmul(a, w.t(), scale_a=sa[:, :2].contiguous(), scale_b=sb)
    with pytest.raises(TilecError, match=r"scale_b has shape"):
        tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb.t().contiguous())
    with pytest.raises(TilecError, match="float32 CUDA tensor"):
        tilec.matmul(a, w.t(), scale_a=sa.double(), scale_b=sb)
    with pytest.raises(TilecError, match="row-major"):
        tilec.matmul(a, w.t(), scale_a=sa, scale_b=torch.empty(3, 2, device="cuda").t())
