"""The independent copy oracle (tests/helpers/copy_oracle.py) against NumPy's own
reshape/transpose, and CuTe's coordinate order on a nested mode."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers.copy_oracle import cosize, expected_copy, offsets  # noqa: E402


def test_transpose_is_numpys_transpose():
    a = np.arange(64 * 32, dtype=np.float32)
    b = np.full(64 * 32, np.nan, np.float32)
    got = expected_copy("(64,32):(32,1)", "(64,32):(1,64)", a, b)
    np.testing.assert_array_equal(got.reshape(32, 64), a.reshape(64, 32).T)


def test_nested_mode_runs_its_first_sub_mode_fastest():
    # mode 0 = (2,3):(1,10): coordinates 0..5 -> offsets 0,1,10,11,20,21
    np.testing.assert_array_equal(offsets("((2,3),4):((1,10),100)")[:, 0], [0, 1, 10, 11, 20, 21])
    np.testing.assert_array_equal(offsets("((2,3),4):((1,10),100)")[0, :], [0, 100, 200, 300])


def test_strided_destination_leaves_gaps_untouched():
    a = np.arange(8, dtype=np.float32)
    b = np.full(16, -1.0, np.float32)
    got = expected_copy("8:1", "8:2", a, b)
    np.testing.assert_array_equal(got[::2], a)
    assert (got[1::2] == -1).all() and cosize("8:2") == 15
