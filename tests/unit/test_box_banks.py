"""The bank model of a `box<rows>` copy's phase 2 (passes/_box_banks.py) and the slot
pitch the `tile` pass takes from it: wavefronts counted on paper for small loads, the
canonical 37 x 17 copy's loads in session 35's slot layout (every slot at a multiple
of 16 bytes plus its run's residue, built here from the kernel's formula) against the
congruent pitch the rule chooses, and the table of steps by the strides' residues."""

from __future__ import annotations

import numpy as np

from tilec.passes._box_banks import (STEPS, rows_addresses, rows_most_step, rows_pitch, rows_runs, rows_steps,
                                     rows_wavefronts, wavefronts)


def test_wavefronts_on_paper():
    # 32 lanes in 32 words of one 128-byte line: one wavefront; bytes of one word: one
    assert wavefronts(np.arange(32) * 4).item() == 1
    assert wavefronts(np.arange(32) // 4).item() == 1
    # a stride of 8 bytes: two words a bank; 128 bytes: 32 words in bank 0
    assert wavefronts(np.arange(32) * 8).item() == 2
    assert wavefronts(np.arange(32) * 128).item() == 32
    # two words of bank 3 (12 and 140), the other lanes inactive
    assert wavefronts(np.array([12, 140] + [-1] * 30)).item() == 2
    # the same word read by every lane: a broadcast
    assert wavefronts(np.full(32, 77)).item() == 1


def _residue_slots(nw: int, nd: int, rho: int, ssk: int, s0: int = 5, r0: int = 3) -> np.ndarray:
    """Session 35's layout (`tile{box_pitch=-1}`): run k's byte b at `k PB + ((s0 +
    k ss_K) mod 16) + b`, `PB` a multiple of 16; the same loads as `rows_addresses`."""
    pb = (nw * nd + 30) // 16 * 16
    n = nw * nd
    w = -(-n // 32)
    idx = np.arange(w * 32)
    q = np.where(idx < n, idx // nd, -1).reshape(w, 32)
    j = (idx % nd).reshape(w, 32)
    r = (r0 + rho * np.maximum(q, 0)) & 15
    p = (16 * j - r)[:, None, :] + np.arange(16)[None, :, None] + 16 * nd
    kk, dd = p // nd, p % nd
    a = kk * pb + ((s0 + kk * ssk) & 15) + q[:, None, :] + nw * dd
    return np.where(q[:, None, :] >= 0, a, -1)


def _mean(a: np.ndarray) -> float:
    return 32 * float(wavefronts(a).sum()) / float((a >= 0).sum())


def test_canonical_rows_copy_halves_its_wavefronts():
    # box rows int8 37 x 17 in 1691 steps: ss_K = 217634 (2 mod 16), ds_W = 28747 (11)
    old = _mean(_residue_slots(37, 17, 11, 217634))
    assert 3.9 < old < 4.1  # Nsight Compute's ~4 a load for the copy43 transpose's kind
    steps = rows_wavefronts(37, 17, 2, 11)
    assert len(steps) == STEPS and min(steps) == steps[2] and 2.0 < steps[2] < 2.1
    assert rows_steps(37, 17)[2][11] == 2
    # the steps a 40 KiB box may take keep 15/16 of its runs: 0 to 2 (59 runs at 690
    # against 62 at 658; step 4, 56 runs, measured slower), and the table's choice
    # among them is the same step 2
    assert rows_most_step(37 * 17, 40960) == 2 and rows_runs(37 * 17, 40960, 690) == 59
    assert rows_steps(37, 17, 2)[2][11] == 2
    # the step's pitch: congruent to the source step, 16 x 2 past the least (656 + 2)
    assert rows_pitch(37 * 17, 2, 2) == 690
    # the model's addresses are the linear layout's: a pitch of 690 for every run
    a = rows_addresses(37, 17, 11, np.array([690]))[0]
    live = a[a >= 0]
    assert ((live - 5) % 690 < 629).all()


def test_steps_beat_the_residue_slots_on_average():
    # over residue pairs of the canonical copy's shape, and of a rows copy with W = 3,
    # D = 40 (fewer runs than lanes): the table's steps (of a subsampled count) read
    # fewer wavefronts on average in the full count than session 35's residue slots
    for nw, nd in ((37, 17), (3, 40)):
        table = rows_steps(nw, nd)
        chosen, old = [], []
        for sigma in range(0, 16, 3):
            for rho in range(0, 16, 5):
                chosen.append(rows_wavefronts(nw, nd, sigma, rho)[table[sigma][rho]])
                old.append(_mean(_residue_slots(nw, nd, rho, sigma)))
        assert all(0 <= s < STEPS for row in table for s in row)
        assert np.mean(chosen) < np.mean(old)



def test_orders32_weigh_split_sectors_against_wavefronts():
    # a rows box at its runs' residues mod 32 (BOX_SLOT32): for each (ss_K mod 32, ds_W
    # mod 16) the step and phase 2's run stride of the fewest modelled wavefronts, a pitch
    # not congruent to the source step mod 32 (its sectors split) counted SPLIT_WAVEFRONTS
    # more; steps up to `most`, one more where congruent; strides coprime to n_W
    from math import gcd

    from tilec.passes._box_banks import SPLIT_WAVEFRONTS, rows_orders32, rows_strides

    assert rows_strides(37) == (1, 2, 3, 4, 5, 6, 7, 8) and rows_strides(6) == (1, 5)
    for nw, nd, most in ((37, 17, 2), (3, 40, 0), (6, 20, 7)):
        steps, picks = rows_orders32(nw, nd, most)
        assert len(steps) == len(picks) == 32
        for sigma32 in range(32):
            for rho in range(16):
                step, a = steps[sigma32][rho], rows_strides(nw)[picks[sigma32][rho]]
                whole = (rows_pitch(nw * nd, sigma32 % 16, step) - sigma32) % 32 == 0
                assert 0 <= step <= most or (step == most + 1 and whole)
                assert gcd(a, nw) == 1
    # the canonical copy (ss_K = 2 mod 32, ds_W = 11): step 3 and runs 3 apart (706 = 2
    # mod 32, 2.14 wavefronts in the full count) over the mod-16 table's step 2 (690 = 18
    # mod 32: every other run's sectors split, 2.05) and step 1 (674, whole, 3.22); at
    # ss_K = 18 mod 32 step 2 keeps its sectors whole, in order
    steps, picks = rows_orders32(37, 17, 2)
    assert (steps[2][11], rows_strides(37)[picks[2][11]]) == (3, 3)
    assert (steps[18][11], rows_strides(37)[picks[18][11]]) == (2, 1)
    full = 32 * float(wavefronts(rows_addresses(37, 17, 11, np.array([706]), stride=3)).sum()) / float(
        (rows_addresses(37, 17, 11, np.array([706]), stride=3) >= 0).sum())
    assert 2.1 < full < rows_wavefronts(37, 17, 2, 11)[2] + SPLIT_WAVEFRONTS
