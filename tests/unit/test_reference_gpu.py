"""The CPU reference executor on GPU-level programs (docs/gpu-level.md): correct kernels
compute what they should, and planted bugs are reported, not computed. The programs are
built with `GpuProgram` (compiler/builder_gpu_level.py); an error's location is the line
of this file that built the op."""

from __future__ import annotations

import inspect
import re
import time
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, f32
from xdsl.ir import Block, Region

from tilec.compiler.builder_gpu_level import GpuProgram
from tilec.compiler.kernel_builder import Value
from tilec.runtime.reference import (
    ExecutionError,
    check_equivalence,
    poison_value,
    random_inputs,
    run,
)

HERE = __file__
LINES: dict[str, int] = {}
"""The line of this file that builds an op a test's error names (filled as they are built)."""


def lineno() -> int:
    """The caller's line."""
    return inspect.currentframe().f_back.f_lineno  # type: ignore[union-attr]


def at(what: str) -> str:
    """`file:line:` of the op noted as `what`."""
    return f"{HERE}:{LINES[what]}:"


# ----------------------------------------------------------------------------- programs


def copy_program(blocks: int = 4, known_block_size: tuple[int, int, int] | None = None) -> ModuleOp:
    """dst[i] = src[i] over 1024 f32: `blocks` blocks of 256 threads (4 cover it)."""
    g = GpuProgram("copy")
    g.buffer("src", "f32", 1024)
    g.buffer("dst", "f32", 1024)
    with g.kernel(grid=blocks, block=256, known_block_size=known_block_size) as (src, dst):
        tid = g.thread_id("x").named("tid")
        bid = g.block_id("x").named("bid")
        bdim = g.block_dim("x").named("bdim")
        i = (bid * bdim + tid).named("i")
        dst[i] = src[i]
    return g.module


def tail_program(n: int | None, inclusive: bool = False, unmasked_vector: bool = False) -> ModuleOp:
    """dst[i] = src[i] for i < n: a 4-wide vector per thread where it fits, a masked scalar
    loop in the tail; n comes from the tilec.args attribute (none when `n` is None).
    Planted bugs: `inclusive` masks with j <= n, `unmasked_vector` takes the vector where
    its first element is in bounds."""
    g = GpuProgram("copy")
    g.buffer("src", "f32")
    g.buffer("dst", "f32")
    count = g.index("n", value=n)
    blocks = g.ceildivui(count, 1024)
    with g.kernel(grid=blocks, block=256) as (src, dst, count):
        bid = g.block_id("x").named("bid")
        tid = g.thread_id("x").named("tid")
        i = (bid * 1024 + tid * 4).named("i")
        end = (i + 4).named("end")
        vector_fits, scalars = g.if_else((i if unmasked_vector else end) <= count)
        with vector_fits:
            dst.store(4, i, src.load(4, i))
        with scalars:
            with g.range(0, 4) as k:
                j = (i + k).named("j")
                with g.if_(j <= count if inclusive else j < count):
                    dst[j] = src[j]
    return g.module


def transpose(rows: int = 4, barrier: bool = True, tile: int = 1056) -> ModuleOp:
    """256x256 f32 transpose through a padded 32x33 shared tile (`tile` elements): 8x8
    blocks of 32x8 threads, each thread moving `rows` (4) elements in and 4 out."""
    g = GpuProgram("transpose")
    g.buffer("src", "f32", 65536)
    g.buffer("dst", "f32", 65536)
    with g.kernel(grid=(8, 8), block=(32, 8)) as (src, dst):
        tx, ty = g.thread_id("x").named("tx"), g.thread_id("y").named("ty")
        bx, by = g.block_id("x").named("bx"), g.block_id("y").named("by")
        smem = g.alloca(tile, "f32").named("tile")
        row0, col0 = (by * 32).named("row0"), (bx * 32).named("col0")
        with g.range(0, rows) as k:
            r = (ty + k * 8).named("r")
            gr, gc = row0 + r, col0 + tx
            LINES["load src"] = lineno() + 1
            v = src[gr * 256 + gc]
            LINES["store tile"] = lineno() + 1
            smem[r * 33 + tx] = v
        if barrier:
            g.barrier()
        with g.range(0, 4) as k:
            r = (ty + k * 8).named("r")
            gr, gc = col0 + r, row0 + tx
            gi = gr * 256 + gc
            LINES["load tile"] = lineno() + 1
            v = smem[tx * 33 + r]
            dst[gi] = v
    return g.module


@dataclass
class Ids:
    """The ids a `kernel_program` body gets: thread, block, and global thread."""

    tid: Value
    bid: Value
    gid: Value


def kernel_program(body, block: int = 64, grid: int = 2, n: int = 128, t: str = "f32") -> ModuleOp:
    """A host function launching one kernel over `src`, `dst` (memref<n x t>) whose
    body `body(g, src, dst, ids)` builds (`ids`: an `Ids`)."""
    g = GpuProgram("f")
    g.buffer("src", t, n)
    g.buffer("dst", t, n)
    with g.kernel(grid=grid, block=block) as (src, dst):
        tid = g.thread_id("x").named("tid")
        bid = g.block_id("x").named("bid")
        gid = (bid * g.block_dim("x") + tid).named("gid")
        body(g, src, dst, Ids(tid, bid, gid))
    return g.module


def fresh(v: Value) -> Value:
    """Another Value for `v`'s SSA value (to carry through a loop or an if while `v`
    keeps standing for what it was)."""
    return Value(v.program, v.ssa)


def expect_error(m: ModuleOp, *fragments: str, inputs=None) -> ExecutionError:
    with pytest.raises(ExecutionError) as info:
        run(m, inputs if inputs is not None else random_inputs(m, 0))
    msg = str(info.value)
    for f in fragments:
        assert f in msg, msg
    return info.value


# ------------------------------------------------------------------- correct programs


def test_copy_1d():
    m = copy_program()
    inputs = random_inputs(m, 0)
    src = inputs["src"].copy()
    out = run(m, inputs)
    assert np.array_equal(out["dst"], src)
    assert np.array_equal(out["src"], src)
    assert np.array_equal(inputs["src"], src)  # inputs are copied, not mutated
    assert np.isnan(inputs["dst"]).all()


def test_copy_accepts_positional_inputs():
    m = copy_program()
    src = np.arange(1024, dtype=np.float32)
    out = run(m, [src, np.full(1024, np.nan, np.float32)])  # poisoned: src[0] is 0
    assert np.array_equal(out["dst"], src)


def calls_program(extra: bool = False) -> ModuleOp:
    """@add_one launches x[i] += 1 over 64 f32; @add_two, defined after it, calls it
    twice; with `extra`, @add_one_more calls it once and nobody calls @add_one_more."""
    g = GpuProgram("add_one")
    g.buffer("x", "f32", 64)
    with g.kernel(grid=1, block=64, name="inc") as (x,):
        tid = g.thread_id("x").named("tid")
        x[tid] = x[tid] + 1.0
    module = g.module
    add_one = module.body.block.first_op
    buf = MemRefType(f32, [64])

    def caller(name: str, calls: int) -> func.FuncOp:
        body = Block(arg_types=[buf])
        body.args[0].name_hint = "x"
        for _ in range(calls):
            body.add_op(func.CallOp("add_one", [body.args[0]], []))
        body.add_op(func.ReturnOp())
        return func.FuncOp(name, ([buf], []), Region(body))

    module.body.block.insert_op_after(caller("add_two", 2), add_one)
    if extra:
        module.body.block.insert_op_after(caller("add_one_more", 1), module.body.block.first_op.next_op)
    return module


def test_the_entry_of_several_host_functions_is_the_one_no_other_calls():
    """Without `entry=`, a module of a host function and the helpers it calls runs the
    caller (whatever the order of definition); `entry=` runs the one named; two
    functions that nobody calls are ambiguous, and the error says to name one."""
    m = calls_program()
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(run(m, {"x": x})["x"], x + 2)
    np.testing.assert_array_equal(run(m, {"x": x}, entry="add_one")["x"], x + 1)
    two_roots = calls_program(extra=True)
    with pytest.raises(ExecutionError, match=r"several functions \(@add_one, @add_two, @add_one_more\): say which with entry="):
        run(two_roots, {"x": x})
    np.testing.assert_array_equal(run(two_roots, {"x": x}, entry="add_one_more")["x"], x + 1)


@pytest.mark.parametrize("n", [1000, 1024, 3, 2049])
def test_masked_tail(n):
    m = tail_program(n)
    inputs = random_inputs(m, 0, sizes={"src": n, "dst": n})
    assert inputs["n"] == n
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"])


def test_transpose():
    m = transpose()
    inputs = random_inputs(m, 1)
    out = run(m, inputs)
    expected = inputs["src"].reshape(256, 256).T.reshape(-1)
    assert np.array_equal(out["dst"], expected)


def test_transpose_performance():
    """The thread-level 256x256 transpose (64 blocks x 256 threads, 4 elements each,
    through shared memory with a barrier) runs in well under the 2 s target."""
    m = transpose()
    inputs = random_inputs(m, 0)
    run(m, inputs)  # warm-up (imports, first-call costs)
    start = time.perf_counter()
    out = run(m, inputs)
    elapsed = time.perf_counter() - start
    print(f"\nreference executor: 256x256 f32 transpose (64 blocks x 256 threads) in {elapsed:.3f} s")
    assert np.array_equal(out["dst"], inputs["src"].reshape(256, 256).T.reshape(-1))
    assert elapsed < 4.0


def test_divergent_if_yields_per_thread_values():
    def body(g, src, dst, k):
        x = src[k.gid].named("x")
        even, odd = g.if_else(g.remui(k.gid, 2).eq(0), carry=[x])
        with even:
            x.assign(x + x)
        with odd:
            x.assign(-x)
        dst[k.gid] = x

    m = kernel_program(body)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    src = inputs["src"]
    expected = np.where(np.arange(128) % 2 == 0, src + src, -src)
    assert np.array_equal(out["dst"], expected)


def test_loop_with_per_thread_trip_count_and_carried_value():
    # dst[gid] = sum of src[0 .. gid % 8)
    def body(g, src, dst, k):
        acc = g.constant(0.0, "f32").named("acc")
        with g.range(0, g.remui(k.gid, 8), carry=[acc]) as i:
            acc += src[i]
        dst[k.gid] = acc

    m = kernel_program(body)
    inputs = random_inputs(m, 3)
    out = run(m, inputs)
    src = inputs["src"]
    expected = np.array(
        [np.float32(0) + sum(src[:k], np.float32(0)) if k else np.float32(0) for k in np.arange(128) % 8],
        dtype=np.float32,
    )
    # accumulate in the same order, in f32
    acc = np.zeros(128, np.float32)
    for g in range(128):
        a = np.float32(0)
        for k in range(g % 8):
            a = np.float32(a + src[k])
        acc[g] = a
    assert np.array_equal(out["dst"], acc)
    assert expected.shape == acc.shape


def test_register_array_and_vector_ops():
    # Each thread gathers 4 elements into a register array, reverses them through a
    # vector and stores the vector.
    def body(g, src, dst, k):
        with g.if_(k.gid < 32):
            regs = g.alloca(4, "f32", "rmem").named("regs")
            base = (k.gid * 4).named("base")
            with g.range(0, 4) as i:
                regs[i] = src[base + i]
            v = g.splat(g.constant(0.0, "f32"), 4)
            with g.range(0, 4, carry=[v]) as i:
                v.assign(g.vector_insert(regs[i], v, 3 - i))
            dst.store(4, base, v)

    m = kernel_program(body)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"].reshape(32, 4)[:, ::-1].reshape(-1))


def test_integer_semantics():
    # C division and remainder truncate toward zero; floordiv floors; i32 wraps.
    def body(g, src, dst, k):
        x = src[k.gid]
        m7 = g.constant(-7, "i32")
        q, r = x // m7, x % m7  # divsi, remsi
        f = g.insert(arith.FloorDivSIOp(x.ssa, m7.ssa)).results[0]
        w = x + 2147483647
        s2 = g.insert(arith.XOrIOp((q + r).ssa, f.ssa)).results[0]
        dst[k.gid] = s2 + w

    m = kernel_program(body, t="i32")
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    x = inputs["src"].astype(np.int64)
    q = np.trunc(x / -7).astype(np.int64)
    r = x - q * -7
    f = x // -7
    w = (x + 2147483647 + 2**31) % 2**32 - 2**31
    expected = ((((q + r) ^ f) + w + 2**31) % 2**32 - 2**31).astype(np.int32)
    assert np.array_equal(out["dst"], expected)


# ------------------------------------------------------------------------ planted bugs


def test_missing_barrier_is_a_race():
    e = expect_error(transpose(barrier=False), "data race on shared memory", "%tile", "no barrier in between")
    assert e.location.startswith(at("load tile"))
    assert e.details["thread"] != e.details["other_thread"]


def test_off_by_one_tile_index_is_out_of_bounds():
    # The tile is allocated 32x32 but indexed with the padded row stride 33.
    e = expect_error(transpose(tile=1024), "out-of-bounds access", "writes %tile[", "shape [1024]")
    assert e.location.startswith(at("store tile"))
    assert e.details["index"][0] >= 1024


def test_one_row_too_many_is_out_of_bounds():
    # each thread loads 5 rows of 8 instead of 4
    e = expect_error(transpose(rows=5), "out-of-bounds access", "reads %src[65536]", "of block 56")
    assert e.location.startswith(at("load src"))


def test_out_of_bounds_vector_access():
    # The tail is not masked: the last vector reaches past the end of the buffer.
    m = tail_program(1000, unmasked_vector=True)
    e = expect_error(m, "out-of-bounds access", "a vector of 4 elements", "%src[1000]",
                     inputs=random_inputs(m, 0, sizes={"src": 1000, "dst": 1000}))
    assert e.details["index"] == (1000,)


@pytest.mark.parametrize("op", ["PrefetchL1Op", "PrefetchGlobalL2Op"])
def test_line_prefetch_past_its_buffer_is_out_of_bounds(op):
    """`cuda.prefetch_l1` and `cuda.prefetch_global_l2` read and change nothing, but the
    element they ask L1 / L2 for must lie inside its buffer, as a load's (a lowering that
    dropped a masked view's or pointer tensor's guard): in bounds it is a no-op, one
    element past the end an error."""
    from tilec.dialects import cuda

    def body(shift):
        def build(g, src, dst, k):
            g.insert(getattr(cuda, op)(src.ssa, (k.gid + shift).ssa))
            dst[k.gid] = src[k.gid]
        return build

    m = kernel_program(body(0))
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])
    e = expect_error(kernel_program(body(1)), "out-of-bounds access", "prefetches %src[128]", "shape [128]")
    assert e.details["index"] == (128,)


def test_masked_tail_off_by_one_is_out_of_bounds():
    m = tail_program(1001, inclusive=True)  # j <= n instead of j < n
    expect_error(m, "out-of-bounds access", "%src[1001]",
                 inputs=random_inputs(m, 0, sizes={"src": 1001, "dst": 1001}))


def test_two_threads_writing_different_values_is_a_race():
    def body(g, src, dst, k):
        dst[g.divui(k.gid, 2)] = src[k.gid]

    expect_error(kernel_program(body), "data race on global memory", "write different values", "%dst[")


def _first_to_first(g, src, dst, k):
    dst[0] = src[0]


def test_writes_of_equal_values_are_not_a_race():
    m = kernel_program(_first_to_first)
    inputs = random_inputs(m, 0)
    assert run(m, inputs)["dst"][0] == inputs["src"][0]


def test_strict_audit_refuses_equal_writes_and_records_the_footprint():
    from tilec.runtime.reference import audit_writes

    m = kernel_program(_first_to_first)
    with audit_writes(strict=True), pytest.raises(ExecutionError, match=r"both write .* to %dst\[0\]"):
        run(m, random_inputs(m, 0))

    # every second element, one thread each: the footprint is recorded, nothing refused
    def every_second(g, src, dst, k):
        with g.if_(k.gid < 64):
            j = k.gid * 2
            dst[j] = src[j]

    m = kernel_program(every_second)
    with audit_writes(strict=True) as audit:
        run(m, random_inputs(m, 0))
    assert np.array_equal(audit.written["%dst"], np.arange(128) % 2 == 0)
    assert "%src" not in audit.written


def test_race_between_blocks_on_global_memory():
    # Block 1 reads what block 0 writes: blocks never synchronise.
    def body(g, src, dst, k):
        x = src[k.gid]
        first, others = g.if_else(k.bid.eq(0))
        with first:
            dst[k.tid] = x
        with others:
            dst[k.gid] = dst[k.tid]

    expect_error(kernel_program(body), "data race on global memory", "blocks do not synchronise")


def test_thread_missing_a_barrier():
    def body(g, src, dst, k):
        with g.if_(k.tid < 32):
            LINES["barrier"] = lineno() + 1
            g.barrier()

    e = expect_error(kernel_program(body), f"thread 32 of block 0 does not reach the barrier at {HERE}:")
    assert e.location.startswith(at("barrier"))


def test_barrier_in_uniformly_taken_branch_is_fine():
    def body(g, src, dst, k):
        b1 = k.bid.eq(1)
        x = src[k.gid]
        with g.if_(b1):
            g.barrier()
        dst[k.gid] = x

    m = kernel_program(body)
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def shared_body(early_read: bool = False, barrier: bool = True):
    """Each thread writes its element to shared memory and reads its neighbour's
    (`early_read`: also before any write; `barrier`: between the write and the read)."""

    def body(g, src, dst, k):
        s = g.alloca(64, "f32").named("s")
        x = src[k.gid]
        nb = g.remui(k.tid + 1, 64).named("nb")
        if early_read:
            s[nb].named("early")
        s[k.tid] = x
        if barrier:
            g.barrier()
        dst[k.gid] = s[nb]

    return body


def test_neighbour_exchange_through_shared_memory():
    m = kernel_program(shared_body())
    inputs = random_inputs(m, 0)
    src = inputs["src"].reshape(2, 64)
    assert np.array_equal(run(m, inputs)["dst"].reshape(2, 64), np.roll(src, -1, axis=1))


def test_read_before_any_write_is_uninitialised():
    e = expect_error(kernel_program(shared_body(early_read=True)), "read of uninitialised shared memory", "%s[1]")
    assert e.details["index"] == 1


def test_write_after_read_by_another_thread_is_a_race():
    # Each thread reads its neighbour's slot, then (no barrier) overwrites its own.
    def body(g, src, dst, k):
        s = g.alloca(64, "f32").named("s")
        x = src[k.gid]
        nb = g.remui(k.tid + 1, 64)
        s[k.tid] = x
        g.barrier()
        z = s[nb] + x
        s[k.tid] = z
        dst[k.gid] = z

    expect_error(kernel_program(body), "data race on shared memory", "overwrites", "read")


def test_misaligned_vector_access():
    def body(g, src, dst, k):
        with g.if_(k.gid < 16):
            i = k.gid * 4
            dst.store(4, i, src.load(4, i + 1))

    expect_error(kernel_program(body), "misaligned vector access", "offset 1 ")


def test_division_by_zero_in_active_threads_only():
    def divide_where(guard):
        def body(g, src, dst, k):
            x = src[k.gid]
            t = k.tid.cast("i32")
            divide, _ = g.if_else(guard(t), carry=[x])
            with divide:
                x.assign(x // t)
            dst[k.gid] = x

        return kernel_program(body, t="i32")

    m = divide_where(lambda t: t.ne(0))
    run(m, random_inputs(m, 0))  # thread 0 never divides
    expect_error(divide_where(lambda t: t >= 0), "division by zero", "thread 0 of block 0")


def test_block_size_must_match_known_block_size():
    expect_error(copy_program(known_block_size=(128, 1, 1)), "gpu.known_block_size",
                 "with blocks of [256, 1, 1] threads, but the kernel declares gpu.known_block_size = [128, 1, 1]")


def test_error_names_the_op_and_location():
    e = expect_error(transpose(barrier=False))
    assert re.match(re.escape(at("load tile")) + r"\d+: error: 'memref.load':", str(e)), str(e)


# ----------------------------------------------------------------------- cp.async, shfl


def cp_async_body(wait: int | None, barrier: bool):
    """Each thread copies 4 elements to shared memory with one 16-byte cp.async, then
    reads its neighbour's 4 (`wait`: the cp_async_wait's pending count, None for none;
    `barrier`: one after it)."""

    def body(g, src, dst, k):
        s = g.alloca(256, "f32").named("s")
        i, j = k.tid * 4, k.gid * 4
        g.cp_async(s, i, src, j, 16)
        g.cp_async_commit()
        if wait is not None:
            g.cp_async_wait(wait)
        if barrier:
            g.barrier()
        nb = g.remui(k.tid + 1, 64)
        dst.store(4, j, s.load(4, nb * 4))

    return body


def test_cp_async_then_wait_and_barrier():
    m = kernel_program(cp_async_body(0, True), n=512)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    src = inputs["src"].reshape(2, 64, 4)
    assert np.array_equal(out["dst"].reshape(2, 64, 4), np.roll(src, -1, axis=1))


def test_cp_async_read_before_wait():
    expect_error(kernel_program(cp_async_body(None, True), n=512), "while a cp.async is still writing it")


def test_cp_async_wait_without_barrier_is_a_race():
    expect_error(kernel_program(cp_async_body(0, False), n=512), "data race on shared memory",
                 "no barrier in between")


def test_cp_async_wait_keeps_the_newest_groups_pending():
    expect_error(kernel_program(cp_async_body(1, True), n=512), "while a cp.async is still writing it")


def shfl_body(lanes: int | None):
    """Each lane takes src of lane 31 - lane (`lanes`: only lanes below it shuffle)."""

    def body(g, src, dst, k):
        x = src[k.gid]
        lane = g.lane_id()
        r = (31 - lane).cast("i32")
        if lanes is None:
            x = g.shfl_idx(x, r)
        else:
            shuffle, _ = g.if_else(lane < lanes, carry=[x])
            with shuffle:
                x.assign(g.shfl_idx(x, r))
        dst[k.gid] = x

    return body


def test_shfl_idx_reverses_each_warp():
    m = kernel_program(shfl_body(None))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"].reshape(4, 32)[:, ::-1].reshape(-1))


def test_shfl_idx_in_a_divergent_warp():
    expect_error(kernel_program(shfl_body(5)), "thread 5 of block 0 does not take part in the warp shuffle")


# --------------------------------------------------------------------------------- API


def test_random_inputs_poison_outputs_and_are_reproducible():
    m = copy_program()
    a, b = random_inputs(m, 7), random_inputs(m, 7)
    assert np.array_equal(a["src"], b["src"])
    assert not np.array_equal(a["src"], random_inputs(m, 8)["src"])
    poison = poison_value(np.dtype(np.float32))
    assert np.isnan(poison)
    assert (a["dst"].view(np.uint32) == np.float32(poison).view(np.uint32)).all()
    assert np.isfinite(a["src"]).all() and a["src"].std() > 0.5


def test_index_arguments_need_values():
    m = tail_program(None)
    with pytest.raises(ExecutionError, match="argument %n : index needs a value"):
        random_inputs(m, 0, sizes={"src": 100, "dst": 100})
    inputs = random_inputs(m, 0, args={"n": 100}, sizes={"src": 100, "dst": 100})
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def test_dynamic_buffer_size_must_be_given():
    m = tail_program(100)
    with pytest.raises(ExecutionError, match=r"number of elements of buffer %src : memref<\?xf32> is not known "
                       r"from the IR: give it with `--arg src=N` \(tilec\), sizes=\{'src': N\} \(Python\)"):
        random_inputs(m, 0)


def test_wrong_dtype_is_reported():
    m = copy_program()
    with pytest.raises(ExecutionError, match="needs float32 elements, got float64"):
        run(m, {"src": np.zeros(1024), "dst": np.zeros(1024, np.float32)})


def test_wrong_size_is_reported():
    m = copy_program()
    with pytest.raises(ExecutionError, match="array of shape"):
        run(m, {"src": np.zeros(1000, np.float32), "dst": np.zeros(1024, np.float32)})


def test_check_equivalence_names_the_first_difference():
    same = check_equivalence(copy_program(), copy_program(), seed=0)
    assert same and same.equal and same.first_difference is None
    # A "transformation" that drops the last block.
    report = check_equivalence(copy_program(), copy_program(blocks=3), seed=0)
    assert not report
    d = report.first_difference
    assert d.buffer == "dst" and d.index == 768 and d.count == 256
    assert np.isnan(d.after) and not np.isnan(d.before)
    assert "buffer %dst differs at flat index 768" in str(report)


def test_check_equivalence_reports_errors_of_the_transformed_program():
    with pytest.raises(ExecutionError) as info:
        check_equivalence(transpose(), transpose(barrier=False), seed=0)
    assert any("after the transformation" in n for n in info.value.__notes__)


# ------------------------------------------------------------------- more of the level


def test_masked_vector_load_and_store():
    # 100 elements, 4 per thread: the last vector is partial; lanes past n are masked.
    def body(g, src, dst, k):
        i = k.gid * 4
        with g.if_(i < 100):
            mask = g.create_mask(100 - i, 4)
            zeros = g.splat(g.constant(0.0, "f32"), 4)
            g.masked_store(dst, i, mask, g.masked_load(src, i, mask, zeros))

    m = kernel_program(body, n=100)
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def test_subview_of_a_row():
    def last_of_each_row(last: int):
        def body(g, src, dst, k):
            with g.if_(k.gid < 16):
                row = (k.gid * 16).named("row")
                dst[k.gid] = g.subview(src, row, 16).named("s")[last]

        return kernel_program(body, n=256)

    m = last_of_each_row(15)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"][:16], inputs["src"].reshape(16, 16)[:, 15])
    expect_error(last_of_each_row(16), "out-of-bounds access", "shape [16]")


def test_while_loop_counts_per_thread():
    def body(g, src, dst, k):
        x, count = fresh(k.gid), g.constant(0).named("k")
        with g.while_(lambda: x > 0, carry=[x, count]):
            x.assign(g.divui(x, 2))
            count += 1
        dst[k.gid] = count.cast("i32")

    m = kernel_program(body, t="i32")
    out = run(m, random_inputs(m, 0))
    expected = np.array([int(g).bit_length() for g in range(128)], np.int32)
    assert np.array_equal(out["dst"], expected)


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_precision_round_trip(t):
    # dst = truncf(extf(src) * 2): exact for f16 and bf16
    def body(g, src, dst, k):
        dst[k.gid] = (src[k.gid].cast("f32") * 2.0).cast(t)

    m = kernel_program(body, t=t)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    if t == "f16":
        assert np.array_equal(out["dst"], inputs["src"] * np.float16(2))
    else:  # bf16 as bits: doubling adds one to the exponent
        assert np.array_equal(out["dst"], inputs["src"] + np.uint16(0x80))


def test_gpu_launch_region_form():
    """A `gpu.launch` with its body inline (no gpu.module), built from xDSL's ops."""
    buf = MemRefType(f32, [64])
    host = Block(arg_types=[buf, buf])
    src, dst = host.args
    src.name_hint, dst.name_hint = "src", "dst"
    c1, c2, c32 = (arith.ConstantOp.from_int_and_width(v, IndexType()) for v in (1, 2, 32))
    body = Block(arg_types=[IndexType()] * 12)
    bx, tx, sx = body.args[0], body.args[3], body.args[9]
    o = arith.MuliOp(bx, sx)
    i = arith.AddiOp(o, tx)
    v = memref.LoadOp.get(src, [i])
    body.add_ops([o, i, v, memref.StoreOp.get(v, dst, [i]), gpu.TerminatorOp()])
    launch = gpu.LaunchOp(Region(body), [c2, c1, c1], [c32, c1, c1])
    host.add_ops([c1, c2, c32, launch, func.ReturnOp()])
    m = ModuleOp([func.FuncOp("f", ([buf, buf], []), Region(host))])
    m.verify()
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def test_write_after_a_barrier_over_a_lower_block_write_is_a_race():
    # Block 0 writes dst[tid], both blocks pass a barrier, then block 1 writes other
    # values there: the barrier orders threads of one block only, so the later write
    # races the lower-numbered block's (a writer's block is compared with !=, not <).
    def body(g, src, dst, k):
        x = src[k.gid]
        with g.if_(k.bid.eq(0)):
            dst[k.tid] = x
        g.barrier()
        with g.if_(k.bid.eq(1)):
            dst[k.tid] = x

    e = expect_error(kernel_program(body), "data race on global memory: thread 0 of block 1 writes",
                     "to %dst[0], which thread 0 of block 0 wrote", "blocks do not synchronise")
    assert e.details["index"] == 0


def test_a_race_between_two_blocks_copying_redundantly_names_both_blocks():
    """Blocks 0 and 1 each copy their own 8x8 tile of `a` into the same tile of `b`: a
    layout-level copy is done by every thread of its block alike, so the race is between
    two whole blocks, each named by its block id."""
    import tilec

    p = tilec.Program("race")
    a = p.view(p.pointer("a", "f32", align=None), "(16,8):(8,1)")
    b = p.view(p.pointer("b", "f32", align=None), "(16,8):(8,1)")
    with p.launch(grid=(2, 1, 1), threads=64) as k:
        p.copy(p.tile(a, [k.bx, 0], [8, 8]), p.tile(b, [0, 0], [8, 8]))
    with pytest.raises(ExecutionError, match=r"data race on global memory: every thread of block 0 \(redundantly\) "
                                             r"and every thread of block 1 \(redundantly\) write different values"):
        run(p.module, random_inputs(p.module, seed=0))


def test_unsigned_ceiling_division():
    # arith.ceildivui reads its operands as unsigned and rounds the quotient up
    # (an odd quotient with a remainder is where "+ 1" and "| 1" part).
    def body(g, src, dst, k):
        x = src[k.gid]
        dst[k.gid] = g.ceildivui(x, 7)

    m = kernel_program(body, t="i32")
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    ux = inputs["src"].astype(np.int64) % 2**32
    expected = -(-ux // 7)
    assert np.any((ux // 7 % 2 == 1) & (ux % 7 != 0))
    assert np.array_equal(out["dst"].astype(np.int64) % 2**32, expected)


def test_a_static_memref_too_large_to_hold_is_refused_before_the_run():
    """A memref of static shape past MAX_ELEMENTS is refused at its op before the run
    (the executor would have to materialise it)."""
    from tilec.runtime.reference.api import MAX_ELEMENTS

    big = MAX_ELEMENTS + 1
    block = Block(arg_types=[MemRefType(f32, [4])])
    block.args[0].name_hint = "a"
    block.add_ops([memref.AllocOp.get(f32, shape=[big]), func.ReturnOp()])
    module = ModuleOp([func.FuncOp("big", ((MemRefType(f32, [4]),), ()), Region(block))])
    with pytest.raises(ExecutionError, match=rf"a value of {big} elements \(memref<{big}xf32>\) is too large"):
        run(module, {"a": np.zeros(4, np.float32)})
