// RUN: tilec %s -p 'copy-strategy,tile{box_split=24}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=NONE
// RUN: tilec %s -p 'copy-strategy{box_smem=16384},tile{box_smem=16384 threads=64 box_split=16}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1891 --arg ds0=44030 --arg ds1=1190 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=132100 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=32768},tile{box_smem=32768 threads=64 box_split=16}' --check-equivalence --arg n0=2 --arg n1=37 --arg n2=53 --arg n3=17 --arg ss0=629 --arg ss2=1279 --arg ds0=34000 --arg ds1=907 --arg smis=9 --arg dmis=14 --arg src=69000 --arg dst=68100 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{box_split=8}' 2>&1 | filecheck %s --check-prefix=ERR
// A box<rows> copy of run-time strides (tilec.copy_'s program of the canonical 37 x 17
// copy): with box_split=24 the block's 58 steps are copied in three commit groups (steps
// 0-23, 24-47, 48 on: uncommitted copies, each group closed by a commit that waits for
// nothing), the first waited for before the barrier; phase 2 by the groups, a rolled loop
// of 3 trips, each trip but the last ending in the wait for the next group and a barrier.
// Without it, one wait. Equivalent in 2 groups (box of 22 steps at 64 threads) and 3
// (46 steps, a last block of 7).

// EQ: @tilec_copy: equivalent after
// ERR: tile: box_split=8 must be 0 or in [16, 1024]

// CHECK-LABEL: func.func @tilec_copy
// CHECK:         layout.copy_chunk_async {{.*}}uncommitted
// CHECK:         layout.async_wait {pending = 1 : i64, commit}
// CHECK:         layout.async_wait {pending = 2 : i64, commit}
// CHECK:         layout.async_wait {pending = 2 : i64, commit}
// CHECK-NEXT:    layout.barrier
// CHECK:         scf.for
// CHECK:         layout.async_wait {pending = 1 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK:         layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK:         } {tilec.unroll = 1 : i64}
// NONE-LABEL: func.func @tilec_copy
// NONE-NOT:      uncommitted
// NONE:          layout.async_wait {pending = 0 : i64}
// NONE-NEXT:     layout.barrier
// NONE-NOT:      layout.async_wait
builtin.module {
  func.func @tilec_copy(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n0: index, %n1: index, %n2: index, %n3: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index, %smis: index, %dmis: index) attributes {tilec.index_bits = 32 : i64} {
    %0 = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
    %1 = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
    %a = layout.view %0(%n0, %n1, %n2, %n3, %ss0, %ss2) {divisible = array<i64: 1, 37, 1, 17, 1, 1>, at_most = array<i64: 0, 37, 0, 17, 0, 0>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,1,?,37)>, gmem>
    %b = layout.view %1(%n0, %n1, %n2, %n3, %ds0, %ds1) {divisible = array<i64: 1, 37, 1, 17, 1, 1>, at_most = array<i64: 0, 37, 0, 17, 0, 0>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,?,17,1)>, gmem>
    layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,1,?,37)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,?,17,1)>, gmem>
    func.return
  }
}
