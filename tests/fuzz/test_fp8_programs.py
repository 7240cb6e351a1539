"""The fuzzed mbarrier programs of FP8 tiles (tests/fuzz/generate_mbarrier.py: f8E4M3FN
and f8E5M2 moved by TMA, cp.async, register stores and copies, no arithmetic on the
way) against NumPy, on the CPU: tests/gpu/test_mbarrier_programs_gpu.py compares the
GPU bit for bit with the reference executor, so the executor's FP8 results must be
exact -- each destination the source's bits (+0 and -0 apart), the inputs finite FP8
values (no NaN, whose payload a conversion could change), the buffers uint8 bits as
the launcher takes them (runtime/launch.py `_float_bits`)."""

from __future__ import annotations

import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from generate_mbarrier import draw_plain, draw_ring, draw_ws, plain_program, ring_program, ws_program  # noqa: E402

from tilec.dialects.dtypes import F8_FORMATS, f8_to_f32  # noqa: E402
from tilec.runtime.reference.api import random_inputs, run  # noqa: E402

F8 = tuple(F8_FORMATS)


def _first(draw, pred, count: int, key=lambda s: None) -> list:
    """The specs of the first `count` seeds whose draw satisfies `pred`, each of a `key`
    not drawn before (while new keys turn up in the first 2000 seeds)."""
    out, keys = [], set()
    for seed in range(2000):
        s = draw(random.Random(seed))
        if pred(s) and (key(s) not in keys or key(s) is None):
            keys.add(key(s))
            out.append(s)
            if len(out) == count:
                return out
    raise AssertionError("the generator no longer draws these")


RINGS = _first(draw_ring, lambda s: any(t in F8 for t in s.dtypes), 4, lambda s: (s.consume, len(s.dtypes)))
WSS = _first(draw_ws, lambda s: s.dtype in F8, 5, lambda s: (s.fill, s.named))
PLAINS = _first(draw_plain, lambda s: any(t in F8 for t in s.dtypes), 4, lambda s: (s.form, s.compute))


def _run(text: str) -> tuple[dict, dict]:
    inputs = random_inputs(text, 0)
    return inputs, run(text, inputs)


def _check_input_bits(inputs: dict, dtypes: dict[str, str]) -> None:
    for name, dt in dtypes.items():
        if dt in F8:
            x = inputs[name]
            assert x.dtype == np.uint8
            assert np.isfinite(f8_to_f32(x, dt)).all(), f"{name}: FP8 inputs must be finite"


@pytest.mark.parametrize("s", RINGS, ids=lambda s: "-".join(s.dtypes))
def test_fp8_rings_copy_the_bits(s):
    inputs, out = _run(ring_program(s))
    _check_input_bits(inputs, {f"src{o}": t for o, t in enumerate(s.dtypes)})
    for o, t in enumerate(s.dtypes):
        if t in F8:
            src = inputs[f"src{o}"]
            assert out[f"dst{o}"].dtype == np.uint8 and np.array_equal(out[f"dst{o}"], src), s


@pytest.mark.parametrize("s", WSS, ids=lambda s: f"{s.dtype}-{s.fill}-{s.named}")
def test_fp8_warp_specialized_pipelines_copy_the_bits(s):
    inputs, out = _run(ws_program(s))
    _check_input_bits(inputs, {"src": s.dtype})
    assert out["dst"].dtype == np.uint8 and np.array_equal(out["dst"], inputs["src"])
    if s.named == "handover":  # each block's last tile
        m, n = s.shape
        tiles = inputs["src"].reshape(s.trips, s.grid, s.rows, n)
        assert np.array_equal(out["last"].reshape(s.grid, s.rows, n), tiles[-1])


@pytest.mark.parametrize("s", PLAINS, ids=lambda s: "-".join(s.dtypes) + f"-{s.form}-{s.compute}")
def test_fp8_plain_loops_copy_the_bits(s):
    inputs, out = _run(plain_program(s))
    _check_input_bits(inputs, {f"src{o}": t for o, t in enumerate(s.dtypes)})
    for o, t in enumerate(s.dtypes):
        if t in F8:
            assert np.array_equal(out[f"dst{o}"], inputs[f"src{o}"]), s


def test_fp8_negative_zero_and_every_finite_value_survive_a_copy():
    """Every finite FP8 bit pattern (0x80, -0, included) through a ring's register
    load and store: the executor keeps the bits (a round trip through float that lost
    -0 or rounded would differ from the GPU's byte copy)."""
    s = next(r for r in RINGS if r.consume == "tensor")
    text = ring_program(s)
    inputs = random_inputs(text, 0)
    for o, t in enumerate(s.dtypes):
        if t in F8:
            finite = np.flatnonzero(np.isfinite(f8_to_f32(np.arange(256, dtype=np.uint8), t))).astype(np.uint8)
            inputs[f"src{o}"] = np.resize(finite, inputs[f"src{o}"].size).astype(np.uint8)
    out = run(text, inputs)
    for o, t in enumerate(s.dtypes):
        if t in F8:
            assert np.array_equal(out[f"dst{o}"], inputs[f"src{o}"])
