// RUN: tilec %s -p tile | filecheck %s
// RUN: tilec %s -p tile --check-equivalence | filecheck %s --check-prefix=EQ
// A misaligned transpose whose source's short contiguous mode is continued by further
// source modes (their strides the run so far): the tile takes those modes too, short
// ones whole, until the source's runs reach `tile.SOURCE_RUN_BYTES` (128), before the
// destination's next modes take the rest of the budget, which then counts the elements
// the tile uses (not its short modes' padding). Results never change.

// EQ: @continued_source_runs: equivalent after
// EQ: @runs_not_continued: equivalent after

// The strided set's 11 in small (int32 -> f64): the source contiguous over the modes of
// 5 (stride 1), 5 (stride 5) and 4 (stride 25), all three whole: 8 x 1 x 4 x 8 x 1 x 32
// (3100 elements used), source runs of 5 x 5 x 4 elements (400 bytes), not 1 x 1 x 2 x 8
// x 8 x 32 (runs of 20 bytes).
// CHECK-LABEL: func.func @continued_source_runs
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 8, 1, 4, 8, 1, 32>}
func.func @continued_source_runs(%p: !layout.ptr<i32, align 4>, %q: !layout.ptr<f64, align 16>) {
  %a = layout.view %p : !layout.ptr<i32, align 4> -> !layout.tensor<i32, #layout.cute<(5,2,4,5,5,31):(5,3100,25,1,6200,100)>, gmem>
  %b = layout.view %q : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(5,2,4,5,5,31):(6200,3100,775,155,31,1)>, gmem>
  layout.copy %a, %b {convert = "int32->float64"} : !layout.tensor<i32, #layout.cute<(5,2,4,5,5,31):(5,3100,25,1,6200,100)>, gmem>, !layout.tensor<f64, #layout.cute<(5,2,4,5,5,31):(6200,3100,775,155,31,1)>, gmem>
  func.return
}

// The same extents, the source's mode of 5 at stride 1 continued by the destination's
// contiguous mode (stride 5): not lengthened; the destination's modes take the budget.
// CHECK-LABEL: func.func @runs_not_continued
// CHECK:         layout.tile %a[{{.*}}] {tile = array<i64: 1, 1, 2, 8, 8, 32>}
func.func @runs_not_continued(%p: !layout.ptr<i32, align 4>, %q: !layout.ptr<f64, align 16>) {
  %a = layout.view %p : !layout.ptr<i32, align 4> -> !layout.tensor<i32, #layout.cute<(5,2,4,5,5,31):(155,3100,775,1,6200,5)>, gmem>
  %b = layout.view %q : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(5,2,4,5,5,31):(6200,3100,775,155,31,1)>, gmem>
  layout.copy %a, %b {convert = "int32->float64"} : !layout.tensor<i32, #layout.cute<(5,2,4,5,5,31):(155,3100,775,1,6200,5)>, gmem>, !layout.tensor<f64, #layout.cute<(5,2,4,5,5,31):(6200,3100,775,155,31,1)>, gmem>
  func.return
}
