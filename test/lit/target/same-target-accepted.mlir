// RUN: tessel-opt %s -tile-specialize-knobs=target=sm_90 -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 | FileCheck %s
// Checks that every stage accepts a module already specialized for its own
// target, and that the record survives into SIMT IR.

// CHECK: module attributes {gpu.container_module, tessel.target = "sm_90"}
// CHECK: gpu.func @k
tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %e = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<4x128xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<4x128xi32> -> tensor<4x128xf32>
  tile.store %v, %x[%o] : tensor<4x128xf32>, !tile.ptr<f32>, tensor<4x128xi32>
  tile.return
}
