"""tests/run-all's shards (`TILEC_TEST_SHARD=k/n`, tests/conftest.py): every collected test
runs in exactly one shard, the shards' sizes differ by at most a module's, and a module
whose tests share a module-scoped fixture stays whole."""

from __future__ import annotations

import types

import pytest

import conftest


def _item(module: str, name: str, shared: bool):
    scope = "module" if shared else "function"
    fixture = types.SimpleNamespace(scope=scope)
    info = types.SimpleNamespace(name2fixturedefs={"f": (fixture,)})
    return types.SimpleNamespace(_fixtureinfo=info, module=types.SimpleNamespace(__name__=module),
                                 nodeid=f"{module}::{name}")


def test_every_test_in_one_shard_and_shared_modules_whole():
    items = [_item("a", f"t{i}", False) for i in range(7)] + [_item("b", f"t{i}", True) for i in range(4)] \
        + [_item("c", f"t{i}", False) for i in range(5)]
    for n in (1, 2, 3, 4):
        shards = conftest._dealt(items, n)
        ids = [item.nodeid for shard in shards for item in shard]
        assert sorted(ids) == sorted(item.nodeid for item in items)  # each once
        holders = {k for k, shard in enumerate(shards) for item in shard if item.module.__name__ == "b"}
        assert len(holders) == 1  # module b's four tests together
        sizes = [len(shard) for shard in shards]
        assert max(sizes) - min(sizes) <= 4


@pytest.mark.parametrize("spec", ["2/2", "x/2", "1", "-1/2"])
def test_a_malformed_shard_is_a_usage_error(spec, monkeypatch):
    monkeypatch.setenv("TILEC_TEST_SHARD", spec)
    with pytest.raises(pytest.UsageError):
        conftest.shard_spec()


def test_no_shard_is_every_test(monkeypatch):
    monkeypatch.delenv("TILEC_TEST_SHARD", raising=False)
    assert conftest.shard_spec() is None
    monkeypatch.setenv("TILEC_TEST_SHARD", "1/3")
    assert conftest.shard_spec() == (1, 3)
