// RUN: tilec %s -p 'tile{smem_tile_bytes=8192 tile_bytes=8192}' | filecheck %s
// RUN: tilec %s -p tile | filecheck %s --check-prefix=DEFAULT
// RUN: tilec %s -p 'tile{smem_tile_bytes=8192 tile_bytes=8192}' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @transpose: equivalent after
// EQ: @rows: equivalent after

// The budgets of the tile heuristic: a transposing tile of f16 (16 KiB by default: a
// 128 x 64 tile, its side along the source's contiguous mode grown to the budget) and a
// tile whose views share their contiguous mode (32 KiB by default: 1 KiB along it).
// CHECK-LABEL:   func.func @transpose
// CHECK:           layout.tile %a{{.*}} {tile = array<i64: 64, 64>}
// DEFAULT-LABEL: func.func @transpose
// DEFAULT:         layout.tile %a{{.*}} {tile = array<i64: 128, 64>}
func.func @transpose(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1,1024)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(1024,1024):(1,1024)>, gmem>, !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}

// CHECK-LABEL:   func.func @rows
// CHECK:           layout.tile %a{{.*}} {tile = array<i64: 8, 512>}
// DEFAULT-LABEL: func.func @rows
// DEFAULT:         layout.tile %a{{.*}} {tile = array<i64: 32, 512>}
func.func @rows(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(2048,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(1024,1024):(2048,1)>, gmem>, !layout.tensor<f16, #layout.cute<(1024,1024):(1024,1)>, gmem>
  func.return
}
