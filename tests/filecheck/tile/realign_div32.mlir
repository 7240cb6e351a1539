// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' | filecheck %s --check-prefix=D32
// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 div32=0}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 div32=0}' --check-equivalence | filecheck %s --check-prefix=EQ0
// A realign copy of 32-bit offsets (static extents and strides, misalignments stated as
// `mis % 4`): by default (`_realign_tile.REALIGN_DIV32`) its flat chunk index is divided
// by the chunks a row and the outer extent as a 32-bit multiply-high
// (`arith.mului_extended` of i32) and a shift, no 64-bit product
// (`_gather_tile.divmod32`); div32=0 as a 64-bit product and shift (`layout.extsi` to i64).

// EQ: @rows32: equivalent after 'copy-strategy,tile{threads=128}'
// EQ0: @rows32: equivalent after 'copy-strategy,tile{threads=128 div32=0}'

// CHECK-LABEL: func.func @rows32
// CHECK:         layout.launch
// CHECK:         layout.extsi %{{.*}} : tensor<128xi32, {{.*}}> to tensor<128xi64, {{.*}}>
// CHECK:         layout.ptr_store
// D32-LABEL: func.func @rows32
// D32:         layout.launch
// D32-NOT:     layout.extsi
// D32:         arith.mului_extended %{{.*}}, %{{.*}} : tensor<128xi32, {{.*}}>
// D32:         arith.mului_extended %{{.*}}, %{{.*}} : tensor<128xi32, {{.*}}>
// D32-NOT:     layout.extsi
// D32:         layout.ptr_store
func.func @rows32(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %sm: index, %dm: index) attributes {tilec.args = {sm = 3 : index, dm = 1 : index, src = 960 : index, dst = 1024 : index}} {
  %c4 = arith.constant 4 : index
  %smis = arith.remui %sm, %c4 : index
  %dmis = arith.remui %dm, %c4 : index
  %sp = layout.addptr %src, %smis : !layout.ptr<i32, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i32, align 16>, index
  %a = layout.view %sp : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(3,5,56):(280,56,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(3,5,56):(295,59,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i32, #layout.cute<(3,5,56):(280,56,1)>, gmem>, !layout.tensor<i32, #layout.cute<(3,5,56):(295,59,1)>, gmem>
  func.return
}
