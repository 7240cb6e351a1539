// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=MOD16
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=0}' | filecheck %s --check-prefix=MOD16
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_slot32=1}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1891 --arg ds0=44030 --arg ds1=1190 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=132100 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_slot32=1}' --check-equivalence --arg n0=2 --arg n1=37 --arg n2=23 --arg n3=17 --arg ss0=629 --arg ss2=1279 --arg ds0=15000 --arg ds1=400 --arg smis=25 --arg dmis=14 --arg src=30200 --arg dst=30000 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=1}' --check-equivalence --arg n0=1 --arg n1=37 --arg n2=130 --arg n3=17 --arg ss0=629 --arg ss2=658 --arg ds0=4000 --arg ds1=2215 --arg smis=18 --arg dmis=7 --arg src=86000 --arg dst=84000 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=0 box_runs=3}' | filecheck %s --check-prefix=RUNS
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_slot32=1 box_pitch=3 box_runs=3}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1891 --arg ds0=44030 --arg ds1=1190 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=132100 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_runs=34}' --check-equivalence --arg n0=1 --arg n1=37 --arg n2=130 --arg n3=17 --arg ss0=629 --arg ss2=658 --arg ds0=4000 --arg ds1=2215 --arg smis=18 --arg dmis=7 --arg src=86000 --arg dst=84000 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{box_runs=37}' 2>&1 | filecheck %s --check-prefix=ERR
// A box<rows> copy whose source step is read at run time (tilec.copy_'s program of the
// canonical 37 x 17 copy, strides as arguments) with its slots at their runs' residues
// mod 32 (box_slot32=1; by rule only where the strides are static: _box_tile.BOX_SLOT32,
// here mod 16 without it): the first slot at the first
// run's address mod 32, the pitch step and phase 2's run stride looked up by the source
// step mod 32 and the destination run step mod 16 (_box_banks.rows_orders32: two tables
// of two halves each, the half of bit 4 selected; the stride's index into a packed
// constant of strides, 6 bits each), item (q, j) on run A q mod 37; with box_slot32=0
// mod 16, the table by the step mod 16 (rows_steps), in order. Equivalent at source
// steps 3 and 31 mod 32 (bit 4 clear and set) in small boxes, and in a whole box at 18.
// With box_runs=A the stride forced (a warp's two runs A bytes apart in a slot:
// _box_tile.ROWS_RUN_STRIDE); A must be coprime to the 37 runs.

// EQ: @tilec_copy: equivalent after
// ERR: tile: box_runs=37 must be coprime to the box's 37 destination runs

// CHECK-LABEL: func.func @tilec_copy
// CHECK:         %[[M31:.*]] = arith.constant 31 : index
// CHECK-NEXT:    %[[S0:.*]] = arith.andi %{{.*}}, %[[M31]] : index
// CHECK:         %[[M31B:.*]] = arith.constant 31 : index
// CHECK-NEXT:    %[[R:.*]] = arith.andi %ss2, %[[M31B]] : index
// CHECK:         %[[R64:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK:         %[[HALF:.*]] = arith.cmpi ult, %[[R64]], %{{.*}} : i64
// CHECK:         arith.select %[[HALF]], %{{.*}}, %{{.*}} : i64
// CHECK:         %[[M63:.*]] = arith.constant 63 : index
// CHECK-NEXT:    %[[STRIDE:.*]] = arith.andi %{{.*}}, %[[M63]] : index
// CHECK:         %[[QS:.*]] = arith.muli %{{.*}}, %[[STRIDE]] : index
// CHECK-NEXT:    %[[NW37:.*]] = arith.constant 37 : index
// CHECK-NEXT:    %[[QN:.*]] = arith.remui %[[QS]], %[[NW37]] : index
// CHECK-NEXT:    arith.muli %[[QN]], %ds1 : index
// RUNS-LABEL: func.func @tilec_copy
// RUNS:          layout.barrier
// RUNS:          scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// RUNS-NEXT:       %[[C17:.*]] = arith.constant 17 : index
// RUNS-NEXT:       %[[Q:.*]] = arith.divui %[[I]], %[[C17]] : index
// RUNS:            %[[QA:.*]] = arith.muli %[[Q]], %{{.*}} : index
// RUNS-NEXT:       %[[NW:.*]] = arith.constant 37 : index
// RUNS-NEXT:       %[[QR:.*]] = arith.remui %[[QA]], %[[NW]] : index
// RUNS-NEXT:     arith.muli %[[QR]], %ds1 : index
// MOD16-LABEL: func.func @tilec_copy
// MOD16-NOT:     arith.cmpi ult, %{{.*}}, %{{.*}} : i64
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

