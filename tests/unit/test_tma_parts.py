"""TMA loads into parts of a stage of a staged shared buffer (a `layout.tile` of a
`layout.slice` of the alloc, `gemm_hopper_ws(box_parts=True)`'s form), built with
`tilec.Program`, on the reference executor before and after the default pipeline: the
two halves of each stage's tile land where they belong; a part one further (a run-time
coordinate, which the verifier cannot see) lies past its stage, inside the buffer, and
is reported at the part's `layout.tile` at both levels (lowered, the part is a subview
of the stage's subview, whose bounds the executor checks). The CUDA compiles."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import ExecutionError, run

STAGES, HALF, W = 2, 8, 32  # each stage: two parts of 8 rows of 32 f32 (1 KiB each)
LAY = tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])


def program(past: bool = False):
    """@parts: trip i loads rows 16 i .. 16 i + 15 of `src` into stage i % 2 as two parts
    (rows 0-7, 8-15 of the stage), waits, and stores the stage into the same rows of
    `dst`. `past`: the second part of stage 0 goes one part further (past the stage)."""
    p = tilec.Program("parts")
    src = p.view(p.pointer("src", "f32"), f"({4 * 2 * HALF},{W}):({W},1)")
    dst = p.view(p.pointer("dst", "f32"), f"({4 * 2 * HALF},{W}):({W},1)")
    with p.launch(grid=(1, 1, 1), threads=128) as k:
        buf = p.alloc(f"({STAGES},{2 * HALF},{W}):({2 * HALF * W},{W},1)", "f32")
        for i in range(4):
            bar = p.mbarrier_init(1)
            stage = p.slice(buf, [i % STAGES, "_", "_"])
            p.mbarrier_arrive(bar, tx=2 * HALF * W * 4)
            for j in range(2):
                at = k.bx + p.constant(2 if past and i == 0 and j == 1 else j)  # run-time: bx is 0
                p.tma_load(p.tile(src, [p.constant(2 * i + j), p.constant(0)], [HALF, W]),
                           p.tile(stage, [at, p.constant(0)], [HALF, W]), bar)
            p.mbarrier_wait(bar, p.constant(0))
            p.store(p.load(stage, LAY), p.tile(dst, [p.constant(i), p.constant(0)], [2 * HALF, W]))
            p.barrier()  # the stage read before the trip that reuses it loads into it
    return p.module


def _lowered(m):
    m = m.clone()
    run_pipeline(m, "default")
    return m


def test_parts_of_each_stage_land_in_place_before_and_after_the_pipeline():
    x = np.random.default_rng(0).standard_normal(4 * 2 * HALF * W).astype(np.float32)
    m = program()
    for module in (m, _lowered(m)):
        got = run(module, {"src": x.copy(), "dst": np.zeros_like(x)})["dst"]
        np.testing.assert_array_equal(got, x)
    assert compile_sm90_or_skip(emit(_lowered(m), "cuda")).cubin


PAST = "tile coordinate 2 of mode 0 is out of range|out-of-bounds subview"


def test_a_part_past_its_stage_is_reported_at_its_tile_at_both_levels():
    x = np.zeros(4 * 2 * HALF * W, np.float32)
    where = []
    for module in (program(past=True), _lowered(program(past=True))):
        with pytest.raises(ExecutionError, match=PAST) as e:
            run(module, {"src": x.copy(), "dst": x.copy()})
        where.append(re.search(r":(\d+):\d+: error", str(e.value)).group(1))
    assert where[0] == where[1]
