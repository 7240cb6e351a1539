"""Launch-time specialisation of pointer-tensor kernels (compiler/specialize.py,
tilec.compiling.SpecializingKernel), as Triton specialises `gl.load` kernels: the
Gluon tutorial's 2-D memcpy with run-time strides and a layout of 4 elements per
thread reads and writes 16-byte vectors when its inner strides are 1 and its row
pitches (and pointers) multiples of 16, and a call whose arguments are not picks
another kernel, which the reference executor shows still copies exactly."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_pointer_tensors import blocked, memcpy_2d, poison
from xdsl.dialects import func
from xdsl.ir import Block

import tilec
from tilec.compiler.specialize import specialize
from tilec.runtime.reference import ExecutionError, run

LAYOUT = blocked([1, 4], [1, 32], [4, 1], [1, 0])


def program():
    # pointers with no alignment promised: the launch decides
    return memcpy_2d(16, 128, LAYOUT, align=None)


def _args(x, y, xnumel, ynumel, pitch):
    return (x, y, xnumel, ynumel, pitch, 1, pitch, 1)


def _vectors(source: str) -> set[str]:
    return set(re.findall(r"reinterpret_cast<(?:const )?(f32x\d)\*>", source))


def test_stride_one_and_pitch_divisible_by_16_get_vector_accesses():
    k = tilec.compile(program(), arch="sm_90")
    x = np.zeros(100 * 256, np.float32)
    y = np.zeros_like(x)
    args = _args(x, y, 100, 256, 256)
    assert k.key(args) == ((True, True), (True, True), (False, False), (False, True),
                           (False, True), (True, False), (False, True), (True, False))
    spec = k.specialization(*args)
    assert _vectors(spec.source) == {"f32x4"}
    assert _vectors(k.source) == set()  # the generic kernel knows nothing
    assert k.specialization(*args) is spec  # cached per key
    assert "multiple_of" not in spec.source


def test_a_pitch_not_divisible_by_16_picks_another_kernel_that_copies_exactly():
    k = tilec.compile(program(), arch="sm_90")
    xnumel, ynumel, pitch = 37, 200, 201
    x = np.random.default_rng(0).standard_normal(xnumel * pitch).astype(np.float32)
    y = poison(xnumel * pitch)
    args = _args(x, y, xnumel, ynumel, pitch)
    aligned = k.specialization(*_args(x, y, 100, 256, 256))
    spec = k.specialization(*args)
    assert spec is not aligned
    assert _vectors(spec.source) == set()
    out = tilec.run_reference(spec, {"in_ptr": x, "out_ptr": y, "xnumel": xnumel, "ynumel": ynumel,
                                     "xstride_in": pitch, "ystride_in": 1,
                                     "xstride_out": pitch, "ystride_out": 1})
    want = y.reshape(xnumel, pitch).copy()
    want[:, :ynumel] = x.reshape(xnumel, pitch)[:, :ynumel]
    np.testing.assert_array_equal(out["out_ptr"].reshape(xnumel, pitch), want)


def test_the_divisible_specialisation_copies_exactly_on_the_reference_executor():
    k = tilec.compile(program(), arch="sm_90")
    xnumel, ynumel, pitch = 20, 256, 272
    x = np.random.default_rng(1).standard_normal(xnumel * pitch).astype(np.float32)
    y = poison(xnumel * pitch)
    spec = k.specialization(*_args(x, y, xnumel, ynumel, pitch))
    assert _vectors(spec.source) == {"f32x4"}
    out = tilec.run_reference(spec, {"in_ptr": x, "out_ptr": y, "xnumel": xnumel, "ynumel": ynumel,
                                     "xstride_in": pitch, "ystride_in": 1,
                                     "xstride_out": pitch, "ystride_out": 1})
    want = y.reshape(xnumel, pitch).copy()
    want[:, :ynumel] = x.reshape(xnumel, pitch)[:, :ynumel]
    np.testing.assert_array_equal(out["out_ptr"].reshape(xnumel, pitch), want)


def test_the_facts_are_stated_in_the_ir_before_the_passes():
    """A stride of 1 becomes the constant; a divisible argument is read through
    `layout.multiple_of` inside the launch; an aligned pointer gets `align 16`."""
    m = program()
    (f,) = [op for op in m.walk() if op.name == "func.func"]
    specialize(f, [(True, True), None, None, (False, True), (False, True), (True, False), None, None])
    text = str(m)
    assert "%in_ptr : !layout.ptr<f32, align 16>" in text and "%out_ptr : !layout.ptr<f32>" in text
    assert text.count("layout.multiple_of %ynumel {divisor = 16 : i64} : index") == 1
    assert text.count("layout.multiple_of %xstride_in {divisor = 16 : i64} : index") == 1
    assert "arith.index_cast %ystride_in :" not in text  # read as the constant 1
    assert re.search(r"%ystride_in\w* = arith.constant 1 : index", text)
    x = np.zeros(16 * 128, np.float32)
    with pytest.raises(ExecutionError, match="multiple"):  # a broken promise is caught
        run(m, {"in_ptr": x, "out_ptr": x.copy(), "xnumel": 16, "ynumel": 100, "xstride_in": 128,
                "ystride_in": 1, "xstride_out": 128, "ystride_out": 1})


@pytest.mark.gpu
def test_specialised_memcpy_2d_on_the_gpu():
    """Row pitches 256 (vectors) and 201 (scalars), both exact against NumPy."""
    import cupy as cp

    if not tilec.gpu_available():
        pytest.skip("no GPU")
    k = tilec.compile(program())
    for xnumel, ynumel, pitch in ((100, 256, 256), (37, 200, 201)):
        x = np.random.default_rng(2).standard_normal(xnumel * pitch).astype(np.float32)
        src, dst = cp.asarray(x), cp.asarray(poison(xnumel * pitch))
        k(src, dst, xnumel, ynumel, pitch, 1, pitch, 1)
        got = cp.asnumpy(dst).reshape(xnumel, pitch)[:, :ynumel]
        np.testing.assert_array_equal(got, x.reshape(xnumel, pitch)[:, :ynumel])


@pytest.mark.parametrize("persistent", [0, 132], ids=["grid", "persistent"])
def test_a_grid_argument_divisible_by_16_stays_the_launch_operand(persistent):
    """The flash-attention kernel's grid is (Sq blocks, B, H): a call with B and H
    divisible by 16 promises so inside the launch body only, so the launch still reads
    the arguments themselves (a promise defined in the body once became the grid's
    operand, which verification refused). Persistent, the grid is min(132, tiles),
    computed from B, H and Sq before the launch."""
    from tilec.compiler.attention import attention_fwd
    from tilec.compiler.specialize import specialisable
    from tilec.compiling import _build
    from tilec.dialects import layout

    module = attention_fwd(64, "bf16", False, 1, 0.125, persistent=persistent).module
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp) and not op.is_declaration)
    kinds = specialisable(f)
    specialize(f, [(False, True) if k == "int" else None for k in kinds])
    module.verify()
    launch = next(op for op in f.walk() if isinstance(op, layout.LaunchOp))
    assert all(isinstance(o.owner, Block) or o.owner.parent_op() is not launch for o in launch.operands)
    args = {a for a in f.body.block.args}
    if not persistent:
        assert any(o in args for o in launch.operands)  # the grid reads B and H as they are
    _build(module, "default", "sm_90a", None)  # the pipeline accepts it


def test_a_repeated_call_reuses_its_kernel_without_recomputing_the_facts(monkeypatch):
    """`SpecializingKernel.__call__` remembers each call's kernel by the launcher's
    replay key (pointers, shapes, strides, values): a repeated call goes straight to
    that kernel's replay; a call with other arguments computes its facts."""
    from tilec import compiling
    from tilec.runtime.launch import Kernel

    k = tilec.compile(program(), arch="sm_90")
    x = np.zeros(100 * 256, np.float32)
    y = np.zeros_like(x)
    aligned, odd = _args(x, y, 100, 256, 256), _args(x, y, 37, 200, 201)
    monkeypatch.setattr(compiling, "call_key", lambda args: tuple(id(a) if isinstance(a, np.ndarray) else a
                                                                      for a in args))
    ran: list[tuple] = []
    monkeypatch.setattr(Kernel, "call_keyed", lambda self, key, args, stream=None: ran.append((self, key)))
    facts = []
    real_key = type(k).key
    monkeypatch.setattr(type(k), "key", lambda self, args: facts.append(args) or real_key(self, args))
    k(*aligned)
    k(*aligned)
    k(*odd)
    assert len(facts) == 2  # the first sight of each call, not the repeat
    assert ran[0][0] is ran[1][0] is k.specialization(*aligned)
    assert ran[2][0] is k.specialization(*odd) and ran[2][0] is not ran[0][0]
    assert ran[0][1] == ran[1][1] != ran[2][1]
