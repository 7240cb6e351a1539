// A converting copy: distribute converts in registers between the load and the store,
// before the layout conversion when the destination's elements are narrower (the shared
// memory round trip moves bf16, not f32), after it when they are wider.
// RUN: tilec %s -p distribute | filecheck %s
// RUN: tilec %s -p distribute --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @narrow: equivalent after 'distribute'
// EQ: @widen: equivalent after 'distribute'
// EQ: @to_bool: equivalent after 'distribute'

// CHECK-LABEL: func.func @narrow
// CHECK:       %[[V:.*]] = layout.load %{{.*}} -> tensor<64x64xf32, #layout.blocked<{{.*}}order = [1, 0]}>>
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[V]] : tensor<64x64xf32, {{.*}}> to tensor<64x64xbf16,
// CHECK-NEXT:  %[[C:.*]] = layout.convert_layout %[[H]] : tensor<64x64xbf16, {{.*}}> -> tensor<64x64xbf16, #layout.blocked<{{.*}}order = [0, 1]}>>
// CHECK-NEXT:  layout.store %[[C]], %{{.*}} : tensor<64x64xbf16,
// CHECK-LABEL: func.func @widen
// CHECK:       %[[V:.*]] = layout.load %{{.*}} -> tensor<64x64xi8,
// CHECK-NEXT:  %[[C:.*]] = layout.convert_layout %[[V]]
// CHECK-NEXT:  %[[F:.*]] = layout.uitofp %[[C]] : tensor<64x64xi8, {{.*}}> to tensor<64x64xf32,
// CHECK-NEXT:  %[[H:.*]] = arith.truncf %[[F]] : tensor<64x64xf32, {{.*}}> to tensor<64x64xf16,
// CHECK-NEXT:  layout.store %[[H]]
// CHECK-LABEL: func.func @to_bool
// CHECK:       layout.load
// CHECK-NEXT:  arith.extf {{.*}} to tensor<64x64xf32,
// CHECK-NEXT:  arith.constant 0.000000e+00 : f32
// CHECK-NEXT:  layout.splat
// CHECK-NEXT:  layout.cmpf une
// CHECK-NEXT:  layout.extui {{.*}} to tensor<64x64xi8,
// CHECK-NEXT:  layout.store

// CUDA: __nv_bfloat16
// CUDA: __half

!Gf = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!Gb = !layout.tensor<bf16, #layout.cute<(64,64):(1,64)>, gmem>
func.func @narrow(%p: !layout.ptr<f32, align 16>, %q: !layout.ptr<bf16, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !Gf
  %b = layout.view %q : !layout.ptr<bf16, align 16> -> !Gb
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b {convert = "float32->bfloat16"} : !Gf, !Gb
  }
  func.return
}

!Gu = !layout.tensor<i8, #layout.cute<(64,64):(64,1)>, gmem>
!Gh = !layout.tensor<f16, #layout.cute<(64,64):(1,64)>, gmem>
func.func @widen(%p: !layout.ptr<i8, align 16>, %q: !layout.ptr<f16, align 16>) {
  %a = layout.view %p : !layout.ptr<i8, align 16> -> !Gu
  %b = layout.view %q : !layout.ptr<f16, align 16> -> !Gh
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b {convert = "uint8->float16"} : !Gu, !Gh
  }
  func.return
}

!Gh2 = !layout.tensor<f16, #layout.cute<(64,64):(64,1)>, gmem>
func.func @to_bool(%p: !layout.ptr<f16, align 16>, %q: !layout.ptr<i8, align 16>) {
  %a = layout.view %p : !layout.ptr<f16, align 16> -> !Gh2
  %b = layout.view %q : !layout.ptr<i8, align 16> -> !Gu
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b {convert = "float16->bool"} : !Gh2, !Gu
  }
  func.return
}
