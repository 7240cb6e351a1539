// --print-between-passes prints the IR after each pass, then the final IR.
// RUN: tilec %s -p canonicalize,cse --print-between-passes | filecheck %s
// CHECK: // -----// IR after canonicalize //----- //
// CHECK-NEXT: builtin.module {
// CHECK: // -----// IR after cse //----- //
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @f(%p: !layout.ptr<f32>) {
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @f(%p: !layout.ptr<f32>) {
// CHECK-NOT: IR after
func.func @f(%p: !layout.ptr<f32>) {
  func.return
}
