// RUN: tilec %s -p tile | filecheck %s
// RUN: tilec %s -p tile --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @dynamic: equivalent after
// Needs TensorViewType.num_elements to accept dynamic sizes (dialect fix pending).

// Dynamic extents: the tile counts are ceil-divided from the views' index operands; a
// dynamic tile count may pass CUDA's 65535 limit on grid y at run time, so block x
// takes both (decomposed with remui/divui, the destination's contiguous mode fastest).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%{{.*}}: !layout.ptr<f32>, %{{.*}}: !layout.ptr<f32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG:     %[[T0:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[T1:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[CM:.*]] = arith.ceildivui %[[M]], %[[T0]] : index
// CHECK-DAG:     %[[CN:.*]] = arith.ceildivui %[[N]], %[[T1]] : index
// CHECK:         %[[GX:.*]] = arith.muli %[[CN]], %[[CM]] : index
// CHECK:         layout.launch grid(%[[GX]], %{{.*}}, %{{.*}}) threads(256)
// CHECK:           %[[J:.*]] = arith.remui %{{.*}}, %[[CN]] : index
// CHECK:           %[[I:.*]] = arith.divui %{{.*}}, %[[CN]] : index
// CHECK:           layout.tile %a[%[[I]], %[[J]]] {tile = array<i64: 32, 256>} : {{.*}} -> !layout.tensor<f32, #layout.cute<(32,256):(?,1)>, gmem, masked>
func.func @dynamic(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>, %m: index, %n: index) attributes {tilec.args = {m = 65 : index, n = 511 : index}} {
  %a = layout.view %p(%m, %n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %q(%m, %n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

