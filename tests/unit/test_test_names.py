"""Every name a test module reads is defined: imported or assigned at module level,
local to its function, or a builtin.

The GPU tests (tests/gpu) skip where there is no GPU, so a name a GPU test reads but
never imports fails only on the GPU machine: `test_strided_set_patterns_in_small_match_torch_bit_for_bit`
read `key_strategy` (imported locally by its neighbours, not by it) and failed with a
NameError on the H200 for a whole session. This check reads the modules' symbol
tables (Python's `symtable`), so it runs on the CPU in a fraction of a second. A read
of a name left undefined on purpose carries `# noqa: F821` on its line.
"""

from __future__ import annotations

import ast
import builtins
import pathlib
import symtable

import pytest

TESTS = pathlib.Path(__file__).resolve().parents[1]
MODULE_NAMES = set(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__builtins__"}


def undefined_names(text: str, filename: str) -> list[tuple[int, str]]:
    """(line, name) of each read of a global name that `text` neither imports nor
    assigns at module level and that is not a builtin, except on lines marked
    `# noqa: F821`."""
    top = symtable.symtable(text, filename, "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()} | MODULE_NAMES
    missing = {(0, s.get_name()) for s in top.get_symbols() if s.is_referenced() and s.get_name() not in defined}
    stack = list(top.get_children())
    while stack:
        table = stack.pop()
        stack.extend(table.get_children())
        missing |= {(table.get_lineno(), s.get_name()) for s in table.get_symbols()
                    if s.is_referenced() and s.is_global() and s.get_name() not in defined}
    # the reads, in the scopes (by their first line) whose tables found the names missing
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.GeneratorExp,
              ast.ListComp, ast.SetComp, ast.DictComp)
    tree = ast.parse(text, filename)
    lines = text.splitlines()
    found = set()
    for scope_line, name in missing:
        roots = [tree] if scope_line == 0 else [
            n for n in ast.walk(tree) if isinstance(n, scopes) and n.lineno == scope_line
        ]
        found |= {
            (node.lineno, node.id) for root in roots for node in ast.walk(root)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id == name
            and "noqa: F821" not in lines[node.lineno - 1]
        }
    return sorted(found)


def test_a_name_read_but_never_imported_is_found():
    text = (
        "from helpers.canonical_copies import key_strategy as ks\n"
        "import math\n"
        "X = 1\n"
        "def f(keys):\n"
        "    y = math.pi + X + len(keys)\n"
        "    assert any(key_strategy(k) for k in keys)\n"
        "    return ks, y, undefined_name  # noqa: F821\n"
    )
    assert undefined_names(text, "t.py") == [(6, "key_strategy")]


@pytest.mark.parametrize("path", sorted(TESTS.rglob("*.py")), ids=lambda p: str(p.relative_to(TESTS)))
def test_every_test_module_reads_only_defined_names(path):
    assert undefined_names(path.read_text(), str(path)) == []
