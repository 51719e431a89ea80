// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that an fp8 store asks its 16 elements per lane back through the
// computation of the stored value: the f32 tile truncated to fp8 is laid
// out with 16 contiguous elements per lane (1024 / 64 lanes), so the store
// needs no layout conversion.

// CHECK: arith.truncf {{.*}} to tensor<1024xf8E4M3FN, #tile.blocked<{sizePerThread = [16], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
// CHECK-NOT: tile.convert_layout
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f8E4M3FN>) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<1024xi32> -> tensor<1024xf32>
  %q = arith.truncf %v : tensor<1024xf32> to tensor<1024xf8E4M3FN>
  tile.store %q, %y[%r] : tensor<1024xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<1024xi32>
  tile.return
}
