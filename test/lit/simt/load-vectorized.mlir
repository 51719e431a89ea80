// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that contiguous offsets whose rows start at multiples of 8 elements
// (a row stride promised divisible by 8) give one 16-byte vector load per
// lane, with that alignment.

// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?xbf16, #gpu.address_space<global>>, vector<8xbf16>
// CHECK-NOT: memref.load
tile.kernel @k(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %y: !tile.ptr<bf16>, %stride: i32 {tile.divisibility = 8 : i64}) {
  %rows = tile.range 0 to 4 : tensor<4xi32>
  %s = tile.splat %stride : i32 -> tensor<4xi32>
  %ro = arith.muli %rows, %s : tensor<4xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<4xi32> -> tensor<4x1xi32>
  %r2 = tile.broadcast %r1 : tensor<4x1xi32> -> tensor<4x128xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c2 = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<4x128xi32>
  %o = arith.addi %r2, %c2 : tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<bf16>, tensor<4x128xi32> -> tensor<4x128xbf16>
  tile.store %v, %y[%o] : tensor<4x128xbf16>, !tile.ptr<bf16>, tensor<4x128xi32>
  tile.return
}
