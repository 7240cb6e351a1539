"""On a GPU (issue 33): arithmetic on vector elements, nested coordinates, Mojo's
load[4] / store[4] at element coordinates (one vector access, and lanes one by one),
tiles under guards: each lit program gives bit for bit what the CPU reference executor
gives, outputs poisoned (`tilec FILE --run gpu --check`)."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

LIT = Path(__file__).parents[1] / "filecheck"
PROGRAMS = {
    "cuda/vector_arith.mlir": 1,
    "lower-to-gpu/element_access_nested.mlir": 1,
    "lower-to-gpu/element_access_width.mlir": 2,
    "lower-to-gpu/tile_guarded.mlir": 4,
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_element_forms_on_gpu_match_reference(name, capsys):
    assert main([str(LIT / name), "--run", "gpu", "--check", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("identical to the CPU reference executor") == PROGRAMS[name]
