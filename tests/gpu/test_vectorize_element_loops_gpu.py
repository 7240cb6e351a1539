"""On a GPU: the element loops of tests/filecheck/vectorize-element-loops/element_loops.mlir
(rewritten to 16-byte vector accesses by `vectorize-element-loops` in `-p default`, or
left as they are) give bit for bit what the CPU reference executor gives, outputs
poisoned (`tilec FILE --run gpu --check`)."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

PROGRAM = Path(__file__).parents[1] / "filecheck" / "vectorize-element-loops" / "element_loops.mlir"


@pytest.mark.gpu
def test_on_gpu_matches_reference(capsys):
    assert main([str(PROGRAM), "--run", "gpu", "--check", "--seed", "0"]) == 0
    assert capsys.readouterr().out.count("identical to the CPU reference executor") == 7
