// Mojo's TileTensor guide (seeds 002 and 004), `tile_copier_example` with its copiers as
// values: the guide configures a copier with a thread layout and lets a program plug in
// another (its `TileCopier` trait; "a tile copier that uses NVIDIA's tensor memory
// accelerator"). Here each copy is a block-level `layout.copy` of the whole tile whose
// `strategy` is the copier:
//   GenericToSharedAsyncTileCopier -> #layout.copy_strategy<async> (cp.async),
//   SharedToGenericTileCopier      -> #layout.copy_strategy<simt>  (plain stores),
// and `distribute` gives each thread its share (the thread layout the guide's copier
// takes is the pass's to choose). Write <tma> on either copy for a TMA copier (sm_90).
// A 128x128 float32 tensor, one block of 16x16 threads per 16x16 tile; each thread adds
// one to its element in shared memory: afterwards element i holds i + 1.
//
//   tilec examples/mojo_tile_copier_strategies.mlir --run cpu
//   tilec examples/mojo_tile_copier_strategies.mlir -p default -t cuda   (cp.async in, float4 stores out)
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(128,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @tile_copier_strategies(%buf: !layout.ptr<f32, align 16>) {
  %tensor = layout.view %buf : !layout.ptr<f32, align 16> -> !G
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(16, 16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %global_tile = layout.tile %tensor[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
    %shared_tile = layout.alloc : !S
    layout.copy %global_tile, %shared_tile {strategy = #layout.copy_strategy<async>} : !T, !S
    layout.barrier
    %tx = layout.thread_idx x
    %ty = layout.thread_idx y
    %x = layout.read %shared_tile[%ty, %tx] : !S -> f32
    %one = arith.constant 1.0 : f32
    %y = arith.addf %x, %one : f32
    layout.write %y, %shared_tile[%ty, %tx] : f32, !S
    layout.barrier
    layout.copy %shared_tile, %global_tile {strategy = #layout.copy_strategy<simt>} : !S, !T
  }
  func.return
}
