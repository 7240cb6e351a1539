"""`tilec.autotune` (api/autotuning.py): the fastest configuration per value of the key,
timed once (here with a stand-in timer: no GPU), kept in memory and on disk."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec.support.diagnostics import TilecError

CONFIGS = [tilec.Config({"BLOCK": 256}, num_warps=2), tilec.Config({"BLOCK": 512}), tilec.Config({"BLOCK": 1024}, num_warps=8)]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))


class Timer:
    """Times each launch by the config it runs: BLOCK=512 is the fastest."""

    def __init__(self):
        self.calls = 0

    def __call__(self, launch):
        self.calls += 1
        launch()
        return {1: 3.0, 2: 1.0, 0: 2.0}[self.calls % 3]


def _tuned(timer):
    @tilec.autotune(configs=CONFIGS, key=["n"], timer=timer)
    @tilec.jit
    def add_one(x, y, n, BLOCK: tilec.constexpr, num_warps: tilec.constexpr):
        offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, tilec.BlockedLayout([4], [32], [num_warps], [0]))
        mask = offs < n
        tilec.store(y.ptr + offs, tilec.load(x.ptr + offs, mask=mask) + 1.0, mask=mask)

    return add_one


def _call(kernel, n):
    x = np.arange(n, dtype=np.float32)
    y = np.zeros_like(x)
    kernel[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, n)
    assert np.array_equal(y, x + 1)


def test_the_fastest_config_wins_once_per_key_value():
    timer = Timer()
    add_one = _tuned(timer)
    _call(add_one, 1000)
    assert timer.calls == 3 and list(add_one.best.values()) == [CONFIGS[1]]
    assert list(add_one.timings.values()) == [[3.0, 1.0, 2.0]]
    _call(add_one, 1000)                      # the same key value: no timing
    assert timer.calls == 3
    _call(add_one, 3000)                      # another: timed again
    assert timer.calls == 6 and len(add_one.best) == 2


def test_the_winner_is_kept_on_disk_for_a_new_process():
    _call(_tuned(Timer()), 1000)
    timer = Timer()
    again = _tuned(timer)                     # the same source: what a new process finds
    _call(again, 1000)
    assert timer.calls == 0 and list(again.best.values()) == [CONFIGS[1]]


def test_without_a_timer_on_the_cpu_the_first_config_runs():
    add_one = _tuned(None)
    _call(add_one, 700)
    assert list(add_one.best.values()) == [CONFIGS[0]] and add_one.timings == {}


def test_autotune_mistakes_are_located_errors():
    with pytest.raises(TilecError, match="above @tilec.jit") as e:
        tilec.autotune(configs=CONFIGS, key=["n"])(lambda x: x)
    assert e.value.loc.startswith(__file__)
    with pytest.raises(TilecError, match="'m' is not a parameter"):
        tilec.autotune(configs=CONFIGS, key=["m"])(tilec.jit(lambda x, n: None))


@pytest.mark.gpu
def test_gpu_timing_picks_a_config_and_runs_it():
    import cupy as cp

    add_one = _tuned(None)
    x = cp.arange(1 << 20, dtype=cp.float32)
    y = cp.zeros_like(x)
    add_one[lambda meta: (tilec.cdiv(x.size, meta["BLOCK"]),)](x, y, x.size)
    assert cp.array_equal(y, x + 1)
    [times] = add_one.timings.values()
    assert len(times) == 3 and all(t > 0 for t in times)
    assert list(add_one.best.values())[0] == CONFIGS[times.index(min(times))]


def test_the_gpu_timer_gives_seconds_per_launch(monkeypatch):
    """The default timer runs `warmup` launches untimed, then `rep` between two CUDA
    events, and returns seconds per launch (cupy's elapsed time is in milliseconds):
    here a stand-in `cupy` whose events measured 250 ms over 10 launches."""
    import sys
    import types

    from tilec.autotuning import _gpu_timer

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    cuda = types.SimpleNamespace(Event=Event, get_elapsed_time=lambda start, end: 250.0)
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    launches = []
    assert _gpu_timer(warmup=3, rep=10)(lambda: launches.append(1)) == 0.025
    assert len(launches) == 13
