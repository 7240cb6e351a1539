// The serial split-K hand-over of atomics.mlir without the release fence before the
// arrival: the last block's reads of the other blocks' partials are a data race, which
// the reference executor reports at the `layout.read` written, before the passes and
// after them (the GPU-level `memref.load` carries the location of the op it was lowered
// from; the fuzz tests' defects, tests/fuzz/generate_atomic.py, require the same place).
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s --check-prefix=LAYOUT
// RUN: not tilec %s -p default --run cpu 2>&1 | filecheck %s --check-prefix=GPU
// LAYOUT: atomics_race_location.mlir:[[# @LINE + 35]]:7: error: 'layout.read': data race on global memory: thread {{[0-9]+}} of block 3 reads %part[{{[0-9]+}}], which thread {{[0-9]+}} of block 0 wrote
// GPU: atomics_race_location.mlir:[[# @LINE + 34]]:7: error: 'memref.load': data race on global memory: thread {{[0-9]+}} of block 3 reads %part[{{[0-9]+}}], which thread {{[0-9]+}} of block 0 wrote
!X = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
!O = !layout.tensor<f32, #layout.cute<(32):(1)>, gmem>
!C = !layout.tensor<i32, #layout.cute<(4):(1)>, gmem>
!F = !layout.tensor<i32, #layout.cute<(1):(1)>, smem>
func.func @handoff(%x: !layout.ptr<f32>, %part: !layout.ptr<f32>, %out: !layout.ptr<f32>, %ctr: !layout.ptr<i32>) {
  %X = layout.view %x : !layout.ptr<f32> -> !X
  %P = layout.view %part : !layout.ptr<f32> -> !X
  %Out = layout.view %out : !layout.ptr<f32> -> !O
  %Ctr = layout.view %ctr : !layout.ptr<i32> -> !C
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %flag = layout.alloc : !F
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %row = arith.muli %bx, %c32 : index
    %i = arith.addi %row, %tid : index
    %xi = layout.read %X[%i] : !X -> f32
    layout.write %xi, %P[%i] : f32, !X
    layout.barrier
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      %one = arith.constant 1 : i32
      %old = layout.atomic_add %one, %Ctr[%c0] {scope = "gpu", order = "relaxed"} : i32, !C -> i32
      layout.fence {scope = "gpu", order = "acq_rel"}
      layout.write %old, %flag[%c0] : i32, !F
    }
    layout.barrier
    %arrived = layout.read %flag[%c0] : !F -> i32
    %three = arith.constant 3 : i32
    %last = arith.cmpi eq, %arrived, %three : i32
    scf.if %last {
      %p0 = layout.read %P[%tid] : !X -> f32
      %i1 = arith.addi %tid, %c32 : index
      %p1 = layout.read %P[%i1] : !X -> f32
      %s1 = arith.addf %p0, %p1 : f32
      layout.write %s1, %Out[%tid] : f32, !O
    }
  }
  func.return
}
