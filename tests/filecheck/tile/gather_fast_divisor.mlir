// RUN: tilec %s -p 'copy-strategy,tile{div32=0}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=DIV32
// RUN: tilec %s -p 'copy-strategy,tile{magic64=1}' | filecheck %s --check-prefix=WIDE
// RUN: tilec %s -p 'copy-strategy,tile{magic64=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{div32=1}' --check-equivalence --seed 4 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{div32=1 narrow32=1}' --check-equivalence --seed 6 | filecheck %s --check-prefix=EQ
// A gather copy with 32-bit ids divides them by each run-time extent (here H x W, as
// tilec.copy_ states an NCHW -> NHWC copy of 3 channels) by a multiplication: the host
// computes the extent's magic multiplier m = (2**62 - 1) / d + 1, the kernel takes
// the high half of the 64-bit product 4 x * m (arith.mului_extended; __umul64hi on the
// 64-bit ids keep their divisions. With `div32=1` the 32-bit ids' quotient is a 32-bit
// multiply-high of 2 x by the realign strategy's m = ceil(2**s / d) (below 2**32), shifted
// right by s - 31 (__umulhi, no 64-bit product).

// EQ: @c3: equivalent after
// EQ: @c3_pow2: equivalent after
// EQ: @c3_64: equivalent after

// DIV32-LABEL: kernel c3_kernels::c3_kernel: 32-bit indices
// DIV32-NOT:     __umul64hi
// DIV32:         __umulhi
// DIV32-NOT:     __umul64hi
// DIV32-LABEL: kernel c3_pow2_kernels::c3_pow2_kernel: 32-bit indices
// DIV32:         __umulhi
// DIV32-LABEL: kernel c3_64_kernels::c3_64_kernel: 64-bit indices
// CHECK-LABEL: func.func @c3
// CHECK:         %[[TOP:.*]] = arith.constant 4611686018427387903 : index
// CHECK:         %[[D:.*]] = arith.maxui %n1, %{{.*}} : index
// CHECK:         %[[Q:.*]] = arith.divui %[[TOP]], %[[D]] : index
// CHECK:         %[[M:.*]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK:         %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK:         layout.launch
// CHECK:           layout.splat %[[M64]]
// CHECK:           arith.mului_extended
// CHECK:           layout.trunci
// CHECK:           layout.ptr_store
func.func @c3(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index) attributes {tilec.index_bits = 32 : i64, tilec.args = {n0 = 2 : index, n1 = 97 : index, n2 = 3 : index, ss0 = 291 : index, ss2 = 97 : index, ds0 = 291 : index, ds1 = 3 : index, src = 582 : index, dst = 582 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}

// A power of two (the magic multiplier is 2**62 / d exactly).
// CHECK-LABEL: func.func @c3_pow2
// CHECK:         arith.mului_extended
func.func @c3_pow2(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index) attributes {tilec.index_bits = 32 : i64, tilec.args = {n0 = 3 : index, n1 = 128 : index, n2 = 3 : index, ss0 = 384 : index, ss2 = 128 : index, ds0 = 384 : index, ds1 = 3 : index, src = 1152 : index, dst = 1152 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}

// No 32-bit promise: the divisions stay; with `magic64=1` the same multiplication in 64
// bits (no extension to 64 bits, no truncation) and one correction (a select where the
// remainder came out negative: `_gather_tile.magic_divmod64`).
// WIDE-LABEL: func.func @c3_64
// WIDE:         arith.divui %{{.*}}, %{{.*}} : index
// WIDE:         layout.launch
// WIDE-NOT:       layout.trunci
// WIDE:           arith.mului_extended
// WIDE:           layout.select
// CHECK-LABEL: func.func @c3_64
// CHECK-NOT:     arith.mului_extended
// CHECK:         arith.divui %{{.*}}, %{{.*}} : tensor
func.func @c3_64(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index) attributes {tilec.args = {n0 = 2 : index, n1 = 97 : index, n2 = 3 : index, ss0 = 291 : index, ss2 = 97 : index, ds0 = 291 : index, ds1 = 3 : index, src = 582 : index, dst = 582 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
