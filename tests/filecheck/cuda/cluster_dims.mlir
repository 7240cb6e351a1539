// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// The thread-block clusters a launch asks (`tilec.cluster_dims = C`,
// support/launch_bounds.py): the outlined kernel carries it and the CUDA target prints
// `__cluster_dims__(C, 1, 1)` before the launch bounds; a launch without it prints none.
// The attribute does not change a program that does not reach its peers (--check-equivalence).

// CHECK-LABEL: // kernel pairs_kernels::pairs_kernel
// CHECK-NEXT:  extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
// CHECK-LABEL: // kernel single_kernels::single_kernel
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(128)
// GPU:         sym_name = "pairs_kernel", gpu.known_block_size = array<i32: 128, 1, 1>, tilec.cluster_dims = 2 : i64}
// GPU:         sym_name = "single_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} :
// EQ:          // @pairs: equivalent after 'default'
// EQ:          // @single: equivalent after 'default'

#row = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(64,1)>, gmem>
func.func @pairs(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %g = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads(128) attributes {tilec.cluster_dims = 2 : i64} {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<32x32xf32, #row>
    layout.store %v, %tb : tensor<32x32xf32, #row>, !T
  }
  func.return
}

func.func @single(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
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
