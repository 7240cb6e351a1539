// Programmatic dependent launch's ops (dialects/layout_tma.py, dialects/cuda_tma.py):
// layout.griddep_wait and layout.griddep_launch_dependents round trip; outside a
// launch they are refused; the GPU-level cuda.griddep_* round trip.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../lower-to-gpu/griddep.mlir | tilec | filecheck %s
// RUN: tilec %S/../lower-to-gpu/griddep.mlir -p lower-to-gpu | tilec | filecheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @dependent_copy
// CHECK:      layout.launch
// CHECK:      layout.griddep_launch_dependents
// CHECK-NEXT: layout.griddep_wait

// GPU-LABEL: "gpu.func"()
// GPU:       cuda.griddep_launch_dependents
// GPU-NEXT:  cuda.griddep_wait

func.func @wait_outside_a_launch() {
  // expected-error @+1 {{layout.griddep_wait must be inside a layout.launch}}
  layout.griddep_wait
  func.return
}

// -----

func.func @trigger_outside_a_launch() {
  // expected-error @+1 {{layout.griddep_launch_dependents must be inside a layout.launch}}
  layout.griddep_launch_dependents
  func.return
}
