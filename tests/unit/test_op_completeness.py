"""Every op has what the house rules ask of it: each `layout` op executor semantics
(runtime/reference) and a lowering in `lower-to-gpu` (or a place in `LOWERED_ELSEWHERE`,
which says where it goes instead), and each op of the `cuda` dialect an emitter in the
CUDA target (or a place in `NOT_PRINTED`) and executor semantics. A failure names each
op and what it lacks."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tilec.compiler.cuda import CudaEmitter
from tilec.dialects.cuda import Cuda
from tilec.dialects.layout import Layout
from tilec.passes.lower_to_gpu.kernel import LOWERINGS
from tilec.runtime.reference.api import _functions
from tilec.runtime.reference.executor import ReferenceInterpreter

LOWERED_ELSEWHERE = {
    "layout.make_tensor_like": "lower-to-gpu first replaces it by the layout.alloc of its type "
    "(lower_to_gpu/compile_time.py), which view_ops.py lowers",
    "layout.make_fragment_like": "as layout.make_tensor_like: a layout.alloc of its type (lower_to_gpu/compile_time.py)",
    "layout.static_assert": "checked by its verifier; lower-to-gpu first erases it and the ops that only fed it "
    "(lower_to_gpu/compile_time.py)",
    "layout.launch": "lower-to-gpu outlines it into a gpu.func and a gpu.launch_func (lower_to_gpu/__init__.py, "
    "outline.py); its body is what the per-op lowerings lower",
    "layout.yield": "the terminator of layout.reduce_region / layout.scan_region: their lowerings "
    "(lower_to_gpu/reduce.py) inline the combiner region and read its operands",
    "layout.tiled_iterator": "expand-iterators rewrites it into views and index arithmetic before lower-to-gpu",
    "layout.buffer_iterator": "expand-iterators rewrites it into views and index arithmetic before lower-to-gpu",
    "layout.iter_get": "expand-iterators rewrites it into views and index arithmetic before lower-to-gpu",
    "layout.iter_next": "expand-iterators rewrites it into views and index arithmetic before lower-to-gpu",
    "layout.dot": "accelerate-matmul (default pipeline) rewrites it into layout.mma (wgmma, mma.sync) with shared "
    "staging, or an FMA loop of loads, broadcasts, mulf and addf, before lower-to-gpu",
}
"""`layout` ops with no lowering of their own, and where they go instead."""

NOT_PRINTED = {
    "cuda.tensor_map": "a host-function op: runtime/host.py runs it (a TensorMapRequest the launcher encodes) "
    "and the kernel receives the encoded map as a parameter",
}
"""`cuda` ops the CUDA target does not print, and why."""


def _executor_ops() -> set[type]:
    interp = ReferenceInterpreter(ModuleOp([]))
    for fns in _functions():
        interp.register_implementations(fns)
    return set(interp._impls._impl_dict)  # pyright: ignore[reportPrivateUsage]


def _missing(ops, has, exempt: dict[str, str]) -> list[str]:
    return sorted(op.name for op in ops if op not in has and op.name not in exempt)


def test_every_layout_op_has_executor_semantics():
    missing = _missing(Layout.operations, _executor_ops(), {})
    assert missing == [], f"layout ops with no executor semantics (an @impl in runtime/reference): {missing}"


def test_every_layout_op_has_a_lowering():
    missing = _missing(Layout.operations, LOWERINGS, LOWERED_ELSEWHERE)
    assert missing == [], (
        f"layout ops with no lowering (an @lowers in passes/lower_to_gpu) and no entry in "
        f"LOWERED_ELSEWHERE: {missing}"
    )


def test_every_cuda_op_has_an_emitter_and_executor_semantics():
    missing = _missing(Cuda.operations, CudaEmitter.EMITTERS, NOT_PRINTED)
    assert missing == [], f"cuda ops with no emitter (an @emits in compiler/cuda) and no entry in NOT_PRINTED: {missing}"
    missing = _missing(Cuda.operations, _executor_ops(), {})
    assert missing == [], f"cuda ops with no executor semantics (an @impl in runtime/reference): {missing}"


def test_the_exception_lists_name_real_ops_that_need_them():
    layout_ops = {op.name: op for op in Layout.operations}
    cuda_ops = {op.name: op for op in Cuda.operations}
    stale = [n for n in LOWERED_ELSEWHERE if n not in layout_ops or layout_ops[n] in LOWERINGS]
    stale += [n for n in NOT_PRINTED if n not in cuda_ops or cuda_ops[n] in CudaEmitter.EMITTERS]
    assert stale == [], f"entries of the exception lists that are no op or now have a lowering/emitter: {stale}"


def _family(dialect_module: str) -> str:
    """The name of the family of the ops a dialect module defines: `layout_tma`, `cuda_tma`
    -> `tma`; `layout` -> `layout`; `thread_ids` -> `thread_ids`."""
    for prefix in ("layout_", "cuda_"):
        if dialect_module.startswith(prefix):
            return dialect_module[len(prefix):]
    return dialect_module


NAMED_OTHERWISE = {
    ("layout", "lowering"): ({"arith_ops", "view_ops", "load_store", "convert_layout", "copy", "reduce"},
                             "the core ops: one lowering module per kind of work"),
    ("layout_access", "lowering"): ({"element_access"}, "access.py is the element-access helper every family uses"),
    ("layout_compute", "lowering"): ({"compute", "reduce"}, "layout.reduce_region beside layout.reduce"),
    ("layout_dot", "semantics"): ("mma_impls", "a dot is an mma to the executor"),
    ("layout_funnel", "semantics"): ("compute_impls", "an elementwise op on rows, with the other compute ops"),
    ("layout_print", "lowering"): ({"debug_print"}, "a module named print would read as the builtin"),
    ("layout_static_assert", "semantics"): ("query_impls", "the static queries' folding, shared"),
    ("cuda", "lowering"): ({"arith_ops"}, "cuda.opaque and cuda.byte_perm, the cuda ops a launch may hold before "
                           "lower-to-gpu: scalar ops kept on their lowered operands, as arith's are"),
}
"""Where a family's module in a layer is not named by the family (`tma` -> `tma_impls`,
`tma`, `tma_ops`), the modules it has instead, and why."""

_ALSO = {"cuda.printf": "print_impls"}
"""Ops whose semantics live with another family's (cuda.printf beside layout.print)."""


def _stem(obj) -> str:
    return obj.__module__.rsplit(".", 1)[-1]


def _expected(dialect_module: str, layer: str):
    if (dialect_module, layer) in NAMED_OTHERWISE:
        return NAMED_OTHERWISE[(dialect_module, layer)][0]
    f = _family(dialect_module)
    return {"semantics": f"{f}_impls", "lowering": {f}, "emitter": f"{f}_ops"}[layer]


def test_each_family_has_one_name_in_every_layer():
    """An op of `dialects/layout_F.py` (or `cuda_F.py`) has its semantics in
    `runtime/reference/F_impls.py`, its lowering in `passes/lower_to_gpu/F.py` and its
    emitter in `compiler/cuda/F_ops.py`, unless NAMED_OTHERWISE says where and why."""
    interp = ReferenceInterpreter(ModuleOp([]))
    for fns in _functions():
        interp.register_implementations(fns)
    impls = interp._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    wrong = []
    for op in [*Layout.operations, *Cuda.operations]:
        d = _stem(op)
        got = _stem(type(impls[op][0]))
        if got != _ALSO.get(op.name, _expected(d, "semantics")):
            wrong.append(f"{op.name}: semantics in {got}")
        if op in LOWERINGS and _stem(LOWERINGS[op][0]) not in _expected(d, "lowering"):
            wrong.append(f"{op.name}: lowered in {_stem(LOWERINGS[op][0])}")
        if op in CudaEmitter.EMITTERS and _stem(CudaEmitter.EMITTERS[op]) != _expected(d, "emitter"):
            wrong.append(f"{op.name}: printed in {_stem(CudaEmitter.EMITTERS[op])}")
    assert wrong == [], f"ops outside their family's modules (named by the family or NAMED_OTHERWISE): {wrong}"
    stale = sorted({d for d, _ in NAMED_OTHERWISE} - {_stem(op) for op in [*Layout.operations, *Cuda.operations]})
    assert stale == []
    default = {"semantics": "{}_impls", "lowering": "{}", "emitter": "{}_ops"}
    named_by_family = [(d, layer) for (d, layer), (where, _) in NAMED_OTHERWISE.items()
                       if where in (default[layer].format(_family(d)), {default[layer].format(_family(d))})]
    assert named_by_family == [], "NAMED_OTHERWISE entries the family's name already gives"


def test_the_family_rule_reads_dialect_module_names():
    assert [_family(m) for m in ("layout_tma", "cuda_tma", "layout", "thread_ids")] == ["tma", "tma", "layout",
                                                                                          "thread_ids"]
