"""The kernel cache: memory and disk hits, corrupted entries, concurrent writers."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_level_samples as S  # noqa: E402
from tilec.runtime import cache as cache_module  # noqa: E402
from tilec.runtime.cache import KernelCache, default_cache_dir  # noqa: E402
from tilec.runtime.launch import Kernel  # noqa: E402

ARCH = "sm_90"
SOURCE = 'extern "C" __global__ void add_one(float* p) { p[threadIdx.x] += 1.0f; }\n'


def entries(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*.tilec"))


def test_second_compile_is_a_hit(tmp_path):
    cache = KernelCache(tmp_path)
    first = cache.compile(SOURCE, arch=ARCH)
    assert (cache.stats.misses, cache.stats.compiles, cache.stats.hits) == (1, 1, 0)
    second = cache.compile(SOURCE, arch=ARCH)
    assert second is first
    assert (cache.stats.compiles, cache.stats.memory_hits) == (1, 1)

    # A new process (a new cache object on the same directory) compiles nothing.
    again = KernelCache(tmp_path)
    third = again.compile(SOURCE, arch=ARCH)
    assert (again.stats.compiles, again.stats.disk_hits, again.stats.misses) == (0, 1, 0)
    assert third.cubin == first.cubin and third.ptx == first.ptx and third.log == first.log
    assert third.arch == "sm_90" and third.options == first.options
    assert len(entries(tmp_path)) == 1


def test_key_covers_source_options_and_arch(tmp_path):
    cache = KernelCache(tmp_path)
    cache.compile(SOURCE, arch=ARCH)
    cache.compile(SOURCE, arch="sm_80")
    cache.compile(SOURCE, arch=ARCH, options=("-DEXTRA=1",))
    cache.compile(SOURCE.replace("1.0f", "2.0f"), arch=ARCH)
    assert cache.stats.compiles == 4
    assert len(entries(tmp_path)) == 4
    cache.compile(SOURCE, arch="90")  # the same architecture, spelled differently
    assert cache.stats.compiles == 4


def test_location_comments_are_not_part_of_the_key(tmp_path):
    """The same kernel built from another line of the user's code (its `// file:line:col`
    comments differ) hits the entry; a comment's text never changes the key, a line more
    (the line numbers of `-lineinfo`) or a change of code does."""
    here = "// /home/user/model.py:12:5\n" + SOURCE
    there = "  // /home/user/other_script.py:907:13\n" + SOURCE
    key = cache_module.cache_key(here, ("-x",), ARCH)
    assert cache_module.cache_key(there, ("-x",), ARCH) == key
    assert cache_module.cache_key("//\n//\n" + SOURCE, ("-x",), ARCH) != key
    assert cache_module.cache_key(here.replace("1.0f", "2.0f"), ("-x",), ARCH) != key
    assert cache_module.code_of("x = 1; // kept: code before it\n  // gone\n") == "x = 1; // kept: code before it\n//\n"
    cache = KernelCache(tmp_path)
    cache.compile(here, arch=ARCH)
    cache.compile(there, arch=ARCH)
    assert cache.stats.compiles == 1 and len(entries(tmp_path)) == 1


def test_versions_are_part_of_the_key(monkeypatch):
    key = cache_module.cache_key(SOURCE, ("-x",), ARCH)
    monkeypatch.setattr(cache_module, "_versions", lambda: ("0.0.0", "1.0"))
    assert cache_module.cache_key(SOURCE, ("-x",), ARCH) != key


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage", "header"])
def test_corrupted_entry_is_recompiled(tmp_path, damage):
    original = KernelCache(tmp_path).compile(SOURCE, arch=ARCH)
    (path,) = entries(tmp_path)
    data = path.read_bytes()
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data = data[:-50] + bytes([data[-50] ^ 0xFF]) + data[-49:]
    elif damage == "empty":
        data = b""
    elif damage == "garbage":
        data = b"\x7fELF not a cache entry"
    else:
        data = data.replace(b'"cubin": ', b'"cubin": 1', 1)
    path.write_bytes(data)

    cache = KernelCache(tmp_path)
    result = cache.compile(SOURCE, arch=ARCH)
    assert (cache.stats.corrupt, cache.stats.compiles, cache.stats.disk_hits) == (1, 1, 0)
    assert result.cubin == original.cubin
    # The entry was rewritten whole: the next process hits it.
    fresh = KernelCache(tmp_path)
    fresh.compile(SOURCE, arch=ARCH)
    assert (fresh.stats.disk_hits, fresh.stats.compiles, fresh.stats.corrupt) == (1, 0, 0)


def test_memory_only_cache_writes_nothing(tmp_path):
    cache = KernelCache(tmp_path, disk=False)
    cache.compile(SOURCE, arch=ARCH)
    cache.compile(SOURCE, arch=ARCH)
    assert (cache.stats.compiles, cache.stats.memory_hits) == (1, 1)
    assert entries(tmp_path) == []


def test_unwritable_directory_still_compiles(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = KernelCache(blocker / "cache")
    assert cache.compile(SOURCE, arch=ARCH).cubin


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("TILEC_CACHE_DIR")
    assert default_cache_dir() == Path("~/.cache/tilec").expanduser()


def _compile_in_child(directory: str, source: str, queue) -> None:
    cache = KernelCache(directory)
    result = cache.compile(source, arch=ARCH)
    queue.put((result.cubin, cache.stats.compiles, cache.stats.disk_hits))


def test_concurrent_processes(tmp_path):
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    sources = [SOURCE, SOURCE, SOURCE, SOURCE.replace("1.0f", "3.0f")]
    children = [
        context.Process(target=_compile_in_child, args=(str(tmp_path), s, queue))
        for s in sources
    ]
    for child in children:
        child.start()
    results = [queue.get(timeout=120) for _ in children]
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    assert len({cubin for cubin, _, _ in results}) == 2
    assert not list(tmp_path.rglob("*.tmp"))  # no temporary file left behind
    assert len(entries(tmp_path)) == 2
    cache = KernelCache(tmp_path)
    for s in set(sources):
        cache.compile(s, arch=ARCH)
    assert (cache.stats.compiles, cache.stats.corrupt, cache.stats.disk_hits) == (0, 0, 2)


def test_kernel_uses_the_cache(tmp_path):
    cache = KernelCache(tmp_path)
    first = Kernel(S.copy_1d("f32"), arch=ARCH, cache=cache)
    assert cache.stats.compiles == 1
    second = Kernel(S.copy_1d("f32"), arch=ARCH, cache=KernelCache(tmp_path))
    assert second.cache.stats.compiles == 0 and second.cache.stats.disk_hits == 1
    assert second.cubin == first.cubin
    assert "copy_kernel" in second.resource_usage()


@pytest.mark.parametrize("off", ["0", "off", "false"])
def test_tilec_cache_0_bypasses_the_disk(tmp_path, monkeypatch, off):
    """`TILEC_CACHE=0`: nothing read from or written to `$TILEC_CACHE_DIR`, for compiled
    kernels and for `tilec.copy_`'s kernels on disk."""
    from tilec.copy_kernels import DISK_KIND
    from tilec.runtime.cache import default_cache_dir, load_launch

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    KernelCache().compile(SOURCE, arch=ARCH)  # written while the cache is on
    assert len(entries(tmp_path)) == 1
    monkeypatch.setenv("TILEC_CACHE", off)
    cache = KernelCache()
    assert cache.directory == tmp_path and not cache.disk
    cache.compile(SOURCE, arch=ARCH)
    assert (cache.stats.disk_hits, cache.stats.compiles) == (0, 1)
    assert default_cache_dir() / DISK_KIND == tmp_path / "copy"
    assert load_launch(DISK_KIND, None) is None  # never looks
