// RUN: tilec %s -p 'tile{tile=16,128 threads=128}' | filecheck %s
// RUN: tilec %s -p tile | filecheck %s --check-prefix=ATTR
// RUN: tilec %s -p 'tile{tile=16,128 threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @with_attr: equivalent after

// The option overrides both the attribute and the heuristic.
// CHECK-LABEL: func.func @with_attr
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(128)
// CHECK:           layout.tile %a{{.*}} {tile = array<i64: 16, 128>}
// ATTR-LABEL:  func.func @with_attr
// ATTR:          threads(256)
// ATTR:          layout.tile %a{{.*}} {tile = array<i64: 8, 64>}
// ATTR-NOT:      layout.copy %a
func.func @with_attr(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
  layout.copy %a, %b {tile = array<i64: 8, 64>} : !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>, !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
  func.return
}
