// A transpose through shared memory with one TMA box each way (issue 23's fastest TMA
// transpose on the H100: 0.981 of cudaMemcpy, benchmarks/NOTES.md): compact 64x64 tiles
// (no swizzle), so the load reads 256-byte pieces of src's rows and the store writes
// 256-byte pieces of dst's rows, each as one box; the threads transpose between the
// two tiles (4 rows of a column per thread, 8 lanes down the rows: the 16-byte writes
// of the out tile fill 128 contiguous bytes per 8 lanes).
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @tile_transpose: equivalent after

// CHECK-LABEL: tile_transpose_kernel(
// CHECK:       __shared__ alignas(128) float smem[4096];
// CHECK-NEXT:  __shared__ alignas(128) float smem_1[4096];
// CHECK:       // TMA load (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), no swizzle, 16384 bytes
// CHECK:       tilec_mbarrier_wait(
// CHECK:       *reinterpret_cast<f32x4*>(smem_1 +
// CHECK:       // TMA store (cp.async.bulk.tensor): box 64x64 (dims [0, 1] of the view), no swizzle, 16384 bytes
// CHECK-NEXT:  tilec_fence_proxy_async();
// CHECK:       cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK:       tilec_bulk_wait_group_read<0>();
#R = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
!Gs = !layout.tensor<f32, #layout.cute<(128,192):(192,1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<(128,192):(1,128)>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<(64,64):(192,1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<(64,64):(1,128)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
!S2 = !layout.tensor<f32, #layout.cute<(64,64):(1,64)>, smem>
func.func @tile_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
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

