"""On a GPU: every seed scenario of examples/ (mojo_*, cute_*, gluon_*, and the Gluon
tutorial's memcpy_1d and strided_rows), compiled with `-p default`, gives bit for bit
what the CPU reference executor gives on the same random inputs (outputs poisoned) and
what NumPy says the guide's program computes (the expressions of
tests/unit/test_examples.py: EXPECTED, IN_PLACE, BUFFERS).

tests/gpu/test_examples_gpu.py runs every example through `--run gpu --check`; this test
adds the NumPy oracle for the seeds' examples (test_examples.py fails on the CPU for an
example without one)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[2]
SEED_EXAMPLES = sorted(
    p for p in (ROOT / "examples").glob("*.mlir")
    if p.name.startswith(("mojo_", "cute_", "gluon_")) or p.name in ("memcpy_1d.mlir", "strided_rows.mlir")
)


def _oracles():
    spec = importlib.util.spec_from_file_location("_test_examples", ROOT / "tests" / "unit" / "test_examples.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run_on_gpu(module, inputs):
    import cupy as cp

    from tilec.compiler.pipeline import run_pipeline
    from tilec.runtime.launch import Kernel
    from tilec.runtime.reference.api import arg_names, host_functions

    lowered = run_pipeline(module.clone(), "default")
    (fn,) = host_functions(lowered)
    args = [cp.asarray(v) if isinstance(v, np.ndarray) else v for v in (inputs[n] for n in arg_names(fn))]
    Kernel(lowered, function=fn.sym_name.data)(*args)
    cp.cuda.Device().synchronize()
    return {n: cp.asnumpy(a) for n, a in zip(arg_names(fn), args) if isinstance(a, cp.ndarray)}


@pytest.mark.gpu
@pytest.mark.parametrize("path", SEED_EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", [0, 3])
def test_seed_example_on_gpu_matches_reference_and_numpy(path, seed):
    from tilec.compiler.pipeline import parse_module
    from tilec.runtime.reference import random_inputs, run

    ex = _oracles()
    module = parse_module(path.read_text(), str(path))
    inputs = random_inputs(module, seed=seed)
    reference = run(module, inputs)
    got = _run_on_gpu(module, inputs)
    for name, want in reference.items():
        np.testing.assert_array_equal(got[name], want, err_msg=f"{path.name}: %{name} vs the reference executor")
    if path.name in ex.IN_PLACE:
        name, want = ex.IN_PLACE[path.name]
        np.testing.assert_array_equal(got[name], want(np.asarray(inputs[name])))
        return
    src, dst = ex.BUFFERS.get(path.name, ("src", "dst"))
    expect = ex.EXPECTED[path.name](np.asarray(inputs[src]).reshape(-1))
    np.testing.assert_array_equal(got[dst].reshape(-1), expect, err_msg=f"{path.name}: vs NumPy")
