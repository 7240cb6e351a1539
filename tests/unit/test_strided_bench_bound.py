"""The DRAM bound of benchmarks/strided_copy_bench.py: `sectors_touched` counts the
32-byte sectors of strided views exactly (checked against enumerating every byte),
and `dram_bound` turns a generated case into its ceiling ratio to cudaMemcpy."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))

from strided_copy_bench import CopyCase, dram_bound, generate_cases, partial_sectors, sectors_touched


def _brute(addr: int, itemsize: int, shape, strides) -> int:
    off = np.zeros(1, dtype=np.int64)
    for n, s in zip(shape, strides):
        off = (off[:, None] + np.arange(n, dtype=np.int64)[None, :] * s * itemsize).ravel()
    first = addr + off
    bytes_ = (first[:, None] + np.arange(itemsize)[None, :]).ravel()
    return len(np.unique(bytes_ // 32))


@pytest.mark.parametrize(
    ("addr", "itemsize", "shape", "strides", "sectors"),
    [
        (0, 4, (64,), (1,), 8),  # 256 contiguous bytes
        (4, 4, (64,), (1,), 9),  # the same, 4 bytes off: one sector more
        (0, 1, (100,), (2,), 7),  # every other byte of 199: all sectors of the span
        (0, 1, (10,), (32,), 10),  # one byte per sector
        (0, 1, (10, 5), (7, 1), 3),  # rows of 5 in 7: bytes 0..67
        (0, 8, (3, 5), (0, 1), 2),  # a broadcast row of 40 bytes
        (22, 2, (4, 3), (-3, -1), 1),  # 12 flipped elements, 24 bytes ending at 23
    ],
)
def test_sectors_touched_small(addr, itemsize, shape, strides, sectors):
    assert sectors_touched(addr + 4096, itemsize, shape, strides) == sectors
    assert _brute(addr + 4096, itemsize, shape, strides) == sectors


def test_sectors_touched_matches_enumeration():
    rng = np.random.default_rng(3)
    for _ in range(1500):
        rank = int(rng.integers(1, 5))
        itemsize = int(rng.choice([1, 2, 4, 8]))
        shape = [int(rng.integers(1, 9)) for _ in range(rank)]
        strides, acc = [], int(rng.integers(1, 4))
        for n in shape:
            strides.append(acc)
            acc = acc * n + int(rng.integers(0, 40))
        perm = rng.permutation(rank)
        strides = [strides[p] * (-1 if rng.random() < 0.2 else 1) * (0 if rng.random() < 0.1 else 1) for p in perm]
        addr = int(rng.integers(4096, 4200)) * itemsize
        assert sectors_touched(addr, itemsize, shape, strides) == _brute(addr, itemsize, shape, strides), (
            addr,
            itemsize,
            shape,
            strides,
        )


def _brute_partial(addr: int, itemsize: int, shape, strides) -> int:
    off = np.zeros(1, dtype=np.int64)
    for n, s in zip(shape, strides):
        off = (off[:, None] + np.arange(n, dtype=np.int64)[None, :] * s * itemsize).ravel()
    bytes_ = np.unique((addr + off[:, None] + np.arange(itemsize)[None, :]).ravel())
    sectors, used = np.unique(bytes_ // 32, return_counts=True)
    return int((used < 32).sum())


@pytest.mark.parametrize(
    ("addr", "itemsize", "shape", "strides", "partial"),
    [
        (0, 4, (64,), (1,), 0),  # 256 contiguous aligned bytes: every sector whole
        (4, 4, (64,), (1,), 2),  # 4 bytes off: the first and the last sector in part
        (176, 8, (4, 5), (10, 1), 6),  # case 46's rows of 40 bytes at a pitch of 80: 3 of 4 a row pair
        (4, 2, (3, 254), (256, 1), 3),  # case 16's rows of 508 bytes at a pitch of 512
        (0, 1, (2, 3, 32), (96, 32, 1), 0),  # rows that continue each other: one run
    ],
)
def test_partial_sectors_small(addr, itemsize, shape, strides, partial):
    assert partial_sectors(addr + 4096, itemsize, shape, strides) == partial
    assert _brute_partial(addr + 4096, itemsize, shape, strides) == partial


def test_partial_sectors_match_enumeration():
    # views that do not overlap themselves: slices of a contiguous base, modes permuted
    rng = np.random.default_rng(5)
    for _ in range(800):
        rank = int(rng.integers(1, 4))
        itemsize = int(rng.choice([1, 2, 4, 8]))
        base = [int(rng.integers(1, 12)) for _ in range(rank)]
        shape = [int(rng.integers(1, b + 1)) for b in base]
        steps = [int(rng.integers(1, 3)) for _ in range(rank)]
        shape = [min(n, -(-b // st)) for n, b, st in zip(shape, base, steps)]
        strides, acc = [0] * rank, 1
        for k in reversed(range(rank)):
            strides[k] = acc * steps[k] * (-1 if rng.random() < 0.2 else 1)
            acc *= base[k]
        perm = rng.permutation(rank)
        shape, strides = [shape[p] for p in perm], [strides[p] for p in perm]
        addr = (4096 + int(rng.integers(0, 64))) * itemsize
        assert partial_sectors(addr, itemsize, shape, strides) == _brute_partial(addr, itemsize, shape, strides), (
            addr, itemsize, shape, strides)


def test_sectors_touched_interleaved_views_are_enumerated():
    # strides that do not nest (2 and 3 over the same bytes)
    assert sectors_touched(0, 1, (20, 20), (2, 3)) == _brute(0, 1, (20, 20), (2, 3))
    with pytest.raises(ValueError):
        sectors_touched(0, 1, (5000, 5000), (2, 3))


def test_dram_bound_of_cases():
    # int8 rows of 5 read from rows of 7: 7/5 of the src bytes move, the dst is dense
    case = CopyCase(
        "s",
        "slice",
        "int8",
        "int8",
        (1000, 7),
        ((0, 1000, 1), (0, 5, 1)),
        (0, 1),
        (1000, 5),
        ((0, 1000, 1), (0, 5, 1)),
        (1000, 5),
        5000,
        5000,
    )
    b = dram_bound(case)
    assert (b["read_sectors"], b["write_sectors"]) == (219, 157)
    assert b["bound"] == pytest.approx(10000 / (32 * 376))
    assert b["fill_sectors"] == 1  # a dense dst of 5000 bytes: its last sector (8 bytes) in part
    # a transpose of a contiguous tensor touches every sector once: bound 1
    cases = generate_cases(0, 48)
    assert dram_bound(cases[42])["bound"] == pytest.approx(1.0, abs=1e-6)
    # a step-2 slice of bytes reads the whole span: (1 + 1) / (2 + 1)
    assert dram_bound(cases[37])["bound"] == pytest.approx(2 / 3, abs=1e-3)
    # rows of 5 int64 into rows of 10 (46): 3 of the 4 sectors a row pair writes are
    # written in part, each filled from DRAM first
    b = dram_bound(cases[46])
    assert b["fill_sectors"] / b["write_sectors"] == pytest.approx(0.75, abs=1e-3)
    assert b["bound"] == pytest.approx(0.769, abs=1e-3) and b["bound_fills"] == pytest.approx(0.526, abs=1e-3)
