// The cost model's options are checked: each cost >= 0, trips >= 1 (trips=1 is accepted).
// RUN: not tilec %s -p 'remove-layout-conversions{trips=0}' 2>&1 | filecheck %s --check-prefix=TRIPS
// RUN: not tilec %s -p 'remove-layout-conversions{smem_cost=-1.0}' 2>&1 | filecheck %s --check-prefix=SMEM
// RUN: not tilec %s -p 'remove-layout-conversions{shuffle_cost=-0.5}' 2>&1 | filecheck %s --check-prefix=SHUFFLE
// RUN: not tilec %s -p 'remove-layout-conversions{gmem_cost=-2.0}' 2>&1 | filecheck %s --check-prefix=GMEM
// RUN: not tilec %s -p 'remove-layout-conversions{alu_cost=-1.0}' 2>&1 | filecheck %s --check-prefix=ALU
// RUN: tilec %s -p 'remove-layout-conversions{trips=1 smem_cost=0.0}' | filecheck %s
// TRIPS: error: remove-layout-conversions: trips=0 must be >= 1
// SMEM: error: remove-layout-conversions: smem_cost=-1.0 must be >= 0
// SHUFFLE: error: remove-layout-conversions: shuffle_cost=-0.5 must be >= 0
// GMEM: error: remove-layout-conversions: gmem_cost=-2.0 must be >= 0
// ALU: error: remove-layout-conversions: alu_cost=-1.0 must be >= 0

// CHECK-LABEL: func.func @identity
// CHECK-NOT: layout.convert_layout
#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @identity(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<512:1>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<512:1>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !layout.tensor<f32, #layout.cute<512:1>, gmem> -> tensor<512xf32, #b>
    %w = layout.convert_layout %v : tensor<512xf32, #b> -> tensor<512xf32, #b>
    layout.store %w, %b : tensor<512xf32, #b>, !layout.tensor<f32, #layout.cute<512:1>, gmem>
  }
  func.return
}
