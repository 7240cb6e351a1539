"""`assert_pass_preserves`: the test every pass gets — the program computes the same
buffers before and after it, on the CPU reference executor.

    from helpers.equivalence import assert_pass_preserves

    def test_tile_preserves_transpose():
        after = assert_pass_preserves(TRANSPOSE, "tile{tile=32,32}")
        assert "layout.tile" in str(after)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects.builtin import ModuleOp

from tilec.runtime.reference import check_equivalence

Pipeline = str | Callable[[ModuleOp], ModuleOp | None]


def parse(text: str, name: str = "<test>") -> ModuleOp:
    """tilec's parser (`tilec.compiler.pipeline.parse_module`), or xDSL's with the
    dialects tilec programs use where the pipeline module is not there."""
    try:
        from tilec.compiler.pipeline import parse_module
    except ImportError:
        return _xdsl_parse(text, name)
    return parse_module(text, name)


def _xdsl_parse(text: str, name: str) -> ModuleOp:
    from xdsl.context import Context
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.gpu import GPU
    from xdsl.dialects.memref import MemRef
    from xdsl.dialects.scf import Scf
    from xdsl.dialects.vector import Vector
    from xdsl.parser import Parser

    ctx = Context()
    for d in (Builtin, Func, Arith, Scf, MemRef, Vector, GPU):
        ctx.load_dialect(d)
    for mod, attr in (("tilec.dialects.cuda", "Cuda"), ("tilec.dialects.layout", "Layout")):
        try:
            ctx.load_dialect(getattr(__import__(mod, fromlist=[attr]), attr))
        except (ImportError, AttributeError):
            pass
    return Parser(ctx, text, name).parse_module()


def apply_pipeline(module: ModuleOp, pipeline: Pipeline) -> ModuleOp:
    """Run a pass pipeline (`"tile,distribute"`, or a callable that transforms a
    module in place or returns a new one) on `module`."""
    if callable(pipeline):
        out = pipeline(module)
        return module if out is None else out
    try:
        from tilec.compiler.pipeline import run_pipeline
    except ImportError:
        from xdsl.context import Context
        from xdsl.passes import PassPipeline

        from tilec.passes import tilec_passes  # type: ignore[attr-defined]

        passes = {cls.name: (lambda c: lambda: c)(cls) for cls in tilec_passes()}
        PassPipeline.parse_spec(passes, pipeline).apply(Context(), module)
        return module
    out = run_pipeline(module, pipeline)
    return module if out is None else out


def assert_pass_preserves(
    module_text: str | ModuleOp,
    pipeline: Pipeline,
    seeds: Sequence[int] = (0, 1),
    *,
    entry: str | None = None,
    args: Mapping[str, int] | None = None,
    sizes: Mapping[str, int] | None = None,
) -> ModuleOp:
    """Parse, run the reference executor before and after `pipeline` on random inputs
    for each seed, assert that every buffer is bitwise identical (float buffers of a
    program with a float `layout.mma`: within its tolerance, docs/testing.md); return the
    transformed module. An `ExecutionError` (a race, an out-of-bounds access, ...) in
    either run fails the test with its message."""
    if isinstance(module_text, str):
        # Parsed twice rather than cloned, so that both keep their source locations.
        before = parse(module_text)
        after = apply_pipeline(parse(module_text), pipeline)
    else:
        before = module_text
        after = apply_pipeline(module_text.clone(), pipeline)
    for seed in seeds:
        report = check_equivalence(before, after, seed, entry, args=args, sizes=sizes)
        assert report, f"{pipeline!r} changed the program's results: {report}"
    return after
