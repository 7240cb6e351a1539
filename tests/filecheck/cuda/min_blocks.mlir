// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// The blocks per multiprocessor a launch asks (`tilec.min_blocks = N`,
// support/launch_bounds.py): the outlined kernel carries it and the CUDA target prints
// `__launch_bounds__(threads, N)`; a launch without it keeps CUDA's one-value bounds.
// The attribute does not change the program's meaning (--check-equivalence).

// CHECK-LABEL: // kernel two_blocks_kernels::two_blocks_kernel
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(128, 2)
// CHECK-LABEL: // kernel default_blocks_kernels::default_blocks_kernel
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(128)
// GPU:         sym_name = "two_blocks_kernel", gpu.known_block_size = array<i32: 128, 1, 1>, tilec.min_blocks = 2 : i64}
// GPU:         sym_name = "default_blocks_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} :
// EQ:          // @two_blocks: equivalent after 'default'
// EQ:          // @default_blocks: equivalent after 'default'

#row = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(64,1)>, gmem>
func.func @two_blocks(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %g = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads(128) attributes {tilec.min_blocks = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<32x32xf32, #row>
    layout.store %v, %tb : tensor<32x32xf32, #row>, !T
  }
  func.return
}

func.func @default_blocks(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %g = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<32x32xf32, #row>
    layout.store %v, %tb : tensor<32x32xf32, #row>, !T
  }
  func.return
}
