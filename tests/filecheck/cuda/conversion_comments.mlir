// RUN: tilec %s -p lower-convert-layout,lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p 'lower-convert-layout{shuffle=on},lower-to-gpu' -t cuda | filecheck %s --check-prefix=SHFL
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off},lower-to-gpu' -t cuda | filecheck %s --check-prefix=SMEM
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off smem_layout=plain},lower-to-gpu' -t cuda | filecheck %s --check-prefix=PLAIN
// RUN: tilec %s -p lower-convert-layout,lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @padded: equivalent after
// EQ: @shuffle: equivalent after
// EQ: @registers: equivalent after
// Each layout conversion says in the CUDA how it was lowered and what it costs in bank
// conflicts: a shared-memory round trip (the numbers lower-convert-layout computed for
// its layout), warp shuffles or registers (no shared memory: none).

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
#B = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [0, 1]}>
#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#LS = #layout.linear<{register = [], lane = [[2], [1], [4], [8], [16]], warp = [[32], [64]], block = []}>
#V = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#VR = #layout.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]], block = []}>
!G = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!G1 = !layout.tensor<f32, #layout.cute<(512):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>

// f16, within warps (the source repeats over lanes and warps): by default (the cost
// model: 135 instructions per thread for shuffles, 44 for shared memory) and with
// shuffle=off through a swizzled tile, the write's registers renamed, conflict-free both ways; with shuffle=on one
// shuffle per destination register; through the plain row-major tile, conflicts on
// the read.
// CHECK-LABEL: padded_kernel(
// CHECK:         // convert_layout via smem: 0 bank conflicts per write, 0 per read, vectors of 8 (write) and 2 (read)
// CHECK-NOT:     __shfl_sync(
// CHECK:         __syncthreads();
// SHFL-LABEL:  padded_kernel(
// SHFL:          // convert_layout via warp shuffles: 16 shuffles, {{[0-9]+}} selects per thread, 0 bank conflicts (no shared memory)
// SHFL-COUNT-16: __shfl_sync(
// SHFL-NOT:      __shfl_sync(
// SHFL-NOT:      __syncthreads
// SHFL:          }
// SMEM-LABEL:  padded_kernel(
// SMEM:          // convert_layout via smem: 0 bank conflicts per write, 0 per read, vectors of 8 (write) and 2 (read)
// SMEM:          __syncthreads();
// PLAIN-LABEL: padded_kernel(
// PLAIN:         // convert_layout via smem: 0 bank conflicts per write, {{[1-9][0-9]*}} per read, vectors of 4 (write) and 1 (read)
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

// SMEM-LABEL:  shuffle_kernel(
// SMEM:          // convert_layout via smem: 0 bank conflicts per write, 0 per read, vector 1
// CHECK-LABEL: shuffle_kernel(
// CHECK:         // convert_layout via warp shuffles: 1 shuffle, 0 selects per thread, 0 bank conflicts (no shared memory)
// CHECK:         __shfl_sync(
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

// CHECK-LABEL: registers_kernel(
// CHECK:         // convert_layout in registers: a renaming of registers, no data moves between threads, 0 bank conflicts (no shared memory)
// CHECK-NOT:     __shfl_sync
// CHECK-NOT:     __syncthreads
// CHECK:         }
func.func @registers(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
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
