// RUN: tilec %s -p 'copy-strategy,tile{threads=32 narrow32=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{threads=32 narrow32=1}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{threads=32 narrow32=1 narrow_count=1}' --check-equivalence --seed 4 | filecheck %s --check-prefix=EQC
// RUN: tilec %s -p 'copy-strategy,tile{threads=32 narrow32=0}' | filecheck %s --check-prefix=WIDE
// RUN: tilec %s -p 'copy-strategy,tile{threads=32}' | filecheck %s --check-prefix=RULE
// The tile pass's `narrow32=1`: a gather of 32-bit offsets (a bf16 row broadcast into a
// compact destination whose rows of 37 elements start off a vector) tests each element
// of a run against the run's bound clamped to [0, V] (`arith.maxsi`, `arith.minsi`: the
// wrap and the end), not its flat index against the count; `narrow32=0` not (WIDE). By
// default (`_gather_tile.narrow32_rule`) runs of 8 elements take it (bf16), runs of 4 not (f32).

// EQ: @bcast: equivalent after 'copy-strategy,tile{threads=32 narrow32=1}'
// EQ: @bcast_f32: equivalent after 'copy-strategy,tile{threads=32 narrow32=1}'
// EQC: @bcast: equivalent after
// EQC: @bcast_f32: equivalent after

// CHECK-LABEL: func.func @bcast
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(32) attributes {tilec.index_bits = 32 : i64}
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         layout.ptr_load
// CHECK:         layout.ptr_store
// RULE-LABEL: func.func @bcast
// RULE:         arith.minsi
// RULE-LABEL: func.func @bcast_f32
// RULE-NOT:     arith.minsi
// RULE:         layout.ptr_store
// WIDE-LABEL: func.func @bcast
// WIDE-NOT:      arith.minsi
// WIDE:          layout.ptr_store
func.func @bcast(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(3,5,4,37):(0,37,0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(3,5,4,37):(740,148,37,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(3,5,4,37):(0,37,0,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(3,5,4,37):(740,148,37,1)>, gmem>
  func.return
}
func.func @bcast_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(3,5,4,37):(0,37,0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(3,5,4,37):(740,148,37,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(3,5,4,37):(0,37,0,1)>, gmem>, !layout.tensor<f32, #layout.cute<(3,5,4,37):(740,148,37,1)>, gmem>
  func.return
}
