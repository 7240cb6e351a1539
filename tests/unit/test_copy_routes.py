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


@pytest.mark.parametrize("settings", [{"gather": "sometimes"}, {"box": "always"}, {"box_stage": "sync"}])
def test_unknown_settings_are_refused(settings):
    with pytest.raises(ValueError, match="copy route"):
        with forced_routes(**settings):
            pass


def test_tuning_values_hold_inside_their_block_and_key_the_disk_entry():
    """The tuning values (copy_routes.TUNING_NAMES) are values in force for a `with`
    block, as routes: the realign strategy's threads (the `tile` pass's option in a
    realign program's pipeline) and the box's shared memory change the kernel and the
    plan, and the disk entry's key names them."""
    from helpers.canonical_copies import copy_choice

    from tilec.copy_kernels import entry_key, kernel_pipeline
    from tilec.passes._realign_tile import REALIGN_THREADS

    dst, src = Operand(4096, "int8", (3000, 7775), (7776, 1)), Operand(8192 + 1, "int8", (3000, 7775), (7775, 1))
    plan = plan_copy(dst, src)
    assert plan.key.aligned_pointers and copy_choice(plan) == ("realign", None, REALIGN_THREADS)
    plain = entry_key(plan.key, "default", "sm_90")
    with forced_routes(realign_threads=256) as routes:
        assert routes.tuning() == {"realign_threads": 256}
        assert "tile{threads=256}" in kernel_pipeline(plan.key, "default")
        assert copy_choice(plan) == ("realign", None, 256)
        assert entry_key(plan.key, "default", "sm_90") != plain
    assert copy_choice(plan)[2] == REALIGN_THREADS and entry_key(plan.key, "default", "sm_90") == plain
    box = plan_copy(Operand(4096, "bool", (19, 1000), (1000, 1)), Operand(8192, "bool", (19, 1000), (1, 19)))
    plain = entry_key(box.key, "default", "sm_90")
    with forced_routes(box_smem=20 * 1024):
        pipeline = kernel_pipeline(box.key, "default")
        assert "copy-strategy{box_smem=20480}" in pipeline and "tile{box_smem=20480}" in pipeline
        assert entry_key(box.key, "default", "sm_90") != plain
    with forced_routes(box_stage="registers") as routes:
        assert routes.tuning() == {"box_stage": "registers"}
        assert "tile{box_stage=registers}" in kernel_pipeline(box.key, "default")
        assert entry_key(box.key, "default", "sm_90") != plain
    assert kernel_pipeline(box.key, "default") == "default"


def test_tiles_bytes_is_the_copy_strategy_passs_and_plans_the_box_of_8_byte_elements():
    """`tiles_bytes` (the `copy-strategy` pass's option only): an odd f64 transpose is
    planned as a `box<tiles>` copy (the pointers aligned down, the box's facts) under
    `tiles_bytes=8` and keeps the tiled kernel's plan under the rule
    (`_copy_cost.TILES_BYTES`)."""
    from helpers.canonical_copies import copy_choice

    from tilec.passes._copy_cost import TILES_BYTES

    dst, src = Operand(4096, "float64", (301, 203), (203, 1)), Operand(1 << 20, "float64", (301, 203), (1, 301))
    with forced_routes(tiles_bytes=8) as routes:
        assert routes.tuning() == {"tiles_bytes": 8}
        plan = plan_copy(dst, src)
        pipeline = kernel_pipeline(plan.key, "default")
        assert "copy-strategy{tiles_bytes=8}" in pipeline and "tile{" not in pipeline
        assert plan.key.aligned_pointers and copy_choice(plan)[0] == "box<tiles>"
    plan = plan_copy(dst, src)
    assert (copy_choice(plan)[0] == "box<tiles>") == (TILES_BYTES >= 8)
