// RUN: tilec %s -p 'coalesce,vectorize-pointers' | filecheck %s
// RUN: tilec %s -p 'coalesce,vectorize-pointers' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @chunks_f16: equivalent after
// EQ: @chunks_flat_f32: equivalent after
// EQ: @rows_2d_i8: equivalent after
// EQ: @nan_other_bf16: equivalent after
// Masks computed from arange, compares and `andi` of run-time extents (Triton's
// `offs < n`) keep the full 16-byte vector in the interior and, where the extent is
// known a multiple of the vector (a `multiple_of` promise, as the jit's % 16
// specialisation states), one predicate per vector at the edge too, for every element
// size and any `other` (-inf, 0, NaN). The reference executor checks each vector's
// contiguity, alignment and uniform mask in --check-equivalence.

// One row per block, a loop over chunks of 1024 f16: the loop's induction variable
// (0, 1024, 2048, ...) keeps the offsets' divisibility, so each chunk moves 8 f16 per
// access with one predicate each (n promised a multiple of 16).
// CHECK-LABEL: func.func @chunks_f16
// CHECK:         layout.ptr_load {{.*}} {vector = 8 : i64, uniform_mask} : tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         layout.ptr_store {{.*}} {vector = 8 : i64, uniform_mask}
// CUDA-LABEL: chunks_f16_kernel(
// CUDA:         for (
// CUDA:         tilec_bitcast<f16x8>(*reinterpret_cast<const i32x4*>(
#a = #layout.auto<{rank = 1, warps = 4}>
func.func @chunks_f16(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index, %n: index)
    attributes {tilec.args = {src = 6240 : index, dst = 6240 : index, m = 3 : index, n = 2080 : index}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = arith.constant 1024 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%row: index, %by: index, %bz: index, %tid: index):
    %row32 = arith.index_cast %row : index to i32
    %n0 = arith.index_cast %n : index to i32
    %n32 = layout.multiple_of %n0 {divisor = 16 : i64} : i32
    %base = arith.muli %row32, %n32 : i32
    %ninf = arith.constant 0xFC00 : f16
    scf.for %off = %c0 to %n step %chunk {
      %off32 = arith.index_cast %off : index to i32
      %idx = layout.arange {start = 0 : i64, end = 1024 : i64} : tensor<1024xi32, #a>
      %offs_s = layout.splat %off32 : i32 -> tensor<1024xi32, #a>
      %cols = arith.addi %offs_s, %idx : tensor<1024xi32, #a>
      %nn = layout.splat %n32 : i32 -> tensor<1024xi32, #a>
      %mask = layout.cmpi slt, %cols, %nn : tensor<1024xi32, #a>
      %bs = layout.splat %base : i32 -> tensor<1024xi32, #a>
      %at = arith.addi %bs, %cols : tensor<1024xi32, #a>
      %p = layout.splat %src : !layout.ptr<f16, align 16> -> tensor<1024x!layout.ptr<f16>, #a>
      %ps = layout.addptr %p, %at : tensor<1024x!layout.ptr<f16>, #a>, tensor<1024xi32, #a>
      %x = layout.ptr_load %ps, %ninf : f16 mask %mask : tensor<1024xi1, #a> : tensor<1024x!layout.ptr<f16>, #a> -> tensor<1024xf16, #a>
      %q = layout.splat %dst : !layout.ptr<f16, align 16> -> tensor<1024x!layout.ptr<f16>, #a>
      %qs = layout.addptr %q, %at : tensor<1024x!layout.ptr<f16>, #a>, tensor<1024xi32, #a>
      layout.ptr_store %x, %qs mask %mask : tensor<1024xi1, #a> : tensor<1024xf16, #a>, tensor<1024x!layout.ptr<f16>, #a>
    }
  }
  func.return
}

// A flat loop over chunks with an n of unknown divisibility: the vector stays 4 f32
// (the addresses are aligned); its lanes are masked one by one only in the vector
// that straddles n (no `uniform_mask`), so the interior moves whole vectors.
// CHECK-LABEL: func.func @chunks_flat_f32
// CHECK:         layout.ptr_load {{.*}} {vector = 4 : i64} : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:         layout.ptr_store {{.*}} {vector = 4 : i64}
#f = #layout.auto<{rank = 1, warps = 4}>
func.func @chunks_flat_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %n: index)
    attributes {tilec.args = {src = 1003 : index, dst = 1003 : index, n = 1003 : index}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = arith.constant 512 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %n32 = arith.index_cast %n : index to i32
    %zero = arith.constant 0.0 : f32
    scf.for %off = %c0 to %n step %chunk {
      %off32 = arith.index_cast %off : index to i32
      %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #f>
      %offs_s = layout.splat %off32 : i32 -> tensor<512xi32, #f>
      %at = arith.addi %offs_s, %idx : tensor<512xi32, #f>
      %nn = layout.splat %n32 : i32 -> tensor<512xi32, #f>
      %mask = layout.cmpi slt, %at, %nn : tensor<512xi32, #f>
      %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #f>
      %ps = layout.addptr %p, %at : tensor<512x!layout.ptr<f32>, #f>, tensor<512xi32, #f>
      %x = layout.ptr_load %ps, %zero : f32 mask %mask : tensor<512xi1, #f> : tensor<512x!layout.ptr<f32>, #f> -> tensor<512xf32, #f>
      %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #f>
      %qs = layout.addptr %q, %at : tensor<512x!layout.ptr<f32>, #f>, tensor<512xi32, #f>
      layout.ptr_store %x, %qs mask %mask : tensor<512xi1, #f> : tensor<512xf32, #f>, tensor<512x!layout.ptr<f32>, #f>
    }
  }
  func.return
}

// Several rows per block, 1-byte elements: mask = (rows < m) & (cols < n), n promised a
// multiple of 16: 16 i8 per access, one predicate each.
// CHECK-LABEL: func.func @rows_2d_i8
// CHECK:         layout.ptr_load {{.*}} {vector = 16 : i64, uniform_mask} : tensor<4x256x!layout.ptr<i8>, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1], order = [1, 0]}>>
// CHECK:         layout.ptr_store {{.*}} {vector = 16 : i64, uniform_mask}
#b = #layout.auto<{rank = 2, warps = 2}>
#br = #layout.slice<{dim = 1, parent = #b}>
#bc = #layout.slice<{dim = 0, parent = #b}>
func.func @rows_2d_i8(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %m: index, %n: index)
    attributes {tilec.args = {src = 1440 : index, dst = 1440 : index, m = 9 : index, n = 160 : index}} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = arith.ceildivui %m, %c4 : index
  layout.launch grid(%g, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %b32 = arith.index_cast %bx : index to i32
    %four = arith.constant 4 : i32
    %r0 = arith.muli %b32, %four : i32
    %m32 = arith.index_cast %m : index to i32
    %n0 = arith.index_cast %n : index to i32
    %n32 = layout.multiple_of %n0 {divisor = 16 : i64} : i32
    %ri = layout.arange {start = 0 : i64, end = 4 : i64} : tensor<4xi32, #br>
    %r0s = layout.splat %r0 : i32 -> tensor<4xi32, #br>
    %rows1 = arith.addi %r0s, %ri : tensor<4xi32, #br>
    %rows2 = layout.expand_dims %rows1 {axis = 1 : i64} : tensor<4xi32, #br> -> tensor<4x1xi32, #b>
    %rows = layout.broadcast %rows2 : tensor<4x1xi32, #b> -> tensor<4x256xi32, #b>
    %ci = layout.arange {start = 0 : i64, end = 256 : i64} : tensor<256xi32, #bc>
    %cols2 = layout.expand_dims %ci {axis = 0 : i64} : tensor<256xi32, #bc> -> tensor<1x256xi32, #b>
    %cols = layout.broadcast %cols2 : tensor<1x256xi32, #b> -> tensor<4x256xi32, #b>
    %ms = layout.splat %m32 : i32 -> tensor<4x256xi32, #b>
    %ns = layout.splat %n32 : i32 -> tensor<4x256xi32, #b>
    %in_m = layout.cmpi slt, %rows, %ms : tensor<4x256xi32, #b>
    %in_n = layout.cmpi slt, %cols, %ns : tensor<4x256xi32, #b>
    %mask = arith.andi %in_m, %in_n : tensor<4x256xi1, #b>
    %rn = arith.muli %rows, %ns : tensor<4x256xi32, #b>
    %at = arith.addi %rn, %cols : tensor<4x256xi32, #b>
    %zero = arith.constant 0 : i8
    %p = layout.splat %src : !layout.ptr<i8, align 16> -> tensor<4x256x!layout.ptr<i8>, #b>
    %ps = layout.addptr %p, %at : tensor<4x256x!layout.ptr<i8>, #b>, tensor<4x256xi32, #b>
    %x = layout.ptr_load %ps, %zero : i8 mask %mask : tensor<4x256xi1, #b> : tensor<4x256x!layout.ptr<i8>, #b> -> tensor<4x256xi8, #b>
    %q = layout.splat %dst : !layout.ptr<i8, align 16> -> tensor<4x256x!layout.ptr<i8>, #b>
    %qs = layout.addptr %q, %at : tensor<4x256x!layout.ptr<i8>, #b>, tensor<4x256xi32, #b>
    layout.ptr_store %x, %qs mask %mask : tensor<4x256xi1, #b> : tensor<4x256xi8, #b>, tensor<4x256x!layout.ptr<i8>, #b>
  }
  func.return
}

// A NaN `other` and bf16: the width does not depend on the fill value.
// CHECK-LABEL: func.func @nan_other_bf16
// CHECK:         layout.ptr_load {{.*}} {vector = 8 : i64, uniform_mask} : tensor<512x!layout.ptr<bf16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
#h = #layout.auto<{rank = 1, warps = 2}>
func.func @nan_other_bf16(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>, %n: index)
    attributes {tilec.args = {src = 1024 : index, dst = 1024 : index, n = 784 : index}} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %b32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %b32, %blk : i32
    %n0 = arith.index_cast %n : index to i32
    %n32 = layout.multiple_of %n0 {divisor = 16 : i64} : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #h>
    %ss = layout.splat %start : i32 -> tensor<512xi32, #h>
    %at = arith.addi %ss, %idx : tensor<512xi32, #h>
    %nn = layout.splat %n32 : i32 -> tensor<512xi32, #h>
    %mask = layout.cmpi slt, %at, %nn : tensor<512xi32, #h>
    %nan = arith.constant 0x7FC0 : bf16
    %p = layout.splat %src : !layout.ptr<bf16, align 16> -> tensor<512x!layout.ptr<bf16>, #h>
    %ps = layout.addptr %p, %at : tensor<512x!layout.ptr<bf16>, #h>, tensor<512xi32, #h>
    %x = layout.ptr_load %ps, %nan : bf16 mask %mask : tensor<512xi1, #h> : tensor<512x!layout.ptr<bf16>, #h> -> tensor<512xbf16, #h>
    %q = layout.splat %dst : !layout.ptr<bf16, align 16> -> tensor<512x!layout.ptr<bf16>, #h>
    %qs = layout.addptr %q, %at : tensor<512x!layout.ptr<bf16>, #h>, tensor<512xi32, #h>
    layout.ptr_store %x, %qs : tensor<512xbf16, #h>, tensor<512x!layout.ptr<bf16>, #h>
  }
  func.return
}
