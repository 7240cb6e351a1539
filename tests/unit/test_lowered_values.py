"""lower-to-gpu's typed values (passes/lower_to_gpu/lowered_values.py) and dispatch
(kernel.py): a lowering that asks for a value in a form it does not have is an
internal error naming the value, both kinds and the op being lowered; every marked
lowering is in the dispatch table with its family."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import IndexType, f32
from xdsl.dialects import test as xdsl_test
from xdsl.ir import Block

from tilec.compiler.pipeline import parse_module, run_pipeline
from tilec.dialects import layout
from tilec.passes._gpu_builder import DynamicIndex, IndexBuilder
from tilec.passes.lower_to_gpu import kernel
from tilec.passes.lower_to_gpu.lowered_values import (
    AsyncToken,
    LoweredIndex,
    LoweredScalar,
    LoweredValues,
    LoweringKindError,
    RegisterTensor,
)

REDUCE = Path(__file__).resolve().parents[1] / "filecheck" / "lower-to-gpu" / "reduce.mlir"


def _values(resolved: dict | None = None) -> LoweredValues:
    def resolve(v):
        if resolved is None or v not in resolved:
            raise KeyError(v)
        values.set(v, resolved[v])

    values = LoweredValues(resolve)
    return values


def test_each_kind_reads_back_as_set():
    op = xdsl_test.TestOp(result_types=[IndexType(), f32, f32, f32])
    i, s, r, t = op.results
    b = IndexBuilder(Block())
    values = _values()
    values.set_index(i, 7)
    values.set_scalar(s, s)
    values.set_registers(r, [s, s])
    values.set_token(t)
    assert values.index(i) == 7
    assert values.scalar(s) is s
    assert values.registers(r) == (s, s)
    assert values.get(r) == RegisterTensor((s, s), f32)
    assert isinstance(values.get(t), AsyncToken)
    assert values.scalar_or_index(i) == 7 and values.scalar_or_index(s) is s
    dyn = DynamicIndex(b, s)
    values.set_index(i, dyn)
    assert values.get(i) == LoweredIndex(dyn)


@pytest.mark.parametrize(
    "ask, have",
    [("view", "a register tensor"), ("index", "a scalar"), ("registers", "an index"), ("scalar", "an async token")],
)
def test_asking_for_another_kind_names_both(ask, have):
    op = xdsl_test.TestOp(result_types=[f32])
    v = op.results[0]
    v.name_hint = "x"
    lowered = {"a register tensor": RegisterTensor((v,), f32), "a scalar": LoweredScalar(v),
               "an index": LoweredIndex(3), "an async token": AsyncToken()}[have]
    values = _values({v: lowered})
    with pytest.raises(LoweringKindError, match=rf"%x \(defined by 'test.op'\) was lowered to {have}, but"):
        getattr(values, ask)(v)


def test_the_driver_names_the_op_that_asked(monkeypatch):
    """A family that reads the stored register tensor as a view: the error says which
    op was being lowered, where, and what it asked for."""

    def store_reading_a_view(family, op):
        family.values.view(op.value)

    fam, _ = kernel.LOWERINGS[layout.StoreOp]
    monkeypatch.setitem(kernel.LOWERINGS, layout.StoreOp, (fam, store_reading_a_view))
    m = parse_module(REDUCE.read_text(), "reduce.mlir")
    with pytest.raises(LoweringKindError) as e:
        run_pipeline(m, "lower-to-gpu")
    msg = str(e.value)
    assert msg.startswith("lower-to-gpu internal error while lowering 'layout.store' at reduce.mlir:21:")
    assert "%s (defined by 'layout.reduce') was lowered to a register tensor, but a view was asked for" in msg


def test_every_marked_lowering_is_dispatched_to_its_family():
    for fam in kernel.FAMILIES:
        for fn in vars(fam).values():
            for t in getattr(fn, "lowers", ()):
                assert kernel.LOWERINGS[t] == (fam, fn)


def test_every_family_module_is_a_class_over_the_context():
    """One form of family: each module of lower_to_gpu with a `@lowers` mark holds it
    on a method of an `OpFamily` class kernel.py lists, never on a module function."""
    import importlib
    import inspect
    import pkgutil

    import tilec.passes.lower_to_gpu as pkg

    loose = []
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        loose += [f"{info.name}.{n}" for n, fn in vars(module).items()
                  if inspect.isfunction(fn) and getattr(fn, "lowers", None)]
    assert loose == []
    assert sum(1 for _ in kernel.FAMILIES) == len(set(kernel.FAMILIES))
