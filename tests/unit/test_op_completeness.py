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


FAMILY_MODULES = {
    # dialect module: (its semantics in runtime/reference/, its lowerings in passes/lower_to_gpu/,
    #                  its emitters in compiler/cuda/)
    "layout": ("layout_impls", {"arith_ops", "view_ops", "load_store", "convert_layout", "copy", "reduce"}, None),
    "layout_access": ("access_impls", {"element_access"}, None),
    "layout_compute": ("compute_impls", {"compute", "reduce"}, None),
    "layout_dot": ("mma_impls", set(), None),
    "layout_funnel": ("compute_impls", {"funnel"}, None),
    "layout_identity": ("identity_impls", {"identity"}, None),
    "layout_iter": ("iter_impls", set(), None),
    "layout_like": ("like_impls", set(), None),
    "layout_mma": ("mma_impls", {"mma"}, None),
    "layout_print": ("print_impls", {"debug_print"}, None),
    "layout_ptr": ("pointer_impls", {"pointers"}, None),
    "layout_query": ("query_impls", {"query"}, None),
    "layout_roles": ("role_impls", {"roles"}, None),
    "layout_static_assert": ("query_impls", set(), None),
    "layout_tma": ("tma_impls", {"tma"}, None),
    "thread_ids": ("thread_id_impls", {"thread_ids"}, None),
    "cuda": ("cuda_impls", set(), "cuda_ops"),
    "cuda_roles": ("role_impls", set(), "role_ops"),
    "cuda_tma": ("tma_impls", set(), "tma_ops"),
    "cuda_wgmma": ("wgmma_impls", set(), "wgmma_ops"),
}
"""Where each op family lives in each layer, by the dialect module that defines its ops
(a family is named alike in every layer where it can be: `layout_tma` -> `tma_impls` ->
`tma` -> `tma_ops`; the other names are given here). A family with no lowering of its
own is in LOWERED_ELSEWHERE; `cuda.printf` has its semantics beside `layout.print`'s
(print_impls), the one exception this table's test allows."""

_ALSO = {"cuda.printf": "print_impls"}


def _stem(obj) -> str:
    return obj.__module__.rsplit(".", 1)[-1]


def test_each_family_lives_where_the_family_table_says():
    interp = ReferenceInterpreter(ModuleOp([]))
    for fns in _functions():
        interp.register_implementations(fns)
    impls = interp._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    wrong = []
    for op in [*Layout.operations, *Cuda.operations]:
        ref, lowering, emitter = FAMILY_MODULES[_stem(op)]
        if _stem(type(impls[op][0])) != _ALSO.get(op.name, ref):
            wrong.append(f"{op.name}: semantics in {_stem(type(impls[op][0]))}, not {ref}")
        if op in LOWERINGS and _stem(LOWERINGS[op][0]) not in lowering:
            wrong.append(f"{op.name}: lowered in {_stem(LOWERINGS[op][0])}, not one of {sorted(lowering)}")
        if op in CudaEmitter.EMITTERS and _stem(CudaEmitter.EMITTERS[op]) != emitter:
            wrong.append(f"{op.name}: printed in {_stem(CudaEmitter.EMITTERS[op])}, not {emitter}")
    assert wrong == [], f"ops outside their family's modules (FAMILY_MODULES): {wrong}"
    stale = sorted(set(FAMILY_MODULES) - {_stem(op) for op in [*Layout.operations, *Cuda.operations]})
    assert stale == []
