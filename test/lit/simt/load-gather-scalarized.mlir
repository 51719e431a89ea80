// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that offsets with no known contiguity (a gather through loaded
// indices) are loaded one element at a time.

// CHECK-COUNT-2: memref.load %{{.*}} : memref<?xf32, #gpu.address_space<global>>
// CHECK-NOT: vector.load {{.*}}xf32
tile.kernel @k(%idx: !tile.ptr<i32>, %x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %i = tile.load %idx[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %v = tile.load %x[%i] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  tile.store %v, %x[%r] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi32>
  tile.return
}
