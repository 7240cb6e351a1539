// -o writes the output to a file and nothing to stdout.
// RUN: rm -f %t.mlir
// RUN: tilec %s -o %t.mlir | filecheck %s --check-prefix=STDOUT --allow-empty
// RUN: filecheck %s < %t.mlir
// STDOUT-NOT: {{.}}

// CHECK: builtin.module {
// CHECK-NEXT: func.func @f(%p: !layout.ptr<f32>) {
// CHECK-NEXT: %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<8:1>, gmem>
func.func @f(%p: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<8:1>, gmem>
  func.return
}
