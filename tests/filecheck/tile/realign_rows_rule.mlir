// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_chunks=1}' | filecheck %s --check-prefix=C1
// The realign strategy's default by its rows' bytes (`_realign_tile.row_rule`): f16 rows of
// 200 (400 bytes, over 256 up to 1024 for 2- and 4-byte elements, `ENDS_PAIR_BYTES`) the
// ends' bulk prefetches after the loads and 2 chunks a thread (256 rows for 128 threads;
// realign_chunks=1 one); f16 rows of 100 (200 bytes, `ENDS_ROW_BYTES`) the ends, 1 chunk;
// f32 rows of 300 (1200 bytes) the line prefetch, 1 chunk.

// EQ: @pair: equivalent after 'copy-strategy,tile{threads=128}'
// EQ: @ends: equivalent after 'copy-strategy,tile{threads=128}'
// EQ: @line: equivalent after 'copy-strategy,tile{threads=128}'

// CHECK-LABEL: func.func @pair
// CHECK:         layout.arange {start = 0 : i64, end = 256 : i64}
// CHECK:         layout.ptr_load
// CHECK:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<256xi1, #layout.slice<{{.*}}>> {bulk}
// CHECK:         layout.ptr_store
// C1-LABEL: func.func @pair
// C1:         layout.arange {start = 0 : i64, end = 128 : i64}
// C1:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk}
func.func @pair(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 6 : index, src = 1040 : index, dst = 1040 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<f16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(5,200):(201,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(5,200):(203,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(5,200):(201,1)>, gmem>, !layout.tensor<f16, #layout.cute<(5,200):(203,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @ends
// CHECK:         layout.arange {start = 0 : i64, end = 128 : i64}
// CHECK:         layout.ptr_load
// CHECK:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk}
// CHECK:         layout.ptr_store
func.func @ends(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 6 : index, src = 1040 : index, dst = 1040 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<f16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(9,100):(101,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(9,100):(103,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(9,100):(101,1)>, gmem>, !layout.tensor<f16, #layout.cute<(9,100):(103,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @line
// CHECK:         layout.arange {start = 0 : i64, end = 128 : i64}
// CHECK:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> : tensor<128x!layout.ptr<f32>
// CHECK:         layout.ptr_store
func.func @line(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 1 : index, dmis = 2 : index, src = 1240 : index, dst = 1240 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<f32, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<f32, align 16>, index
  %a = layout.view %sp : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(4,300):(301,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(4,300):(303,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(4,300):(301,1)>, gmem>, !layout.tensor<f32, #layout.cute<(4,300):(303,1)>, gmem>
  func.return
}
