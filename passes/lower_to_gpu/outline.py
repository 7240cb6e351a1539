"""Host side of `lower-to-gpu`: pointer arguments become memrefs, each
`layout.launch` is outlined into a `gpu.func` kernel and replaced by `gpu.launch_func`."""


from __future__ import annotations

from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Block, BlockArgument, Region, SSAValue
from xdsl.rewriter import Rewriter

from tilec.dialects import cuda_tma, cute, layout, layout_tma
from tilec.dialects.layout_attrs import (
    tensor_argument_message,
    PtrType,
    TensorViewType,
)
from tilec.dialects.tma import DEFAULT_L2_PROMOTION
from tilec.support.diagnostics import LOC_ATTR
from tilec.support.locations import get_loc
from tilec.support.index_width import promise_index_bits, promised_index_bits
from tilec.support.launch_bounds import cluster_dims, min_blocks, set_cluster_dims, set_min_blocks

from .._gpu_builder import index
from .base import (
    _fail,
)
from .kernel import lower_launch
from .view_values import (
    VIEW_OPS,
)

# ---------------------------------------------------------------------------- host


def _lower_func(f: func.FuncOp, launches: list[layout.LaunchOp]) -> gpu.ModuleOp | None:
    fname = f.sym_name.data
    # memref type of every pointer argument
    ptr_types: dict[SSAValue, MemRefType] = {}
    for a in f.args:
        if isinstance(a.type, PtrType):
            sizes = []
            for use in a.uses:
                u = use.operation
                if isinstance(u, layout.ViewOp):
                    cs = u.result.type.cute_layout.cosize()
                    sizes.append(cs)
                else:
                    sizes.append(cute.DYN)
            static = sizes and all(isinstance(s, int) for s in sizes)
            n = max(sizes) if static else DYNAMIC_INDEX
            ptr_types[a] = MemRefType(a.type.element_type, [n])
    kernels = []
    for i, launch in enumerate(launches):
        if launch.parent_op() is not f:
            raise _fail(launch, "layout.launch must be directly in the function body")
        name = f"{fname}_kernel" if len(launches) == 1 else f"{fname}_kernel{i}"
        kernels.append(_outline(f, launch, name, ptr_types))
    # host function: pointer arguments become memrefs, views disappear
    for a, t in ptr_types.items():
        Rewriter.replace_value_with_new_type(a, t)
    f.function_type = FunctionType.from_lists([a.type for a in f.args], list(f.function_type.outputs))
    for o in reversed(list(f.body.walk())):
        if o.dialect_name() == "layout":
            if isinstance(o, VIEW_OPS) and not o.results[0].uses:
                o.detach()
                o.erase()
            elif isinstance(o, layout.CopyOp):
                raise _fail(o, f"'{o.name}' outside a layout.launch cannot be lowered to the GPU level: "
                               "run `tile` first (`-p default` runs it), which puts whole-tensor copies into launches")
            else:
                raise _fail(o, f"'{o.name}' outside a layout.launch cannot be lowered to the GPU level: "
                               "the passes put only whole-tensor `layout.copy` ops into launches; "
                               "write this op inside a `layout.launch` (every thread of it runs the op)")
    if not kernels:
        return None
    return gpu.ModuleOp(StringAttr(f"{fname}_kernels"), Region(Block(kernels)))  # type: ignore[arg-type]


def _outline(f: func.FuncOp, launch: layout.LaunchOp, name: str, ptr_types) -> gpu.FuncOp:
    fname = f.sym_name.data
    body_ops = list(launch.body.walk())
    inside = set(body_ops)
    # values from outside the launch the kernel needs
    needed: list[SSAValue] = []
    seen: set[SSAValue] = set()

    def need(v: SSAValue):
        if v in seen:
            return
        seen.add(v)
        owner = v.owner
        if isinstance(owner, Block):
            if owner is launch.body.block or owner.parent_op() in inside:
                return  # an argument of the launch body or of a region inside it
            needed.append(v)
            return
        if owner in inside:
            return
        if isinstance(owner, VIEW_OPS) or isinstance(owner, arith.ConstantOp):
            for o in owner.operands:
                need(o)
            return
        needed.append(v)

    for o in body_ops:
        for v in o.operands:
            need(v)
    tma_maps = _tensor_maps(launch, body_ops)
    needed += [m for m in dict.fromkeys(tma_maps.values()) if m not in needed]
    args_order = [a for a in f.args if a in seen and a in needed]
    args_order += [v for v in needed if v not in args_order]
    arg_types = []
    for v in args_order:
        if v in ptr_types:
            arg_types.append(ptr_types[v])
        elif isinstance(v.type, TensorViewType) and isinstance(v, BlockArgument) and v.owner is f.body.block:
            raise _fail(f, tensor_argument_message(v.name_hint or str(v.index), v.type))
        elif isinstance(v.type, TensorViewType | PtrType):
            raise _fail(launch, f"cannot pass {v.type} to a kernel")
        else:
            arg_types.append(v.type)
    entry = Block(arg_types=arg_types)
    for v, a in zip(args_order, entry.args):
        if v.name_hint:
            a.name_hint = v.name_hint
    kfunc = gpu.FuncOp(name, (arg_types, []), Region(entry), kernel=True,
                       known_block_size=[launch.num_threads, 1, 1])
    kfunc.location = launch.location  # what is said of the kernel (its shared memory) is said of the launch
    # the function's promise, else the launch's own (a `tile` pass rule's, from facts)
    bits = promised_index_bits(f)
    if bits is None:
        bits = promised_index_bits(launch)
    if bits is not None:
        promise_index_bits(kfunc, bits)
    blocks = min_blocks(launch)
    if blocks is not None:  # the launch's blocks per multiprocessor: the kernel's launch bounds
        set_min_blocks(kfunc, blocks)
    cluster = cluster_dims(launch)
    if cluster is not None:  # the launch's clusters: the kernel's __cluster_dims__
        set_cluster_dims(kfunc, cluster)
    lower_launch(entry, launch, dict(zip(args_order, entry.args)), ptr_types, tma_maps)
    entry.add_op(gpu.ReturnOp([]))
    # host side
    grid = [launch.grid_x, launch.grid_y, launch.grid_z]
    c1 = arith.ConstantOp(IntegerAttr(1, index))
    cn = arith.ConstantOp(IntegerAttr(launch.num_threads, index))
    lf = gpu.LaunchFuncOp(
        SymbolRefAttr(f"{fname}_kernels", [StringAttr(name)]),
        grid, [cn, c1, c1], None, list(args_order),
    )
    loc = get_loc(launch)
    if loc:
        lf.attributes[LOC_ATTR] = StringAttr(loc)
    blk = launch.parent_block()
    blk.insert_ops_before([c1, cn, lf], launch)
    launch.detach()
    launch.erase(safe_erase=False)
    return kfunc



def _tensor_maps(launch: layout.LaunchOp, body_ops) -> dict:
    """A host `cuda.tensor_map` (inserted before the launch) for each TMA op of the
    launch body, one per (global view, box, swizzle, dimension order, L2 promotion of the
    loads, the box clipped to the tensor: `layout.tma_load {clip}`, to its last box: `{clip,
    tail}`); op -> map."""
    out: dict = {}
    made: dict = {}
    for o in body_ops:
        if not isinstance(o, layout_tma.TmaLoadOp | layout_tma.TmaStoreOp):
            continue
        plan = o.plan()
        g = plan.geometry
        promotion = o.l2_promotion_bytes if isinstance(o, layout_tma.TmaLoadOp) else DEFAULT_L2_PROMOTION
        clip = isinstance(o, layout_tma.TmaLoadOp) and o.clipped
        tail = clip and o.tail_clipped
        key = (plan.root, g.order, g.box, g.swizzle_bytes, promotion, clip, tail)
        if key not in made:
            made[key] = _tensor_map(launch, plan, promotion, clip, tail)
        out[o] = made[key]
    return out


def _tensor_map(launch: layout.LaunchOp, plan, l2_promotion: int, clip: bool = False, tail: bool = False
                ) -> SSAValue:
    root = plan.root
    lay = root.result.type.cute_layout
    dyn = iter(root.dynamic)
    shape_vals = {}
    stride_vals = {}
    ms = lay.modes()
    for k, m in enumerate(ms):  # `?` values in order: shapes, then strides
        if m.shape is cute.DYN:
            shape_vals[k] = next(dyn)
    for k, m in enumerate(ms):
        if m.stride is cute.DYN:
            stride_vals[k] = next(dyn)
    ops = []

    def value(k: int, static, table) -> SSAValue:
        if static is not cute.DYN:
            c = arith.ConstantOp(IntegerAttr(int(static), index))
            ops.append(c)
            return c.result
        return table[k]

    order = plan.geometry.order
    dims = [value(m, ms[m].shape, shape_vals) for m in order]
    strides = [value(m, ms[m].stride, stride_vals) for m in order[1:]]
    tm = cuda_tma.TensorMapOp(root.source, dims + strides, plan.geometry.box, plan.geometry.swizzle_bytes,
                              l2_promotion, clip, tail)
    tm.result.name_hint = f"{root.source.name_hint or 'buf'}_map"
    ops.append(tm)
    launch.parent_block().insert_ops_before(ops, launch)
    return tm.result
