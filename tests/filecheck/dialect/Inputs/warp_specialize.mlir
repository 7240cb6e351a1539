func.func @roles(%pa: !layout.ptr<f32, align 16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(384) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %full = layout.mbarrier_init {count = 1 : i64}
    %empty = layout.mbarrier_init {count = 2 : i64}
    layout.warp_specialize warpgroups(2, 1) {
      layout.setmaxnreg inc 232
      layout.mbarrier_wait %full, %c0
      layout.mbarrier_arrive %empty
      layout.named_barrier sync 3, 384
    }, {
      layout.setmaxnreg dec 40
      layout.mbarrier_arrive %full
      layout.named_barrier arrive 3, 384
    }
  }
  func.return
}

"gpu.module"() <{sym_name = "k"}> ({
  "gpu.func"() <{function_type = () -> ()}> ({
    cuda.warp_specialize warpgroups(1, 2) {
      cuda.setmaxnreg dec 24
    }, {
      cuda.setmaxnreg inc 256
      cuda.named_barrier {id = 2 : i64, threads = 256 : i64}
      cuda.named_barrier {arrive, id = 3 : i64, threads = 384 : i64}
    }
    "gpu.return"() : () -> ()
  }) {sym_name = "f", gpu.kernel} : () -> ()
}) : () -> ()

func.func @apart() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(512) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(3, 1) apart(0) {
      %w = layout.warpgroup_index
    }, {
      layout.named_barrier arrive 5, 128
    }
  }
  func.return
}

"gpu.module"() <{sym_name = "k2"}> ({
  "gpu.func"() <{function_type = (index) -> ()}> ({
  ^bb0(%w: index):
    cuda.warp_specialize warpgroups(3, 1) apart(0) {
      cuda.named_barrier(%w) {id = 1 : i64, threads = 128 : i64}
    }, {
      cuda.setmaxnreg dec 40
    }
    "gpu.return"() : () -> ()
  }) {sym_name = "g", gpu.kernel} : () -> ()
}) : () -> ()
