// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=11}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=11}' | tilec - | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=11}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=5}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=0}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'expand-iterators,copy-strategy,tile{tiles_issue=3},order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,coarsen-grid,distribute,chunk-rows,pack-rows,choose-warps,stash-rereads,sink-reductions,coalesce,vectorize,software-pipeline,vectorize-pointers,vectorize-element-loops,remove-layout-conversions,warp-specialize{marked=true},prefetch-operands,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers' -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=RULE
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_issue=1024}' 2>&1 | filecheck %s --check-prefix=BAD
// `tile{tiles_issue=B}` (`_box_tile.TILES_ISSUE`, 0 by default) on an int8 box<tiles> transpose
// (runs from every residue). Bit 1: the phase-1 copies commit no group each (`uncommitted`);
// phase 1's wait commits them (`commit`: cp.async.wait_all). Bit 8: a quarter warp a run, each
// thread one copy for each line a run may span (the line loop's lines, `nl`). Bit 2: phase 2's
// chunk loop of a destination run with static trips (the chunks a row over the 8 lanes a row:
// 3 here), unrolled (`tilec.unroll`). Results never change; the IR prints and parses back.

// The default pipeline's CUDA with bits 1 and 2: the copies' loop without a commit, one
// commit right before the wait; the chunk loop `#pragma unroll 3`.
// EQ: @transpose: equivalent after
// BAD: tile: tiles_issue=1024 must be in [0, 1023]

// CHECK-LABEL: func.func @transpose
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           scf.for
// CHECK:             layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1, uncommitted}
// CHECK:             layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1, uncommitted}
// CHECK:           layout.async_wait {pending = 0 : i64, commit}
// CHECK-NEXT:      layout.barrier
// CHECK:           } {tilec.unroll = 3 : i64}
// CUDA-LABEL: transpose_kernel(
// CUDA:          tilec_cp_async16<true, 0>(
// CUDA-NEXT:     }
// CUDA:          tilec_cp_async_commit();
// CUDA-NEXT:     tilec_cp_async_wait<0>();
// CUDA-NEXT:     __syncthreads();
// CUDA:          #pragma unroll 3
// CUDA-NEXT:     for (int i_{{[0-9]+}} = 0; i_{{[0-9]+}} < 3; ++i_{{[0-9]+}}) {
// The rule (`_box_tile.TILES_ISSUE_BYTES`): 1-byte sources bits 1 and 8 (a copy a line).
// RULE-LABEL: func.func @transpose
// RULE:          layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1, uncommitted}
// RULE:          layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1, uncommitted}
// RULE:          layout.async_wait {pending = 0 : i64, commit}
// RULE-NOT:      tilec.unroll = 3
// RULE:          func.return
// OFF-LABEL: func.func @transpose
// OFF-NOT:       uncommitted
// OFF:           layout.async_wait {pending = 0 : i64}
// OFF-NOT:       tilec.unroll = 3
// OFF:           func.return
func.func @transpose(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(520,300):(1,520)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(520,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(520,300):(1,520)>, gmem>, !layout.tensor<i8, #layout.cute<(520,300):(300,1)>, gmem>
  func.return
}
