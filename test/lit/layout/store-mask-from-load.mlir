// RUN: tessel-opt %s -tile-assign-layouts=target=sm_90 | FileCheck %s
// Checks that a store's mask is given the store's layout. This mask tests a
// loaded value per row and is broadcast over the columns: left to the
// broadcast's default layout, it would be converted to the 16-byte fp8
// store's layout, through shared memory, since a loaded value cannot be
// recomputed in another layout.

// CHECK-NOT: tile.convert_layout
// CHECK: tile.store {{.*}} mask({{.*}} : tensor<16x128xi1, #tile.blocked<{sizePerThread = [1, 16], threadsPerWave = [4, 8]
tile.kernel @k(%s: !tile.ptr<i64>, %x: !tile.ptr<f8E4M3FN>,
               %y: !tile.ptr<f8E4M3FN>) {
  %rows = tile.range 0 to 16 : tensor<16xi32>
  %cols = tile.range 0 to 128 : tensor<128xi32>
  %slot = tile.load %s[%rows] : !tile.ptr<i64>, tensor<16xi32> -> tensor<16xi64>
  %zero = arith.constant dense<0> : tensor<16xi64>
  %ok = arith.cmpi sge, %slot, %zero : tensor<16xi64>
  %ok_1 = tile.expand_dims %ok, 1 : tensor<16xi1> -> tensor<16x1xi1>
  %ok2 = tile.broadcast %ok_1 : tensor<16x1xi1> -> tensor<16x128xi1>
  %c128 = arith.constant dense<128> : tensor<16xi32>
  %row = arith.muli %rows, %c128 : tensor<16xi32>
  %row_1 = tile.expand_dims %row, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %row2 = tile.broadcast %row_1 : tensor<16x1xi32> -> tensor<16x128xi32>
  %col_1 = tile.expand_dims %cols, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %col2 = tile.broadcast %col_1 : tensor<1x128xi32> -> tensor<16x128xi32>
  %off = arith.addi %row2, %col2 : tensor<16x128xi32>
  %v = tile.load %x[%off] : !tile.ptr<f8E4M3FN>, tensor<16x128xi32> -> tensor<16x128xf8E4M3FN>
  tile.store %v, %y[%off] mask(%ok2 : tensor<16x128xi1>)
      : tensor<16x128xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<16x128xi32>
  tile.return
}
