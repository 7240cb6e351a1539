// RUN: tilec %s -p 'copy-strategy,tile{box_turn=5}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{box_turn=-1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=PLAIN
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_turn=5}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1890 --arg ds0=44300 --arg ds1=1195 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=133000 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_turn=5}' --check-equivalence --arg n0=1 --arg n1=37 --arg n2=130 --arg n3=17 --arg ss0=629 --arg ss2=674 --arg ds0=4000 --arg ds1=2219 --arg smis=18 --arg dmis=7 --arg src=88400 --arg dst=84400 | filecheck %s --check-prefix=EQ
// A box<rows> copy (tile/box_rows_residues.mlir's: the canonical 37 x 17 copy, its
// strides' residues promised) with phase 2's rounds of items turned (box_turn=5,
// _box_tile.ROWS_TURN): 629 items over 256 threads in 3 rounds (a rolled loop), round
// r's M_r items (256, 256, 117) turned by 5 r mod M_r (0, 5, 10), thread t on item
// 256 r + (t + 5 r) mod M_r where t < M_r (-1: the turn of the fewest trips a thread,
// _box_tile.rows_turn_best, 5 here); without it the loop over items t, t + 256, ...
// Equivalent in small boxes (64 threads, rounds of 64 and a shorter last) and a whole box.

// EQ: @tilec_copy: equivalent after

// CHECK-LABEL: func.func @tilec_copy
// CHECK:           %[[C117:.*]] = arith.constant 117 : index
// CHECK-NEXT:      %[[M:.*]] = arith.select %{{.*}}, %[[C117]], %{{.*}} : index
// CHECK:           %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:      %[[OFF1:.*]] = arith.select %{{.*}}, %[[C5]], %{{.*}} : index
// CHECK:           %[[C10:.*]] = arith.constant 10 : index
// CHECK-NEXT:      %[[OFF:.*]] = arith.select %{{.*}}, %[[C10]], %[[OFF1]] : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[LOC:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[LOC]], %[[M]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[LOC]], %[[M]] : index
// CHECK-NEXT:        %[[LOC2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[LOC]] : index
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:        %[[IDX:.*]] = arith.addi %[[BASE]], %[[LOC2]] : index
// CHECK:           } {tilec.unroll = 1 : i64}
// PLAIN-LABEL: func.func @tilec_copy
// PLAIN-NOT:     tilec.unroll = 1
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
