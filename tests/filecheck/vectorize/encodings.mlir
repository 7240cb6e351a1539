// RUN: tilec %s -p vectorize | filecheck %s
// RUN: tilec %s -p vectorize --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @mma_accumulator_gmem: equivalent after
// EQ: @mma_accumulator_smem: equivalent after
// EQ: @linear_runs_of_4: equivalent after
// EQ: @linear_run_of_2: equivalent after
// EQ: @dot_operand_pairs: equivalent after
// EQ: @mma_unaligned: equivalent after
// The `vector` of loads and stores of every distributed encoding, read from its linear
// layout (the registers' run along one dim, `register_run`), not from the kind of the
// encoding: MMA accumulators, dot operands and linear layouts get vector accesses as
// blocked and slice layouts do. The reference executor checks every vector the pass
// claims (contiguous, aligned) under `-p vectorize --check-equivalence`;
// tests/unit/test_vectorize_encodings.py runs each against NumPy and compiles the CUDA
// with NVRTC.

// An mma.sync accumulator holds pairs of columns (c0, c1) in consecutive registers:
// one 8-byte access per pair, both ways.
// CHECK-LABEL: func.func @mma_accumulator_gmem
// CHECK:         layout.load %{{.*}} {vector = 2 : i64} : {{.*}} -> tensor<64x64xf32, #layout.nvidia_mma
// CHECK:         layout.store %{{.*}} {vector = 2 : i64} : tensor<64x64xf32, #layout.nvidia_mma
// CUDA-LABEL:    mma_accumulator_gmem_kernel(
// CUDA-COUNT-16: = *reinterpret_cast<const f32x2*>(src + {{.*}});
// CUDA-COUNT-16: *reinterpret_cast<f32x2*>(dst + {{.*}}) =
// CUDA-NOT:      src[
// CUDA:          }
#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @mma_accumulator_gmem(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<64x64xf32, #mma>
    layout.store %x, %b : tensor<64x64xf32, #mma>, !G
  }
  func.return
}

// The accumulator's epilogue through shared memory: f32 has no stmatrix, so the store
// to the (padded) shared tile moves the register pairs as 8-byte st.shared.
// CHECK-LABEL: func.func @mma_accumulator_smem
// CHECK:         layout.store %{{.*}}, %{{.*}} {vector = 2 : i64} : tensor<64x64xf32, #layout.nvidia_mma
// CHECK-SAME:      smem>
// CUDA-LABEL:    mma_accumulator_smem_kernel(
// CUDA-COUNT-16: *reinterpret_cast<f32x2*>(smem + {{.*}}) =
// CUDA:          }
!S = !layout.tensor<f32, #layout.cute<(64,64):(68,1)>, smem>
#out = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @mma_accumulator_smem(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %x = layout.load %a : !G -> tensor<64x64xf32, #mma>
    layout.store %x, %s : tensor<64x64xf32, #mma>, !S
    layout.barrier
    %y = layout.load %s : !S -> tensor<64x64xf32, #out>
    layout.store %y, %b : tensor<64x64xf32, #out>, !G
  }
  func.return
}

// A linear layout whose first two register bases are columns 1 and 2: runs of 4
// consecutive f32, one 16-byte access each.
// CHECK-LABEL: func.func @linear_runs_of_4
// CHECK:         layout.load %{{.*}} {vector = 4 : i64} : {{.*}} -> tensor<32x32xf32, #layout.linear
// CHECK:         layout.store %{{.*}} {vector = 4 : i64} : tensor<32x32xf32, #layout.linear
// CUDA-LABEL:    linear_runs_of_4_kernel(
// CUDA-COUNT-2:  = *reinterpret_cast<const f32x4*>(src + {{.*}});
// CUDA-COUNT-2:  *reinterpret_cast<f32x4*>(dst + {{.*}}) =
// CUDA:          }
#L4 = #layout.linear<{register = [[0, 1], [0, 2], [16, 0]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []}>
!H = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
func.func @linear_runs_of_4(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !H
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !H -> tensor<32x32xf32, #L4>
    layout.store %x, %b : tensor<32x32xf32, #L4>, !H
  }
  func.return
}

// Register 1 is element 4, not element 2: the run is 2 elements (4 bytes of f16).
// CHECK-LABEL: func.func @linear_run_of_2
// CHECK:         layout.load %{{.*}} {vector = 2 : i64} : {{.*}} -> tensor<128xf16, #layout.linear
// CUDA-LABEL:    linear_run_of_2_kernel(
// CUDA-COUNT-2:  = tilec_bitcast<f16x2>(*reinterpret_cast<const i32x1*>(src + {{.*}}));
// CUDA:          }
#L2 = #layout.linear<{register = [[1], [4]], lane = [[2], [8], [16], [32], [64]], warp = [], block = []}>
!R = !layout.tensor<f16, #layout.cute<(128):(1)>, gmem>
func.func @linear_run_of_2(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !R
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !R -> tensor<128xf16, #L2>
    layout.store %x, %b : tensor<128xf16, #L2>, !R
  }
  func.return
}

// An mma.sync A operand (kWidth = 2) holds pairs along k: 4-byte accesses of bf16.
// CHECK-LABEL: func.func @dot_operand_pairs
// CHECK:         layout.load %{{.*}} {vector = 2 : i64} : {{.*}} -> tensor<16x16xbf16, #layout.dot_op
// CUDA-LABEL:    dot_operand_pairs_kernel(
// CUDA-COUNT-4:  = tilec_bitcast<bf16x2>(*reinterpret_cast<const i32x1*>(src + {{.*}}));
// CUDA:          }
#dmma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#da = #layout.dot_op<opIdx = 0, parent = #dmma, kWidth = 2>
!D = !layout.tensor<bf16, #layout.cute<(16,16):(16,1)>, gmem>
func.func @dot_operand_pairs(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !D
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !D
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !D -> tensor<16x16xbf16, #da>
    layout.store %x, %b : tensor<16x16xbf16, #da>, !D
  }
  func.return
}

// A buffer aligned to its element only: the pairs stay scalar, and the note says why.
// CHECK-LABEL: func.func @mma_unaligned
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 1 of a register run of 2 along dim 1: 2 is not legal: the buffer is aligned to 4 bytes, less than 8"} :
// CHECK-NOT:     vector =
// CHECK:         func.return
// CUDA-LABEL:    mma_unaligned_kernel(
// CUDA-NOT:      reinterpret_cast
// CUDA:          }
!U = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @mma_unaligned(%src: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !U
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !U -> tensor<64x64xf32, #mma>
    %y = arith.addf %x, %x : tensor<64x64xf32, #mma>
    layout.store %y, %a : tensor<64x64xf32, #mma>, !U
  }
  func.return
}
