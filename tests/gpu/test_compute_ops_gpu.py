"""On an H100/H200: the fuzz corpus's compute-op programs (tests/fuzz/generate_compute.py;
their CPU side is tests/fuzz/test_compute_ops.py). `cuda.div_approx_group` on the
hardware's `rcp.approx`: in random division kernels that lower-to-gpu groups, on inputs
chosen to break the divisor's range (NaN, infinities, zeros, extremes, subnormals), every
divisor the GPU computed (`ex2.approx` included) is a number within the range the group
needs, and every quotient lies within 2^-21 of x / d in float64 (d the GPU's own
divisor; away from the flushed subnormals and infinity, as `cuda.DivApproxGroupOp`
says). `cuda.byte_perm` programs equal `byte_perm_model` bit for bit. Outputs are
poisoned first."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
from generate_compute import byte_perm_model, draw_division, random_byte_perm_kernel  # noqa: E402
from generate_compute import division_program  # noqa: E402

pytestmark = pytest.mark.gpu

F32 = np.finfo(np.float32)


def _grouped_seeds(n: int) -> list[int]:
    """The first `n` seeds whose division lower-to-gpu groups (the generator's own
    range and registers: tests/fuzz/test_compute_ops.py checks the pass agrees)."""
    out = []
    for k in range(2000):
        s = draw_division(random.Random(k))
        if s.afn and s.divisor.group() != {1} and s.registers >= max(s.divisor.group()):
            out.append(k)
        if len(out) == n:
            return out
    return out


def _compiled(text: str):
    import tilec
    from tilec.compiler.pipeline import parse_module

    return tilec.compile(parse_module(text))


@pytest.mark.parametrize("seed", _grouped_seeds(10))
def test_grouped_divisions_within_their_bound_on_the_gpu(seed):
    import cupy as cp

    from tilec.dialects.cuda import DIV_GROUP_PRODUCT_EXPONENT

    s = draw_division(random.Random(seed))
    k = _compiled(division_program(s))
    assert "tilec_rcp_approx_ftz(" in k.source, s
    g = max(s.divisor.group())
    bound = 2.0 ** (DIV_GROUP_PRODUCT_EXPONENT / g)
    rng = np.random.default_rng(seed)
    hostile = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, F32.max, -F32.max, F32.tiny, 1e-45, -1e-40,
                        88.7, -88.7, 127.5, -127.5, 150.0, -150.0, 1e30, -1e30], np.float32)
    for trial in range(4):
        x = (rng.standard_normal((s.rows, s.cols)) * rng.choice([1, 30, 1e3], (s.rows, s.cols))).astype(np.float32)
        flat = x.reshape(-1)
        n = min(flat.size, hostile.size)
        flat[rng.permutation(flat.size)[:n]] = hostile[rng.permutation(hostile.size)[:n]]
        dev = [cp.asarray(x), cp.full(x.shape, np.nan, np.float32), cp.full(x.shape, np.nan, np.float32)]
        k(*dev)
        q, d = cp.asnumpy(dev[1]).reshape(-1), cp.asnumpy(dev[2]).reshape(-1)
        assert not np.isnan(d).any() and (d >= 1 / bound).all() and (d <= bound).all(), \
            (s, float(np.nanmin(d)), float(np.nanmax(d)))
        want = flat.astype(np.float64) / d
        ok = (np.abs(want) >= F32.tiny * (1 + 2.0**-20)) & (np.abs(want) <= F32.max * (1 - 2.0**-21)) & \
            (np.abs(flat) >= F32.tiny)
        err = np.abs(q[ok] - want[ok]) / np.abs(want[ok])
        assert (err <= 2.0**-21).all(), (s, float(err.max()), np.log2(err.max()))
        assert np.array_equal(np.isnan(q), np.isnan(flat)), s  # NaN exactly where x is


@pytest.mark.parametrize("seed", range(6))
def test_byte_perm_programs_match_the_model_on_the_gpu(seed):
    import cupy as cp

    prog = random_byte_perm_kernel(random.Random(f"gpu{seed}"))
    s = prog.spec
    words = np.random.default_rng(seed).integers(-2**31, 2**31, (s.words, s.threads), dtype=np.int64).astype(np.int32)
    vals = list(words)
    for i, j, sel in s.perms:
        vals.append(byte_perm_model(vals[i], vals[j], sel))
    want = np.stack(vals[s.words:])
    dev = [cp.asarray(words), cp.full(want.shape, 0x5A5A5A5A, np.int32)]
    _compiled(prog.text)(*dev)
    assert np.array_equal(cp.asnumpy(dev[1]), want), prog.summary


@pytest.mark.parametrize("dtype, shape, offset", [("int8", (999, 1001), 3), ("uint8", (301, 777), 0),
                                                  ("int8", (4097, 131), 5), ("float16", (515, 333), 1)])
def test_interleaved_tiles_box_copies_odd_transposes_on_the_gpu(dtype, shape, offset):
    """`tilec.copy_` of odd transposes with the interleaved `tiles` box forced
    (`tiles_interleave=1`, 16-byte chunks, 8 lanes): equal to NumPy, dst poisoned."""
    import cupy as cp

    import tilec
    from tilec.copy_routes import forced_routes

    r, c = shape
    rng = np.random.default_rng(r)
    base = rng.integers(-100, 100, offset + r * c).astype(dtype)
    host = base[offset:].reshape(c, r).T
    src = cp.asarray(base)[offset:].reshape(c, r).T
    dst = cp.full(shape, 77, dtype)
    with forced_routes(tiles_interleave=1, tiles_stage=16, tiles_lanes=8):
        tilec.copy_(dst, src)
    assert np.array_equal(cp.asnumpy(dst), host)
