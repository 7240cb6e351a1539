// The cuda target on layout.named_barrier (dialects/layout_roles.py): two regions take
// turns through a shared buffer, FlashAttention-3's pingpong of consumer warpgroups
// (tests/unit/test_named_barrier.py's `_pingpong`): region 0 gives itself the first
// turn (bar.arrive 4), each region waits for its turn (bar.sync 4 + c) and hands it to
// the other (bar.arrive 5 - c). Equivalent after `default` (the executor counts the
// barriers' arrivals at both levels).
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: // @pingpong: equivalent after 'default'

// CHECK-LABEL: // kernel pingpong_kernels::pingpong_kernel: 32-bit indices, block (256, 1, 1)
// CHECK:       if (threadIdx.x < 128) {  // warpgroup 0
// CHECK:         asm volatile("bar.arrive 4, 256;" ::: "memory");
// CHECK:         for (
// CHECK-NEXT:      asm volatile("bar.sync 4, 256;" ::: "memory");
// CHECK:           asm volatile("bar.arrive 5, 256;" ::: "memory");
// CHECK:       } else {  // warpgroup 1
// CHECK:         for (
// CHECK-NEXT:      asm volatile("bar.sync 5, 256;" ::: "memory");
// CHECK:           asm volatile("bar.arrive 4, 256;" ::: "memory");

#L = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @pingpong(%a: !layout.ptr<f32, align 16>, %out: !layout.ptr<f32, align 16>) {
  %ga = layout.view %a : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
  %go = layout.view %out : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.000000e+00 : f32
  %two = arith.constant 2.000000e+00 : f32
  layout.launch grid(%c2, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %buf = layout.alloc : !layout.tensor<f32, #layout.cute<(128):(1)>, smem>
    layout.warp_specialize warpgroups(1, 1) {
      %x0 = layout.load %ga : !layout.tensor<f32, #layout.cute<(128):(1)>, gmem> -> tensor<128xf32, #L>
      layout.store %x0, %buf : tensor<128xf32, #L>, !layout.tensor<f32, #layout.cute<(128):(1)>, smem>
      layout.named_barrier arrive 4, 256
      scf.for %i = %c0 to %c3 step %c1 {
        layout.named_barrier sync 4, 256
        %x = layout.load %buf : !layout.tensor<f32, #layout.cute<(128):(1)>, smem> -> tensor<128xf32, #L>
        %s = layout.splat %one : f32 -> tensor<128xf32, #L>
        %y = arith.addf %x, %s : tensor<128xf32, #L>
        layout.store %y, %buf : tensor<128xf32, #L>, !layout.tensor<f32, #layout.cute<(128):(1)>, smem>
        layout.named_barrier arrive 5, 256
      }
    }, {
      scf.for %i = %c0 to %c3 step %c1 {
        layout.named_barrier sync 5, 256
        %x = layout.load %buf : !layout.tensor<f32, #layout.cute<(128):(1)>, smem> -> tensor<128xf32, #L>
        %s = layout.splat %two : f32 -> tensor<128xf32, #L>
        %y = arith.mulf %x, %s : tensor<128xf32, #L>
        layout.store %y, %buf : tensor<128xf32, #L>, !layout.tensor<f32, #layout.cute<(128):(1)>, smem>
        layout.named_barrier arrive 4, 256
      }
      %r = layout.load %buf : !layout.tensor<f32, #layout.cute<(128):(1)>, smem> -> tensor<128xf32, #L>
      layout.store %r, %go : tensor<128xf32, #L>, !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
    }
  }
  func.return
}
