"""The copy routes in force (api/copy_routes.py): the rules by default, a forced setting
only inside its `with` block, and the plans that follow from each setting."""

from __future__ import annotations

import pytest

from helpers.canonical_copies import key_strategy

from tilec.copy_kernels import kernel_pipeline
from tilec.copy_plan import Operand, plan_copy
from tilec.copy_routes import Routes, current_routes, forced_routes


def _transpose_rows_of_5():
    """A copy the gather strategy takes (rows of 5 from a transposed src)."""
    n = 100000
    return Operand(4096, "float32", (n, 5), (5, 1)), Operand(8192, "float32", (n, 5), (1, n))


def test_the_rules_are_in_force_outside_any_block():
    assert current_routes() == Routes("auto", "auto", "auto")


def test_a_forced_setting_holds_inside_its_block_only():
    dst, src = _transpose_rows_of_5()
    key = plan_copy(dst, src).key
    assert key_strategy(key) == "gather" and kernel_pipeline(key, "default") == "default"
    with forced_routes(gather="never") as routes:
        assert routes.gather == "never" and current_routes() is routes
        # the route is the copy-strategy pass's option in the kernel's pipeline
        assert "copy-strategy{gather=never}" in kernel_pipeline(key, "default")
        assert key_strategy(plan_copy(dst, src).key) == "tiled"
        with forced_routes(realign="never"):
            assert current_routes() == Routes("never", "never", "auto")
        assert current_routes() is routes
    assert current_routes() == Routes()
    assert key_strategy(plan_copy(dst, src).key) == "gather"


def test_a_block_left_by_an_exception_restores_the_rules():
    with pytest.raises(KeyError):
        with forced_routes(box="never"):
            raise KeyError
    assert current_routes() == Routes()


@pytest.mark.parametrize("settings", [{"gather": "sometimes"}, {"box": "always"}])
def test_unknown_settings_are_refused(settings):
    with pytest.raises(ValueError, match="copy route"):
        with forced_routes(**settings):
            pass
