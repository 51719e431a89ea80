// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.histogram_add (with and without a mask) and tile.barrier
// print and parse back unchanged.

// CHECK-LABEL: tile.kernel @bins(
// CHECK: tile.histogram_add %[[K:.+]] into %[[B:.+]] : tensor<128xi32>, !tile.memdesc<2048xi32, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
// CHECK: tile.histogram_add %[[K]] mask(%{{.+}} : tensor<128xi1>) into %[[B]] : tensor<128xi32>, !tile.memdesc<2048xi32,
// CHECK: tile.histogram_add %{{.+}} into %[[B]] : tensor<128xi16>, !tile.memdesc<2048xi32,
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load %[[B]]
#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @bins(%x: i32) {
  %buf = tile.local_alloc : !tile.memdesc<2048xi32, #s1>
  %k = tile.range 0 to 128 : tensor<128xi32>
  %lim = tile.splat %x : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %k, %lim : tensor<128xi32>
  tile.histogram_add %k into %buf : tensor<128xi32>, !tile.memdesc<2048xi32, #s1>
  tile.histogram_add %k mask(%m : tensor<128xi1>) into %buf : tensor<128xi32>, !tile.memdesc<2048xi32, #s1>
  %k16 = arith.trunci %k : tensor<128xi32> to tensor<128xi16>
  tile.histogram_add %k16 into %buf : tensor<128xi16>, !tile.memdesc<2048xi32, #s1>
  tile.barrier
  %h = tile.local_load %buf : !tile.memdesc<2048xi32, #s1> -> tensor<2048xi32>
  tile.return
}
