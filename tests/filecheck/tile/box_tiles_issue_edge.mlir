// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=17}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=17}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=51}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=51}' | filecheck %s --check-prefix=BY2
// RUN: tilec %s -p 'expand-iterators,copy-strategy,tile{tiles_issue=19},order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,coarsen-grid,distribute,chunk-rows,pack-rows,choose-warps,stash-rereads,sink-reductions,coalesce,vectorize,software-pipeline,vectorize-pointers,vectorize-element-loops,remove-layout-conversions,warp-specialize{marked=true},prefetch-operands,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers' -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=91}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=91}' | filecheck %s --check-prefix=KEPT
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=219}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=219}' | filecheck %s --check-prefix=HELD
// `tile{tiles_issue=B}` bits 16, 32 and 64 (`_box_tile.TILES_ISSUE`) on an int8 box<tiles>
// transpose. Bit 16: phase 2's element-wise path (a destination chunk the row's ends cut)
// is a loop the CUDA keeps rolled (`tilec.unroll = 1`), not 16 element bodies; bit 32
// (over bit 2): the chunk loop unrolled by 2, not whole (its 3 trips here). Results never
// change. Bit 64: phase 2's first run and chunk lane of a thread kept (`cuda.opaque`), not
// recomputed from the thread id in each chunk. Bit 128: a destination run's box addresses
// kept once a run (in the loop over runs, before the chunk loop), a chunk's those plus the
// chunk's step, with bit 2 its unrolled trip times a constant.
// EQ: @transpose: equivalent after

// CHECK-LABEL: func.func @transpose
// CHECK:         layout.async_wait {pending = 0 : i64, commit}
// CHECK-NEXT:    layout.barrier
// CHECK:         vector.insert
// CHECK:         layout.write
// CHECK:         } {tilec.unroll = 1 : i64}
// CHECK:         func.return
// BY2-LABEL: func.func @transpose
// BY2:           } {tilec.unroll = 1 : i64}
// BY2:           } {tilec.unroll = 2 : i64}
// BY2:           func.return
// KEPT-LABEL: func.func @transpose
// KEPT:          layout.barrier
// KEPT:          cuda.opaque
// KEPT:          cuda.opaque
// KEPT:          } {tilec.unroll = 1 : i64}
// KEPT:          func.return
// HELD-LABEL: func.func @transpose
// HELD:          layout.barrier
// HELD:          scf.for %[[Q:[0-9]+]] = %{{[0-9]+}} to
// HELD:          %[[D:[0-9]+]] = arith.subi %[[Q]], %{{[0-9]+}} : index
// HELD-NEXT:     %[[A:[0-9]+]] = arith.addi %{{[0-9]+}}, %[[D]] : index
// HELD-NEXT:     %[[H:[0-9]+]] = cuda.opaque %[[A]] : index
// HELD:          scf.for
// HELD:          %[[C:[0-9]+]] = arith.constant 4112 : index
// HELD-NEXT:     %[[O:[0-9]+]] = arith.muli %{{[0-9]+}}, %[[C]] : index
// HELD:          %[[X:[0-9]+]] = arith.addi %[[H]], %[[O]] : index
// HELD:          layout.read %{{.*}}[%[[X]]]
// HELD:          } {tilec.unroll = 3 : i64}
// HELD:          func.return
// The CUDA with bits 1, 2 and 16: the chunk loop unrolled whole (3 trips), the element
// loop inside it rolled.
// CUDA-LABEL: transpose_kernel(
// CUDA:          #pragma unroll 3
// CUDA-NEXT:     for (int i_{{[0-9]+}} = 0; i_{{[0-9]+}} < 3; ++i_{{[0-9]+}}) {
// CUDA:          #pragma unroll 1
// CUDA-NEXT:     for (int i_{{[0-9]+}} = 0; i_{{[0-9]+}} < 16; ++i_{{[0-9]+}}) {
func.func @transpose(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(520,300):(1,520)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(520,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(520,300):(1,520)>, gmem>, !layout.tensor<i8, #layout.cute<(520,300):(300,1)>, gmem>
  func.return
}
