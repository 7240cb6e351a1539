"""Packaging facts users rely on: one version everywhere, compatible dependency ranges that
admit the exact versions CI tests (constraints.txt), a changelog entry for the version,
and the `xdsl.universe` plugin that lets xDSL's tools load tilec's dialects and passes."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

import tilec

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = Version(version.strip())
    return pins


def test_one_version_everywhere():
    assert importlib.metadata.version("tilec") == tilec.__version__, "installed metadata is stale: pip install -e ."
    out = subprocess.run([BIN / "tilec", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"tilec {tilec.__version__}"


def test_changelog_has_an_entry_for_this_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{tilec.__version__}]" in text


def test_license_is_an_spdx_expression_with_its_file():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert importlib.metadata.metadata("tilec")["License-Expression"] == "Apache-2.0"


def test_dependencies_are_ranges_that_admit_the_tested_pins():
    """No `==` in pyproject (it would clash with users' other libraries); each pin of
    constraints.txt lies in its range, and each dependency has a pin."""
    pins = _pins()
    project = PYPROJECT["project"]
    reqs = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    assert reqs
    for text in reqs:
        req = Requirement(text)
        assert all(s.operator != "==" for s in req.specifier), text
        assert req.name.lower() in pins, f"{req.name} has no pin in constraints.txt"
        assert req.specifier.contains(pins[req.name.lower()]), f"{pins[req.name.lower()]} not in {text}"


def test_xdsl_opt_parses_a_layout_program_and_runs_a_tilec_pass():
    src = ROOT / "examples" / "transpose.mlir"
    r = subprocess.run([BIN / "xdsl-opt", src, "-p", "tile"], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "layout.launch grid" in r.stdout and "layout.tile %a" in r.stdout
    # what xdsl-opt printed is a tilec program tilec reads back
    m = tilec.parse(r.stdout, "xdsl-opt output")
    assert "layout.tile" in tilec.emit(m)


def test_xdsl_opt_runs_tilec_passes_as_tilec_does():
    src = ROOT / "examples" / "transpose.mlir"
    spec = "tile,distribute,vectorize"
    opt = subprocess.run([BIN / "xdsl-opt", src, "-p", spec], capture_output=True, text=True, check=True).stdout
    own = subprocess.run([BIN / "tilec", src, "-p", spec], capture_output=True, text=True, check=True).stdout
    assert opt.strip() == own.strip()
    assert "layout.launch" in own
