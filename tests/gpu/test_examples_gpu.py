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


DYNAMIC_BF16 = """
func.func @copy(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16>, %n: index) attributes {tilec.args = {n = 77 : index}} {
  %a = layout.view %src(%n) : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(?,40):(40,1)>, gmem>
  %b = layout.view %dst(%n) : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(?,40):(40,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(?,40):(40,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(?,40):(40,1)>, gmem>
  func.return
}
"""


@pytest.mark.gpu
def test_run_gpu_with_dynamic_extents_and_bf16(tmp_path, capsys):
    """`--run gpu` sizes dynamic buffers as the CPU executor does (from the layout-level
    views and tilec.args), and passes bf16 buffers as their uint16 bits (found by
    dev/device/sanitize.sh on generated programs)."""
    path = tmp_path / "dyn_bf16.mlir"
    path.write_text(DYNAMIC_BF16)
    assert main([str(path), "--run", "gpu", "--check"]) == 0
    out = capsys.readouterr().out
    # bit for bit, or, for examples that call math functions, within their ulp bounds,
    # or for examples with layout.mma (the GEMMs) within the MMA tolerance
    uses_mma = "layout.mma " in path.read_text()
    assert ("identical to the CPU reference executor" in out or "ulp of the CPU reference executor (bound" in out
            or (uses_mma and "within the layout.mma tolerance" in out))
