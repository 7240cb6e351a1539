"""The CPU reference executor on GPU-level programs (docs/gpu-level.md): correct kernels
compute what they should, and planted bugs are reported, not computed."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from string import Template

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for helpers

from helpers.gpu_text import parse_gpu  # noqa: E402

from tilec.runtime.reference import (  # noqa: E402
    ExecutionError,
    check_equivalence,
    poison_value,
    random_inputs,
    run,
)

# ----------------------------------------------------------------------------- programs

COPY = """
builtin.module attributes {gpu.container_module} {
  func.func @copy(%src: memref<1024xf32>, %dst: memref<1024xf32>) {
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @k::@copy blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%src : memref<1024xf32>, %dst : memref<1024xf32>)
    func.return
  }
  gpu.module @k {
    gpu.func @copy(%src: memref<1024xf32>, %dst: memref<1024xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %0 = arith.muli %bid, %bdim : index
      %i = arith.addi %0, %tid : index
      %v = memref.load %src[%i] : memref<1024xf32>
      memref.store %v, %dst[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
"""

# dst[i] = src[i] for i < n: a 4-wide vector per thread where it fits, a masked scalar
# loop in the tail. n comes from the tilec.args attribute.
TAIL = Template("""
builtin.module attributes {gpu.container_module} {
  func.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>, %n: index) attributes {tilec.args = {n = $n : index}} {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %per_block = arith.constant 1024 : index
    %gx = arith.ceildivui %n, %per_block : index
    gpu.launch_func @k::@copy blocks in (%gx, %c1, %c1) threads in (%c256, %c1, %c1) args(%src : memref<?xf32>, %dst : memref<?xf32>, %n : index)
    func.return
  }
  gpu.module @k {
    gpu.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %per_block = arith.constant 1024 : index
      %base = arith.muli %bid, %per_block : index
      %offset = arith.muli %tid, %c4 : index
      %i = arith.addi %base, %offset : index
      %end = arith.addi %i, %c4 : index
      %full = arith.cmpi sle, %end, %n : index
      scf.if %full {
        %v = vector.load %src[%i] : memref<?xf32>, vector<4xf32>
        vector.store %v, %dst[%i] : memref<?xf32>, vector<4xf32>
      } else {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        scf.for %k = %c0 to %c4 step %c1 {
          %j = arith.addi %i, %k : index
          %in = arith.cmpi $cmp, %j, %n : index
          scf.if %in {
            %x = memref.load %src[%j] : memref<?xf32>
            memref.store %x, %dst[%j] : memref<?xf32>
          }
        }
      }
      gpu.return
    }
  }
}
""")

# 256x256 f32 transpose through a padded 32x33 shared tile: 8x8 blocks of 32x8
# threads, each thread moving 4 elements in and 4 out.
TRANSPOSE = Template("""
builtin.module attributes {gpu.container_module} {
  func.func @transpose(%src: memref<65536xf32>, %dst: memref<65536xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @k::@transpose blocks in (%c8, %c8, %c1) threads in (%c32, %c8, %c1) args(%src : memref<65536xf32>, %dst : memref<65536xf32>)
    func.return
  }
  gpu.module @k {
    gpu.func @transpose(%src: memref<65536xf32>, %dst: memref<65536xf32>) kernel attributes {gpu.known_block_size = array<i32: 32, 8, 1>} {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c33 = arith.constant 33 : index
      %c256 = arith.constant 256 : index
      %tile = memref.alloca() : memref<1056xf32, 3 : i64>
      %row0 = arith.muli %by, %c32 : index
      %col0 = arith.muli %bx, %c32 : index
      scf.for %k = %c0 to $rows step %c1 {
        %k8 = arith.muli %k, %c8 : index
        %r = arith.addi %ty, %k8 : index
        %gr = arith.addi %row0, %r : index
        %gc = arith.addi %col0, %tx : index
        %gro = arith.muli %gr, %c256 : index
        %gi = arith.addi %gro, %gc : index
        %v = memref.load %src[%gi] : memref<65536xf32>
        %ro = arith.muli %r, %c33 : index
        %si = arith.addi %ro, %tx : index
        memref.store %v, %tile[%si] : memref<1056xf32, 3 : i64>
      }
      $barrier
      scf.for %k = %c0 to %c4 step %c1 {
        %k8 = arith.muli %k, %c8 : index
        %r = arith.addi %ty, %k8 : index
        %gr = arith.addi %col0, %r : index
        %gc = arith.addi %row0, %tx : index
        %gro = arith.muli %gr, %c256 : index
        %gi = arith.addi %gro, %gc : index
        %to = arith.muli %tx, %c33 : index
        %si = arith.addi %to, %r : index
        %v = memref.load %tile[%si] : memref<1056xf32, 3 : i64>
        memref.store %v, %dst[%gi] : memref<65536xf32>
      }
      gpu.return
    }
  }
}
""")


def transpose(rows: str = "%c4", barrier: str = "gpu.barrier") -> str:
    return TRANSPOSE.substitute(rows=rows, barrier=barrier)


def kernel_program(body: str, block: int = 64, grid: int = 2, n: int = 128, t: str = "f32") -> str:
    """A host function launching one kernel over `src`, `dst` (memref<n x t>) with
    `body` (which has %tid, %bid, %gid, %c0, %c1 and %n)."""
    return f"""
builtin.module attributes {{gpu.container_module}} {{
  func.func @f(%src: memref<{n}x{t}>, %dst: memref<{n}x{t}>) {{
    %c1 = arith.constant 1 : index
    %gx = arith.constant {grid} : index
    %bx = arith.constant {block} : index
    gpu.launch_func @k::@f blocks in (%gx, %c1, %c1) threads in (%bx, %c1, %c1) args(%src : memref<{n}x{t}>, %dst : memref<{n}x{t}>)
    func.return
  }}
  gpu.module @k {{
    gpu.func @f(%src: memref<{n}x{t}>, %dst: memref<{n}x{t}>) kernel attributes {{gpu.known_block_size = array<i32: {block}, 1, 1>}} {{
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant {n} : index
      %bdim = gpu.block_dim x
      %boff = arith.muli %bid, %bdim : index
      %gid = arith.addi %boff, %tid : index
{body}
      gpu.return
    }}
  }}
}}
"""


def line_of(text: str, fragment: str, nth: int = 0) -> int:
    """1-based line of the nth line of `text` containing `fragment`."""
    hits = [i + 1 for i, line in enumerate(text.split("\n")) if fragment in line]
    return hits[nth]


def expect_error(text: str, *fragments: str, inputs=None) -> ExecutionError:
    m = parse_gpu(text)
    with pytest.raises(ExecutionError) as info:
        run(m, inputs if inputs is not None else random_inputs(m, 0))
    msg = str(info.value)
    for f in fragments:
        assert f in msg, msg
    return info.value


# ------------------------------------------------------------------- correct programs


def test_copy_1d():
    m = parse_gpu(COPY)
    inputs = random_inputs(m, 0)
    src = inputs["src"].copy()
    out = run(m, inputs)
    assert np.array_equal(out["dst"], src)
    assert np.array_equal(out["src"], src)
    assert np.array_equal(inputs["src"], src)  # inputs are copied, not mutated
    assert np.isnan(inputs["dst"]).all()


def test_copy_accepts_positional_inputs():
    m = parse_gpu(COPY)
    src = np.arange(1024, dtype=np.float32)
    out = run(m, [src, np.full(1024, np.nan, np.float32)])  # poisoned: src[0] is 0
    assert np.array_equal(out["dst"], src)


# @add_two calls the helper @add_one, which is defined first; @add_one_more is a
# second function that nobody calls ($extra: present or not)
CALLS = Template("""
builtin.module attributes {gpu.container_module} {
  func.func @add_one(%x: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @k::@inc blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%x : memref<64xf32>)
    func.return
  }
  func.func @add_two(%x: memref<64xf32>) {
    func.call @add_one(%x) : (memref<64xf32>) -> ()
    func.call @add_one(%x) : (memref<64xf32>) -> ()
    func.return
  }
  $extra
  gpu.module @k {
    gpu.func @inc(%x: memref<64xf32>) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %v = memref.load %x[%tid] : memref<64xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %x[%tid] : memref<64xf32>
      gpu.return
    }
  }
}
""")


def test_the_entry_of_several_host_functions_is_the_one_no_other_calls():
    """Without `entry=`, a module of a host function and the helpers it calls runs the
    caller (whatever the order of definition); `entry=` runs the one named; two
    functions that nobody calls are ambiguous, and the error says to name one."""
    m = parse_gpu(CALLS.substitute(extra=""))
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(run(m, {"x": x})["x"], x + 2)
    np.testing.assert_array_equal(run(m, {"x": x}, entry="add_one")["x"], x + 1)
    two_roots = parse_gpu(CALLS.substitute(extra="""func.func @add_one_more(%x: memref<64xf32>) {
    func.call @add_one(%x) : (memref<64xf32>) -> ()
    func.return
  }"""))
    with pytest.raises(ExecutionError, match=r"several functions \(@add_one, @add_two, @add_one_more\): say which with entry="):
        run(two_roots, {"x": x})
    np.testing.assert_array_equal(run(two_roots, {"x": x}, entry="add_one_more")["x"], x + 1)


@pytest.mark.parametrize("n", [1000, 1024, 3, 2049])
def test_masked_tail(n):
    m = parse_gpu(TAIL.substitute(n=n, cmp="slt"))
    inputs = random_inputs(m, 0, sizes={"src": n, "dst": n})
    assert inputs["n"] == n
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"])


def test_transpose():
    m = parse_gpu(transpose())
    inputs = random_inputs(m, 1)
    out = run(m, inputs)
    expected = inputs["src"].reshape(256, 256).T.reshape(-1)
    assert np.array_equal(out["dst"], expected)


def test_transpose_performance():
    """The thread-level 256x256 transpose (64 blocks x 256 threads, 4 elements each,
    through shared memory with a barrier) runs in well under the 2 s target."""
    m = parse_gpu(transpose())
    inputs = random_inputs(m, 0)
    run(m, inputs)  # warm-up (imports, first-call costs)
    start = time.perf_counter()
    out = run(m, inputs)
    elapsed = time.perf_counter() - start
    print(f"\nreference executor: 256x256 f32 transpose (64 blocks x 256 threads) in {elapsed:.3f} s")
    assert np.array_equal(out["dst"], inputs["src"].reshape(256, 256).T.reshape(-1))
    assert elapsed < 4.0


def test_divergent_if_yields_per_thread_values():
    body = """
      %two = arith.constant 2 : index
      %r = arith.remui %gid, %two : index
      %even = arith.cmpi eq, %r, %c0 : index
      %x = memref.load %src[%gid] : memref<128xf32>
      %y = scf.if %even -> (f32) {
        %d = arith.addf %x, %x : f32
        scf.yield %d : f32
      } else {
        %z = arith.negf %x : f32
        scf.yield %z : f32
      }
      memref.store %y, %dst[%gid] : memref<128xf32>"""
    m = parse_gpu(kernel_program(body))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    src = inputs["src"]
    expected = np.where(np.arange(128) % 2 == 0, src + src, -src)
    assert np.array_equal(out["dst"], expected)


def test_loop_with_per_thread_trip_count_and_carried_value():
    # dst[gid] = sum of src[0 .. gid % 8)
    body = """
      %eight = arith.constant 8 : index
      %cnt = arith.remui %gid, %eight : index
      %zero = arith.constant 0.0 : f32
      %s = scf.for %k = %c0 to %cnt step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %src[%k] : memref<128xf32>
        %a = arith.addf %acc, %x : f32
        scf.yield %a : f32
      }
      memref.store %s, %dst[%gid] : memref<128xf32>"""
    m = parse_gpu(kernel_program(body))
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
    body = """
      %c4 = arith.constant 4 : index
      %c3 = arith.constant 3 : index
      %nt = arith.constant 32 : index
      %live = arith.cmpi slt, %gid, %nt : index
      scf.if %live {
        %regs = memref.alloca() : memref<4xf32, 5 : i64>
        %base = arith.muli %gid, %c4 : index
        scf.for %k = %c0 to %c4 step %c1 {
          %i = arith.addi %base, %k : index
          %x = memref.load %src[%i] : memref<128xf32>
          memref.store %x, %regs[%k] : memref<4xf32, 5 : i64>
        }
        %zero = arith.constant 0.0 : f32
        %v0 = vector.broadcast %zero : f32 to vector<4xf32>
        %v = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %v0) -> (vector<4xf32>) {
          %x = memref.load %regs[%k] : memref<4xf32, 5 : i64>
          %p = arith.subi %c3, %k : index
          %w = vector.insert %x, %acc [%p] : f32 into vector<4xf32>
          scf.yield %w : vector<4xf32>
        }
        vector.store %v, %dst[%base] : memref<128xf32>, vector<4xf32>
      }"""
    m = parse_gpu(kernel_program(body))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"].reshape(32, 4)[:, ::-1].reshape(-1))


def test_integer_semantics():
    # C division and remainder truncate toward zero; floordiv floors; i32 wraps.
    body = """
      %x = memref.load %src[%gid] : memref<128xi32>
      %m7 = arith.constant -7 : i32
      %q = arith.divsi %x, %m7 : i32
      %r = arith.remsi %x, %m7 : i32
      %f = arith.floordivsi %x, %m7 : i32
      %big = arith.constant 2147483647 : i32
      %w = arith.addi %x, %big : i32
      %s1 = arith.addi %q, %r : i32
      %s2 = arith.xori %s1, %f : i32
      %s3 = arith.addi %s2, %w : i32
      memref.store %s3, %dst[%gid] : memref<128xi32>"""
    m = parse_gpu(kernel_program(body, t="i32"))
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
    text = transpose(barrier="")
    e = expect_error(text, "data race on shared memory", "%tile", "no barrier in between")
    assert e.location == f"test.mlir:{line_of(text, 'memref.load %tile')}:9"
    assert e.details["thread"] != e.details["other_thread"]


def test_off_by_one_tile_index_is_out_of_bounds():
    # The tile is allocated 32x32 but indexed with the padded row stride 33.
    text = transpose().replace("memref<1056xf32", "memref<1024xf32")
    e = expect_error(text, "out-of-bounds access", "writes %tile[", "shape [1024]")
    assert e.location.startswith(f"test.mlir:{line_of(text, 'memref.store %v, %tile')}:")
    assert e.details["index"][0] >= 1024


def test_one_row_too_many_is_out_of_bounds():
    text = transpose(rows="%c5")  # each thread loads 5 rows of 8 instead of 4
    e = expect_error(text, "out-of-bounds access", "reads %src[65536]", "of block 56")
    assert e.location.startswith(f"test.mlir:{line_of(text, 'memref.load %src')}:")


def test_out_of_bounds_vector_access():
    # The tail is not masked: the last vector reaches past the end of the buffer.
    text = TAIL.substitute(n=1000, cmp="slt").replace(
        "%full = arith.cmpi sle, %end, %n : index", "%full = arith.cmpi sle, %i, %n : index"
    )
    m = parse_gpu(text)
    e = expect_error(text, "out-of-bounds access", "a vector of 4 elements", "%src[1000]",
                     inputs=random_inputs(m, 0, sizes={"src": 1000, "dst": 1000}))
    assert e.details["index"] == (1000,)


def test_masked_tail_off_by_one_is_out_of_bounds():
    text = TAIL.substitute(n=1001, cmp="sle")  # j <= n instead of j < n
    m = parse_gpu(text)
    expect_error(text, "out-of-bounds access", "%src[1001]",
                 inputs=random_inputs(m, 0, sizes={"src": 1001, "dst": 1001}))


def test_two_threads_writing_different_values_is_a_race():
    body = """
      %two = arith.constant 2 : index
      %half = arith.divui %gid, %two : index
      %x = memref.load %src[%gid] : memref<128xf32>
      memref.store %x, %dst[%half] : memref<128xf32>"""
    expect_error(kernel_program(body), "data race on global memory", "write different values",
                 "%dst[")


def test_writes_of_equal_values_are_not_a_race():
    body = """
      %x = memref.load %src[%c0] : memref<128xf32>
      memref.store %x, %dst[%c0] : memref<128xf32>"""
    m = parse_gpu(kernel_program(body))
    inputs = random_inputs(m, 0)
    assert run(m, inputs)["dst"][0] == inputs["src"][0]


def test_strict_audit_refuses_equal_writes_and_records_the_footprint():
    from tilec.runtime.reference import audit_writes

    m = parse_gpu(kernel_program("""
      %x = memref.load %src[%c0] : memref<128xf32>
      memref.store %x, %dst[%c0] : memref<128xf32>"""))
    with audit_writes(strict=True), pytest.raises(ExecutionError, match=r"both write .* to %dst\[0\]"):
        run(m, random_inputs(m, 0))
    # every second element, one thread each: the footprint is recorded, nothing refused
    m = parse_gpu(kernel_program("""
      %two = arith.constant 2 : index
      %lo = arith.constant 64 : index
      %in = arith.cmpi ult, %gid, %lo : index
      scf.if %in {
        %j = arith.muli %gid, %two : index
        %x = memref.load %src[%j] : memref<128xf32>
        memref.store %x, %dst[%j] : memref<128xf32>
      }"""))
    with audit_writes(strict=True) as audit:
        run(m, random_inputs(m, 0))
    assert np.array_equal(audit.written["%dst"], np.arange(128) % 2 == 0)
    assert "%src" not in audit.written


def test_race_between_blocks_on_global_memory():
    # Block 1 reads what block 0 writes: blocks never synchronise.
    body = """
      %x = memref.load %src[%gid] : memref<128xf32>
      %b0 = arith.cmpi eq, %bid, %c0 : index
      scf.if %b0 {
        memref.store %x, %dst[%tid] : memref<128xf32>
      } else {
        %y = memref.load %dst[%tid] : memref<128xf32>
        memref.store %y, %dst[%gid] : memref<128xf32>
      }"""
    expect_error(kernel_program(body), "data race on global memory",
                 "blocks do not synchronise")


def test_thread_missing_a_barrier():
    body = """
      %half = arith.constant 32 : index
      %low = arith.cmpi slt, %tid, %half : index
      scf.if %low {
        gpu.barrier
      }"""
    text = kernel_program(body)
    e = expect_error(text, "thread 32 of block 0 does not reach the barrier at test.mlir:")
    assert e.location.startswith(f"test.mlir:{line_of(text, 'gpu.barrier')}:")


def test_barrier_in_uniformly_taken_branch_is_fine():
    body = """
      %one = arith.constant 1 : index
      %b1 = arith.cmpi eq, %bid, %one : index
      %x = memref.load %src[%gid] : memref<128xf32>
      scf.if %b1 {
        gpu.barrier
      }
      memref.store %x, %dst[%gid] : memref<128xf32>"""
    m = parse_gpu(kernel_program(body))
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


SHARED_BODY = Template("""
      %s = memref.alloca() : memref<64xf32, 3 : i64>
      %x = memref.load %src[%gid] : memref<128xf32>
      %one = arith.constant 1 : index
      %t1 = arith.addi %tid, %one : index
      %c64 = arith.constant 64 : index
      %nb = arith.remui %t1, %c64 : index
      $before
      memref.store %x, %s[%tid] : memref<64xf32, 3 : i64>
      $between
      %y = memref.load %s[%nb] : memref<64xf32, 3 : i64>
      memref.store %y, %dst[%gid] : memref<128xf32>""")


def test_neighbour_exchange_through_shared_memory():
    m = parse_gpu(kernel_program(SHARED_BODY.substitute(before="", between="gpu.barrier")))
    inputs = random_inputs(m, 0)
    src = inputs["src"].reshape(2, 64)
    assert np.array_equal(run(m, inputs)["dst"].reshape(2, 64), np.roll(src, -1, axis=1))


def test_read_before_any_write_is_uninitialised():
    body = SHARED_BODY.substitute(
        before="%early = memref.load %s[%nb] : memref<64xf32, 3 : i64>", between="gpu.barrier"
    )
    e = expect_error(kernel_program(body), "read of uninitialised shared memory", "%s[1]")
    assert e.details["index"] == 1


def test_write_after_read_by_another_thread_is_a_race():
    # Each thread reads its neighbour's slot, then (no barrier) overwrites its own.
    body = """
      %s = memref.alloca() : memref<64xf32, 3 : i64>
      %x = memref.load %src[%gid] : memref<128xf32>
      %one = arith.constant 1 : index
      %t1 = arith.addi %tid, %one : index
      %c64 = arith.constant 64 : index
      %nb = arith.remui %t1, %c64 : index
      memref.store %x, %s[%tid] : memref<64xf32, 3 : i64>
      gpu.barrier
      %y = memref.load %s[%nb] : memref<64xf32, 3 : i64>
      %z = arith.addf %y, %x : f32
      memref.store %z, %s[%tid] : memref<64xf32, 3 : i64>
      memref.store %z, %dst[%gid] : memref<128xf32>"""
    expect_error(kernel_program(body), "data race on shared memory", "overwrites", "read")


def test_misaligned_vector_access():
    body = """
      %c4 = arith.constant 4 : index
      %nt = arith.constant 16 : index
      %live = arith.cmpi slt, %gid, %nt : index
      scf.if %live {
        %i = arith.muli %gid, %c4 : index
        %j = arith.addi %i, %c1 : index
        %v = vector.load %src[%j] : memref<128xf32>, vector<4xf32>
        vector.store %v, %dst[%i] : memref<128xf32>, vector<4xf32>
      }"""
    expect_error(kernel_program(body), "misaligned vector access", "offset 1 ")


def test_division_by_zero_in_active_threads_only():
    body = """
      %x = memref.load %src[%gid] : memref<128xi32>
      %t = arith.index_cast %tid : index to i32
      %z = arith.constant 0 : i32
      %nz = arith.cmpi ne, %t, %z : i32
      %q = scf.if %nz -> (i32) {
        %d = arith.divsi %x, %t : i32
        scf.yield %d : i32
      } else {
        scf.yield %x : i32
      }
      memref.store %q, %dst[%gid] : memref<128xi32>"""
    m = parse_gpu(kernel_program(body, t="i32"))
    run(m, random_inputs(m, 0))  # thread 0 never divides
    bad = body.replace("%nz = arith.cmpi ne", "%nz = arith.cmpi sge")
    expect_error(kernel_program(bad, t="i32"), "division by zero", "thread 0 of block 0")


def test_block_size_must_match_known_block_size():
    text = COPY.replace("array<i32: 256, 1, 1>", "array<i32: 128, 1, 1>")
    expect_error(text, "gpu.known_block_size")


def test_error_names_the_op_and_location():
    text = transpose(barrier="")
    e = expect_error(text)
    assert str(e).startswith(f"test.mlir:{line_of(text, 'memref.load %tile')}:9: error: 'memref.load':")


# ----------------------------------------------------------------------- cp.async, shfl

CP_ASYNC = Template("""
      %s = memref.alloca() : memref<256xf32, 3 : i64>
      %c4 = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %g = arith.muli %gid, %c4 : index
      cuda.cp_async %s[%i], %src[%g], 16 : memref<256xf32, 3 : i64>, memref<512xf32>
      cuda.cp_async_commit
      $wait
      $barrier
      %one = arith.constant 1 : index
      %t1 = arith.addi %tid, %one : index
      %c64 = arith.constant 64 : index
      %nb = arith.remui %t1, %c64 : index
      %j = arith.muli %nb, %c4 : index
      %v = vector.load %s[%j] : memref<256xf32, 3 : i64>, vector<4xf32>
      vector.store %v, %dst[%g] : memref<512xf32>, vector<4xf32>""")


def test_cp_async_then_wait_and_barrier():
    text = kernel_program(CP_ASYNC.substitute(wait="cuda.cp_async_wait 0", barrier="gpu.barrier"), n=512)
    m = parse_gpu(text)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    src = inputs["src"].reshape(2, 64, 4)
    assert np.array_equal(out["dst"].reshape(2, 64, 4), np.roll(src, -1, axis=1))


def test_cp_async_read_before_wait():
    text = kernel_program(CP_ASYNC.substitute(wait="", barrier="gpu.barrier"), n=512)
    expect_error(text, "while a cp.async is still writing it")


def test_cp_async_wait_without_barrier_is_a_race():
    text = kernel_program(CP_ASYNC.substitute(wait="cuda.cp_async_wait 0", barrier=""), n=512)
    expect_error(text, "data race on shared memory", "no barrier in between")


def test_cp_async_wait_keeps_the_newest_groups_pending():
    text = kernel_program(CP_ASYNC.substitute(wait="cuda.cp_async_wait 1", barrier="gpu.barrier"), n=512)
    expect_error(text, "while a cp.async is still writing it")


SHFL = """
      %x = memref.load %src[%gid] : memref<128xf32>
      %lane = gpu.lane_id
      %c31 = arith.constant 31 : index
      %rl = arith.subi %c31, %lane : index
      %r = arith.index_cast %rl : index to i32
      $shfl
      memref.store %y, %dst[%gid] : memref<128xf32>"""


def test_shfl_idx_reverses_each_warp():
    body = Template(SHFL).substitute(shfl="%y = cuda.shfl_idx %x, %r, 32 : f32")
    m = parse_gpu(kernel_program(body))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"].reshape(4, 32)[:, ::-1].reshape(-1))


def test_shfl_idx_in_a_divergent_warp():
    shfl = """%c5 = arith.constant 5 : index
      %lo = arith.cmpi ult, %lane, %c5 : index
      %y = scf.if %lo -> (f32) {
        %s = cuda.shfl_idx %x, %r, 32 : f32
        scf.yield %s : f32
      } else {
        scf.yield %x : f32
      }"""
    body = Template(SHFL).substitute(shfl=shfl)
    expect_error(kernel_program(body), "thread 5 of block 0 does not take part in the warp shuffle")


# --------------------------------------------------------------------------------- API


def test_random_inputs_poison_outputs_and_are_reproducible():
    m = parse_gpu(COPY)
    a, b = random_inputs(m, 7), random_inputs(m, 7)
    assert np.array_equal(a["src"], b["src"])
    assert not np.array_equal(a["src"], random_inputs(m, 8)["src"])
    poison = poison_value(np.dtype(np.float32))
    assert np.isnan(poison)
    assert (a["dst"].view(np.uint32) == np.float32(poison).view(np.uint32)).all()
    assert np.isfinite(a["src"]).all() and a["src"].std() > 0.5


def test_index_arguments_need_values():
    text = TAIL.substitute(n=100, cmp="slt").replace("attributes {tilec.args = {n = 100 : index}} ", "")
    m = parse_gpu(text)
    with pytest.raises(ExecutionError, match="argument %n : index needs a value"):
        random_inputs(m, 0, sizes={"src": 100, "dst": 100})
    inputs = random_inputs(m, 0, args={"n": 100}, sizes={"src": 100, "dst": 100})
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def test_dynamic_buffer_size_must_be_given():
    m = parse_gpu(TAIL.substitute(n=100, cmp="slt"))
    with pytest.raises(ExecutionError, match=r"number of elements of buffer %src : memref<\?xf32> is not known "
                       r"from the IR: give it with `--arg src=N` \(tilec\), sizes=\{'src': N\} \(Python\)"):
        random_inputs(m, 0)


def test_wrong_dtype_is_reported():
    m = parse_gpu(COPY)
    with pytest.raises(ExecutionError, match="needs float32 elements, got float64"):
        run(m, {"src": np.zeros(1024), "dst": np.zeros(1024, np.float32)})


def test_wrong_size_is_reported():
    m = parse_gpu(COPY)
    with pytest.raises(ExecutionError, match="array of shape"):
        run(m, {"src": np.zeros(1000, np.float32), "dst": np.zeros(1024, np.float32)})


def test_check_equivalence_names_the_first_difference():
    same = check_equivalence(parse_gpu(COPY), parse_gpu(COPY), seed=0)
    assert same and same.equal and same.first_difference is None
    # A "transformation" that drops the last block.
    broken = parse_gpu(COPY.replace("%c4 = arith.constant 4", "%c4 = arith.constant 3"))
    report = check_equivalence(parse_gpu(COPY), broken, seed=0)
    assert not report
    d = report.first_difference
    assert d.buffer == "dst" and d.index == 768 and d.count == 256
    assert np.isnan(d.after) and not np.isnan(d.before)
    assert "buffer %dst differs at flat index 768" in str(report)


def test_check_equivalence_reports_errors_of_the_transformed_program():
    with pytest.raises(ExecutionError) as info:
        check_equivalence(parse_gpu(transpose()), parse_gpu(transpose(barrier="")), seed=0)
    assert any("after the transformation" in n for n in info.value.__notes__)


# ------------------------------------------------------------------- more of the level


def test_masked_vector_load_and_store():
    # 100 elements, 4 per thread: the last vector is partial; lanes past n are masked.
    body = """
      %c4 = arith.constant 4 : index
      %lim = arith.constant 100 : index
      %i = arith.muli %gid, %c4 : index
      %in = arith.cmpi slt, %i, %lim : index
      scf.if %in {
        %left = arith.subi %lim, %i : index
        %m = vector.create_mask %left : vector<4xi1>
        %z = arith.constant 0.0 : f32
        %pass = vector.broadcast %z : f32 to vector<4xf32>
        %v = vector.maskedload %src[%i], %m, %pass : memref<100xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
        vector.maskedstore %dst[%i], %m, %v : memref<100xf32>, vector<4xi1>, vector<4xf32>
      }"""
    m = parse_gpu(kernel_program(body, n=100))
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def test_subview_of_a_row():
    body = """
      %c16 = arith.constant 16 : index
      %live = arith.cmpi slt, %gid, %c16 : index
      scf.if %live {
        %row = arith.muli %gid, %c16 : index
        %s = memref.subview %src[%row] [16] [1] : memref<256xf32> to memref<16xf32, strided<[1], offset: ?>>
        %c15 = arith.constant 15 : index
        %x = memref.load %s[%c15] : memref<16xf32, strided<[1], offset: ?>>
        memref.store %x, %dst[%gid] : memref<256xf32>
      }"""
    m = parse_gpu(kernel_program(body, n=256))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"][:16], inputs["src"].reshape(16, 16)[:, 15])
    bad = body.replace("%c15 = arith.constant 15", "%c15 = arith.constant 16")
    expect_error(kernel_program(bad, n=256), "out-of-bounds access", "shape [16]")


def test_while_loop_counts_per_thread():
    body = """
      %two = arith.constant 2 : index
      %res:2 = scf.while (%x = %gid, %k = %c0) : (index, index) -> (index, index) {
        %more = arith.cmpi ugt, %x, %c0 : index
        scf.condition(%more) %x, %k : index, index
      } do {
      ^bb0(%x2: index, %k2: index):
        %h = arith.divui %x2, %two : index
        %k3 = arith.addi %k2, %c1 : index
        scf.yield %h, %k3 : index, index
      }
      %f = arith.index_cast %res#1 : index to i32
      memref.store %f, %dst[%gid] : memref<128xi32>"""
    m = parse_gpu(kernel_program(body, t="i32"))
    out = run(m, random_inputs(m, 0))
    expected = np.array([int(g).bit_length() for g in range(128)], np.int32)
    assert np.array_equal(out["dst"], expected)


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_precision_round_trip(t):
    # dst = truncf(extf(src) * 2): exact for f16 and bf16
    body = f"""
      %x = memref.load %src[%gid] : memref<128x{t}>
      %w = arith.extf %x : {t} to f32
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %w, %two : f32
      %z = arith.truncf %y : f32 to {t}
      memref.store %z, %dst[%gid] : memref<128x{t}>"""
    m = parse_gpu(kernel_program(body, t=t))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    if t == "f16":
        assert np.array_equal(out["dst"], inputs["src"] * np.float16(2))
    else:  # bf16 as bits: doubling adds one to the exponent
        assert np.array_equal(out["dst"], inputs["src"] + np.uint16(0x80))


def test_gpu_launch_region_form():
    text = """
builtin.module {
  func.func @f(%src: memref<64xf32>, %dst: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    "gpu.launch"(%c2, %c1, %c1, %c32, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
      %o = arith.muli %bx, %sx : index
      %i = arith.addi %o, %tx : index
      %v = memref.load %src[%i] : memref<64xf32>
      memref.store %v, %dst[%i] : memref<64xf32>
      "gpu.terminator"() : () -> ()
    }) : (index, index, index, index, index, index) -> ()
    func.return
  }
}
"""
    m = parse_gpu(text)
    inputs = random_inputs(m, 0)
    assert np.array_equal(run(m, inputs)["dst"], inputs["src"])


def test_write_after_a_barrier_over_a_lower_block_write_is_a_race():
    # Block 0 writes dst[tid], both blocks pass a barrier, then block 1 writes other
    # values there: the barrier orders threads of one block only, so the later write
    # races the lower-numbered block's (a writer's block is compared with !=, not <).
    body = """
      %x = memref.load %src[%gid] : memref<128xf32>
      %b0 = arith.cmpi eq, %bid, %c0 : index
      scf.if %b0 {
        memref.store %x, %dst[%tid] : memref<128xf32>
      }
      gpu.barrier
      %b1 = arith.cmpi eq, %bid, %c1 : index
      scf.if %b1 {
        memref.store %x, %dst[%tid] : memref<128xf32>
      }"""
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
    body = """
      %x = memref.load %src[%gid] : memref<128xi32>
      %c7 = arith.constant 7 : i32
      %c = arith.ceildivui %x, %c7 : i32
      memref.store %c, %dst[%gid] : memref<128xi32>"""
    m = parse_gpu(kernel_program(body, t="i32"))
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    ux = inputs["src"].astype(np.int64) % 2**32
    expected = -(-ux // 7)
    assert np.any((ux // 7 % 2 == 1) & (ux % 7 != 0))
    assert np.array_equal(out["dst"].astype(np.int64) % 2**32, expected)
