// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=NOTABLE
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1890 --arg ds0=44300 --arg ds1=1195 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=133000 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence --arg n0=1 --arg n1=37 --arg n2=130 --arg n3=17 --arg ss0=629 --arg ss2=674 --arg ds0=4000 --arg ds1=2219 --arg smis=18 --arg dmis=7 --arg src=88400 --arg dst=84400 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile' --check-equivalence --arg n0=1 --arg n1=37 --arg n2=130 --arg n3=17 --arg ss0=629 --arg ss2=675 --arg ds0=4000 --arg ds1=2219 --arg smis=18 --arg dmis=7 --arg src=88400 --arg dst=84400 2>&1 | filecheck %s --check-prefix=BROKEN
// tilec.copy_'s program of the canonical 37 x 17 box<rows> copy (strides as arguments)
// with the residues its key states (copy_key.ROWS_RESIDUES): the source step 2 mod 32
// and the destination run step 11 mod 16, promised by `divisible` and `residue`. The
// tile pass takes them as a Program's static strides of those residues
// (_box_tile.rows_residues): the slots at their runs' residues mod 32 (BOX_SLOT32), the
// pitch step and phase 2's run stride constants from _box_banks.rows_orders32 (step 3:
// a pitch of 706 bytes, runs 3 apart), no table looked up. Equivalent at two strides of
// those residues (small boxes, and a whole box); a stride of another residue breaks the
// promise in the executor.

// EQ: @tilec_copy: equivalent after
// BROKEN: not 2 modulo 32 as its `divisible` and `residue` entries promise

// NOTABLE-NOT: arith.shrui
// CHECK-LABEL: func.func @tilec_copy
// CHECK:         %[[M31:.*]] = arith.constant 31 : index
// CHECK-NEXT:    %[[S0:.*]] = arith.andi %{{.*}}, %[[M31]] : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[PITCH:.*]] = arith.constant 706 : index
// CHECK:         layout.barrier
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[C17:.*]] = arith.constant 17 : index
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[I]], %[[C17]] : index
// CHECK:           %[[QS:.*]] = arith.muli %[[Q]], %[[C3]] : index
// CHECK-NEXT:      %[[NW37:.*]] = arith.constant 37 : index
// CHECK-NEXT:      %[[QN:.*]] = arith.remui %[[QS]], %[[NW37]] : index
// CHECK-NEXT:      arith.muli %[[QN]], %ds1 : index
builtin.module {
  func.func @tilec_copy(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n0: index, %n1: index, %n2: index, %n3: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index, %smis: index, %dmis: index) attributes {tilec.index_bits = 32 : i64} {
    %0 = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
    %1 = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
    %a = layout.view %0(%n0, %n1, %n2, %n3, %ss0, %ss2) {divisible = array<i64: 1, 37, 1, 17, 1, 32>, at_most = array<i64: 0, 37, 0, 17, 0, 0>, residue = array<i64: 0, 0, 0, 0, 0, 2>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,1,?,37)>, gmem>
    %b = layout.view %1(%n0, %n1, %n2, %n3, %ds0, %ds1) {divisible = array<i64: 1, 37, 1, 17, 1, 16>, at_most = array<i64: 0, 37, 0, 17, 0, 0>, residue = array<i64: 0, 0, 0, 0, 0, 11>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,?,17,1)>, gmem>
    layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,1,?,37)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?,?,?):(?,?,17,1)>, gmem>
    func.return
  }
}
