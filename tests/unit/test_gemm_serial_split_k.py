"""Serial split-K (`gemm_hopper_ws(serial=True)`, CUTLASS's serial reduction): each
unit stores its f32 partial, its consumers meet, consumer thread 0 fences, counts the
unit's arrival on its tile's counter and fences again, and the tile's last unit sums
the S partials in split order and applies the epilogue, in the same kernel. On the
reference executor (whose race checks accept the hand-over): within the bound against
float64, the same bits as the two-launch reduction (`_split_k_reduce`), the counters
left zero (a second call with the same buffer gives the same bits), swapped (one block
a unit, or persistent) and the 64- and 128-row split tiles, at the layout level and
after the default pipeline; without the release fence the last unit's reads are a data
race; NVRTC compiles of the rule's serial configurations without spills; the bench's
`ser` / `noser` flags."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _bits, _check, _operands, _values

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm import MatmulKey, choose_config, matmul_program
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run
from tilec.runtime.reference.errors import ExecutionError

WIDEST = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


def _inputs(m: int, n: int, ops: dict, split: int, b_kmajor: bool, counters: np.ndarray | None) -> dict:
    b = ops["b"].T if b_kmajor else ops["b"]
    out = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(b.ravel(), "bf16"),
           "pc": _bits(np.full(m * n, np.nan), "f16"), "pbias": _bits(ops["bias"], "f16"),
           "pres": _bits(ops["residual"].ravel(), "f16"), "pw": np.full(split * m * n, np.nan, np.float32), "m": m}
    if counters is not None:
        out["pctr"] = counters
    return out


def _both(m: int, n: int, k: int, split: int, level: str = "layout", **kw):
    """C of the serial program (twice, the counters carried from the first call to the
    second) and of the two-launch one, as bits, and the counters after."""
    b_kmajor = kw.get("b_kmajor", False)
    ops = _operands(m, n, k, WIDEST, seed=m + split)
    got = []
    counters = np.zeros(64, np.int32)
    for serial in (True, True, False):
        module = gemm_hopper_ws(None, n, k, split_k=split, epilogue=WIDEST, serial=serial, **kw)
        if level == "lowered":
            run_pipeline(module, "default")
        outs = run(module, _inputs(m, n, ops, split, b_kmajor, counters if serial else None))
        if serial:
            counters = np.asarray(outs["pctr"]).copy()
        _check(_values(outs["pc"], "f16").reshape(m, n), ops, WIDEST)
        got.append(np.asarray(outs["pc"]))
    return got, counters


@pytest.mark.parametrize(("persistent", "split", "level"), [(0, 3, "layout"), (3, 3, "layout"), (3, 2, "lowered")])
def test_swapped_serial_split_k(persistent, split, level):
    """N = 200 (4 tiles of 64 rows, the last 8), K = 1000 (16 steps of 64 over 2 stages),
    M = 5 of 16 columns; one block a unit, or persistent over 3 blocks (a tile's splits
    in different blocks)."""
    n = 200
    (first, second, launched), counters = _both(5, n, 1000, split, level, bm=64, bn=16, bk=64, stages=2,
                                                b_kmajor=True, swap_ab=True, persistent=persistent)
    assert np.array_equal(first, second) and np.array_equal(first, launched)
    slots = counters[:4 * (split + 1)].reshape(4, split + 1)  # per tile: its counter, then its units' flags
    assert not slots[:, 0].any()
    assert all(sorted(row) == list(range(split)) for row in slots[:, 1:].tolist())


@pytest.mark.parametrize(("bm", "b_kmajor", "m"), [(64, False, 37), (128, True, 70)])
def test_serial_split_k_of_the_split_tiles(bm, b_kmajor, m):
    """The split tiles of M <= 64 and M 65-128 (one and two consumer warpgroups, 128
    columns summed 64 at a time), persistent over 5 blocks, split 3 ways."""
    (first, second, launched), counters = _both(m, 200, 1000, 3, bm=bm, bn=128, bk=64, stages=2,
                                                persistent=5, b_kmajor=b_kmajor)
    assert np.array_equal(first, second) and np.array_equal(first, launched)
    assert not counters[:-(-200 // 128) * -(-m // bm) * 4:4].any()


def test_the_release_fence_orders_the_partials(monkeypatch):
    """Without the fence before the arrival, the last unit's reads of the other blocks'
    partials are reported."""
    from tilec.compiler import kernel_builder

    fence, calls = kernel_builder.KernelBuilding.fence, []

    def acquire_only(self, *args, **kwargs):  # the first of each pair of fences is the release
        calls.append(1)
        if len(calls) % 2 == 0:
            fence(self, *args, **kwargs)

    monkeypatch.setattr(kernel_builder.KernelBuilding, "fence", acquire_only)
    module = gemm_hopper_ws(None, 200, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            split_k=3, persistent=3, epilogue=WIDEST, serial=True)
    ops = _operands(5, 200, 1000, WIDEST)
    with pytest.raises(ExecutionError, match="data race on global memory.*%pw.*no release"):
        run(module, _inputs(5, 200, ops, 3, True, np.zeros(64, np.int32)))


@pytest.mark.parametrize(("m", "n", "k", "kmajor"), [(32, 4096, 4096, True), (128, 4096, 4096, True),
                                                     (128, 4096, 4096, False), (128, 6144, 4096, None)])
def test_the_rules_serial_configurations_compile_without_spills(m, n, k, kmajor, launched_splits):
    """One kernel (no reduction launch), widest epilogue, sm_90a: the rule's tile for
    Llama's O at M = 32 (whose flag through shared memory made ptxas drop `setmaxnreg`)
    and 128 and the 128-row split tile, each split in two where the rule leaves it whole
    and summed in the kernel (`:ser`: the rule's splits are launched twice,
    `SERIAL_SPLIT_K`); (None) QKV at 128 in 256-row units split 4 ways, four consumer
    warpgroups of 104 registers (summed 64 columns at a time, it does not spill)."""
    import dataclasses

    from tilec.gemm import splits, swap_config
    from tilec.runtime.nvrtc import resource_usage

    if kmajor is None:
        kmajor, c = True, next(c for c in splits(swap_config(m, rows=256), k) if c.split_k == 4)
    else:
        c = choose_config(m, n, 132, k=k, b_kmajor=kmajor)
        if c.split_k == 1:
            c = next(s for s in splits(c, k) if s.split_k == 2)
    c = dataclasses.replace(c, serial=True, name=c.name + ":ser")
    assert c.serial and c.split_k > 1
    module = matmul_program(MatmulKey(c, n, k, "bf16", WIDEST, 132, b_kmajor=kmajor, index_bits=32))
    run_pipeline(module, "default")
    (usage,) = resource_usage(compile_sm90_or_skip(emit(module, "cuda"))).values()
    assert usage.spill_stores in (0, None) and usage.spill_loads in (0, None)


def test_the_bench_names_serial_and_launched_splits():
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    assert parse_config("64x128x128:4:swapAB:p1:splitK2:ser").serial
    assert not parse_config("64x128x128:4:swapAB:p1:splitK2:ser:noser").serial
    assert parse_config("64x128x128:4:swapAB:p1:splitK2:ser").kwargs(132)["serial"]
