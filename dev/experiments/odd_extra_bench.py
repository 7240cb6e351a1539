"""benchmarks/canonical_copy_bench.py on odd int8 transposes outside the canonical set
(the same options: `--only`, `--variant`, `--routes`, `--list`): a square odd one
(8191 x 8191: `1 - P_s P_d` a multiple of 8 mod 16, where a `box<tiles>` phase 2's byte
loads take 4 shared-memory wavefronts at any row step, `_box_tile.tiles_row_step_of`)
and 8192 x 8209 / 4099 x 12289 (other residues of the pitches); f16 8192 x 8209 (m = 1 -
P_s P_d odd: rows 2 apart by the rule), the square odd f16 and f32 ones (m = 0: the
rotated loads of `tiles_rotate=1`) and f64 ones of three residues (the `box<tiles>` of
8-byte elements against the tiled kernel, odd44), appended to `CANONICAL` for the run.

    python3 dev/experiments/odd_extra_bench.py --only 'x8191,x12289' --variant 'tile{tiles_row_step=0}'
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))

import canonical_copy_bench as ccb  # noqa: E402
from helpers.canonical_copies import CanonicalCopy  # noqa: E402

EXTRA = [CanonicalCopy("transpose int8 8191x8191", "int8", "int8", (8191, 8191), (1, 0)),
         CanonicalCopy("transpose int8 8192x8209", "int8", "int8", (8192, 8209), (1, 0)),
         CanonicalCopy("transpose int8 4099x12289", "int8", "int8", (4099, 12289), (1, 0)),
         CanonicalCopy("transpose float16 8192x8209", "float16", "float16", (8192, 8209), (1, 0)),
         CanonicalCopy("transpose float16 8191x8191", "float16", "float16", (8191, 8191), (1, 0)),
         CanonicalCopy("transpose float32 8191x8191", "float32", "float32", (8191, 8191), (1, 0)),
         CanonicalCopy("transpose float64 8191x8191", "float64", "float64", (8191, 8191), (1, 0)),
         CanonicalCopy("transpose float64 8192x8209", "float64", "float64", (8192, 8209), (1, 0)),
         CanonicalCopy("transpose float64 4099x12289", "float64", "float64", (4099, 12289), (1, 0))]

if __name__ == "__main__":
    ccb.CANONICAL = [*ccb.CANONICAL, *EXTRA]
    sys.exit(ccb.main(sys.argv[1:]))
