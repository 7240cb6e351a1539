"""layout.compose (CuTe's composition(tensor, tiler)) and by-mode tilers on the CPU
reference executor against NumPy (the lowering: tests/filecheck/lower-to-gpu/compose.mlir)."""

from pathlib import Path

import numpy as np

from tilec.runtime.reference import random_inputs, run

LIT = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "compose.mlir"


def test_compose_takes_every_third_row_and_second_column_of_each_tile():
    text = LIT.read_text()
    inputs = random_inputs(text, seed=0)
    out = np.asarray(run(text, inputs)["dst"])
    src = np.asarray(inputs["src"])
    r, c, j = np.meshgrid(np.arange(8), np.arange(4), np.arange(2), indexing="ij")
    want = src[3 * r + 24 * (8 * j + 2 * c)]  # (24,16):(1,24), column 8j + 2c, row 3r
    np.testing.assert_array_equal(out[r + 8 * c + 32 * j], want)
