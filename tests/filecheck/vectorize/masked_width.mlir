// RUN: tilec %s -p vectorize | filecheck %s
// RUN: tilec %s -p vectorize --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @f32_n1000: equivalent after
// EQ: @f16_n1000: equivalent after
// EQ: @f16_n768_nan: equivalent after
// EQ: @f16_n1002: equivalent after
// EQ: @f16_n1001_padded: equivalent after
// EQ: @f32_n1001_unaligned: equivalent after
// EQ: @i8_n1000: equivalent after
// EQ: @i8_n1008: equivalent after
// EQ: @f32_n_promised: equivalent after
// EQ: @f32_n_unknown: equivalent after
// EQ: @f16_computed_mask: equivalent after
// EQ: @f16_computed_mask_unknown: equivalent after
// Masked loads and stores keep their full vector width (issue 37). A row of N elements
// under a power-of-two masked tile (a softmax row, `other` = -inf): `vector` is the
// widest access the row's alignment allows (16 bytes when the row pitch is a multiple
// of 16 bytes), whatever N; `uniform_mask` says that the mask is the same over each
// vector, which holds when N (the mask's bound) is a multiple of the vector: a fact
// of a static extent, of `layout.view {divisible}`, or (a computed mask) of AxisInfo.
// Then one predicate guards each vector; otherwise a vector across the edge is read
// lane by lane and every other vector whole. The reference executor checks both
// claims under --check-equivalence; tests/unit/test_masked_vectors.py compares with
// NumPy and compiles the CUDA with NVRTC.

// f32, N = 1000: rows of 4000 bytes; 4 per access, 1000 a multiple of 4: uniform.
// CHECK-LABEL: func.func @f32_n1000
// CHECK:         layout.load %ta, %o : f32 {vector = 4 : i64, uniform_mask} :
// CHECK:         layout.store %x, %tb {vector = 4 : i64, uniform_mask} :
// CUDA-LABEL:    f32_n1000_kernel(
// CUDA-NOT:      src[
// CUDA:          = *reinterpret_cast<const f32x4*>(src + {{.*}});
// CUDA-NOT:      src[
// CUDA:          }
func.func @f32_n1000(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %o = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %o : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// f16, N = 1000 (the issue's 0.43 of cudaMemcpy: each half was read by itself): 16-byte
// vectors, one predicate each; past the row the vector is `other` (-inf) whole.
// CHECK-LABEL: func.func @f16_n1000
// CHECK:         layout.load %ta, %o : f16 {vector = 8 : i64, uniform_mask} :
// CHECK:         layout.store %x, %tb {vector = 8 : i64, uniform_mask} :
// CUDA-LABEL:    f16_n1000_kernel(
// CUDA:          if ([[P:[a-z_0-9]+]]) {
// CUDA-NEXT:     // {{.*}}
// CUDA-NEXT:     const f16x8 {{.*}} = tilec_bitcast<f16x8>(*reinterpret_cast<const i32x4*>(src + {{.*}}));
// CUDA:          } else {
// CUDA-NEXT:     // {{.*}}
// CUDA-NEXT:     const f16x8 {{.*}} = {{[{][{]}}__ushort_as_half((unsigned short)0xfc00),
// CUDA:          if ([[P]]) {
// CUDA-NEXT:     // {{.*}}
// CUDA-NEXT:     *reinterpret_cast<i32x4*>(dst + {{.*}}) = tilec_bitcast<i32x4>(
// CUDA-NOT:      src[
// CUDA:          }
func.func @f16_n1000(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %o = arith.constant 0xFC00 : f16
    %x = layout.load %ta, %o : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f16, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// f16, N = 768, `other` NaN: 16-byte vectors, uniform.
// CHECK-LABEL: func.func @f16_n768_nan
// CHECK:         layout.load %ta, %o : f16 {vector = 8 : i64, uniform_mask} :
func.func @f16_n768_nan(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,768):(768,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
    %o = arith.constant 0x7E00 : f16
    %x = layout.load %ta, %o : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked> -> tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f16, #layout.cute<(1,1024):(768,1)>, gmem, masked>
  }
  func.return
}

// f16, N = 1002: rows 4-byte aligned only, so 2 per access (the widest legal), and
// 1002 is a multiple of 2: uniform.
// CHECK-LABEL: func.func @f16_n1002
// CHECK:         layout.load %ta {tilec.vector_note = "vector 2 of a register run of 8 along dim 1: 4 is not legal: a stride of (?,1002):(1002,1) (1002) is not a multiple of 4", vector = 2 : i64, uniform_mask} :
func.func @f16_n1002(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1002):(1002,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1002):(1002,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1002):(1002,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1002,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1002):(1002,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1002,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<f16, #layout.cute<(1,1024):(1002,1)>, gmem, masked> -> tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f16, #layout.cute<(1,1024):(1002,1)>, gmem, masked>
  }
  func.return
}

// f16, N = 1001 in rows padded to 1024: 16-byte vectors, but the mask's bound 1001 is
// no multiple of 8: the vector across the edge goes lane by lane, every other whole.
// CHECK-LABEL: func.func @f16_n1001_padded
// CHECK:         layout.load %ta, %o : f16 {tilec.vector_note = "vector 8, its lanes masked one by one where they disagree: the masked extent along mode 1 (1001) is not a multiple of 8", vector = 8 : i64} :
// CUDA-LABEL:    f16_n1001_padded_kernel(
// CUDA:          const f16x8 {{.*}} = tilec_bitcast<f16x8>(*reinterpret_cast<const i32x4*>(src + {{.*}}));
// CUDA:          } else {
// CUDA:          = src[
// CUDA:          }
func.func @f16_n1001_padded(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1001):(1024,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(?,1001):(1024,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1001):(1024,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1024,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f16, #layout.cute<(?,1001):(1024,1)>, gmem> -> !layout.tensor<f16, #layout.cute<(1,1024):(1024,1)>, gmem, masked>
    %o = arith.constant 0xFC00 : f16
    %x = layout.load %ta, %o : f16 : !layout.tensor<f16, #layout.cute<(1,1024):(1024,1)>, gmem, masked> -> tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f16, #layout.cute<(1,1024):(1024,1)>, gmem, masked>
  }
  func.return
}

// f32, N = 1001: rows start on 4-byte boundaries only: one element per access.
// CHECK-LABEL: func.func @f32_n1001_unaligned
// CHECK:         layout.load %ta, %o : f32 {tilec.vector_note = "vector 1 of a register run of 4 along dim 1: 2 is not legal: a stride of (?,1001):(1001,1) (1001) is not a multiple of 2"} :
func.func @f32_n1001_unaligned(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,1001):(1001,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
    %o = arith.constant 0x7FC00000 : f32
    %x = layout.load %ta, %o : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked> -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(1,1024):(1001,1)>, gmem, masked>
  }
  func.return
}

// i8, N = 1000: rows 8-byte aligned: 8 per access, 1000 a multiple of 8: uniform.
// CHECK-LABEL: func.func @i8_n1000
// CHECK:         layout.load %ta {tilec.vector_note = "vector 8 of a register run of 16 along dim 1: 16 is not legal: a stride of (?,1000):(1000,1) (1000) is not a multiple of 16", vector = 8 : i64, uniform_mask} :
func.func @i8_n1000(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,1000):(1000,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked> -> tensor<1x1024xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>, !layout.tensor<i8, #layout.cute<(1,1024):(1000,1)>, gmem, masked>
  }
  func.return
}

// i8, N = 1008: 16 per access, uniform.
// CHECK-LABEL: func.func @i8_n1008
// CHECK:         layout.load %ta {vector = 16 : i64, uniform_mask} :
func.func @i8_n1008(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %m: index) attributes {tilec.args = {m = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,1008):(1008,1)>, gmem>
  %b = layout.view %dst(%m) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,1008):(1008,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,1008):(1008,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(1008,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<i8, #layout.cute<(?,1008):(1008,1)>, gmem> -> !layout.tensor<i8, #layout.cute<(1,1024):(1008,1)>, gmem, masked>
    %x = layout.load %ta : !layout.tensor<i8, #layout.cute<(1,1024):(1008,1)>, gmem, masked> -> tensor<1x1024xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xi8, #layout.blocked<{sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>>, !layout.tensor<i8, #layout.cute<(1,1024):(1008,1)>, gmem, masked>
  }
  func.return
}

// A run-time N promised a multiple of 4 (and the pitch of 4): uniform.
// CHECK-LABEL: func.func @f32_n_promised
// CHECK:         layout.load %ta, %o : f32 {vector = 4 : i64, uniform_mask} :
func.func @f32_n_promised(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index) attributes {tilec.args = {m = 3 : index, n = 1000 : index, s = 1024 : index}} {
  %a = layout.view %src(%m, %n, %s) {divisible = array<i64: 1, 4, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %s) {divisible = array<i64: 1, 4, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked>
    %o = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %o : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked> -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked>
  }
  func.return
}

// A run-time N of unknown divisibility (the pitch promised a multiple of 4): the
// vectors stay, each across the edge read lane by lane.
// CHECK-LABEL: func.func @f32_n_unknown
// CHECK:         layout.load %ta, %o : f32 {tilec.vector_note = "vector 4, its lanes masked one by one where they disagree: the masked extent along mode 1 is dynamic and known a multiple of 1 only (layout.view {divisible} or layout.multiple_of can promise more)", vector = 4 : i64} :
func.func @f32_n_unknown(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index) attributes {tilec.args = {m = 3 : index, n = 1000 : index, s = 1024 : index}} {
  %a = layout.view %src(%m, %n, %s) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %s) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 1024>} : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked>
    %o = arith.constant 0xFF800000 : f32
    %x = layout.load %ta, %o : f32 : !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked> -> tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
    layout.store %x, %tb : tensor<1x1024xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(1,1024):(?,1)>, gmem, masked>
  }
  func.return
}

// A computed mask (Gluon's `mask = cols < N`) on an unmasked view: AxisInfo finds
// `arange(0, 1024) < 1000` constant over runs of 8 (1000 is a multiple of 8): uniform.
// CHECK-LABEL: func.func @f16_computed_mask
// CHECK:         layout.load %a, %o : f16 mask %in : {{.*}} {vector = 8 : i64, uniform_mask} :
// CHECK:         layout.store %x, %b mask %in : {{.*}} {vector = 8 : i64, uniform_mask} :
// CUDA-LABEL:    f16_computed_mask_kernel(
// CUDA-NOT:      src[
// CUDA:          }
#bm = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#cm = #layout.slice<{dim = 0, parent = #bm}>
!W = !layout.tensor<f16, #layout.cute<(1,1024):(1024,1)>, gmem>
func.func @f16_computed_mask(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !W
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %cols = layout.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #cm>
    %n = arith.constant 1000 : i32
    %ns = layout.splat %n : i32 -> tensor<1024xi32, #cm>
    %in1 = layout.cmpi slt, %cols, %ns : tensor<1024xi32, #cm>
    %in = layout.expand_dims %in1 {axis = 0 : i64} : tensor<1024xi1, #cm> -> tensor<1x1024xi1, #bm>
    %o = arith.constant 0xFC00 : f16
    %x = layout.load %a, %o : f16 mask %in : tensor<1x1024xi1, #bm> : !W -> tensor<1x1024xf16, #bm>
    layout.store %x, %b mask %in : tensor<1x1024xi1, #bm> : tensor<1x1024xf16, #bm>, !W
  }
  func.return
}

// The same with N an argument AxisInfo knows nothing of: vectors stay, lanes masked one
// by one where they disagree.
// CHECK-LABEL: func.func @f16_computed_mask_unknown
// CHECK:         layout.load %a, %o : f16 mask %in : {{.*}} {tilec.vector_note = "vector 8, its lanes masked one by one where they disagree: the mask operand is known constant over runs of 1 along dim 1 only (AxisInfo)", vector = 8 : i64} :
func.func @f16_computed_mask_unknown(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %nn: index) attributes {tilec.args = {nn = 1001 : index}} {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !W
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !W
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %cols = layout.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #cm>
    %n = arith.index_cast %nn : index to i32
    %ns = layout.splat %n : i32 -> tensor<1024xi32, #cm>
    %in1 = layout.cmpi slt, %cols, %ns : tensor<1024xi32, #cm>
    %in = layout.expand_dims %in1 {axis = 0 : i64} : tensor<1024xi1, #cm> -> tensor<1x1024xi1, #bm>
    %o = arith.constant 0xFC00 : f16
    %x = layout.load %a, %o : f16 mask %in : tensor<1x1024xi1, #bm> : !W -> tensor<1x1024xf16, #bm>
    layout.store %x, %b mask %in : tensor<1x1024xi1, #bm> : tensor<1x1024xf16, #bm>, !W
  }
  func.return
}
