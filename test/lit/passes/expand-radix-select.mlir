// RUN: tessel-opt %s -tile-expand-radix-select=candidates=0 | FileCheck %s
// Checks that tile.topk becomes a radix select in tile ops (here without
// the LDS candidate buffer, so every digit reads the row): short rows
// written as 0..n-1 then -1, and otherwise, per digit, a histogram of the
// candidates' digits over 2048 bins (zeroed LDS bins, a chunk loop that
// only adds to them, a barrier, one read), a suffix (reverse) scan of it, the
// threshold bin by a max reduction, and the selected positions stored at
// offsets from ballot prefix counts of the selection (tile.prefix_count),
// not from scans.

// CHECK-LABEL: tile.kernel @k(
// CHECK-NOT: tile.topk
// CHECK: %[[N:.+]] = arith.maxsi %{{.+}}, %{{.+}} : i32
// CHECK: %[[SHORT:.+]] = arith.cmpi sle, %[[N]], %{{.+}} : i32
// CHECK: scf.if %[[SHORT]] {
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : tensor<1024xi1>, tensor<1024xi32>
// CHECK: tile.store
// CHECK: } else {
// CHECK: scf.for {{.+}} -> (i32, i32, i32, i32, i1, i32) : i32 {
// CHECK: %[[Z:.+]] = arith.constant dense<0> : tensor<2048xi32>
// CHECK: %[[BINS:.+]] = tile.local_alloc(%[[Z]] : tensor<2048xi32>) : !tile.memdesc<2048xi32,
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} : i32 {
// CHECK: tile.load %{{.+}} mask(%{{.+}} : tensor<1024xi1>) : !tile.ptr<f32>, tensor<1024xi64> -> tensor<1024xf32>
// CHECK: arith.bitcast %{{.+}} : tensor<1024xf32> to tensor<1024xi32>
// CHECK-NOT: tile.barrier
// CHECK: tile.histogram_add %{{.+}} mask(%{{.+}} : tensor<1024xi1>) into %[[BINS]] : tensor<1024xi32>, !tile.memdesc<2048xi32, {{.+}}>{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[H:.+]] = tile.local_load %[[BINS]] : !tile.memdesc<2048xi32, {{.+}}> -> tensor<2048xi32>
// CHECK: tile.scan add %[[H]], 0 {reverse} : tensor<2048xi32>
// CHECK: tile.reduce max %{{.+}}, 0 : tensor<2048xi32> -> i32
// CHECK: scf.for {{.+}} -> (i32, i32) : i32 {
// CHECK-NOT: {exclusive}
// CHECK: tile.prefix_count %{{.+}} : tensor<1024xi1> -> tensor<1024xi32>
// CHECK: tile.prefix_count %{{.+}} : tensor<1024xi1> -> tensor<1024xi32>
// CHECK-NOT: {exclusive}
// CHECK: tile.store %{{.+}}, %{{.+}}[%{{.+}}] mask(%{{.+}} : tensor<1024xi1>) : tensor<1024xi32>, !tile.ptr<i32>, tensor<1024xi64>
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32, %o: i64) {
  tile.topk %x[%o], %n -> %y[%o] {k = 512 : i32, chunk = 1024 : i32, stable}
      : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}
