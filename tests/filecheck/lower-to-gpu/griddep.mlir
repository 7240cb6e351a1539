// Programmatic dependent launch (dialects/layout_tma.py): a copy that lets the stream's
// next kernel start (`layout.griddep_launch_dependents`) and waits for the previous one
// (`layout.griddep_wait`) before it reads or writes global memory. Lowered: one
// `cuda.griddep_*` op each (every thread); the CUDA prints the two PTX instructions.
// The reference executor takes both as no-ops: the same copy before and after.
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p lower-to-gpu | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p lower-to-gpu,canonicalize -t cuda | filecheck %s
// EQ: @dependent_copy: equivalent after

// GPU-LABEL: "gpu.func"()
// GPU:       cuda.griddep_launch_dependents
// GPU-NEXT:  cuda.griddep_wait
// GPU:       vector.load
// GPU:       vector.store

// CHECK-LABEL: // kernel dependent_copy_kernels::dependent_copy_kernel
// CHECK:        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
// CHECK-NEXT:   asm volatile("griddepcontrol.wait;" ::: "memory");
// CHECK:        *reinterpret_cast<f32x4*>(dst + {{.*}}) = v;

#blocked = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(128,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @dependent_copy(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c2, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.griddep_launch_dependents
    layout.griddep_wait
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %v = layout.load %ta {vector = 4 : i64} : !T -> tensor<64x64xf32, #blocked>
    layout.store %v, %tb {vector = 4 : i64} : tensor<64x64xf32, #blocked>, !T
  }
  func.return
}
