// Verifier errors of the tile iterators.
// RUN: tilec %s --split-input-file --verify-diagnostics

!A = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>
func.func @axis(%a: !A, %i: index) {
  // expected-error @+1 {{axis 2 of a view of rank 2}}
  %it = layout.tiled_iterator %a[%i, %i] {tile = array<i64: 16, 16>, axis = 2 : i64} : !A
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>
func.func @tile_type(%a: !A, %i: index) {
  // expected-error @+1 {{the iterator's tiles are !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>, got !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>}}
  %it = layout.tiled_iterator %a[%i, %i] {tile = array<i64: 16, 16>, axis = 1 : i64} : !A -> !layout.iter<!layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>>
  func.return
}

// -----

func.func @buffer_rank(%b: !layout.tensor<i16, #layout.cute<(4,4):(4,1)>, gmem>) {
  // expected-error @+1 {{a buffer iterator walks a compact rank-1 view (N:1, also written (N):(1)), got (4,4):(4,1)}}
  %it = layout.buffer_iterator %b {tile = #layout.cute<(2,2):(2,1)>} : !layout.tensor<i16, #layout.cute<(4,4):(4,1)>, gmem>
  func.return
}

// -----

func.func @buffer_whole(%b: !layout.tensor<i16, #layout.cute<18:1>, gmem>) {
  // expected-error @+1 {{a buffer of 18 elements is not a whole number of tiles of 4}}
  %it = layout.buffer_iterator %b {tile = #layout.cute<(2,2):(2,1)>} : !layout.tensor<i16, #layout.cute<18:1>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
func.func @get_type(%it: !layout.iter<!T>) {
  // expected-error @+1 {{the tile of !layout.iter<!layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>> is !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>, got !layout.tensor<f32, #layout.cute<16:1>, gmem>}}
  %t = layout.iter_get %it : !layout.iter<!T> -> !layout.tensor<f32, #layout.cute<16:1>, gmem>
  func.return
}
