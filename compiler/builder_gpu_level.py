"""GPU-level programs from Python (docs/gpu-level.md's level: what `lower-to-gpu`
produces, what `-t cuda` prints and the reference executor runs): a host function whose
arguments are flat buffers (1-D memrefs) and indices, launching kernels written with
`gpu` ids, `memref` / `vector` accesses, `scf` control flow and the `cuda` ops.

    g = GpuProgram("copy")
    g.buffer("src", "f32", 1024)
    g.buffer("dst", "f32", 1024)
    with g.kernel(grid=4, block=256) as (src, dst):
        i = g.block_id("x") * g.block_dim("x") + g.thread_id("x")
        dst[i] = src[i]                   # memref.load, memref.store
    module = g.module

It is `KernelBuilding` (compiler/kernel_builder.py) over a `gpu.func`: Values take the
same Python operators (`+ - * // %` on index: addi, subi, muli, divsi, remsi; `p.divui`
and `p.remui` for the unsigned ones), `range` / `if_` / `if_else` / `while_` build `scf`,
`insert` any xDSL op there is no method for. Indexing a buffer Value is `memref.load` /
`memref.store`, `buf.load(4, i)` / `buf.store(4, i, v)` a `vector.load` / `vector.store`.
Ops get the user's `file:line:col` as their location, so the executor's and the
passes' errors name the Python line that built the op."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import func, gpu, memref, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.rewriter import InsertPoint

from tilec.dialects.cuda import SHARED_MEMORY_SPACE, CpAsyncCommitOp, CpAsyncOp, CpAsyncWaitOp, ShflIdxOp
from tilec.support.diagnostics import LOC_ATTR, TilecError

from .builder_locations import located
from .builder_types import ARGS_ATTR, element_type
from .kernel_builder import KernelBuilding, Value

REGISTER_MEMORY_SPACE = IntegerAttr(5, i64)
"""The memory space of a per-thread register array (NVVM's local space; docs/gpu-level.md)."""

_SPACES = {"smem": SHARED_MEMORY_SPACE, "rmem": REGISTER_MEMORY_SPACE, None: NoneAttr()}


def _dim(d: str) -> gpu.DimensionAttr:
    if d not in ("x", "y", "z"):
        raise TilecError(f"dimension {d!r}: expected 'x', 'y' or 'z'")
    return gpu.DimensionAttr(gpu.DimensionEnum(d))


def _three(x: int | Value | Sequence[int | Value]) -> list[int | Value]:
    xs = list(x) if isinstance(x, Sequence) else [x]
    if not 1 <= len(xs) <= 3:
        raise TilecError(f"a grid or block has 1 to 3 extents, got {len(xs)}")
    return xs + [1] * (3 - len(xs))


@located
class GpuProgram(KernelBuilding):
    """A GPU-level program being built: the host function `name` and the kernels it
    launches (the module docstring)."""

    def __init__(self, name: str):
        """An empty host function named `name`.

            g = GpuProgram("copy")
        """
        self.name = name
        self._host = Block()
        self._builder = Builder(InsertPoint.at_end(self._host))
        self._locs: dict[Operation, str | None] = {}
        self._values: dict[str, Attribute] = {}
        self._kernels: dict[str, list[gpu.FuncOp]] = {}
        self._module: ModuleOp | None = None
        self._source: str | None = None

    def _put(self, op) -> None:
        super()._put(op)
        if self._source is not None:
            op.attributes[LOC_ATTR] = StringAttr(self._source)

    @contextmanager
    def source_location(self, loc: str) -> Iterator[None]:
        """The ops built in the `with` body stand for `loc` (`file:line:col`) of the
        program this one was made from: their `tilec.loc` attribute, which the CUDA
        printer writes as a `// file:line:col` comment (as `lower-to-gpu` marks the ops
        it makes with their source line).

            with g.source_location("copy.py:7:3"):
                dst.store(4, i, src.load(4, i))
        """
        saved, self._source = self._source, loc
        try:
            yield
        finally:
            self._source = saved

    def _arg(self, name: str, t: Attribute) -> Value:
        taken = [a.name_hint for a in self._host.args]
        if name in taken:
            raise TilecError(f"argument name '{name}' is taken (the arguments so far: {', '.join(taken)})")
        arg = self._host.insert_arg(t, len(self._host.args))
        arg.name_hint = name
        return Value(self, arg)

    def buffer(self, name: str, dtype: str | Attribute = "f32", size: int | None = None) -> Value:
        """A global buffer argument of the host function: a 1-D memref of `size`
        elements of `dtype` (`memref<1024xf32>`), or of a size known at run time
        (`memref<?xf32>`) when `size` is None.

            src = g.buffer("src", "f32", 1024)
            dst = g.buffer("dst", "f32")                 # memref<?xf32>
        """
        return self._arg(name, MemRefType(element_type(dtype), [DYNAMIC_INDEX if size is None else size]))

    def index(self, name: str, value: int | None = None) -> Value:
        """An index argument of the host function; `value` (optional) is recorded in the
        function's `tilec.args` attribute, the value a run takes when none is given.

            n = g.index("n", value=1000)
        """
        if value is not None:
            self._values[name] = IntegerAttr(value, IndexType())
        return self._arg(name, IndexType())

    @contextmanager
    def kernel(self, grid: int | Value | Sequence[int | Value] = 1, block: int | Sequence[int | Value] = 128,
               name: str | None = None, module: str = "k", known_block_size: Sequence[int] | None = None,
               args: Sequence[Value] | None = None) -> Iterator[tuple[Value, ...]]:
        """`gpu.launch_func @module::@name` in the host with `grid` blocks of `block`
        threads (1 to 3 extents each; ints or host index Values), passing `args` (host
        Values; every host argument when None); the `with` body builds the `gpu.func` (a
        kernel of `gpu.module @module`, its arguments named as what is passed), whose
        arguments it yields. The kernel states `gpu.known_block_size` = the block where
        it is static (or `known_block_size`).

            with g.kernel(grid=(8, 8), block=(32, 8)) as (src, dst):
                tx = g.thread_id("x")
            with g.kernel(grid=1, block=32, name="scale", args=[dst, total]) as (dst, total):
                pass
        """
        name = name or self.name
        gs, bs = _three(grid), _three(block)
        passed = list(self._host.args) if args is None else [a.ssa for a in args]
        self.insert(gpu.LaunchFuncOp(SymbolRefAttr(module, [StringAttr(name)]),
                                     [self.as_index(x) for x in gs], [self.as_index(x) for x in bs],
                                     None, passed))
        types = [a.type for a in passed]
        entry = Block(arg_types=types)
        for a, h in zip(entry.args, passed):
            a.name_hint = h.name_hint
        if known_block_size is None and all(isinstance(b, int) for b in bs):
            known_block_size = bs  # type: ignore[assignment]
        f = gpu.FuncOp(name, (types, []), Region(entry), kernel=True,
                       known_block_size=list(known_block_size) if known_block_size is not None else None)
        self._kernels.setdefault(module, []).append(f)
        with self._at(entry):
            yield tuple(Value(self, a) for a in entry.args)
            self.insert(gpu.ReturnOp([]))

    def thread_id(self, dim: str = "x") -> Value:
        """`gpu.thread_id`: the thread's coordinate `dim` ("x", "y", "z") in its block.

            tx = g.thread_id("x")
        """
        return self.insert(gpu.ThreadIdOp(_dim(dim))).results[0]

    def block_id(self, dim: str = "x") -> Value:
        """`gpu.block_id`: the block's coordinate `dim` in the grid.

            bx = g.block_id("x")
        """
        return self.insert(gpu.BlockIdOp(_dim(dim))).results[0]

    def block_dim(self, dim: str = "x") -> Value:
        """`gpu.block_dim`: the block's extent along `dim`.

            bdim = g.block_dim("x")
        """
        return self.insert(gpu.BlockDimOp(_dim(dim))).results[0]

    def grid_dim(self, dim: str = "x") -> Value:
        """`gpu.grid_dim`: the grid's extent (in blocks) along `dim`.

            nblocks = g.grid_dim("x")
        """
        return self.insert(gpu.GridDimOp(_dim(dim))).results[0]

    def lane_id(self) -> Value:
        """`gpu.lane_id`: the thread's lane in its warp (0 to 31).

            lane = g.lane_id()
        """
        return self.insert(gpu.LaneIdOp()).results[0]

    def barrier(self) -> None:
        """`gpu.barrier`: every thread of the block waits here (`__syncthreads`).

            g.barrier()
        """
        self.insert(gpu.BarrierOp())

    def alloca(self, size: int, dtype: str | Attribute = "f32", space: str | None = "smem",
               alignment: int | None = None) -> Value:
        """`memref.alloca` of `size` elements: shared memory of the block (`"smem"`,
        memory space 3), a register array of the thread (`"rmem"`, memory space 5) or a
        local array (None).

            tile = g.alloca(1056, "f32").named("tile")  # memref<1056xf32, 3 : i64>
            regs = g.alloca(4, "f32", "rmem")
        """
        if space not in _SPACES:
            raise TilecError(f"memory space {space!r}: expected 'smem', 'rmem' or None")
        return self.insert(memref.AllocaOp.get(element_type(dtype), alignment, [size],
                                               memory_space=_SPACES[space])).results[0]

    def splat(self, x: Value, width: int) -> Value:
        """`vector.broadcast`: a vector of `width` copies of the scalar `x`.

            v0 = g.splat(g.constant(0.0, "f32"), 4)      # vector<4xf32>
        """
        return self.insert(vector.BroadcastOp(x.ssa, VectorType(x.type, [width]))).results[0]

    def vector_extract(self, v: Value, position: Any) -> Value:
        """`vector.extract`: element `position` (an int, or an index Value) of the vector `v`.

            first = g.vector_extract(v, 0)
        """
        pos = position if isinstance(position, int) else self.as_index(position)
        return self.insert(vector.ExtractOp(v.ssa, [pos], v.type.element_type)).results[0]

    def vector_insert(self, x: Value, v: Value, position: Any) -> Value:
        """`vector.insert`: the vector `v` with element `position` (an int or an index
        Value) replaced by the scalar `x`.

            w = g.vector_insert(first, b, 1)
        """
        pos = position if isinstance(position, int) else self.as_index(position)
        return self.insert(vector.InsertOp(x.ssa, v.ssa, [pos])).results[0]

    def create_mask(self, n: Any, width: int) -> Value:
        """`vector.create_mask`: a `vector<width x i1>` whose first `n` (an index) lanes
        are set.

            m = g.create_mask(100 - i, 4)
        """
        return self.insert(vector.CreateMaskOp([self.as_index(n)], VectorType(i1, [width]))).results[0]

    def masked_load(self, buf: Value, index: Any, mask: Value, other: Value) -> Value:
        """`vector.maskedload`: the lanes of `mask` read from `buf` at `index`, the others
        taken from the vector `other`.

            v = g.masked_load(src, i, m, g.splat(g.constant(0.0, "f32"), 4))
        """
        t = VectorType(buf.type.element_type, mask.type.get_shape())
        return self.insert(vector.MaskedLoadOp(buf.ssa, [self.as_index(index)], mask.ssa, other.ssa, t)).results[0]

    def masked_store(self, buf: Value, index: Any, mask: Value, v: Value) -> None:
        """`vector.maskedstore`: the lanes of `mask` of the vector `v` written to `buf` at `index`.

            g.masked_store(dst, i, m, v)
        """
        self.insert(vector.MaskedStoreOp(buf.ssa, [self.as_index(index)], mask.ssa, v.ssa))

    def subview(self, buf: Value, offset: Any, size: int) -> Value:
        """`memref.subview %buf[offset] [size] [1]`: `size` consecutive elements of the 1-D
        buffer from `offset` (an index), as a buffer of its own.

            row = g.subview(src, r * 16, 16)             # memref<16xf32, strided<[1], offset: ?>>
        """
        t = MemRefType(buf.type.element_type, [size], StridedLayoutAttr([1], None), buf.type.memory_space)
        op = memref.SubviewOp(buf.ssa, [self.as_index(offset)], [], [], [DYNAMIC_INDEX], [size], [1], t)
        return self.insert(op).results[0]

    def cp_async(self, dst: Value, dst_index: Any, src: Value, src_index: Any, nbytes: int) -> None:
        """`cuda.cp_async`: copy `nbytes` (4, 8 or 16) from the global buffer `src` at
        element `src_index` to the shared buffer `dst` at `dst_index`, asynchronously
        (done after `cp_async_commit` and a `cp_async_wait` that covers it).

            g.cp_async(s, i, src, j, 16)
        """
        self.insert(CpAsyncOp(dst.ssa, self.as_index(dst_index), src.ssa, self.as_index(src_index), nbytes))

    def cp_async_commit(self) -> None:
        """`cuda.cp_async_commit`: close the group of this thread's `cp_async` so far.

            g.cp_async_commit()
        """
        self.insert(CpAsyncCommitOp())

    def cp_async_wait(self, pending: int = 0) -> None:
        """`cuda.cp_async_wait`: wait until at most `pending` of this thread's committed
        groups are in flight.

            g.cp_async_wait(0)
        """
        self.insert(CpAsyncWaitOp(pending))

    def shfl_idx(self, x: Value, lane: Value, width: int = 32) -> Value:
        """`cuda.shfl_idx`: `x` of lane `lane` (an i32) of this thread's group of `width`
        lanes (`__shfl_sync`); every lane of the warp must take part.

            y = g.shfl_idx(x, (31 - g.lane_id()).cast("i32"))
        """
        return self.insert(ShflIdxOp(x.ssa, lane.ssa, width)).results[0]

    @property
    def module(self) -> ModuleOp:
        """The finished, verified module (`gpu.container_module`: the host function, then
        one `gpu.module` per module name); build nothing after reading it.

            out = tilec.run_reference(g.module, {"src": x, "dst": y})
        """
        if self._module is None:
            self._builder.insert(func.ReturnOp())
            types = [a.type for a in self._host.args]
            host = func.FuncOp(self.name, (types, []), Region(self._host))
            if self._values:
                host.attributes[ARGS_ATTR] = DictionaryAttr(self._values)
            kernels = [gpu.ModuleOp(StringAttr(m), Region(Block(fs)))  # type: ignore[arg-type]
                       for m, fs in self._kernels.items()]
            module = ModuleOp([host, *kernels])
            module.attributes["gpu.container_module"] = UnitAttr()
            self._module = self._verified(module)
        return self._module
