"""On an H100/H200: the fuzz corpus's copies of session 36's and 37's box and tile paths
(tests/fuzz/generate_box.py; their CPU side is tests/fuzz/test_box_copies.py) through
`tilec.copy_` on CuPy arrays, at larger extents than the executor's: `box<span>`,
`box<rows>` at forced slot steps and grains (the default step looked up in the kernel
from the run-time strides), `box<tiles>` spread over whole rounds (`tiles_rounds=1`,
computed on the host from the run-time extents) and the 64 KiB misaligned tile. The
source a strided view at an element offset, the destination's buffer poisoned, every
byte of it compared with NumPy (nothing around the view written); each copy twice
(the second through the cached launcher); session 38's `box<tiles>` over a merged
destination mode (`merge`); launch options (`box_blocks`, `box_fit`) on span and rows;
rows boxes waited for in groups of steps (`box_split`); rows boxes at their runs'
residues mod 32 (`box_slot32`), phase 2's runs in a stride (`box_runs`); rows boxes whose kernel
is keyed by its strides' residues (`rows_residues`), with phase 2's rounds turned (`box_turn`), and
with its items of the most trips first (`box_deal`)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
from generate_box import FAMILIES, SESSION_37, SESSION_38, draw  # noqa: E402

pytestmark = pytest.mark.gpu

SEEDS = 8
SCALE = 8


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("seed", range(SEEDS))  # each seed of every family before the next seed
def test_box_copies_of_session_36_on_the_gpu(family, seed):
    _check_on_the_gpu(draw(family, 1000 + seed, SCALE), seed)


@pytest.mark.parametrize("family", SESSION_37)
@pytest.mark.parametrize("seed", range(SEEDS))
def test_box_copies_of_session_37_on_the_gpu(family, seed):
    """Box kernels in parts through two boxes (`box_depth`; persistent blocks, some
    compiled for one multiprocessor so that each walks many parts), the converting
    `box<tiles>` and a short exact `D` taken whole."""
    c = draw(family, 2000 + seed, SCALE)
    if not c.one_sm:
        _check_on_the_gpu(c, seed)
        return
    import dataclasses

    from tilec.passes import _box_tile
    from tilec.support.target import target

    one_sm = dataclasses.replace(target("sm_90"), multiprocessors=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_box_tile, "target_of", lambda op: one_sm)
        _check_on_the_gpu(c, seed, fresh=True)


@pytest.mark.parametrize("family", SESSION_38)
@pytest.mark.parametrize("seed", range(SEEDS))
def test_box_copies_of_session_38_on_the_gpu(family, seed):
    """`box<tiles>` over a merged destination mode (the runs' starts from the block's
    table), 1-byte elements by the rule, 2-byte ones forced, the row step by the rule
    (computed in the kernel from copy_'s run-time strides) or forced."""
    _check_on_the_gpu(draw(family, 3000 + seed, SCALE), seed)


@pytest.mark.parametrize("family, extra", [("span", {"box_blocks": 5}), ("rows", {"box_blocks": 5}),
                                           ("rows", {"box_fit": 1}), ("rows", {"box_fit": 1, "box_blocks": 5})])
@pytest.mark.parametrize("seed", range(3))
def test_box_copies_of_session_36_with_launch_options_on_the_gpu(family, extra, seed):
    """Session 36's span and rows boxes with their launches asking 5 blocks a
    multiprocessor (`box_blocks=5`: `__launch_bounds__(256, 5)`) and rows boxes of
    run-time source residue sized at the least residue's pitch (`box_fit=1`)."""
    import dataclasses

    c = draw(family, 1000 + seed, SCALE)
    _check_on_the_gpu(dataclasses.replace(c, routes={**c.routes, **extra}), seed, fresh=True)


@pytest.mark.parametrize("split", [16, 32])
@pytest.mark.parametrize("seed", range(3))
def test_box_copies_of_session_36_in_split_groups_on_the_gpu(split, seed):
    """Session 36's rows boxes at 40 KiB (27 to 240 steps a box) with phase 1 in commit
    groups of `split` steps (`box_split`: 2 to 4 groups; one where the box holds fewer),
    phase 2 writing a group's chunks before the later groups have landed."""
    import dataclasses

    c = draw("rows", 1000 + seed, SCALE)
    routes = {**c.routes, "box_smem": 40960, "box_split": split}
    _check_on_the_gpu(dataclasses.replace(c, routes=routes), seed, fresh=True)


@pytest.mark.parametrize("runs", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_rows_boxes_at_residues_mod_32_on_the_gpu(runs, seed):
    """Session 36's rows boxes with their slots at their runs' residues mod 32
    (`box_slot32=1`), the pitch step by the rule (`_box_banks.rows_steps32`, looked up in
    the kernel from the run-time source step mod 32), no forced step; with `runs`, at
    step 3 with phase 2's items on runs 3 apart or the next odd stride coprime to every
    extent (`box_runs`)."""
    import dataclasses
    import math

    c = draw("rows", 1000 + seed, SCALE)
    routes = {**{k: v for k, v in c.routes.items() if k != "box_pitch"}, "box_slot32": 1}
    if runs:
        stride = next(a for a in range(3, 200, 2) if all(math.gcd(a, n) == 1 for n in c.shape))
        routes.update(box_pitch=3, box_runs=stride)
    _check_on_the_gpu(dataclasses.replace(c, routes=routes), seed, fresh=True)


@pytest.mark.parametrize("keyed", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_rows_boxes_keyed_by_their_residues_on_the_gpu(keyed, seed):
    """Session 36's rows boxes at the rule's step (no forced step), copy_'s kernel keyed by
    the source step mod 32 and the destination run step mod 16 (`rows_residues`, the step
    and run stride constants, the slots at their residues mod 32), and without (the
    mod-16 table looked up in the kernel)."""
    import dataclasses

    c = draw("rows", 1000 + seed, SCALE)
    routes = {**{k: v for k, v in c.routes.items() if k != "box_pitch"}, "rows_residues": int(keyed)}
    _check_on_the_gpu(dataclasses.replace(c, routes=routes), seed, fresh=True)


@pytest.mark.parametrize("turn", [5, 13])
@pytest.mark.parametrize("seed", range(3))
def test_rows_boxes_with_turned_rounds_on_the_gpu(turn, seed):
    """Session 36's rows boxes at the rule's step with phase 2's rounds of items turned
    by `r turn` among the threads (`box_turn`)."""
    import dataclasses

    c = draw("rows", 1000 + seed, SCALE)
    routes = {**{k: v for k, v in c.routes.items() if k != "box_pitch"}, "box_turn": turn}
    _check_on_the_gpu(dataclasses.replace(c, routes=routes), seed, fresh=True)


@pytest.mark.parametrize("deal", [1, 6])
@pytest.mark.parametrize("seed", range(3))
def test_rows_boxes_dealt_longest_first_on_the_gpu(deal, seed):
    """Session 36's rows boxes at the rule's step with phase 2's items of the most chunk
    trips first (`box_deal`: 1 every run's, two loops; 6 the last runs', three loops, each
    item's trips a constant)."""
    import dataclasses

    c = draw("rows", 1000 + seed, SCALE)
    routes = {**{k: v for k, v in c.routes.items() if k != "box_pitch"}, "box_deal": deal}
    _check_on_the_gpu(dataclasses.replace(c, routes=routes), seed, fresh=True)


def _check_on_the_gpu(c, seed: int, fresh: bool = False) -> None:
    import cupy as cp
    from helpers.canonical_copies import key_strategy

    from tilec.copy_cpu import _operand
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import plan_copy
    from tilec.copy_routes import forced_routes
    from tilec.tensor_copy import copy_

    # `fresh`: kernels of their own (compiled for the patched Target), not copy_'s cache
    kernels = CopyKernels(disk=False) if fresh else None
    src_flat, dst_flat = c.buffers(seed)
    want = c.expected(src_flat, dst_flat)
    src_dev = cp.asarray(src_flat)
    with forced_routes(**c.routes):
        plan = plan_copy(_operand(c.dst_of(dst_flat.copy()), None), _operand(c.src_of(src_flat), None))
        strategy = key_strategy(plan.key)
        assert strategy == c.strategy, f"{c}: the rule chose {strategy}"
        for call in range(2):
            dst_dev = cp.asarray(dst_flat)
            copy_(c.dst_of(dst_dev, cp), c.src_of(src_dev, cp), kernels=kernels)
            cp.cuda.Device().synchronize()
            got = cp.asnumpy(dst_dev)
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"{c}, call {call + 1}"
