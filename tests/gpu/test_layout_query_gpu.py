"""On a GPU: the layout queries (run-time size and cosize of a dynamic view and of its
masked tile), a program with static asserts, and a copy through make_fragment_like /
make_tensor_like registers give bit for bit what the CPU reference executor gives,
outputs poisoned (`tilec FILE --run gpu --check`)."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

FILECHECK = Path(__file__).parents[1] / "filecheck"
PROGRAMS = [
    FILECHECK / "lower-to-gpu" / "query.mlir",
    FILECHECK / "dialect" / "static_assert.mlir",
    FILECHECK / "lower-to-gpu" / "fragment_like.mlir",
]


@pytest.mark.gpu
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_on_gpu_matches_reference(program, capsys):
    assert main([str(program), "--run", "gpu", "--check", "--seed", "0"]) == 0
    assert capsys.readouterr().out.count("identical to the CPU reference executor") == 1
