// Verifier errors of `layout.mbarrier_array` / `layout.mbarrier_at` (dialects/layout_tma.py).
// RUN: tilec %s --split-input-file --verify-diagnostics

func.func @no_stages() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{an mbarrier array holds 1 to 32 barriers, got 0}}
    %bars = layout.mbarrier_array {count = 1 : i64, stages = 0 : i64}
  }
  func.return
}

// -----

func.func @count_zero() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{an mbarrier's arrival count must be in [1, 2^20), got 0}}
    %bars = layout.mbarrier_array {count = 0 : i64, stages = 2 : i64}
  }
  func.return
}

// -----

func.func @outside_launch() {
  // expected-error @+1 {{layout.mbarrier_array must be inside a layout.launch}}
  %bars = layout.mbarrier_array {count = 1 : i64, stages = 2 : i64}
  func.return
}

// -----

func.func @index_out_of_range() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bars = layout.mbarrier_array {count = 1 : i64, stages = 4 : i64}
    // expected-error @+1 {{mbarrier_at index 4 is out of range for an array of 4 barriers}}
    %b = layout.mbarrier_at %bars[%c4] : !layout.mbarriers<4>
  }
  func.return
}

// -----

func.func @tma_into_a_slice_of_a_row(%src: !layout.ptr<f32, align 16>, %i: index) {
  %c1 = arith.constant 1 : index
  %g = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %buf = layout.alloc : !layout.tensor<f32, #layout.cute<(64,2,32):(64,32,1)>, smem>
    %bar = layout.mbarrier_init {count = 1 : i64}
    %s = layout.slice %buf[_, %i, _] : !layout.tensor<f32, #layout.cute<(64,2,32):(64,32,1)>, smem> -> !layout.tensor<f32, #layout.cute<(64,32):(64,1)>, smem>
    %t = layout.tile %g[%i, %i] {tile = array<i64: 64, 32>} : !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,32):(256,1)>, gmem>
    // expected-error @+1 {{the shared side of a TMA copy must be a layout.alloc, one stage of a staged layout.alloc (a layout.slice fixing its leading stage mode), or an unmasked layout.tile of either}}
    layout.tma_load %t, %s, %bar : !layout.tensor<f32, #layout.cute<(64,32):(256,1)>, gmem>, !layout.tensor<f32, #layout.cute<(64,32):(64,1)>, smem>
  }
  func.return
}
