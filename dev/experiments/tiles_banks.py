"""Shared-memory wavefronts of a `box<tiles>` phase-2 load (passes/_box_tile.tiles_launch), a
model without a GPU: the 32 lanes' box addresses of one warp `layout.read` of element `t`
of their chunks, as the kernel computes them (slot `r` at `r PB + S floor(r / V + 1)` with
`S` the phase-1 chunk's elements where the lanes run along a row, else `r PB`; element `q`
of slot `r` at `+ (run_start(r) mod V) + q`; row `q`'s chunk `ci` at slot
`(-ds(q) mod V) + ci V + t`), grouped by 32-bit bank; the wavefronts are the most
distinct words one bank serves. Checked against Nsight Compute on the H200: the default
int8 8191 x 8209 transpose models 3.94, measured 3.97 (8.40 M wavefronts for 2.11 M loads).

    python3 dev/experiments/tiles_banks.py     # the odd transposes and 12 random shapes
"""

from __future__ import annotations

import numpy as np


def wavefronts(e: int, lanes: int, stage: int = 16, pitch: int = 144, src_pitch: int = 8209, dst_pitch: int = 8191,
               od: int = 1680, ow: int = 640, warps: int = 8) -> float:
    """Mean wavefronts a load: `e`-byte elements, `lanes` lanes along a row (0: on 32
    rows, the lanes' chunk `tid / Wt`), phase-1 chunks of `stage` bytes, slot pitch
    `pitch` bytes, the tile at `(ow, od)` of a transpose whose source rows are
    `src_pitch` elements apart and destination rows `dst_pitch`."""
    v, pb, wt = 16 // e, pitch // e, 128 // e
    sv = max(stage // e, 1)

    def slot_base(r: int) -> int:
        return r * pb + ((r + v) // v) * sv if lanes else r * pb

    out = []
    for warp in range(warps):
        for t in range(v):
            words: dict[int, set[int]] = {}
            for lane in range(32):
                tid = warp * 32 + lane
                q, ci = (tid // lanes, tid % lanes) if lanes else (tid % wt, tid // wt)
                r = (-((ow + q) * dst_pitch + od)) % v + ci * v + t
                w = (slot_base(r) + ((od + r) * src_pitch + ow) % v + q) * e // 4
                words.setdefault(w % 32, set()).add(w)
            out.append(max(len(s) for s in words.values()))
    return float(np.mean(out))


def main() -> None:
    rng = np.random.default_rng(0)
    shapes = [(8209, 8191)] + [(int(a), int(b)) for a, b in rng.integers(4000, 9000, size=(12, 2))]
    for e in (1, 2, 4):
        print(f"E={e}: 8191x8209 / mean of {len(shapes)} shapes")
        for lanes, stage in ((0, 16), (8, 16), (16, 16), (16, 8), (32, 16), (32, 4)):
            one = wavefronts(e, lanes, stage)
            mean = np.mean([wavefronts(e, lanes, stage, src_pitch=a, dst_pitch=b) for a, b in shapes])
            print(f"  lanes={lanes:2d} stage={stage:2d}: {one:.2f} / {mean:.2f}")


if __name__ == "__main__":
    main()
