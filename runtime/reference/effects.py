"""Static facts about buffer arguments: which the program reads or writes (so that
`random_inputs` poisons outputs), and how many elements a layout-level pointer needs."""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import func, gpu, memref, scf, vector
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilec.dialects import cuda_atomic, layout, layout_atomic, layout_iter, layout_ptr
from tilec.dialects.effects import operand_accesses
from tilec.dialects.layout_attrs import PtrType
from tilec.dialects.layout_ptr import is_pointer_tensor

ATOMICS = (layout_atomic.AtomicAddOp, cuda_atomic.AtomicAddOp)
"""The atomics: a buffer they add to is a counter ("atomic" of `access_effects`)."""

# xDSL's ops: op type -> (operand indices written, operand indices read); tilec's ops
# say it with their `Accesses` trait (dialects/effects.py)
_ACCESS: dict[type[Operation], tuple[set[int], set[int]]] = {
    memref.StoreOp: ({1}, set()),
    memref.LoadOp: (set(), {0}),
    vector.StoreOp: ({1}, set()),
    vector.LoadOp: (set(), {0}),
    vector.MaskedStoreOp: ({0}, set()),
    vector.MaskedLoadOp: (set(), {0}),
    memref.DimOp: (set(), set()),
    memref.DeallocOp: (set(), set()),
}

# ops whose results alias (a view of) their first operand
_VIEWS: set[type[Operation]] = {
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.AssumeAlignmentOp,
    layout.ViewOp,
    *layout.DERIVED_VIEW_OPS,
    *layout_iter.ITER_OPS,  # an iterator's tiles are views of its source
    layout.SplatOp,  # of a pointer: a pointer tensor (dialects/layout_ptr.py)
    layout_ptr.AddPtrOp,
}




def access_effects(module: ModuleOp, value: SSAValue) -> set[str]:
    """{"read", "write", "atomic"} subsets: what the program may do to the buffer
    `value` ("atomic": add to it with atomics, dialects/layout_atomic.py)."""
    from .executor import lookup_kernel

    effects: set[str] = set()
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in list(v.uses):
            op = use.operation
            i = use.index
            kind = type(op)
            accesses = operand_accesses(op)
            if isinstance(op, ATOMICS) and i == (1 if isinstance(op, layout_atomic.AtomicAddOp) else 0):
                effects.add("atomic")  # a counter: zero on entry (random_inputs)
            elif accesses is not None:
                effects.update(accesses.get(i, ()))
            elif kind in _ACCESS:
                writes, reads = _ACCESS[kind]
                if i in writes:
                    effects.add("write")
                if i in reads:
                    effects.add("read")
            elif kind in _VIEWS and i == 0:
                work.extend(op.results)
            elif is_pointer_tensor(v.type) or isinstance(v.type, PtrType | layout_iter.IterType):
                # pointers (and iterators) moved by shape ops, selects, conversions or loops
                work.extend(_pointers_out(op, i))
            elif isinstance(op, gpu.LaunchFuncOp):
                try:
                    kernel = lookup_kernel(module, op.kernel, op)
                except Exception:
                    effects.add("read")
                    continue
                args = kernel.body.block.args
                for j, operand in enumerate(op.kernelOperands):
                    if operand is v and j < len(args):
                        work.append(args[j])
            elif isinstance(op, func.CallOp):
                target = _lookup_func(module, op.callee.root_reference.data)
                if target is None or target.is_declaration:
                    effects.update(("read", "write"))
                    continue
                work.append(target.body.block.args[i])
            else:
                effects.add("read")
    return effects


def _pointers_out(op: Operation, i: int) -> list[SSAValue]:
    """The pointer values that operand i of op (a pointer) flows into."""
    if isinstance(op, scf.ForOp):
        k = i - 3  # lb, ub, step, then the iter_args
        return [op.results[k], op.body.block.args[k + 1]] if k >= 0 else []
    if isinstance(op, scf.YieldOp):
        parent = op.parent_op()
        return [parent.results[i]] if isinstance(parent, scf.ForOp | scf.IfOp) else []
    return [r for r in op.results if is_pointer_tensor(r.type) or isinstance(r.type, PtrType)]


def _lookup_func(module: ModuleOp, name: str) -> func.FuncOp | None:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    return None


def pointer_extent(
    module: ModuleOp, fn: func.FuncOp, arg: BlockArgument, scalars: Mapping[str, int]
) -> int | None:
    """Elements a layout-level pointer argument must hold: the largest cosize of the
    `layout.view`s of it, their dynamic values bound from `scalars` (the function's
    index arguments). None when that cannot be known statically."""
    try:
        from .layout_impls import view_extent
    except ImportError:
        return None
    return view_extent(module, fn, arg, scalars)
