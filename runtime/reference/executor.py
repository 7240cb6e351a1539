"""The interpreter: xDSL's `Interpreter` driving tilec's NumPy-per-thread impls.

xDSL's framework (`xdsl.interpreter`) walks regions, keeps SSA values in scopes and
dispatches each op to an `@impl` of a registered `InterpreterFunctions` class; tilec's
classes (`ArithFunctions`, `ScfFunctions`, `MemoryFunctions`, `GpuFunctions`, ...)
implement ops over the values described in `values.py`. `ReferenceInterpreter`
overrides only `_run_op`, the per-op dispatch, so that an `ExecutionError` reaches the
caller as it was raised (xDSL's dispatch appends a dump of the whole module to every
exception) and an op without an implementation is reported at its location. The
simulated grid of the running kernel is `interpreter.grid` (None on the host).

Host functions run with uniform values only: `index` and integer arguments are NumPy
scalars, buffers are `HostArray`s. `gpu.launch_func` (and `gpu.launch`) make a
`Grid`, wrap each distinct array in a global `Storage` whose race tracking lives for
that launch, and run the kernel's body once for all threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    SymbolRefAttr,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImplResult,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import TensorViewType
from tilec.support.index_width import promised_index_bits

from .errors import ExecutionError
from .memory import GLOBAL, PRIVATE, SHARED, AsyncCopies, MemRef, Storage, contiguous_strides
from .simt import WARP_SIZE, Grid
from .values import InFlight, UnsupportedType, dtype_of


def arg_names(fn: func.FuncOp) -> list[str]:
    """The name of each argument of `fn` (its SSA name, or arg<i>)."""
    return [a.name_hint or f"arg{i}" for i, a in enumerate(fn.body.block.args)]


@dataclass(eq=False)
class HostArray:
    """A buffer argument on the host: the flat array the kernels read and write."""

    name: str
    data: np.ndarray  # flat, contiguous
    shape: tuple[int, ...]  # the shape the caller gave


@dataclass
class ReferenceInterpreter(Interpreter):
    grid: Grid | None = None
    async_copies: AsyncCopies | None = None
    """The running launch's cp.async copies in flight (None on the host)."""
    index_bits: int = 64
    """The index width the running kernel promises (`tilec.index_bits`,
    support/index_width.py): at 32, every `index` result of its ops is checked to fit
    (offsets of masked elements included: the executor computes them as the GPU does)."""
    launches: int = 0
    launch_log: list[tuple[str, tuple[int, int, int], tuple[int, int, int]]] = field(
        default_factory=list
    )

    def _run_op(self, op: Operation, inputs: PythonValues) -> OpImplResult:
        entry = self._impls._impl_dict.get(type(op))  # pyright: ignore[reportPrivateUsage]
        if entry is None:
            raise ExecutionError(
                op, f"the reference executor cannot run '{op.name}' (no implementation)"
            )
        functions, op_impl = entry
        if op.name not in PASSES_IN_FLIGHT:
            _check_not_in_flight(op, inputs)
        try:
            result = op_impl(functions, self, op, inputs)
        except ExecutionError:
            raise
        except (UnsupportedType, LayoutError) as e:
            raise ExecutionError(op, str(e)) from None
        except InterpretationError as e:
            raise ExecutionError(op, str(e)) from e
        except Exception as e:  # a bug of the executor: still say where, keep the cause
            raise ExecutionError(
                op,
                f"internal error of the reference executor: {type(e).__name__}: {e}",
            ) from e
        if len(result.values) != len(op.results):
            raise ExecutionError(
                op,
                f"internal error: implementation gave {len(result.values)} results "
                f"for {len(op.results)}",
            )
        if self.index_bits == 32 and self.grid is not None:
            _check_index32(op, result.values)
        return result


PASSES_IN_FLIGHT = {"layout.mma", "layout.mma_wait", "scf.yield", "scf.for"}
"""Ops that may take the result of an asynchronous `layout.mma` still in flight
(values.InFlight): they read no register of it (`layout.mma` checks that it is the
accumulator)."""


def _check_not_in_flight(op: Operation, inputs: PythonValues) -> None:
    for i, v in enumerate(inputs):
        if isinstance(v, InFlight):
            name = op.operands[i].name_hint if i < len(op.operands) else None
            raise ExecutionError(
                op,
                f"'{op.name}' reads {'%' + name if name else f'operand {i}'}, the result of an asynchronous "
                f"layout.mma still in flight (its group is not retired): read the result of a "
                f"layout.mma_wait that retires it",
            )


INDEX32 = 2**31


def _check_index32(op: Operation, values) -> None:
    """An ExecutionError where an `index` result of `op` leaves the 32 bits its kernel
    promises (`tilec.index_bits = 32`)."""
    for r, v in zip(op.results, values):
        if not isinstance(r.type, IndexType):
            continue
        a = np.asarray(v)
        if a.size and a.dtype.kind in "iu" and (a.min() < -INDEX32 or a.max() >= INDEX32):
            bad = int(a.max()) if a.max() >= INDEX32 else int(a.min())
            raise ExecutionError(
                op,
                f"index value {bad} does not fit in 32 bits, which the kernel promises "
                "(tilec.index_bits = 32)",
            )


def memory_space(t: MemRefType) -> str:
    """GLOBAL / SHARED / PRIVATE for a memref type's memory space.

    Shared memory is NVVM's address space 3 (`tilec.dialects.cuda`), private 5 or
    none (inside a kernel); an attribute spelled `#gpu.address_space<workgroup>` or
    `<private>` is understood too, should a dialect define one.
    """
    space = t.memory_space
    if isinstance(space, NoneAttr):
        return PRIVATE
    if isinstance(space, IntegerAttr):
        n = space.value.data
        return {3: SHARED, 5: PRIVATE, 1: GLOBAL, 0: GLOBAL}.get(n, GLOBAL)
    text = str(space)
    if "workgroup" in text or "shared" in text:
        return SHARED
    if "private" in text or "local" in text:
        return PRIVATE
    return GLOBAL


def view_of(
    op: Operation, t: MemRefType, storage: Storage, actual_shape: tuple[int, ...]
) -> MemRef:
    """A MemRef over a whole storage, with the type's static shape and layout; the
    dynamic sizes come from `actual_shape` (the array's). A flat (rank-1) buffer may
    be larger than a static memref: the memref covers its first elements."""
    rank = t.get_num_dims()
    static = t.get_shape()
    if len(actual_shape) != rank:
        if rank == 1:
            actual_shape = (int(np.prod(actual_shape)),)
        else:
            raise ExecutionError(
                op,
                f"{storage.name}: an array of shape {list(actual_shape)} given for "
                f"{t}",
            )
    shape = []
    for d in range(rank):
        s = static[d]
        if rank == 1 and 0 <= s < actual_shape[0]:
            # a flat buffer larger than the memref: the kernel reaches its first `s`
            # elements, the rest stay as they were (as on the GPU)
            shape.append(s)
            continue
        if s >= 0 and s != actual_shape[d]:
            raise ExecutionError(
                op,
                f"{storage.name}: an array of shape {list(actual_shape)} given for "
                f"{t}",
            )
        shape.append(actual_shape[d])
    shape_t = tuple(int(s) for s in shape)
    strides = contiguous_strides(shape_t)
    offset = 0
    if isinstance(t.layout, StridedLayoutAttr):
        given = t.layout.get_strides()
        strides = tuple(s if g is None else g for s, g in zip(strides, given))
        off = t.layout.get_offset()
        offset = 0 if off is None else off
    return MemRef(storage, shape_t, strides, offset, t)


def arg_name(value: SSAValue, position: int) -> str:
    return value.name_hint if value.name_hint else f"arg{position}"


def lookup_kernel(module: ModuleOp, ref: SymbolRefAttr, op: Operation) -> gpu.FuncOp:
    names = [ref.root_reference.data, *(r.data for r in ref.nested_references.data)]
    scope: Operation = module
    found: Operation | None = None
    for name in names:
        found = None
        for region in scope.regions:
            for block in region.blocks:
                for child in block.ops:
                    sym = child.properties.get("sym_name") or child.attributes.get(
                        "sym_name"
                    )
                    if sym is not None and getattr(sym, "data", None) == name:
                        found = child
                        break
        if found is None:
            raise ExecutionError(op, f"no kernel named {ref} in the module")
        scope = found
    if not isinstance(found, gpu.FuncOp):
        raise ExecutionError(op, f"{ref} is not a gpu.func")
    return found


def _uniform_int(op: Operation, v: Any, what: str) -> int:
    """`v` as an int where it is one value for all threads; else an error of `op` saying
    that `what` differs per thread."""
    if np.ndim(v) != 0:
        raise ExecutionError(op, f"{what} differs per thread")
    return int(v)


def _dims(values: PythonValues, op: Operation, what: str) -> tuple[int, int, int]:
    dims = [_uniform_int(op, v, what) for v in values]
    if any(d <= 0 for d in dims):
        raise ExecutionError(op, f"{what} must be positive, got {dims}")
    return dims[0], dims[1], dims[2]


def to_kernel_value(
    op: Operation,
    value: Any,
    kernel_type: Attribute,
    storages: dict[int, Storage],
    name: str,
) -> Any:
    """A host value as the kernel sees it: HostArrays become global MemRefs (one
    Storage per distinct array, so aliased arguments share their race tracking)."""
    if isinstance(value, HostArray):
        if not isinstance(kernel_type, MemRefType):
            raise ExecutionError(op, f"buffer {value.name} passed for a {kernel_type}")
        if dtype_of(kernel_type) != value.data.dtype:
            raise ExecutionError(
                op,
                f"buffer {value.name} of {value.data.dtype} passed for {kernel_type}",
            )
        st = storages.get(id(value))
        if st is None:
            st = Storage(f"%{name}", GLOBAL, value.data, value.data.shape[0])
            storages[id(value)] = st
        return view_of(op, kernel_type, st, value.shape)
    if isinstance(value, MemRef):
        raise ExecutionError(op, "a kernel's memref cannot be passed to another launch")
    to_kernel = getattr(value, "to_kernel", None)
    if to_kernel is not None:  # a host value that holds buffers (a TMA tensor map)
        return to_kernel(lambda v, t, n: to_kernel_value(op, v, t, storages, n))
    return value


MAX_THREADS = 1 << 22
"""Most threads (blocks x threads per block) one simulated launch may have: the
executor keeps several arrays of that length per value."""

MAX_LAUNCH_ELEMENTS = 1 << 28
"""Most elements the executor may hold for one value of a launch, summed over the
instances the value has (one per block, or one per thread for register memory)."""


def value_elements(t: Attribute) -> tuple[int, bool] | None:
    """(static element count, one instance per thread?) of a value of type `t`, for
    the types whose values the executor materialises element by element: views,
    distributed tensors, memrefs. None for other types, dynamic shapes and identity
    tensors (whose coordinates are computed, not held)."""
    from xdsl.dialects.builtin import TensorType

    if isinstance(t, TensorViewType):
        if t.memory_space == "coord":  # an identity tensor: no elements held
            return None
        n = t.num_elements()
        if not isinstance(n, int):
            return None
        return n, t.memory_space == "rmem"
    if isinstance(t, TensorType | MemRefType):
        shape = t.get_shape()
        if any(d < 0 for d in shape):
            return None
        n = 1
        for d in shape:
            n *= d
        return n, isinstance(t, MemRefType) and memory_space(t) == PRIVATE
    return None


def check_launch_size(
    op: Operation, body: Operation, grid_dims: tuple[int, int, int], block_dims: tuple[int, int, int]
) -> None:
    """Refuse (ExecutionError at `op`) a launch too large to simulate: more than
    MAX_THREADS threads, or a value made or used in `body` (the launch op or its
    kernel) whose elements over all blocks (threads, for per-thread storage) exceed
    MAX_LAUNCH_ELEMENTS. Checked before anything is allocated."""
    blocks = grid_dims[0] * grid_dims[1] * grid_dims[2]
    threads = blocks * block_dims[0] * block_dims[1] * block_dims[2]
    if threads > MAX_THREADS:
        raise ExecutionError(
            op,
            f"a launch of {threads} threads ({list(grid_dims)} blocks of "
            f"{list(block_dims)}) is too large for the CPU reference executor "
            f"(at most {MAX_THREADS})",
        )
    for inner in body.walk():
        # Operand views too: a view made outside the launch and copied inside it is
        # accessed once per block. (A kernel's global buffers, memref operands, are not
        # materialised per block or thread.)
        # An op that makes a view (a tile of the whole tensor) only reads its
        # operand's layout: its result, not the operand, is what each block accesses.
        makes_view = any(isinstance(r.type, TensorViewType) for r in inner.results)
        viewed = [] if makes_view else [
            v for v in inner.operands if isinstance(v.type, TensorViewType)
        ]
        for r in (*inner.results, *viewed):
            sized = value_elements(r.type)
            if sized is None:
                continue
            n, per_thread = sized
            total = n * (threads if per_thread else blocks)
            if total > MAX_LAUNCH_ELEMENTS:
                what = "its result" if r in inner.results else "its operand"
                raise ExecutionError(
                    inner,
                    f"{what} {r.type} has {n} elements, accessed by each of the "
                    f"{threads if per_thread else blocks} "
                    f"{'threads' if per_thread else 'blocks'}: {total} in all is too "
                    f"large for the CPU reference executor (at most "
                    f"{MAX_LAUNCH_ELEMENTS}); run a smaller instance (--arg) or check "
                    "it with --run gpu",
                )


def launch(
    interp: ReferenceInterpreter,
    op: Operation,
    kernel_name: str,
    grid_dims: tuple[int, int, int],
    block_dims: tuple[int, int, int],
    run_body,
    body: Operation | None = None,
) -> None:
    """Simulate one launch: `run_body(grid)` runs the kernel for all threads at once.
    `body` (default `op`) holds the kernel's ops, for `check_launch_size`."""
    if interp.grid is not None:
        raise ExecutionError(op, "a kernel cannot launch another kernel")
    check_launch_size(op, op if body is None else body, grid_dims, block_dims)
    from tilec.support.launch_bounds import cluster_dims

    cluster = cluster_dims(op if body is None else body) or 1
    if grid_dims[0] % cluster:
        raise ExecutionError(op, f"a grid of {grid_dims[0]} blocks along x is not a multiple of the launch's "
                                 f"clusters of {cluster} blocks (tilec.cluster_dims)")
    grid = Grid(grid_dims, block_dims, cluster=cluster)
    interp.grid = grid
    interp.async_copies = AsyncCopies(grid)
    interp.launches += 1
    interp.launch_log.append((kernel_name, grid_dims, block_dims))
    try:
        run_body(grid)
        if grid.reached.any():
            b = int(np.argmax(grid.reached))
            raise ExecutionError(
                op, f"block {b} exits while a block of its cluster may still reach its shared memory, or it a "
                    f"peer's (an mbarrier arrival on a peer's barrier, a multicast TMA load or an access through a "
                    f"peer_view since the last cluster_sync): the cluster's blocks must meet at a cluster_sync before they exit", block=b)
    finally:
        interp.grid = None
        interp.async_copies = None


@register_impls
class FuncFunctions(InterpreterFunctions):
    @impl(func.CallOp)
    def run_call(self, interp: ReferenceInterpreter, op: func.CallOp, args):
        callee = interp.get_op_for_symbol(op.callee)
        if not isinstance(callee, func.FuncOp) or callee.is_declaration:
            raise ExecutionError(op, f"cannot call {op.callee}: no body")
        return interp.run_ssacfg_region(callee.body, args, callee.sym_name.data)

    @impl_terminator(func.ReturnOp)
    def run_return(
        self, interp: ReferenceInterpreter, op: func.ReturnOp, args
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()


@register_impls
class GpuFunctions(InterpreterFunctions):
    # ------------------------------------------------------------------ host side
    @impl(gpu.LaunchFuncOp)
    def run_launch_func(self, interp: ReferenceInterpreter, op: gpu.LaunchFuncOp, args):
        kernel = lookup_kernel(interp.module, op.kernel, op)
        g = interp.get_values([op.gridSizeX, op.gridSizeY, op.gridSizeZ])
        b = interp.get_values([op.blockSizeX, op.blockSizeY, op.blockSizeZ])
        grid_dims = _dims(g, op, "the grid size")
        block_dims = _dims(b, op, "the block size")
        for known, dims, launched, declared in (
            (kernel.known_block_size, block_dims, "with blocks of {} threads", "gpu.known_block_size"),
            (kernel.known_grid_size, grid_dims, "on a grid of {} blocks", "gpu.known_grid_size"),
        ):  # the launch must agree with the sizes the kernel declares
            if known is not None and tuple(known.get_values()) != dims:
                raise ExecutionError(
                    op,
                    f"launches {kernel.sym_name.data} {launched.format(list(dims))}, but the kernel "
                    f"declares {declared} = {list(known.get_values())}",
                )
        operands = interp.get_values(op.kernelOperands)
        block = kernel.body.blocks.first
        assert block is not None
        if len(block.args) != len(operands):
            raise ExecutionError(
                op,
                f"passes {len(operands)} arguments to {kernel.sym_name.data}, which "
                f"takes {len(block.args)}",
            )
        storages: dict[int, Storage] = {}
        kargs = tuple(
            to_kernel_value(op, v, a.type, storages, arg_name(a, i))
            for i, (v, a) in enumerate(zip(operands, block.args))
        )

        def body(grid: Grid) -> None:
            interp.index_bits = promised_index_bits(kernel) or 64
            try:
                interp.run_ssacfg_region(kernel.body, kargs, kernel.sym_name.data)
            finally:
                interp.index_bits = 64

        launch(interp, op, kernel.sym_name.data, grid_dims, block_dims, body, kernel)
        return (None,) * len(op.results)

    @impl(gpu.LaunchOp)
    def run_launch(self, interp: ReferenceInterpreter, op: gpu.LaunchOp, args):
        g = interp.get_values([op.gridSizeX, op.gridSizeY, op.gridSizeZ])
        b = interp.get_values([op.blockSizeX, op.blockSizeY, op.blockSizeZ])
        grid_dims = _dims(g, op, "the grid size")
        block_dims = _dims(b, op, "the block size")
        # Values of the host the body uses: buffers become global memrefs.
        storages: dict[int, Storage] = {}
        captured = captured_values(interp, op, lambda operand, value: to_kernel_value(
            op, value, operand.type, storages, operand.name_hint or "buffer"))

        def body(grid: Grid) -> None:
            interp.push_scope("gpu.launch")
            interp.set_values(captured.items())
            ids = (
                *grid.block_id,
                *grid.thread_id,
                *(np.int64(x) for x in grid_dims),
                *(np.int64(x) for x in block_dims),
            )
            try:
                interp.run_ssacfg_region(op.body, ids, "gpu.launch")
            finally:
                interp.pop_scope()

        launch(interp, op, "gpu.launch", grid_dims, block_dims, body)
        return (None,) * len(op.results)

    @impl_terminator(gpu.TerminatorOp)
    def run_terminator(self, interp, op, args) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(()), ()

    @impl_terminator(gpu.ReturnOp)
    def run_gpu_return(self, interp, op, args) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    # ---------------------------------------------------------------- kernel side
    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interp: ReferenceInterpreter, op: gpu.ThreadIdOp, args):
        grid = _grid(interp, op)
        return (grid.thread_id[_dim(op)],)

    @impl(gpu.BlockIdOp)
    def run_block_id(self, interp: ReferenceInterpreter, op: gpu.BlockIdOp, args):
        grid = _grid(interp, op)
        return (grid.block_id[_dim(op)],)

    @impl(gpu.BlockDimOp)
    def run_block_dim(self, interp: ReferenceInterpreter, op: gpu.BlockDimOp, args):
        grid = _grid(interp, op)
        return (np.int64(grid.block[_dim(op)]),)

    @impl(gpu.GridDimOp)
    def run_grid_dim(self, interp: ReferenceInterpreter, op: gpu.GridDimOp, args):
        grid = _grid(interp, op)
        return (np.int64(grid.grid[_dim(op)]),)

    @impl(gpu.GlobalIdOp)
    def run_global_id(self, interp: ReferenceInterpreter, op: gpu.GlobalIdOp, args):
        grid = _grid(interp, op)
        d = _dim(op)
        return (grid.block_id[d] * grid.block[d] + grid.thread_id[d],)

    @impl(gpu.LaneIdOp)
    def run_lane_id(self, interp: ReferenceInterpreter, op: gpu.LaneIdOp, args):
        return (_grid(interp, op).local % WARP_SIZE,)

    @impl(gpu.SubgroupIdOp)
    def run_subgroup_id(self, interp: ReferenceInterpreter, op: gpu.SubgroupIdOp, args):
        return (_grid(interp, op).local // WARP_SIZE,)

    @impl(gpu.SubgroupSizeOp)
    def run_subgroup_size(self, interp, op: gpu.SubgroupSizeOp, args):
        _grid(interp, op)
        return (np.int64(WARP_SIZE),)

    @impl(gpu.NumSubgroupsOp)
    def run_num_subgroups(self, interp, op: gpu.NumSubgroupsOp, args):
        grid = _grid(interp, op)
        return (np.int64(-(-grid.threads_per_block // WARP_SIZE)),)

    @impl(gpu.BarrierOp)
    def run_barrier(self, interp: ReferenceInterpreter, op: gpu.BarrierOp, args):
        grid = _grid(interp, op)
        barrier(interp, op, grid)
        return ()


def barrier(interp: ReferenceInterpreter, op: Operation, grid: Grid) -> None:
    """All threads of a block meet here: a block whose threads are only partly
    active (divergent control flow) is an error; the epoch of every block that passes
    moves on, which orders its accesses before the barrier before those after it."""
    if grid.mask is None:
        grid.epoch += 1
        return
    per_block = grid.mask.reshape(grid.num_blocks, grid.threads_per_block)
    count = per_block.sum(axis=1)
    partial = (count > 0) & (count < grid.threads_per_block)
    if partial.any():
        b = int(np.argmax(partial))
        local = int(np.argmin(per_block[b]))
        t = b * grid.threads_per_block + local
        loc = ExecutionError(op, "").location or "<unknown location>"
        raise ExecutionError(
            op,
            f"{grid.describe_thread(t)} does not reach the barrier at {loc} "
            f"({int(count[b])} of its block's {grid.threads_per_block} threads do: "
            f"the barrier is inside control flow that diverges within the block)",
            thread=t,
            block=b,
        )
    grid.epoch += (count > 0).astype(np.int32)


def captured_values(interp: ReferenceInterpreter, op: Operation,
                    convert: Callable[[SSAValue, Any], Any]) -> dict[SSAValue, Any]:
    """The values from outside `op`'s body that the ops of its body use (a launch's
    captures), keyed by operand in first-use order: each read once from `interp` and
    passed through `convert(operand, value)` (what the launch makes of a host value)."""
    captured: dict[SSAValue, Any] = {}
    for inner in op.body.walk():
        for operand in inner.operands:
            if operand in captured or _defined_inside(operand, op):
                continue
            captured[operand] = convert(operand, interp.get_values([operand])[0])
    return captured


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    node: Operation | None = owner if isinstance(owner, Operation) else owner.parent_op()
    while node is not None:
        if node is op:
            return True
        node = node.parent_op()
    return False


def _grid(interp: ReferenceInterpreter, op: Operation) -> Grid:
    """The grid of the running kernel; an error of `op` where none runs."""
    if interp.grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a kernel")
    return interp.grid


def _async_copies(interp: ReferenceInterpreter, op: Operation) -> AsyncCopies:
    """The running launch's cp.async state; an error outside a kernel."""
    _grid(interp, op)
    assert interp.async_copies is not None
    return interp.async_copies


def _dim(op: Operation) -> int:
    return "xyz".index(str(op.dimension.data))  # type: ignore[attr-defined]
