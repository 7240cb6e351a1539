"""PyTorch on the GPU for the tests of tests/gpu: the module, or the test skipped where
PyTorch or its CUDA is absent; a tensor as a host float64 array."""

from __future__ import annotations

import numpy as np
import pytest


def torch_cuda():
    """`torch`, with CUDA; the test is skipped without either."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    return torch


def f64(t) -> np.ndarray:
    """The tensor `t` as a float64 NumPy array on the host."""
    return t.double().cpu().numpy()
