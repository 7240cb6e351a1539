"""dev/mutation_sample.py's sampling (the mutants themselves are not run here): every
product folder is an area, each module lies in exactly one, and a sample's quota per
area is proportional with at least one from each."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ms():
    spec = importlib.util.spec_from_file_location("mutation_sample", ROOT / "dev" / "mutation_sample.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def test_the_whole_product_tree_is_sampled(ms):
    files = ms.mutated_files(list(ms.AREAS))
    assert set(files) == {"dialects", "passes", "compiler", "runtime/reference", "api"}
    every = [f for fs in files.values() for f in fs]
    assert len(every) == len(set(every))
    for must in ("passes/lower_to_gpu/view_ops.py", "compiler/cuda/printer.py", "runtime/reference/memory.py",
                 "api/copy_plan.py", "dialects/linear.py"):
        assert must in every
    assert all(ms.area_of(f) == area for area, fs in files.items() for f in fs)


def test_each_area_runs_tests_that_exist(ms):
    for name, area in ms.AREAS.items():
        assert area.pytest, name
        missing = [t for t in (*area.pytest, *area.lit) if not (ROOT / t).exists()]
        assert missing == [], name


def test_quotas_are_proportional_with_one_from_each_area(ms):
    q = ms.quotas({"a": 1000, "b": 3000, "c": 1}, 40)
    assert sum(q.values()) == 40 and q["c"] == 1 and q["b"] > 2 * q["a"]
    assert ms.quotas({"a": 3, "b": 2}, 60) == {"a": 3, "b": 2}
    drawn = ms.draw({"a": list(range(100)), "b": list(range(100, 110))}, 11, seed=0)
    assert len(drawn) == 11 == len(set(drawn)) and any(x >= 100 for x in drawn)
    assert drawn == ms.draw({"a": list(range(100)), "b": list(range(100, 110))}, 11, seed=0)


def test_the_mutant_script_picks_the_area_of_the_changed_file(ms, tmp_path):
    text = ms.write_test_script(tmp_path).read_text()
    assert "git diff --name-only" in text
    # runtime/reference/ is matched before any shorter folder could be
    assert text.index("runtime/reference/*)") < text.index("api/*)")
    assert "tests/unit/test_copy_overlap.py" in text


@pytest.fixture(scope="module")
def batch():
    sys.path.insert(0, str(ROOT / "dev"))
    spec = importlib.util.spec_from_file_location("mutation_batch", ROOT / "dev" / "mutation_batch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_annotation_only_mutants_are_recognised_and_nothing_else(batch):
    """A survivor whose change lies only in annotations of a module with `from __future__
    import annotations` is equivalent (never evaluated); a change of code, of an
    annotation's default value, or in a module without the import is not."""
    head = "from __future__ import annotations\n"
    f = "def f(x: int | None = None) -> str | None:\n    y: int | None = 3\n    return x\n"
    assert batch.annotation_only(head + f, head + f.replace("-> str | None", "-> str - None"))
    assert batch.annotation_only(head + f, head + f.replace("x: int | None", "x: int ** None"))
    assert batch.annotation_only(head + f, head + f.replace("y: int | None", "y: int % None"))
    assert not batch.annotation_only(head + f, head + f.replace("= 3", "= 4"))
    assert not batch.annotation_only(head + f, head + f.replace("= None)", "= 0)"))
    assert not batch.annotation_only(f, f.replace("-> str | None", "-> str - None"))
    assert not batch.annotation_only(head + f, head + f)


def test_a_booted_tree_imports_as_tilec_with_its_entry_points(batch, tmp_path):
    """`make_importable` writes the import mapping, the distribution's entry points (those
    of pyproject.toml) and the two commands, pointing at the given tree."""
    boot = batch.make_importable(tmp_path)
    assert str(tmp_path) in (boot / "sitecustomize.py").read_text()
    eps = (boot / "tilec-0.0.0.dist-info" / "entry_points.txt").read_text()
    assert "[console_scripts]\ntilec = tilec.tools.tilec:main" in eps
    assert "[xdsl.universe]\ntilec = tilec.universe:TILEC_UNIVERSE" in eps
    assert (boot / "bin" / "tilec").stat().st_mode & 0o111
