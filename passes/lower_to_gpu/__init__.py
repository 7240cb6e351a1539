"""The `lower-to-gpu` pass: thread-level layout IR -> the GPU level (docs/gpu-level.md)."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from tilec.dialects import layout
from tilec.dialects.layout_attrs import PtrType
from tilec.passes.expand_iterators import expand_iterators

from .compile_time import settle_compile_time
from .outline import _lower_func


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
    - `layout.barrier` -> `gpu.barrier`; elementwise `arith` per register, but an
      f32 `arith.divf` with `fastmath<afn>` whose divisors are known numbers of a
      bounded range (passes/_float_range.py) -> `cuda.div_approx_group`, one
      approximate reciprocal for 4 (or 2) quotients (`arith_ops.division_group`), and a
      `math.exp2` with `tilec.exp2_fma` = k -> `cuda.ex2_fma` (2^x on the FMA pipe) in k
      of every 8 registers (`exp2_shared`);
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
      writes its partials, one barrier; where the whole warp is along the axis, each
      lane reads one warp's partial and a shuffle butterfly over the warp bits combines
      them, else every thread folds the warps' partials in warp order), in the order
      the reference executor combines.
    - `layout.scan` (passes/lower_to_gpu/compute.py): inside a thread in order, across lanes
      by a Hillis-Steele `cuda.shfl_idx` scan, across warps and register chunks
      through shared memory (one barrier); the layout must put the axis in registers,
      then lanes, then warps, then registers again (dialects/scan_plan.py), else a
      located error.
    - `layout.permute`, `layout.reshape`, `layout.join`, `layout.split`: registers
      renamed, no data moves
      (the verifier checked the layouts).
    - `layout.gather` (passes/lower_to_gpu/compute.py): in registers within the warp when
      every element a thread needs is in its warp (one `cuda.shfl_idx` per candidate
      register, then a select), else through shared memory (the source written once,
      one barrier, each thread reads its elements).
    - `layout.reduce_region`: as `layout.reduce`, the combiner region's scalar ops
      emitted once per combination, one shared buffer per operand.
    - `layout.cmpi`/`cmpf`/`select`, the integer casts and the `math` functions: their
      scalar op once per register.
    - `layout.load`/`store` with a computed `mask`: each element guarded by its mask
      register (and the view's bounds), `other` where a load's mask is false. A
      masked `vector` access: one predicate per vector where `uniform_mask` says the
      masks agree over it, else the vector where all its lanes hold and lane by lane
      where they do not.
    - `scf.for` / `scf.if` / `scf.while` whose loop-carried values or results are
      distributed tensors: one iter_arg / result per distinct register of the thread
      (for scf.while: per value entering `before` and per value `scf.condition`
      forwards).

    - `layout.mma` (passes/lower_to_gpu/mma.py) with version-2 layouts: one
      `cuda.mma_sync` per 16x8 tile of the accumulator the warp owns and step along K
      (in increasing K): `mma.sync.m16n8k16` for bf16/f16 operands of kWidth 2,
      `m16n8k8` for f32 read as tf32 (kWidth 1), `m16n8k32` for i8 into i32 (kWidth 4);
      the fragments taken register for register from the operand layouts (their linear
      layouts say which); other MMAs are a located error.

    Options: none.

    Preconditions: every copy is inside a `layout.launch`; conversions that move data
    between threads were lowered by `lower-convert-layout`; distributed layouts have
    32 lanes per warp. Anything else is a TilecError naming the op."""

    name = "lower-to-gpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expand_iterators(op)  # iterators are positions and layout.tile from here on
        settle_compile_time(op)  # static asserts erased, host-level static queries folded
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


