// RUN: tilec %s -p 'tile,distribute' | filecheck %s
// RUN: tilec %s -p 'tile,distribute' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @row_major: equivalent after
// EQ: @column_major: equivalent after
// EQ: @transposed: equivalent after
// EQ: @nested: equivalent after
// EQ: @strided_rows: equivalent after
// EQ: @one_d: equivalent after
// EQ: @three_d: equivalent after
// EQ: @masked: equivalent after
// EQ: @f16: equivalent after
// EQ: @f64: equivalent after
// EQ: @i8_transposed: equivalent after
// EQ: @small_block: equivalent after
// EQ: @odd_transpose: equivalent after
// Block-level gmem -> gmem copies become a load and a store with blocked layouts
// whose threads run along the contiguous mode, 16 bytes per thread.

// The load reads the source's tile and the store writes the destination's, both at
// the same block coordinates.
// CHECK-LABEL: func.func @row_major
// CHECK:         ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:    %[[TA:.*]] = layout.tile %a[%[[BY]], %[[BX]]]
// CHECK-NEXT:    %[[TB:.*]] = layout.tile %b[%[[BY]], %[[BX]]]
// CHECK-NEXT:    %[[V:.*]] = layout.load %[[TA]] : !layout.tensor<f32, #layout.cute<(32,256):(1024,1)>, gmem> -> tensor<32x256xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK-NEXT:    layout.store %[[V]], %[[TB]] : tensor<32x256xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK-NOT:     layout.convert_layout
// CHECK-NOT:     layout.copy
func.func @row_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @column_major
// CHECK:         layout.load {{.*}} -> tensor<256x32xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]}>>
// CHECK-NOT:     layout.convert_layout
func.func @column_major(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Transpose: loaded coalesced for the source, converted, stored coalesced for the
// destination.
// CHECK-LABEL: func.func @transposed
// CHECK:         ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:    %[[TA:.*]] = layout.tile %a[%[[BX]], %[[BY]]]
// CHECK-NEXT:    %[[TB:.*]] = layout.tile %b[%[[BX]], %[[BY]]]
// CHECK-NEXT:    %[[V:.*]] = layout.load %[[TA]] {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[V]] : {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]}>>
// CHECK-NEXT:    layout.store %[[W]], %[[TB]] : tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]}>>
func.func @transposed(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// Nested source layout contiguous along mode 1 (runs of 8), destination along mode 0.
// CHECK-LABEL: func.func @nested
// CHECK:         layout.load {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 4], {{.*}} order = [1, 0]}>>
// CHECK-NEXT:    layout.convert_layout {{.*}} -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 1], {{.*}} order = [0, 1]}>>
func.func @nested(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<((8,128),(8,128)):((128,8192),(1,1024))>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<((8,128),(8,128)):((128,8192),(1,1024))>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @strided_rows
// CHECK:         layout.load {{.*}}(32,256):(1024,1){{.*}} -> tensor<32x256xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK-NOT:     layout.convert_layout
func.func @strided_rows(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(512,512):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @one_d
// CHECK:         layout.load {{.*}} -> tensor<4096xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>
func.func @one_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<1048576:1>, gmem>, !layout.tensor<f32, #layout.cute<1048576:1>, gmem>
  func.return
}

// CHECK-LABEL: func.func @three_d
// CHECK:         layout.load {{.*}} -> tensor<1x32x256xf32, #layout.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 1, 32], warpsPerCTA = [1, 8, 1], order = [2, 1, 0]}>>
func.func @three_d(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>, !layout.tensor<f32, #layout.cute<(16,128,512):(65536,512,1)>, gmem>
  func.return
}

// Masked tiles load and store with the same layouts (the mask is on the views).
// CHECK-LABEL: func.func @masked
// CHECK:         layout.load {{.*}}, gmem, masked> -> tensor<32x256xf32
// CHECK:         layout.store {{.*}}, gmem, masked>
func.func @masked(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1000,1000):(1000,1)>, gmem>
  func.return
}

// 16 bytes per thread: 8 f16, 2 f64, 16 i8.
// CHECK-LABEL: func.func @f16
// CHECK:         #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
func.func @f16(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @f64
// CHECK:         #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
func.func @f64(%p: !layout.ptr<f64, align 16>, %q: !layout.ptr<f64, align 16>) {
  %a = layout.view %p : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f64, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// A transpose of 1-byte elements: each thread also holds 4 along the destination's
// contiguous mode (`pack`: one 4-byte word per shared-memory write).
// CHECK-LABEL: func.func @i8_transposed
// CHECK:         layout.load {{.*}} -> tensor<128x128xi8, #layout.blocked<{sizePerThread = [4, 16], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK-NEXT:    layout.convert_layout {{.*}} -> tensor<128x128xi8, #layout.blocked<{sizePerThread = [16, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>>
func.func @i8_transposed(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<i8, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(1024,1024):(1,1024)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<i8, #layout.cute<(1024,1024):(1,1024)>, gmem>
  func.return
}

// A hand-written block-level copy in a block of 4 warps.
// CHECK-LABEL: func.func @small_block
// CHECK:         layout.launch {{.*}} threads(128)
// CHECK:         layout.load %{{.*}} -> tensor<16x64xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @small_block(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 64>} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 64>} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
    layout.copy %ta, %tb : !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>, !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
  }
  func.return
}

// Rows of odd length: no tile row starts aligned, so no vector is legal on either side
// (and `tile` picks 128x128 tiles at 512 threads for such a transpose: 64 KiB);
// each thread then holds one element per run and the 32 lanes of a warp read 32
// consecutive elements (not 4 scalars each, 16 bytes apart).
// CHECK-LABEL: func.func @odd_transpose
// CHECK:         layout.load {{.*}} -> tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [16, 1], order = [1, 0]}>>
// CHECK:         layout.convert_layout {{.*}} -> tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 16], order = [0, 1]}>>
func.func @odd_transpose(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1021,1027):(1027,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1021,1027):(1,1021)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1021,1027):(1027,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1021,1027):(1,1021)>, gmem>
  func.return
}
