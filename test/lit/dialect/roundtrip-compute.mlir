// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.dot (fp8 e4m3fn, fp8 e4m3fnuz, bf16), tile.reduce (every
// kind, to a tensor and to a scalar), tile.scan (inclusive, exclusive,
// reverse), tile.histogram (with and without a mask), tile.topk and
// tile.grid_barrier print in their custom syntax and parse back unchanged.

// CHECK-LABEL: tile.kernel @dots(
tile.kernel @dots(%x: f32) {
  %c = tile.splat %x : f32 -> tensor<64x64xf32>
  %af = tile.splat %x : f32 -> tensor<64x128xf32>
  %bf = tile.splat %x : f32 -> tensor<128x64xf32>
  // CHECK: %[[A8:.+]] = arith.truncf %{{.+}} : tensor<64x128xf32> to tensor<64x128xf8E4M3FN>
  %a8 = arith.truncf %af : tensor<64x128xf32> to tensor<64x128xf8E4M3FN>
  // CHECK: %[[B8:.+]] = arith.truncf %{{.+}} : tensor<128x64xf32> to tensor<128x64xf8E4M3FN>
  %b8 = arith.truncf %bf : tensor<128x64xf32> to tensor<128x64xf8E4M3FN>
  %a8u = arith.truncf %af : tensor<64x128xf32> to tensor<64x128xf8E4M3FNUZ>
  %b8u = arith.truncf %bf : tensor<128x64xf32> to tensor<128x64xf8E4M3FNUZ>
  %abf = arith.truncf %af : tensor<64x128xf32> to tensor<64x128xbf16>
  %bbf = arith.truncf %bf : tensor<128x64xf32> to tensor<128x64xbf16>
  // CHECK: %[[D0:.+]] = tile.dot %[[A8]], %[[B8]], %{{.+}} : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  %d0 = tile.dot %a8, %b8, %c : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
  // CHECK: %[[D1:.+]] = tile.dot %{{.+}}, %{{.+}}, %[[D0]] : tensor<64x128xf8E4M3FNUZ>, tensor<128x64xf8E4M3FNUZ> -> tensor<64x64xf32>
  %d1 = tile.dot %a8u, %b8u, %d0 : tensor<64x128xf8E4M3FNUZ>, tensor<128x64xf8E4M3FNUZ> -> tensor<64x64xf32>
  // CHECK: tile.dot %{{.+}}, %{{.+}}, %[[D1]] : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
  %d2 = tile.dot %abf, %bbf, %d1 : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// CHECK-LABEL: tile.kernel @reductions(
tile.kernel @reductions(%x: f32, %i: i32) {
  // CHECK: %[[T:.+]] = tile.splat %{{.+}} : f32 -> tensor<4x128xf32>
  %t = tile.splat %x : f32 -> tensor<4x128xf32>
  // CHECK: %[[R:.+]] = tile.reduce max %[[T]], 1 : tensor<4x128xf32> -> tensor<4xf32>
  %r = tile.reduce max %t, 1 : tensor<4x128xf32> -> tensor<4xf32>
  // CHECK: tile.reduce add %[[T]], 0 : tensor<4x128xf32> -> tensor<128xf32>
  %r0 = tile.reduce add %t, 0 : tensor<4x128xf32> -> tensor<128xf32>
  // CHECK: tile.reduce min %[[R]], 0 : tensor<4xf32> -> f32
  %s = tile.reduce min %r, 0 : tensor<4xf32> -> f32
  // CHECK: %[[K:.+]] = tile.splat %{{.+}} : i32 -> tensor<256xi32>
  %k = tile.splat %i : i32 -> tensor<256xi32>
  // CHECK: tile.scan add %[[K]], 0 : tensor<256xi32>
  %sc0 = tile.scan add %k, 0 : tensor<256xi32>
  // CHECK: tile.scan add %[[K]], 0 {exclusive} : tensor<256xi32>
  %sc1 = tile.scan add %k, 0 {exclusive} : tensor<256xi32>
  // CHECK: tile.scan max %[[K]], 0 {reverse} : tensor<256xi32>
  %sc2 = tile.scan max %k, 0 {reverse} : tensor<256xi32>
  // CHECK: tile.scan min %[[T]], 1 {exclusive, reverse} : tensor<4x128xf32>
  %sc3 = tile.scan min %t, 1 {exclusive, reverse} : tensor<4x128xf32>
  // CHECK: tile.reduce umax %[[K]], 0 : tensor<256xi32> -> i32
  %u0 = tile.reduce umax %k, 0 : tensor<256xi32> -> i32
  // CHECK: tile.scan umin %[[K]], 0 {exclusive} : tensor<256xi32>
  %u1 = tile.scan umin %k, 0 {exclusive} : tensor<256xi32>
  tile.return
}

// CHECK-LABEL: tile.kernel @select(
// CHECK-SAME: %[[WS:[a-z0-9_]+]]: !tile.ptr<i32>,
// CHECK-SAME: %[[N:[a-z0-9_]+]]: i32,
// CHECK-SAME: %[[O:[a-z0-9_]+]]: i64,
tile.kernel @select(%ws: !tile.ptr<i32>, %n: i32, %o: i64, %x: f32,
                    %row: !tile.ptr<f32>) {
  // CHECK: %[[KEYS:.+]] = tile.range 0 to 1024 : tensor<1024xi32>
  %keys = tile.range 0 to 1024 : tensor<1024xi32>
  // CHECK: tile.histogram %[[KEYS]] : tensor<1024xi32> -> tensor<256xi32>
  %h = tile.histogram %keys : tensor<1024xi32> -> tensor<256xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  // CHECK: %[[M:.+]] = arith.cmpi
  %m = arith.cmpi slt, %keys, %nv : tensor<1024xi32>
  // CHECK: tile.histogram %[[KEYS]] mask(%[[M]] : tensor<1024xi1>) : tensor<1024xi32> -> tensor<16xi32>
  %hm = tile.histogram %keys mask(%m : tensor<1024xi1>) : tensor<1024xi32> -> tensor<16xi32>
  %k64 = arith.extsi %keys : tensor<1024xi32> to tensor<1024xi64>
  // CHECK: tile.histogram %{{.+}} : tensor<1024xi64> -> tensor<2048xi32>
  %h64 = tile.histogram %k64 : tensor<1024xi64> -> tensor<2048xi32>
  // CHECK: tile.topk %{{.+}}[%[[O]]], %[[N]] -> %[[WS]][%[[O]]] {chunk = 4096 : i32, k = 2048 : i32, stable} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.topk %row[%o], %n -> %ws[%o] {k = 2048 : i32, chunk = 4096 : i32, stable} : !tile.ptr<f32>, !tile.ptr<i32>
  // CHECK: tile.topk {{.+}} {chunk = 1024 : i32, k = 16 : i32, sorted} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.topk %row[%o], %n -> %ws[%o] {k = 16 : i32, chunk = 1024 : i32, sorted} : !tile.ptr<f32>, !tile.ptr<i32>
  // CHECK: tile.grid_barrier %[[WS]][%[[O]]] : !tile.ptr<i32>, i64
  tile.grid_barrier %ws[%o] : !tile.ptr<i32>, i64
  // CHECK: tile.grid_barrier %[[WS]][%[[N]]] : !tile.ptr<i32>, i32
  tile.grid_barrier %ws[%n] : !tile.ptr<i32>, i32
  tile.return
}
