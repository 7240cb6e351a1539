"""The boundary of `copy_`'s self-overlap check on dst (api/copy_plan.py,
`check_no_self_overlap`), through the CPU path (`copy_numpy`): a dst whose strides
write exactly one element twice is refused; its neighbour whose strides just clear the
modes below it is copied exactly."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.copy_cpu import copy_numpy
from tilec.support.diagnostics import TilecError

# (shape, element strides that write exactly one element twice, the legal neighbour)
CASES = [
    ((2, 5), (4, 1), (5, 1)),  # [1, 0] and [0, 4] are both element 4
    ((2, 3, 4), (11, 4, 1), (12, 4, 1)),  # [1, 0, 0] and [0, 2, 3] are both element 11
    ((3, 2), (1, 2), (1, 3)),  # column-major: [2, 0] and [0, 1] are both element 2
]
NEGATIVE = ((2, 3), (-2, 1))
"""A negative stride: [1, 0] and [0, 2] are both element -2 (its legal neighbour would
need a src with a negative stride, which the CPU executor does not read)."""


def _view(base: np.ndarray, shape, strides) -> np.ndarray:
    """A writable view of `base` with element `strides`, starting where every element
    it reaches lies inside `base`."""
    start = -sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    item = base.itemsize
    return np.lib.stride_tricks.as_strided(base[start:], shape, tuple(s * item for s in strides))


@pytest.mark.parametrize("shape, twice", [(shape, twice) for shape, twice, _ in CASES] + [NEGATIVE])
def test_a_dst_writing_one_element_twice_is_refused(shape, twice):
    base = np.zeros(64, np.float32)
    dst = _view(base, shape, twice)
    offsets = sorted(
        sum(i * s for i, s in zip(idx, twice)) for idx in np.ndindex(*shape)
    )
    assert len(offsets) - len(set(offsets)) == 1  # exactly one element written twice
    src = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with pytest.raises(TilecError, match="overlapping elements"):
        copy_numpy(dst, src)
    assert not base.any()  # refused before anything is written


@pytest.mark.parametrize("shape, twice, legal", CASES)
def test_its_legal_neighbour_is_copied_exactly(shape, twice, legal):
    base = np.full(64, -1.0, np.float32)
    dst = _view(base, shape, legal)
    src = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1
    copy_numpy(dst, src)
    np.testing.assert_array_equal(dst, src)
    assert (base == -1).sum() == base.size - src.size  # nothing written outside dst
