// Warp specialisation (dialects/layout_roles.py, dialects/cuda_roles.py): round trip and
// verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/Inputs/warp_specialize.mlir | tilec | filecheck %s

// CHECK-LABEL: func.func @roles
// CHECK:      layout.warp_specialize warpgroups(2, 1) {
// CHECK-NEXT:   layout.setmaxnreg inc 232
// CHECK-NEXT:   layout.mbarrier_wait %full, %c0
// CHECK-NEXT:   layout.mbarrier_arrive %empty
// CHECK-NEXT:   layout.named_barrier sync 3, 384
// CHECK-NEXT: }, {
// CHECK-NEXT:   layout.setmaxnreg dec 40
// CHECK-NEXT:   layout.mbarrier_arrive %full
// CHECK-NEXT:   layout.named_barrier arrive 3, 384
// CHECK-NEXT: }
// CHECK-LABEL: "gpu.func"()
// CHECK:      cuda.warp_specialize warpgroups(1, 2) {
// CHECK-NEXT:   cuda.setmaxnreg dec 24
// CHECK-NEXT: }, {
// CHECK-NEXT:   cuda.setmaxnreg inc 256
// CHECK-NEXT:   cuda.named_barrier {id = 2 : i64, threads = 256 : i64}
// CHECK-NEXT:   cuda.named_barrier {arrive, id = 3 : i64, threads = 384 : i64}
// CHECK-NEXT: }
// CHECK-LABEL: func.func @apart
// CHECK:      layout.warp_specialize warpgroups(3, 1) apart(0) {
// CHECK-NEXT:   %{{.*}} = layout.warpgroup_index
// CHECK-NEXT: }, {
// CHECK-NEXT:   layout.named_barrier arrive 5, 128
// CHECK-NEXT: }
// CHECK-LABEL: sym_name = "k2"
// CHECK:      cuda.warp_specialize warpgroups(3, 1) apart(0) {
// CHECK-NEXT:   cuda.named_barrier(%{{.*}}) {id = 1 : i64, threads = 128 : i64}
// CHECK-NEXT: }, {
// CHECK-NEXT:   cuda.setmaxnreg dec 40
// CHECK-NEXT: }

func.func @not_whole_block() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{the regions' 3 warpgroups must be the whole 1-D block (384 threads), the block has 256}}
    layout.warp_specialize warpgroups(2, 1) {
    }, {
    }
  }
  func.return
}

// -----

func.func @one_region() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.warp_specialize needs at least 2 regions, got 1}}
    layout.warp_specialize warpgroups(1) {
    }
  }
  func.return
}

// -----

func.func @count_mismatch() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(384) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{warpgroups has 3 counts for 2 regions}}
    layout.warp_specialize warpgroups(1, 1, 1) {
    }, {
    }
  }
  func.return
}

// -----

func.func @block_barrier_inside() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{'layout.barrier' meets the whole block: it cannot be inside a layout.warp_specialize region}}
    layout.warp_specialize warpgroups(1, 1) {
      layout.barrier
    }, {
    }
  }
  func.return
}

// -----

func.func @mbarrier_init_inside() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{'layout.mbarrier_init' meets the whole block}}
    layout.warp_specialize warpgroups(1, 1) {
      %b = layout.mbarrier_init {count = 1 : i64}
    }, {
    }
  }
  func.return
}

// -----

func.func @outside_launch() {
  // expected-error @+1 {{layout.warp_specialize must be inside a layout.launch}}
  layout.warp_specialize warpgroups(1, 1) {
  }, {
  }
  func.return
}

// -----

func.func @not_directly_in_launch(%p: i1) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    scf.if %p {
      // expected-error @+1 {{layout.warp_specialize must be directly in the layout.launch body}}
      layout.warp_specialize warpgroups(1, 1) {
      }, {
      }
    }
  }
  func.return
}

// -----

func.func @regs_not_multiple_of_8() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      // expected-error @+1 {{setmaxnreg register count must be a multiple of 8 in [24, 256], got 100}}
      layout.setmaxnreg inc 100
    }, {
    }
  }
  func.return
}

// -----

func.func @regs_too_few() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
    }, {
      // expected-error @+1 {{setmaxnreg register count must be a multiple of 8 in [24, 256], got 16}}
      layout.setmaxnreg dec 16
    }
  }
  func.return
}

// -----

func.func @not_uniform(%p: i1) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      scf.if %p {
        // expected-error @+1 {{setmaxnreg must be warpgroup-uniform: directly in a layout.warp_specialize region (not under scf.if)}}
        layout.setmaxnreg inc 232
      }
    }, {
    }
  }
  func.return
}

// -----

func.func @outside_region() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{setmaxnreg must be warpgroup-uniform: directly in a layout.warp_specialize region (not under layout.launch)}}
    layout.setmaxnreg dec 40
  }
  func.return
}

// -----

func.func @bad_action() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      // expected-error @+1 {{setmaxnreg action must be inc or dec, got set}}
      layout.setmaxnreg set 40
    }, {
    }
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!V = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
func.func @layout_spans_the_block_not_the_region(%p: !layout.ptr<bf16, align 16>) {
  %v = layout.view %p : !layout.ptr<bf16, align 16> -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(384) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(2, 1) {
      %z = arith.constant dense<0.0> : tensor<64x64xbf16, #mma>
      // expected-error @+1 {{spans 128 threads but the block has 256}}
      layout.store %z, %v : tensor<64x64xbf16, #mma>, !V
    }, {
    }
  }
  func.return
}

// -----

"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = () -> ()}> ({
    // expected-error @+1 {{'cuda.setmaxnreg' must be directly in a cuda.warp_specialize region}}
    cuda.setmaxnreg dec 40
    "gpu.return"() : () -> ()
  }) {sym_name = "f", gpu.kernel} : () -> ()
}) : () -> ()

// -----

"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = () -> ()}> ({
    cuda.warp_specialize warpgroups(1, 1) {
      // expected-error @+1 {{'cuda.setmaxnreg' takes inc or dec and a multiple of 8 in [24, 256], got inc 260}}
      cuda.setmaxnreg inc 260
    }, {
    }
    "gpu.return"() : () -> ()
  }) {sym_name = "f", gpu.kernel} : () -> ()
}) : () -> ()

// -----

"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = () -> ()}> ({
    // expected-error @+1 {{'cuda.named_barrier' id must be in [0, 16), got 16}}
    cuda.named_barrier {id = 16 : i64, threads = 128 : i64}
    "gpu.return"() : () -> ()
  }) {sym_name = "f", gpu.kernel} : () -> ()
}) : () -> ()

// -----

"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = () -> ()}> ({
    // expected-error @+1 {{'cuda.named_barrier' threads must be a positive multiple of 32, got 100}}
    cuda.named_barrier {id = 1 : i64, threads = 100 : i64}
    "gpu.return"() : () -> ()
  }) {sym_name = "f", gpu.kernel} : () -> ()
}) : () -> ()

// -----

func.func @named_barrier_id_of_a_region() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(384) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1, 1) {
      // expected-error @+1 {{named_barrier id must be in [4, 16) (0 is __syncthreads's, 1..3 the regions' own), got 3}}
      layout.named_barrier sync 3, 256
    }, {
    }, {
    }
  }
  func.return
}

// -----

func.func @named_barrier_threads() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(384) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1, 1) {
      // expected-error @+1 {{named_barrier threads must be a multiple of 128 (whole warpgroups) in [128, 384] (the block's threads), got 192}}
      layout.named_barrier arrive 4, 192
    }, {
    }, {
    }
  }
  func.return
}

// -----

func.func @named_barrier_threads_beyond_the_block() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      // expected-error @+1 {{named_barrier threads must be a multiple of 128 (whole warpgroups) in [128, 256] (the block's threads), got 512}}
      layout.named_barrier sync 4, 512
    }, {
    }
  }
  func.return
}

// -----

func.func @named_barrier_outside_a_region() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.named_barrier orders warp_specialize regions: it must be inside one}}
    layout.named_barrier sync 4, 128
  }
  func.return
}

// -----

func.func @named_barrier_mode() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      // expected-error @+1 {{named_barrier mode must be sync or arrive, got wait}}
      layout.named_barrier wait 4, 256
    }, {
    }
  }
  func.return
}

// -----

func.func @warpgroup_index_not_apart() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      // expected-error @+1 {{layout.warpgroup_index must be inside a layout.warp_specialize region run apart (apart(...))}}
      %w = layout.warpgroup_index
    }, {
    }
  }
  func.return
}

// -----

func.func @apart_out_of_range() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(512) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{apart lists regions in increasing order, each once (of 2), got [2]}}
    layout.warp_specialize warpgroups(3, 1) apart(2) {
    }, {
    }
  }
  func.return
}

// -----

func.func @named_barrier_of_a_region_apart() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(512) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(3, 1) apart(0) {
    }, {
      // expected-error @+1 {{named_barrier id must be in [5, 16) (0 is __syncthreads's, 1..4 the regions' own), got 4}}
      layout.named_barrier arrive 4, 128
    }
  }
  func.return
}
