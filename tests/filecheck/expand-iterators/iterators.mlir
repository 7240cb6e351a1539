// RUN: tilec %s -p expand-iterators | filecheck %s
// RUN: tilec %s -p expand-iterators --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// Mojo's tile iterators (seed 000, "Tiled iterators") become positions and layout.tile.

// EQ: @tiled_iterator_rows: equivalent after 'expand-iterators'
// EQ: @buffer_tiles: equivalent after 'expand-iterators'
// EQ: @circular_buffer: equivalent after 'expand-iterators'
// EQ: @next_k: equivalent after 'expand-iterators'
// CUDA-LABEL: // kernel tiled_iterator_rows_kernels::tiled_iterator_rows_kernel
// CUDA-LABEL: // kernel buffer_tiles_kernels::buffer_tiles_kernel
// CUDA-LABEL: // kernel circular_buffer_kernels::circular_buffer_kernel
// CUDA-LABEL: // kernel next_k_kernels::next_k_kernel

// for i in range(num_row_tiles):
//     var iter = tensor.tiled_iterator[16, 16, axis=1](i, 0)
//     for _ in range(num_col_tiles): tile = iter[]; ...; iter += 1
// CHECK-LABEL: func.func @tiled_iterator_rows
// CHECK:      ^bb0
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %[[Z]]) -> (index) {
// CHECK-NEXT:   %[[C:.*]] = arith.addi %{{.*}}, %[[P]] : index
// CHECK-NEXT:   %{{.*}} = layout.tile %{{.*}}[%bx, %[[C]]] {tile = array<i64: 16, 16>}
// CHECK:        %[[N:.*]] = arith.addi %[[P]], %{{.*}} : index
// CHECK-NEXT:   scf.yield %[[N]] : index
// CHECK-NOT: layout.iter
!A = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!I = !layout.iter<!T>
func.func @tiled_iterator_rows(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !A
  %b = layout.view %q : !layout.ptr<f32> -> !A
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %it = layout.tiled_iterator %a[%bx, %c0] {tile = array<i64: 16, 16>, axis = 1 : i64} : !A
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%x = %it) -> (!I) {
      %t = layout.iter_get %x : !I
      %o = layout.tile %b[%bx, %j] {tile = array<i64: 16, 16>} : !A
      layout.copy %t, %o : !T, !T
      %n = layout.iter_next %x : !I
      scf.yield %n : !I
    }
  }
  func.return
}

// LayoutTensorIter[DType.int16, Layout.row_major(2, 2)](storage, 16): four tiles of 2x2,
// each written out column-major (a transpose per tile).
// CHECK-LABEL: func.func @buffer_tiles
// CHECK: %[[F:.*]] = layout.tile %{{.*}}[%{{.*}}] {tile = array<i64: 4>} : !layout.tensor<i16, #layout.cute<16:1>, gmem> -> !layout.tensor<i16, #layout.cute<4:1>, gmem>
// CHECK: layout.compose %[[F]] {tiler = #layout.cute<(2,2):(2,1)>} : !layout.tensor<i16, #layout.cute<4:1>, gmem> -> !layout.tensor<i16, #layout.cute<(2,2):(2,1)>, gmem>
!B = !layout.tensor<i16, #layout.cute<16:1>, gmem>
!RT = !layout.tensor<i16, #layout.cute<(2,2):(2,1)>, gmem>
!CT = !layout.tensor<i16, #layout.cute<(2,2):(1,2)>, gmem>
func.func @buffer_tiles(%p: !layout.ptr<i16>, %q: !layout.ptr<i16>) {
  %a = layout.view %p : !layout.ptr<i16> -> !B
  %b = layout.view %q : !layout.ptr<i16> -> !B
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ia = layout.buffer_iterator %a {tile = #layout.cute<(2,2):(2,1)>} : !B
  %ib = layout.buffer_iterator %b {tile = #layout.cute<(2,2):(1,2)>} : !B
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ra, %rb = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %ia, %y = %ib) -> (!layout.iter<!RT>, !layout.iter<!CT>) {
      %t = layout.iter_get %x : !layout.iter<!RT>
      %u = layout.iter_get %y : !layout.iter<!CT>
      layout.copy %t, %u : !RT, !CT
      %nx = layout.iter_next %x : !layout.iter<!RT>
      %ny = layout.iter_next %y : !layout.iter<!CT>
      scf.yield %nx, %ny : !layout.iter<!RT>, !layout.iter<!CT>
    }
  }
  func.return
}

// circular=True: six steps over four tiles wrap around (tiles 0, 1 come again).
// CHECK-LABEL: func.func @circular_buffer
// CHECK: arith.remui %{{.*}}, %{{.*}} : index
!O = !layout.tensor<i16, #layout.cute<24:1>, gmem>
func.func @circular_buffer(%p: !layout.ptr<i16>, %q: !layout.ptr<i16>) {
  %a = layout.view %p : !layout.ptr<i16> -> !B
  %b = layout.view %q : !layout.ptr<i16> -> !O
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ia = layout.buffer_iterator %a {tile = #layout.cute<(2,2):(2,1)>, circular} : !B
    %ib = layout.buffer_iterator %b {tile = #layout.cute<(2,2):(2,1)>} : !O
    %ra, %rb = scf.for %i = %c0 to %c6 step %c1 iter_args(%x = %ia, %y = %ib) -> (!layout.iter<!RT>, !layout.iter<!RT>) {
      %t = layout.iter_get %x : !layout.iter<!RT>
      %u = layout.iter_get %y : !layout.iter<!RT>
      layout.copy %t, %u : !RT, !RT
      %nx = layout.iter_next %x : !layout.iter<!RT>
      %ny = layout.iter_next %y : !layout.iter<!RT>
      scf.yield %nx, %ny : !layout.iter<!RT>, !layout.iter<!RT>
    }
  }
  func.return
}

// for i in range(num_tiles): current_tile = iter.next(i)[]
// CHECK-LABEL: func.func @next_k
// CHECK: %[[P:.*]] = arith.addi %{{.*}}, %[[I:.*]] : index
// CHECK: layout.tile %{{.*}}[%{{.*}}, %{{.*}}]
func.func @next_k(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !A
  %b = layout.view %q : !layout.ptr<f32> -> !A
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %it = layout.tiled_iterator %a[%bx, %c0] {tile = array<i64: 16, 16>, axis = 1 : i64} : !A
    scf.for %i = %c0 to %c4 step %c1 {
      %n = layout.iter_next %it, %i : !I
      %t = layout.iter_get %n : !I
      %o = layout.tile %b[%bx, %i] {tile = array<i64: 16, 16>} : !A
      layout.copy %t, %o : !T, !T
    }
  }
  func.return
}
