// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 threads=128}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=MERGED
// RUN: tilec %s -p 'copy-strategy{tiles_merge=0}' | filecheck %s --check-prefix=OFF
// A copy that widens its elements (at most twice) into a destination compact over the
// modes after the source's contiguous mode W takes the merged box<tiles> by rule up to
// 4-byte sources (`_copy_cost.TILES_MERGE_CONVERT_BYTES`, `tiles_merge_bytes`; pc49: the
// strided set's 41, f32 -> int64, W 14107, then 56 x 17 compact, x1.027 over the tiled
// kernel, whose tile pads D's 17 to 32), whatever `tiles_merge` above 0; `tiles_merge=0`
// none. The same views without conversion (4-byte elements) are not merged (06's measured
// loss); widening 1 -> 8 bytes (more than twice) neither. Executor-exact by default and in
// a small box.

// EQ: @widen: equivalent after
// EQ: @widen_f16: equivalent after

// CHECK-LABEL: func.func @widen
// CHECK:         layout.copy %{{.*}}, %{{.*}} {convert = "float32->int64", strategy = #layout.copy_strategy<box<tiles>>}
// MERGED-LABEL: func.func @widen
// MERGED:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// MERGED:           layout.alloc : !layout.tensor<i32, #layout.cute<({{[0-9]+}}):(1)>, smem>
// MERGED:           layout.alloc : !layout.tensor<i32, #layout.cute<({{[0-9]+}}):(1)>, smem>
// OFF-LABEL: func.func @widen
// OFF-NOT:       box<tiles>
// OFF-LABEL: func.func @widen_f16
func.func @widen(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<i64, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(150,6,17):(1,150,900)>, gmem>
  %b = layout.view %dst : !layout.ptr<i64, align 16> -> !layout.tensor<i64, #layout.cute<(150,6,17):(102,17,1)>, gmem>
  layout.copy %a, %b {convert = "float32->int64"} : !layout.tensor<f32, #layout.cute<(150,6,17):(1,150,900)>, gmem>, !layout.tensor<i64, #layout.cute<(150,6,17):(102,17,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @widen_f16
// CHECK:         strategy = #layout.copy_strategy<box<tiles>>
func.func @widen_f16(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(301,5,19):(1,301,1505)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(301,5,19):(95,19,1)>, gmem>
  layout.copy %a, %b {convert = "float16->float32"} : !layout.tensor<f16, #layout.cute<(301,5,19):(1,301,1505)>, gmem>, !layout.tensor<f32, #layout.cute<(301,5,19):(95,19,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @plain
// CHECK-NOT:     box<tiles>
func.func @plain(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>) {
  %a = layout.view %src : !layout.ptr<i32, align 16> -> !layout.tensor<i32, #layout.cute<(150,6,17):(1,150,900)>, gmem>
  %b = layout.view %dst : !layout.ptr<i32, align 16> -> !layout.tensor<i32, #layout.cute<(150,6,17):(102,17,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i32, #layout.cute<(150,6,17):(1,150,900)>, gmem>, !layout.tensor<i32, #layout.cute<(150,6,17):(102,17,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @eightfold
// CHECK-NOT:     box<tiles>
func.func @eightfold(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,6,17):(1,150,900)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(150,6,17):(102,17,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->float64"} : !layout.tensor<i8, #layout.cute<(150,6,17):(1,150,900)>, gmem>, !layout.tensor<f64, #layout.cute<(150,6,17):(102,17,1)>, gmem>
  func.return
}
