"""On a GPU: every example, compiled with the default pipeline, gives bit for bit what
the CPU reference executor gives (`tilec FILE --run gpu --check`), outputs poisoned; an
example that calls `math` functions, within the sum of their documented ulp bounds."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))


@pytest.mark.gpu
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_example_on_gpu_matches_reference(path, seed, capsys):
    assert main([str(path), "--run", "gpu", "--check", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    # bit for bit, or, for examples that call math functions, within their ulp bounds,
    # or for examples with layout.mma (the GEMMs) within the MMA tolerance
    uses_mma = "layout.mma " in path.read_text()
    assert ("identical to the CPU reference executor" in out or "ulp of the CPU reference executor (bound" in out
            or (uses_mma and "within the layout.mma tolerance" in out))


def _dynamic_bf16() -> str:
    """A copy of n x 40 bf16 (n = 77 from tilec.args; dst aligned to its element only),
    built with tilec.Program and printed for the command line."""
    import tilec

    p = tilec.Program("copy")
    src, dst = p.pointer("src", "bf16", align=16), p.pointer("dst", "bf16", align=None)
    n = p.index("n", 77)
    p.copy(p.view(src, "(?,40):(40,1)", dynamic=[n]).named("a"), p.view(dst, "(?,40):(40,1)", dynamic=[n]).named("b"))
    return str(p.module)


@pytest.mark.gpu
def test_run_gpu_with_dynamic_extents_and_bf16(tmp_path, capsys):
    """`--run gpu` sizes dynamic buffers as the CPU executor does (from the layout-level
    views and tilec.args), and passes bf16 buffers as their uint16 bits (found by
    dev/device/sanitize.sh on generated programs)."""
    path = tmp_path / "dyn_bf16.mlir"
    path.write_text(_dynamic_bf16())
    assert main([str(path), "--run", "gpu", "--check"]) == 0
    out = capsys.readouterr().out
    # bit for bit, or, for examples that call math functions, within their ulp bounds,
    # or for examples with layout.mma (the GEMMs) within the MMA tolerance
    uses_mma = "layout.mma " in path.read_text()
    assert ("identical to the CPU reference executor" in out or "ulp of the CPU reference executor (bound" in out
            or (uses_mma and "within the layout.mma tolerance" in out))
