// RUN: tilec %s | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// Result types the algebra decides may be left out (Mojo's tile_type(), issue 18): the
// view ops tile, vectorize, distribute, divide, compose, partition and slice take
// `: SOURCE` alone, and the printer writes the type they infer.

!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>

// CHECK-LABEL: func.func @mojo_tile_vectorize_distribute
// CHECK: layout.tile %{{.*}}[%{{.*}}, %{{.*}}] {tile = array<i64: 16, 16>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
// CHECK: layout.vectorize %{{.*}} {vector = array<i64: 1, 4>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(16,4):(64,4)>, gmem, vec #layout.cute<(1,4):(64,1)>>
// CHECK: layout.distribute %{{.*}}, %{{.*}} {threads = #layout.cute<(8,4):(4,1)>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(2,1):(512,16)>, gmem, vec #layout.cute<(1,4):(64,1)>>
// EQ: @mojo_tile_vectorize_distribute: equivalent after 'default'
func.func @mojo_tile_vectorize_distribute(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,4):(4,1)>} : !layout.tensor<f32, #layout.cute<(16,4):(64,4)>, gmem, vec #layout.cute<(1,4):(64,1)>>
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,4):(4,1)>} : !layout.tensor<f32, #layout.cute<(16,4):(64,4)>, gmem, vec #layout.cute<(1,4):(64,1)>>
    layout.copy %fa, %fb : !layout.tensor<f32, #layout.cute<(2,1):(512,16)>, gmem, vec #layout.cute<(1,4):(64,1)>>, !layout.tensor<f32, #layout.cute<(2,1):(512,16)>, gmem, vec #layout.cute<(1,4):(64,1)>>
  }
  func.return
}

// A masked tile: the type says so without being told.
// CHECK-LABEL: func.func @masked_tile
// CHECK: layout.tile %{{.*}}[%{{.*}}] {tile = array<i64: 32>} : !layout.tensor<f32, #layout.cute<100:1>, gmem> -> !layout.tensor<f32, #layout.cute<32:1>, gmem, masked>
func.func @masked_tile(%p: !layout.ptr<f32>) {
  %i = arith.constant 3 : index
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<100:1>, gmem>
  %t = layout.tile %a[%i] {tile = array<i64: 32>} : !layout.tensor<f32, #layout.cute<100:1>, gmem>
  func.return
}

// CuTe's divides, composition and partition.
// CHECK-LABEL: func.func @cute_views
// CHECK: layout.divide %{{.*}} {kind = "zipped", tiler = array<i64: 4, 8>} : {{.*}} -> !layout.tensor<f32, #layout.cute<((4,8),(16,8)):((64,1),(256,8))>, gmem>
// CHECK: layout.compose %{{.*}} {tiler = [#layout.cute<4:2>, #layout.cute<2:1>]} : {{.*}} -> !layout.tensor<f32, #layout.cute<(4,2):(128,1)>, gmem>
// CHECK: layout.partition %{{.*}}, %{{.*}} {tv = #layout.cute<(32,4):(1,32)>} : !layout.tensor<f32, #layout.cute<128:1>, gmem> -> !layout.tensor<f32, #layout.cute<4:32>, gmem>
func.func @cute_views(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %z = layout.divide %a {kind = "zipped", tiler = array<i64: 4, 8>} : !G
  %c = layout.compose %a {tiler = [#layout.cute<4:2>, #layout.cute<2:1>]} : !G
  %v = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<128:1>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.partition %v, %tid {tv = #layout.cute<(32,4):(1,32)>} : !layout.tensor<f32, #layout.cute<128:1>, gmem>
  }
  func.return
}

// A slice's result type: one mode per `_` (CuTe's A(make_coord(_,1), make_coord(0,_,1))).
// CHECK-LABEL: func.func @slice_inferred
// CHECK: layout.slice %{{.*}}[(_, 1), (0, _, 1)] : {{.*}} -> !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
// CHECK: layout.slice %{{.*}}[2, _] : {{.*}} -> !layout.tensor<f32, #layout.cute<((2,5,2)):((2,13,100))>, gmem>
func.func @slice_inferred(%p: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
  %e = layout.slice %a[(_, 1), (0, _, 1)] : !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
  %b = layout.slice %a[2, _] : !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
  func.return
}
