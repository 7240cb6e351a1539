"""Random GEMMs of session 36's and 37's options on the CPU reference executor (issue #10), at
random ragged shapes (block rows and columns past M and N, K past its steps), output
and workspace poisoned, the executor's race, barrier and multicast checks on:

* `one_wgmma` (`:ow`): column chunks of 64 or 128 in tiles of 128 to 256 columns, alone
  or in pairs (with box parts or not), persistent or not, a static or run-time M; after
  the default pipeline each K step's chunks are one `wgmma.m64nNk16` (N the tile's
  columns: lower-to-gpu's join, `passes/lower_to_gpu/wgmma.py` `_run`, and the groups it
  counts, `_gpu_pending`), and C is the same bits as the same kernel's without the join
  (each chunk's sums are the same products in the same order), within the bound of
  float64;
* swapped decode GEMMs (C^T = B^T A^T) in pairs sharing A^T (`:cl2`), stream-K summed in
  the kernel (`:sk:ser`) and both (`:cl2:sk:ser`): random M (one or two column tiles),
  N (the last pair's second tile past N), K and blocks (ranges across tile boundaries,
  tiles in 2 to 8 segments); the in-kernel sum the same bits as the fixup launch's and
  as a second call on the counters the first left (all zero), pairs the same bits as
  the units alone, within the bound of float64;
* session 37's programmatic dependent launch (`:pdl`, `:pdlw`: `griddep_launch_dependents`
  after the barriers' initialisation, `griddep_wait` before the roles or in the producer's
  first trip after the weight's loads) and the weight's rows asked of L2 trips ahead
  (`l2_ahead`, swapped): plain, swapped, persistent or not, a run-time or static M; the
  same bits as the kernel without the option (the executor runs one kernel at a time: the
  ops order nothing it sees, and must not move a load or a barrier), the CUDA with
  `griddepcontrol` / `cp.async.bulk.prefetch.L2`.

Seeds are fixed (hypothesis derandomized); TILEC_FUZZ_EXAMPLES=N for N GEMMs a test."""

from __future__ import annotations

import os
import random
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from harness import budget  # noqa: E402

from tilec.compiler.pipeline import emit, run_pipeline  # noqa: E402
from tilec.dialects.dtypes import bf16_to_f32, f32_to_bf16  # noqa: E402
from tilec.gemm_programs import Epilogue, gemm_hopper_ws  # noqa: E402
from tilec.runtime.reference import run  # noqa: E402

FUZZ = settings(max_examples=budget(2), derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow], phases=[Phase.generate])
"""Seeds drawn, none shrunk (a seed is the whole input: a failure prints it)."""

EPILOGUES = (Epilogue(), Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16"),
             Epilogue(bias=True, activation="gelu"), Epilogue(residual=True, out_dtype="f16"))


def _bits(x: np.ndarray, dtype: str) -> np.ndarray:
    return f32_to_bf16(x.astype(np.float32)) if dtype == "bf16" else x.astype(np.float16)


def _values(x: np.ndarray, dtype: str) -> np.ndarray:
    return (bf16_to_f32(x) if dtype == "bf16" else np.asarray(x, np.float32)).astype(np.float64)


def _operands(m: int, n: int, k: int, ep: Epilogue, seed: int) -> dict:
    """A (m, k), B (k, n) in bf16, bias and residual in the output type: float64 values
    exact in their types."""
    rng = np.random.default_rng(seed)
    out = {"a": rng.standard_normal((m, k)), "b": rng.standard_normal((k, n)),
           "bias": rng.standard_normal(n) if ep.bias else None,
           "residual": rng.standard_normal((m, n)) if ep.residual else None}
    for name, dtype in (("a", "bf16"), ("b", "bf16"), ("bias", ep.out_dtype), ("residual", ep.out_dtype)):
        if out[name] is not None:
            out[name] = _values(_bits(out[name], dtype), dtype)
    return out


def _inputs(m: int, n: int, ops: dict, ep: Epilogue, swap: bool, dynamic_m: bool, workspace: int = 0,
            counters: np.ndarray | None = None) -> dict:
    out = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits((ops["b"].T if swap else ops["b"]).ravel(), "bf16"),
           "pc": _bits(np.full(m * n, np.nan), ep.out_dtype)}
    if ep.bias:
        out["pbias"] = _bits(ops["bias"], ep.out_dtype)
    if ep.residual:
        out["pres"] = _bits(ops["residual"].ravel(), ep.out_dtype)
    if workspace:
        out["pw"] = np.full(workspace, np.nan, np.float32)
    if counters is not None:
        out["pctr"] = counters
    if dynamic_m:
        out["m"] = m
    return out


def _within_bound(c: np.ndarray, ops: dict, ep: Epilogue, what: str) -> None:
    from helpers.matmul_oracle import within_bound

    ok = within_bound(c, ops["a"], ops["b"], ops["bias"], ep.activation, ops["residual"], ep.out_dtype)
    assert ok.all(), f"{what}: {(~ok).sum()} elements outside the bound, first at {np.argwhere(~ok)[0]}"


# ------------------------------------------------------------------------ one_wgmma


def draw_one_wgmma(rng: random.Random) -> dict:
    bn, chunk = rng.choice([(128, 64), (192, 64), (256, 64), (256, 128)])
    cluster = rng.choice([(1, 1), (2, 1)])
    m, n, k = rng.randrange(8, 300), 8 * rng.randrange(1, bn // 4 + 5), 8 * rng.randrange(2, 38)  # N, K: 16-byte rows
    kw = {"bm": rng.choice([64, 128]), "bn": bn, "bk": 64, "stages": 2, "chunk": chunk, "cluster": cluster,
          "box_parts": cluster != (1, 1) and chunk == 64 and rng.random() < 0.5,  # parts: 128-byte boxes
          "persistent": rng.choice([0, 2, 3] if cluster == (1, 1) else [2, 4]),  # pairs: persistent over pairs
          "epilogue": rng.choice(EPILOGUES)}
    return {"m": m, "n": n, "k": k, "dynamic_m": rng.random() < 0.5, "kw": kw}


@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_one_wgmma_is_the_chunks_bits(seed):
    d = draw_one_wgmma(random.Random(seed))
    m, n, k, kw = d["m"], d["n"], d["k"], d["kw"]
    ep = kw["epilogue"]
    what = f"seed {seed}: {m} x {n} x {k} {kw}, M {'run-time' if d['dynamic_m'] else 'static'}"
    ops = _operands(m, n, k, ep, seed % 1000)
    got = []
    for one in (True, False):
        try:
            module = gemm_hopper_ws(None if d["dynamic_m"] else m, n, k, one_wgmma=one, **kw)
        except ValueError as e:  # a combination the generator refuses: the draw is wrong
            raise AssertionError(f"{what}: {e}") from e
        run_pipeline(module, "default")
        if one:
            cuda = emit(module, "cuda")
            assert f"wgmma.mma_async.sync.aligned.m64n{kw['bn']}k16" in cuda, what
            assert f"m64n{kw['chunk']}k16" not in cuda, what
        out = run(module, _inputs(m, n, ops, ep, False, d["dynamic_m"]))
        got.append(np.asarray(out["pc"]))
        _within_bound(_values(got[-1], ep.out_dtype).reshape(m, n), ops, ep, f"{what}, one_wgmma={one}")
    assert np.array_equal(got[0].view(np.uint16), got[1].view(np.uint16)), f"{what}: the join changed C's bits"


# ---------------------------------------------------------- swapped pairs and stream-K


def draw_swapped(rng: random.Random) -> dict:
    form = rng.choice(["sk:ser", "cl2", "cl2:sk:ser"])
    bm, bn = rng.choice([(64, 16), (64, 32), (128, 16)])
    pairs = form.startswith("cl2")
    blocks = rng.randrange(1, 9) * (2 if pairs else 1) + (0 if pairs else rng.randrange(0, 8))
    m = rng.randrange(1, 2 * bn + 1)  # one or two column tiles of M
    n = 8 * rng.randrange(bm // 8 + 1, 5 * bm // 8)  # N, K: 16-byte rows (the TMA's)
    k = 8 * rng.randrange(9, 138)
    return {"form": form, "m": m, "n": n, "k": k, "blocks": blocks, "level": rng.choice(["layout", "lowered"]),
            "kw": {"bm": bm, "bn": bn, "bk": 64, "stages": 2, "b_kmajor": True, "swap_ab": True,
                   "cluster": (2, 1) if pairs else (1, 1), "epilogue": rng.choice(EPILOGUES)}}


@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_swapped_pairs_and_stream_k_sums(seed):
    d = draw_swapped(random.Random(seed))
    m, n, k, blocks, kw = d["m"], d["n"], d["k"], d["blocks"], d["kw"]
    ep = kw["epilogue"]
    what = f"seed {seed}: {d['form']} {m} x {n} x {k} on {blocks} blocks, {d['level']}, {kw}"
    ops = _operands(m, n, k, ep, seed % 1000)
    tile = kw["bm"] * kw["bn"]  # two slots a block, a counter a block (`GemmConfig.workspace`, `counters`)

    def c_of(**extra):
        module = gemm_hopper_ws(None, n, k, persistent=blocks, **{**kw, **extra})
        if d["level"] == "lowered":
            run_pipeline(module, "default")
        return module

    if d["form"] == "cl2":
        # in pairs, then the same units alone (at the same level: the lowered wgmma's sums
        # may round apart from the layout's, within the bound)
        got = [np.asarray(run(c_of(cluster=cluster), _inputs(m, n, ops, ep, True, True))["pc"])
               for cluster in ((2, 1), (1, 1))]
    else:
        counters, got = np.zeros(blocks, np.int32), []
        for serial in (True, True, False):  # twice on the same counters, then the fixup launch
            out = run(c_of(stream_k=True, serial=serial),
                      _inputs(m, n, ops, ep, True, True, 2 * blocks * tile, counters if serial else None))
            if serial:
                counters = np.asarray(out["pctr"]).copy()
            got.append(np.asarray(out["pc"]))
        assert not counters.any(), f"{what}: counters left {counters}"
    for c in got:
        _within_bound(_values(c, ep.out_dtype).reshape(m, n), ops, ep, what)
    assert all(np.array_equal(got[0].view(np.uint16), c.view(np.uint16)) for c in got[1:]), \
        f"{what}: the calls' bits differ"


# ------------------------------------------------- programmatic dependent launch, L2 ahead


def draw_launch_options(rng: random.Random) -> dict:
    swap = rng.random() < 0.6
    option = rng.choice(["pdl", "pdlw", "l2p"] if swap else ["pdl", "pdlw"])
    if swap:
        bm, bn = rng.choice([(64, 16), (64, 32), (128, 16)])
        m, n = rng.randrange(1, 2 * bn + 1), 8 * rng.randrange(bm // 8 + 1, 5 * bm // 8)
    else:
        bm, bn = rng.choice([(64, 64), (128, 64), (128, 128)])
        m, n = rng.randrange(8, 300), 8 * rng.randrange(2, bn // 4 + 5)
    k = 8 * rng.randrange(9, 100)
    kw = {"bm": bm, "bn": bn, "bk": 64, "stages": rng.choice([2, 3]), "b_kmajor": swap, "swap_ab": swap,
          "persistent": rng.choice([0, 0, 2, 3]), "epilogue": rng.choice(EPILOGUES)}
    extra = {"pdl": {"pdl": True}, "pdlw": {"pdl": True, "pdl_weight": True},
             "l2p": {"l2_ahead": rng.choice([1, 2, 3])}}[option]
    return {"option": option, "m": m, "n": n, "k": k, "dynamic_m": swap or rng.random() < 0.5,
            "level": rng.choice(["layout", "lowered"]), "kw": kw, "extra": extra}


@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_launch_options_keep_the_bits(seed):
    d = draw_launch_options(random.Random(seed))
    m, n, k, kw = d["m"], d["n"], d["k"], d["kw"]
    ep, swap = kw["epilogue"], kw["swap_ab"]
    what = (f"seed {seed}: {d['option']} {m} x {n} x {k}, {d['level']}, "
            f"M {'run-time' if d['dynamic_m'] else 'static'}, {kw} {d['extra']}")
    ops = _operands(m, n, k, ep, seed % 1000)
    got = []
    for extra in (d["extra"], {}):
        try:
            module = gemm_hopper_ws(None if d["dynamic_m"] else m, n, k, **kw, **extra)
        except ValueError as e:  # a combination the generator refuses: the draw is wrong
            raise AssertionError(f"{what}: {e}") from e
        if d["level"] == "lowered" or extra:
            run_pipeline(module, "default")
        if extra:
            cuda = emit(module, "cuda")
            want = "cp.async.bulk.prefetch.L2" if d["option"] == "l2p" else "griddepcontrol.wait"
            assert want in cuda, what
        if extra and d["level"] == "layout":  # the option at layout level: built again, not lowered
            module = gemm_hopper_ws(None if d["dynamic_m"] else m, n, k, **kw, **extra)
        got.append(np.asarray(run(module, _inputs(m, n, ops, ep, swap, d["dynamic_m"]))["pc"]))
        _within_bound(_values(got[-1], ep.out_dtype).reshape(m, n), ops, ep, f"{what}, {extra}")
    assert np.array_equal(got[0].view(np.uint16), got[1].view(np.uint16)), f"{what}: the option changed C's bits"


def test_the_draws_reach_every_form():
    ow = [draw_one_wgmma(random.Random(s)) for s in range(200)]
    assert {(d["kw"]["bn"], d["kw"]["chunk"]) for d in ow} == {(128, 64), (192, 64), (256, 64), (256, 128)}
    assert {(d["kw"]["cluster"], d["kw"]["box_parts"]) for d in ow} == {((1, 1), False), ((2, 1), False),
                                                                        ((2, 1), True)}
    sw = [draw_swapped(random.Random(s)) for s in range(200)]
    assert {d["form"] for d in sw} == {"sk:ser", "cl2", "cl2:sk:ser"}
    assert {d["level"] for d in sw} == {"layout", "lowered"}
    lo = [draw_launch_options(random.Random(s)) for s in range(200)]
    assert {(d["option"], d["kw"]["swap_ab"]) for d in lo} == {("pdl", True), ("pdlw", True), ("l2p", True),
                                                               ("pdl", False), ("pdlw", False)}
    assert {d["kw"]["persistent"] > 0 for d in lo} == {True, False}


@pytest.mark.parametrize("seed", [0])
def test_a_drawn_one_wgmma_kernel_compiles(seed, nvrtc_available):
    """NVRTC + ptxas for sm_90a of a drawn `one_wgmma` kernel (the join's descriptor of
    several swizzle tiles, the groups' waits) without spills."""
    from helpers.nvrtc import compile_sm90_or_skip

    from tilec.runtime.nvrtc import resource_usage

    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    d = draw_one_wgmma(random.Random(seed))
    module = gemm_hopper_ws(None, d["n"], d["k"], one_wgmma=True, **d["kw"])
    run_pipeline(module, "default")
    usage = resource_usage(compile_sm90_or_skip(emit(module, "cuda")))
    assert all(u.spill_stores in (0, None) for u in usage.values()), d
