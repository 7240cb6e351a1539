// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always}' | filecheck %s --check-prefix=ALWAYS
// The gather rule leaves permutes of 8-byte elements without conversion to the tiled
// kernel (`_copy_cost.GATHER_TILED_BYTES`: the strided set's 18, f64 rows of 61, gathered
// 0.882 of cudaMemcpy, tiled 0.980 on the H200), however short and odd the last mode;
// converting into 8 bytes and broadcasting stay the gather's. Results never change.

// EQ: @f64_rows_of_61: equivalent after 'default'
// EQ: @u8_to_f64_rows_of_17: equivalent after 'default'
// EQ: @f64_row_broadcast: equivalent after 'default'

// CHECK-LABEL: func.func @f64_rows_of_61
// CHECK-NOT:     copy_strategy
// CHECK:         func.return
// ALWAYS-LABEL: func.func @f64_rows_of_61
// ALWAYS:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
func.func @f64_rows_of_61(%src: !layout.ptr<f64, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(150,61):(1,150)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(150,61):(61,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(150,61):(1,150)>, gmem>, !layout.tensor<f64, #layout.cute<(150,61):(61,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @u8_to_f64_rows_of_17
// CHECK:         layout.copy %{{.*}}, %{{.*}} {convert = "uint8->float64", strategy = #layout.copy_strategy<gather>}
func.func @u8_to_f64_rows_of_17(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,17):(1,150)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(150,17):(17,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->float64"} : !layout.tensor<i8, #layout.cute<(150,17):(1,150)>, gmem>, !layout.tensor<f64, #layout.cute<(150,17):(17,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @f64_row_broadcast
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
func.func @f64_row_broadcast(%src: !layout.ptr<f64, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(7,40):(0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(7,40):(40,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(7,40):(0,1)>, gmem>, !layout.tensor<f64, #layout.cute<(7,40):(40,1)>, gmem>
  func.return
}
