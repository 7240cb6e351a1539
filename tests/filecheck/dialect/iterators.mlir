// RUN: tilec %s | filecheck %s
// RUN: tilec %s | tilec | filecheck %s
// Tile iterators (Mojo's LayoutTensorIter): the ops print back as written, with the
// result types they infer.

!A = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>

// CHECK-LABEL: func.func @iterators
// CHECK: %{{.*}} = layout.tiled_iterator %{{.*}}[%{{.*}}, %{{.*}}] {tile = array<i64: 16, 16>, axis = 1 : i64} : !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem> -> !layout.iter<!layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>>
// CHECK: %{{.*}} = layout.iter_get %{{.*}} : !layout.iter<!layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>> -> !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
// CHECK: %{{.*}} = layout.iter_next %{{.*}} : !layout.iter<!layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>>
// CHECK: %{{.*}} = layout.iter_next %{{.*}}, %{{.*}} : !layout.iter<!layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>>
// CHECK: %{{.*}} = layout.tiled_iterator %{{.*}}[%{{.*}}, %{{.*}}] {tile = array<i64: 24, 16>, axis = 0 : i64, circular} : !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem> -> !layout.iter<!layout.tensor<f32, #layout.cute<(24,16):(64,1)>, gmem, masked>>
// CHECK: %{{.*}} = layout.buffer_iterator %{{.*}} {tile = #layout.cute<(2,2):(2,1)>, circular} : !layout.tensor<i16, #layout.cute<16:1>, gmem> -> !layout.iter<!layout.tensor<i16, #layout.cute<(2,2):(2,1)>, gmem>>
func.func @iterators(%p: !layout.ptr<f32>, %q: !layout.ptr<i16>, %k: index) {
  %a = layout.view %p : !layout.ptr<f32> -> !A
  %c0 = arith.constant 0 : index
  %it = layout.tiled_iterator %a[%c0, %c0] {tile = array<i64: 16, 16>, axis = 1 : i64} : !A
  %t = layout.iter_get %it : !layout.iter<!T>
  %n = layout.iter_next %it : !layout.iter<!T>
  %m = layout.iter_next %n, %k : !layout.iter<!T> 
  %w = layout.tiled_iterator %a[%c0, %c0] {tile = array<i64: 24, 16>, axis = 0 : i64, circular} : !A
  %b = layout.view %q : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<16:1>, gmem>
  %bi = layout.buffer_iterator %b {tile = #layout.cute<(2,2):(2,1)>, circular} : !layout.tensor<i16, #layout.cute<16:1>, gmem>
  func.return
}
