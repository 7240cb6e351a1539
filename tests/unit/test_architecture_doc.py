"""docs/architecture.md is true of the tree: every product module is named in the row
of its folder's table, and the data path shows every pass of the default pipeline."""

from __future__ import annotations

import re
from pathlib import Path

from tilec.compiler.pipeline import NAMED_PIPELINES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text()
PRODUCT = ("support", "dialects", "passes", "compiler", "runtime", "api", "tools")


def _rows() -> dict[str, str]:
    """The table's rows by folder (`| `passes/lower_to_gpu/` | ... |`)."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([\w/]+)/` \| (.*) \|$", DOC, re.M)}


def _modules() -> list[Path]:
    return sorted(
        p.relative_to(ROOT)
        for folder in PRODUCT
        for p in (ROOT / folder).rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    )


def test_every_product_module_is_named_in_its_folders_row():
    rows = _rows()
    unnamed = []
    for path in _modules():
        folder = max((f for f in rows if str(path.parent) == f or str(path.parent).startswith(f + "/")), key=len,
                     default=None)
        if folder is None or f"`{path.name}`" not in rows[folder] and f"{path.stem}.py" not in rows[folder]:
            unnamed.append(f"{path} (row {folder!r})")
    assert unnamed == [], f"modules docs/architecture.md does not name in their folder's row: {unnamed}"


def test_every_product_folder_has_a_row():
    folders = {str(p.parent) for p in _modules()}
    assert sorted(folders - set(_rows())) == []


def test_the_data_path_shows_every_default_pass():
    path = DOC[DOC.index("## The data path"):DOC.index("| folder | holds |")]
    passes = NAMED_PIPELINES["default"].split(",")
    assert len(passes) == 27
    missing = [p for p in passes if not re.search(rf"\|\s+{re.escape(p)}(?!\w)", path)]
    assert missing == [], f"default passes missing from the data path of docs/architecture.md: {missing}"


def test_the_lab_is_not_installed():
    """dev/ (and benchmarks/, examples/, tests/) stay out of the package: pyproject maps
    exactly the product folders."""
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert sorted(set(conf["package-dir"].values())) == sorted(PRODUCT)
    assert not any(p.startswith("tilec.dev") for p in conf["packages"])
    assert not (ROOT / "tools" / "mutation_sample.py").exists() and (ROOT / "dev" / "mutation_sample.py").exists()
