"""Shared-memory bank conflicts of a `box<rows>` copy's phase 2 (passes/_box_tile.py), a
model of the addresses its warps read, and the slot pitch it chooses from them.

A `rows` box stages `T` source runs of `n_W n_D` bytes; run `k`'s byte `b` lies at
`s0 + pitch k + b` in the box (`s0` the first run's address modulo 16), so each slot is
congruent to its run modulo 16 (`cp.async` of whole aligned 16-byte chunks) exactly
when `pitch = ss_K (mod 16)`: the pitch is `box_pitch(n_W n_D) + (ss_K mod 16) + 16 i`
for a step `i` in 0..7 (`rows_pitch`). Phase 2's thread of destination run `q` and chunk
`j` reads byte `t` of its chunk, destination byte `p = 16 j - r_q + t` of the run
(`r_q` = the run's start modulo 16, `r0 + ds_W q`), at `s0 + pitch (p / n_D) + q + n_W
(p mod n_D)`; a warp's 32 lanes take consecutive (q, j) items, j fastest
(`BOX_LANES` 0). A load's wavefronts are the most distinct 32-bit words one bank
serves. The pitch's residue modulo 128 (the step) decides which lanes share a bank: for
the canonical 37 x 17 copy (ss_K = 2, ds_W = 11 mod 16) 3.98 wavefronts a load with
every slot at a multiple of 16 bytes (session 35's layout), 2.05 at step 2, 3.86 at 6.

    rows_step(37, 17, 2, 11)      # the step with the fewest modelled wavefronts
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

STEPS = 8
"""Pitch steps of 16 bytes a `rows` box chooses from: the 8 residues of the pitch
modulo 128 (the 32 banks of 4 bytes) congruent to the source step modulo 16."""


def wavefronts(addrs: np.ndarray) -> np.ndarray:
    """The wavefronts of each warp load of `addrs` (`(..., 32)` byte addresses, -1 an
    inactive lane): the most distinct 32-bit words one of the 32 banks serves."""
    a = np.asarray(addrs, dtype=np.int64)
    words = np.where(a >= 0, a >> 2, -1)
    srt = np.sort(words, axis=-1)
    new = np.ones(srt.shape, dtype=bool)
    new[..., 1:] = srt[..., 1:] != srt[..., :-1]
    new &= srt >= 0
    banks = np.where(srt >= 0, srt & 31, 0)
    per_bank = (new[..., None] & (banks[..., None] == np.arange(32))).sum(axis=-2)
    return per_bank.max(axis=-1)


def rows_addresses(nw: int, nd: int, sigma: int, rho: int, pitches: list[int],
                   s0: int = 5, r0: int = 3) -> np.ndarray:
    """The box addresses of phase 2's loads (module doc): `(len(pitches), warps, 16,
    32)`, -1 for a lane without an item, over one trip of the work items (every run's
    chunks 0 .. n_D - 1) of a box whose source runs are `sigma` apart modulo 16 and
    whose destination runs `rho`, the first run's residues `s0` (source) and `r0`
    (destination). `pitches` may ignore `sigma`: the addresses are the kernel's either
    way."""
    n = nw * nd
    w = -(-n // 32)
    idx = np.arange(w * 32)
    q = np.where(idx < n, idx // nd, -1).reshape(w, 32)
    j = (idx % nd).reshape(w, 32)
    r = (r0 + rho * np.maximum(q, 0)) & 15
    t = np.arange(16)[None, :, None]
    p = (16 * j - r)[:, None, :] + t + 16 * nd  # 16 n_D on: non-negative
    kk, dd = p // nd, p % nd
    out = []
    for pitch in pitches:
        a = s0 + pitch * kk + q[:, None, :] + nw * dd
        out.append(np.where(q[:, None, :] >= 0, a, -1))
    del sigma
    return np.stack(out)


def rows_pitch(run_bytes: int, sigma: int, step: int) -> int:
    """The slot pitch of a `rows` box of source runs of `run_bytes` bytes `sigma` apart
    modulo 16 at `step` (module doc): a multiple of 16 that holds a run and the 15
    bytes before it (`_copy_cost.box_pitch`), plus `sigma`, plus 16 `step`."""
    return (run_bytes + 30) // 16 * 16 + sigma + 16 * step


def rows_wavefronts(nw: int, nd: int, sigma: int, rho: int) -> list[float]:
    """Modelled wavefronts a phase-2 load (per 32 active lanes) of a `rows` box at each
    step 0 .. STEPS - 1 (module doc)."""
    pitches = [rows_pitch(nw * nd, sigma, i) for i in range(STEPS)]
    wf = wavefronts(rows_addresses(nw, nd, sigma, rho, pitches))
    active = (rows_addresses(nw, nd, sigma, rho, pitches[:1])[0] >= 0).sum()
    return [32 * float(x) / float(active) for x in wf.reshape(STEPS, -1).sum(axis=1)]


@lru_cache(maxsize=None)
def rows_step(nw: int, nd: int, sigma: int | None, rho: int | None) -> int:
    """The pitch step of a `rows` box (module doc) with the fewest modelled wavefronts
    a load; a residue not known at compile time (None) is averaged over its values
    (odd and even: 1, 2, 5, 10, 11, 14), the first step of the fewest on a tie."""
    sigmas = [sigma] if sigma is not None else [1, 2, 5, 10, 11, 14]
    rhos = [rho] if rho is not None else [1, 2, 5, 10, 11, 14]
    total = np.zeros(STEPS)
    for s in sigmas:
        for r in rhos:
            total += rows_wavefronts(nw, nd, s, r)
    return int(np.argmin(np.round(total, 6)))
