// The serial split-K hand-over (CUTLASS's serial reduction) written with
// layout.atomic_add and layout.fence: each of 4 blocks writes its partial, meets its
// threads at a barrier, its thread 0 fences (the release), counts its arrival on %ctr
// and fences again (the acquire); the block that arrives last sums the 4 partials in
// block order and puts the counter back to 0. Equivalent after `default` (the counter
// starts at 0, as random_inputs gives a buffer that atomics count in); the CUDA:
// fence.acq_rel.gpu around a relaxed atom.add (lowered: cuda.atomic_add, cuda.fence);
// `--run cpu` calls %ctr a counter and finds it 0 again.
// Without the first fence the executor reports the last block's reads
// (tests/unit/test_atomics.py).
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s --run cpu | filecheck %s --check-prefix=CPU
// EQ: @handoff: equivalent after 'default'
// CPU: // @handoff on the CPU reference executor (seed 0): ok
// CPU: %out: 32 x float32 (output) {{.*}}; every element written
// CPU-NEXT: %ctr: 4 x int32 (counter) [0, 0, 0, 0]

// GPU-LABEL: "gpu.func"()
// GPU:         cuda.fence {scope = "gpu", order = "acq_rel"}
// GPU-NEXT:    %{{.*}} = cuda.atomic_add %ctr[%{{.*}}], %one {scope = "gpu", order = "relaxed"} : memref<4xi32>
// GPU-NEXT:    cuda.fence {scope = "gpu", order = "acq_rel"}
// GPU:         %{{.*}} = cuda.atomic_add %ctr[%{{.*}}], %minus4 {scope = "gpu", order = "relaxed"} : memref<4xi32>

// CHECK-LABEL: handoff_kernel(
// CHECK-SAME:    int* __restrict__ ctr
// CHECK:         __syncthreads();
// CHECK:         asm volatile("fence.acq_rel.gpu;" ::: "memory");
// CHECK-NEXT:    int old;
// CHECK-NEXT:    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(ctr + {{.*}}), "r"(1) : "memory");
// CHECK-NEXT:    asm volatile("fence.acq_rel.gpu;" ::: "memory");
// CHECK:         asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old_1) : "l"(ctr + {{.*}}), "r"((-4)) : "memory");
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
    %two = arith.constant 2.0 : f32
    %pi = arith.mulf %xi, %two : f32
    layout.write %pi, %P[%i] : f32, !X
    layout.barrier
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      %one = arith.constant 1 : i32
      layout.fence {scope = "gpu", order = "acq_rel"}
      %old = layout.atomic_add %one, %Ctr[%c0] {scope = "gpu", order = "relaxed"} : i32, !C -> i32
      layout.fence {scope = "gpu", order = "acq_rel"}
      layout.write %old, %flag[%c0] : i32, !F
    }
    layout.barrier
    %arrived = layout.read %flag[%c0] : !F -> i32
    %three = arith.constant 3 : i32
    %last = arith.cmpi eq, %arrived, %three : i32
    scf.if %last {
      %c64 = arith.constant 64 : index
      %c96 = arith.constant 96 : index
      %i1 = arith.addi %tid, %c32 : index
      %i2 = arith.addi %tid, %c64 : index
      %i3 = arith.addi %tid, %c96 : index
      %p0 = layout.read %P[%tid] : !X -> f32
      %p1 = layout.read %P[%i1] : !X -> f32
      %p2 = layout.read %P[%i2] : !X -> f32
      %p3 = layout.read %P[%i3] : !X -> f32
      %s1 = arith.addf %p0, %p1 : f32
      %s2 = arith.addf %s1, %p2 : f32
      %s3 = arith.addf %s2, %p3 : f32
      layout.write %s3, %Out[%tid] : f32, !O
      scf.if %leader {
        %minus4 = arith.constant -4 : i32
        %back = layout.atomic_add %minus4, %Ctr[%c0] {scope = "gpu", order = "relaxed"} : i32, !C -> i32
      }
    }
  }
  func.return
}
