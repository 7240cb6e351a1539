"""The `lower-to-gpu` pass: thread-level layout IR -> the GPU level (docs/gpu-level.md)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tilec.compiler.diagnostics import LOC_ATTR, TilecError
from tilec.compiler.locations import get_loc
from tilec.dialects import cuda, cute, layout, layout_compute, views
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import (
    ComposedLayoutAttr,
    PtrType,
    TensorViewType,
    element_bytes,
    to_linear,
)
from tilec.dialects.linear import LinearLayout, conversion_kind

from ._gpu_builder import IndexBuilder, V, Val, index
from ._lower_compute import (
    COMBINERS,
    lower_elementwise,
    lower_gather,
    lower_join,
    lower_permute,
    lower_reshape,
    lower_scan,
    lower_split,
)
from ._shuffle_plan import apply_bits, lane_offsets, span_of
from ._tile_bounds import coord_limit

SHUFFLE_CONVERSIONS = True
"""`lower-convert-layout{shuffle=auto}` reads this: conversions that stay within each warp
(`lowering = "shuffle"`) are lowered here to `cuda.shfl_idx` (see `shuffle_convert`)."""

UNROLL_LIMIT = 64
"""Copies of at most this many accesses are unrolled in Python; longer ones become a
static `scf.for` (which the CUDA printer unrolls with `#pragma unroll`)."""

VIEW_OPS = (
    layout.ViewOp,
    layout.AllocOp,
    layout.TileOp,
    layout.VectorizeOp,
    layout.DistributeOp,
    layout.DivideOp,
    layout.PartitionOp,
    layout.SliceOp,
)

# ============================================================================ views

Leaf = tuple  # (size: Val, stride: Val)
RLayout = list  # modes -> list of leaves, colexicographic


@dataclass
class Mask:
    """Run-time form of `views.MaskMap`: root coordinate of mode k =
    off[k] + scale[k] * x + lscale[k] * lane; the element exists iff it is < bound[k]
    (bound None: the mode never leaves its tensor, no check)."""

    off: list
    scale: list
    lscale: list
    bound: list
    also: Mask | None = None
    """A further mask the element must satisfy too (`views.MaskMap.also`)."""

    def chain(self) -> list[Mask]:
        out, m = [], self
        while m is not None:
            out.append(m)
            m = m.also
        return out

    def conjoin(self, other: Mask) -> Mask:
        return replace(self, also=other if self.also is None else self.also.conjoin(other))


def _map_mask(mask: Mask, f) -> Mask:
    """f applied to every mask of the chain (a view op transforms each the same way)."""
    return replace(f(mask), also=_map_mask(mask.also, f) if mask.also is not None else None)


@dataclass
class View:
    mem: SSAValue
    base: Val
    layout: RLayout
    vec: RLayout | None
    mask: Mask | None
    space: str
    elem: Attribute
    align: int  # bytes the memref's start is aligned to
    swizzle: object = None  # Swizzle of a composed layout
    swz_off: int = 0


def _rlayout(cl: cute.Layout, dyn: list | None = None, partial: bool = False) -> RLayout:
    """Run-time layout from a CuTe layout; DYN leaves take `dyn` values in order
    (shape leaves first, then stride leaves). With `partial`, DYN leaves left without a
    value stay DYN (for a caller that reads only the static modes)."""
    dyn = list(dyn or [])
    ms = views.modes(cl)
    flat = [views._flat(m) for m in ms]
    it = iter(dyn)

    def value(x):
        if x is not cute.DYN:
            return x
        return next(it, cute.DYN) if partial else next(it)

    shapes = [[value(s) for s, _ in f] for f in flat]
    strides = [[value(d) for _, d in f] for f in flat]
    return [list(zip(s, d)) for s, d in zip(shapes, strides)]


def _regroup(kept: RLayout, like: cute.Layout) -> RLayout:
    """The leaves of `kept` grouped into top-level modes as the layout `like` groups
    its leaves (the verifier checks they are the same leaves): a slice that keeps one
    nested mode `((4,8),..)[_, i]` is a view of the result type's modes, (4,8)."""
    leaves = [leaf for m in kept for leaf in m]
    out, i = [], 0
    for m in views.modes(like):
        n = len(views._flat(m))
        out.append(leaves[i:i + n])
        i += n
    return out if i == len(leaves) else kept


def _vec_text(v: View) -> str:
    """A view's vector layout as CuTe writes it, for messages."""
    if v.vec is None:
        return "scalars"
    shape = tuple(tuple(s for s, _ in m) if len(m) > 1 else m[0][0] for m in v.vec)
    stride = tuple(tuple(d for _, d in m) if len(m) > 1 else m[0][1] for m in v.vec)
    return f"vec {shape}:{stride}".replace(" ", "").replace("vec", "vec ")


def _is_static(rl: RLayout) -> bool:
    return all(isinstance(s, int) and isinstance(d, int) for m in rl for s, d in m)


def _uneven_bounds(b: IndexBuilder, layout: RLayout, parts: list[int] | tuple[int, ...]) -> list:
    """Per mode, its extent where `parts` (tile extents, thread counts) may not divide
    it (a mask must check it), else None."""
    out = []
    for m, t in zip(layout, parts):
        n = _mode_size(b, m)
        out.append(None if isinstance(n, int) and n % t == 0 else n)
    return out


def _mode_size(b: IndexBuilder, mode: list) -> Val:
    n: Val = 1
    for s, _ in mode:
        n = b.mul_(n, s)
    return n


def _eval_mode(b: IndexBuilder, mode: list, idx: Val) -> Val:
    """Offset of the 1-D index idx inside one mode (colexicographic over its leaves)."""
    off: Val = 0
    rest = idx
    for k, (s, d) in enumerate(mode):
        last = k == len(mode) - 1
        c = rest if last else b.rem_(rest, s)
        if not last:
            rest = b.div_(rest, s)
        off = b.add_(off, b.mul_(c, d))
    return off


def _eval_coords(b: IndexBuilder, rl: RLayout, coords: list) -> Val:
    off: Val = 0
    for m, c in zip(rl, coords):
        off = b.add_(off, _eval_mode(b, m, c))
    return off


def _mode_coords(b: IndexBuilder, rl: RLayout, idx: Val) -> list:
    out, rest = [], idx
    for k, m in enumerate(rl):
        if k == len(rl) - 1:
            out.append(rest)
        else:
            n = _mode_size(b, m)
            out.append(b.rem_(rest, n))
            rest = b.div_(rest, n)
    return out


def _lane_coords(b: IndexBuilder, vec: RLayout, lane: Val, order: tuple[int, ...] | None) -> list:
    """Per-mode coordinates of lane `lane` of a vector, the modes of `order` taken
    fastest first (None: colexicographic, mode 0 fastest)."""
    if order is None:
        return _mode_coords(b, vec, lane)
    cs = _mode_coords(b, [vec[k] for k in order], lane)
    out: list = [0] * len(vec)
    for k, c in zip(order, cs):
        out[k] = c
    return out


def _lane_order(s: View, d: View) -> tuple[int, ...] | None:
    """The order in which a copy takes the lanes of its vectors: the source vector's
    modes by increasing static stride, when both sides' vectors have the same mode
    sizes; None (colexicographic) otherwise."""
    if s.vec is None or d.vec is None or len(s.vec) != len(d.vec):
        return None
    sizes = [[x for x, _ in m] for m in s.vec]
    if sizes != [[x for x, _ in m] for m in d.vec] or len(s.vec) < 2:
        return None

    def key(k: int):
        ds = [dd for x, dd in s.vec[k] if x != 1]
        return min(ds) if ds and all(isinstance(dd, int) for dd in ds) else 1 << 62

    return tuple(sorted(range(len(s.vec)), key=key))


def _flat_linear(mode: list) -> bool:
    """Whether eval(a | b) == eval(a) + eval(b) for bit-disjoint a, b."""
    for s, _ in mode[:-1]:
        if not isinstance(s, int) or s & (s - 1):
            return False
    return True


# ============================================================================ the pass


class LowerToGpu(ModulePass):
    """Lower thread-level layout IR to the GPU level (docs/gpu-level.md): `gpu`,
    `arith`, `scf`, `memref`, `vector` and `cuda` ops with explicit index arithmetic.

    - Every `layout.launch` in a `func.func` is outlined into a `gpu.func ... kernel`
      (in `gpu.module @<func>_kernels`, `gpu.known_block_size = [threads, 1, 1]`); the
      func.func becomes the host function: `!layout.ptr` arguments become 1-D memrefs
      (`memref<Nxf32>` when every view of the pointer has a static cosize N, else
      `memref<?xf32>`), and the launch becomes a `gpu.launch_func` whose kernel operands
      are the memrefs and the index values the kernel uses. The module gets
      `gpu.container_module`.
    - Views disappear: each is (memref, base offset, run-time layout, optional mask)
      during the lowering, and tile / slice / vectorize / distribute / divide /
      partition become index arithmetic (`dialects/views.py` semantics).
    - `layout.load` / `layout.store` of distributed tensors: one scalar SSA value per
      register of the linear layout; coordinates are XORs of the bases of the set bits
      of (register, lane, warp), the register part folded at compile time. The op's
      `vector` property (set by `vectorize`) gives `vector.load`/`vector.store` of that
      many consecutive registers. Masked views are guarded with `scf.if` (loads give
      `other` or 0 outside); broadcast layouts store from one owner only.
    - `layout.copy` (thread fragments or whole tiles, done by every thread) and
      `layout.copy_async` (`cuda.cp_async` + `cuda.cp_async_commit`): vector accesses
      where the lanes are contiguous and aligned, scalar otherwise; unrolled up to 64
      accesses, a static `scf.for` beyond. `layout.async_wait` -> `cuda.cp_async_wait`.
    - `layout.alloc`: smem -> `memref.alloca` in memory space 3, rmem -> a per-thread
      `memref.alloca`; swizzled views index through the swizzle (xori/shrui/andi).
    - `layout.barrier` -> `gpu.barrier`; elementwise `arith` per register;
      `layout.splat`, `arange`, `expand_dims`, `broadcast`.
    - `layout.convert_layout` (`lower-convert-layout` left those that stay within
      warps): a register-only one -> a permutation of registers; one that stays within
      each warp -> `cuda.shfl_idx`, source lane and register from the linear layouts
      (one shuffle per destination register where the lanes can be paired up, the
      sender and reader choosing registers with selects; otherwise one per value of
      the reader-dependent register). A `cuda.comment` states each conversion's
      lowering and bank conflicts (a shared-memory round trip: its store's and load's
      `bank_conflicts` and `vector`; shuffles and registers: none).
    - `layout.reduce`: inside a thread, across the lanes of a warp (`cuda.shfl_idx`
      butterfly), across warps through shared memory in one round (one lane per group
      writes its partials, one barrier, every thread folds the warps' partials in warp
      order), in the order the reference executor combines.
    - `layout.scan` (passes/_lower_compute.py): inside a thread in order, across lanes
      by a Hillis-Steele `cuda.shfl_idx` scan, across warps and register chunks
      through shared memory (one barrier); the layout must put the axis in registers,
      then lanes, then warps, then registers again (dialects/scan_plan.py), else a
      located error.
    - `layout.permute`, `layout.reshape`, `layout.join`, `layout.split`: registers
      renamed, no data moves
      (the verifier checked the layouts).
    - `layout.gather` (passes/_lower_compute.py): in registers within the warp when
      every element a thread needs is in its warp (one `cuda.shfl_idx` per candidate
      register, then a select), else through shared memory (the source written once,
      one barrier, each thread reads its elements).
    - `layout.reduce_region`: as `layout.reduce`, the combiner region's scalar ops
      emitted once per combination, one shared buffer per operand.
    - `layout.cmpi`/`cmpf`/`select`, the integer casts and the `math` functions: their
      scalar op once per register.
    - `layout.load`/`store` with a computed `mask`: each element guarded by its mask
      register (and the view's bounds), `other` where a load's mask is false.
    - `scf.for` / `scf.if` / `scf.while` whose loop-carried values or results are
      distributed tensors: one iter_arg / result per distinct register of the thread
      (for scf.while: per value entering `before` and per value `scf.condition`
      forwards).

    Options: none.

    Preconditions: every copy is inside a `layout.launch`; conversions that move data
    between threads were lowered by `lower-convert-layout`; distributed layouts have
    32 lanes per warp. Anything else is a TilecError naming the op."""

    name = "lower-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # declarations (no body) have nothing to lower
        funcs = [f for f in op.body.block.ops if isinstance(f, func.FuncOp) and not f.is_declaration]
        kernel_modules = []
        for f in funcs:
            launches = [o for o in f.walk() if isinstance(o, layout.LaunchOp)]
            if not launches and not any(
                isinstance(a.type, PtrType) for a in f.args
            ) and not any(o.dialect_name() == "layout" for o in f.walk()):
                continue
            kernel_modules.append(_lower_func(f, launches))
        for km in kernel_modules:
            if km is not None:
                op.body.block.add_op(km)
        if any(km is not None for km in kernel_modules):
            op.attributes["gpu.container_module"] = UnitAttr()


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _fail(op: Operation, msg: str) -> TilecError:
    return TilecError(msg, op=op)


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
            else:
                raise _fail(o, f"'{o.name}' outside a layout.launch cannot be lowered to the GPU level (run tile/distribute first)")
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
    args_order = [a for a in f.args if a in seen and a in needed]
    args_order += [v for v in needed if v not in args_order]
    arg_types = []
    for v in args_order:
        if v in ptr_types:
            arg_types.append(ptr_types[v])
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
    lw = _KernelLowering(entry, launch, dict(zip(args_order, entry.args)), ptr_types)
    lw.run()
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


# ---------------------------------------------------------------------------- kernel


class _KernelLowering:
    def __init__(self, entry: Block, launch: layout.LaunchOp, args: dict, ptr_types):
        self.b = IndexBuilder(entry)
        self.launch = launch
        self.vals: dict[SSAValue, object] = {}
        self.args = args
        self.ptr_types = ptr_types
        b = self.b
        bid = [b.add(gpu.BlockIdOp(gpu.DimensionAttr(d))).results[0] for d in (gpu.DimensionEnum.X, gpu.DimensionEnum.Y, gpu.DimensionEnum.Z)]
        tid = b.add(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))).results[0]
        bid[0].name_hint, bid[1].name_hint, bid[2].name_hint, tid.name_hint = "bx", "by", "bz", "tid"
        ba = launch.body.block.args
        for a, v in zip(ba, [*bid, tid]):
            self.vals[a] = V(b, v)
        self.tid = V(b, tid)
        self.nthreads = launch.num_threads

    # -------------------------------------------------------------- values
    def get(self, v: SSAValue):
        if v in self.vals:
            return self.vals[v]
        if v in self.args:
            a = self.args[v]
            r = V(self.b, a) if isinstance(a.type, IndexType) else a
            self.vals[v] = r
            return r
        owner = v.owner
        if isinstance(owner, Operation) and owner.parent_op() is not None and not self._in_launch(owner):
            # a pure op of the host function (view or constant): lower it here
            self.lower(owner)
            return self.vals[v]
        raise TilecError(f"value {v.name_hint or ''} has no lowering", op=owner if isinstance(owner, Operation) else None)

    def _in_launch(self, op: Operation) -> bool:
        p = op
        while p is not None:
            if p is self.launch:
                return True
            p = p.parent_op()
        return False

    def idx(self, v: SSAValue) -> Val:
        x = self.get(v)
        if not isinstance(x, int | V):
            raise TilecError(f"expected an index value, got {x}")
        return x

    def ssa(self, v: SSAValue) -> SSAValue:
        x = self.get(v)
        if isinstance(x, int | V):
            return self.b.ssa(x)
        if isinstance(x, SSAValue):
            return x
        raise TilecError(f"expected a scalar, got a {type(x).__name__}")

    # -------------------------------------------------------------- driver
    def run(self):
        for op in list(self.launch.body.block.ops):
            self.lower(op)

    def lower(self, op: Operation):
        loc = get_loc(op)
        saved = self.b.loc_attr
        if isinstance(op, layout.CopyOp | layout.CopyAsyncOp | layout.LoadOp | layout.StoreOp):
            self.b.loc_attr = StringAttr(loc) if loc else None
        try:
            self._lower(op)
        except TilecError:
            raise
        except LayoutError as e:
            raise _fail(op, str(e)) from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, StopIteration) as e:
            # an input this lowering does not handle: say which op, never a traceback
            raise _fail(op, f"lower-to-gpu cannot lower this op ({type(e).__name__}: {e})") from None
        finally:
            self.b.loc_attr = saved

    def _lower(self, op: Operation):
        m = getattr(self, "op_" + op.name.replace(".", "_"), None)
        if m is not None:
            m(op)
            return
        if op.dialect_name() in ("arith", "math"):
            self.arith_op(op)
            return
        if isinstance(op, layout_compute.ELEMENTWISE_OPS):
            lower_elementwise(self, op)
            return
        if isinstance(op, layout_compute.ScanOp):
            lower_scan(self, op)
            return
        if isinstance(op, layout_compute.PermuteOp):
            lower_permute(self, op)
            return
        if isinstance(op, layout_compute.ReshapeOp):
            lower_reshape(self, op)
            return
        if isinstance(op, layout_compute.JoinOp):
            lower_join(self, op)
            return
        if isinstance(op, layout_compute.SplitOp):
            lower_split(self, op)
            return
        if isinstance(op, layout_compute.GatherOp):
            lower_gather(self, op)
            return
        raise _fail(op, f"'{op.name}' is not supported by lower-to-gpu")

    # -------------------------------------------------------------- arith
    def arith_op(self, op: Operation):
        b = self.b
        if isinstance(op, arith.ConstantOp):
            t = op.result.type
            val = op.value
            if isinstance(t, TensorType):
                ll = self.linear(t, op)
                if not (isinstance(val, DenseIntOrFPElementsAttr) and val.is_splat()):
                    raise _fail(op, "only splat constants of distributed tensors are supported")
                scalar = val.get_values()[0]
                et = t.element_type
                attr = FloatAttr(scalar, et) if not isinstance(et, IntegerType | IndexType) else IntegerAttr(int(scalar), et)
                c = b.add(arith.ConstantOp(attr)).results[0]
                self.vals[op.result] = [c] * ll.num_registers
                return
            if isinstance(t, IndexType):
                self.vals[op.result] = val.value.data
                return
            c = b.add(op.clone()).results[0]
            self.vals[op.result] = c
            return
        rt = [r.type for r in op.results]
        if any(isinstance(t, TensorType) for t in [*rt, *(o.type for o in op.operands)]):
            regs = [self.get(o) for o in op.operands]
            n = None
            for r in regs:
                if isinstance(r, list):
                    n = len(r)
            if n is None or any(not isinstance(r, list) or len(r) != n for r in regs):
                raise _fail(op, "elementwise ops need distributed operands of one layout")
            outs = [[] for _ in op.results]
            for k in range(n):
                new = op.create(
                    operands=[r[k] for r in regs],
                    result_types=[t.element_type if isinstance(t, TensorType) else t for t in rt],
                    properties=dict(op.properties),
                    attributes=dict(op.attributes),
                )
                b.add(new)
                for j, res in enumerate(new.results):
                    outs[j].append(res)
            for res, lst in zip(op.results, outs):
                self.vals[res] = lst
            return
        # scalar arith: fold index arithmetic where possible
        ops = [self.get(o) for o in op.operands]
        if all(isinstance(x, int) for x in ops) and isinstance(op.results[0].type, IndexType):
            fold = {
                arith.AddiOp: lambda a, c: a + c, arith.SubiOp: lambda a, c: a - c,
                arith.MuliOp: lambda a, c: a * c,
            }.get(type(op))
            if fold is not None:
                self.vals[op.results[0]] = fold(*ops)
                return
        new = op.create(
            operands=[x if isinstance(x, SSAValue) else b.ssa(x) for x in ops],
            result_types=rt, properties=dict(op.properties), attributes=dict(op.attributes),
        )
        b.add(new)
        for r, n in zip(op.results, new.results):
            self.vals[r] = V(b, n) if isinstance(n.type, IndexType) else n

    # -------------------------------------------------------------- views
    def op_layout_view(self, op: layout.ViewOp):
        rt: TensorViewType = op.result.type
        src = op.source
        dyn = [self.idx(d) for d in op.dynamic]
        if isinstance(src.type, PtrType):
            mem = self.get(src)
            self.vals[op.result] = View(mem, 0, _rlayout(rt.cute_layout, dyn), None, None, "gmem",
                                        rt.element_type, src.type.alignment)
            return
        sv: View = self.get(src)
        swz, soff = self._swizzle(rt)
        self.vals[op.result] = replace(sv, layout=_rlayout(rt.cute_layout, dyn), vec=None, mask=None,
                                       swizzle=swz, swz_off=soff)

    def _swizzle(self, t: TensorViewType):
        if isinstance(t.layout, ComposedLayoutAttr):
            c = t.layout.data
            if not c.swizzle.is_identity():
                return c.swizzle, c.offset
            return None, c.offset
        return None, 0

    def op_layout_alloc(self, op: layout.AllocOp):
        t: TensorViewType = op.result.type
        swz, soff = self._swizzle(t)
        n = t.cute_layout.cosize() + soff
        if swz is not None:
            sz = swz.size()
            n = -(-n // sz) * sz
        n *= t.vector_size
        space = cuda.SHARED_MEMORY_SPACE if t.memory_space == "smem" else None
        mt = MemRefType(t.element_type, [n], memory_space=space) if space else MemRefType(t.element_type, [n])
        a = self.b.add(memref.AllocaOp.get(t.element_type, shape=[n], memory_space=space) if space else memref.AllocaOp.get(t.element_type, shape=[n]))
        a.results[0].name_hint = "smem" if space else "regs"
        vec = _rlayout(t.vec_layout) if t.vec_layout is not None else None
        self.vals[op.result] = View(a.results[0], 0, _rlayout(t.cute_layout), vec, None, t.memory_space,
                                    t.element_type, 16, swz, soff)

    def _need_plain(self, op, sv: View):
        if sv.swizzle is not None or sv.swz_off:
            raise _fail(op, "view ops on swizzled layouts are not supported")

    def op_layout_tile(self, op: layout.TileOp):
        b = self.b
        sv: View = self.get(op.source)
        self._need_plain(op, sv)
        rt: TensorViewType = op.result.type
        tile = op.tile_sizes
        coords = [self.idx(c) for c in op.coords]
        base = sv.base
        for m, c, t in zip(sv.layout, coords, tile):
            base = b.add_(base, _eval_mode(b, m, b.mul_(c, t)))
        new_modes = []
        rmodes = _rlayout(rt.cute_layout, partial=True)  # read for static modes only
        for k, (m, t) in enumerate(zip(sv.layout, tile)):
            if all(isinstance(s, int) and isinstance(d, int) for s, d in m):
                new_modes.append(rmodes[k])
            elif len(m) == 1:
                new_modes.append([(t, m[0][1])])
            else:
                raise _fail(op, "tiling a hierarchical mode with dynamic values is not supported")
        limits = [coord_limit(c) for c in op.coords]
        if not rt.is_masked:
            for k, (m, t, lim) in enumerate(zip(sv.layout, tile, limits)):
                n = _mode_size(b, m)
                if isinstance(n, int) and lim is not None and lim > n // t:
                    raise _fail(
                        op,
                        f"tile coordinate {k} takes {lim} values but mode {k} of {n} "
                        f"elements has {n // t} tiles of {t}: the last tiles lie outside "
                        "the tensor; make the result type `masked` (they are then empty) "
                        f"or launch {n // t} blocks along it",
                    )
        mask = sv.mask
        if rt.is_masked:
            if mask is None:
                # an extent the tile does not divide, or a mode whose tiles an
                # over-provisioned grid (or a dynamic coordinate) may take past the end
                bounds = [
                    bd if bd is not None
                    or (lim is not None and isinstance(n, int) and lim <= n // t)
                    else n
                    for bd, lim, t, n in zip(
                        _uneven_bounds(b, sv.layout, tile), limits, tile,
                        [_mode_size(b, m) for m in sv.layout])
                ]
                mask = Mask([b.mul_(c, t) for c, t in zip(coords, tile)], [1] * len(tile), [1] * len(tile), bounds)
            else:
                mask = _map_mask(mask, lambda m: Mask(
                    [b.add_(o, b.mul_(s, b.mul_(c, t))) for o, s, c, t in zip(m.off, m.scale, coords, tile)],
                    m.scale, m.lscale, m.bound))
        self.vals[op.result] = replace(sv, base=base, layout=new_modes, mask=mask)

    def op_layout_vectorize(self, op: layout.VectorizeOp):
        b = self.b
        sv: View = self.get(op.source)
        self._need_plain(op, sv)
        rt: TensorViewType = op.result.type
        vecs = op.vector_sizes
        if _is_static(sv.layout):
            outer, inner = _rlayout(rt.cute_layout), _rlayout(rt.vec_layout)
        else:
            outer, inner = [], []
            for m, v in zip(sv.layout, vecs):
                if len(m) != 1 or not isinstance(m[0][0], int):
                    raise _fail(op, "vectorizing a hierarchical or dynamic-extent mode with dynamic strides is not supported")
                n, d = m[0]
                outer.append([(n // v, b.mul_(d, v))])
                inner.append([(v, d)])
        mask = sv.mask
        if mask is not None:
            mask = _map_mask(mask, lambda m: Mask(
                m.off, [s * v for s, v in zip(m.scale, vecs)], list(m.scale), m.bound))
        self.vals[op.result] = replace(sv, layout=outer, vec=inner, mask=mask)

    def op_layout_distribute(self, op: layout.DistributeOp):
        b = self.b
        sv: View = self.get(op.source)
        self._need_plain(op, sv)
        rt: TensorViewType = op.result.type
        thr = op.thread_layout
        tid = self.idx(op.tid)
        lim = coord_limit(op.tid)
        if lim is not None and lim > thr.size():
            raise _fail(
                op,
                f"the thread id takes {lim} values but the thread layout {thr} has "
                f"{thr.size()} threads (the CPU executor refuses the others too): "
                f"distribute by the id within a group of {thr.size()} threads "
                f"(tid % {thr.size()}) or by a thread layout of {lim} threads",
            )
        tco = views.thread_coord(thr, tid)
        counts = [t.size() for t in views.modes(thr)]
        base = sv.base
        for m, c in zip(sv.layout, tco):
            base = b.add_(base, _eval_mode(b, m, c))
        if _is_static(sv.layout):
            new = _rlayout(rt.cute_layout)
        else:
            new = []
            for m, t in zip(sv.layout, counts):
                if len(m) != 1 or not isinstance(m[0][0], int):
                    raise _fail(op, "distributing a hierarchical mode with dynamic strides is not supported")
                n, d = m[0]
                new.append([(-(-n // t), b.mul_(d, t))])
        mask = sv.mask
        if rt.is_masked:
            bounds = _uneven_bounds(b, sv.layout, counts)
            local = Mask(list(tco), list(counts), [0] * len(counts), bounds)
            if mask is None:
                mask = local
            else:
                mask = _map_mask(mask, lambda m: Mask(
                    [b.add_(o, b.mul_(s, c)) for o, s, c in zip(m.off, m.scale, tco)],
                    [s * t for s, t in zip(m.scale, counts)], m.lscale, m.bound))
                if any(n is not None for n in bounds):
                    # threads that do not divide the view's extents: its own extents
                    # bound the fragment too, not only the tensor it was tiled from
                    mask = mask.conjoin(local)
        if lim is None:
            # a thread id of unknown range: threads past the layout own nothing (the
            # CPU executor refuses them)
            r = len(new)
            guard = Mask([tid] + [0] * (r - 1), [0] * r, [0] * r, [thr.size()] + [None] * (r - 1))
            mask = guard if mask is None else mask.conjoin(guard)
        self.vals[op.result] = replace(sv, base=base, layout=new, mask=mask)

    def op_layout_slice(self, op: layout.SliceOp):
        b = self.b
        sv: View = self.get(op.source)
        self._need_plain(op, sv)
        it = iter(op.coords)
        base = sv.base
        kept = []
        for m, p in zip(sv.layout, op.pattern_values):
            if p == layout.WILDCARD:
                kept.append(m)
                continue
            c = self.idx(next(it)) if p == layout.DYNAMIC else p
            base = b.add_(base, _eval_mode(b, m, c))
        self.vals[op.result] = replace(sv, base=base, layout=_regroup(kept, op.result.type.cute_layout))

    def op_layout_divide(self, op: layout.DivideOp):
        sv: View = self.get(op.source)
        self._need_plain(op, sv)
        if not _is_static(sv.layout):
            raise _fail(op, "divide of a view with dynamic values is not supported")
        self.vals[op.result] = replace(sv, layout=_rlayout(op.result.type.cute_layout))

    def op_layout_partition(self, op: layout.PartitionOp):
        b = self.b
        sv: View = self.get(op.source)
        self._need_plain(op, sv)
        if not _is_static(sv.layout):
            raise _fail(op, "partition of a view with dynamic values is not supported")
        tv = op.tv.data
        tid = self.idx(op.tid)
        thr_mode = _rlayout(tv[0])[0] if tv[0].rank() <= 1 else [leaf for m in _rlayout(tv[0]) for leaf in m]
        logical = _eval_mode(b, thr_mode, tid)
        base = b.add_(sv.base, _eval_coords(b, sv.layout, _mode_coords(b, sv.layout, logical)))
        self.vals[op.result] = replace(sv, base=base, layout=_rlayout(op.result.type.cute_layout))

    # -------------------------------------------------------------- simple ops
    def op_layout_barrier(self, op):
        self.b.add(gpu.BarrierOp())

    def op_layout_async_wait(self, op: layout.AsyncWaitOp):
        self.b.add(cuda.CpAsyncWaitOp(op.pending.value.data))

    # -------------------------------------------------------------- element access
    def _offset(self, v: View, inner: Val) -> Val:
        """Storage index of layout offset `inner` (base added, swizzle applied)."""
        b = self.b
        if v.swizzle is None:
            return b.add_(v.base, b.add_(inner, v.swz_off))
        x = b.add_(inner, v.swz_off)
        sw = v.swizzle
        y = b.and_(x, sw.yyy_msk)
        y = b.shr_(y, sw.shift) if sw.shift >= 0 else b.shl_(y, -sw.shift)
        return b.add_(v.base, b.xor_(x, y))

    def _valid(self, v: View, coords: list, lanes: list | None = None) -> Val:
        if v.mask is None:
            return True
        b = self.b
        ok: Val = True
        for mk in v.mask.chain():
            for k, x in enumerate(coords):
                if mk.bound[k] is None:
                    continue
                r = b.add_(mk.off[k], b.mul_(mk.scale[k], x))
                if lanes is not None:
                    r = b.add_(r, b.mul_(mk.lscale[k], lanes[k]))
                c = b.lt_(r, mk.bound[k])
                ok = b.land(ok, c)
        return ok

    def _in_bounds(self, v: View) -> Val:
        """Whether every element of view v (this thread's part) lies inside its tensor:
        per masked mode k, the largest root coordinate touched,
        off + scale * (n - 1) + lscale * (lanes - 1), is < bound (False: unknown)."""
        if v.mask is None:
            return True
        b = self.b
        ok: Val = True
        for mk in v.mask.chain():
            if len(mk.off) != len(v.layout) or (v.vec is not None and len(v.vec) != len(v.layout)):
                return False
            for k, m in enumerate(v.layout):
                if mk.bound[k] is None:
                    continue
                top = b.add_(mk.off[k], b.mul_(mk.scale[k], b.sub_(_mode_size(b, m), 1)))
                if v.vec is not None:
                    top = b.add_(top, b.mul_(mk.lscale[k], b.sub_(_mode_size(b, v.vec[k]), 1)))
                ok = b.land(ok, b.lt_(top, mk.bound[k]))
        return ok

    def _fast_path(self, views: list, emit) -> list:
        """emit(masked) -> list of result values. When the masked views may be fully in
        bounds, one scf.if on that: unmasked code in the then branch, the per-element
        masked code in the else branch; the results are yielded from the scf.if."""
        b = self.b
        cond = self._all([self._in_bounds(v) for v in views])
        if cond is True or cond is False or all(v.mask is None for v in views):
            return emit(True)
        tb, eb = Block(), Block()
        with b.at(tb):
            rt = list(emit(False) or [])
        with b.at(eb):
            re_ = list(emit(True) or [])
        with b.at(tb):
            b.add(scf.YieldOp(*rt))
        with b.at(eb):
            b.add(scf.YieldOp(*re_))
        ifop = b.add(scf.IfOp(b.ssa(cond), [x.type for x in rt], Region(tb), Region(eb)))
        return list(ifop.results)

    def _if(self, cond: Val, result_types=()):
        """scf.if on cond; returns (op, then_block, else_block)."""
        c = self.b.ssa(cond)
        tb, eb = Block(), Block()
        op = scf.IfOp(c, list(result_types), Region(tb), Region(eb) if result_types else Region())
        self.b.add(op)
        return op, tb, eb

    def load_scalar(self, v: View, off: Val) -> SSAValue:
        return self.b.add(memref.LoadOp.get(v.mem, [self.b.ssa(off)])).results[0]

    def store_scalar(self, v: View, x: SSAValue, off: Val):
        self.b.add(memref.StoreOp.get(x, v.mem, [self.b.ssa(off)]))

    def load_vec(self, v: View, off: Val, n: int) -> SSAValue:
        vt = VectorType(v.elem, [n])
        return self.b.add(vector.LoadOp(v.mem, [self.b.ssa(off)], vt)).results[0]

    def store_vec(self, v: View, x: SSAValue, off: Val):
        self.b.add(vector.StoreOp(x, v.mem, [self.b.ssa(off)]))

    def extract(self, x: SSAValue, j: int) -> SSAValue:
        return self.b.add(vector.ExtractOp(x, [j], x.type.element_type)).results[0]

    def pack(self, xs: list, elem) -> SSAValue:
        b = self.b
        # the registers of one loaded vector, in order: store that vector again
        src = None
        for j, x in enumerate(xs):
            o = x.owner
            if not (isinstance(o, vector.ExtractOp) and len(o.static_position.get_values()) == 1
                    and o.static_position.get_values()[0] == j and not o.dynamic_position):
                break
            if src is None:
                src = o.vector
            elif o.vector is not src:
                break
        else:
            if src is not None and src.type == VectorType(elem, [len(xs)]):
                return src
        vt = VectorType(elem, [len(xs)])
        acc = b.add(vector.BroadcastOp(xs[0], vt)).results[0]
        for j, x in enumerate(xs[1:], 1):
            acc = b.add(vector.InsertOp(x, acc, [j])).results[0]
        return acc

    def zero(self, elem) -> SSAValue:
        attr = IntegerAttr(0, elem) if isinstance(elem, IntegerType) else FloatAttr(0.0, elem)
        key = ("zero", elem)
        if key not in self.b.memo:
            op = arith.ConstantOp(attr)
            e = self.b.entry
            e.insert_op_before(op, e.first_op) if e.first_op else e.add_op(op)
            self.b.memo[key] = op.result
        return self.b.memo[key]

    # -------------------------------------------------------------- distributed values
    def linear(self, t: TensorType, op: Operation):
        try:
            return to_linear(t.encoding, list(t.get_shape()))
        except Exception as e:  # noqa: BLE001
            raise _fail(op, f"cannot make a linear layout of {t}: {e}") from None

    def thread_coords(self, ll, op) -> list[Val]:
        """Per tensor dim, the thread's part of the coordinate (lane and warp bits)."""
        lanes, warps = ll.get_bases("lane"), ll.get_bases("warp")
        if warps and len(lanes) != 5:
            raise _fail(op, "distributed layouts must have 32 lanes per warp")
        if ll.get_bases("block"):
            raise _fail(op, "distributed layouts over several blocks are not supported")
        bits = [(i, bs) for i, bs in enumerate(lanes)] + [(5 + i, bs) for i, bs in enumerate(warps)]
        return [self.tid_linear([(i, bs[d]) for i, bs in bits if bs[d]]) for d in range(ll.rank)]

    def tid_linear(self, pieces: list[tuple[int, int]]) -> Val:
        """XOR, over the pairs (i, v) of `pieces` whose thread-id bit i is set, of v: the
        value of a linear (GF(2)) function of the thread id. Runs of consecutive tid bits
        that land on consecutive bits become one shift-and-mask."""
        b = self.b
        pieces = [(i, v) for i, v in pieces if v]
        single = sorted((i, v.bit_length() - 1) for i, v in pieces if v & (v - 1) == 0)
        multi = [(i, v) for i, v in pieces if v & (v - 1)]
        acc: Val = 0
        used = 0
        disjoint = True
        # merge runs of consecutive tid bits onto consecutive coordinate bits
        k = 0
        while k < len(single):
            i0, c0 = single[k]
            n = 1
            while k + n < len(single) and single[k + n] == (i0 + n, c0 + n):
                n += 1
            piece = b.shl_(b.and_(b.shr_(self.tid, i0), (1 << n) - 1), c0)
            m = ((1 << n) - 1) << c0
            if used & m:
                disjoint = False
            used |= m
            acc = b.or_(acc, piece) if disjoint else b.xor_(acc, piece)
            k += n
        for i, v in multi:
            bit = b.and_(b.shr_(self.tid, i), 1)
            acc = b.xor_(acc, b.mul_(bit, v))
        return acc

    @staticmethod
    def thread_mask(ll) -> list[int]:
        m = [0] * ll.rank
        for bs in (*ll.get_bases("lane"), *ll.get_bases("warp")):
            for d, x in enumerate(bs):
                m[d] |= x
        return m  # XORs of the bases only set bits that some basis sets

    @staticmethod
    def reg_coords(ll) -> list[tuple[int, ...]]:
        return [ll.apply(register=r) for r in range(ll.num_registers)]

    def element_offsets(self, v: View, ll, op):
        """Functions giving (storage index, validity) of register r's element of this
        thread; computed on demand (only for the registers actually accessed)."""
        b = self.b
        if len(v.layout) != ll.rank:
            raise _fail(op, "view rank and tensor rank differ")
        tco = self.thread_coords(ll, op)
        tmask = self.thread_mask(ll)
        regs = self.reg_coords(ll)
        linear = [
            all(isinstance(s, int) for s, _ in m) and _flat_linear(m) for m in v.layout
        ]
        all_disjoint = all(
            linear[d] and all((rc[d] & tmask[d]) == 0 for rc in regs) for d in range(ll.rank)
        )
        toff = _eval_coords(b, v.layout, tco) if all_disjoint else None
        mks = v.mask.chain() if v.mask is not None else []
        troots = None
        if mks and all_disjoint:
            troots = [[b.add_(o, b.mul_(s, t)) for o, s, t in zip(m.off, m.scale, tco)] for m in mks]

        tbase = None
        if all_disjoint and v.swizzle is None:
            tbase = b.add_(v.base, b.add_(toff, v.swz_off))

        def off(r: int) -> Val:
            rc = regs[r]
            if tbase is not None:
                return b.add_(tbase, _eval_coords(b, v.layout, list(rc)))
            if all_disjoint:
                return self._offset(v, b.add_(toff, _eval_coords(b, v.layout, list(rc))))
            cs = [b.xor_(t, x) for t, x in zip(tco, rc)]
            return self._offset(v, _eval_coords(b, v.layout, cs))

        def valid(r: int) -> Val:
            if not mks:
                return True
            rc = regs[r]
            if troots is not None:
                ok: Val = True
                for mk, troot in zip(mks, troots):
                    for k in range(len(rc)):
                        if mk.bound[k] is None:
                            continue
                        ok = b.land(ok, b.lt_(b.add_(troot[k], mk.scale[k] * rc[k]), mk.bound[k]))
                return ok
            return self._valid(v, [b.xor_(t, x) for t, x in zip(tco, rc)])

        return off, valid

    def op_layout_load(self, op: layout.LoadOp):
        b = self.b
        self.smem_conversion_comment(op)
        v: View = self.get(op.view)
        rt: TensorType = op.result.type
        ll = self.linear(rt, op)
        offs, valid = self.element_offsets(v, ll, op)
        valid = self._with_mask(op, valid)
        regs = self.reg_coords(ll)
        vec = op.vector.value.data if op.vector is not None else 1
        other = self.ssa(op.other) if op.other is not None else None
        elem = rt.element_type

        def emit(masked: bool) -> list:
            ok = valid if masked else (lambda r: True)
            out: list = [None] * len(regs)
            first: dict = {}
            for g in range(0, len(regs), vec):
                group = list(range(g, g + vec))
                if all(regs[r] in first for r in group):
                    for r in group:
                        out[r] = out[first[regs[r]]]
                    continue
                vals = self.masked_read(v, offs(g), [ok(r) for r in group], lambda r0, g=g: offs(g + r0), vec, elem, other)
                for r, x in zip(group, vals):
                    out[r] = x
                    first.setdefault(regs[r], r)
            return out

        self.vals[op.result] = self._fast_path([v], emit) if op.mask is None else emit(True)

    def _with_mask(self, op: layout.LoadOp | layout.StoreOp, valid):
        """The validity of register r's element conjoined with register r of the op's
        computed `mask` (a tensor of i1 in the value's layout), when it has one; the
        masked path is then always taken (the fast path's bounds test cannot know it)."""
        if op.mask is None:
            return valid
        bits = self.get(op.mask)
        b = self.b
        return lambda r: b.land(valid(r), V(b, bits[r]))

    def masked_read(self, v: View, off0: Val, valid: list, offs: list, n: int, elem, other) -> list:
        """Read n elements (a vector at off0 when n > 1) guarded by per-lane validity."""
        b = self.b

        def plain():
            if n == 1:
                return [self.load_scalar(v, off0)]
            x = self.load_vec(v, off0, n)
            return [self.extract(x, j) for j in range(n)]

        if all(c is True for c in valid):
            return plain()
        fill = other if other is not None else self.zero(elem)
        same = all(b.ssa(c) is b.ssa(valid[0]) if not isinstance(c, bool) and not isinstance(valid[0], bool) else c is valid[0] for c in valid)
        if same and n > 1:
            x = self.guarded_read(valid[0], lambda: self.load_vec(v, off0, n),
                                  lambda: b.add(vector.BroadcastOp(fill, VectorType(elem, [n]))).results[0])
            return [self.extract(x, j) for j in range(n)]
        # one element, or lanes that differ: scalar guarded loads
        outs = []
        for j, c in enumerate(valid):
            o = off0 if n == 1 else offs(j)  # computed before the scf.if, as used after it
            outs.append(self.guarded_read(c, lambda o=o: self.load_scalar(v, o), lambda: fill))
        return outs

    def guarded_read(self, cond: Val, read, fill) -> SSAValue:
        """read() where cond holds, else fill(): an scf.if yielding the value (the read
        alone when cond is True)."""
        b = self.b
        if cond is True:
            return read()
        x = None

        def then():
            nonlocal x
            x = read()
            return x

        tb, eb = Block(), Block()
        with b.at(tb):
            b.add(scf.YieldOp(then()))
        with b.at(eb):
            b.add(scf.YieldOp(fill()))
        return b.add(scf.IfOp(b.ssa(cond), [x.type], Region(tb), Region(eb))).results[0]

    def masked_write(self, v: View, xs: list, off0: Val, valid: list, offs: list, pre_vec: SSAValue | None = None):
        b = self.b
        n = len(xs)

        def plain(guard_lanes: bool):
            if n == 1 and not guard_lanes:
                self.store_scalar(v, xs[0], off0)
            elif not guard_lanes:
                self.store_vec(v, pre_vec if pre_vec is not None else self.pack(xs, v.elem), off0)
            else:
                for j, (x, c) in enumerate(zip(xs, valid)):
                    o = offs(j)
                    if c is True:
                        self.store_scalar(v, x, o)
                    elif c is not False:
                        _, tb, _ = self._if(c)
                        with b.at(tb):
                            self.store_scalar(v, x, o)
                            b.add(scf.YieldOp())

        if all(c is True for c in valid):
            plain(False)
            return
        same = all((not isinstance(c, bool)) and (not isinstance(valid[0], bool)) and b.ssa(c) is b.ssa(valid[0]) for c in valid)
        if same or n == 1:
            _, tb, _ = self._if(valid[0])
            with b.at(tb):
                plain(False)
                b.add(scf.YieldOp())
            return
        plain(True)

    def smem_conversion_comment(self, op: layout.StoreOp | layout.LoadOp):
        """The `cuda.comment` for a shared-memory round trip of `lower-convert-layout`:
        its store and load carry `bank_conflicts` (worst ways - 1 of the access) and
        `vector`; stated once, at the store (at the load when it has no such store)."""
        if "bank_conflicts" not in op.attributes:
            return
        partner_cls = layout.LoadOp if isinstance(op, layout.StoreOp) else layout.StoreOp
        partners = [u.operation for u in op.view.uses
                    if isinstance(u.operation, partner_cls) and "bank_conflicts" in u.operation.attributes]
        if isinstance(op, layout.LoadOp) and partners:
            return  # said at the store
        sides = [op] + partners[:1]
        write = next((x for x in sides if isinstance(x, layout.StoreOp)), None)
        read = next((x for x in sides if isinstance(x, layout.LoadOp)), None)

        def info(x):
            return x.attributes["bank_conflicts"].value.data, x.vector.value.data if x.vector is not None else 1

        parts = []
        if write is not None:
            parts.append(f"{info(write)[0]} bank conflicts per write")
        if read is not None:
            parts.append(f"{info(read)[0]}{' bank conflicts' if write is None else ''} per read")
        vectors = sorted({info(x)[1] for x in (write, read) if x is not None})
        if len(vectors) == 1:
            parts.append(f"vector {vectors[0]}")
        else:
            parts.append(f"vectors of {info(write)[1]} (write) and {info(read)[1]} (read)")
        self.comment("convert_layout via smem: " + ", ".join(parts))

    def op_layout_store(self, op: layout.StoreOp):
        b = self.b
        self.smem_conversion_comment(op)
        v: View = self.get(op.view)
        t: TensorType = op.value.type
        xs = self.get(op.value)
        ll = self.linear(t, op)
        offs, valid = self.element_offsets(v, ll, op)
        valid = self._with_mask(op, valid)
        regs = self.reg_coords(ll)
        vec = op.vector.value.data if op.vector is not None else 1
        # broadcast over lanes / warps: only the owner whose redundant bits are 0 stores
        redundant = 0
        for i, bs in enumerate(ll.get_bases("lane")):
            if not any(bs):
                redundant |= 1 << i
        for i, bs in enumerate(ll.get_bases("warp")):
            if not any(bs):
                redundant |= 1 << (5 + i)
        owner: Val = True if not redundant else b.eq0(b.and_(self.tid, redundant))

        def emit(masked: bool) -> list:
            ok = valid if masked else (lambda r: True)
            seen = set()
            for g in range(0, len(regs), vec):
                if regs[g] in seen:
                    continue
                group = list(range(g, g + vec))
                for r in group:
                    seen.add(regs[r])
                vs = [b.land(owner, ok(r)) for r in group]
                self.masked_write(v, [xs[r] for r in group], offs(g), vs, lambda j, g=g: offs(g + j))
            return []

        if op.mask is None:
            self._fast_path([v], emit)
        else:
            emit(True)

    # -------------------------------------------------------------- distributed ops
    def op_layout_convert_layout(self, op: layout.ConvertLayoutOp):
        s, r = op.source.type, op.result.type
        shape = list(s.get_shape())
        try:
            kind = conversion_kind(to_linear(s.encoding, shape), to_linear(r.encoding, shape))
        except LayoutError as e:
            raise _fail(op, str(e)) from None
        src, dst = self.linear(s, op), self.linear(r, op)
        if kind in ("identity", "register") and self.is_permutation(src, dst):
            self.comment("convert_layout in registers: a renaming of registers, no data "
                         "moves between threads, 0 bank conflicts (no shared memory)")
            self.vals[op.result] = self.permute(self.get(op.source), src, dst, op)
            return
        if kind in ("register", "warp_shuffle"):
            # (a 'register' conversion whose register choice depends on the lane: selects)
            self.vals[op.result] = self.shuffle_convert(op, self.get(op.source), src, dst)
            return
        raise _fail(op, f"a '{kind}' layout conversion must be lowered by lower-convert-layout first")

    def comment(self, text: str) -> cuda.CommentOp:
        """A `cuda.comment` at the current point (the cuda target prints `// text`)."""
        return self.b.add(cuda.CommentOp(text))

    def shuffle_convert(self, op, xs: list, src, dst) -> list:
        """Registers of `dst` from the registers `xs` of `src` when the conversion stays
        within each warp (`conversion_kind` is `warp_shuffle`): one `cuda.shfl_idx` per
        destination register where it can be arranged, `arith.select`s choosing registers.

        The conversion map: for destination register r of the thread (lane l, warp w),
        the source (register, lane) of the same warp that holds its element. Both are
        linear in (r, l, w), since the warp parts of src and dst differ by an element of
        the span of src's register and lane bases:
            src_reg  = cr(r) ^ kr(l, w)        src_lane = cl(r) ^ kl(l, w)
        - When kl restricted to lanes is a bijection (each lane is read by exactly one
          lane per shuffle), the sending lane p works out which reader reads it and
          sends that reader's register: register c(r) ^ g(p, w) of the sender, g linear
          in the sender's thread id, picked with selects; one shuffle per register.
        - Otherwise each reader picks: one shuffle per value of kr (for each k in the
          span of kr's images, every lane sends register cr(r) ^ k) and the reader
          selects the one whose k is its kr(l, w).
        Results equal the source registers bit for bit (shuffles only move values)."""
        b = self.b
        rank = src.rank

        def xor(u, v):
            return tuple(p ^ q for p, q in zip(u, v))

        target = LinearLayout({
            "register": dst.get_bases("register"), "lane": dst.get_bases("lane"),
            "warp": [xor(x, y) for x, y in zip(dst.get_bases("warp"), src.get_bases("warp"))],
        }, list(dst.out_shape))
        within = LinearLayout({"register": src.get_bases("register"), "lane": src.get_bases("lane")},
                              list(src.out_shape))
        if len(src.get_bases("lane")) != 5 or len(dst.get_bases("lane")) != 5:
            raise _fail(op, "warp shuffles need 32 lanes per warp")
        if src.get_bases("block") or dst.get_bases("block"):
            raise _fail(op, "distributed layouts over several blocks are not supported")
        try:
            cmap = target.invert_and_compose(within)
        except LayoutError:
            raise _fail(op, "the conversion moves data between warps: not a warp shuffle") from None
        assert rank == dst.rank
        note = self.comment("convert_layout via warp shuffles")  # counts filled in below

        def where(**inp) -> tuple[int, int]:
            out = dict(zip(cmap.out_dims, cmap.apply(**inp)))
            return out.get("register", 0), out.get("lane", 0)

        # images of the reader's thread-id bits: lane bits 0..4, warp bits 5..
        tid_bits = [(i, where(lane=1 << i)) for i in range(5)]
        tid_bits += [(5 + j, where(warp=1 << j)) for j in range(len(dst.get_bases("warp")))]
        kl = [(i, c[1]) for i, c in tid_bits]
        kr = [(i, c[0]) for i, c in tid_bits]
        lane_part: Val = 0  # the reader's lane-dependent part of the source lane
        lanes_i32: dict = {}

        def lane_of(cl: int) -> SSAValue:
            x = b.ssa(b.xor_(lane_part, cl))
            if x not in lanes_i32:
                if isinstance(x.owner, arith.ConstantOp):
                    lanes_i32[x] = b.const(x.owner.value.value.data, i32)
                else:
                    lanes_i32[x] = b.add(arith.IndexCastOp(x, i32)).results[0]
            return lanes_i32[x]

        def pick(base: int, span: list[int], key: Val, values) -> SSAValue:
            """values(base ^ s) for the s of `span` equal to the run-time `key`."""
            val = values(base)
            for s in span:
                if s:
                    val = b.add(arith.SelectOp(b.ssa(b.eq_(key, s)), values(base ^ s), val)).results[0]
            return val

        nshfl = nsel = 0
        out = []

        n_dst_reg = len(dst.get_bases("register"))
        cl_r = [where(register=1 << j)[1] for j in range(n_dst_reg)]
        cr_r = [where(register=1 << j)[0] for j in range(n_dst_reg)]
        free = [1 << i for i, bs in enumerate(src.get_bases("lane")) if not any(bs)]
        offsets = lane_offsets([v for i, v in kl if i < 5], cl_r, free)
        if offsets is not None:
            f_l = [x for x, _ in offsets]
            # round k: reader lane l receives its register k ^ f(l) from lane
            # p = cl(k) ^ m(l) ^ kl_warp(w), m = kl_lane ^ cl o f invertible, so the
            # sender p knows its reader and sends register c(k) ^ g(p, w)
            m = [v ^ apply_bits(cl_r, x) ^ z for (i, v), (x, z) in zip(kl[:5], offsets)]
            inv = LinearLayout({"lane": [(v,) for v in m]}, [32]).invert()

            def reader_of(p: int) -> int:
                return inv.apply(dim0=p)[0]

            nr = [v ^ apply_bits(cr_r, f) for (i, v), f in zip(kr[:5], f_l)]  # lane -> src register
            g = [(i, apply_bits(nr, reader_of(1 << i))) for i in range(5)]
            g += [(i, apply_bits(nr, reader_of(lv)) ^ rv) for (i, lv), (_, rv) in zip(kl[5:], kr[5:])]
            span = span_of([v for _, v in g])
            gkey = self.tid_linear(g) if len(span) > 1 else 0
            lane_part = self.tid_linear([(i, v) for (i, _), v in zip(kl[:5], m)] + kl[5:])
            identity = all(v == 1 << i for i, v in enumerate(m)) and not any(v for _, v in kl[5:])
            rounds = []
            for k in range(dst.num_registers):
                cl = apply_bits(cl_r, k)
                c = apply_bits(cr_r, k) ^ apply_bits(nr, reader_of(cl))
                sent = pick(c, span, gkey, lambda x: xs[x])
                nsel += len(span) - 1
                if identity and cl == 0:
                    rounds.append(sent)  # every lane reads its own lane
                    continue
                rounds.append(b.add(cuda.ShflIdxOp(sent, lane_of(cl), 32)).results[0])
                nshfl += 1
            # the reader's register r came in round r ^ f(l)
            fspan = span_of(f_l)
            fkey = self.tid_linear([(i, f) for i, f in enumerate(f_l)]) if len(fspan) > 1 else 0
            for r in range(dst.num_registers):
                out.append(pick(r, fspan, fkey, lambda x: rounds[x]))
                nsel += len(fspan) - 1
        else:
            lane_part = self.tid_linear(kl)
            span = span_of([v for _, v in kr])
            key = self.tid_linear(kr) if len(span) > 1 else 0
            shuffled: dict = {}

            def shfl(k: int, lane: SSAValue) -> SSAValue:
                nonlocal nshfl
                if (k, lane) not in shuffled:
                    shuffled[(k, lane)] = b.add(cuda.ShflIdxOp(xs[k], lane, 32)).results[0]
                    nshfl += 1
                return shuffled[(k, lane)]

            for r in range(dst.num_registers):
                cr, cl = where(register=r)
                lane = lane_of(cl)
                out.append(pick(cr, span, key, lambda k, lane=lane: shfl(k, lane)))
                nsel += len(span) - 1
        how = "via warp shuffles" if nshfl else "in registers, chosen per lane"
        note.properties["text"] = StringAttr(
            f"convert_layout {how}: {_count(nshfl, 'shuffle')}, {_count(nsel, 'select')}"
            " per thread, 0 bank conflicts (no shared memory)")
        return out

    @staticmethod
    def is_permutation(src, dst) -> bool:
        """Whether dst's registers are src's registers renamed, the same in every thread
        (equal lane and warp bases; what `permute` lowers)."""
        return all(src.get_bases(n) == dst.get_bases(n) for n in ("lane", "warp"))

    def permute(self, xs: list, src, dst, op, project=None) -> list:
        """dst register r <- the src register holding the same element (all threads)."""
        def proj(c):
            return tuple(project(c)) if project else tuple(c)

        for n in ("lane", "warp"):
            sb, db = src.get_bases(n), dst.get_bases(n)
            if len(sb) != len(db) or any(proj(x) != tuple(y) for x, y in zip(db, sb)) and not all(
                proj(x) == tuple(y) for x, y in zip(db, sb)):
                pass
            for x, y in zip(db, sb):
                if proj(x) != tuple(y):
                    raise _fail(op, "the conversion moves data between threads: not a register permutation")
        where = {}
        for k in range(src.num_registers):
            where.setdefault(tuple(src.apply(register=k)), k)
        out = []
        for k in range(dst.num_registers):
            c = proj(dst.apply(register=k))
            if c not in where:
                raise _fail(op, "the conversion is not a register permutation")
            out.append(xs[where[c]])
        return out

    def op_layout_splat(self, op: layout.SplatOp):
        ll = self.linear(op.result.type, op)
        self.vals[op.result] = [self.ssa(op.value)] * ll.num_registers

    def op_layout_arange(self, op: layout.ArangeOp):
        b = self.b
        t = op.result.type
        ll = self.linear(t, op)
        tco = self.thread_coords(ll, op)[0]
        start = op.start.value.data
        tmask = self.thread_mask(ll)[0]
        out = []
        for rc in self.reg_coords(ll):
            if rc[0] & tmask == 0:
                x = b.add_(b.add_(tco, rc[0]), start)
            else:
                x = b.add_(b.xor_(tco, rc[0]), start)
            s = b.ssa(x)
            out.append(b.add(arith.IndexCastOp(s, i32)).results[0] if isinstance(s.type, IndexType) else s)
        # constants were index: cast them too
        out = [o if o.type == i32 else b.add(arith.IndexCastOp(o, i32)).results[0] for o in out]
        self.vals[op.result] = out

    def op_layout_expand_dims(self, op: layout.ExpandDimsOp):
        ax = op.axis.value.data
        src = self.linear(op.source.type, op)
        dst = self.linear(op.result.type, op)
        self.vals[op.result] = self.permute(self.get(op.source), src, dst, op,
                                            project=lambda c: [x for d, x in enumerate(c) if d != ax])

    def op_layout_broadcast(self, op: layout.BroadcastOp):
        ss = list(op.source.type.get_shape())
        src = self.linear(op.source.type, op)
        dst = self.linear(op.result.type, op)
        self.vals[op.result] = self.permute(self.get(op.source), src, dst, op,
                                            project=lambda c: [0 if ss[d] == 1 else x for d, x in enumerate(c)])

    def op_layout_reduce(self, op: layout.ReduceOp):
        b = self.b
        st: TensorType = op.source.type
        combine_cls = COMBINERS[(op.kind.data, not isinstance(st.element_type, IntegerType))]

        def comb(a, c):
            return (b.add(combine_cls(a[0], c[0])).results[0],)

        (self.vals[op.result],) = self.reduce_values(
            op, op.axis.value.data, st, op.result.type, [self.get(op.source)], comb)

    def op_layout_reduce_region(self, op):
        """`layout.reduce_region`: the combiner region's ops lowered as scalars, once per
        combination (block arguments bound to the two tuples' values)."""
        body = op.combiner.block
        n = len(op.srcs)

        def comb(a, c):
            for arg, v in zip(body.args, [*a, *c]):
                self.vals[arg] = v
            for o in body.ops:
                if o is body.last_op:
                    return tuple(self.ssa(x) for x in o.operands)
                self.lower(o)
            raise _fail(op, "the combiner region has no terminator")

        outs = self.reduce_values(op, op.axis.value.data, op.srcs[0].type, op.results[0].type,
                                  [self.get(x) for x in op.srcs], comb)
        for r, v in zip(op.results, outs[:n]):
            self.vals[r] = v

    def reduce_values(self, op, ax: int, st: TensorType, rt: TensorType, xss: list, comb) -> list:
        """Reduce the distributed values `xss` (registers of each, all in the layout of
        `st`) together along `ax`: comb(tuple, tuple) -> tuple combines one element of
        each. Inside the thread in register order, then a butterfly over the lane bits
        along the axis, then one round through shared memory across the warps; returns
        the registers of each result (layout of `rt`, the slice of `st`)."""
        b = self.b
        src = self.linear(st, op)
        dst = self.linear(rt, op)

        def proj(c):
            return tuple(x for d, x in enumerate(c) if d != ax)

        # within the thread: group registers by their non-axis coordinate
        groups: dict = {}
        seen_full: set = set()
        for k in range(src.num_registers):
            c = tuple(src.apply(register=k))
            if c in seen_full:
                continue  # broadcast copy of an element: count it once
            seen_full.add(c)
            p = proj(c)
            x = tuple(xs[k] for xs in xss)
            groups[p] = x if p not in groups else comb(groups[p], x)
        # across lanes: butterfly over the lane bits that move along the axis
        lanes = src.get_bases("lane")
        for i, bs in enumerate(lanes):
            if bs[ax] == 0:
                continue
            if any(bs[d] for d in range(len(bs)) if d != ax):
                raise _fail(op, "a lane basis that moves along several dims is not supported in reduce")
            lane_src = b.ssa(b.xor_(b.and_(self.tid, 31), 1 << i))
            lane32 = b.add(arith.IndexCastOp(lane_src, i32)).results[0]
            for p in list(groups):
                other = tuple(b.add(cuda.ShflIdxOp(v, lane32, 32)).results[0] for v in groups[p])
                groups[p] = comb(groups[p], other)
        steps = []
        for j, bs in enumerate(src.get_bases("warp")):
            if bs[ax] == 0:
                continue
            if any(bs[d] for d in range(len(bs)) if d != ax):
                raise _fail(op, "a warp basis that moves along several dims is not supported in reduce")
            steps.append(32 << j)
        if steps:
            lane_mask = sum(1 << i for i, bs in enumerate(lanes) if bs[ax])
            self.reduce_across_warps(op, groups, steps, lane_mask, comb)
        out: list = [[] for _ in xss]
        for k in range(dst.num_registers):
            c = tuple(dst.apply(register=k))
            if c not in groups:
                raise _fail(op, "reduce: result layout does not match the source's slice")
            for lst, v in zip(out, groups[c]):
                lst.append(v)
        for n in ("lane", "warp"):
            for x, y in zip(dst.get_bases(n), src.get_bases(n)):
                if tuple(x) != proj(y):
                    raise _fail(op, "reduce: result layout is not the slice of the source layout")
        return out

    def reduce_across_warps(self, op, groups: dict, steps: list[int], lane_mask: int, comb):
        """Combine each thread's partials in `groups` (tuples: one value per reduced
        operand) with those of the other warps along the reduced axis (`steps`: the
        thread-id bits of those warps, lowest first) in one round through shared memory,
        as the Gluon tutorial says (butterfly shuffles within the warp, then one round
        through shared memory). After the shuffles, the lanes that differ only in
        `lane_mask` (the lane bits along the axis) hold the same partials: the one with
        those bits zero writes them, partial k of thread t at k * S + c(t), c(t) being t
        without the `lane_mask` bits (S = threads / 2^popcount(lane_mask)), one buffer
        per operand; one barrier; each thread reads the slots of the 2^len(steps) threads
        that differ from it only in the `steps` bits, in warp order, and folds them, as
        `reduce_like_a_gpu` of the reference executor does. Writers of one warp take
        consecutive slots and readers of one slot read it together: no bank conflicts.
        A reduce inside a loop starts with a barrier (the previous iteration's reads)."""
        b = self.b
        keys = list(groups)
        n = self.nthreads
        slots = n >> bin(lane_mask).count("1")
        bufs = []
        for j, v in enumerate(groups[keys[0]]):
            buf_op = memref.AllocaOp.get(v.type, shape=[len(keys) * slots], memory_space=cuda.SHARED_MEMORY_SPACE)
            buf_op.results[0].name_hint = "red"
            e = b.entry
            e.insert_op_before(buf_op, e.first_op) if e.first_op else e.add_op(buf_op)
            bufs.append(buf_op.results[0])
        ways = 1 << len(steps)
        self.comment(f"reduce across {ways} warps via smem: one round of {_count(len(keys), 'partial')} "
                     f"per thread, 0 bank conflicts per write, 0 per read")
        if self._in_loop(op):
            b.add(gpu.BarrierOp())

        def write():
            mine = self._compress(self.tid, lane_mask, n)
            for k, p in enumerate(keys):
                for buf, v in zip(bufs, groups[p]):
                    b.add(memref.StoreOp.get(v, buf, [b.ssa(b.add_(mine, k * slots))]))

        self._guarded(b.eq0(b.and_(self.tid, lane_mask)) if lane_mask else True, write)
        b.add(gpu.BarrierOp())
        base = b.and_(self.tid, ~(sum(steps) | lane_mask) & (2 * n - 1))
        reads = []
        for j in range(ways):
            off = sum(st for i, st in enumerate(steps) if j >> i & 1)
            reads.append(self._compress(b.add_(base, off), lane_mask, n))
        for k, p in enumerate(keys):
            acc = None
            for r in reads:
                at = b.ssa(b.add_(r, k * slots))
                x = tuple(b.add(memref.LoadOp.get(buf, [at])).results[0] for buf in bufs)
                acc = x if acc is None else comb(acc, x)
            groups[p] = acc

    def _compress(self, t: Val, drop: int, n: int) -> Val:
        """t (a thread id below n) with the bits of `drop` removed, the bits above
        each shifted down: one and + shift per run of kept bits."""
        b = self.b
        out: Val = 0
        pos = dst = 0
        while (1 << pos) < n:
            if drop >> pos & 1:
                pos += 1
                continue
            end = pos
            while (1 << end) < n and not drop >> end & 1:
                end += 1
            run = b.and_(t, ((1 << end) - 1) & ~((1 << pos) - 1))
            out = b.add_(out, b.shr_(run, pos - dst))  # dst <= pos: the run moves down
            dst += end - pos
            pos = end
        return out

    def _in_loop(self, op: Operation) -> bool:
        p = op.parent_op()
        while p is not None and p is not self.launch:
            if isinstance(p, scf.ForOp | scf.WhileOp):
                return True
            p = p.parent_op()
        return False

    # -------------------------------------------------------------- scf
    def carrier(self, t: Attribute, op: Operation):
        """How a value of type t crosses a region boundary (loop-carried value, if
        result): (types of its SSA values, pack: lowered value -> SSA values, unpack:
        SSA values -> lowered value). A distributed tensor is its per-thread registers,
        one SSA value per distinct element (broadcast copies share one); an index is an
        SSA index; other scalars are themselves. Views cannot be carried."""
        b = self.b
        if isinstance(t, TensorType) and t.encoding is not None:
            regs = self.reg_coords(self.linear(t, op))
            slot: dict = {}
            for r, c in enumerate(regs):
                slot.setdefault(c, len(slot))
            firsts = [regs.index(c) for c in slot]
            return ([t.element_type] * len(slot), lambda xs: [xs[r] for r in firsts],
                    lambda vs: [vs[slot[c]] for c in regs])
        if isinstance(t, IndexType):
            return [t], lambda x: [b.ssa(x)], lambda vs: V(b, vs[0])
        if isinstance(t, TensorViewType | PtrType | TensorType):
            raise _fail(op, f"a {t} cannot be carried through {op.name}")
        return [t], lambda x: [x if isinstance(x, SSAValue) else b.ssa(x)], lambda vs: vs[0]

    def lower_region_body(self, src: Block, dst: Block, carriers: list):
        """Lower the ops of `src` into `dst`; its scf.yield yields the packed values."""
        with self.b.at(dst):
            for o in src.ops:
                if isinstance(o, scf.YieldOp):
                    flat = [v for c, x in zip(carriers, o.operands) for v in c[1](self.get(x))]
                    self.b.add(scf.YieldOp(*flat))
                else:
                    self.lower(o)

    def _unpack_all(self, carriers: list, values: list, targets: list):
        it = iter(values)
        for c, t in zip(carriers, targets):
            self.vals[t] = c[2]([next(it) for _ in c[0]])

    def op_scf_for(self, op: scf.ForOp):
        """scf.for: bounds lowered as index values; each iter_arg becomes the SSA values
        of its carrier (a distributed tensor: one iter_arg per register)."""
        b = self.b
        carriers = [self.carrier(v.type, op) for v in op.iter_args]
        inits = [v for c, x in zip(carriers, op.iter_args) for v in c[1](self.get(x))]
        body = Block(arg_types=[index, *[t for c in carriers for t in c[0]]])
        loop = b.add(scf.ForOp(b.ssa(self.idx(op.lb)), b.ssa(self.idx(op.ub)), b.ssa(self.idx(op.step)),
                               inits, Region(body)))
        src = op.body.block
        if src.args[0].name_hint:
            body.args[0].name_hint = src.args[0].name_hint
        self.vals[src.args[0]] = V(b, body.args[0])
        self._unpack_all(carriers, list(body.args[1:]), list(src.args[1:]))
        self.lower_region_body(src, body, carriers)
        self._unpack_all(carriers, list(loop.results), list(op.results))

    def op_scf_if(self, op: scf.IfOp):
        """scf.if: the condition as an i1; results are carried as in `op_scf_for`."""
        b = self.b
        carriers = [self.carrier(r.type, op) for r in op.results]
        types = [t for c in carriers for t in c[0]]
        then = Block()
        other = Block() if op.false_region.blocks else None
        self.lower_region_body(op.true_region.block, then, carriers)
        if other is not None:
            self.lower_region_body(op.false_region.block, other, carriers)
        cond = b.ssa(self.get(op.cond)) if not isinstance(self.get(op.cond), SSAValue) else self.get(op.cond)
        new = b.add(scf.IfOp(cond, types, Region(then), Region(other) if other is not None else Region()))
        self._unpack_all(carriers, list(new.results), list(op.results))

    def op_scf_while(self, op: scf.WhileOp):
        """scf.while: the values entering `before` (the operands, then what `after`
        yields) and the values `scf.condition` forwards to `after` and to the results
        are carried as in `op_scf_for`; the condition is an i1 of each thread."""
        b = self.b
        into = [self.carrier(v.type, op) for v in op.arguments]
        out = [self.carrier(r.type, op) for r in op.results]
        inits = [v for c, x in zip(into, op.arguments) for v in c[1](self.get(x))]
        before = Block(arg_types=[t for c in into for t in c[0]])
        after = Block(arg_types=[t for c in out for t in c[0]])
        self._unpack_all(into, list(before.args), list(op.before_region.block.args))
        self._unpack_all(out, list(after.args), list(op.after_region.block.args))
        with b.at(before):
            for o in op.before_region.block.ops:
                if isinstance(o, scf.ConditionOp):
                    flat = [v for c, x in zip(out, o.args) for v in c[1](self.get(x))]
                    cond = self.get(o.condition)
                    b.add(scf.ConditionOp(cond if isinstance(cond, SSAValue) else b.ssa(cond), *flat))
                else:
                    self.lower(o)
        self.lower_region_body(op.after_region.block, after, into)
        new = b.add(scf.WhileOp(inits, [t for c in out for t in c[0]], Region(before), Region(after)))
        self._unpack_all(out, list(new.results), list(op.results))

    # -------------------------------------------------------------- copies (CuTe path)
    def op_layout_copy(self, op: layout.CopyOp):
        if op.convert is not None:
            raise TilecError(
                "lower-to-gpu: a converting copy (convert = ...) must be distributed "
                "first (its conversion happens between a load and a store)",
                op=op,
            )
        self.copy(op, asynchronous=False)

    def op_layout_copy_async(self, op: layout.CopyAsyncOp):
        self.copy(op, asynchronous=True)
        self.b.add(cuda.CpAsyncCommitOp())

    def _vec_info(self, v: View, order: tuple[int, ...] | None = None) -> tuple[int, int]:
        """(lanes, run): `run` is the widest access (a power of two) that every vector of
        the view is made of: its lanes come in aligned groups of `run` contiguous
        elements (a 2x2 vector of a row-major tile is two runs of 2). Lanes 0 (dynamic
        vector layouts) and run 1 when nothing wider is safe."""
        if v.vec is None:
            return 1, 1
        b = self.b
        n = 1
        for m in v.vec:
            for s, _ in m:
                if not isinstance(s, int):
                    return 0, 1
                n *= s
        offs = []
        for j in range(n):
            o = _eval_coords(b, v.vec, _lane_coords(b, v.vec, j, order))
            if not isinstance(o, int):
                return n, 1
            offs.append(o)
        if v.swizzle is not None:
            return n, 1
        eb = element_bytes(v.elem)
        g = b.div_of(v.base) if not isinstance(v.base, int) else (v.base or 1 << 30)
        for m in v.layout:
            for _, d in m:
                g = gcd(g, d if isinstance(d, int) else b.div_of(d))
        g = gcd(g, v.swz_off or 1 << 30)

        def fits(k: int) -> bool:
            if n % k or k * eb > 16 or g % k or (v.space == "gmem" and v.align % (k * eb)):
                return False
            return all(
                offs[q] % k == 0 and offs[q:q + k] == list(range(offs[q], offs[q] + k))
                for q in range(0, n, k)
            )

        run = 1
        while fits(run * 2):
            run *= 2
        return n, run

    def copy(self, op, asynchronous: bool):
        s: View = self.get(op.source)
        d: View = self.get(op.dest)

        def emit(masked: bool) -> list:
            if masked:
                self._copy(op, asynchronous, s, d)
            else:
                self._copy(op, asynchronous, replace(s, mask=None), replace(d, mask=None))
            return []

        self._fast_path([s, d], emit)

    def _copy(self, op, asynchronous: bool, s: View, d: View):
        b = self.b
        for v in (s, d):
            for m in v.layout:
                for sz, _ in m:
                    if not isinstance(sz, int):
                        raise _fail(op, "copies of views with dynamic extents must be tiled first")
        # lanes of a vector are taken fastest-stride mode first when both sides have
        # vectors of the same shape (the pairing of lanes is unchanged), so that a 2x2
        # vector of row-major tiles is two runs of 2 contiguous lanes
        order = _lane_order(s, d)
        ns, rs = self._vec_info(s, order)
        nd, rd = self._vec_info(d, order)
        if ns == 0 or nd == 0:
            raise _fail(op, "vectorized views need static vector layouts")
        outer_s = 1
        for m in s.layout:
            outer_s *= _mode_size(b, m)
        total = outer_s * ns
        eb = element_bytes(s.elem)
        # chunk: number of scalars moved per access, the widest run both sides share
        # (a 2x2 vector of row-major tiles moves as two 2-element accesses)
        chunk = min(rs, rd)
        if asynchronous and chunk * eb not in (4, 8, 16):
            raise _fail(
                op,
                f"copy_async of {ns}-element vectors ({_vec_text(s)}) into {nd}-element "
                f"vectors ({_vec_text(d)}): their common contiguous, aligned run is "
                f"{chunk} element(s) = {chunk * eb} bytes, and cp.async moves 4, 8 or 16 "
                "bytes; vectorize along the contiguous mode",
            )
        steps = total // chunk

        def body(i: Val):
            # scalar logical index e = i*chunk + j; per side (outer index, lane)
            def locate(v: View, n: int, e: Val):
                oi = b.div_(e, n)
                lane = b.rem_(e, n)
                coords = _mode_coords(b, v.layout, oi)
                inner = _eval_coords(b, v.layout, coords)
                lanes = None
                if v.vec is not None:
                    lanes = _lane_coords(b, v.vec, lane, order)
                    inner = b.add_(inner, _eval_coords(b, v.vec, lanes))
                return self._offset(v, inner), self._valid(v, coords, lanes)

            e0 = b.mul_(i, chunk)
            if chunk > 1:
                so, sv_ = locate(s, ns, e0)
                do, dv_ = locate(d, nd, e0)
                lane_ok = [b.land(self._lane_valid(s, e0, j, ns, order), self._lane_valid(d, e0, j, nd, order)) for j in range(chunk)]
                cond = b.land(sv_, dv_)
                if asynchronous:
                    self._guarded(b.land(cond, self._all(lane_ok)), lambda: b.add(cuda.CpAsyncOp(d.mem, b.ssa(do), s.mem, b.ssa(so), chunk * eb)))
                    return
                full = self._all(lane_ok)
                if full is True or self._same(lane_ok):
                    c = b.land(cond, lane_ok[0])
                    if c is True and deferred is not None:
                        x = self.load_vec(s, so, chunk)
                        deferred.append(lambda: self.store_vec(d, x, do))
                        return
                    self._guarded(c, lambda: self.store_vec(d, self.load_vec(s, so, chunk), do))
                    return
                # partially valid vectors: per lane
                for j in range(chunk):
                    ej = b.add_(e0, j)
                    so_j, sv_j = locate(s, ns, ej)
                    do_j, dv_j = locate(d, nd, ej)
                    self._guarded(b.land(sv_j, dv_j), lambda so_j=so_j, do_j=do_j: self.store_scalar(d, self.load_scalar(s, so_j), do_j))
                return
            so, sv_ = locate(s, ns, e0)
            do, dv_ = locate(d, nd, e0)
            c = b.land(sv_, dv_)
            if c is True and deferred is not None:
                x = self.load_scalar(s, so)
                deferred.append(lambda: self.store_scalar(d, x, do))
                return
            self._guarded(c, lambda: self.store_scalar(d, self.load_scalar(s, so), do))

        deferred = None
        if steps <= UNROLL_LIMIT:
            # all loads first, then all stores: the loads are in flight together
            deferred = [] if s.mem is not d.mem else None
            for i in range(steps):
                body(i)
            for st in deferred or ():
                st()
        else:
            lb, ub, st = b.ssa(0), b.ssa(steps), b.ssa(1)
            blk = Block(arg_types=[index])
            loop = scf.ForOp(lb, ub, st, [], Region(blk))
            b.add(loop)
            with b.at(blk):
                body(V(b, blk.args[0]))
                b.add(scf.YieldOp())

    def _lane_valid(self, v: View, e0: Val, j: int, n: int, order=None) -> Val:
        """Whether scalar e0 + j (e0 a multiple of the chunk, which divides n) exists."""
        if v.mask is None:
            return True
        b = self.b
        if v.vec is None:
            return True
        e = b.add_(e0, j)
        oi = b.div_(e, n)
        coords = _mode_coords(b, v.layout, oi)
        lanes = _lane_coords(b, v.vec, b.rem_(e, n), order)
        return self._valid(v, coords, lanes)

    def _all(self, cs: list) -> Val:
        acc: Val = True
        for c in cs:
            acc = self.b.land(acc, c)
        return acc

    def _same(self, cs: list) -> bool:
        b = self.b
        if any(isinstance(c, bool) for c in cs):
            return all(c is True for c in cs)
        return all(b.ssa(c) is b.ssa(cs[0]) for c in cs)

    def _guarded(self, cond: Val, emit):
        b = self.b
        if cond is True:
            emit()
            return
        if cond is False:
            return
        _, tb, _ = self._if(cond)
        with b.at(tb):
            emit()
            b.add(scf.YieldOp())
