// `--run cpu` summary of outputs: an output argument marked `{tilec.partial}` may be
// left partly unwritten (diagnostics/unwritten_output.mlir: without the mark it is an
// error), and the summary counts what was left. A bf16 output is printed as numbers and
// counted by the writes the executor saw, not by comparing values with a poison pattern.
// RUN: tilec %s --split-input-file --run cpu 2>&1 | filecheck %s 

// CHECK-LABEL: // @half_on_purpose on the CPU reference executor (seed 0): ok
// CHECK: %dst: 2048 x float32 (output) [{{.*}}]; 1024 element(s) never written (partial output)
!G = !layout.tensor<f32, #layout.cute<(64,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @half_on_purpose(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32> {tilec.partial}) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %b = layout.view %dst : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %v = layout.load %ta : !T -> tensor<32x32xf32, #b>
    layout.store %v, %tb : tensor<32x32xf32, #b>, !T
  }
  func.return
}

// -----

// CHECK-LABEL: // @to_bf16 on the CPU reference executor (seed 0): ok
// CHECK: %dst: 64 x bf16 (output) [0.{{[0-9]+}}, {{.*}}]; every element written
!S = !layout.tensor<f32, #layout.cute<(64):(1)>, gmem>
!D = !layout.tensor<bf16, #layout.cute<(64):(1)>, gmem>
func.func @to_bf16(%src: !layout.ptr<f32>, %dst: !layout.ptr<bf16>) {
  %a = layout.view %src : !layout.ptr<f32> -> !S
  %b = layout.view %dst : !layout.ptr<bf16> -> !D
  layout.copy %a, %b {convert = "float32->bfloat16"} : !S, !D
  func.return
}
