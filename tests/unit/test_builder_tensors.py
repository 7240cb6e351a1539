"""The builder's distributed-tensor and Hopper methods (compiler/builder_tensors.py,
compiler/builder_gpu.py): each builds a kernel that runs on the CPU reference executor
and matches NumPy exactly. The last test keeps the builder and the `layout` dialect
from drifting: every op has a builder method or a justified place on an exclusion list."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec.compiler import builder_gpu, builder_tensors, kernel_builder
from tilec.compiler.builder import Program
from tilec.dialects.layout import Layout
from tilec.support.diagnostics import TilecError

L = tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])          # 8 x 32 on 64 threads
L1 = tilec.BlockedLayout([1], [32], [2], [0])                      # 64 on 64 threads


def _run(p: Program, **inputs):
    return tilec.run_reference(p, {k: np.ascontiguousarray(v).ravel() for k, v in inputs.items()})


def _kernel(name: str, shape=(8, 32), out_shape=None, dtype="f32", threads=64):
    p = Program(name)
    a = p.view(p.pointer("a", dtype), f"({shape[0]},{shape[1]}):({shape[1]},1)")
    o = out_shape or shape
    b = p.view(p.pointer("b", dtype), f"({o[0]},{o[1]}):({o[1]},1)" if len(o) == 2 else f"{o[0]}:1")
    return p, a, b


X = np.arange(256, dtype=np.float32).reshape(8, 32) % 13 - 6


def test_permute_to_the_transposed_layout():
    p, a, b = _kernel("permute", out_shape=(32, 8))
    with p.launch(threads=64):
        x = p.load(a, L)
        p.store(p.permute(x, [1, 0], tilec.BlockedLayout([4, 1], [8, 4], [1, 2], [0, 1])), b)
    assert np.array_equal(_run(p, a=X, b=np.zeros(256, np.float32))["b"].reshape(32, 8), X.T)


def test_reshape_keeps_each_threads_elements():
    p, a, b = _kernel("reshape", out_shape=(256,))
    with p.launch(threads=64):
        p.store(p.reshape(p.load(a, L), [256], tilec.BlockedLayout([4], [32], [2], [0])), b)
    assert np.array_equal(_run(p, a=X, b=np.zeros(256, np.float32))["b"], X.ravel())


def test_join_then_split_and_convert_layout():
    p, a, b = _kernel("join_split", shape=(1, 64), out_shape=(1, 64))
    with p.launch(threads=64):
        row = p.load(a, tilec.BlockedLayout([1, 1], [1, 32], [1, 2], [1, 0]))
        flat = p.reshape(row, [64], L1)
        j = p.join(flat, flat * 2.0, tilec.BlockedLayout([1, 2], [32, 1], [2, 1], [1, 0]))
        lo, hi = p.split(j, L1)
        moved = p.convert_layout(lo + hi, tilec.BlockedLayout([2], [32], [2], [0]))
        back = p.convert_layout(moved, L1)
        p.store(p.reshape(back, [1, 64], tilec.BlockedLayout([1, 1], [1, 32], [1, 2], [1, 0])), b)
    x = np.arange(64, dtype=np.float32)
    assert np.array_equal(_run(p, a=x, b=np.zeros(64, np.float32))["b"], 3 * x)


def test_gather_along_the_rows():
    p, a, b = _kernel("gather")
    with p.launch(threads=64):
        x = p.load(a, L)
        cols = 31 - p.arange(0, 32, tilec.SliceLayout(0, L))
        idx = p.broadcast(p.expand_dims(cols, 0), [8, 32])
        p.store(p.gather(x, idx, 1), b)
    assert np.array_equal(_run(p, a=X, b=np.zeros(256, np.float32))["b"].reshape(8, 32), X[:, ::-1])


def _argmax(a, b):
    p = a[0].program
    take = (b[0] > a[0]) | (b[0].eq(a[0]) & (b[1] < a[1]))
    return [p.where(take, b[0], a[0]), p.where(take, b[1], a[1])]


def test_reduce_and_scan_with_a_combiner_function_and_named_kinds():
    p, a, b = _kernel("regions", out_shape=(8, 32))
    c = p.view(p.pointer("c", "i32"), "(8,1):(1,1)")
    d = p.view(p.pointer("d", "f32"), "(8,32):(32,1)")
    with p.launch(threads=64):
        x = p.load(a, L)
        idx = p.broadcast(p.expand_dims(p.arange(0, 32, tilec.SliceLayout(0, L)), 0), [8, 32])
        _, i = p.reduce((x, idx), 1, _argmax)
        p.store(p.expand_dims(i, 1), c)
        running_max = p.scan(x, 1, lambda acc, new: [p.maximum(acc[0], new[0])])
        p.store(running_max, b)
        p.store(p.scan(x, 1, "add", reverse=True), d)
    out = _run(p, a=X, b=np.zeros(256, np.float32), c=np.zeros(8, np.int32), d=np.zeros(256, np.float32))
    assert np.array_equal(out["c"], X.argmax(1).astype(np.int32))
    assert np.array_equal(out["b"].reshape(8, 32), np.maximum.accumulate(X, 1))
    assert np.array_equal(out["d"].reshape(8, 32), np.cumsum(X[:, ::-1], 1)[:, ::-1])


def test_casts_of_tensors_signed_and_unsigned():
    p = Program("casts")
    a = p.view(p.pointer("a", "i8", align=1), "64:1")
    b = p.view(p.pointer("b", "i32"), "64:1")
    f = p.view(p.pointer("f", "f32"), "64:1")
    with p.launch(threads=64):
        x = p.load(a, L1)
        p.store(x.cast("i32", unsigned=True) + x.cast("i32"), b)
        p.store(x.cast("f32", unsigned=True), f)
    x = np.arange(-32, 32, dtype=np.int8)
    out = tilec.run_reference(p, {"a": x, "b": np.zeros(64, np.int32), "f": np.zeros(64, np.float32)})
    assert np.array_equal(out["b"], x.view(np.uint8).astype(np.int32) + x.astype(np.int32))
    assert np.array_equal(out["f"], x.view(np.uint8).astype(np.float32))


def test_funnel_shift_of_rows():
    W = tilec.BlockedLayout([1, 4], [32, 1], [2, 1], [1, 0])            # each row of 4 in one thread
    p = Program("funnel")
    lo = p.view(p.pointer("lo", "i32"), "(64,4):(4,1)")
    hi = p.view(p.pointer("hi", "i32"), "(64,4):(4,1)")
    out = p.view(p.pointer("out", "i32"), "(64,4):(4,1)")
    with p.launch(threads=64):
        sh = p.arange(0, 64, tilec.SliceLayout(1, W)) % 4
        p.store(p.funnel_shift(p.load(lo, W), p.load(hi, W), sh), out)
    lo_v = np.arange(256, dtype=np.int32).reshape(64, 4)
    hi_v = lo_v + 1000
    got = tilec.run_reference(p, {"lo": lo_v.ravel(), "hi": hi_v.ravel(), "out": np.zeros(256, np.int32)})["out"]
    both = np.concatenate([lo_v, hi_v], 1)
    want = np.stack([both[r, r % 4: r % 4 + 4] for r in range(64)])
    assert np.array_equal(got.reshape(64, 4), want)


def test_partition_gives_each_thread_its_values():
    p = Program("partition")
    a = p.view(p.pointer("a", "f32"), "(8,16):(16,1)")
    b = p.view(p.pointer("b", "f32"), "(8,16):(16,1)")
    with p.launch(threads=32) as k:
        src = p.partition(a, k.tid, "((8,4),4):((1,32),8)")
        dst = p.partition(b, k.tid, "((8,4),4):((1,32),8)")
        p.copy(src, dst)
    x = np.arange(128, dtype=np.float32)
    assert np.array_equal(tilec.run_reference(p, {"a": x, "b": np.zeros(128, np.float32)})["b"], x)


def test_mma_sync_of_f16_tiles():
    acc_l = tilec.NvidiaMmaLayout(2, [1, 1], [16, 8])
    p = Program("mma")
    a = p.view(p.pointer("a", "f16"), "(16,16):(16,1)")
    b = p.view(p.pointer("b", "f16"), "(16,8):(8,1)")
    c = p.view(p.pointer("c", "f32"), "(16,8):(8,1)")
    with p.launch(threads=32):
        fa = p.load(a, tilec.DotOperandLayout(0, acc_l, 2))
        fb = p.load(b, tilec.DotOperandLayout(1, acc_l, 2))
        p.store(p.mma(fa, fb, p.full([16, 8], 0.0, "f32", acc_l)), c)
    av = (np.arange(256) % 5 - 2).astype(np.float16).reshape(16, 16)
    bv = (np.arange(128) % 3 - 1).astype(np.float16).reshape(16, 8)
    got = tilec.run_reference(p, {"a": av.ravel(), "b": bv.ravel(), "c": np.zeros(128, np.float32)})["c"]
    assert np.array_equal(got.reshape(16, 8), av.astype(np.float32) @ bv.astype(np.float32))


def _dot_program(dtype: str, m: int, n: int, k: int, threads: int = 128) -> Program:
    blk = tilec.BlockedLayout([1, 4], [8, 4], [threads // 32, 1], [1, 0])
    p = Program("dot")
    a = p.view(p.pointer("a", dtype), f"({m},{k}):({k},1)")
    b = p.view(p.pointer("b", dtype), f"({k},{n}):({n},1)")
    c = p.view(p.pointer("c", "f32"), f"({m},{n}):({n},1)")
    with p.launch(threads=threads):
        acc = p.load(c, blk)
        p.store(p.dot(p.load(a, blk), p.load(b, blk), acc), c)
    return p


def _dot_oracle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """k in order, products and sums each rounded to f32 (layout.dot's definition)."""
    d = c.astype(np.float32).copy()
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    for kk in range(a.shape[1]):
        d = (d + (a32[:, kk:kk + 1] * b32[kk:kk + 1, :]).astype(np.float32)).astype(np.float32)
    return d


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_dot_of_blocked_tiles_is_exact_against_numpy(dtype):
    """`layout.dot` on the executor: k in order, each product and sum rounded to f32,
    bit for bit as NumPy computes it (f32 and f16 operands alike)."""
    m, n, k = 32, 16, 64
    rng = np.random.default_rng(3)
    np_t = np.float32 if dtype == "f32" else np.float16
    av = rng.standard_normal((m, k)).astype(np_t)
    bv = rng.standard_normal((k, n)).astype(np_t)
    cv = rng.standard_normal((m, n)).astype(np.float32)
    got = tilec.run_reference(_dot_program(dtype, m, n, k), {"a": av.ravel(), "b": bv.ravel(), "c": cv.ravel()})["c"]
    assert np.array_equal(got.reshape(m, n), _dot_oracle(av, bv, cv))


def test_tma_copy_through_shared_memory_with_an_mbarrier():
    p = Program("tma_round_trip")
    a = p.view(p.pointer("src", "f32"), "(128,128):(128,1)")
    b = p.view(p.pointer("dst", "f32"), "(128,128):(128,1)")
    with p.launch(grid=(2, 2, 1), threads=128) as k:
        ta, tb = p.tile(a, [k.bx, k.by], [64, 64]), p.tile(b, [k.bx, k.by], [64, 64])
        s = p.alloc("(64,64):(64,1)", "f32", "smem")
        bar = p.mbarrier_init(1)
        p.mbarrier_arrive(bar, tx=64 * 64 * 4)
        p.tma_load(ta, s, bar)
        p.mbarrier_wait(bar, 0)
        p.barrier()
        p.tma_store(s, tb)
        p.tma_store_wait(0)
        p.mbarrier_inval(bar)
    x = np.arange(128 * 128, dtype=np.float32)
    assert np.array_equal(tilec.run_reference(p, {"src": x, "dst": np.zeros_like(x)})["dst"], x)
    assert "layout.tma_load" in tilec.emit(p) and "layout.mbarrier_wait" in tilec.emit(p)


def test_warp_specialized_regions_run_on_their_warpgroups():
    p = Program("roles")
    a = p.view(p.pointer("a", "f32"), "(2,128):(128,1)")
    with p.launch(threads=256) as k:
        producer, consumer = p.warp_specialize([1, 1])
        with producer:
            p.setmaxnreg("dec", 40)
            a[0, k.tid] = k.tid.cast("f32")
        with consumer:
            p.setmaxnreg("inc", 232)
            a[1, k.tid - 128] = k.tid.cast("f32") * 2.0         # the block's thread ids 128 .. 255
    got = tilec.run_reference(p, {"a": np.zeros(256, np.float32)})["a"].reshape(2, 128)
    assert np.array_equal(got, np.stack([np.arange(128), 2 * np.arange(128, 256)]).astype(np.float32))
    with pytest.raises(TilecError, match="'inc' or 'dec'"):
        p2 = Program("bad")
        with p2.launch(threads=256):
            r0, _ = p2.warp_specialize([1, 1])
            with r0:
                p2.setmaxnreg("more", 40)


def test_splat_in_a_region_takes_the_value_its_threads_share():
    """A scalar uniform over a warp_specialize region's threads splats to a tensor (as
    the block-scaled GEMM's scale of B in its consumers); a per-thread value does not."""
    lay = tilec.BlockedLayout([1], [32], [4], [0])
    p = Program("region_splat")
    a = p.view(p.pointer("a", "f32"), "(128):(1)")
    out = p.view(p.pointer("out", "f32"), "(128):(1)")
    with p.launch(threads=256):
        producer, consumer = p.warp_specialize([1, 1])
        with producer:
            p.setmaxnreg("dec", 40)
        with consumer:
            p.setmaxnreg("inc", 232)
            p.store(p.splat(a[5], [128], lay) + p.load(a, lay), out)
    x = np.arange(128, dtype=np.float32)
    assert np.array_equal(tilec.run_reference(p, {"a": x, "out": np.zeros_like(x)})["out"], x + 5)
    p2 = Program("per_thread_splat")
    out2 = p2.view(p2.pointer("out", "f32"), "(128):(1)")
    with p2.launch(threads=256) as k:
        _, consumer = p2.warp_specialize([1, 1])
        with consumer:
            p2.store(p2.splat(k.tid.cast("f32"), [128], lay), out2)
    with pytest.raises(TilecError, match="differs between the threads of a block"):
        tilec.run_reference(p2, {"out": np.zeros(128, np.float32)})


# ---------------------------------------------------------------------- builder <-> dialect

def test_fma_and_math_with_fastmath_flags():
    """`fma(x, x, 0.5)` (a number splat) and `math("exp2", ..., fastmath="afn")`: the
    reference executor's exp2 of small integers is exact, as is the fma of these values."""
    p, a, b = _kernel("fma")
    with p.launch(threads=64):
        x = p.load(a, L)
        y = p.fma(x, x, 0.5)
        p.store(y + p.math("exp2", x, fastmath="afn"), b)
    assert "math.exp2 %" in str(p.module) and "fastmath<afn>" in str(p.module)
    assert np.array_equal(_run(p, a=X, b=np.zeros_like(X))["b"].reshape(8, 32), X * X + 0.5 + np.exp2(X))
    with pytest.raises(TilecError, match="fastmath flag 'quick'"):
        Program("bad").math("exp", x, fastmath="quick")
    # fma's flags are its `fastmath` property, as parsed text has them (xDSL's
    # constructor puts them in an attribute, where the op's accessor does not look)
    q, c, d = _kernel("fma_afn")
    with q.launch(threads=64):
        z = q.fma(q.load(c, L), 2.0, 1.0, fastmath="afn")
        q.store(z, d)
    fma = z.ssa.owner
    assert "fastmath" not in fma.attributes and str(fma.fastmath) == "#arith.fastmath<afn>"
    assert "math.fma %" in str(q.module) and "fastmath<afn>" in str(q.module)


def test_if_else_carries_values_as_its_results():
    """`if_else(cond, carry=[acc])` in a loop: + x on even trips, * x on odd ones; a
    branch left empty yields the value unchanged; a change of type is refused."""
    p, a, b = _kernel("if_carry")
    with p.launch(threads=64):
        x = p.load(a, L)
        acc = p.full([8, 32], 1.0, "f32", L)
        with p.range(0, 3, carry=[acc]) as i:
            then, otherwise = p.if_else((i % 2).eq(0), carry=[acc])
            with then:
                acc.assign(acc + x)
            with otherwise:
                acc.assign(acc * x)
        only, _ = p.if_else(p.constant(1).eq(0), carry=[acc])
        with only:
            acc.assign(acc - x)
        p.store(acc, b)
    assert str(p.module).count("scf.if") == 2 and "scf.yield %" in str(p.module)
    assert np.array_equal(_run(p, a=X, b=np.zeros_like(X))["b"].reshape(8, 32), (1 + X) * X + X)
    q, a, _ = _kernel("if_carry_type")
    with q.launch(threads=64):
        y = q.load(a, L)
        then, _ = q.if_else(q.constant(1).eq(0), carry=[y])
        with pytest.raises(TilecError, match="assign a value of type"):
            with then:
                y.assign(y.cast("f16"))



def test_while_carries_a_distributed_tensor_and_an_index():
    """`while_(lambda: i < 4, carry=[acc, i])`: the sum of the first four 8x32 tiles of
    `a` with a distributed accumulator, then a condition that assigns a carried value
    (forwarded to the body and the results); both exact against NumPy."""
    p = Program("while_sum")
    a = p.view(p.pointer("a", "f32"), "(32,32):(32,1)")
    b = p.view(p.pointer("b", "f32"), "(8,32):(32,1)")
    c = p.view(p.pointer("c", "f32"), "(8,32):(32,1)")
    with p.launch(threads=64):
        acc = p.full([8, 32], 0.5, "f32", L)
        i = p.constant(0)
        with p.while_(lambda: i < 4, carry=[acc, i]):
            acc += p.load(p.tile(a, [i, 0], [8, 32]), L)
            i += 1
        p.store(acc, b)
        # do-while shape: the condition doubles `d` (forwarded), the body adds a tile
        d = p.full([8, 32], 1.0, "f32", L)
        j = p.constant(0)

        def doubled_then_test():
            d.assign(d + d)
            return j < 2

        with p.while_(doubled_then_test, carry=[d, j]):
            d += p.load(p.tile(a, [j, 0], [8, 32]), L)
            j += 1
        p.store(d, c)
    text = str(p.module)
    assert text.count("scf.while") == 2 and text.count("scf.condition") == 2
    A = np.arange(32 * 32, dtype=np.float32).reshape(32, 32) % 17 - 8
    out = _run(p, a=A, b=np.zeros((8, 32), np.float32), c=np.zeros((8, 32), np.float32))
    tiles = A.reshape(4, 8, 32)
    assert np.array_equal(out["b"].reshape(8, 32), np.float32(0.5) + tiles[0] + tiles[1] + tiles[2] + tiles[3])
    d_ref = np.ones((8, 32), np.float32)
    for t in range(2):
        d_ref = d_ref + d_ref + tiles[t]
    assert np.array_equal(out["c"].reshape(8, 32), d_ref + d_ref)


def test_while_misuse_is_located_at_the_users_line():
    """A condition that is not an i1, a carried value left as it was (`i = i + 1`),
    a carried type changed, and a condition that is not a function (and a value
    carried through `range` left as it was): TilecErrors at this file's lines."""
    import inspect
    p, a, _ = _kernel("while_bad")
    with p.launch(threads=64):
        i = p.constant(0)
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(TilecError, match="must be an i1 Value") as e:
            with p.while_(lambda: i + 1, carry=[i]):
                pass
        assert str(e.value).startswith(f"{__file__}:{line}:")
        acc = p.full([8, 32], 0.0, "f32", L)
        k = p.constant(0)
        with pytest.raises(TilecError, match="never updated in the while_ body") as e:
            line = inspect.currentframe().f_lineno + 1
            with p.while_(lambda: k < 4, carry=[acc, k]):
                acc += 1.0
                k = k + 1
        assert str(e.value).startswith(f"{__file__}:{line}:")
        with pytest.raises(TilecError, match="assign a value of type"):
            j = p.constant(0)
            with p.while_(lambda: j < 4, carry=[j]):
                j.assign(j.cast("i32"))
        with pytest.raises(TilecError, match="takes a function") as e:
            line = inspect.currentframe().f_lineno + 1
            with p.while_(i < 4, carry=[i]):
                pass
        assert str(e.value).startswith(f"{__file__}:{line}:")
        # range's misuse is located the same way
        with pytest.raises(TilecError, match="never updated in the loop") as e:
            line = inspect.currentframe().f_lineno + 1
            with p.range(0, 4, carry=[acc]):
                acc = acc + 1.0
        assert str(e.value).startswith(f"{__file__}:{line}:")


A16 = np.arange(16 * 32, dtype=np.float32).reshape(16, 32) * 0.5 - 7


def _pipelined(read_all_early: bool = False) -> Program:
    """A 16x32 f32 tile copied to shared memory in two cp.async groups without tokens
    (rows 0-7, then 8-15); after `async_wait(pending=1)` the first group has landed and
    its rows go to `b` (16-byte vectors); after `pending=0` the whole buffer, re-viewed
    as 32x16, goes to `c`. `read_all_early` reads the whole buffer after pending=1."""
    p = Program("pipelined")
    a = p.view(p.pointer("a", "f32"), "(16,32):(32,1)")
    b = p.view(p.pointer("b", "f32"), "(16,32):(32,1)")
    c = p.view(p.pointer("c", "f32"), "(32,16):(16,1)")
    with p.launch(threads=32) as k:
        s = p.alloc("(16,32):(32,1)", "f32")
        for i in range(2):
            src = p.distribute(p.vectorize(p.tile(a, [i, 0], [8, 32]), [1, 4]), k.tid, "(4,8):(8,1)")
            dst = p.distribute(p.vectorize(p.tile(s, [i, 0], [8, 32]), [1, 4]), k.tid, "(4,8):(8,1)")
            assert p.copy_async(src, dst, token=False) is None
        p.async_wait(pending=1)
        p.barrier()
        rows = p.tile(s, [0, 0], [16 if read_all_early else 8, 32])
        x = p.load(rows, tilec.BlockedLayout([1, 4], [4, 8], [1, 1], [1, 0]), vector=4)
        p.store(x, p.tile(b, [0, 0], [16 if read_all_early else 8, 32]), vector=4)
        p.async_wait(pending=0)
        p.barrier()
        flat = p.view(s, "(32,16):(16,1)")
        p.store(p.load(flat, tilec.BlockedLayout([1, 4], [8, 4], [1, 1], [1, 0]), vector=4), c, vector=4)
    return p


def test_cp_async_groups_waited_by_count_vector_accesses_and_a_reviewed_buffer():
    p = _pipelined()
    text = str(p.module)
    assert "layout.async_wait {pending = 1 : i64}" in text and "-> !layout.async_token" not in text
    assert text.count("{vector = 4 : i64}") == 4
    assert " : !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem> -> " \
           "!layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem>" in text
    out = _run(p, a=A16, b=np.zeros_like(A16), c=np.zeros_like(A16))
    assert np.array_equal(out["b"].reshape(16, 32)[:8], A16[:8])
    assert np.array_equal(out["b"].reshape(16, 32)[8:], np.zeros((8, 32), np.float32))
    assert np.array_equal(out["c"], A16.ravel())


def test_a_read_of_the_group_still_in_flight_is_reported():
    with pytest.raises(Exception, match="while a cp.async is still writing it"):
        _run(_pipelined(read_all_early=True), a=A16, b=np.zeros_like(A16), c=np.zeros_like(A16))


def test_async_wait_view_and_vector_errors():
    p = Program("errors")
    a = p.view(p.pointer("a", "f32"), "(16,32):(32,1)")
    with p.launch(threads=32) as k:
        s = p.alloc("(8,32):(32,1)", "f32")
        src = p.distribute(p.vectorize(p.tile(a, [0, 0], [8, 32]), [1, 4]), k.tid, "(4,8):(8,1)")
        tok = p.copy_async(src, p.distribute(p.vectorize(s, [1, 4]), k.tid, "(4,8):(8,1)"))
        with pytest.raises(TilecError, match="tokens or pending=N, not both"):
            p.async_wait(tok, pending=0)
        with pytest.raises(TilecError, match="a shared or register view to re-view"):
            p.view(a, "(32,16):(16,1)")
        p.async_wait(tok)
        p.load(s, tilec.BlockedLayout([1, 4], [4, 8], [1, 1], [1, 0]), vector=8)
    with pytest.raises(TilecError, match="vector = 8"):
        p.module


BUILDER_METHODS = {
    "layout.cmpi": "Value.__lt__", "layout.cmpf": "Value.__lt__", "layout.select": "KernelBuilding.where",
    "layout.extsi": "Value.cast", "layout.extui": "Value.cast", "layout.trunci": "Value.cast",
    "layout.sitofp": "Value.cast", "layout.uitofp": "Value.cast", "layout.fptosi": "Value.cast",
    "layout.fptoui": "Value.cast", "layout.scan": "KernelBuilding.scan", "layout.permute": "KernelBuilding.permute",
    "layout.reshape": "KernelBuilding.reshape", "layout.join": "KernelBuilding.join",
    "layout.split": "KernelBuilding.split", "layout.gather": "KernelBuilding.gather",
    "layout.reduce_region": "KernelBuilding.reduce", "layout.scan_region": "KernelBuilding.scan",
    "layout.mma": "KernelBuilding.mma", "layout.dot": "KernelBuilding.dot", "layout.mbarrier_init": "KernelBuilding.mbarrier_init",
    "layout.mbarrier_array": "KernelBuilding.mbarrier_array", "layout.mbarrier_at": "KernelBuilding.mbarrier_at",
    "layout.named_barrier": "KernelBuilding.named_barrier",
    "layout.mbarrier_arrive": "KernelBuilding.mbarrier_arrive", "layout.mbarrier_wait": "KernelBuilding.mbarrier_wait",
    "layout.mbarrier_inval": "KernelBuilding.mbarrier_inval", "layout.tma_load": "KernelBuilding.tma_load",
    "layout.mbarrier_expect_tx": "KernelBuilding.mbarrier_expect_tx",
    "layout.tma_store": "KernelBuilding.tma_store", "layout.tma_store_wait": "KernelBuilding.tma_store_wait",
    "layout.warp_specialize": "KernelBuilding.warp_specialize", "layout.setmaxnreg": "KernelBuilding.setmaxnreg",
    "layout.warpgroup_index": "KernelBuilding.warpgroup_index",
    "layout.read": "Value.__getitem__", "layout.write": "Value.__setitem__", "layout.dim": "KernelBuilding.dim",
    "layout.print": "KernelBuilding.print", "layout.rank": "KernelBuilding.rank", "layout.depth": "KernelBuilding.depth",
    "layout.size": "KernelBuilding.size", "layout.cosize": "KernelBuilding.cosize",
    "layout.make_tensor_like": "KernelBuilding.make_tensor_like",
    "layout.make_fragment_like": "KernelBuilding.make_fragment_like",
    "layout.static_assert": "KernelBuilding.static_assert", "layout.thread_idx": "Launch.thread_idx",
    "layout.global_idx": "Launch.global_idx", "layout.addptr": "KernelBuilding.addptr",
    "layout.ptr_load": "KernelBuilding.ptr_load", "layout.ptr_store": "KernelBuilding.ptr_store",
    "layout.multiple_of": "KernelBuilding.multiple_of", "layout.funnel_shift": "KernelBuilding.funnel_shift",
    "layout.tiled_iterator": "KernelBuilding.tiled_iterator", "layout.buffer_iterator": "KernelBuilding.buffer_iterator",
    "layout.iter_get": "TileIterator.get", "layout.iter_next": "TileIterator.next", "layout.launch": "KernelBuilding.launch",
    "layout.view": "Program.view", "layout.alloc": "KernelBuilding.alloc", "layout.tile": "KernelBuilding.tile",
    "layout.vectorize": "KernelBuilding.vectorize", "layout.distribute": "KernelBuilding.distribute",
    "layout.divide": "KernelBuilding.divide", "layout.compose": "KernelBuilding.compose",
    "layout.partition": "KernelBuilding.partition", "layout.slice": "KernelBuilding.slice",
    "layout.copy": "Program.copy", "layout.copy_async": "KernelBuilding.copy_async",
    "layout.async_wait": "KernelBuilding.async_wait", "layout.barrier": "KernelBuilding.barrier",
    "layout.load": "KernelBuilding.load", "layout.store": "KernelBuilding.store",
    "layout.prefetch_l1": "KernelBuilding.prefetch_l1",
    "layout.convert_layout": "KernelBuilding.convert_layout", "layout.splat": "KernelBuilding.splat",
    "layout.arange": "KernelBuilding.arange", "layout.expand_dims": "KernelBuilding.expand_dims",
    "layout.broadcast": "KernelBuilding.broadcast", "layout.reduce": "KernelBuilding.reduce",
    "layout.mma_wait": "KernelBuilding.mma_wait", "layout.make_identity_tensor": "KernelBuilding.make_identity_tensor",
    "layout.read_coord": "KernelBuilding.read_coord",
    "layout.copy_chunk_async": "KernelBuilding.copy_chunk_async",
    "layout.cp_async_load": "KernelBuilding.cp_async_load",
    "layout.cp_async_arrive": "KernelBuilding.cp_async_arrive",
    "layout.cluster_rank": "KernelBuilding.cluster_rank", "layout.cluster_sync": "KernelBuilding.cluster_sync",
    "layout.peer_view": "KernelBuilding.peer_view",
    "layout.atomic_add": "KernelBuilding.atomic_add", "layout.fence": "KernelBuilding.fence",
    "layout.griddep_wait": "KernelBuilding.griddep_wait",
    "layout.griddep_launch_dependents": "KernelBuilding.griddep_launch_dependents",
}
"""Each `layout` op and the builder method that makes it (class.method)."""

NO_BUILDER_METHOD = {
    "layout.prefetch": "an L2 schedule, not a value: `reread-order{prefetch=true}` places it from the re-read "
                       "fact a program's loops state (as Triton's language has no prefetch)",
    "layout.ptr_prefetch": "an L2 schedule, not a value: the `tile` pass's realign strategy places it where a "
                           "row's destination sectors are written in part (`tile{realign_prefetch}`)",
    "layout.yield": "the terminator of reduce_region / scan_region: `reduce` and `scan` with a combiner function "
                    "insert it after the function returns its values",
}
"""`layout` ops with no builder method of their own, and why."""

CLASSES = {"Program": Program, "KernelBuilding": kernel_builder.KernelBuilding, "Value": kernel_builder.Value,
           "Launch": kernel_builder.Launch, "TileIterator": kernel_builder.TileIterator}


def test_every_layout_op_has_a_builder_method_or_a_reason():
    ops = {op.name for op in Layout.operations}
    missing = sorted(ops - set(BUILDER_METHODS) - set(NO_BUILDER_METHOD))
    assert missing == [], f"layout ops with no builder method (add one, or a reason in NO_BUILDER_METHOD): {missing}"
    stale = sorted((set(BUILDER_METHODS) | set(NO_BUILDER_METHOD)) - ops)
    assert stale == [], f"entries for ops the dialect no longer has: {stale}"
    assert not set(BUILDER_METHODS) & set(NO_BUILDER_METHOD)
    for op, where in BUILDER_METHODS.items():
        cls, method = where.split(".")
        assert callable(getattr(CLASSES[cls], method, None)), f"{op}: {where} does not exist"


def test_the_mixins_are_the_kernel_builders():
    assert issubclass(kernel_builder.KernelBuilding, builder_tensors.TensorBuilding)
    assert issubclass(kernel_builder.KernelBuilding, builder_gpu.GpuBuilding)


def test_tma_into_a_swizzled_shared_buffer():
    """`alloc` takes a swizzled ComposedLayout (the 128-byte swizzle TMA writes)."""
    p = Program("tma_swizzled")
    a = p.view(p.pointer("src", "f32"), "(64,64):(64,1)")
    b = p.view(p.pointer("dst", "f32"), "(64,64):(64,1)")
    sw = tilec.ComposedLayout(tilec.Swizzle(3, 2, 3), 0, tilec.Layout((32, 32), (32, 1)))
    with p.launch(grid=(2, 2, 1), threads=128) as k:
        ta, tb = p.tile(a, [k.bx, k.by], [32, 32]), p.tile(b, [k.bx, k.by], [32, 32])
        s = p.alloc(sw, "f32", "smem")
        bar = p.mbarrier_init(1)
        p.mbarrier_arrive(bar, tx=32 * 32 * 4)
        p.tma_load(ta, s, bar)
        p.mbarrier_wait(bar, 0)
        p.barrier()
        p.copy(s, tb, strategy="simt")
    assert "#layout.composed<swizzle<3,2,3> o 0 o (32,32):(32,1)>" in tilec.emit(p)
    x = np.arange(64 * 64, dtype=np.float32)
    assert np.array_equal(tilec.run_reference(p, {"src": x, "dst": np.zeros_like(x)})["dst"], x)


def test_math_fastmath_afn_is_the_hardware_approximation():
    """`p.math(name, x, fastmath="afn")`: `fastmath<afn>` on the op, the hardware's
    approximation in the CUDA (`ex2.approx.ftz` for exp2); without it, exp2f. The
    executor computes both exactly (within float32 rounding of NumPy's exp2)."""
    from tilec.compiler.pipeline import emit, run_pipeline

    for approx in (False, True):
        p, a, b = _kernel("exp2")
        with p.launch(threads=64):
            p.store(p.math("exp2", p.load(a, L), fastmath="afn" if approx else None), b)
        text = emit(p.module, "mlir")
        assert ("fastmath<afn>" in text) == approx
        out = _run(p, a=X, b=np.zeros_like(X))["b"].reshape(8, 32)
        assert np.allclose(out, np.exp2(X), rtol=2.0**-22)
        run_pipeline(p.module, "default")
        src = emit(p.module, "cuda")
        assert ("tilec_ex2_approx_ftz" in src) == approx and ("exp2f(" in src) != approx


def test_div_takes_fastmath_flags():
    """`p.div(a, b, fastmath=...)` is `arith.divf` with the flags as its `fastmath`
    property (a number beside a tensor splat): "afn" prints the hardware's approximate
    quotient (`tilec_div_approx_ftz`), "arcp" `x * (1 / y)`, none `x / y`; the executor
    computes `x / y` for "afn" and none, `x * (1 / y)` for "arcp"."""
    from tilec.compiler.pipeline import emit, run_pipeline

    y = X + 7.5  # no zero divisor
    for flags, printed, expect in ((None, " / ", X / y), ("afn", "tilec_div_approx_ftz(", X / y),
                                   ("arcp", "* (1.0f / ", X * (np.float32(1) / y))):
        p = Program(f"div_{flags}")
        a = p.view(p.pointer("a", "f32"), "(8,32):(32,1)")
        d = p.view(p.pointer("d", "f32"), "(8,32):(32,1)")
        b = p.view(p.pointer("b", "f32"), "(8,32):(32,1)")
        with p.launch(threads=64):
            q = p.div(p.load(a, L), p.load(d, L), fastmath=flags)
            p.store(p.div(q, 1.0), b)
        div = q.ssa.owner
        assert "fastmath" not in div.attributes and (flags or "none") in str(div.fastmath)
        out = _run(p, a=X, d=y, b=np.zeros_like(X))["b"].reshape(8, 32)
        assert np.array_equal(out, expect)
        run_pipeline(p.module, "default")
        assert printed in emit(p.module, "cuda")
    with pytest.raises(TilecError, match="div takes at least one value"):
        Program("bad").div(1.0, 2.0)


def test_mbarrier_array_and_at():
    """`mbarrier_array` makes one barrier per stage; `mbarrier_at` picks one by a
    run-time index (the rolled software pipeline's ring)."""
    from tilec.dialects.layout_tma import MBarrierArrayOp, MBarrierAtOp

    p = Program("ring")
    p.pointer("x", "f32", align=16)
    with p.launch(grid=(1, 1, 1), threads=128):
        bars = p.mbarrier_array(3, count=2)
        p.mbarrier_at(bars, p.constant(1))
    m = p.module
    arr = next(o for o in m.walk() if isinstance(o, MBarrierArrayOp))
    at = next(o for o in m.walk() if isinstance(o, MBarrierAtOp))
    assert (arr.num_stages, arr.count.value.data) == (3, 2)
    assert at.bars is arr.result
