"""Readable GPU-level test programs.

xDSL 0.74's `gpu` ops have no custom syntax, so GPU-level text must spell them in the
generic form. `desugar` rewrites the usual MLIR spellings into it, line for line (so
that the `file:line:col` of an error points into the test's own text):

    gpu.module @k {                                   "gpu.module"() <{sym_name = "k"}> ({
      gpu.func @f(%a: memref<8xf32>) kernel           "gpu.func"() <{function_type = ..., kernel}> ({
          attributes {gpu.known_block_size = ...} {     ^bb0(%a: memref<8xf32>):
        %t = gpu.thread_id x                          %t = "gpu.thread_id"() <{dimension = ...}> ...
        gpu.barrier                                   "gpu.barrier"() : () -> ()
        gpu.return                                    "gpu.return"() : () -> ()
      }                                               }) {sym_name = "f", ...} : () -> ()
    }                                                 }) : () -> ()
    gpu.launch_func @k::@f blocks in (%gx, %c1, %c1) threads in (%tx, %c1, %c1)
        args(%a : memref<8xf32>)                      "gpu.launch_func"(...) <{...}> : (...) -> ()

(`gpu.func` headers and `gpu.launch_func` must each be on one line.)
"""

from __future__ import annotations

import re

_ID_OPS = ("thread_id", "block_id", "block_dim", "grid_dim", "global_id")

_FUNC = re.compile(
    r"^(\s*)gpu\.func\s+@(\w+)\((.*?)\)\s*(kernel)?\s*(?:attributes\s*(\{.*\}))?\s*\{\s*$"
)
_MODULE = re.compile(r"^(\s*)gpu\.module\s+@(\w+)\s*\{\s*$")
_LAUNCH = re.compile(
    r"^(\s*)gpu\.launch_func\s+(@[\w:@]+)\s+blocks\s+in\s+\(([^)]*)\)\s+threads\s+in\s+"
    r"\(([^)]*)\)\s*(?:args\((.*)\))?\s*$"
)


def split_top(text: str) -> list[str]:
    """Split on commas outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _typed(args: str) -> tuple[list[str], list[str]]:
    names, types = [], []
    for a in split_top(args):
        name, _, t = a.partition(":")
        names.append(name.strip())
        types.append(t.strip())
    return names, types


def desugar(text: str) -> str:
    out: list[str] = []
    closers: list[tuple[int, str]] = []  # (brace depth at open, closing text)
    depth = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if m := _MODULE.match(line):
            ind, name = m.groups()
            closers.append((depth, f'{ind}}}) : () -> ()'))
            out.append(f'{ind}"gpu.module"() <{{sym_name = "{name}"}}> ({{')
            depth += 1
            continue
        if m := _FUNC.match(line):
            ind, name, args, kernel, attrs = m.groups()
            _, types = _typed(args)
            props = f"function_type = ({', '.join(types)}) -> ()"
            if kernel:
                props += ", kernel"
            extra = f'sym_name = "{name}"'
            if attrs:
                inner = attrs.strip()[1:-1].strip()
                if inner:
                    extra += ", " + inner
            closers.append((depth, f"{ind}}}) {{{extra}}} : () -> ()"))
            out.append(f"{ind}\"gpu.func\"() <{{{props}}}> ({{ ^bb0({args}):")
            depth += 1
            continue
        if m := _LAUNCH.match(line):
            ind, sym, grid, block, args = m.groups()
            g, b = split_top(grid), split_top(block)
            names, types = _typed(args or "")
            operands = ", ".join([*g, *b, *names])
            all_types = ", ".join(["index"] * 6 + types)
            out.append(
                f'{ind}"gpu.launch_func"({operands}) <{{kernel = {sym}, '
                f"operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, "
                f"{len(names)}, 0>}}> : ({all_types}) -> ()"
            )
            continue
        if stripped == "}" and closers and closers[-1][0] == depth - 1:
            depth -= 1
            out.append(closers.pop()[1])
            continue
        line = _desugar_simple(line)
        depth += line.count("{") - line.count("}")
        out.append(line)
    return "\n".join(out)


def _desugar_simple(line: str) -> str:
    for name in _ID_OPS:
        line = re.sub(
            rf"gpu\.{name}\s+([xyz])\b",
            rf'"gpu.{name}"() <{{dimension = #gpu<dim \1>}}> : () -> index',
            line,
        )
    line = re.sub(r"gpu\.lane_id\b(?!\")", '"gpu.lane_id"() : () -> index', line)
    line = re.sub(r"^(\s*)gpu\.barrier\s*$", r'\1"gpu.barrier"() : () -> ()', line)
    line = re.sub(r"^(\s*)gpu\.return\s*$", r'\1"gpu.return"() : () -> ()', line)
    return line


def parse_gpu(text: str, name: str = "test.mlir"):
    """Desugar and parse with tilec's parser (which records op locations)."""
    from tilec.compiler.pipeline import parse_module

    return parse_module(desugar(text), name)
