"""On a GPU: the predicated copies of identity tensors (tests/filecheck/lower-to-gpu/
identity_tensor.mlir: a ragged matrix in partial tiles, run-time extents, a slice, a TV
partition) give bit for bit what the CPU reference executor gives, outputs poisoned,
and that is the input (`tilec FILE --run gpu --check`, and the copy against NumPy).
examples/cute_predication.mlir runs in tests/gpu/test_seed_examples_gpu.py (NumPy
oracle: tests/unit/test_examples.py) and tests/gpu/test_examples_gpu.py."""

from pathlib import Path

import numpy as np
import pytest

from tilec.tools.tilec import main

PROGRAM = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "identity_tensor.mlir"


@pytest.mark.gpu
def test_on_gpu_matches_reference(capsys):
    assert main([str(PROGRAM), "--run", "gpu", "--check", "--seed", "0", "--arg", "m=70", "--arg", "n=45"]) == 0
    assert capsys.readouterr().out.count("identical to the CPU reference executor") == 4


@pytest.mark.gpu
@pytest.mark.parametrize("fn, args", [("ragged", {}), ("dynamic", {"m": 70, "n": 45}), ("rows", {}), ("tv", {})])
def test_on_gpu_copies_the_input(fn, args):
    import cupy as cp

    from tilec.compiler.pipeline import parse_module, run_pipeline
    from tilec.runtime.launch import Kernel
    from tilec.runtime.reference import random_inputs

    module = parse_module(PROGRAM.read_text(), str(PROGRAM))
    inputs = random_inputs(module, seed=2, entry=fn, args=args)
    lowered = run_pipeline(module.clone(), "default")
    a = cp.asarray(inputs["a"])
    b = cp.full(inputs["b"].shape, np.nan, dtype=inputs["b"].dtype)
    Kernel(lowered, function=fn)(a, b, *args.values())
    cp.cuda.Device().synchronize()
    np.testing.assert_array_equal(cp.asnumpy(b), inputs["a"])
