"""Parse, verify, transform and print tilec programs: the one implementation that both the
`tilec` command line and the Python API call.

    module = parse_module(text, "copy.mlir")      # TilecError on bad input, with file:line:col
    run_pipeline(module, "tile{tile=64,64},distribute")
    print(emit(module, "cuda"))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.parser import MLIRTokenKind
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    PassFailedException,
    VerifyException,
)

from tilec.support.diagnostics import TilecError
from tilec.support.locations import LocatingParser, get_loc

from .dominance import check_dominance
from .messages import parse_message, tensor_hint, verify_message
from .upstream_checks import check_upstream_ops
from .verify_cache import state, verify_op

NAMED_PIPELINES: dict[str, str] = {
    "default": (
        "expand-iterators,copy-strategy,tile,order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,coarsen-grid,distribute,chunk-rows,pack-rows,"
        "choose-warps,stash-rereads,sink-reductions,coalesce,vectorize,software-pipeline,vectorize-pointers,vectorize-element-loops,"
        "remove-layout-conversions,warp-specialize{marked=true},prefetch-operands,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers"
    ),
}
NAMED_PIPELINES["O2"] = NAMED_PIPELINES["default"]
"""Pipelines that `-p NAME` expands to."""


def make_context() -> Context:
    """A context with every dialect a tilec program may use."""
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.gpu import GPU
    from xdsl.dialects.math import Math
    from xdsl.dialects.memref import MemRef
    from xdsl.dialects.scf import Scf
    from xdsl.dialects.vector import Vector

    from tilec.dialects.cuda import Cuda
    from tilec.dialects.layout import Layout

    ctx = Context()
    for d in (Builtin, Func, Arith, Math, Scf, MemRef, Vector, GPU, Layout, Cuda):
        ctx.load_dialect(d)
    return ctx


def parse_module(
    text: str, name: str = "<stdin>", ctx: Context | None = None, line_offset: int = 0, verify: bool = True
) -> ModuleOp:
    """Parse (and verify) a module. Raises TilecError with the location of the problem."""
    ctx = ctx or make_context()
    try:
        module = _Parser(ctx, text, name, line_offset).parse_module()
    except ParseError as e:
        loc = e.span.get_location()
        msg = "".join(c if c.isprintable() else repr(c)[1:-1] for c in e.msg.strip())
        lines = text.splitlines()
        msg = parse_message(msg, lines[loc.line - 1] if 0 < loc.line <= len(lines) else "", loc.col)
        loc = f"{loc.file}:{loc.line + line_offset}:{loc.col}"
        if not text[e.span.start :].strip():
            msg = "unexpected end of file" + (f" ({msg})" if msg else "")
        raise TilecError(msg, loc=loc) from None
    except (DiagnosticException, ValueError, ArithmeticError, RecursionError) as e:
        raise TilecError(f"cannot parse {name}: {_first_line(e)}", loc=name) from None
    if verify:
        verify_module(module)
    return module


class _Parser(LocatingParser):
    """A LocatingParser whose errors all have a location: an op (or attribute) whose
    construction fails while it is parsed (a verifier raising in `__init__`) becomes
    a ParseError at the op's first token."""

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        # MLIR reads an input with no operation (empty, or only comments) as an
        # empty module; xDSL rejects it.
        if self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        return super().parse_module(allow_implicit_module)

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            return super().parse_operation()
        except ParseError:
            raise
        except (DiagnosticException, ValueError, ArithmeticError) as e:
            raise ParseError(start, _first_line(e)) from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def verify_module(module: Operation) -> None:
    """Verify every op, the checks xDSL leaves out (compiler/upstream_checks.py), then
    that each value is defined before its uses (compiler/dominance.py); the first
    failure becomes a TilecError at that op."""
    _verify_ops(module.walk())
    check_upstream_ops(module)
    check_dominance(module)


def _verify_ops(ops: Iterable[Operation]) -> None:
    for op in ops:
        try:
            # structure and the op's own verifier, once (the common, passing case;
            # an op like one that passed before is not verified again: verify_cache)
            verify_op(op)
        except Exception:
            # `verify` wraps a failure of the op's verifier with a printout of the
            # whole module: verify again the other way round for the plain message
            _verify_op(op)
            raise


def _verify_op(op: Operation) -> None:
    try:
        op.verify_()
        op.verify(verify_nested_ops=False)
    except VerifyException as e:
        msg = verify_message(str(e))
        if any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)) and (hint := tensor_hint(op.name)):
            msg = f"'{op.name}': {msg}; it {hint}"
        raise TilecError(msg, op=op) from None
    except (ValueError, ArithmeticError) as e:  # a malformed value; any other exception is a bug
        raise TilecError(f"invalid op: {_first_line(e)}", op=op) from None


# ----------------------------------------------------------------------------- passes


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory, for tilec's passes and the xDSL passes tilec uses."""
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from tilec.passes import tilec_passes
    from tilec.passes._canonicalize import Canonicalize

    out: dict[str, Callable[[], type[ModulePass]]] = {
        "canonicalize": lambda: Canonicalize,  # xDSL's, fast on GPU-level IR
        "cse": lambda: CommonSubexpressionElimination,
        "dce": lambda: DeadCodeElimination,
    }
    for cls in tilec_passes():
        out[cls.name] = (lambda c: lambda: c)(cls)
    return out


def pass_description(cls: type[ModulePass]) -> str:
    """First sentence of a pass's docstring (what `--list-passes` shows)."""
    doc = (cls.__doc__ or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) if doc else ""


def expand_pipeline(spec: str) -> str:
    """Replace named pipelines (`default`, `O2`) in a pass spec by their passes."""
    parts = [p.strip() for p in _split_top_level(spec)]
    return ",".join(NAMED_PIPELINES.get(p, p) for p in parts if p)


def _split_top_level(spec: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in spec:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


PassCallback = Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]


def build_pipeline(spec: str, callback: PassCallback | None = None) -> PassPipeline:
    """A PassPipeline from a `-p` string; TilecError for unknown passes or bad syntax."""
    spec = expand_pipeline(spec)
    try:
        return PassPipeline.parse_spec(available_passes(), spec, callback)
    except ArgSpecParseError as e:  # a BaseException: "...:\npass-pipeline:1:COL\n...\nMESSAGE"
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        col = lines[1].rsplit(":", 1)[-1] if len(lines) > 1 else "?"
        raise TilecError(f"invalid pass pipeline '{spec}': {lines[-1]} (at column {col})") from None
    except Exception as e:  # xDSL raises several types for a malformed spec
        raise TilecError(f"invalid pass pipeline '{spec}': {_first_line(e)}") from None


def run_pipeline(
    module: ModuleOp,
    spec: str | PassPipeline,
    ctx: Context | None = None,
    *,
    verify_each_pass: bool = True,
    input_verified: bool = False,
    print_between: Callable[[str, ModuleOp], None] | None = None,
    timings: list[tuple[str, float]] | None = None,
) -> ModuleOp:
    """Run passes on `module` in place (and return it), verifying after each pass (but
    not a module in the state it verified in after the pass before: `verify_cache.state`).

    With `verify_each_pass=False` the module is verified after the first pass (which
    may have met an unverified input; not with `input_verified`: the caller verified
    it, as `Program.module` does) and after the last one only, as tilec's API
    compiles (`tilec.compile`, `tilec.matmul`, `tilec.copy_`) run the pipeline: the
    passes in between go unchecked, so a failure at the end names no pass (verifying
    after each pass, the default, does).

    `print_between(pass_name, module)` is called after every pass; `timings` collects
    (pass name, seconds)."""
    ctx = ctx or make_context()
    pipeline = spec if isinstance(spec, PassPipeline) else build_pipeline(spec)
    verified: list[tuple] | None = None  # the module's state when it last verified
    passes = list(pipeline.passes)
    for index, p in enumerate(passes):
        start = time.perf_counter()
        changed: list[Operation] | None = None
        try:
            # a pass that says which ops it changed (`apply_tracked`) has only those verified
            tracked = getattr(p, "apply_tracked", None)
            if tracked is not None:
                changed = tracked(ctx, module)
            else:
                p.apply(ctx, module)
        except TilecError:
            raise
        except (PassFailedException, VerifyException) as e:
            raise TilecError(f"pass '{p.name}' failed: {_first_line(e)}") from None
        if timings is not None:
            timings.append((p.name, time.perf_counter() - start))
        if verify_each_pass:
            now = state(module)
            if changed is not None or now != verified:  # a module as it verified before verifies again
                verify_after(module, p.name, changed)
            verified = now
        elif index == 0 and not input_verified:  # (the last too, in a pipeline of one pass)
            verify_after(module, p.name, changed)
        elif index == len(passes) - 1:  # the whole module: the passes since the last verified went unchecked
            first = passes[0 if input_verified else 1].name
            after = f"pass '{p.name}'" if first == p.name else f"the passes '{first}' to '{p.name}'"
            try:
                verify_module(module)
            except TilecError as e:
                raise TilecError(
                    f"IR after {after} does not verify: {e.message} (verified at the end only; "
                    "run_pipeline(..., verify_each_pass=True) names the pass)", op=e.op) from None
        if print_between is not None:
            print_between(p.name, module)
    return module


def verify_after(
    module: ModuleOp, pass_name: str, changed: list[Operation] | None = None
) -> None:
    """Verify `module` after pass `pass_name` (only the ops in `changed` when the pass
    says which ops it changed; the rest verified before and is as it was); a failure
    names the pass."""
    try:
        if changed is None:
            verify_module(module)
        else:
            _verify_ops(changed)
    except TilecError as e:
        raise TilecError(f"IR after pass '{pass_name}' does not verify: {e.message}", op=e.op) from None


# ----------------------------------------------------------------------------- output

TARGETS = ("mlir", "cuda")


def emit(module: ModuleOp, target: str = "mlir", *, generic: bool = False) -> str:
    """Print a module as MLIR text or (target `cuda`) as CUDA C++."""
    if target == "mlir":
        out = StringIO()
        Printer(stream=out, print_generic_format=generic).print_op(module)
        return out.getvalue() + "\n"
    if target == "cuda":
        from .cuda import emit_cuda

        return emit_cuda(module)
    raise TilecError(f"unknown target '{target}' (choose from {', '.join(TARGETS)})")


__all__ = [
    "NAMED_PIPELINES",
    "available_passes",
    "build_pipeline",
    "emit",
    "get_loc",
    "make_context",
    "parse_module",
    "pass_description",
    "run_pipeline",
    "verify_module",
]
