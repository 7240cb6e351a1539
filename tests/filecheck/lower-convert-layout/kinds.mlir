// RUN: tilec %s -p 'lower-convert-layout{shuffle=off}' | filecheck %s
// RUN: tilec %s -p 'lower-convert-layout{shuffle=on}' | filecheck %s --check-prefix=SHFL
// RUN: tilec %s -p lower-convert-layout | filecheck %s --check-prefix=SHFL
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off smem_layout=plain}' | filecheck %s --check-prefix=PLAIN
// What moves decides the lowering: registers only, lanes of a warp, or warps.

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
#B = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [0, 1]}>
#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#V = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#VP = #layout.linear<{register = [[256], [512]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]], block = []}>
#VR = #layout.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]], block = []}>
#LS = #layout.linear<{register = [], lane = [[2], [1], [4], [8], [16]], warp = [[32], [64]], block = []}>
!G = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!G1 = !layout.tensor<f32, #layout.cute<(512):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>

// Registers are renamed inside each thread: the conversion stays for lower-to-gpu.
// CHECK-LABEL: func.func @register
// CHECK:         layout.convert_layout %{{.*}} {lowering = "register"}
// CHECK-NOT:     layout.alloc
// CHECK:         func.return
func.func @register(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G1 -> tensor<512xf32, #V>
    %w = layout.convert_layout %v : tensor<512xf32, #V> -> tensor<512xf32, #VR>
    layout.store %w, %b : tensor<512xf32, #VR>, !G1
  }
  func.return
}

// Lanes of a warp swap elements: shuffles when lower-to-gpu can lower them (shuffle=on
// says so; the default, auto, asks lower-to-gpu, which now does), shared memory otherwise
// (shuffle=off).
// CHECK-LABEL: func.func @shuffle
// CHECK:         layout.alloc : !layout.tensor<f32, #layout.cute<(128):(1)>, smem>
// CHECK:         layout.store {{.*}} {bank_conflicts = 0 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    layout.load {{.*}} {bank_conflicts = 0 : i64}
// SHFL-LABEL:  func.func @shuffle
// SHFL-NOT:      layout.alloc
// SHFL:          layout.convert_layout %{{.*}} {lowering = "shuffle"}
func.func @shuffle(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<128xf32, #R>
    %w = layout.convert_layout %v : tensor<128xf32, #R> -> tensor<128xf32, #LS>
    layout.store %w, %b : tensor<128xf32, #LS>, !G2
  }
  func.return
}

// f16: 8-byte rows written in 4-element vectors, read in 2x4 blocks; a padding of 16
// elements keeps both conflict-free (the row-major tile has conflicts on the read).
// Only lanes of a warp move here, so with shuffles it needs no shared memory at all.
// CHECK-LABEL: func.func @padded
// CHECK:         %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.cute<(32,32):(48,1)>, smem>
// CHECK:         layout.store %{{.*}}, %[[S]] {bank_conflicts = 0 : i64, vector = 4 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    layout.load %[[S]] {bank_conflicts = 0 : i64}
// SHFL-LABEL:  func.func @padded
// SHFL-NOT:      layout.alloc
// SHFL:          layout.convert_layout %{{.*}} {lowering = "shuffle"}
// PLAIN-LABEL: func.func @padded
// PLAIN:         %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, smem>
// PLAIN:         layout.store %{{.*}}, %[[S]] {bank_conflicts = 0 : i64, vector = 4 : i64}
// PLAIN:         layout.load %[[S]] {bank_conflicts = [[N:[1-9][0-9]*]] : i64
func.func @padded(%p: !layout.ptr<f16>, %q: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !G
  %b = layout.view %q : !layout.ptr<f16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<32x32xf16, #A>
    %w = layout.convert_layout %v : tensor<32x32xf16, #A> -> tensor<32x32xf16, #B>
    layout.store %w, %b : tensor<32x32xf16, #B>, !G
  }
  func.return
}
