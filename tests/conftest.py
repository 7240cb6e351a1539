"""Shared pytest configuration.

* Tests marked `gpu` are skipped where no GPU is found.
* Hypothesis runs the `ci` profile unless TILEC_HYPOTHESIS names another: `ci` is
  derandomized (the same inputs on every run, so CI is reproducible), `explore` draws new
  inputs each run (with TILEC_HYPOTHESIS_SCALE multiplying the counts that
  `helpers.budget.examples` gives). See docs/testing.md.
* The `routes` fixture forces copy routes for one test (api/copy_routes.py).
* The `launched_splits` fixture has the decode rule's splits summed by a second launch
  (`tilec.gemm.CLUSTER_SPLIT_K` off) for one test: the tests of that machinery.
* The run ends with the list of tests skipped because something they need is absent
  (a GPU, PyTorch, NVRTC, ...), so a green run says what it did not test.
* `TILEC_TEST_SHARD=k/n` keeps every n-th collected test from the k-th (0-based) and
  deselects the rest: `tests/run-all` runs n such processes at once, one a core, the
  tests dealt out in turn to the shard with the fewest, a module whose tests share a
  module-scoped fixture whole to one shard (`_dealt`).
"""

import contextlib
import functools
import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("TILEC_HYPOTHESIS", "ci"))


@functools.cache
def gpu_count() -> int:
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


@pytest.fixture(scope="session")
def nvrtc_available() -> bool:
    """Whether NVRTC can compile here (tests of compiled kernels skip without it)."""
    try:
        from tilec.runtime.nvrtc import nvrtc_version

        nvrtc_version()
        return True
    except (ImportError, OSError):
        return False


@pytest.fixture
def routes():
    """`routes(gather="always")` forces the copy routes named (api/copy_routes.py) until
    the test ends."""
    from tilec.copy_routes import forced_routes

    with contextlib.ExitStack() as stack:
        yield lambda **settings: stack.enter_context(forced_routes(**settings))


@pytest.fixture
def launched_splits(monkeypatch):
    """The decode rule without its cluster splits (`CLUSTER_SPLIT_K` off: a split is
    summed by a second launch) nor the tiles of M's halves (`DECODE_HALVES`) until the test
    ends; the rule's cache cleared around."""
    from tilec import gemm

    monkeypatch.setattr(gemm, "CLUSTER_SPLIT_K", False)
    monkeypatch.setattr(gemm, "DECODE_HALVES", False)
    gemm._decode_config.cache_clear()
    yield
    gemm._decode_config.cache_clear()


def shard_spec() -> tuple[int, int] | None:
    """`TILEC_TEST_SHARD=k/n` as (k, n), or None (every test): a malformed value is a
    usage error, not a silent full run."""
    spec = os.environ.get("TILEC_TEST_SHARD", "").strip()
    if not spec:
        return None
    try:
        k, n = (int(part) for part in spec.split("/"))
    except ValueError:
        raise pytest.UsageError(f"TILEC_TEST_SHARD={spec!r}: expected k/n, e.g. 0/2") from None
    if not 0 <= k < n:
        raise pytest.UsageError(f"TILEC_TEST_SHARD={spec!r}: k must be in [0, n)")
    return k, n


def _dealt(items: list, n: int) -> list[list]:
    """The collected tests dealt to n shards in collection order, each to the shard with
    the fewest so far; a module whose tests share a fixture of module, class or package
    scope goes whole to one shard, so that fixture is built once, as without shards."""
    groups: dict[str, list] = {}
    for item in items:
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        shared = any(d[-1].scope in ("module", "class", "package") for d in defs.values() if d)
        groups.setdefault(item.module.__name__ if shared and item.module else item.nodeid, []).append(item)
    shards: list[list] = [[] for _ in range(n)]
    for group in groups.values():
        min(shards, key=len).extend(group)
    return shards


def pytest_collection_modifyitems(config, items):
    shard = shard_spec()
    if shard is not None:
        k, n = shard
        kept = set(map(id, _dealt(items, n)[k]))
        config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept])
        items[:] = [item for item in items if id(item) in kept]
    if gpu_count() > 0:
        return
    skip = pytest.mark.skip(reason="no CUDA GPU (cupy.cuda.runtime.getDeviceCount() is 0 or failed)")
    for item in items:
        if item.get_closest_marker("gpu") is not None:  # the mark, not a parameter id that says "gpu"
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say which tests did not run for want of something, grouped by the reason."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    reasons: dict[str, int] = {}
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    terminalreporter.write_sep("-", "not run here, and why")
    for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{count:5d}  {reason}")
