"""Shared-memory bank conflicts of a `box<rows>` copy's phase 2 (passes/_box_tile.py): a
model of the addresses its warps read, and the slot pitch chosen from it.

A `rows` box stages `T` source runs of `n_W n_D` bytes, `ss_K` apart in the source.
Run `k`'s byte `b` lies at `s0 + pitch k + b` in the box (`s0`: the first run's address
mod 16). A slot is then congruent to its run mod 16 (so `cp.async` moves whole aligned
16-byte chunks) exactly when `pitch = ss_K (mod 16)`: the pitch is `box_pitch(n_W n_D)
+ sigma + 16 i` (`sigma = ss_K mod 16`, `rows_pitch`) for a step `i` in 0..7, which
sets the pitch mod 128, the bytes the 32 banks of 4 bytes span.

Phase 2's thread of destination run `q`, chunk `j` reads byte `t` of its chunk in its
`t`-th load: destination byte `p = 16 j - r_q + t` of the run (`r_q` = the run's start
mod 16, `r0 + rho q` with `rho = ds_W mod 16`), at `s0 + pitch (p / n_D) + q + n_W (p
mod n_D)`. A warp's 32 lanes take consecutive (q, j), j fastest (`BOX_LANES` 0). A
load's wavefronts are the most distinct 32-bit words one bank serves. On paper, for
one run's 17 lanes of the canonical 37 x 17 copy: consecutive j step p by 16, so
kk = p / 17 by one and p mod 17 back by one (once in 17 forwards by 16): the address
moves by `pitch - 37` bytes (`16 x 37` once); the 17 lanes fall in 17 distinct words
where that step mod 128 spreads them (45: words 0, 11, 22, 1, 13, ...), and in as few
as 8 where it is a multiple of 16 mod 128 (80, the packed layout `pitch = 629`). The
second run of the warp adds its own progression, a byte and `r_q - r_q'` bytes of p
off. The model below counts all of it: 3.98 wavefronts a load for the canonical copy
with session 35's layout (every slot at a multiple of 16 bytes plus its run's residue),
2.05 at step 2; over every (sigma, rho), 2.72 on average with session 35's layout,
2.21 with the step of the fewest for each (`rows_steps`).

    rows_steps(37, 17)[2][11]     # the step for ss_K = 2, ds_W = 11 (mod 16): 2
"""

from __future__ import annotations

from functools import lru_cache
from math import gcd

import numpy as np

STEPS = 8
"""Pitch steps of 16 bytes a `rows` box chooses from: the 8 residues of the pitch mod
128 congruent to the source step mod 16."""


def wavefronts(addrs: np.ndarray) -> np.ndarray:
    """The wavefronts of each warp load of `addrs` (`(..., 32)` byte addresses, -1 an
    inactive lane): the most distinct 32-bit words one of the 32 banks serves."""
    a = np.asarray(addrs, dtype=np.int64)
    shape = a.shape[:-1]
    words = np.sort(np.where(a >= 0, a >> 2, -1).reshape(-1, 32), axis=-1)
    new = np.ones(words.shape, dtype=bool)
    new[:, 1:] = words[:, 1:] != words[:, :-1]
    new &= words >= 0
    rows = np.broadcast_to(np.arange(words.shape[0])[:, None], words.shape)
    keys = (rows * 32 + (words & 31))[new]
    counts = np.bincount(keys, minlength=words.shape[0] * 32).reshape(-1, 32)
    return counts.max(axis=-1).reshape(shape)


def rows_pitch(run_bytes: int, sigma: int, step: int) -> int:
    """The slot pitch of a `rows` box of source runs of `run_bytes` bytes, `sigma` mod
    16 apart, at `step` (module doc): a multiple of 16 that holds a run and the 15
    bytes before it (`_copy_cost.box_pitch`), plus `sigma`, plus 16 `step`."""
    return (run_bytes + 30) // 16 * 16 + sigma + 16 * step


def rows_addresses(nw: int, nd: int, rho: int, pitches: np.ndarray, s0: int = 5, r0: int = 3,
                   warps: int | None = None, loads: range = range(16), stride: int = 1) -> np.ndarray:
    """The box addresses of phase 2's loads (module doc): `pitches.shape + (warps,
    loads, 32)`, -1 for a lane without an item, over one trip of the work items (every
    run's chunks 0 .. n_D - 1; the first `warps` warps where given, the loads `loads`),
    destination runs `rho` apart mod 16, the first runs' residues `s0` (source) and
    `r0` (destination), item `(q, j)` on run `stride q mod nw` (`_box_tile.ROWS_RUN_STRIDE`)."""
    n = nw * nd
    w = -(-n // 32) if warps is None else min(warps, -(-n // 32))
    idx = np.arange(w * 32)
    q = np.where(idx < n, idx // nd * stride % nw, -1).reshape(w, 32)
    j = (idx % nd).reshape(w, 32)
    r = (r0 + rho * np.maximum(q, 0)) & 15
    p = (16 * j - r)[:, None, :] + np.array(loads)[None, :, None] + 16 * nd  # 16 n_D on: non-negative
    kk, dd = p // nd, p % nd
    pitch = np.asarray(pitches, dtype=np.int64)[(...,) + (None,) * 3]
    a = s0 + pitch * kk + q[:, None, :] + nw * dd
    return np.where(q[:, None, :] >= 0, a, -1)


def rows_wavefronts(nw: int, nd: int, sigma: int, rho: int) -> list[float]:
    """Modelled wavefronts of a phase-2 load (per 32 active lanes) of a `rows` box at
    each step 0 .. STEPS - 1 (module doc)."""
    a = rows_addresses(nw, nd, rho, np.array([rows_pitch(nw * nd, sigma, i) for i in range(STEPS)]))
    active = float((a[0] >= 0).sum())
    return [32 * float(x) / active for x in wavefronts(a).reshape(STEPS, -1).sum(axis=1)]


TABLE_WARPS = 6
"""Warps of phase 2 `rows_steps` models (the first)."""


ROWS_KEPT = 15 / 16
"""The share of its runs a `rows` box keeps at the steps it may take (`rows_most_step`):
a larger pitch holds fewer runs in the box, fewer bytes in flight a block. Measured on
the H200 (the canonical 37 x 17 copy, the Program, benchmarks/NOTES.md): step 2 (59
runs, 2.05 wavefronts) 0.729 of cudaMemcpy, step 4 (56 runs, 2.72) 0.699, session 35's
slots (62 runs, 3.98) 0.625; `tilec.copy_`'s kernel, whose table allowed step 7 for some
residues and so held 52 runs whatever its own, 0.664."""


def rows_runs(run_bytes: int, smem: int, pitch: int) -> int:
    """Runs a `rows` box of `smem` bytes holds at `pitch`: the last slot's chunks (a
    multiple of 16 after up to 15 bytes) end inside the box."""
    return (smem - (run_bytes + 30) // 16 * 16 - 15) // pitch + 1


def rows_most_step(run_bytes: int, smem: int) -> int:
    """The largest pitch step a `rows` box may take: at every source step mod 16 it
    keeps `ROWS_KEPT` of the runs the least pitch holds (`rows_runs`)."""
    def keeps(step: int) -> bool:
        return all(rows_runs(run_bytes, smem, rows_pitch(run_bytes, s, step))
                   >= ROWS_KEPT * rows_runs(run_bytes, smem, rows_pitch(run_bytes, s, 0)) for s in range(16))
    return max(i for i in range(STEPS) if i == 0 or keeps(i))


@lru_cache(maxsize=None)
def rows_steps(nw: int, nd: int, most: int = STEPS - 1) -> tuple[tuple[int, ...], ...]:
    """The pitch step of a `rows` box of `nw x nd` runs for each source step mod 16
    (`sigma`, the first index) and destination run step mod 16 (`rho`): the step up to
    `most` (`rows_most_step`) with the fewest modelled wavefronts a load (module doc),
    the first of the fewest on a tie. The pitch mod 128 is what the model reads: one
    evaluation a `rho` over the 128 pitches from the least, of `TABLE_WARPS` warps'
    even loads (a compile-time budget: a tenth of the full count's time; over every
    (sigma, rho) of the canonical copy its choices of all 8 steps average 2.22
    wavefronts in the full count against the fewest's 2.21)."""
    base = (nw * nd + 30) // 16 * 16
    out = np.zeros((16, 16), dtype=np.int64)
    for rho in range(16):
        a = rows_addresses(nw, nd, rho, np.arange(base, base + 128), warps=TABLE_WARPS, loads=range(0, 16, 2))
        wf = wavefronts(a).reshape(128, -1).sum(axis=1)
        for sigma in range(16):
            out[sigma, rho] = int(np.argmin(wf[sigma::16][: most + 1]))
    return tuple(tuple(int(x) for x in row) for row in out)



ROWS_STRIDES = 8
"""The run strides a `rows` box's phase 2 chooses from where its slots lie at their runs'
residues mod 32 (`rows_orders32`): the least 8 coprime to `n_W` (1 first)."""

SPLIT_WAVEFRONTS = 0.15
"""What a `rows` box's split source sectors cost, in modelled wavefronts a phase-2 load
(`rows_orders32`): a pitch not congruent to the source step mod 32 leaves every other
run's 32-byte sectors across two 32-byte blocks of the box, each asked of L2 twice by
phase 1's `cp.async`. H200 (rows48, the canonical 37 x 17 copy, paired rounds): step 3
with runs 3 apart (2.14) at whole sectors x1.009 / x1.013 (copy_ / the Program) over the
mod-16 rule's step 2 (2.05, split), at split sectors x0.996; step 1 (3.22) x0.90 either
way: whole sectors are worth about 0.1-0.2 wavefronts."""


def rows_strides(nw: int) -> tuple[int, ...]:
    """The run strides `rows_orders32` chooses from (`ROWS_STRIDES`)."""
    return tuple(a for a in range(1, max(nw, 2)) if gcd(a, nw) == 1)[:ROWS_STRIDES]


@lru_cache(maxsize=None)
def rows_orders32(nw: int, nd: int, most: int = STEPS - 1) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """(steps, strides): the pitch step and the index of the run stride (`rows_strides`;
    phase 2's item of run `q` on run `A q mod n_W`) of a `rows` box of `nw x nd` runs whose
    first slot lies at its run's address mod 32, each a table `[ss_K mod 32][ds_W mod 16]`:
    the fewest modelled wavefronts a load (`rows_steps`' subsampled count) plus
    `SPLIT_WAVEFRONTS` where the pitch is not congruent to the source step mod 32
    (`rows_pitch` is `box_pitch + sigma + 16 i`: congruent for `i + box_pitch / 16 = ss_K /
    16 (mod 2)`), at steps up to `most`, one more where congruent (its sectors whole); the
    first of the fewest on a tie."""
    base = (nw * nd + 30) // 16 * 16
    strides = rows_strides(nw)
    wf = [[wavefronts(rows_addresses(nw, nd, rho, np.arange(base, base + 128), warps=TABLE_WARPS,
                                     loads=range(0, 16, 2), stride=a)).reshape(128, -1).sum(axis=1)
           for a in strides] for rho in range(16)]
    warps_loads = 32 * TABLE_WARPS * 8 / 32  # a sum over the subsampled loads -> wavefronts a load
    steps, picks = [], []
    for sigma32 in range(32):
        sigma, parity = sigma32 % 16, (sigma32 // 16 + base // 16) % 2
        row_s, row_a = [], []
        for rho in range(16):
            def cost(c: tuple[int, int]) -> float:
                i, ai = c
                return wf[rho][ai][sigma + 16 * i] / warps_loads + (0 if i % 2 == parity else SPLIT_WAVEFRONTS)
            cands = [(i, ai) for i in range(min(most + 1, STEPS - 1) + 1) for ai in range(len(strides))
                     if i <= most or i % 2 == parity]
            i, ai = min(cands, key=lambda c: (cost(c), c))
            row_s.append(i)
            row_a.append(ai)
        steps.append(tuple(row_s))
        picks.append(tuple(row_a))
    return tuple(steps), tuple(picks)
