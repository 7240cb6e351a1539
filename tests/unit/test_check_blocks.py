"""runtime/reference/errors.py's `check_blocks`: the first block where a condition
holds is named in the error (by position, or through the block ids given)."""

import numpy as np
import pytest

from tilec.runtime.reference.errors import ExecutionError, check_blocks


def test_nothing_bad_returns():
    check_blocks(None, np.zeros(4, bool), lambda b: f"block {b}")


def test_first_bad_position_is_the_block():
    with pytest.raises(ExecutionError) as e:
        check_blocks(None, np.array([False, False, True, True]), lambda b: f"block {b}")
    assert e.value.reason == "block 2"
    assert e.value.details == {"block": 2}


def test_first_bad_entry_names_its_block_id():
    blocks = np.array([7, 3, 5, 9])
    with pytest.raises(ExecutionError) as e:
        check_blocks(None, np.array([False, True, True, False]), lambda b: f"block {b}", blocks)
    assert e.value.reason == "block 3"
    assert e.value.details == {"block": 3}
