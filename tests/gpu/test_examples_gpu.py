"""On a GPU: every example, compiled with the default pipeline, gives bit for bit what
the CPU reference executor gives (`tilec FILE --run gpu --check`), outputs poisoned."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))


@pytest.mark.gpu
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_example_on_gpu_matches_reference(path, seed, capsys):
    assert main([str(path), "--run", "gpu", "--check", "--seed", str(seed)]) == 0
    assert "identical to the CPU reference executor" in capsys.readouterr().out
