// The `tma` pass's l2_promotion option: the TMA loads carry it (128 bytes, the default,
// prints nothing), lower-to-gpu puts it on the source's host `cuda.tensor_map` (the
// store's map keeps the default), and a value the hardware has not is a located error.
// RUN: tilec %s -p "tma{l2_promotion=256}" | filecheck %s
// RUN: tilec %s -p "tma{l2_promotion=256}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p tma | filecheck %s --check-prefix=DEF
// RUN: tilec %s -p "expand-iterators,tile,order-grid,tma{l2_promotion=0},distribute,vectorize,vectorize-pointers,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" | filecheck %s --check-prefix=MAP
// RUN: not tilec %s -p "tma{l2_promotion=32}" 2>&1 | filecheck %s --check-prefix=BAD

// EQ: @transpose: equivalent after
// BAD: error: tma: l2_promotion must be 0, 64, 128 or 256 (bytes), got 32

// CHECK-LABEL: func.func @transpose
// CHECK:       layout.tma_load %ta, %s, %{{.*}} {l2_promotion = 256 : i64}
// CHECK:       layout.tma_store %s2, %tb

// DEF-LABEL:   func.func @transpose
// DEF:         layout.tma_load %ta, %s, %{{[0-9a-z_]+}} :

// MAP-LABEL:   func.func @transpose
// MAP:         %src_map = cuda.tensor_map %src({{.*}}) {box = array<i64: 64, 64>, swizzle = 0 : i64, l2_promotion = 0 : i64}
// MAP:         %dst_map = cuda.tensor_map %dst({{.*}}) {box = array<i64: 32, 64>, swizzle = 128 : i64} :

#R = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [0, 1]}>
!Gs = !layout.tensor<f32, #layout.cute<(128,192):(192,1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<(128,192):(1,128)>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<(64,64):(192,1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<(64,64):(1,128)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
!S2 = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = true, shape = [64, 64]>, smem>
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %g0 = arith.constant 2 : index
  %g1 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g0, %g1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !Gs -> !Ts
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !Gd -> !Td
    %s = layout.alloc : !S
    %s2 = layout.alloc : !S2
    layout.copy %ta, %s : !Ts, !S
    %v = layout.load %s : !S -> tensor<64x64xf32, #R>
    layout.store %v, %s2 : tensor<64x64xf32, #R>, !S2
    layout.barrier
    layout.copy %s2, %tb : !S2, !Td
  }
  func.return
}
