"""`run_pipeline(..., verify_each_pass=False)` (tilec's API compiles) verifies the module
after the first and the last pass only: IR a middle pass broke is still refused, at the
end, and the CUDA is the same as with every pass verified. `compile_program(fresh=True)`
(`tilec.matmul`'s modules) compiles the module it is given, neither copied nor kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.toy_passes import HalveTile, Noop
from xdsl.passes import PassPipeline

from tilec.compiler import pipeline
from tilec.compiler.pipeline import build_pipeline, emit, parse_module, run_pipeline
from tilec.support.diagnostics import TilecError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def module(name: str = "add_one.mlir"):
    return parse_module((EXAMPLES / name).read_text(), name)


def counted(monkeypatch) -> list[int]:
    calls: list[int] = []
    verify = pipeline.verify_module
    monkeypatch.setattr(pipeline, "verify_module", lambda m: (calls.append(1), verify(m)))
    return calls


def test_the_first_and_the_last_pass_are_verified(monkeypatch):
    m, one = module(), module()
    calls = counted(monkeypatch)
    run_pipeline(m, PassPipeline((Noop(),) * 4), verify_each_pass=False)
    assert len(calls) == 2
    calls.clear()
    run_pipeline(one, PassPipeline((Noop(),)), verify_each_pass=False)
    assert len(calls) == 1


def test_a_middle_pass_that_breaks_the_ir_is_found_at_the_end():
    with pytest.raises(TilecError, match="IR after the passes 'halve-tile' to 'noop' does not verify"):
        run_pipeline(module(), PassPipeline((Noop(), HalveTile(), Noop())), verify_each_pass=False)
    with pytest.raises(TilecError, match="IR after pass 'halve-tile' does not verify"):
        run_pipeline(module(), PassPipeline((Noop(), HalveTile(), Noop())))


def test_the_first_pass_is_verified_as_before():
    with pytest.raises(TilecError, match="IR after pass 'halve-tile' does not verify"):
        run_pipeline(module(), PassPipeline((HalveTile(), Noop())), verify_each_pass=False)


@pytest.mark.parametrize("name", ["add_one.mlir", "gemm_bf16_hopper_ws.mlir", "layernorm.mlir"])
def test_the_cuda_is_the_same(name):
    if not (EXAMPLES / name).exists():
        pytest.skip(f"no example {name}")
    each, end = module(name), module(name)
    run_pipeline(each, "default")
    run_pipeline(end, build_pipeline("default"), verify_each_pass=False)
    assert emit(each, "cuda") == emit(end, "cuda")


def test_a_fresh_module_is_compiled_as_given():
    from tilec.compiling import _compiled, compile_program

    given = module()
    before = emit(given)
    kept = compile_program(given, "default")
    assert emit(given) == before  # copied: the caller's module as it was
    assert compile_program(module(), "default") is kept  # kept by its printed text
    size = len(_compiled)
    fresh = module()
    kernel = compile_program(fresh, "default", fresh=True)
    assert kernel is not kept and len(_compiled) == size  # neither looked up nor kept
    assert kernel.module is fresh  # compiled in place: no copy
    assert kernel.source == kept.source


def test_a_verified_input_is_verified_after_the_last_pass_only(monkeypatch):
    m = module()
    calls = counted(monkeypatch)
    run_pipeline(m, PassPipeline((Noop(),) * 4), verify_each_pass=False, input_verified=True)
    assert len(calls) == 1
    with pytest.raises(TilecError, match="IR after the passes 'halve-tile' to 'noop' does not verify"):
        run_pipeline(module(), PassPipeline((HalveTile(), Noop())), verify_each_pass=False, input_verified=True)
    with pytest.raises(TilecError, match="IR after pass 'halve-tile' does not verify"):
        run_pipeline(module(), PassPipeline((HalveTile(),)), verify_each_pass=False, input_verified=True)
