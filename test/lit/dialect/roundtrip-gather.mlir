// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.gather (1-D, and along either axis of a 2-D tile)
// prints in its custom syntax and parses back unchanged.

// CHECK-LABEL: tile.kernel @gathers(
tile.kernel @gathers(%x: i32) {
  // CHECK: %[[S:.+]] = tile.range 0 to 4096 : tensor<4096xi32>
  %s = tile.range 0 to 4096 : tensor<4096xi32>
  // CHECK: %[[I:.+]] = tile.splat %{{.+}} : i32 -> tensor<512xi32>
  %i = tile.splat %x : i32 -> tensor<512xi32>
  // CHECK: tile.gather %[[S]][%[[I]]], 0 : tensor<4096xi32>, tensor<512xi32> -> tensor<512xi32>
  %g = tile.gather %s[%i], 0 : tensor<4096xi32>, tensor<512xi32> -> tensor<512xi32>
  // CHECK: %[[T:.+]] = tile.splat %{{.+}} : f32 -> tensor<8x64xf32>
  %f = arith.constant 1.0 : f32
  %t = tile.splat %f : f32 -> tensor<8x64xf32>
  %j = tile.splat %x : i32 -> tensor<8x16xi32>
  // CHECK: tile.gather %[[T]][%{{.+}}], 1 : tensor<8x64xf32>, tensor<8x16xi32> -> tensor<8x16xf32>
  %g1 = tile.gather %t[%j], 1 : tensor<8x64xf32>, tensor<8x16xi32> -> tensor<8x16xf32>
  %k = tile.splat %x : i32 -> tensor<2x64xi32>
  // CHECK: tile.gather %[[T]][%{{.+}}], 0 : tensor<8x64xf32>, tensor<2x64xi32> -> tensor<2x64xf32>
  %g0 = tile.gather %t[%k], 0 : tensor<8x64xf32>, tensor<2x64xi32> -> tensor<2x64xf32>
  tile.return
}
