// RUN: tilec %s -p 'coalesce{vector_bytes=8},vectorize' | filecheck %s
// RUN: tilec %s -p 'coalesce{vector_bytes=8},vectorize' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'coalesce{vector_bytes=3}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: tilec %s -p 'coalesce' --print-between-passes 2>&1 | filecheck %s --check-prefix=SHOW
// SHOW: // -----// IR after coalesce //----- //
// SHOW: layout.load %ta : {{.*}} -> tensor<2x512xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
// EQ: @narrow: equivalent after
// ERR: coalesce: vector-bytes=3 must be a power of two in [1, 16]
// `vector_bytes` caps the bytes a thread holds along the contiguous mode; the choice shows
// in --print-between-passes (16 bytes by default).

// CHECK-LABEL: func.func @narrow
// CHECK:         layout.load %{{.*}} {vector = 2 : i64} : {{.*}} -> tensor<2x512xf32, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
#a = #layout.auto<{rank = 2, warps = 4}>
func.func @narrow(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,512):(512,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,512):(512,1)>, gmem>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 2, 512>} : !layout.tensor<f32, #layout.cute<(4,512):(512,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(2,512):(512,1)>, gmem>
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 2, 512>} : !layout.tensor<f32, #layout.cute<(4,512):(512,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(2,512):(512,1)>, gmem>
    %x = layout.load %ta : !layout.tensor<f32, #layout.cute<(2,512):(512,1)>, gmem> -> tensor<2x512xf32, #a>
    layout.store %x, %tb : tensor<2x512xf32, #a>, !layout.tensor<f32, #layout.cute<(2,512):(512,1)>, gmem>
  }
  func.return
}
