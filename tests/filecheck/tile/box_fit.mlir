// RUN: tilec %s -p 'copy-strategy,tile{box_fit=1 box_slot32=0}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=0}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{box_fit=0 box_slot32=0}' | filecheck %s --check-prefix=NONE
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_fit=1 box_slot32=0}' | filecheck %s --check-prefix=SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_fit=1 box_slot32=0}' --check-equivalence --arg n0=3 --arg n1=37 --arg n2=70 --arg n3=17 --arg ss0=629 --arg ss2=1891 --arg ds0=44030 --arg ds1=1190 --arg smis=5 --arg dmis=3 --arg src=132400 --arg dst=132100 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=3328},tile{box_smem=3328 threads=64 box_fit=1 box_slot32=0}' --check-equivalence --arg n0=2 --arg n1=37 --arg n2=23 --arg n3=17 --arg ss0=629 --arg ss2=1279 --arg ds0=15000 --arg ds1=400 --arg smis=9 --arg dmis=14 --arg src=30200 --arg dst=30000 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{box_fit=2}' 2>&1 | filecheck %s --check-prefix=ERR
// A box<rows> copy whose source step's residue mod 16 is read at run time (tilec.copy_'s
// program of the canonical 37 x 17 copy, strides as arguments): with box_fit=0 its box
// holds the runs of the worst residue's pitch (703 bytes at step 2: 58 runs, 57 steps a
// block, where a Program of the canonical strides takes 58); with box_fit=1 (the default,
// _box_tile.ROWS_FIT) the runs of the least residue's pitch (688: 59), the box grown to
// 41456 bytes to hold them at 703. A box of
// 3328 bytes: 5 runs in 3360 (4 without); equivalent at source steps 3 and 15 mod 16.
// (The slots at residues mod 16, box_slot32=0: the rule's mod 32 layout,
// box_rows_slot32.mlir, reserves 16 bytes and takes its own steps.)

// EQ: @tilec_copy: equivalent after
// ERR: tile: box_fit=2 must be 0 or 1

// CHECK-LABEL: func.func @tilec_copy
// CHECK:         %[[T:.*]] = arith.constant 58 : index
// CHECK-NEXT:    arith.ceildivui %n2, %[[T]] : index
// CHECK:         <(41456):(1)>, smem>
// NONE-LABEL: func.func @tilec_copy
// NONE:          <(40960):(1)>, smem>
// SMALL-LABEL: func.func @tilec_copy
// SMALL:         <(3360):(1)>, smem>
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

