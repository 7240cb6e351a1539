// CuTe's predication of partial tiles (CuTe's tutorial "Predication: what to do when
// tiling isn't perfect", with the seed 001 guide's local_tile and local_partition): a
// 1000x1003 row-major matrix copied in 32x32 tiles that do not divide it. An identity
// tensor of the matrix's shape is tiled and partitioned exactly as the data are; each
// element's coordinate, compared with the shape, is the predicate of its copy:
//
//   Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(M, N), LayoutRight{});
//   Tensor cA = make_identity_tensor(shape(mA));                  // (m,n) -> (m,n)
//   Tensor gA = local_tile(mA, make_shape(_32{}, _32{}), make_coord(blockIdx.x, blockIdx.y));
//   Tensor cT = local_tile(cA, make_shape(_32{}, _32{}), make_coord(blockIdx.x, blockIdx.y));
//   Tensor tAgA = local_partition(gA, thr_layout, threadIdx.x);   // (4,1)
//   Tensor tAcA = local_partition(cT, thr_layout, threadIdx.x);   // (4,1) coordinates
//   Tensor tApA = make_tensor<bool>(shape(tAcA));                  // the predicates
//   for (int i = 0; i < size(tApA); ++i) tApA(i) = elem_less(tAcA(i), shape(mA));
//   Tensor tArA = make_fragment_like(tAgA);
//   copy_if(tApA, tAgA, tArA);  copy_if(tApA, tArA, tBgB);
//
// The thread layout (8,32):(32,1) puts 32 consecutive threads along a row (coalesced);
// each thread holds a (4,1) fragment, rows 8 apart. The predicates are bytes in
// registers (`make_tensor<bool>`: an i8 rmem tensor), and `copy_if` is a loop over the
// fragment whose accesses the predicate guards. In tilec a tile past the edge is also
// `masked` (its elements past the matrix do not exist; the reference executor reports
// any access to one), so a run without an error proves the predicates right.
//
//   tilec examples/cute_predication.mlir --run cpu
//   tilec examples/cute_predication.mlir -p default -t cuda
!G = !layout.tensor<f32, #layout.cute<(1000,1003):(1003,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(1003,1)>, gmem, masked>
!F = !layout.tensor<f32, #layout.cute<(4,1):(8024,32)>, gmem, masked>
!C = !layout.tensor<tuple<index, index>, #layout.cute<(1000,1003):(1,1000)>, coord>
!CT = !layout.tensor<tuple<index, index>, #layout.cute<(32,32):(1,1000)>, coord, masked>
!CF = !layout.tensor<tuple<index, index>, #layout.cute<(4,1):(8,32000)>, coord, masked>
!P = !layout.tensor<i8, #layout.cute<(4,1):(1,4)>, rmem>
!R = !layout.tensor<f32, #layout.cute<(4,1):(1,0)>, rmem>
func.func @predicated_copy(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %mA = layout.view %src : !layout.ptr<f32> -> !G
  %mB = layout.view %dst : !layout.ptr<f32> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %M = arith.constant 1000 : index
  %N = arith.constant 1003 : index
  %zero = arith.constant 0 : i8
  layout.launch grid(%c32, %c32, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %cA = layout.make_identity_tensor : !C
    %gA = layout.tile %mA[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %gB = layout.tile %mB[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %cT = layout.tile %cA[%bx, %by] {tile = array<i64: 32, 32>} : !C -> !CT
    %tAgA = layout.distribute %gA, %tid {threads = #layout.cute<(8,32):(32,1)>} : !T -> !F
    %tBgB = layout.distribute %gB, %tid {threads = #layout.cute<(8,32):(32,1)>} : !T -> !F
    %tAcA = layout.distribute %cT, %tid {threads = #layout.cute<(8,32):(32,1)>} : !CT -> !CF
    %tApA = layout.alloc : !P
    scf.for %i = %c0 to %c4 step %c1 {
      %m, %n = layout.read_coord %tAcA[%i] : !CF -> index, index
      %in_m = arith.cmpi slt, %m, %M : index
      %in_n = arith.cmpi slt, %n, %N : index
      %p = arith.andi %in_m, %in_n : i1
      %pb = arith.extui %p : i1 to i8
      layout.write %pb, %tApA[%i] : i8, !P
    }
    %tArA = layout.make_fragment_like %tAgA : !F -> !R
    scf.for %i = %c0 to %c4 step %c1 {
      %pb = layout.read %tApA[%i] : !P -> i8
      %p = arith.cmpi ne, %pb, %zero : i8
      scf.if %p {
        %x = layout.read %tAgA[%i] : !F -> f32
        layout.write %x, %tArA[%i] : f32, !R
      }
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %pb = layout.read %tApA[%i] : !P -> i8
      %p = arith.cmpi ne, %pb, %zero : i8
      scf.if %p {
        %x = layout.read %tArA[%i] : !R -> f32
        layout.write %x, %tBgB[%i] : f32, !F
      }
    }
  }
  func.return
}
