// RUN: not tilec %s -p 'tile{tile=64}' 2>&1 | filecheck %s --check-prefix=RANK
// RUN: not tilec %s -p 'tile{tile=64,2048}' 2>&1 | filecheck %s --check-prefix=BIG
// RUN: not tilec %s -p 'tile{threads=2048}' 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not tilec %s -p 'tile{tile=0,4}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not tilec %s -p 'tile{smem_tile_bytes=3000}' 2>&1 | filecheck %s --check-prefix=BUDGET

// RANK: errors.mlir:15:3: error: 'layout.copy': tile: option tile [64] has 1 extents but the views have 2 modes
// BIG: errors.mlir:15:3: error: 'layout.copy': tile: option tile [64, 2048] does not fit the views' shape (1024,1024)
// THREADS: tile: threads=2048 must be in [1, 1024]
// ZERO: tile: tile extents must be positive, got [0, 4]
// BUDGET: tile: smem_tile_bytes=3000 must be a power of two, at least 1024
func.func @copy(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>, !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}
