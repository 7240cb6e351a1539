"""On a GPU: layout.cp_async_load (16-byte cp.async of the block's threads into a
swizzled shared tile, zeros outside the tensor, completing on an mbarrier through
`cp.async.mbarrier.arrive.noinc`; tests/filecheck/lower-to-gpu/cp_async_load.mlir:
masked edge tiles and a tile wholly past the end) gives bit for bit what the CPU
reference executor gives, outputs poisoned (`tilec FILE --run gpu --check`)."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

LIT = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "cp_async_load.mlir"


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1])
def test_cp_async_load_on_gpu_matches_reference(seed, capsys):
    assert main([str(LIT), "--run", "gpu", "--check", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    assert out.count("identical to the CPU reference executor") == 2
