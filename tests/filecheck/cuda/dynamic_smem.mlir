// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: not tilec %S/Inputs/smem_too_large.mlir -p default -t cuda 2>&1 | filecheck %s --check-prefix=BIG
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @in_out: equivalent after
// The Gluon tutorial's 128x128 in/out layouts: the conversion's shared buffer (64 KiB)
// is more than CUDA lets a kernel declare statically (48 KiB), so the kernel takes it
// as dynamic shared memory (the launcher opts it in to that much).

// CHECK-LABEL: // kernel in_out_kernels::in_out_kernel
// CHECK:         // 65536 bytes of shared memory, more than the 49152 a kernel may declare statically: dynamic
// CHECK-NEXT:    extern __shared__ __align__(16) unsigned char tilec_smem[];
// CHECK:         float* const smem = reinterpret_cast<float*>(tilec_smem + 0);  // 16384 elements
// CHECK-NOT:     __shared__ alignas

// BIG: smem_too_large.mlir:17:5: error: 'layout.alloc': {{.*}}shared allocation of 262144 bytes exceeds the 227 KiB of a block

#in = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#out = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!Gi = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!Go = !layout.tensor<f32, #layout.cute<(256,256):(1,256)>, gmem>
!Ti = !layout.tensor<f32, #layout.cute<(128,128):(256,1)>, gmem>
!To = !layout.tensor<f32, #layout.cute<(128,128):(1,256)>, gmem>
func.func @in_out(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gi
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Go
  %g = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 128, 128>} : !Gi -> !Ti
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 128, 128>} : !Go -> !To
    %v = layout.load %ta : !Ti -> tensor<128x128xf32, #in>
    %w = layout.convert_layout %v : tensor<128x128xf32, #in> -> tensor<128x128xf32, #out>
    layout.store %w, %tb : tensor<128x128xf32, #out>, !To
  }
  func.return
}
