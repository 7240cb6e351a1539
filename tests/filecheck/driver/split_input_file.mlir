// --split-input-file handles each `// -----` chunk on its own and prints them
// separated by `// -----`; an error names the line in the whole file.
// RUN: tilec %s --split-input-file | filecheck %s
// RUN: not tilec %s --split-input-file -p nosuch 2>&1 | filecheck %s --check-prefix=PASS
// PASS: tilec: error: invalid pass pipeline 'nosuch'

// CHECK: builtin.module {
// CHECK-NEXT: func.func @first(%p: !layout.ptr<f32>) {
// CHECK: // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @second(%p: !layout.ptr<f16>) {
// CHECK: // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: }
// CHECK-NOT: // -----
func.func @first(%p: !layout.ptr<f32>) {
  func.return
}

// -----

// The same name in another chunk is no redefinition.
func.func @second(%p: !layout.ptr<f16>) {
  func.return
}

// -----

// A chunk with only comments is an empty module.
