"""No IR written as text outside tests of the text format (issue 36): programs are built
with typed Python (`tilec.Program`, `@tilec.jit`, `GpuProgram`, xDSL's op classes).

The check reads every Python file of the product, the examples, the benchmarks and the
tests (`SCANNED`) and finds the string literals (plain or f-strings) that hold IR: an
op statement (`%x = arith.addi ...`, `memref.store %v, %b[%i] ...`), a function or
module header (`func.func @f(`, `gpu.module @k`, `builtin.module {`), or a type or
attribute alias (`!G = !layout.tensor<...>`). Docstrings and the operands of
comparisons (`assert "func.func @f(" in printed`: checks of what a program prints) are
not IR being written, and error messages name ops without being IR, so neither counts.

A file may hold IR text only where it is listed in `TEXT_FORMAT`, with the reason: its
purpose is the text format itself (the parser, the printer, diagnostics on text a user
wrote). Programs read from `.mlir` files (lit inputs, examples) are text by nature and
are not Python string literals; a module built in Python and printed (for a command
line, or to compare two printouts) is not a literal either."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("api", "benchmarks", "compiler", "dev", "dialects", "examples/python", "passes", "runtime", "support",
           "tools", "tests/unit", "tests/helpers", "tests/gpu", "tests/fuzz", "tests/gpu_level_samples.py")

_DIALECTS = r"(?:arith|builtin|cuda|func|gpu|layout|math|memref|nvvm|scf|vector)"
_HOLE = "\ufffc"
"""What an f-string's `{expression}` reads as (neither a bracket nor a name character)."""
IR = re.compile(
    r"%[\w$.#\ufffc]+(?::\d+)?\s*=\s*\"?" + _DIALECTS + r"\.\w+"        # %x = arith.addi / %x = "gpu.thread_id"
    r"|\b(?:func\.func|gpu\.func|gpu\.module)\s+(?:private\s+)?@"  # func.func @f(
    r"|\"(?:func\.func|gpu\.func|gpu\.module)\"\s*\("              # "gpu.module"() <{...}>
    r"|\bbuiltin\.module\s*(?:attributes\b|\{)"                    # builtin.module {
    r"|(?:^|\n)\s*\"?" + _DIALECTS + r"\.\w+\"?\s*[%({\[]"         # memref.store %v, ... at a line's start
    r"|(?:^|\n)\s*[!#][\w$\ufffc]+\s*=\s*[!#]?" + _DIALECTS + r"\.\w+"  # !G = !layout.tensor<...>
)

EDIT = re.compile(r"%[A-Za-z_][\w.$]*\s*[=,:()\[\]]|\b" + _DIALECTS + r"\.[a-z_]+\b")
"""What the text replaced by a `.replace(old, new)` call names when it edits IR: an SSA
value or an op."""

TEXT_FORMAT = {
    "tests/unit/test_no_ir_text.py":
        "this checker's own samples of what is IR text and what is not (test_the_checker_finds_ir_and_not_prose)",
    "tests/unit/test_user_mistakes.py::test_compiling_a_program_with_no_function_is_an_error":
        "tilec.compile takes IR text from a user (a .mlir file's contents): an empty module is refused",
    "tests/unit/test_launch_checks.py::test_invalid_ir_is_a_tilec_error":
        "text a user wrote that does not parse: the GPU-level parser's diagnostic",
    "tests/unit/test_mma_layouts.py::test_nvmma_shared_view_is_its_composed_layout":
        "the #layout.nvmma_shared syntax: parsed as the composed layout it equals, printed back as written",
    "tests/fuzz/generate.py":
        "the fuzzer writes .mlir files for the tilec command line and dev/device/sanitize.sh: text is its output",
    "tests/fuzz/test_cli_fuzz.py":
        "fuzzes the tilec command line, whose input is .mlir text (its parser and diagnostics included)",
    "tests/fuzz/test_known_bugs.py":
        "the fuzzer's findings, kept as the .mlir inputs of the tilec command line that showed them",
    "tests/fuzz/test_limits.py":
        "size limits checked through the tilec command line, on the .mlir text the fuzzer made necessary",
    "tests/unit/test_iterators.py::_function":
        "finds a function of a lit input (tests/filecheck/...) by its header: the lit file is the text",
}
"""`file::function` (or a whole file) whose IR text is the subject of the test, with why."""

def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    # an attribute's or a module constant's docstring (a string statement after an assignment)
    for n in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(n, field, None)
            if isinstance(body, list):
                for a, b in zip(body, body[1:]):
                    if isinstance(a, ast.Assign | ast.AnnAssign) and isinstance(b, ast.Expr) and \
                            isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
                        out.add(id(b.value))
    return out


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else _HOLE for v in node.values)
    return None


def _is_pattern_call(call: ast.Call) -> bool:
    """`re.search(...)`, `re.compile(...)`, ...: a pattern to find in printed text."""
    f = call.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "re"


def _checks_membership(loop: ast.For) -> bool:
    """The loop's body asks whether its variable is in something (`assert line in text`)."""
    names = {x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name)}
    return any(isinstance(c, ast.Compare) and isinstance(c.left, ast.Name) and c.left.id in names
               and isinstance(c.ops[0], ast.In | ast.NotIn) for stmt in loop.body for c in ast.walk(stmt))


def ir_literals(source: str, filename: str = "<source>") -> list[tuple[int, str, str]]:
    """(line, enclosing function, first line of text) of each string literal of the
    Python `source` that holds IR; the enclosing function is "" at module level."""
    tree = ast.parse(source, filename)
    skip = _docstrings(tree)
    owner: dict[int, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare):  # assert "func.func @f(" in printed: a check of output
            skip.update(id(x) for side in (n.left, *n.comparators) for x in ast.walk(side))
        if isinstance(n, ast.Call):  # re.search(pattern, text), pytest.raises(..., match=pattern)
            patterns = list(n.args[:1]) if _is_pattern_call(n) else []
            patterns += [k.value for k in n.keywords if k.arg == "match"]
            skip.update(id(x) for p in patterns for x in ast.walk(p))
        if isinstance(n, ast.For) and _checks_membership(n):  # for line in (...): assert line in text
            skip.update(id(x) for x in ast.walk(n.iter))
        if isinstance(n, ast.JoinedStr):
            skip.update(id(v) for v in n.values)  # the f-string counts once, as a whole
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
            for x in ast.walk(n):
                owner.setdefault(id(x), n.name) if x is not n else None
    edits = set()
    for n in ast.walk(tree):  # text.replace("<IR>", ...): an edit of a program's text
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "replace" and n.args:
            edits.add(id(n.args[0]))
    hits = []
    for n in ast.walk(tree):
        t = _text(n)
        if t is not None and id(n) not in skip and (IR.search(t) or id(n) in edits and EDIT.search(t)):
            hits.append((n.lineno, owner.get(id(n), ""), t.strip().split("\n")[0][:80]))
    return sorted(hits)


def _allowed(rel: str, function: str) -> bool:
    return rel in TEXT_FORMAT or f"{rel}::{function}" in TEXT_FORMAT


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for d in SCANNED:
        p = ROOT / d
        files += [p] if p.is_file() else sorted(p.rglob("*.py"))
    return files


def counts() -> dict[str, int]:
    """{file relative to the repository: its number of IR literals} over `SCANNED`."""
    out = {}
    for f in scanned_files():
        rel = str(f.relative_to(ROOT))
        if n := sum(not _allowed(rel, fn) for _, fn, _ in ir_literals(f.read_text(), rel)):
            out[rel] = n
    return out


if __name__ == "__main__":  # python tests/unit/test_no_ir_text.py: the table
    import sys

    for f in scanned_files():
        for line, fn, first in ir_literals(f.read_text(), str(f)):
            if "-v" in sys.argv:
                print(f"{f.relative_to(ROOT)}:{line}: [{fn}] {first}")
    c = counts()
    for k, v in c.items():
        print(f"{v:4d} {k}")
    print(f"{sum(c.values()):4d} in all")


def _where(rel: str) -> str:
    return "\n".join(f"  {rel}:{line}: {first}" for line, fn, first in ir_literals((ROOT / rel).read_text(), rel)
                     if not _allowed(rel, fn))


def test_no_ir_text_outside_the_text_format():
    """Every IR literal is in a text-format test (`TEXT_FORMAT`)."""
    found = counts()
    assert not found, "IR written as text: build it with typed Python (tilec.Program, GpuProgram, xDSL ops), " \
        "or, if the test is about the text format, list it in TEXT_FORMAT with the reason:\n" + \
        "\n".join(f"{f}: {n} literal(s)\n{_where(f)}" for f, n in found.items())


def test_every_allow_list_entry_is_used():
    """Each `TEXT_FORMAT` entry names a file (and function) that holds IR text, and says why."""
    for key, reason in TEXT_FORMAT.items():
        rel, _, function = key.partition("::")
        assert (ROOT / rel).is_file(), key
        assert len(reason) > 20, key
        hits = ir_literals((ROOT / rel).read_text(), rel)
        assert any(not function or fn == function for _, fn, _ in hits), f"{key}: no IR text there any more"


FLAGGED = [
    'M = """\nbuiltin.module {\n  func.func @f() {\n    func.return\n  }\n}\n"""',
    'body = f"""\n      %x = memref.load %src[%{i}] : memref<{n}xf32>"""',
    'text = "gpu.barrier {}\\n" + tail\nbad = text.replace("%c4 = arith.constant 4", "%c4 = arith.constant 5")',
    'bad = text.replace("    layout.barrier\\n", "")',
    'bad = text.replace("%N[(%m0, %m1)]", "%N[(%m, %m1)]")',
    'A = """\n!G = !layout.tensor<f32, #layout.cute<64:1>, gmem>\n"""',
    'K = \'"gpu.module"() <{sym_name = "k"}> ({\'',
    'def f(n):\n    return f"func.func @copy(%src: memref<{n}xf32>) {{ func.return }}"',
    'S = """\n      memref.store %v, %dst[%i] : memref<8xf32>"""',
]
NOT_FLAGGED = [
    '"""Lowers layout.copy: %x = arith.addi feeds memref.store %v (a docstring)."""',
    'def f():\n    """func.func @f() { func.return } in a docstring."""',
    'raise TilecError(f"expected a gpu.func, got {op.name}: layout.mma {m}x{n}x{k} per warp")',
    'assert "func.func @transpose(%src: !layout.ptr<f32, align 16>" in out',
    'assert re.search(r"%tphase_1 = arith.remui %q_1, %c2 : index", text)',
    'with pytest.raises(ExecutionError, match=r"%x = arith.addi"):\n    pass',
    'for line in ("%q = arith.remui", "arith.divui %tid"):\n    assert line in text',
    'OPS = frozenset({"builtin.module", "gpu.module"})',
    'enc = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8]}>"',
    'name = title.replace("_", "").replace("1048576", "8192")',
]


def test_the_checker_finds_ir_and_not_prose():
    for src in FLAGGED:
        assert ir_literals(src), src
    for src in NOT_FLAGGED:
        assert not ir_literals(src), src
