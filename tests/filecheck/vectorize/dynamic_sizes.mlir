// Run-time sizes cost no vector width. A masked tile of a dynamic extent is loaded and
// stored with the widest vector its layout allows: lower-to-gpu masks each lane, so a
// tile inside the tensor moves whole 16-byte vectors and only a vector across the edge
// falls back to per-element accesses (n unknown: the lanes' masks may disagree). A dynamic stride promised to be a multiple of 4
// (`divisible`) keeps every f32 row on a 16-byte boundary.
// RUN: tilec %s -p 'tile,distribute,vectorize' | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: not tilec %s --run cpu --arg s=1023 2>&1 | filecheck %s --check-prefix=BROKEN

// EQ: @one_d: equivalent after 'default'
// EQ: @rows: equivalent after 'default'
// EQ: @rows_unknown_stride: equivalent after 'default'

// CHECK-LABEL: func.func @one_d
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 4, its lanes masked one by one where they disagree: {{.*}}", vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {tilec.vector_note = "vector 4, {{.*}}", vector = 4 : i64}
// CUDA-LABEL:  one_d_kernel(
// CUDA:          if (p) {
// CUDA:            reinterpret_cast<const f32x4*>(src
// CUDA:          } else {
// CUDA:            reinterpret_cast<const f32x4*>(src
// CUDA:            } else {
// CUDA:              const float x = src[
func.func @one_d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %n: index) attributes {tilec.args = {n = 4099 : index}} {
  %a = layout.view %src(%n) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<?:1>, gmem>
  %b = layout.view %dst(%n) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<?:1>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<?:1>, gmem>, !layout.tensor<f32, #layout.cute<?:1>, gmem>
  func.return
}

// CHECK-LABEL: func.func @rows
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 4, {{.*}}", vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {tilec.vector_note = "vector 4, {{.*}}", vector = 4 : i64}
// BROKEN: error: 'layout.view': index operand 2 is 1023, not a multiple of 4 as its `divisible` entry promises
func.func @rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index) attributes {tilec.args = {m = 37 : index, n = 1021 : index, s = 1024 : index}} {
  %a = layout.view %src(%m, %n, %s) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %s) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// Nothing promised about the dynamic stride: scalar accesses (one element per thread).
// CHECK-LABEL: func.func @rows_unknown_stride
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 1: {{.*}} (a register run of 1)"} : {{.*}}sizePerThread = [1, 1]
func.func @rows_unknown_stride(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index) attributes {tilec.args = {m = 37 : index, n = 1021 : index, s = 1024 : index}} {
  %a = layout.view %src(%m, %n, %s) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %s) : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}
