"""docs/dialect.md and docs/passes.md are generated from the docstrings
(`python -m tilec.tools.gen_docs`); this fails when the committed pages are stale."""

from __future__ import annotations

import difflib

import pytest

from tilec.tools import gen_docs


@pytest.mark.parametrize("name", sorted(gen_docs.PAGES))
def test_committed_docs_are_up_to_date(name):
    path = gen_docs.DOCS_DIR / name
    assert path.exists(), f"{path} is missing: run python -m tilec.tools.gen_docs"
    want = gen_docs.PAGES[name]()
    have = path.read_text(encoding="utf-8")
    if have != want:
        diff = "".join(
            list(difflib.unified_diff(have.splitlines(True), want.splitlines(True), f"committed {name}", f"generated {name}"))[:40]
        )
        pytest.fail(f"{path} is stale: run python -m tilec.tools.gen_docs\n{diff}")


def test_every_op_attribute_and_pass_is_documented():
    from tilec.dialects.layout import Layout
    from tilec.passes import tilec_passes

    dialect = gen_docs.dialect_md()
    for op in Layout.operations:
        assert f"### `{op.name}`" in dialect
    for attr in Layout.attributes:
        assert f"{attr.name}` (" in dialect
    passes = gen_docs.passes_md()
    for cls in tilec_passes():
        assert f"## `{cls.name}`" in passes


def test_check_flag(tmp_path, capsys):
    assert gen_docs.main(["--out", str(tmp_path)]) == 0
    assert gen_docs.main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "passes.md").write_text("old\n")
    assert gen_docs.main(["--out", str(tmp_path), "--check"]) == 1
    assert "passes.md is stale" in capsys.readouterr().err
