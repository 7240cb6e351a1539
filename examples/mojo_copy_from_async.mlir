// Mojo's LayoutTensor guide, `copy_from_async_example`, as the seed writes it: a 128x128
// row-major float32 tensor in 16x16 tiles, one block of 16x16 threads per tile on an 8x8
// grid. Each warp copies the tile into shared memory asynchronously (vectors of 4, the
// thread layout row_major(32 // 4, 4) = (8,4):(4,1), distributed over lane_id(), so
// the block's 8 warps all copy the whole tile), waits (async_copy_wait_all), writes
// global_idx.x * 128 + global_idx.y into its own element of the shared tile, meets the
// block at a barrier, and copies the tile back: afterwards element i holds i.
//
// One change from seed 000: a barrier between the wait and the computed write. The seed
// has none, and races: async_copy_wait_all waits for the thread's own copies only, so
// another warp's copy of the same element may land after this thread's write. The
// TileTensor guide (seeds 002 and 004) adds the barrier.
//
// The duplicate copies write the same values to the same shared addresses without
// ordering between warps: compute-sanitizer's racecheck reports them as write-after-write
// hazards; dev/device/sanitize.sh accepts exactly those (status seed-waw).
//
//   tilec examples/mojo_copy_from_async.mlir --run cpu
//   tilec examples/mojo_copy_from_async.mlir --run gpu --check
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(128,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(128,4)>, gmem, vec #layout.cute<(1,4):(128,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(1024,16)>, gmem, vec #layout.cute<(1,4):(128,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @copy_from_async(%buf: !layout.ptr<f32, align 16>) {
  %tensor = layout.view %buf : !layout.ptr<f32, align 16> -> !G
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(16, 16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %lane = arith.remui %tid, %c32 : index
    %global_tile = layout.tile %tensor[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %shared_tile = layout.alloc : !S
    %gv = layout.vectorize %global_tile {vector = array<i64: 1, 4>} : !T -> !TV
    %sv = layout.vectorize %shared_tile {vector = array<i64: 1, 4>} : !S -> !SV
    %global_fragment = layout.distribute %gv, %lane {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %shared_fragment = layout.distribute %sv, %lane {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %tok = layout.copy_async %global_fragment, %shared_fragment : !TF, !SF -> !layout.async_token
    layout.async_wait %tok
    layout.barrier
    %gx = layout.global_idx x
    %gy = layout.global_idx y
    %tx = layout.thread_idx x
    %ty = layout.thread_idx y
    %in_x = arith.cmpi ult, %gx, %c128 : index
    %in_y = arith.cmpi ult, %gy, %c128 : index
    %in = arith.andi %in_x, %in_y : i1
    scf.if %in {
      %row = arith.muli %gx, %c128 : index
      %i = arith.addi %row, %gy : index
      %i64 = arith.index_cast %i : index to i64
      %v = arith.sitofp %i64 : i64 to f32
      layout.write %v, %shared_tile[%tx, %ty] : f32, !S
    }
    layout.barrier
    layout.copy %shared_fragment, %global_fragment : !SF, !TF
  }
  func.return
}
