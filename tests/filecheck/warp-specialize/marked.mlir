// warp-specialize{marked=true}, as the default pipeline runs it (after
// remove-layout-conversions): the Triton-form GEMM of
// examples/python/gemm_dot.py (tile loads, layout.dot, the cast accumulator stored;
// no shared memory, barrier or MMA layout written) whose K loop asks for the
// warp-specialised schedule (`{tilec.warp_specialize}`, the builder's
// `range(..., warp_specialize=True, persistent=2)`; `{tilec.persistent = 2}`):
// accelerate-matmul and tma make it the plain TMA loop, software-pipeline leaves it,
// and the marked pass splits it into a producer warpgroup (setmaxnreg dec) and the
// consumer (setmaxnreg inc) over 2 persistent blocks; the store of the cast
// accumulator loses its layout conversion and the pass stages it as tma-epilogue
// does (stmatrix + TMA store). Without the mark (the last run line: the loop asks for
// nothing) the default pipeline leaves the launch to software-pipeline.
// RUN: tilec %s -p "expand-iterators,copy-strategy,tile,order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,distribute,chunk-rows,pack-rows,choose-warps,coalesce,vectorize,software-pipeline,vectorize-pointers,vectorize-element-loops,remove-layout-conversions,warp-specialize{marked=true}" | filecheck %s
// RUN: tilec %s -p "expand-iterators,copy-strategy,tile,order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,distribute,chunk-rows,pack-rows,choose-warps,coalesce,vectorize,software-pipeline,vectorize-pointers,vectorize-element-loops,remove-layout-conversions,warp-specialize{marked=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: sed -e 's/, tilec.warp_specialize, tilec.persistent = 2 : i64//' %s | tilec - -p default -t cuda | filecheck %s --check-prefix=PLAIN

// EQ: @gemm_dot: equivalent after

// CHECK-LABEL: func.func @gemm_dot
// CHECK:      %nprog = arith.minui
// CHECK:      layout.launch grid(%nprog, %{{.*}}, %{{.*}}) threads(256) {
// CHECK:      %sc = layout.alloc
// CHECK:      layout.warp_specialize warpgroups(1, 1) {
// CHECK-NEXT:   layout.setmaxnreg inc 256
// CHECK:        scf.for %tile = %bx to %tiles step %nprog {
// CHECK:          layout.mbarrier_wait %full, %parity
// CHECK-NEXT:     %{{.*}} = layout.mma %dot_a, %dot_b, %{{.*}} {async}
// CHECK:        %[[DONE:.*]] = layout.mma_wait %{{.*}} {pending = 0 : i64}
// CHECK:        %h = arith.truncf %[[DONE]] : tensor<128x128xf32, #layout.nvidia_mma<version = 3
// CHECK-NOT:    layout.convert_layout
// CHECK:        layout.tma_store_wait {pending = 0 : i64}
// CHECK-NEXT:   layout.store %h, %sc
// CHECK-NEXT:   layout.tma_store %sc, %tc
// CHECK:      }, {
// CHECK-NEXT:   layout.setmaxnreg dec 40
// CHECK:          layout.mbarrier_arrive %full {tx = 32768 : i64}
// CHECK-NEXT:     layout.tma_load %ta, %dot_a, %full
// CHECK-NOT:  layout.barrier

// CUDA-LABEL: gemm_dot_kernel(
// CUDA:       setmaxnreg.inc.sync.aligned.u32 256;
// CUDA:       wgmma.mma_async.sync.aligned.m64n128k16
// CUDA:       stmatrix
// CUDA:       cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CUDA:       setmaxnreg.dec.sync.aligned.u32 40;
// CUDA:       cp.async.bulk.tensor

// PLAIN-LABEL: gemm_dot_kernel(
// PLAIN-NOT:  setmaxnreg

func.func @gemm_dot(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem>
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
  %0 = arith.constant 1 : index
  %1 = arith.constant 2 : index
  %2 = arith.constant 1 : index
  layout.launch grid(%0, %1, %2) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %acc = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
    %3 = arith.constant 0 : index
    %4 = arith.constant 4 : index
    %5 = arith.constant 1 : index
    %6 = scf.for %kt = %3 to %4 step %5 iter_args(%7 = %acc) -> (tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 128, 64>} : !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(128,64):(256,1)>, gmem>
      %a = layout.load %ta : !layout.tensor<bf16, #layout.cute<(128,64):(256,1)>, gmem> -> tensor<128x64xbf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 64, 128>} : !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,128):(256,1)>, gmem>
      %b = layout.load %tb : !layout.tensor<bf16, #layout.cute<(64,128):(256,1)>, gmem> -> tensor<64x128xbf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
      %d = layout.dot %a, %b, %7 : tensor<128x64xbf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<64x128xbf16, #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
      scf.yield %d : tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
    } {tilec.num_stages = 2 : i64, tilec.warp_specialize, tilec.persistent = 2 : i64}
    %h = arith.truncf %6 : tensor<128x128xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>> to tensor<128x128xbf16, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 128, 128>} : !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(128,128):(256,1)>, gmem>
    layout.store %h, %tc : tensor<128x128xbf16, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>, !layout.tensor<bf16, #layout.cute<(128,128):(256,1)>, gmem>
  }
  func.return
}
