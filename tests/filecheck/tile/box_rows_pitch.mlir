// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{box_pitch=-1}' | filecheck %s --check-prefix=OLD
// RUN: tilec %s -p 'copy-strategy,tile{box_pitch=5}' | filecheck %s --check-prefix=FIVE
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_pitch=-1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_pitch=7}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_grain=16}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_grain=16}' | filecheck %s --check-prefix=GRAIN
// RUN: not tilec %s -p 'copy-strategy,tile{box_pitch=8}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_depth=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_slot32=1 box_pitch=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_slot32=1 box_pitch=-1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_slot32=1 box_depth=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// Where a box<rows> copy places its slots (the tile option box_pitch,
// passes/_box_banks.py): run k's byte b at s0 + pitch k + b, the pitch congruent to
// the source step ss_K mod 16 (cp.async chunks stay whole) and its residue mod 128 the
// step with the fewest modelled bank conflicts for (ss_K, ds_W) mod 16; box_pitch=S
// forces step S (16 S bytes past the least pitch), -1 session 35's layout (each slot
// at a multiple of 16 bytes plus its run's residue). W = 37, D = 17: runs of 629
// bytes, the least pitch 656 + (ss_K mod 16).

// EQ: @rows: equivalent after
// EQ: @rows_dynamic: equivalent after
// ERR: tile: box_pitch=8 must be in [-1, 7]

// box_grain=16: a block stages one step more than its own and writes the chunks that
// start in its range (the first block also the one holding the row's first byte),
// whole within the destination row.
// GRAIN-LABEL: func.func @rows
// GRAIN:         layout.launch
// GRAIN:           arith.minui
// GRAIN:           scf.for
// GRAIN:             arith.cmpi sge
// GRAIN:             arith.ori
// GRAIN:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>

// ss_K = 700 (12 mod 16), ds_W = 1190 (6): the model's step 0 of the steps that keep
// 15/16 of the box's runs (0 to 2: rows_steps(37, 17, 2)[12][6]), a pitch of 656 + 12;
// box_pitch=5: 656 + 12 + 80; -1: slots 656 apart.
// CHECK-LABEL: func.func @rows
// CHECK:         layout.launch
// CHECK:           %[[P:.*]] = arith.constant 668 : index
// CHECK-NOT:       arith.shrui
// CHECK:           arith.muli %{{.*}}, %[[P]] : index
// FIVE-LABEL: func.func @rows
// FIVE:           arith.constant 748 : index
// OLD-LABEL: func.func @rows
// OLD-NOT:        arith.constant 668 : index
// OLD:            arith.constant 656 : index
func.func @rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,37,70,17):(49000,1,700,37)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,37,70,17):(44030,1190,17,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,37,70,17):(49000,1,700,37)>, gmem>, !layout.tensor<i8, #layout.cute<(3,37,70,17):(44030,1190,17,1)>, gmem>
  func.return
}

// The strides run-time values (tilec.copy_'s program): the step looked up in the
// kernel, the 16 steps of each ds_W mod 16 packed 3 bits each into a 48-bit constant,
// the one of ds_W selected and shifted by 3 (ss_K mod 16).
// CHECK-LABEL: func.func @rows_dynamic
// CHECK:         layout.launch
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK:           arith.shrui %{{.*}}, %{{.*}} : i64
// CHECK:           arith.andi %{{.*}}, %{{.*}} : i64
func.func @rows_dynamic(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %ssk: index, %dsw: index) attributes {tilec.args = {ssk = 659 : index, dsw = 1213 : index}} {
  %a = layout.view %src(%ssk) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(37,71,17):(1,?,37)>, gmem>
  %b = layout.view %dst(%dsw) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(37,71,17):(?,17,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(37,71,17):(1,?,37)>, gmem>, !layout.tensor<i8, #layout.cute<(37,71,17):(?,17,1)>, gmem>
  func.return
}
