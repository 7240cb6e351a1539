// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-convert-layout,lower-to-gpu -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @lane_swap: equivalent after
// EQ: @sender_select: equivalent after
// Conversions that stay within each warp become warp shuffles (cuda.shfl_idx): the
// source lane and register of each destination register come from the linear layouts.

#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#LS = #layout.linear<{register = [], lane = [[2], [1], [4], [8], [16]], warp = [[32], [64]], block = []}>
#P = #layout.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = []}>
#Q = #layout.linear<{register = [[1]], lane = [[5], [2], [8], [16], [32]], warp = [], block = []}>
!G = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(64):(1)>, gmem>

// Lanes 2k and 2k+1 swap their element: one shuffle from lane tid ^ 1 (bits 0 and 1
// of the lane exchanged), no select.
// CHECK-LABEL: "gpu.module"() <{sym_name = "lane_swap_kernels"}>
// CHECK:         %[[X:.*]] = memref.load %src
// CHECK:         cuda.comment "convert_layout via warp shuffles: 1 shuffle, 0 selects per thread, 0 bank conflicts (no shared memory)"
// CHECK:         %[[L:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:    %[[Y:.*]] = cuda.shfl_idx %[[X]], %[[L]], 32 : f32
// CHECK-NOT:     cuda.shfl_idx
// CHECK:         memref.store %[[Y]], %dst
// CUDA-LABEL: lane_swap_kernel(
// CUDA:         // convert_layout via warp shuffles: 1 shuffle, 0 selects per thread, 0 bank conflicts (no shared memory)
// CUDA:         __shfl_sync(0xffffffffu, x, {{.*}}, 32);
func.func @lane_swap(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<128xf32, #R>
    %w = layout.convert_layout %v : tensor<128xf32, #R> -> tensor<128xf32, #LS>
    layout.store %w, %b : tensor<128xf32, #LS>, !G
  }
  func.return
}

// Lanes 0 and 1 swap and a reader with lane bit 0 set wants the other register: each
// lane sends the register its reader wants (a select on its own lane bit), one shuffle
// per register.
// CHECK-LABEL: "gpu.module"() <{sym_name = "sender_select_kernels"}>
// CHECK:         cuda.comment "convert_layout via warp shuffles: 2 shuffles, 2 selects per thread
// CHECK:         %[[S0:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// CHECK:         cuda.shfl_idx %[[S0]], %{{.*}}, 32 : f16
// CHECK:         %[[S1:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16
// CHECK:         cuda.shfl_idx %[[S1]], %{{.*}}, 32 : f16
// CHECK-NOT:     cuda.shfl_idx
// CHECK:         "gpu.return"
// CUDA-LABEL: sender_select_kernel(
// CUDA-COUNT-2: __shfl_sync(0xffffffffu,
func.func @sender_select(%src: !layout.ptr<f16>, %dst: !layout.ptr<f16>) {
  %a = layout.view %src : !layout.ptr<f16> -> !H
  %b = layout.view %dst : !layout.ptr<f16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H -> tensor<64xf16, #P>
    %w = layout.convert_layout %v : tensor<64xf16, #P> -> tensor<64xf16, #Q>
    layout.store %w, %b : tensor<64xf16, #Q>, !H
  }
  func.return
}
