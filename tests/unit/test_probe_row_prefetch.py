"""benchmarks/probe_row_prefetch.py (a GPU probe): its edit of tilec's CUDA puts the L2
bulk prefetch of the block's row at the top of the kernel, plain or under an evict_last
policy, and the result compiles under NVRTC for sm_90 with the prefetch in its PTX."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import probe_row_prefetch as probe  # noqa: E402


@pytest.mark.parametrize(("variant", "ptx"), [("reread-l2", "cp.async.bulk.prefetch.L2.global ["),
                                              ("reread-l2-hints", "cp.async.bulk.prefetch.L2.global.L2::cache_hint [")])
def test_prefetch_goes_first_and_compiles(variant, ptx):
    base = probe.source("softmax", "f16", 50257, variant)
    src = probe.with_prefetch(base, 50257, 2 * 50257, "hints" in variant)
    body = src.split("softmax_online_kernel(const __half* __restrict__ src", 1)[1]
    assert body.split("\n", 2)[1:2] == [""] and "if (threadIdx.x == 0) {" in body.split("__shared__", 1)[0]
    assert "src + (long long)blockIdx.x * 50257" in src and "(row + 100514ull) & ~15ull" in src
    try:
        from tilec.runtime.nvrtc import compile_cuda
    except (ImportError, OSError) as e:  # pragma: no cover - environments without NVRTC
        pytest.skip(f"NVRTC unavailable: {e}")
    assert ptx in compile_cuda(src, arch="sm_90").ptx
