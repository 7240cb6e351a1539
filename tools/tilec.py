"""`tilec`: the command line, in the style of `mlir-opt` / `xdsl-opt`.

    tilec FILE [-p PIPELINE] [-t mlir|cuda] [-o OUT]
    tilec FILE --run cpu|gpu [--seed N] [--check]
    tilec FILE -p PIPELINE --check-equivalence [--check-each]
    tilec FILE --compile-only [--arch sm_90]
    tilec show-layout LAYOUT [--shape MxN] [--svg OUT.svg]
    tilec --list-passes

A thin layer over `tilec.compiler` and `tilec.runtime`: every user error ends in one
message with a location and exit status 1. Long work (several chunks, --run,
--compile-only, --check-equivalence) shows a progress line on stderr when stderr is a
terminal, and nothing otherwise (tools/progress.py).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from dataclasses import dataclass

from tilec import __version__
from tilec.support.diagnostics import TilecError
from tilec.tools.cli_args import ArgumentParser


class _HelpWithPasses(argparse.Action):
    """`-h`: argparse's help, then every pass with its options and the named pipelines
    (what `--list-passes` prints)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.print_help()
        sys.stdout.write("\n" + list_passes())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="tilec",
        description="tilec: a compiler for GPU data movement (layouts, views and copies as IR).",
        epilog="Subcommand: `tilec show-layout LAYOUT` renders a layout (see `tilec show-layout -h`).",
        add_help=False,
    )
    p.add_argument("-h", "--help", action=_HelpWithPasses,
                   help="show this help, the passes with their options and the named pipelines, then exit")
    p.add_argument("input_file", nargs="?", help="IR file to read (default: stdin)")
    p.add_argument("-p", "--passes", action="append", default=[],
                   help="pass pipeline, e.g. 'tile{tile=64,64},distribute' or 'default' (given once: "
                        "passes are separated by commas; `tilec --list-passes` shows each pass's options)")
    p.add_argument("--pass-pipeline", action="append", default=[], metavar="'builtin.module(PASSES)'",
                   help="the pipeline in MLIR's spelling, e.g. 'builtin.module(tile,distribute)'; the same as -p PASSES")
    p.add_argument("-t", "--target", default="mlir", help="output: mlir (default) or cuda")
    p.add_argument("-o", "--output-file", help="write output here instead of stdout")
    p.add_argument("--split-input-file", action="store_true", help="process chunks separated by `// -----` independently")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check errors against `// expected-error @+N {{...}}` annotations")
    p.add_argument("--print-between-passes", action="store_true", help="print the IR after every pass")
    p.add_argument("--print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--time-passes", action="store_true", help="print how long each pass took")
    p.add_argument("--list-passes", action="store_true", help="list passes and named pipelines, then exit")
    p.add_argument("--run", choices=("cpu", "gpu"), help="run each function on random inputs")
    p.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")
    p.add_argument("--arg", action="append", default=[], metavar="NAME=INT",
                   help="with --run or --check-equivalence: the value of index argument %%NAME, or "
                        "the number of elements of buffer %%NAME where the IR does not fix it "
                        "(repeatable; overrides the function's tilec.args attribute)")
    p.add_argument("--check", action="store_true", help="with --run gpu: compare with the CPU reference executor")
    p.add_argument("--check-equivalence", action="store_true",
                   help="run the program before and after the pipeline on the same inputs and compare")
    p.add_argument("--check-each", action="store_true", help="with --check-equivalence: compare after every pass")
    p.add_argument("--compile-only", action="store_true", help="compile to cubin with NVRTC and report resources")
    p.add_argument("--arch", default=None, help="GPU architecture for --compile-only (default: the device's, or sm_90)")
    p.add_argument("--version", action="version", version=f"tilec {__version__}")
    return p


@dataclass
class Chunk:
    text: str
    line_offset: int


def split_chunks(text: str, split: bool) -> list[Chunk]:
    if not split:
        return [Chunk(text, 0)]
    out, line = [], 0
    for piece in re.split(r"^// -----[ \t]*$", text, flags=re.M):
        out.append(Chunk(piece, line))
        line += piece.count("\n")
    return out


def list_passes() -> str:
    import dataclasses

    from tilec.compiler.pipeline import NAMED_PIPELINES, available_passes, pass_description

    lines = ["Passes (options: -p 'NAME{option=value option=value}'):"]
    for name, factory in sorted(available_passes().items()):
        cls = factory()
        lines.append(f"  {name:28s} {pass_description(cls)}")
        if dataclasses.is_dataclass(cls):
            for f in dataclasses.fields(cls):
                if f.name == "name" or not f.init:
                    continue
                default = f.default if f.default is not dataclasses.MISSING else (
                    f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
                kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
                lines.append(f"  {'':28s}   {f.name}: {kind} = {default!r}")
    lines.append("Named pipelines:")
    for name, spec in NAMED_PIPELINES.items():
        lines.append(f"  {name:28s} {spec}")
    return "\n".join(lines) + "\n"


def pipeline_of(args) -> str:
    """The one pipeline of the command line: `-p PASSES` or MLIR's
    `--pass-pipeline='builtin.module(PASSES)'`. Given twice it is an error (as in
    `mlir-opt`), not a silent replacement of the first."""
    given = [("-p", p) for p in args.passes] + [("--pass-pipeline", p) for p in args.pass_pipeline]
    if len(given) > 1:
        raise TilecError("the pipeline is given " + str(len(given)) + " times (" + ", ".join(
            f"{flag} '{spec}'" for flag, spec in given) + "): give it once, its passes separated by "
            "commas, e.g. -p 'tile,distribute'")
    if not given:
        return ""
    flag, spec = given[0]
    if flag == "--pass-pipeline":
        m = re.fullmatch(r"\s*builtin\.module\((.*)\)\s*", spec, flags=re.S)
        if not m:
            raise TilecError(f"--pass-pipeline '{spec}': expected 'builtin.module(PASSES)', e.g. "
                             "--pass-pipeline='builtin.module(tile,distribute)'")
        spec = m.group(1)
    return spec


def check_flags(args) -> None:
    """Flags that only mean something beside others: refuse them alone rather than
    ignore them."""
    if args.check_each and not args.check_equivalence:
        raise TilecError("--check-each compares after every pass of --check-equivalence: add --check-equivalence")
    if args.arg and not (args.run or args.check_equivalence):
        raise TilecError("--arg gives the inputs of --run or --check-equivalence: add one of them")
    if args.check and args.run != "gpu":
        raise TilecError("--check compares a --run gpu with the CPU reference executor: add --run gpu")


def check_arg_names(module, values: dict[str, int]) -> None:
    """Every `--arg NAME=INT` names an argument of a function of the module."""
    from xdsl.dialects import func

    from tilec.runtime.reference.api import arg_names

    names: list[str] = []
    for op in module.walk():
        if isinstance(op, func.FuncOp) and not op.is_declaration:
            names.extend(n for n in arg_names(op) if n not in names)
    for name in values:
        if name not in names:
            known = ", ".join("%" + n for n in names) or "none"
            raise TilecError(f"--arg {name}=...: no function has an argument %{name} (arguments: {known})")


def parse_arg_values(items: list[str]) -> dict[str, int]:
    """`--arg NAME=INT` values: index arguments and buffer sizes by argument name."""
    from tilec.support.diagnostics import TilecError

    out: dict[str, int] = {}
    for item in items:
        name, eq, value = item.partition("=")
        name = name.strip().removeprefix("%")
        try:
            n = int(value, 0)
        except ValueError:
            n = None
        if not eq or not name or n is None:
            raise TilecError(f"--arg {item}: expected NAME=INT, e.g. --arg n=1024")
        out[name] = n
    return out


def process_chunk(args, chunk: Chunk, name: str, out) -> None:
    from tilec.compiler.pipeline import emit, parse_module, run_pipeline

    module = parse_module(chunk.text, name, line_offset=chunk.line_offset)
    values = parse_arg_values(args.arg)
    check_arg_names(module, values)
    if args.check_equivalence:
        from tilec.runtime.reference.cli import check_equivalence_cli

        out.write(check_equivalence_cli(module, args.passes, seed=args.seed, each=args.check_each,
                                        values=values))
        return
    if args.passes:
        timings: list[tuple[str, float]] | None = [] if args.time_passes else None
        between = None
        if args.print_between_passes:
            def between(pass_name, m):
                out.write(f"// -----// IR after {pass_name} //----- //\n{emit(m)}")
        run_pipeline(module, args.passes, print_between=between, timings=timings)
        for pass_name, secs in timings or []:
            sys.stderr.write(f"pass {pass_name}: {secs * 1000:.2f} ms\n")
    if args.run == "cpu":
        from tilec.runtime.reference.cli import run_cpu_cli

        out.write(run_cpu_cli(module, seed=args.seed, values=values))
        return
    if args.run == "gpu":
        from tilec.runtime.cli import run_gpu_cli

        out.write(run_gpu_cli(module, seed=args.seed, check=args.check, values=values))
        return
    if args.compile_only:
        from tilec.runtime.cli import compile_only_cli

        out.write(compile_only_cli(module, arch=args.arch))
        return
    out.write(emit(module, args.target, generic=args.print_op_generic))


# ------------------------------------------------------------------ --verify-diagnostics

_EXPECT = re.compile(r"//\s*expected-(error|warning|note|remark)\s*(@[+-]?\d+|@above|@below)?\s*\{\{(.*?)\}\}")


def expected_diagnostics(text: str, line_offset: int) -> list[tuple[int, str]]:
    """(line, message) of each `// expected-error @+N {{message}}` in the chunk."""
    out = []
    for i, line in enumerate(text.split("\n")):
        for m in _EXPECT.finditer(line):
            where, msg = m.group(2), m.group(3)
            target = i + 1
            if where in ("@above",):
                target -= 1
            elif where == "@below":
                target += 1
            elif where:
                target += int(where[1:])
            out.append((target + line_offset, msg))
    return out


def verify_diagnostics(args, chunk: Chunk, name: str) -> list[str]:
    """Run a chunk; return the mismatches between expected and produced errors."""
    expected = expected_diagnostics(chunk.text, chunk.line_offset)
    produced: list[tuple[int | None, str]] = []
    try:
        from io import StringIO

        process_chunk(args, chunk, name, StringIO())
    except TilecError as e:
        line = None
        if e.loc and (m := re.match(r".*:(\d+):(\d+)$", e.loc)):
            line = int(m.group(1))
        produced.append((line, e.message))
    problems = []
    for line, msg in expected:
        if not any(pl == line and msg in pm for pl, pm in produced):
            got = "; ".join(f"line {pl}: {pm}" for pl, pm in produced) or "no error"
            problems.append(f"{name}:{line}: expected error '{msg}' was not produced (got: {got})")
    for pl, pm in produced:
        if not any(pl == line and msg in pm for line, msg in expected):
            problems.append(f"{name}:{pl}: unexpected error: {pm}")
    return problems


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv and argv[0] == "show-layout":
            from tilec.tools.show_layout import main as show_layout_main

            return show_layout_main(argv[1:])
        args = build_parser().parse_args(argv)
        return run(args)
    except TilecError as e:
        sys.stderr.write(f"{e}\n" if e.loc else f"tilec: error: {e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("tilec: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug in tilec, not the user's mistake
        if os.environ.get("TILEC_TRACEBACK"):
            raise
        sys.stderr.write(
            f"tilec: internal error: {type(e).__name__}: {e} "
            "(this is a bug in tilec; set TILEC_TRACEBACK=1 for the traceback)\n"
        )
        return 2


def run(args) -> int:
    if args.list_passes:
        sys.stdout.write(list_passes())
        return 0
    name = args.input_file or "<stdin>"
    try:
        if args.input_file in (None, "-"):
            text = sys.stdin.read()
        else:
            with open(args.input_file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or f"not a UTF-8 text file ({e.reason})"
        raise TilecError(f"cannot read '{name}': {why}", loc=name) from None
    check_flags(args)
    args.passes = pipeline_of(args)
    if args.passes:
        from tilec.compiler.pipeline import build_pipeline

        build_pipeline(args.passes)  # report a bad -p before reading anything else
    chunks = split_chunks(text, args.split_input_file)
    if args.verify_diagnostics:
        problems = [p for c in chunks for p in verify_diagnostics(args, c, name)]
        for p in problems:
            sys.stderr.write(p + "\n")
        return 1 if problems else 0
    out = sys.stdout
    if args.output_file:
        try:
            out = open(args.output_file, "w", encoding="utf-8")
        except OSError as e:
            raise TilecError(f"cannot write '{args.output_file}': {e.strerror}") from None
    from tilec.tools.progress import Progress

    try:
        with Progress(len(chunks), enabled=None if shows_progress(args, chunks) else False) as progress:
            for i, c in enumerate(chunks):
                if i:
                    out.write("// -----\n")
                progress.step(progress_text(args, c, i))
                # on a terminal, a chunk's output waits until its progress line is erased
                sink = io.StringIO() if progress.enabled else out
                try:
                    process_chunk(args, c, name, sink)
                finally:
                    progress.clear()
                    if sink is not out:
                        out.write(sink.getvalue())
                        out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


# ------------------------------------------------------------------ progress line

_FUNC_NAME = re.compile(r"\bfunc\.func\s+(?:\w+\s+)?@([\w$.-]+)")


def shows_progress(args, chunks: list[Chunk]) -> bool:
    """A progress line (tools/progress.py, on a terminal's stderr only) for long work:
    several chunks, or running, compiling or checking; never beside --time-passes,
    whose lines go to stderr while a chunk is processed."""
    long_work = bool(args.run or args.compile_only or args.check_equivalence)
    return (long_work or len(chunks) > 1) and not args.time_passes


def progress_text(args, chunk: Chunk, index: int) -> str:
    """What the progress line says about a chunk: `running @f on the CPU`."""
    names = ", ".join("@" + n for n in _FUNC_NAME.findall(chunk.text)) or f"chunk {index + 1}"
    if args.check_equivalence:
        return f"checking equivalence of {names}"
    if args.run:
        return f"running {names} on the {args.run.upper()}"
    if args.compile_only:
        return f"compiling {names}"
    return f"processing {names}"


if __name__ == "__main__":
    sys.exit(main())
