"""dev/experiments/box_stamps.py, the probe of where a merged `box<tiles>` block's time
goes: its stamps land once each at the kernel's phase boundaries (entry, past phase 0's
barrier, past the commit, past phase 1's wait and barrier, past a barrier after phase 2) in
copy_'s kernel for 36's shape at `box_slot32` 0 and 3, the stamped source compiles through
NVRTC without spills where NVRTC is present; a kernel of another shape is refused; the
per-multiprocessor figures of a made-up timeline; the parts it shares with flat_stamps.py
(dev/experiments/stamps.py)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from tilec.copy_cpu import _operand
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "dev", "experiments"))
import box_stamps  # noqa: E402
import stamps  # noqa: E402


def _merged_source(slot32: int, routes) -> str:
    src = np.zeros((19, 5, 31, 12, 181), np.int8).transpose(4, 2, 3, 1, 0)  # 36's shape, W in runs
    key = plan_copy(_operand(np.zeros(src.shape, np.int8), None), _operand(src, None)).key
    routes(box_slot32=slot32)
    return CopyKernels(arch="sm_90", disk=False).get(key).kernel.source


@pytest.mark.parametrize("slot32", [0, 3])
def test_stamps_land_once_at_each_boundary(routes, slot32, nvrtc_available):
    plain = _merged_source(slot32, routes)
    src = box_stamps.stamped(plain)
    for slot in (1, 2, 3):
        assert src.count(f"tl_row[{slot}] = tl_v;") == 1
    assert src.count("tl_row[4] = tl_v;") == 1 and src.count("tl_row[0] = tl_c0;") == 1
    assert src.index("tl_row[1]") < src.index("tilec_cp_async_commit();\n  if") < src.index("tl_row[3]")
    assert src.count("__syncthreads();") == plain.count("__syncthreads();") + 1
    if nvrtc_available:
        from tilec.runtime import nvrtc

        usage = nvrtc.resource_usage(nvrtc.compile_cuda(src, arch="sm_90"))
        assert all(k.spill_stores == 0 for k in usage.values())


def test_a_box_without_run_tables_stamps_1_at_entry(nvrtc_available):
    """A `box<tiles>` without run tables (the strided set's 23, bool -> int16: its first
    barrier is phase 1's): stamp 1 at entry, before the commit (2), the wait (3) after."""
    src = np.zeros((28506, 16998), np.bool_).T  # 23's views, small enough a key
    key = plan_copy(_operand(np.zeros(src.shape, np.int16), None), _operand(src, None)).key
    plain = CopyKernels(arch="sm_90", disk=False).get(key).kernel.source
    stamped = box_stamps.stamped(plain)
    for slot in (1, 2, 3):
        assert stamped.count(f"tl_row[{slot}] = tl_v;") == 1
    body = stamped.index('extern "C" __global__')
    assert body < stamped.index("tl_row[1]") < stamped.index("tilec_cp_async16<", body) \
        < stamped.index("tl_row[2]") < stamped.index("tl_row[3]")


def test_a_kernel_of_another_shape_is_refused():
    with pytest.raises(ValueError):
        box_stamps.stamped("extern \"C\" __global__ void k() {\n}\n")


def test_the_timeline_figures():
    """One multiprocessor, two blocks resident, staggered by half a block: 1000 clocks a
    block (tables 100, issue 100, wait 300, phase 2 500), the next 20 clocks after."""
    rows = []
    for off in (0, 500):
        for k in range(5):
            t = off + 1020 * k
            rows.append([t, t + 100, t + 200, t + 500, t + 1000, 0, t, t + 500, t + 900, t + 1000])
    f = box_stamps.summary(np.array(rows, np.uint64))
    assert (f["tables_med"], f["issue_med"], f["wait_med"], f["phase2_med"]) == (100, 100, 300, 500)
    assert f["blocks"] == 10 and f["sms"] == 1 and f["ghz"] == 2.0
    assert f["resident0"] == 0 and abs(f["resident1"] + f["resident2"] - 1) < 1e-9
    assert abs(f["rr"] + f["rw"] + f["ww"] - f["resident2"]) < 1e-9
    assert f["refill_gap_med"] == 20
    assert (f["p2first_med"], f["p2last_med"]) == (400, 500)  # thread 0's and the last thread's phase 2


def test_the_shared_stamp_parts():
    """dev/experiments/stamps.py (box_stamps.py's and flat_stamps.py's common parts): the
    array declared before the kernel, the stamp statement, the refill gaps a multiprocessor's
    blocks leave (the first two starts resident at once, not refills)."""
    src = stamps.declare('// head\nextern "C" __global__ void k() {\n}\n', "tilec_stamps", 40, "long long")
    assert src.index("__device__ long long tilec_stamps[40];") < src.index("extern")
    assert stamps.clock_into("row", 3, "tid == 0") == (
        'if (tid == 0) { unsigned long long tl_v; asm volatile("mov.u64 %0, %%clock64;" : "=l"(tl_v) :: "memory");'
        " row[3] = tl_v; }")
    # two slots: blocks (0, 100) and (10, 120); refilled at 130 (gap 10 after 120) and 105 (gap 5 after 100)
    assert stamps.refill_gaps([0, 10, 130, 105], [100, 120, 200, 250]) == [5, 10]
