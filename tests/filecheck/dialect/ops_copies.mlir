// Round trip of the copy ops of the layout dialect (copy, copy_async, async_wait,
// barrier), in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

!T = !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(32,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
!SV = !layout.tensor<f32, #layout.cute<(32,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>

// A copy between views of the same size, whatever their shapes.
// CHECK-LABEL: func.func @copy(
// CHECK: layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f32, #layout.cute<4096:1>, gmem>
func.func @copy(%a: !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, %b: !layout.tensor<f32, #layout.cute<4096:1>, gmem>) {
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f32, #layout.cute<4096:1>, gmem>
  func.return
}

// CHECK-LABEL: func.func @copy_masked(
// CHECK: layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked>, !layout.tensor<f32, #layout.cute<(64,64):(1,64)>, gmem>
func.func @copy_masked(%a: !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked>, %b: !layout.tensor<f32, #layout.cute<(64,64):(1,64)>, gmem>) {
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(64,64):(?,1)>, gmem, masked>, !layout.tensor<f32, #layout.cute<(64,64):(1,64)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @copy_async(
// CHECK: layout.launch grid(%c, %c, %c) threads(128) {
// CHECK: %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem>
// CHECK: %tv = layout.vectorize %t {vector = array<i64: 1, 4>} : !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(32,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
// CHECK: %sv = layout.vectorize %s {vector = array<i64: 1, 4>} : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem> -> !layout.tensor<f32, #layout.cute<(32,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
// CHECK: layout.copy_async %tv, %sv : !layout.tensor<f32, #layout.cute<(32,4):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>, !layout.tensor<f32, #layout.cute<(32,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
// CHECK: layout.copy_async %t, %s : !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>, !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem>
// CHECK-NEXT: layout.async_wait {pending = 1 : i64}
// CHECK-NEXT: layout.async_wait {pending = 0 : i64}
// CHECK-NEXT: layout.barrier
// CHECK: layout.copy %s, %t : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, smem>, !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>
func.func @copy_async(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %tv = layout.vectorize %t {vector = array<i64: 1, 4>} : !T -> !TV
    %sv = layout.vectorize %s {vector = array<i64: 1, 4>} : !S -> !SV
    layout.copy_async %tv, %sv : !TV, !SV
    layout.copy_async %t, %s : !T, !S
    layout.async_wait {pending = 1 : i64}
    layout.async_wait {pending = 0 : i64}
    layout.barrier
    layout.copy %s, %t : !S, !T
  }
  func.return
}

// A converting copy names its conversion (PyTorch's, NumPy dtype names); uint8 and
// bool are stored as i8.
// CHECK-LABEL: func.func @copy_convert(
// CHECK: layout.copy %a, %b {convert = "float32->bfloat16"} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(64,64):(1,64)>, gmem>
// CHECK: layout.copy %c, %d {convert = "uint8->bool"} : !layout.tensor<i8, #layout.cute<64:1>, gmem>, !layout.tensor<i8, #layout.cute<64:1>, gmem>
func.func @copy_convert(%a: !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, %b: !layout.tensor<bf16, #layout.cute<(64,64):(1,64)>, gmem>, %c: !layout.tensor<i8, #layout.cute<64:1>, gmem>, %d: !layout.tensor<i8, #layout.cute<64:1>, gmem>) {
  layout.copy %a, %b {convert = "float32->bfloat16"} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(64,64):(1,64)>, gmem>
  layout.copy %c, %d {convert = "uint8->bool"} : !layout.tensor<i8, #layout.cute<64:1>, gmem>, !layout.tensor<i8, #layout.cute<64:1>, gmem>
  func.return
}
