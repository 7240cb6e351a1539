"""On a GPU: layout.copy_chunk_async (one cp.async of 16 bytes where aligned, bytes one
at a time where not; tests/filecheck/lower-to-gpu/copy_chunk_async.mlir) gives bit for
bit what the CPU reference executor gives, outputs poisoned (`tilec FILE --run gpu
--check`)."""

from pathlib import Path

import pytest

from tilec.tools.tilec import main

LIT = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "copy_chunk_async.mlir"


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1])
def test_copy_chunk_async_on_gpu_matches_reference(seed, capsys):
    assert main([str(LIT), "--run", "gpu", "--check", "--arg", "n=1024", "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    names = ("aligned", "unaligned", "one_element")  # the lit file's functions
    for name in names:
        assert f"@{name}: identical to the CPU reference executor" in out
    assert out.count("identical to the CPU reference executor") == len(names)
