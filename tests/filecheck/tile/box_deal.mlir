// RUN: tilec %s -p 'copy-strategy,tile{box_deal=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=PLAIN
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_deal=1}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1890 --arg ds0=44300 --arg ds1=1195 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=133000 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_deal=2}' | filecheck %s --check-prefix=TAIL
// RUN: tilec %s -p 'copy-strategy,tile{box_deal=2}' --check-equivalence --arg n0=1 --arg n1=37 --arg n2=130 --arg n3=17 --arg ss0=629 --arg ss2=674 --arg ds0=4000 --arg ds1=2219 --arg smis=18 --arg dmis=7 --arg src=88400 --arg dst=84400 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_deal=6}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1890 --arg ds0=44300 --arg ds1=1195 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=133000 | filecheck %s --check-prefix=EQ
// A box<rows> copy (tile/box_turn.mlir's: the canonical 37 x 17 copy, its strides'
// residues promised) with phase 2's items of the most chunk trips first (box_deal=1,
// _box_tile.ROWS_DEAL): 62 chunk trips over 17 residues, residues 0-10 four trips, 11-16
// three; the 37 x 11 = 407 long items first (item i: run i / 11, residue i mod 11),
// then the 222 short ones (item 407 + i: run i / 6, residue 11 + i mod 6), a loop each,
// thread t's second loop from the first of its items at or past 407; without the option
// one loop over the 629 items (run i / 17, residue i mod 17). box_deal=2: only the last
// 20 runs so (their 120 short items fill the last round of 117), runs 0-16's 289 items
// first in order: three loops. With 4 added (5, 6) each loop's items' trips are
// constants (4, 3). Equivalent in small boxes of 64 threads (1, 6) and a whole box (2).

// EQ: @tilec_copy: equivalent after

// CHECK-LABEL: func.func @tilec_copy
// CHECK:           %[[A:.*]] = arith.constant 407 : index
// CHECK-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %[[A]] step %{{.*}} {
// CHECK-NEXT:        %[[C11:.*]] = arith.constant 11 : index
// CHECK-NEXT:        %{{.*}} = arith.divui %[[I]], %[[C11]] : index
// CHECK:           %{{.*}} = arith.constant 662 : index
// CHECK:           scf.for %[[I2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[C407:.*]] = arith.constant -407 : index
// CHECK-NEXT:        %[[R:.*]] = arith.addi %[[I2]], %[[C407]] : index
// CHECK-NEXT:        %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:        %{{.*}} = arith.divui %[[R]], %[[C6]] : index
// TAIL-LABEL: func.func @tilec_copy
// TAIL:           %[[A:.*]] = arith.constant 289 : index
// TAIL-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %[[A]] step %{{.*}} {
// TAIL-NEXT:        %[[C17:.*]] = arith.constant 17 : index
// TAIL-NEXT:        %{{.*}} = arith.divui %[[I]], %[[C17]] : index
// TAIL:           %[[B:.*]] = arith.constant 509 : index
// TAIL-NEXT:      scf.for %[[I2:.*]] = %{{.*}} to %[[B]] step %{{.*}} {
// TAIL-NEXT:        %[[C289:.*]] = arith.constant -289 : index
// TAIL-NEXT:        %{{.*}} = arith.addi %[[I2]], %[[C289]] : index
// TAIL:             %[[C509:.*]] = arith.constant -509 : index
// TAIL-NEXT:        %{{.*}} = arith.addi %{{.*}}, %[[C509]] : index
// PLAIN-LABEL: func.func @tilec_copy
// PLAIN-NOT:     arith.constant 662 : index
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
