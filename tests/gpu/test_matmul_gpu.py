"""`tilec.matmul` on the GPU against float64 within the documented bound
(tests/helpers/matmul_oracle.py, docs/matmul.md): ragged shapes, each epilogue, one
compiled kernel for many M, every configuration of the rule, CuPy f16 arrays."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.matmul_chain import pdl_chain
from helpers.matmul_oracle import within_bound
from helpers.torch_gpu import f64, torch_cuda

import tilec
from tilec.support.diagnostics import TilecError

pytestmark = [pytest.mark.gpu, pytest.mark.torch]



def _forced(name, monkeypatch, chooser="choose_config"):
    """The configuration `name` (matmul_bench's `parse_config` names) forced in place of
    `tilec.gemm`'s rule (`chooser`: `choose_config`, or `_decode_config` for decode sizes),
    with the launch fast path's cache emptied; returns it."""
    import sys
    from pathlib import Path

    from tilec import gemm

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config(name)
    monkeypatch.setattr(gemm, chooser, lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    return config

def _check(torch, m, n, k, *, bias=False, activation=None, residual=False, out_dtype=None, dtype=None, seed=0,
           lead=None, b_kmajor=False):
    dtype = dtype or torch.bfloat16
    odt = out_dtype or dtype
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(*(lead or (m,)), k, device="cuda", dtype=dtype, generator=g)
    if b_kmajor:  # a torch.nn.Linear weight (N, K), used as w.t()
        b = torch.randn(n, k, device="cuda", dtype=dtype, generator=g).t()
    else:
        b = torch.randn(k, n, device="cuda", dtype=dtype, generator=g)
    bv = torch.randn(n, device="cuda", dtype=odt, generator=g) if bias else None
    shape = (*(lead or (m,)), n)
    rv = torch.randn(*shape, device="cuda", dtype=odt, generator=g) if residual else None
    out = torch.full(shape, float("nan"), device="cuda", dtype=odt)
    got = tilec.matmul(a, b, bias=bv, activation=activation, residual=rv, out_dtype=out_dtype, out=out)
    assert got is out
    torch.cuda.synchronize()
    a2 = f64(a).reshape(-1, k)
    ok = within_bound(f64(got).reshape(-1, n), a2, f64(b), None if bv is None else f64(bv), activation,
                      None if rv is None else f64(rv).reshape(-1, n), "f16" if odt == torch.float16 else "bf16")
    assert ok.all(), f"{(~ok).sum()} of {ok.size} elements outside the bound, first at {np.argwhere(~ok)[0]}"


@pytest.mark.parametrize("shape", [(4000, 4000, 4000), (3000, 5000, 7000), (1, 4096, 4096), (16, 14336, 4096),
                                   (127, 1032, 520), (2176, 2176, 1024), (64, 32768, 256), (72, 40, 48)])
def test_plain_ragged_shapes(shape):
    _check(torch_cuda(), *shape)


@pytest.mark.parametrize("epilogue", [
    {"bias": True}, {"activation": "relu", "bias": True}, {"activation": "gelu"}, {"activation": "silu", "bias": True},
    {"residual": True}, {"bias": True, "activation": "silu", "residual": True}, {"out_dtype": "f16"},
    {"activation": "silu_tanh", "bias": True},
])
@pytest.mark.parametrize("shape", [(1000, 1032, 1000), (33, 4104, 512)])
def test_epilogues(epilogue, shape):
    torch = torch_cuda()
    kw = dict(epilogue)
    if kw.get("out_dtype") == "f16":
        kw["out_dtype"] = torch.float16
    _check(torch, *shape, **kw)


@pytest.mark.parametrize("out_dtype", ["bf16", "f16"])
def test_silu_tanh_where_its_error_shows(out_dtype):
    """`silu_tanh` at K = 16 (z of a few units, the accumulation's part of the bound
    about 2^-17): the bound is then its rounding and `tanh.approx`'s 2^-11 |z|, in bf16
    and f16 (docs/matmul.md)."""
    torch = torch_cuda()
    _check(torch, 512, 1032, 16, bias=True, activation="silu_tanh",
           out_dtype=torch.float16 if out_dtype == "f16" else None)


def test_silu_error_is_relative_where_silu_tanh_is_not():
    """Bias + `silu` at K = 16 with y around -10 (silu(y) about -5e-4 down to 1e-9): every
    element within bf16's rounding and 2^-16 of silu(y) relative (the f32 accumulation's
    share and docs/matmul.md's (2^-20 + 2^-23 |y|)); `silu_tanh`'s absolute 2^-12 |y| is
    not (some elements off by more than bf16's rounding)."""
    torch = torch_cuda()
    g = torch.Generator(device="cuda").manual_seed(3)
    m, n, k = 512, 1032, 16
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = (torch.randn(n, device="cuda", generator=g) - 10).to(torch.bfloat16)
    z = (a.double() @ b.double() + bias.double()[None, :]).cpu().numpy()
    exact = z / (1 + np.exp(-z))
    rel = {}
    for act in ("silu", "silu_tanh"):
        got = tilec.matmul(a, b, bias=bias, activation=act)
        torch.cuda.synchronize()
        rel[act] = np.abs(f64(got) - exact) / np.abs(exact)
    assert (rel["silu"] <= 2.0**-8 + 2.0**-16).all(), float(rel["silu"].max())
    assert (rel["silu_tanh"] > 2.0**-8 + 2.0**-16).any()


@pytest.mark.parametrize("shape", [(4000, 4000, 4000), (16, 6144, 4096), (1000, 1032, 1000)])
def test_linear_weight(shape):
    """B K-major: `x @ w.t()` with `w` a (N, K) `torch.nn.Linear` weight, as F.linear."""
    _check(torch_cuda(), *shape, b_kmajor=True, bias=True, activation="silu")


@pytest.mark.parametrize("shape", [(1, 4096, 4096), (7, 2048, 8192), (64, 4096, 14336), (3, 1000, 1000),
                                   (100, 4096, 4096)])
def test_split_k_decode(shape):
    """M <= 128 where the tiles leave most multiprocessors idle: split-K, its partials
    reduced by the second launch with the widest epilogue; B as a Linear weight."""
    torch = torch_cuda()
    from tilec import gemm

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    m, n, k = shape
    kmajor = gemm.choose_config(m, n, sms, k=k, b_kmajor=True).split_k > 1  # else the swap takes it
    assert gemm.choose_config(m, n, sms, k=k, b_kmajor=kmajor).split_k > 1
    _check(torch, *shape, bias=True, activation="gelu", residual=True, b_kmajor=kmajor)


@pytest.mark.parametrize(("name", "kmajor"), [("128x256x64:4:c128:st1:bsm", False),
                                           ("128x256x64:4:c128:st1:bss", False), ("128x256x64:4:c128:bss", True),
                                           ("128x192x64:5:c64:bsm", False)],
                         ids=["st1_bsm", "st1_bss", "kmajor_bss", "c64_bsm"])
@pytest.mark.parametrize(("m", "n", "k", "activation"), [(300, 1096, 776, "silu"), (1000, 392, 72, "silu_tanh"),
                                                         (2000, 8200, 520, None)])
def test_bias_smem(name, kmajor, m, n, k, activation, monkeypatch):
    """The bias staged in shared memory by the producer (`GemmConfig.bias_smem`, `:bsm`;
    `:bss` as the accumulators' start), forced: staggered, cooperative with a Linear
    weight, 192-column tiles in 64-column chunks; bias + SiLU + residual, bias +
    `silu_tanh`, the bias alone; block rows and columns past M and N, one trip of K, more
    tiles than blocks (the ring's parts reused)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.bias_smem
    _check(torch, m, n, k, bias=True, activation=activation, residual=activation == "silu", b_kmajor=kmajor)


@pytest.mark.parametrize("name", ["128x256x64:4:c128:st1:bsm:et", "128x256x64:4:c128:st2:et"], ids=["st1_bsm", "st2"])
@pytest.mark.parametrize(("m", "n", "k", "activation"), [(300, 1096, 776, "silu"), (2000, 8200, 520, "silu_tanh"),
                                                         (130, 600, 64, None)])
def test_epilogue_turns(name, m, n, k, activation, monkeypatch):
    """The staggered consumers' epilogues in turn (`GemmConfig.epilogue_turns`, `:et`),
    forced: bias + SiLU + residual, bias + `silu_tanh`, the bias alone; block rows and
    columns past M and N, one trip of K (the option off there), more tiles than blocks."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.epilogue_turns
    _check(torch, m, n, k, bias=True, activation=activation, residual=activation == "silu")


@pytest.mark.parametrize("name", ["128x256x64:4:c128:st1:bsm:fe2:ap", "128x256x64:4:c128:st1:bsm:fe2:ap:rc",
                                  "128x256x64:4:c128:rc", "128x256x64:4:c128:st2:ap"],
                         ids=["st1_bsm_fe2_ap", "st1_bsm_fe2_ap_rc", "rc", "st2_ap"])
@pytest.mark.parametrize(("m", "n", "k", "activation"), [(300, 1096, 776, "silu"), (2000, 8200, 520, "silu_tanh"),
                                                         (130, 600, 64, None)])
def test_staggered_apart_and_rolled_chunks(name, m, n, k, activation, monkeypatch):
    """The staggered consumers in one region run apart (`:st<L>:ap`, the lag's wait and arrival
    branches on the warpgroup index) and the epilogue a loop over the column chunks
    (`GemmConfig.rolled_chunks`, `:rc`), forced: bias + SiLU + residual, bias + `silu_tanh`, the
    bias alone; block rows and columns past M and N, one trip of K, more tiles than blocks."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.consumers_apart or config.rolled_chunks
    _check(torch, m, n, k, bias=True, activation=activation, residual=activation == "silu")


@pytest.mark.parametrize("name", ["128x256x64:4:c128:st1:bsm:fe3", "128x256x64:4:c128:fe8"], ids=["st1_bsm_fe3", "fe8"])
@pytest.mark.parametrize(("m", "n", "k", "residual"), [(300, 1096, 776, True), (1000, 520, 4096, False)])
def test_exp2_fma(name, m, n, k, residual, monkeypatch):
    """SiLU's exp2 on the FMA pipe (`GemmConfig.exp2_fma`, `:fe<k>`: `cuda.ex2_fma` in 3 of
    every 8 elements, in all of them), forced: bias + SiLU (+ residual); at K = 4096 about a
    sixth of the elements lie past the clamp's y = +-87 (2^-125 and 2^127 for e^-y)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.exp2_fma
    _check(torch, m, n, k, bias=True, activation="silu", residual=residual)


@pytest.mark.parametrize("name", ["128x256x64:4:c128:st1:bsm:fe2:dg2", "128x256x64:4:c128:dg4"],
                         ids=["rule_dg2", "dg4"])
@pytest.mark.parametrize(("m", "n", "k", "residual"), [(300, 1096, 776, True), (1000, 520, 4096, False)])
def test_div_group(name, m, n, k, residual, monkeypatch):
    """SiLU's quotients G through one `rcp.approx` (`GemmConfig.div_group`, `:dg<G>`: the divisor
    clamped to 2^(124 / G), the numerator floored), forced: bias + SiLU (+ residual); at K = 4096
    many elements lie past the clamp's y = -42.97 (-21.49)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.div_group
    _check(torch, m, n, k, bias=True, activation="silu", residual=residual)


@pytest.mark.parametrize("shape", [(1, 8192, 8192), (16, 6144, 4096), (7, 1000, 1000), (40, 28672, 4096),
                                   (64, 8192, 8192), (128, 6144, 4096), (100, 4096, 14336)])
def test_swap_ab_decode(shape, monkeypatch):
    """M <= 128 with a Linear weight where the decode rule takes the swap (C^T = B^T A^T:
    N on the wgmma's rows, M its columns; 128 of them from M = 65), the widest epilogue
    along C^T's rows. The tiles of M's halves, which the rule prefers at some of these
    shapes (QKV at M = 128), are off here: they have their test below."""
    torch = torch_cuda()
    from tilec import gemm

    monkeypatch.setattr(gemm, "DECODE_HALVES", False)

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    m, n, k = shape
    assert gemm.choose_config(m, n, sms, k=k, b_kmajor=True).swap_ab
    _check(torch, *shape, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "kmajor"), [(1, True), (8, True), (16, True), (1, False), (16, False),
                                         (128, True), (128, False), (100, True)])
def test_split_k_decode_shapes(m, kmajor):
    """2048 x 8192 (32 units of 64 rows of N) at decode sizes: with a Linear weight the
    swap (split 2 ways to M = 16, 4 ways at M 65-128), with B row-major the split tiles
    (64 x 128, 128 x 128 at M 65-128), the widest epilogue applied once after the
    reduction, against float64; two runs give the same bits (the partials are summed in
    order)."""
    torch = torch_cuda()
    from tilec import gemm

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n, k = 2048, 8192
    config = gemm.choose_config(m, n, sms, k=k, b_kmajor=kmajor)
    assert config.swap_ab == kmajor and config.split_k > 1
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=kmajor, seed=m)
    g = torch.Generator(device="cuda").manual_seed(m)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = w.t() if kmajor else w.t().contiguous()
    first = tilec.matmul(a, b, activation="gelu")
    again = [tilec.matmul(a, b, activation="gelu") for _ in range(3)]
    torch.cuda.synchronize()
    assert all(torch.equal(first, x) for x in again)


def test_split_k_one_kernel_per_bucket():
    """M 1, 5, 16 (one bucket) take one split configuration: nothing compiled after the first."""
    torch = torch_cuda()
    from tilec import gemm

    n, k = 2048, 8192
    _check(torch, 1, n, k, b_kmajor=True, bias=True, seed=0)
    before = dict(gemm._kernels)
    for i, m in enumerate((5, 16)):
        _check(torch, m, n, k, b_kmajor=True, bias=True, seed=i + 1)
    assert gemm._kernels == before


def test_swap_ab_one_kernel_for_m_up_to_16():
    torch = torch_cuda()
    from tilec import gemm

    n, k = 8192, 2048
    _check(torch, 16, n, k, b_kmajor=True, bias=True, seed=0)
    before = dict(gemm._kernels)
    for i, m in enumerate((1, 2, 9, 15)):
        _check(torch, m, n, k, b_kmajor=True, bias=True, seed=i + 1)
    assert gemm._kernels == before


def test_f16_operands_and_leading_dimensions():
    torch = torch_cuda()
    _check(torch, 0, 520, 264, dtype=torch.float16, lead=(3, 37), bias=True, activation="gelu")


def test_one_kernel_serves_every_m():
    """Every M of one (N, K, epilogue) whose configuration is the same runs the same
    compiled kernel: nothing is compiled for a new M."""
    torch = torch_cuda()
    from tilec import gemm

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n, k = 4096, 1024
    # the Ms whose configuration is 3001's (the wave rule weighs whole rounds of tiles, so
    # some Ms between take the 128 x 192 tile: a kernel of its own, compiled once)
    first = gemm.choose_config(3001, n, sms)
    ms = [m for m in (3001, 3333, 3500, 3900, 4000, 4096) if gemm.choose_config(m, n, sms) == first]
    assert len(ms) >= 3, ms
    _check(torch, ms[0], n, k, bias=True, seed=0)
    before = dict(gemm._kernels)
    for i, m in enumerate(ms[1:]):
        _check(torch, m, n, k, bias=True, seed=i + 1)
    assert gemm._kernels == before


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_every_configuration_runs(index, monkeypatch):
    """Each configuration of `CONFIGS`, forced, on a ragged shape with bias + SiLU +
    residual."""
    torch = torch_cuda()
    from tilec import gemm

    config = gemm.CONFIGS[index]
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})  # the same structure forced to another configuration: prepared afresh
    _check(torch, 200, 1000, 776, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("cluster", [(1, 1), (2, 1)])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (300, 1096, 776), (72, 1000, 776), (1000, 392, 1024)])
def test_192_column_tile(cluster, m, n, k, monkeypatch):
    """The 128 x 192 tile (`128x192x64:5:c64`, three chunks of 64), forced, alone or in
    pairs sharing B, the widest epilogue: the rule's 3000 x 5000 x 7000, rows 16 mod 32
    bytes with block rows past M (300) and a last block column of 136 (1096), fewer
    tiles than blocks (72), a last column chunk of 8 (392)."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    tile = next(c for c in gemm.CONFIGS if c.bn == 192)
    config = replace(tile, cluster=cluster, box_parts=cluster != (1, 1),  # 5 stages of 3 boxes: halves
                     name=f"{tile.name}:{gemm.cluster_name(cluster)}")
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize(("index", "cluster"), [(1, (1, 1)), (1, (2, 1)), (0, (1, 1))])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (300, 1096, 776), (1000, 392, 72)])
def test_one_wgmma(index, cluster, m, n, k, monkeypatch):
    """The column chunks' wgmma of a K step issued as one (`GemmConfig.one_wgmma`:
    m64n192k16 on the 128 x 192 tile, alone or in pairs with box parts; m64n256k16 on
    128 x 256), forced, the widest epilogue: the rule's 3000 x 5000 x 7000, rows 16 mod
    32 bytes with block rows past M and a last block column of 136, a last column chunk
    of 8 and one trip of K."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    tile = gemm.CONFIGS[index]
    config = replace(tile, cluster=cluster, one_wgmma=True, box_parts=cluster != (1, 1),
                     name=f"{tile.name}:{gemm.cluster_name(cluster)}:ow")
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


W128_CASES = [(160, 32, 4, (1, 2), shape) for shape in [(3000, 5000, 7000, False), (300, 1096, 776, False),
                                                        (1000, 392, 72, True)]] + [
    (bn, chunk, stages, cluster, shape) for bn, chunk, stages, cluster in [(160, 32, 4, (1, 1)), (160, 32, 4, (2, 1)),
                                                                           (128, 64, 4, (1, 2)), (192, 64, 3, (1, 2)),
                                                                           (160, 32, 4, "hs")]
    for shape in [(300, 1096, 776, False), (1000, 392, 72, True)]]


@pytest.mark.parametrize(("bn", "chunk", "stages", "cluster", "shape"), W128_CASES)
def test_128_row_consumer_warpgroups(bn, chunk, stages, cluster, shape, monkeypatch):
    """Two consumer warpgroups of 128 rows each on 256-row tiles (`GemmConfig.consumer_rows`,
    `:w128`), the chunks' wgmma of a step as one (m64n160k16 from chunks of 32), forced,
    alone or in pairs with box parts, the widest epilogue (256 x 192: bias alone, its
    registers): the ragged 3000 x 5000 x 7000 (256 x 160 in pairs sharing A, as measured),
    block rows past M, one trip of K with B K-major; "hs": in pairs sharing A with C's chunks
    stored as row halves (`GemmConfig.half_stores`) and the steps past K skipped."""
    m, n, k, kmajor = shape
    half = cluster == "hs"
    cluster = (1, 2) if half else cluster
    torch = torch_cuda()
    from tilec import gemm

    config = gemm.GemmConfig(f"256x{bn}x64:{stages}:c{chunk}:ow:w128:{gemm.cluster_name(cluster)}:bp"
                             + (":sp:hs" if half else ""), 256, bn, 64,
                             stages, efficiency=0.0, chunk=chunk, one_wgmma=True, consumer_rows=128,
                             cluster=cluster, box_parts=cluster != (1, 1), half_stores=half, skip_padding=half)
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    wide = bn < 192
    _check(torch, m, n, k, bias=True, activation="silu" if wide else None, residual=wide, b_kmajor=kmajor)


@pytest.mark.parametrize(("index", "cluster"), [(0, (1, 1)), (0, (2, 1)), (1, (2, 1))])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (300, 1096, 840), (1000, 392, 72)])
def test_skip_padding(index, cluster, m, n, k, monkeypatch):
    """The steps of the last trip past K skipped (`GemmConfig.skip_padding`), forced on
    the 128 x 256 and 128 x 192 tiles, alone or in pairs, the widest epilogue: 110 K
    steps of 64 in trips of 4, 14 (rows 16 mod 32 bytes), 2 (one trip)."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    tile = gemm.CONFIGS[index]
    config = replace(tile, cluster=cluster, skip_padding=True, box_parts=cluster != (1, 1) and tile.bn == 192,
                     name=f"{tile.name}:{gemm.cluster_name(cluster)}:sp")
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["128x256x64:4:c128:st1", "128x256x64:4:c128:st2", "128x128x64:5:ppl",
                                  "128x128x64:6:ppl:oc"])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (300, 1096, 776), (1000, 392, 72)])
def test_staggered_and_pingpong_epilogues(name, m, n, k, monkeypatch):
    """The cooperative tile's consumers staggered (`GemmConfig.stagger`: each its 64 rows
    and its own epilogue) and the pingpong tile in 5 stages (the barriers after the
    buffers) or 6 with one C buffer (`GemmConfig.one_c`), the turn given after the K
    loop, forced, the widest epilogue: block rows past M (consumer 1's 64 rows of the
    last one all past it at M = 3000 and 300), a last block column of 136, one trip of K."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["192x160x64:4:c32:ow:sp", "192x160x64:4:c32:ow:sp:cl2",
                                  "192x160x64:4:c32:ow:sp:cl1x2:bp"])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (392, 344, 136), (1000, 392, 72)])
def test_192_row_tile_in_one_region_run_apart(name, m, n, k, monkeypatch):
    """The 192-row tile's three consumer warpgroups, one region run apart (each its 64 rows
    by `layout.warpgroup_index`, its rows of the C buffer, named barrier 1 + its index),
    alone and in pairs sharing B or A, forced, the widest epilogue: the last block row's
    second and third consumers' rows past M (392, 1000 = 5 x 192 + 40), a last block column
    of 24, one K step (72), rows starting mid-sector (3000 x 5000 x 7000)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr2:cw16",
                                  "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:ap:cr2:ch64",
                                  "256x160x64:4:c32:ow:w128:sp:cr4:cw16:ch128",
                                  "192x160x64:4:c32:ow:sp:cr2", "192x160x64:4:c32:ow:sp:cl2:cr3",
                                  "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:ap:cr2:cw16",
                                  "256x160x64:4:c32:ow:w128:sp:hs", "192x160x64:4:c32:ow:sp:cr3",
                                  "192x160x64:4:c32:ow:sp:cr4", "256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr2",
                                  "256x160x64:3:c32:ow:w128:sp:cr4", "192x160x64:4:c32:ow:sp:cl1x2:bp:cr3"])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (392, 344, 136)])
def test_c_ring(name, m, n, k, monkeypatch):
    """C's stores through a ring of C buffers (`GemmConfig.c_ring`, `c_width`, `c_height`):
    the 256 x 160 tile's chunks as two column parts through two 256 x 16 buffers (its
    warpgroups together, or apart, each its rows of them), run apart through two 64 x 32
    buffers a warpgroup, as four parts through four 128 x 16, as row halves (`half_stores`,
    the ring's waits), in 3 stages through two or four whole 256 x 32 buffers, the 192 x 160
    tile's chunks through two, three (the rule's; and in pairs sharing B or A) or four whole
    buffers, forced, the widest epilogue: rows starting mid-sector, a last block row of 136 (its
    second half past M) and a last block column of 24."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr2:cw16:ce",
                                  "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:cr4:cw16:ch128:ce",
                                  "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:ap:cr2:ch64:ce",
                                  "256x160x64:3:c32:ow:w128:sp:cl1x2:bp:cr6:cw16:ce", "192x160x64:4:c32:ow:sp:cr3:ce"])
@pytest.mark.parametrize(("m", "n", "k"), [(392, 344, 136), (3000, 5000, 7000)])
def test_c_ring_early_waits(name, m, n, k, monkeypatch):
    """The C ring with each part's wait for the next part's buffer before its own store
    (`GemmConfig.c_early`, one meeting a part): two 256 x 16 buffers, four 128 x 16, two 64 x 32 a
    warpgroup run apart, six 256 x 16 beside 3 stages, the 192 x 160 tile's three whole buffers;
    forced, the widest epilogue, a last block row of 136 and a last block column of 24, rows
    starting mid-sector."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["256x160x64:4:c32:ow:w128:sp:cl1x2:bp:al", "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:g4"])
@pytest.mark.parametrize(("m", "n", "k"), [(3000, 5000, 7000), (392, 344, 136)])
def test_the_256_row_tiles_arrival_after_its_loads_and_groups_of_4(name, m, n, k, monkeypatch):
    """The rule's 3000 x 5000 x 7000 tile (256 x 160 in pairs sharing A) with the producer's
    arrival after each stage's copies (`GemmConfig.arrive_last`) or in groups of 4 block rows,
    forced, the widest epilogue."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


def test_resident_clusters_fit_the_multiprocessors():
    """`cuOccupancyMaxActiveClusters` of the clustered tile's shape: every cluster size
    runs at least one cluster, no more clusters than the multiprocessors hold, and no
    more blocks of a larger cluster than of a smaller one."""
    torch = torch_cuda()
    from tilec import gemm
    from tilec.runtime import raw_launch

    torch.zeros(1, device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    smem = gemm.CONFIGS[0].smem_bytes()
    device = raw_launch.current_device()
    blocks = [size * raw_launch.resident_clusters(device, size, gemm.CLUSTER_THREADS, smem) for size in (1, 2, 4)]
    assert 0 < blocks[2] <= blocks[1] <= blocks[0] == sms
    assert gemm.cluster_slots(4, sms, smem) == blocks[2] // 4


@pytest.mark.parametrize("cluster", [(2, 1), (2, 2), (4, 1), (1, 2)])
@pytest.mark.parametrize(("m", "n", "k"), [(72, 1096, 776), (300, 1096, 776), (1000, 1096, 776), (1000, 1024, 1024)])
def test_clusters_sharing_operands(cluster, m, n, k, monkeypatch):
    """Clusters of cm x cn blocks, B multicast along their block rows and A along their
    block columns (`GemmConfig.cluster`, forced on the rule's 128 x 256 in chunks of
    128, persistent over the clusters the device runs at once): rows 16 mod 32 bytes
    (N = 1096, K = 776: one kernel serving three M) or 32-byte rows, groups with tiles
    past M (300: 3 block rows) and past N (5 block columns), fewer groups than clusters
    (72), the widest epilogue."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    config = replace(gemm.CONFIGS[0], cluster=cluster, name=f"{gemm.CONFIGS[0].name}:{gemm.cluster_name(cluster)}")
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kwargs: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (1, 6144, 4096, "64x16x64:8:swapAB:splitK4:p1"),   # 384 units over 132 blocks
    (16, 28672, 4096, "64x16x128:8:swapAB:p1"),        # the rule's: 448 units over 132 blocks
    (13, 1000, 1000, "64x16x64:8:swapAB:splitK3:p2"),  # 16 tiles x 3, the last tile 40 rows, K ragged
    (5, 4104, 4096, "64x16x128:4:swapAB:p2"),          # 65 tiles: fewer than the blocks; K steps of 128
    (100, 4096, 14336, "64x128x64:8:swapAB:splitK2:p1"),
])
def test_persistent_swapped_configurations(m, n, k, name, monkeypatch):
    """The swapped kernel persistent over one or two blocks a multiprocessor (split or
    not, K steps of 64 or 128), forced, with the widest epilogue."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    flags = name.split(":")
    bm, bn, bk = (int(x) for x in flags[0].split("x"))
    split = next((int(f[6:]) for f in flags if f.startswith("splitK")), 1)
    config = replace(gemm.swap_config(m), name=name, bn=bn, bk=bk, stages=int(flags[1]), split_k=split,
                     per_sm=int(flags[-1][1:]))
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 4096, 4096, "64x128x128:4:swapAB:p1:sk"),    # 512 trips over 132 blocks: span 4, every tile shared
    (64, 28672, 4096, "64x64x128:4:swapAB:p1:sk"),      # 448 tiles x 8 trips: span 28, ranges across tiles
    (100, 6144, 4096, "128x128x64:4:swapAB:p1:sk"),     # two consumer warpgroups
    (70, 4096, 4096, "256x128x64:4:swapAB:p1:sk"),      # four consumer warpgroups
    (13, 1000, 1000, "64x16x64:2:swapAB:p1:sk"),        # ragged N and K
])
def test_stream_k_configurations(m, n, k, name, monkeypatch):
    """Stream-K (`GemmConfig.stream_k`), forced, with the widest epilogue, against float64."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    head, stages = name.split(":")[:2]
    bm, bn, bk = (int(x) for x in head.split("x"))
    config = replace(gemm.swap_config(m), name=name, bm=bm, bn=bn, bk=bk, stages=int(stages), stream_k=True)
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (100, 4096, 4096, "64x128x128:4:swapAB:splitK2:csplit:clip"),   # O: 100 of 128 rows, split in clusters
    (65, 4096, 14336, "64x128x128:4:swapAB:splitK2:csplit:clip"),   # down: one row past the half
    (128, 4096, 4096, "64x128x128:4:swapAB:splitK2:csplit:clip"),   # the box whole
    (5, 1000, 1000, "64x16x64:2:swapAB:p1:clip"),                   # persistent, ragged N and K
    (20, 1000, 1000, "64x16x64:2:swapAB:p1:clip"),                  # two column tiles: the box whole
])
def test_swapped_a_t_clipped_to_m(m, n, k, name, monkeypatch):
    """A^T's box cut to M's rows after the first trip (`GemmConfig.clip_small`), forced, the
    widest epilogue, against float64."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch, "_decode_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 6144, 4096, "64x128x128:4:swapAB:p1"),   # QKV: 96 units in 48 pairs
    (64, 6144, 4096, "64x64x128:4:swapAB:p1"),     # QKV at M = 64
    (13, 936, 1000, "64x16x64:2:swapAB:p1"),       # 15 tiles: the last pair's second past N; K ragged
])
def test_swapped_pairs_sharing_a_t(m, n, k, name, monkeypatch):
    """Swapped units in pairs sharing A^T's stages (`:cl2`, `GemmConfig.cluster`), forced,
    the widest epilogue, against float64."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    head, stages = name.split(":")[:2]
    bm, bn, bk = (int(x) for x in head.split("x"))
    config = replace(gemm.swap_config(m), name=f"{name}:cl2", bm=bm, bn=bn, bk=bk, stages=int(stages),
                     cluster=(2, 1))
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "bn", "parts"), [
    (128, 6144, 4096, 96, False),   # QKV: 128 blocks of 64 x 96 in 64 pairs sharing the weight
    (100, 6144, 4096, 96, False),   # the second block row's last 28 rows past M
    (77, 4096, 4096, 64, False),    # O: 64 x 64
    (128, 1000, 1000, 128, False),  # ragged N and K: the last column past N, the last trip padded
    (100, 6144, 4096, 96, True),    # each block its 48 rows of the whole tile (`tile_parts`), 256-byte promotion
    (128, 1000, 1000, 64, True),    # one chunk, 32 rows each
])
def test_the_halves_in_pairs_sharing_the_weight(m, n, k, bn, parts, monkeypatch):
    """The decode tiles of M's halves (`gemm.halves_configs`, `DECODE_HALVES`), forced, with
    the widest epilogue, against float64; `parts`: with `tile_parts` and the loads' 256-byte L2
    promotion (`:tp:pr256`)."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    monkeypatch.setattr(gemm, "HALVES_CLUSTER", (2, 1))  # the pairs (the rule's halves run alone since dec49)
    config = next(c for c in gemm.halves_configs() if c.bn == bn)
    assert config.cluster == (2, 1)
    if parts:
        config = replace(config, name=f"{config.name}:tp:pr256", tile_parts=True, l2_promotion=256)
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 6144, 4096, "64x96x128:4:c32:ow:cl2:cb:pr256"),   # QKV, K steps of 128: each chunk's box in two panels
    (100, 6144, 4096, "64x96x128:4:c32:ow:cl2:cb:pr256"),
    (128, 1000, 1000, "64x96x128:4:c32:ow:cl2:cb:sp"),      # ragged N and K (8 steps of 128, the last partial)
    (100, 6144, 4096, "64x96x64:6:c32:ow:cl2:cb:pr256:sp"),  # 6 stages: the last trip's 2 padded steps skipped
    (128, 6144, 4096, "64x96x64:4:c32:ow:cl2:cb:pr256"),
    (100, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:kr"),  # K rotated by the block column
    (128, 1024, 1024, "64x96x64:8:c32:ow:cl2:cb:pr256:kr"),  # ragged N (the last column past N)
])
def test_the_halves_at_other_stages_and_k_steps(m, n, k, name, monkeypatch):
    """The decode halves' tile (`gemm.halves_configs`) at K steps of 128 (a 32-row chunk's B box
    two 128-byte panels 96 rows apart, `TmaGeometry.copy_stride`), at 6 and 4 stages and with
    each tile's K steps rotated by its block column (`:kr`, `GemmConfig.k_rotate`), forced,
    with the widest epilogue, against float64 (issue 39, dec44)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch, "_decode_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:kr1"),     # QKV: 64 block columns at 64 K offsets
    (72, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:tw:kr1"),   # the second block row's last 56 rows past M
    (100, 1024, 1024, "64x96x64:8:c32:ow:cl2:cb:pr256:kr3"),     # ragged N; 16 steps, trips round K's end
])
def test_the_halves_rotated_by_steps(m, n, k, name, monkeypatch):
    """The decode halves' tile with each tile's K steps rotated by its block column times a
    step count off the stages (`:kr<S>`, `GemmConfig.k_rotate_step`: each stage's step mod K's
    steps), forced, with the widest epilogue, against float64 (issue 39, q12847)."""
    torch = torch_cuda()
    _forced(name, monkeypatch, "_decode_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (100, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:clip"),   # QKV: the second block row's box 36 rows
    (72, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:clip"),    # 8 rows
    (127, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:clip"),   # 63 rows
    (128, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:clip"),   # whole: the clipped map's box 64 rows
    (65, 1000, 1000, "64x96x64:8:c32:ow:cl2:cb:sp:clip"),       # 1 row; ragged N and K, the padded trip
    (200, 1000, 1000, "64x96x64:8:c32:ow:cl2:cb:sp:clip"),      # 4 block rows: 2 pairs, the last 8 rows
])
def test_the_halves_clipped(m, n, k, name, monkeypatch):
    """The decode halves' tile with the last block row's A box clipped to M's rows left after a
    block's first trip (`:clip` unswapped, `layout.tma_load {clip, tail}`, its bytes expected at
    run time), forced, with the widest epilogue, against float64 (issue 39, q10048)."""
    torch = torch_cuda()
    _forced(name, monkeypatch, "_decode_config" if m <= 128 else "choose_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k"), [(128, 6144, 4096), (100, 6144, 4096), (200, 1000, 1000)])
def test_the_halves_in_clusters_of_2x2(m, n, k, monkeypatch):
    """The decode halves in clusters of 2 x 2 (`:cl2x2`, `gemm.HALVES_CLUSTER`: the tokens' A boxes
    multicast to two block columns too), forced, with the widest epilogue, against float64 (issue 39,
    dec49); 1000 columns: 11 block columns, the last cluster's second past N."""
    torch = torch_cuda()
    _forced("64x96x64:8:c32:ow:cl2x2:cb:pr256" if n % 96 == 0 else "64x96x64:8:c32:ow:cl2x2:cb:sp", monkeypatch,
            "_decode_config" if m <= 128 else "choose_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 6144, 4096, "64x96x64:8:c32:ow:cb:pr256"),        # QKV: 128 blocks, each its own weight boxes
    (100, 6144, 4096, "64x96x64:8:c32:ow:cb:pr256"),        # the second block row's 28 rows past M
    (100, 6144, 4096, "64x96x64:8:c32:ow:cb:pr256:clip"),   # ... clipped
    (200, 1000, 1000, "64x96x64:8:c32:ow:cb:sp"),           # 4 block rows, ragged N and K
])
def test_the_halves_alone(m, n, k, name, monkeypatch):
    """The decode halves without the pair's cluster (`gemm.HALVES_CLUSTER` (1, 1)), forced, with the
    widest epilogue, against float64 (issue 39, dec49)."""
    torch = torch_cuda()
    _forced(name, monkeypatch, "_decode_config" if m <= 128 else "choose_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (101, 6144, 4096, "64x96x64:10:c32:ow:cb:pr256:sp"),     # QKV, 10 stages alone (HALVES_MAX_STAGES 10)
    (128, 6144, 4096, "64x96x64:8:c32:ow:cb:pr256:b1"),      # the weight's stage one 96-row box (`b_box`)
    (101, 6144, 4096, "64x96x64:10:c32:ow:cb:pr256:sp:b1"),  # both
    (200, 1000, 1000, "64x96x64:10:c32:ow:cb:sp:b1"),        # 4 block rows, ragged N and K
    (112, 6144, 4096, "64x96x64:8:c32:ow:cl1x2:cb:pr256"),   # pairs of block columns sharing A (cuBLAS's 1x2)
    (101, 6144, 4096, "128x96x64:6:c32:ow:pr256:splitK2:ser"),  # all of M's rows, K split twice, summed in the kernel
    (128, 6144, 4096, "128x96x64:7:c32:ow:pr256:splitK2"),      # ... by the reduction's launch
    (200, 1000, 1000, "128x96x64:6:c32:ow:splitK3:ser"),        # 2 block rows, ragged N and K, 3 splits
])
def test_decode_tiles_deeper_one_box_paired_or_split_over_k(m, n, k, name, monkeypatch):
    """The decode halves alone at 10 stages (`:sp`), with the weight's stage one box (`:b1`), in pairs
    of block columns sharing the tokens' boxes (`:cl1x2`), or a 128 x 96 tile of all M's rows split
    over K (one_wgmma chunks with split_k), forced, with the widest epilogue, against float64 (issue 39,
    dec50)."""
    torch = torch_cuda()
    _forced(name, monkeypatch, "_decode_config" if m <= 128 else "choose_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize("m", [65, 96, 97])
def test_a_bucket_of_m_65_96(m, monkeypatch):
    """QKV by the decode rule, M 65-96 a bucket of its own (`gemm.M_BUCKETS`): 65 and 96 the bucket's
    kernel (the clipped swap), 97 the halves', with the widest epilogue, against float64 (issue 39,
    dec49)."""
    torch = torch_cuda()
    from tilec import gemm

    monkeypatch.setattr(gemm, "_fast", {})  # (a cached call of the old buckets' pick)
    gemm._decode_config.cache_clear()
    try:
        picked = gemm.choose_config(m, 6144, torch.cuda.get_device_properties(0).multi_processor_count, k=4096,
                                    b_kmajor=True)
        _check(torch, m, 6144, 4096, bias=True, activation="silu", residual=True, b_kmajor=True)
    finally:
        gemm._decode_config.cache_clear()
    assert picked.swap_ab == (m <= 96)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:tw"),   # QKV: one 96-row weight box a stage, ranks in turn
    (100, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:tw"),   # the second block row's last 28 rows past M
    (128, 1000, 1000, "64x96x64:8:c32:ow:cl2:cb:sp:tw"),      # ragged N and K: the last column past N, padded trip
    (128, 6144, 4096, "64x96x64:8:c32:ow:cl2:cb:pr256:tw:kr"),  # with K rotated by the block column
    (100, 6144, 4096, "64x96x128:4:c32:ow:cl2:cb:pr256:tw"),  # K steps of 128: the weight's two 96-row panels
])
def test_the_halves_one_weight_box_a_stage(m, n, k, name, monkeypatch):
    """The decode halves' tile with the stage's whole 96 x 64 weight tile one multicast box from
    block s mod 2 of the pair (`:tw`, `GemmConfig.tile_whole`), forced, with the widest
    epilogue, against float64 (issue 39, qkv46)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch, "_decode_config")
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (128, 6144, 4096, "64x128x128:4:swapAB:p1"),   # QKV: 768 trips over 132 blocks, span 6: tiles in 2-3 parts
    (128, 4096, 4096, "64x128x128:4:swapAB:p1"),   # O: span 4, every tile in 2 or 3 parts
    (100, 6144, 4096, "128x128x64:4:swapAB:p1"),   # two consumer warpgroups
    (13, 1000, 1000, "64x16x64:2:swapAB:p1"),      # ragged N and K
    (128, 6144, 4096, "64x128x128:4:swapAB:p1:cl2"),   # in pairs sharing A^T: 48 groups over 66 pairs
    (128, 4096, 4096, "64x128x128:4:swapAB:p1:cl2"),   # O: 32 groups over 66 pairs, span 4 of 8 trips
])
def test_stream_k_summed_in_the_kernel(m, n, k, name, monkeypatch):
    """Stream-K with the shared tiles summed by their last block (`:sk:ser`), forced, the
    widest epilogue, alone or in pairs sharing A^T (`:cl2`): within the bound, the same
    bits three calls running (the counters left zero by each) and the same bits as the
    fixup launch (`:sk`)."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    head, stages = name.split(":")[:2]
    bm, bn, bk = (int(x) for x in head.split("x"))
    g = torch.Generator(device="cuda").manual_seed(m)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.float16, generator=g)
    res = torch.randn(m, n, device="cuda", dtype=torch.float16, generator=g)
    outs = []
    for serial in (True, True, True, False):
        config = replace(gemm.swap_config(m), name=f"{name}:sk" + (":ser" if serial else ""), bm=bm, bn=bn, bk=bk,
                         stages=int(stages), stream_k=True, serial=serial,
                         cluster=(2, 1) if name.endswith(":cl2") else (1, 1))
        monkeypatch.setattr(gemm, "_decode_config", lambda *args, c=config: c)
        monkeypatch.setattr(gemm, "_fast", {})
        out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        tilec.matmul(a, w.t(), bias=bias, activation="silu", residual=res, out_dtype=torch.float16, out=out)
        torch.cuda.synchronize()
        outs.append(out.clone())
    ok = within_bound(f64(outs[0]), f64(a), f64(w.t()), f64(bias), "silu", f64(res), "f16")
    assert ok.all(), f"{(~ok).sum()} of {ok.size} elements outside the bound"
    assert all(torch.equal(outs[0], x) for x in outs[1:])


@pytest.mark.parametrize(("m", "n", "k", "split"), [
    (128, 4096, 4096, 2),    # Llama's O: 64 clusters of 2
    (100, 6144, 4096, 4),    # QKV: 96 clusters of 4, in three waves
    (13, 1000, 1000, 2),     # ragged N (the last tile 40 rows) and K, 2 stages of 64
    (64, 4096, 14336, 4),    # down
    (77, 4096, 4096, 8),     # clusters of 8, each block 8 rows of N
])
def test_cluster_split_configurations(m, n, k, split, monkeypatch):
    """Split-K summed in a thread-block cluster (`GemmConfig.cluster_split`), forced, with
    the widest epilogue, against float64; the same bits on a second call."""
    torch = torch_cuda()
    from tilec import gemm

    from dataclasses import replace

    swap = gemm.swap_config(m)
    if k < 4096:  # K steps of 64 over 2 stages: splits with steps of their own
        swap = replace(swap, name="64x16x64:2:swapAB:p1", bk=64, stages=2)
    config = next(c for c in gemm.cluster_splits(swap, k) if c.split_k == split)
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
    first = tilec.matmul(a, w.t()).clone()
    assert torch.equal(first, tilec.matmul(a, w.t()))


@pytest.mark.parametrize(("m", "n", "k", "split"), [
    (128, 6144, 4096, 2),    # Llama's QKV at M = 128: 48 clusters of 2 of 128 rows, 7 stages
    (100, 6144, 4096, 4),    # 96 blocks in clusters of 4, each split 21 steps of 64 (the last 1)
    (13, 1000, 1000, 2),     # ragged N (the last tile 104 rows), K and M
])
def test_cluster_split_with_global_partials(m, n, k, split, monkeypatch):
    """Split-K in a cluster with the partials through a global workspace
    (`GemmConfig.global_partials`, 128-row units, the deepest ring), forced, with the
    widest epilogue, against float64; the same bits on a second call (the same bits as
    the split summed by a second launch: test_gemm_cluster_split.py, on the reference
    executor; not as the partials through shared memory, whose shallower ring splits K
    elsewhere: 32 steps a split of 4 stages, 35 of 7)."""
    torch = torch_cuda()
    from tilec import gemm

    wide = gemm.cluster_splits(gemm.swap_config(m, rows=128), k)
    config = next(c for c in wide if c.split_k == split and c.global_partials)
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=True)
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
    first = tilec.matmul(a, w.t()).clone()
    assert torch.equal(first, tilec.matmul(a, w.t()))


@pytest.mark.parametrize(("m", "n", "k", "b_kmajor", "cluster"), [
    (3000, 5000, 7000, False, (2, 1)),  # the rule's with STREAM_K_TAIL: 240 pairs, 3 waves whole, 42 shared
    (3000, 5008, 7008, False, (1, 1)),  # the rule's with STREAM_K_TAIL: 3 waves whole, 84 tiles' trips shared
    (2900, 5000, 1000, True, (1, 1)),   # ragged M and N: 460 tiles, 64 shared; B K-major
    (600, 4000, 1000, False, (1, 1)),   # 80 tiles, no full wave: every tile shared
])
def test_stream_k_tail(m, n, k, b_kmajor, cluster, monkeypatch):
    """The wave rule's tile with the stream-K tail (`with_stream_k_tail`), forced, alone
    or in pairs sharing B, the widest epilogue, against float64."""
    torch = torch_cuda()
    from dataclasses import replace

    from tilec import gemm

    config = replace(gemm.CONFIGS[0], stream_k=True, cluster=cluster, name=gemm.CONFIGS[0].name + ":sk")
    monkeypatch.setattr(gemm, "choose_config", lambda *args, **kw: config)
    monkeypatch.setattr(gemm, "_fast", {})
    _check(torch, m, n, k, bias=True, activation="silu", residual=True, b_kmajor=b_kmajor)


def test_cupy_f16():
    cupy = pytest.importorskip("cupy")
    a = cupy.random.standard_normal((130, 256)).astype(cupy.float16)
    b = cupy.random.standard_normal((256, 264)).astype(cupy.float16)
    c = tilec.matmul(a, b, activation="relu")
    cupy.cuda.Device().synchronize()
    a64, b64 = cupy.asnumpy(a).astype(np.float64), cupy.asnumpy(b).astype(np.float64)
    assert within_bound(cupy.asnumpy(c).astype(np.float64), a64, b64, None, "relu", None, "f16").all()


def test_errors_name_the_operand():
    torch = torch_cuda()
    a = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(TilecError, match="b must be row-major or the transpose of a row-major matrix"):
        tilec.matmul(a, w.t()[:, ::2])
    with pytest.raises(TilecError, match="bias has shape"):
        tilec.matmul(a, w.t(), bias=torch.zeros(128, device="cuda", dtype=torch.bfloat16))


@pytest.mark.parametrize(("m", "n", "k", "kmajor"), [(1, 6144, 4096, True), (5, 6144, 4096, False),
                                                     (100, 4096, 1024, True), (300, 1000, 776, True)])
def test_cached_calls_with_new_pointers_and_a_new_m(m, n, k, kmajor, monkeypatch):
    """Cached calls of torch tensors (api/matmul_launch.py): one weight, new activations
    and outputs each call (held, so every call's pointers are new: the tensor maps'
    global addresses rewritten), then another M: each result within the bound of
    float64; the cached calls run no host function, the new M compiles nothing."""
    torch = torch_cuda()
    from tilec import gemm
    from tilec.runtime import host

    g = torch.Generator(device="cuda").manual_seed(m)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = w.t() if kmajor else w.t().contiguous()
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    held = []

    def one(rows: int) -> None:
        a = torch.randn(rows, k, device="cuda", dtype=torch.bfloat16, generator=g)
        got = tilec.matmul(a, b, bias=bias, activation="silu")
        held.append((a, got))
        torch.cuda.synchronize()
        ok = within_bound(f64(got), f64(a), f64(b), f64(bias), "silu", None, "bf16")
        assert ok.all(), f"M = {rows}: {(~ok).sum()} of {ok.size} outside the bound"

    one(m)
    kernels = dict(gemm._kernels)
    runs = []
    real = host.HostProgram.run
    monkeypatch.setattr(host.HostProgram, "run", lambda self, args: runs.append(1) or real(self, args))
    for _ in range(3):
        one(m)
    assert runs == [] and len({got.data_ptr() for _, got in held}) == 4
    one(m + 1)
    assert gemm._kernels == kernels


def test_cached_fp8_calls_keep_their_number_scales():
    """FP8 with float scales: a cached call launches with the scale tensors its first
    call made (held by the launcher), the same bits as the first call; another number
    is another structure (its own scale tensor)."""
    torch = torch_cuda()
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("PyTorch without float8")
    a = torch.randn(16, 1024, device="cuda").to(torch.float8_e4m3fn)
    w = torch.randn(512, 1024, device="cuda").to(torch.float8_e4m3fn)
    first = tilec.matmul(a, w.t(), scale_a=0.5, scale_b=0.25)
    again = [tilec.matmul(a, w.t(), scale_a=0.5, scale_b=0.25) for _ in range(3)]
    other = tilec.matmul(a, w.t(), scale_a=1.0, scale_b=0.25)
    torch.cuda.synchronize()
    assert all(torch.equal(first, x) for x in again)
    assert torch.equal(first.float() * 2, other.float())  # another scale: another entry, a power of two exact


@pytest.mark.parametrize(("m", "n", "kind", "weight"), [
    (16, 2048, "swap", False), (16, 2048, "swap", True), (128, 1024, "swap", True), (128, 4096, "csplit", True),
    (128, 6144, "halves", False), (128, 6144, "halves", True), (128, 6144, "pairs", False), (128, 6144, "pairs", True)])
def test_programmatic_dependent_launch_in_a_chain(m, n, kind, weight, monkeypatch):
    """`GemmConfig.pdl` (and `pdl_weight`: the weight's first stages before the wait): 12
    layers queued back to back (`helpers.matmul_chain`), each reading the previous layer's output and writing
    the buffer the layer before it read (two buffers in turn), launched as programmatic
    dependents: the same bits as the same kernels without PDL, the first layer within
    the bound against float64. `kind`: the swapped kernel, persistent, or split twice
    in clusters of two (`csplit`), or M's halves (`halves`: the rule's at M = 128, each block
    its own weight boxes) or M's halves in pairs sharing the weight (`pairs`: its weight's
    multicast boxes before the wait), both with `pdl_late`."""
    torch = torch_cuda()
    late = {"pdl_late": True} if kind in ("halves", "pairs") else {}
    outs, firsts, x0, w0 = pdl_chain(torch, monkeypatch, m, n, kind, pdl_weight=weight, **late)
    for first in firsts.values():
        assert within_bound(f64(first), f64(x0), f64(w0), None, None, None, "bf16").all()
    assert torch.equal(outs[False], outs[True])


@pytest.mark.parametrize("name", ["256x160x64:4:c32:ow:w128:sp:cl1x2:bp:wb", "256x160x64:4:c32:ow:w128:sp:wb",
                                  "192x160x64:4:c32:ow:cr3:sp:wb"])
@pytest.mark.parametrize(("m", "n", "k"), [(392, 504, 136), (3000, 5000, 7000)])
def test_b_panels(name, m, n, k, monkeypatch):
    """B's tile as 128-byte panels and one chunk's box (`GemmConfig.b_panels`, `:wb`; the chunk
    left first in odd block columns): the rule's 3000 x 5000 x 7000 tile in pairs sharing A and
    alone, the 192 x 160 tile, forced, the widest epilogue; 504 columns: 4 block columns, the
    last 24 wide and odd."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.b_panels
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["256x160x64:3:c32:ow:w128:sp:cl1x2:bp:wbf", "256x160x64:3:c32:ow:w128:sp:wbf",
                                  "192x160x64:3:c32:ow:cr3:sp:wbf"])
@pytest.mark.parametrize(("m", "n", "k"), [(392, 504, 136), (3000, 5000, 7000)])
def test_b_fill(name, m, n, k, monkeypatch):
    """cuBLAS's B stage (`GemmConfig.b_fill`, `:wbf`): the chunk left into the first 32 columns of a third 128-byte
    panel (its 64-byte box rows land 128 bytes apart: `TmaGeometry.pad`), one m64n160k16 over the three panels;
    the rule's tile in pairs sharing A and alone and the 192 x 160 tile, 3 stages, forced, the widest epilogue;
    504 columns: 4 block columns, the last 24 wide and odd (its chunk left first)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.b_fill
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)


@pytest.mark.parametrize("name", ["256x160x64:4:c32:ow:w128:sp:cl1x2:bp:rn",
                                  "256x160x64:4:c32:ow:w128:sp:cl1x2:bp:rn:g16", "192x160x64:4:c32:ow:cr3:sp:rn"])
@pytest.mark.parametrize(("m", "n", "k"), [(392, 504, 136), (3000, 5000, 7000)])
def test_raster_n(name, m, n, k, monkeypatch):
    """The persistent walk's groups along N (`GemmConfig.raster_n`, `:rn`): the rule's 3000 x 5000 x 7000
    tile in pairs sharing A in groups of 4 and 8 pair columns, the 192 x 160 tile in groups of 8 block
    columns, forced, the widest epilogue; every tile taken once (C poisoned first)."""
    torch = torch_cuda()
    config = _forced(name, monkeypatch)
    assert config.raster_n
    _check(torch, m, n, k, bias=True, activation="silu", residual=True)
