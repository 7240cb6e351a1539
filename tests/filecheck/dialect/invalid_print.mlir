// layout.print and cuda.printf: verifier errors (round trip: print.mlir).
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: error: 'layout.print': layout.print runs inside a layout.launch (thread 0 of block 0 prints)
!T = !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
func.func @outside_launch(%t: !T) {
  // expected-error @+1 {{layout.print runs inside a layout.launch (thread 0 of block 0 prints)}}
  layout.print %t : !T
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @too_large(%g: !G) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.print prints at most 1024 values (a debug print of a tile); this view has 4096: print a tile or slice of it}}
    layout.print %g : !G
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(10,10):(10,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(4,4):(10,1)>, gmem, masked>
func.func @masked(%g: !G) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %t = layout.tile %g[%bx, %by] {tile = array<i64: 4, 4>} : !G -> !T
    // expected-error @+1 {{layout.print of a masked view: its elements past the tensor's edge have no value; print a view inside the tensor}}
    layout.print %t : !T
  }
  func.return
}

// -----

!D = !layout.tensor<f32, #layout.cute<(?,8):(8,1)>, gmem>
func.func @dynamic(%p: !layout.ptr<f32>, %n: index) {
  %d = layout.view %p(%n) : !layout.ptr<f32> -> !D
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.print needs static extents, not (?,8):(8,1)}}
    layout.print %d : !D
  }
  func.return
}

// -----

#b = #layout.blocked<{sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @too_many_registers(%g: !G) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %g : !G -> tensor<64x64xf32, #b>
    // expected-error @+1 {{layout.print prints at most 1024 values (a debug print of a tile); the threads of tensor<64x64xf32, #layout.blocked<{sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>> hold 8192}}
    layout.print %x : tensor<64x64xf32, #b>
  }
  func.return
}

// -----

func.func @not_distributed(%x: tensor<4xf32>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.print prints a view or a distributed tensor, not tensor<4xf32>}}
    layout.print %x : tensor<4xf32>
  }
  func.return
}

// -----

func.func @printf_type(%x: f16) {
  // expected-error @+1 {{'cuda.printf' prints f32, f64, i32 or i64 values, not f16}}
  cuda.printf "%g\n" %x : f16
  func.return
}
