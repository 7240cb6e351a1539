"""Random copies of session 36's, 37's and 38's box and tile paths on the CPU (issue #10; the draws:
tests/fuzz/generate_box.py; their GPU side: tests/gpu/test_box_copies_gpu.py):
`box<span>` (rows of 1 byte shorter than 16 at a static pitch), `box<rows>` at every
forced slot step (`box_pitch`) and grain (`box_grain`), `box<tiles>` spread over whole
rounds (`tiles_rounds=1`), the tiled kernel's 64 KiB misaligned tile, and `box<tiles>`'s
phase-2 rows (the row rule, forced steps, rotated loads: `row_rule`); box kernels in
parts through two boxes or a ring of them (`box_depth`, `box_ring`, persistent blocks), the
converting `box<tiles>` and a short exact `D` taken whole; `box<tiles>` over a merged
destination mode (`merge`). Each copy is
planned as `tilec.copy_` plans it (the rule must choose the family's strategy under the
routes forced), then run twice on the reference executor -- the whole-tensor program as
written and the kernel compiled for sm_90 (the GPU-level code after the default
pipeline) -- and compared with NumPy bit for bit, the destination's buffer poisoned and
every byte around the view checked.

Seeds are fixed (hypothesis derandomized); TILEC_FUZZ_EXAMPLES=N for N copies a test."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from generate_box import CONVERSIONS, FAMILIES, SESSION_37, SESSION_38, draw, row_rule_pick  # noqa: E402
from harness import budget  # noqa: E402

FUZZ = settings(max_examples=budget(6), derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
                phases=[Phase.generate])
"""Seeds drawn, none shrunk (a seed is the whole input: a failure prints it)."""


def check_copy(c, seed: int) -> None:
    """Plan `c` as copy_ plans it (the rule must choose `c.strategy`), run the program and
    the compiled kernel on the executor, compare every byte of the destination's buffer."""
    import contextlib
    import dataclasses

    from tilec.passes import _box_tile
    from tilec.support.target import target

    with contextlib.ExitStack() as stack:
        if c.one_sm:  # persistent boxes on a Target of one multiprocessor: blocks walk many parts
            mp = stack.enter_context(pytest.MonkeyPatch.context())
            one_sm = dataclasses.replace(target("sm_90"), multiprocessors=1)
            mp.setattr(_box_tile, "target_of", lambda op: one_sm)
        _check_copy(c, seed)


def _check_copy(c, seed: int) -> None:
    from helpers.canonical_copies import key_strategy

    from tilec.copy_cpu import _operand, copy_numpy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import plan_copy
    from tilec.copy_routes import forced_routes

    src_flat, dst_flat = c.buffers(seed)
    want = c.expected(src_flat, dst_flat)
    with forced_routes(**c.routes):
        plan = plan_copy(_operand(c.dst_of(dst_flat), None), _operand(c.src_of(src_flat), None))
        got_strategy = key_strategy(plan.key)
        assert got_strategy == c.strategy, f"{c}: the rule chose {got_strategy}"
        if c.family == "shortd":  # D stated exactly: the box takes it whole (TILES_FIT_D)
            assert plan.key.exact_extents[-1], f"{c}: D not taken whole"
        kernels = CopyKernels(arch="sm_90", disk=False)
        for compiled in (False, True):  # the program as written, then the compiled kernel
            got = dst_flat.copy()
            copy_numpy(c.dst_of(got), c.src_of(src_flat), kernels=kernels if compiled else None, compiled=compiled)
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"{c}, compiled={compiled}"


@pytest.mark.parametrize("family", FAMILIES + SESSION_37 + SESSION_38)
@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_box_copies_match_numpy(family, seed, nvrtc_available):
    """Each family of generate_box: session 36's (`FAMILIES`), the box kernels in parts
    through two boxes or a ring (`box_depth`, `box_ring`, persistent blocks), the converting
    `box<tiles>` and a short exact `D` taken whole (`SESSION_37`), `box<tiles>` over a merged
    destination mode (`SESSION_38`: copy_ plans the merge, `CopyKey.dst_flat`, and the runs'
    starts from the block's table give every destination element once)."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    check_copy(draw(family, seed), seed)


def test_the_draws_of_session_38_reach_every_option():
    """Merged boxes of 2 to 4 modes after W, with and without a grid mode before it, W in
    the default run, whole in a longer one (at most 512 bytes) and in several, 1-byte elements
    by the rule and 2-byte ones forced, every forced row step and the rule's; copy_ plans each
    as the merged box."""
    from tilec.copy_cpu import _operand
    from tilec.copy_plan import plan_copy
    from tilec.copy_routes import forced_routes

    draws = [draw("merge", s) for s in range(200)]
    assert {len(c.shape) - c.src_strides.index(1) - 1 for c in draws} == {2, 3, 4}
    assert {c.src_strides.index(1) for c in draws} == {0, 1}
    # W within the default run of 128 bytes, whole in one longer run, in several
    ws = [c.shape[c.src_strides.index(1)] for c in draws]
    assert {(w > 128) + (w > 512) for w in ws} == {0, 1, 2}
    assert {(np.dtype(c.dtype).itemsize, c.routes.get("tiles_merge")) for c in draws} == {(1, None), (2, 2)}
    assert {c.routes.get("tiles_row_step") for c in draws} == {None, 1, 2, 4}
    for c in draws[:20]:
        src, dst = c.buffers(0)
        with forced_routes(**c.routes):
            assert plan_copy(_operand(c.dst_of(dst), None), _operand(c.src_of(src), None)).key.dst_flat, c


def test_the_row_rule_draws_reach_every_step():
    """The `row_rule` draws left to the rule reach each of its picks (`row_rule_pick`:
    `tiles_row_step_of` on the steps, which copy_'s kernel computes from its run-time
    strides): S = 1, 2, 4 and the rotated loads (m = 0 mod 8: every square odd transpose;
    before, the draws' source rows were all even and the rule took S = 4 every time)."""
    picks = {(row_rule_pick(c), c.shape[0] == c.shape[1]) for c in (draw("row_rule", s) for s in range(300))
             if not c.routes.get("tiles_row_step") and not c.routes.get("tiles_rotate")}
    assert {p for p, _ in picks} == {(1, False), (2, False), (4, False), (1, True)}
    assert ((1, True), True) in picks  # square: rotated
    assert all(c.shape[-2] % 2 for c in (draw(f, s) for f in ("rounds", "convert", "row_rule") for s in range(50)))


def test_the_draws_of_session_37_reach_every_option():
    """Every flavour of box in parts at every depth (0 persistent, on one multiprocessor or
    the Target's), through two boxes or a ring of 2 to 4 (persistent ones too), every conversion of the converting box with and without a grid mode,
    short `D`s copied and converted."""
    draws = {f: [draw(f, s) for s in range(300)] for f in SESSION_37}
    assert {(c.strategy, c.routes["box_depth"]) for c in draws["depth"]} == \
        {(f"box<{f}>", d) for f in ("flat", "rows", "span", "cols") for d in (0, 2, 3, 4)}
    assert {c.one_sm for c in draws["depth"] if c.routes["box_depth"] == 0} == {False, True}
    for persistent in (False, True):
        assert {(c.strategy, c.routes.get("box_ring")) for c in draws["depth"]
                if (c.routes["box_depth"] == 0) == persistent} == \
            {(f"box<{f}>", r) for f in ("flat", "rows", "span", "cols") for r in (None, 0, 2, 3, 4)}
    assert {(c.dtype, c.dst_dtype) for c in draws["convert"]} == set(CONVERSIONS)
    assert {len(c.shape) for c in draws["convert"]} == {2, 3} == {len(c.shape) for c in draws["shortd"]}
    assert {bool(c.dst_dtype) for c in draws["shortd"]} == {False, True}


def test_the_draws_reach_every_option():
    """The generator draws each family's forms: span copies with and without a grid
    mode at several box sizes, every forced slot step of `rows` and both grains, rounds
    of 1-, 2- and 4-byte elements, the misaligned tile of f32 (box=never) and of 8-byte
    elements, the row rule's forms on square and other odd transposes."""
    draws = {f: [draw(f, s) for s in range(200)] for f in FAMILIES}
    assert {len(c.shape) for c in draws["span"]} == {2, 3}
    assert {c.routes.get("box_smem") for c in draws["span"]} == {None, 2048, 4096, 8192}
    assert {c.routes.get("box_pitch") for c in draws["rows"]} == {None, -1, 0, 1, 2, 3, 5, 7}
    assert {c.routes.get("box_grain") for c in draws["rows"]} == {None, 0}
    assert {np.dtype(c.dtype).itemsize for c in draws["rounds"]} == {1, 2, 4}
    assert {(c.dtype, c.routes.get("box")) for c in draws["misaligned"]} == \
        {("float32", "never"), ("float64", None), ("int64", None)}
    assert {(c.routes.get("tiles_row_step"), c.routes.get("tiles_rotate")) for c in draws["row_rule"]} == \
        {(None, None), (1, None), (2, None), (4, None), (None, 1)}
    assert {c.shape[0] == c.shape[1] for c in draws["row_rule"]} == {True, False}
