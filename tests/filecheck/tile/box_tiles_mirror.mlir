// RUN: tilec %s -p 'copy-strategy,tile{tiles_mirror=128}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{tiles_mirror=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_mirror=256}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=4096},tile{box_smem=4096 tiles_mirror=96}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_mirror=128 tiles_stage=16}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_mirror=0}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=RULE
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_mirror=256 tiles_depth=2}' 2>&1 | filecheck %s --check-prefix=DEPTH
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_mirror=100}' 2>&1 | filecheck %s --check-prefix=BAD
// `tile{tiles_mirror=R}` (`_copy_cost.TILES_MIRROR`: 512 where W is short): a box<tiles> copy whose source
// run continues past its contiguous mode W into a mode M (`tiles_mirror_mode`: M's source
// stride W's extent) takes W and M as one mode W' of the box, its runs R bytes: M leaves
// the grid (one grid mode fewer), and each destination row's start is its W' step's
// digits (a division by W's extent) times their destination strides; phase 1 by 16-byte
// chunks (`_box_tile.TILES_MIRROR_STAGE`) unless tiles_stage says. Results never change.

// EQ: @mirror_f16_to_bf16: equivalent after
// BAD: tile: tiles_mirror=100 must be 0 or a multiple of 16 in [16, 2048]
// DEPTH: tile: tiles_mirror=256 does not fit 2 tiles a block

// The strided set's 29 in small: W = 42 f16, then M of 3 (the source contiguous over
// both: W' = 126 steps, in runs of 64 by R = 128), D = 100; pointers moved by
// misalignments. The grid: tiles of D by tiles of W' (two launch-grid modes, M gone).
// CHECK-LABEL: func.func @mirror_f16_to_bf16
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.alloc : !layout.tensor<f16, #layout.cute<(33231):(1)>, smem>
// CHECK:           layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 8 : i64
// CHECK:           layout.barrier
// CHECK:             %[[W:.*]] = arith.constant 42 : index
// CHECK-NEXT:        arith.divui %{{.*}}, %[[W]] : index
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 8 : i64} : vector<8xbf16>
// CHECK-NOT:     layout.copy %
// Without it, the runs are W whole (96 bytes, slots of 112), M a grid mode, 8-byte chunks.
// OFF-LABEL: func.func @mirror_f16_to_bf16
// OFF:           layout.alloc : !layout.tensor<f16, #layout.cute<(33247):(1)>, smem>
// OFF:           layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 4 : i64{{(, uncommitted)?}}}
// The rule: runs of 512 bytes (W' = 126 steps, one tile of 256), 16-byte chunks.
// RULE-LABEL: func.func @mirror_f16_to_bf16
// RULE:           layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 8 : i64
// RULE:             %[[W:.*]] = arith.constant 42 : index
// RULE-NEXT:        arith.divui %{{.*}}, %[[W]] : index
func.func @mirror_f16_to_bf16(%s0: !layout.ptr<f16, align 16>, %d0: !layout.ptr<bf16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 5 : index, s0 = 12608 : index, d0 = 12608 : index}} {
  %sp = layout.addptr %s0, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %d0, %dmis : !layout.ptr<bf16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(42,3,100):(1,42,126)>, gmem>
  %b = layout.view %dp : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(42,3,100):(300,100,1)>, gmem>
  layout.copy %a, %b {convert = "float16->bfloat16"} : !layout.tensor<f16, #layout.cute<(42,3,100):(1,42,126)>, gmem>, !layout.tensor<bf16, #layout.cute<(42,3,100):(300,100,1)>, gmem>
  func.return
}
