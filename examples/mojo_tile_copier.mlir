// Mojo's TileTensor guide (seeds 002 and 004), `tile_copier_example`, as the seeds write
// it: a 128x128 row-major float32 tensor holding 0, 1, 2, ...; one block of 16x16
// threads per 16x16 tile (`tensor.tile[16, 16](block_idx.y, block_idx.x)` on an 8x8
// grid). GenericToSharedAsyncTileCopier[row_major(32 // 4, 4)] copies the tile into
// shared memory in vectors of 4 (cp.async), then async_copy_commit_group,
// async_copy_wait_all and barrier; each thread adds one to shared_tile[thread_idx.y,
// thread_idx.x]; barrier; SharedToGenericTileCopier copies the tile back: afterwards
// element i holds i + 1.
//
// The copier's thread layout has 32 threads: each warp takes its lane's fragment (so the
// block's 8 warps each copy the whole tile, as LayoutTensor's copy_from_async_example
// does with lane_id()).
//
// The duplicate copies write the same values to the same shared addresses without
// ordering between warps: compute-sanitizer's racecheck reports them as write-after-write
// hazards; dev/device/sanitize.sh accepts exactly those (status seed-waw).
//
//   tilec examples/mojo_tile_copier.mlir --run cpu
//   tilec examples/mojo_tile_copier.mlir --run gpu --check
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(128,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!TV = !layout.tensor<f32, #layout.cute<(16,4):(128,4)>, gmem, vec #layout.cute<(1,4):(128,1)>>
!SV = !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, smem, vec #layout.cute<(1,4):(16,1)>>
!TF = !layout.tensor<f32, #layout.cute<(2,1):(1024,16)>, gmem, vec #layout.cute<(1,4):(128,1)>>
!SF = !layout.tensor<f32, #layout.cute<(2,1):(128,16)>, smem, vec #layout.cute<(1,4):(16,1)>>
func.func @tile_copier(%buf: !layout.ptr<f32, align 16>) {
  %tensor = layout.view %buf : !layout.ptr<f32, align 16> -> !G
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(16, 16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %lane = arith.remui %tid, %c32 : index
    %global_tile = layout.tile %tensor[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %shared_tile = layout.alloc : !S
    %gv = layout.vectorize %global_tile {vector = array<i64: 1, 4>} : !T -> !TV
    %sv = layout.vectorize %shared_tile {vector = array<i64: 1, 4>} : !S -> !SV
    %gf = layout.distribute %gv, %lane {threads = #layout.cute<(8,4):(4,1)>} : !TV -> !TF
    %sf = layout.distribute %sv, %lane {threads = #layout.cute<(8,4):(4,1)>} : !SV -> !SF
    %tok = layout.copy_async %gf, %sf : !TF, !SF -> !layout.async_token
    layout.async_wait %tok
    layout.barrier
    %gx = layout.global_idx x
    %gy = layout.global_idx y
    %tx = layout.thread_idx x
    %ty = layout.thread_idx y
    %in_y = arith.cmpi ult, %gy, %c128 : index
    %in_x = arith.cmpi ult, %gx, %c128 : index
    %in = arith.andi %in_y, %in_x : i1
    scf.if %in {
      %x = layout.read %shared_tile[%ty, %tx] : !S -> f32
      %one = arith.constant 1.0 : f32
      %y = arith.addf %x, %one : f32
      layout.write %y, %shared_tile[%ty, %tx] : f32, !S
    }
    layout.barrier
    layout.copy %sf, %gf : !SF, !TF
  }
  func.return
}
