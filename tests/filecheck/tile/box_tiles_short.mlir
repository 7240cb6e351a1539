// RUN: tilec %s -p 'copy-strategy,tile{tiles_mirror=0}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=4096},tile{box_smem=4096 threads=128 tiles_mirror=0}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_depth=2 tiles_mirror=0}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_short=0},tile{tiles_short=0}' | filecheck %s --check-prefix=OFF
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_short=0}' 2>&1 | filecheck %s --check-prefix=DIS
// RUN: not tilec %s -p 'copy-strategy{tiles_short=9}' 2>&1 | filecheck %s --check-prefix=BAD
// A box<tiles> over a short source-contiguous mode W (`_copy_cost.TILES_SHORT_BYTES`, 2):
// a converting copy (or one of elements wider than a byte) whose W is known and at most
// 64 steps, its D long: the box's runs take W whole (42 f16: 96 bytes), phase 1 stages
// them by 8-byte cp.async, phase 2 converts and stores 16-byte destination chunks.
// (W' over W and the mode continuing it, the rule's where one does: tile/box_tiles_mirror.mlir;
// tiles_mirror=0 here.) Results never change.

// EQ: @short_w_f16_to_bf16: equivalent after
// DIS: tile: a copy of strategy box<tiles>
// BAD: copy-strategy: tiles_short=9 must be in [0, 8]

// The strided set's 29 in small: W = 42 f16, then a grid mode of 3 (the source contiguous
// over both), D = 100; pointers moved by misalignments.
// CHECK-LABEL: func.func @short_w_f16_to_bf16
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.alloc : !layout.tensor<f16, #layout.cute<({{[0-9]+}}):(1)>, smem>
// CHECK:             layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 4 : i64{{(, uncommitted)?}}}
// CHECK:           layout.barrier
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 8 : i64} : vector<8xbf16>
// CHECK-NOT:     layout.copy
// OFF-LABEL: func.func @short_w_f16_to_bf16
// OFF:         layout.copy
func.func @short_w_f16_to_bf16(%s0: !layout.ptr<f16, align 16>, %d0: !layout.ptr<bf16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 5 : index, s0 = 12608 : index, d0 = 12608 : index}} {
  %sp = layout.addptr %s0, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %d0, %dmis : !layout.ptr<bf16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(42,3,100):(1,42,126)>, gmem>
  %b = layout.view %dp : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(42,3,100):(300,100,1)>, gmem>
  layout.copy %a, %b {convert = "float16->bfloat16"} : !layout.tensor<f16, #layout.cute<(42,3,100):(1,42,126)>, gmem>, !layout.tensor<bf16, #layout.cute<(42,3,100):(300,100,1)>, gmem>
  func.return
}
