// RUN: tilec %s -p 'tile,distribute,vectorize{max-bytes=8}' | filecheck %s
// RUN: not tilec %s -p 'vectorize{max-bytes=12}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not tilec %s -p 'vectorize{max-bytes=32}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: tilec %s -p 'tile,distribute,vectorize{max-bytes=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @capped: equivalent after

// ERR: vectorize: max-bytes={{12|32}} must be a power of two in [1, 16]
// CHECK-LABEL: func.func @capped
// CHECK:         layout.load %{{.*}} {vector = 2 : i64}
func.func @capped(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}
