// Verifier errors of the view ops: tile, vectorize, distribute, divide, partition, slice.
// RUN: tilec %s --split-input-file --verify-diagnostics

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
func.func @tile_count(%a: !G, %i: index) {
  // expected-error @+1 {{2 tile extents but 1 coordinates}}
  %t = layout.tile %a[%i] {tile = array<i64: 64, 64>} : !G -> !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
func.func @tile_rank(%a: !G, %i: index) {
  // expected-error @+1 {{tile [64] has 1 extents but layout (256,256):(256,1) has 2 modes}}
  %t = layout.tile %a[%i] {tile = array<i64: 64>} : !G -> !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(100,100):(100,1)>, gmem>
func.func @tile_masked(%a: !G, %i: index) {
  // expected-error @+1 {{tile [64, 64] does not divide (100,100):(100,1): the result type must be masked}}
  %t = layout.tile %a[%i, %i] {tile = array<i64: 64, 64>} : !G -> !layout.tensor<f32, #layout.cute<(64,64):(100,1)>, gmem>
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
func.func @tile_layout(%a: !G, %i: index) {
  // expected-error @+1 {{tile: expected layout (64,64):(256,1), got (64,64):(64,1)}}
  %t = layout.tile %a[%i, %i] {tile = array<i64: 64, 64>} : !G -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
func.func @tile_elt(%a: !G, %i: index) {
  // expected-error @+1 {{element types disagree: f32 and f16}}
  %t = layout.tile %a[%i, %i] {tile = array<i64: 64, 64>} : !G -> !layout.tensor<f16, #layout.cute<(64,64):(256,1)>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @vec_big(%t: !T) {
  // expected-error @+1 {{a vector of 32 bytes exceeds the 16 bytes of one access}}
  %v = layout.vectorize %t {vector = array<i64: 1, 8>} : !T -> !layout.tensor<f32, #layout.cute<(64,8):(256,8)>, gmem, vec #layout.cute<(1,8):(256,1)>>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @vec_layout(%t: !T) {
  // expected-error @+1 {{vectorize: expected layout (64,16):(256,4), got (64,16):(256,1)}}
  %v = layout.vectorize %t {vector = array<i64: 1, 4>} : !T -> !layout.tensor<f32, #layout.cute<(64,16):(256,1)>, gmem, vec #layout.cute<(1,4):(256,1)>>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @vec_rank(%t: !T) {
  // expected-error @+1 {{vector [4] has 1 extents but layout (64,64):(256,1) has 2 modes}}
  %v = layout.vectorize %t {vector = array<i64: 4>} : !T -> !layout.tensor<f32, #layout.cute<(64,16):(256,4)>, gmem, vec #layout.cute<(1,4):(256,1)>>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @dist_big(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{thread layout (1,32):(1,1) has 32 threads but the block has 16}}
    %f = layout.distribute %t, %tid {threads = #layout.cute<(1,32):(1,1)>} : !T -> !layout.tensor<f32, #layout.cute<(64,2):(256,32)>, gmem>
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,10):(256,1)>, gmem>
func.func @dist_masked(%t: !T, %tid: index) {
  // expected-error @+1 {{thread layout (1,4):(1,1) does not divide (64,10):(256,1): the result must be masked}}
  %f = layout.distribute %t, %tid {threads = #layout.cute<(1,4):(1,1)>} : !T -> !layout.tensor<f32, #layout.cute<(64,3):(256,4)>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @dist_rank(%t: !T, %tid: index) {
  // expected-error @+1 {{thread layout 32:1 has 1 modes but the view (64,64):(256,1) has 2}}
  %f = layout.distribute %t, %tid {threads = #layout.cute<32:1>} : !T -> !layout.tensor<f32, #layout.cute<(2,64):(256,1)>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @dist_bij(%t: !T, %tid: index) {
  // expected-error @+1 {{thread layout (1,32):(1,2) is not a bijection onto [0, 32)}}
  %f = layout.distribute %t, %tid {threads = #layout.cute<(1,32):(1,2)>} : !T -> !layout.tensor<f32, #layout.cute<(64,2):(256,32)>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @divide_kind(%t: !T) {
  // expected-error @+1 {{kind must be one of logical, zipped, tiled, flat}}
  %z = layout.divide %t {kind = "diagonal", tiler = array<i64: 4, 8>} : !T -> !T
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @divide_layout(%t: !T) {
  // expected-error @+1 {{zipped_divide: expected layout ((4,8),(16,8)):((256,1),(1024,8)), got (64,64):(256,1)}}
  %z = layout.divide %t {kind = "zipped", tiler = array<i64: 4, 8>} : !T -> !T
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @divide_tiler(%t: !T) {
  // expected-error @+1 {{tiler must be a #layout.cute, an array of extents or an array of #layout.cute (by mode)}}
  %z = layout.divide %t {kind = "zipped", tiler = 4 : i64} : !T -> !T
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>
func.func @partition_past(%t: !T, %tid: index) {
  // expected-error @+1 {{TV layout ((4,8),4):((256,1),8) reaches past the 512 elements of the view}}
  %p = layout.partition %t, %tid {tv = #layout.cute<((4,8),4):((256,1),8)>} : !T -> !layout.tensor<f32, #layout.cute<4:2048>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>
func.func @partition_rank(%t: !T, %tid: index) {
  // expected-error @+1 {{a TV layout has two modes (thread, value), got 32:1}}
  %p = layout.partition %t, %tid {tv = #layout.cute<32:1>} : !T -> !layout.tensor<f32, #layout.cute<8:2048>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(32,16):(256,1)>, gmem>
func.func @partition_threads(%t: !T, %c: index) {
  layout.launch grid(%c, %c, %c) threads(16) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{TV layout ((4,8),4):((32,1),8) has 32 threads but the block has 16}}
    %p = layout.partition %t, %tid {tv = #layout.cute<((4,8),4):((32,1),8)>} : !T -> !layout.tensor<f32, #layout.cute<4:2048>, gmem>
  }
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @slice_count(%t: !T) {
  // expected-error @+1 {{1 coordinates for a view of 2 modes}}
  %r = layout.slice %t[3] : !T -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @slice_range(%t: !T) {
  // expected-error @+1 {{coordinate 64 is out of range for mode 64:256}}
  %r = layout.slice %t[64, _] : !T -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @slice_none(%t: !T) {
  // expected-error @+1 {{a slice keeps at least one mode (`_`)}}
  %r = layout.slice %t[1, 2] : !T -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @slice_layout(%t: !T) {
  // expected-error @+1 {{slice: expected layout 64:256, got 64:1}}
  %r = layout.slice %t[_, 1] : !T -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
  func.return
}

// -----

!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @slice_tuple_on_leaf(%t: !T) {
  // expected-error @+1 {{a coordinate of 2 elements for mode 64:256 of 1}}
  %r = layout.slice %t[(1, _), _] : !T -> !layout.tensor<f32, #layout.cute<64:1>, gmem>
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
func.func @slice_tuple_arity(%t: !A) {
  // expected-error @+1 {{a coordinate of 2 elements for mode (2,5,2):(2,13,100) of 3}}
  %r = layout.slice %t[_, (0, _)] : !A -> !layout.tensor<f32, #layout.cute<((3,2)):((4,1))>, gmem>
  func.return
}

// -----

!A = !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
func.func @slice_nested_range(%t: !A) {
  // expected-error @+1 {{coordinate 5 is out of range for mode 5:13}}
  %r = layout.slice %t[_, (0, 5, 1)] : !A -> !layout.tensor<f32, #layout.cute<((3,2)):((4,1))>, gmem>
  func.return
}

// -----

// A tile larger than a flat mode is one masked tile (Gluon's XBLOCK > xnumel); larger
// than a hierarchical mode it has no layout.
!N = !layout.tensor<f32, #layout.cute<((4,8),64):((1,4),32)>, gmem>
func.func @tile_past_nested(%a: !N, %i: index) {
  // expected-error @+1 {{tile extent 64 exceeds the hierarchical mode (4,8):(1,4) of size 32}}
  %t = layout.tile %a[%i, %i] {tile = array<i64: 64, 64>} : !N -> !layout.tensor<f32, #layout.cute<(64,64):(1,32)>, gmem, masked>
  func.return
}
