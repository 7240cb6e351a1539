// layout.mma_wait with `after`: the wait of an async mma issued after a value computed
// while the mma runs (FlashAttention-3's softmax under P V). It round-trips; lowered, its
// `cuda.wgmma_wait_group` takes the value's registers as `after`, and the CUDA is one
// NaN-predicated fence.proxy.async on them right before the wgmma.wait_group (ptxas keeps
// the wait after it, so the sum is computed before the wait is issued). The executor
// runs it the same before and after the default pipeline (`after` orders the GPU only).
// RUN: tilec %s | tilec | filecheck %s --check-prefix=RT
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @wait_after: equivalent after 'default'

// RT-LABEL: func.func @wait_after
// RT:       %s = layout.mma %sa, %sb, %zero {async}
// RT-NEXT:  %x = arith.addf %y, %y
// RT-NEXT:  %w = layout.mma_wait %s after %x {pending = 0 : i64} : tensor<64x64xf32, {{.*}}> after tensor<16x32xf32, {{.*}}>
// RT-NEXT:  layout.mma_wait after %x {pending = 0 : i64} : after tensor<16x32xf32, {{.*}}>

// CHECK-LABEL: // kernel
// CHECK:       asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
// the thread's 4 registers of %x (16 x 32 over 128 threads):
// CHECK:       asm volatile("{ .reg .pred p; setp.neu.f32 p, %0, %0; setp.neu.or.f32 p, %1, %1, p; setp.neu.or.f32 p, %2, %2, p; setp.neu.or.f32 p, %3, %3, p; @p fence.proxy.async.shared::cta; }" :: "f"([[X0:t_[0-9]+]]), "f"({{t_[0-9]+}}), "f"({{t_[0-9]+}}), "f"({{t_[0-9]+}}) : "memory");
// CHECK-NEXT:  float w = d, {{.*}};
// CHECK-NEXT:  asm volatile("wgmma.wait_group.sync.aligned 0;"
// the wait with no accumulator, after the same registers:
// CHECK:       asm volatile("{ .reg .pred p; setp.neu.f32 p, %0, %0; {{.*}} @p fence.proxy.async.shared::cta; }" :: "f"([[X0]]), {{.*}} : "memory");
// CHECK-NEXT:  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!ACC = tensor<64x64xf32, #mma>
!ACC2 = tensor<16x32xf32, #blk>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!GY = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @wait_after(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>, %py: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %gy = layout.view %py : !layout.ptr<f32, align 16> -> !GY
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    layout.copy %a, %sa : !GA, !SA
    layout.copy %b, %sb : !GB, !SB
    layout.barrier
    %zero = layout.load %c : !GC -> !ACC
    %y = layout.load %gy : !GY -> !ACC2
    %s = layout.mma %sa, %sb, %zero {async} : !SA, !SB, !ACC
    %x = arith.addf %y, %y : !ACC2
    %w = layout.mma_wait %s after %x {pending = 0 : i64} : !ACC after !ACC2
    layout.mma_wait after %x {pending = 0 : i64} : after !ACC2
    layout.store %w, %c : !ACC, !GC
    layout.store %x, %gy : !ACC2, !GY
  }
  func.return
}
