"""On a GPU: layout.read / layout.write (the lit program of every coordinate form, and
the masked tile read and written in place) give bit for bit what the CPU reference
executor gives, outputs poisoned (`tilec FILE --run gpu --check`)."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

LIT = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "element_access.mlir"


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1])
def test_element_access_on_gpu_matches_reference(seed, capsys):
    assert main([str(LIT), "--run", "gpu", "--check", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    assert out.count("identical to the CPU reference executor") == 3
