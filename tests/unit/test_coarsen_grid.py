"""`coarsen-grid`'s rule (passes/coarsen_grid.py): Little's law on the Target's DRAM
rates against the bytes of loads a multiprocessor's resident blocks hold."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tilec.compiler.builder import Program
from tilec.compiler.pipeline import run_pipeline
from tilec.dialects.layout import LaunchOp
from tilec.passes.coarsen_grid import Plan, in_flight_per_sm, plan_launch, resident
from tilec.runtime.reference import run
from tilec.support.target import target


def round_trip(s: int, t: int, threads: int, dtype: str = "f32"):
    """A t x t tile of an s x s tensor through shared memory and back, a block per tile."""
    p = Program("round_trip")
    a = p.view(p.pointer("src", dtype, align=16), f"({s},{s}):({s},1)")
    b = p.view(p.pointer("dst", dtype, align=16), f"({s},{s}):({s},1)")
    g = -(-s // t)
    with p.launch(grid=(p.constant(g), p.constant(g), p.constant(1)), threads=threads) as k:
        ta = p.tile(a, [k.by, k.bx], [t, t])
        tb = p.tile(b, [k.by, k.bx], [t, t])
        smem = p.alloc(f"({t},{t}):({t},1)", dtype, "smem")
        p.copy(ta, smem)
        p.barrier()
        p.copy(smem, tb)
    return p


def launch_of(p: Program) -> LaunchOp:
    return next(o for o in p.module.walk() if isinstance(o, LaunchOp))


def test_bytes_in_flight_per_multiprocessor_of_sm_90():
    t = target("sm_90")
    assert in_flight_per_sm(t) == pytest.approx(3.65e12 * 2.2e-6 / 132)  # 60.8 KB
    assert in_flight_per_sm(target("sm_80")) == 0.0  # rates unknown


def test_resident_blocks_by_threads_blocks_and_shared_memory():
    t = target("sm_90")
    assert resident(t, 64, 1024) == 32  # the 32-block limit
    assert resident(t, 256, 16384) == 8  # threads
    assert resident(t, 128, 64 * 1024) == 3  # shared memory: 228 KiB / 65 KiB
    assert resident(target("sm_86"), 32, 0) == 16


def test_a_16x16_f32_tile_takes_8_tiles_in_3_stages():
    """1 KiB of loads a block, 32 blocks: 32 KiB against 61 KB; 2 stages ahead hold 64 KiB."""
    assert plan_launch(launch_of(round_trip(16384, 16, 64)), target("sm_90")) == Plan(8, 3)


def test_tiles_that_hold_enough_in_flight_are_left():
    """A 32x32 f32 tile: 4 KiB a block, 32 blocks: 128 KiB in flight."""
    assert plan_launch(launch_of(round_trip(16384, 32, 64)), target("sm_90")) is None


def test_a_grid_too_small_to_fill_two_rounds_is_left():
    p = round_trip(1024, 16, 64)  # 64 x 64 blocks: 4096 / 8 < 2 x 132 x 32
    assert plan_launch(launch_of(p), target("sm_90")) is None
    assert plan_launch(launch_of(p), target("sm_90"), min_waves=0) == Plan(8, 3)


def test_a_target_without_dram_rates_is_left():
    assert plan_launch(launch_of(round_trip(16384, 16, 64)), target("sm_80")) is None
    slow = dataclasses.replace(target("sm_90"), dram_latency_s=0.0)
    assert plan_launch(launch_of(round_trip(16384, 16, 64)), slow) is None


def test_coarsened_round_trip_copies_exactly():
    """The executor runs the coarsened and pipelined program: dst == src bit for bit."""
    p = round_trip(64, 16, 64)
    run_pipeline(p.module, "coarsen-grid{min_waves=0},distribute,vectorize,software-pipeline,lower-to-gpu")
    assert any(o.name == "scf.for" for o in p.module.walk()), "coarsened into a loop"
    src = np.random.default_rng(0).standard_normal(64 * 64).astype(np.float32)
    got = run(p.module, {"src": src, "dst": np.full(64 * 64, np.nan, np.float32)})
    np.testing.assert_array_equal(got["dst"], src)
