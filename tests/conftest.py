"""Shared pytest configuration: tests marked `gpu` are skipped where no GPU is found."""

import functools

import pytest


@functools.cache
def gpu_count() -> int:
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def pytest_collection_modifyitems(config, items):
    if gpu_count() > 0:
        return
    skip = pytest.mark.skip(reason="no CUDA GPU (cupy.cuda.runtime.getDeviceCount() is 0 or failed)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
