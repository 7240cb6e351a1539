"""Run one copy_bench case's kernel a few times (for `ncu`): python benchmarks/tma_ring_probe.py NAME-SUBSTRING"""

import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import copy_bench as cb  # noqa: E402

import tilec  # noqa: E402

(case,) = [c for c in cb.make_cases(False) if c.text and sys.argv[1] in c.name][:1]
kernel = tilec.compile(cb.build_tilec(case), case.pipeline or "default")
x = cp.asarray(np.random.default_rng(0).standard_normal(case.src_shape).astype(np.float32))
y = cp.empty(case.dst_shape, dtype=np.float32)
for _ in range(3):
    kernel(x, y)
cp.cuda.Device().synchronize()
print(case.name, bool(cp.array_equal(y, x.T)))
