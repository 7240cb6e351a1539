// TMA copies and mbarriers (dialects/layout_tma.py): round trip and verifier errors.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: tilec %S/../tma/round_trip.mlir -p tma | tilec | filecheck %s

// CHECK-LABEL: func.func @round_trip
// CHECK:      %{{.*}} = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: layout.mbarrier_arrive %{{.*}} {tx = 16384 : i64}
// CHECK-NEXT: layout.tma_load %ta, %s, %{{.*}} : {{.*}}, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
// CHECK:      layout.mbarrier_wait %{{.*}}, %{{.*}}
// CHECK:      layout.tma_store %s, %tb : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>, {{.*}}
// CHECK-NEXT: layout.tma_store_wait {pending = 0 : i64}

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @count_zero(%src: !layout.ptr<f32, align 16>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{an mbarrier's arrival count must be in [1, 2^20), got 0}}
    %bar = layout.mbarrier_init {count = 0 : i64}
  }
  func.return
}

// -----

func.func @outside_launch() {
  // expected-error @+1 {{layout.mbarrier_init must be inside a layout.launch}}
  %bar = layout.mbarrier_init {count = 1 : i64}
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @misaligned_pointer(%src: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{layout.tma_load: TMA cannot copy these views: the tensor's base is aligned to 4 bytes, TMA needs 16}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @l2_promotion(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{tma_load's l2_promotion must be 0, 64, 128 or 256 bytes, got 100}}
    layout.tma_load %ta, %s, %bar {l2_promotion = 100 : i64} : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,255):(255,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(255,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @row_stride_not_16_bytes(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the stride of mode 0 is 1020 bytes, not a multiple of 16}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(1024,1024):(1024,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(512,4):(1024,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(512,4):(4,1)>, smem>
func.func @box_too_tall(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 512, 4>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{box extent 512 of mode 0 is outside [1, 256]}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,2):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,2):(2,1)>, smem>
func.func @inner_box_8_bytes(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 2>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the box's contiguous extent is 8 bytes, not a multiple of 16}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,32):(33,1)>, smem>
func.func @padded_smem(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the shared-memory layout is not the box stored compact (contiguous mode first)}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,48):(256,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (32,48):(48,1)>, smem>
func.func @swizzle_narrower_than_box(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 48>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the box's contiguous extent (192 bytes) is wider than the 128-byte swizzle and not a multiple of it}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (64,64):(64,1)>, smem>
func.func @wide_rows_not_nvmma_tiles(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the shared-memory layout is not the box stored compact (contiguous mode first, 128-byte swizzle)}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,4,3> o 0 o (32,32):(32,1)>, smem>
func.func @swizzle_tma_cannot_write(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the shared-memory swizzle Swizzle<3,4,3> (offset 0) is not one TMA writes}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @store_direction(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    // expected-error @+1 {{tma_store copies smem to gmem, got gmem -> smem}}
    layout.tma_store %ta, %s : !T, !S
  }
  func.return
}

// -----

func.func @store_wait_pending() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{tma_store_wait pending must be in [0, 7], got 8}}
    layout.tma_store_wait {pending = 8 : i64}
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
!V = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @smem_not_alloc(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %s = layout.alloc : !S
    %v = layout.view %s : !S -> !V
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{the shared side of a TMA copy must be a layout.alloc}}
    layout.tma_load %ta, %v, %bar : !T, !V
  }
  func.return
}

// -----

func.func @arrive_tx_too_large() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{tx must be in [0, 2^20) bytes, got 1048576}}
    layout.mbarrier_arrive %bar {tx = 1048576 : i64}
  }
  func.return
}

// -----

// Two dynamic strides after a dynamic extent: `divisible` lists the shape's values,
// then the strides' in mode order, so mode 1's stride is the third entry (promised a
// multiple of 4 elements here: 16 bytes) and the copy verifies.
!G = !layout.tensor<f32, #layout.cute<(?,8,64):(?,?,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,8,64):(?,?,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(1,8,64):(512,64,1)>, smem>
func.func @second_dynamic_stride_promised(%src: !layout.ptr<f32, align 16>, %m: index, %s0: index, %s1: index) {
  %a = layout.view %src(%m, %s0, %s1) {divisible = array<i64: 1, 4, 4>} : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0, %c0] {tile = array<i64: 1, 8, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

// The same view with the promise on the extent instead: mode 1's stride (the last
// entry, 1) is not promised 16 bytes.
!G = !layout.tensor<f32, #layout.cute<(?,8,64):(?,?,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,8,64):(?,?,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(1,8,64):(512,64,1)>, smem>
func.func @second_dynamic_stride_not_promised(%src: !layout.ptr<f32, align 16>, %m: index, %s0: index, %s1: index) {
  %a = layout.view %src(%m, %s0, %s1) {divisible = array<i64: 4, 4, 1>} : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0, %c0] {tile = array<i64: 1, 8, 64>} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    // expected-error @+1 {{TMA cannot copy these views: the stride of mode 1 is dynamic and not promised to be a multiple of 16 bytes}}
    layout.tma_load %ta, %s, %bar : !T, !S
  }
  func.return
}

// -----

// a part of a 64-byte-swizzled buffer 4 rows in (256 bytes): not at the swizzle's 512-byte repeat
!G = !layout.tensor<f16, #layout.cute<(128,32):(32,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(4,32):(32,1)>, gmem>
!S = !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 0 o (64,32):(32,1)>, smem>
!P = !layout.tensor<f16, #layout.composed<swizzle<2,3,3> o 0 o (4,32):(32,1)>, smem>
func.func @part_off_the_swizzle_repeat(%src: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %h = layout.tile %a[%c1, %c0] {tile = array<i64: 4, 32>} : !G -> !H
    %p = layout.tile %s[%c1, %c0] {tile = array<i64: 4, 32>} : !S -> !P
    // expected-error @+1 {{the shared tile starts 256 bytes into its buffer, not a multiple of 512}}
    layout.tma_load %h, %p, %bar : !H, !P
  }
  func.return
}

// -----

// a part of the buffer that may lie past its end (masked)
!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(48,64):(256,1)>, gmem, masked>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
!P = !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, smem, masked>
func.func @masked_part(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %t = layout.tile %a[%c0, %c0] {tile = array<i64: 48, 64>} : !G -> !T
    %p = layout.tile %s[%c0, %c0] {tile = array<i64: 48, 64>} : !S -> !P
    // expected-error @+1 {{the shared side is a masked tile (it must lie inside its buffer)}}
    layout.tma_load %t, %p, %bar : !T, !P
  }
  func.return
}
