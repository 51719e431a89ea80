// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that fp8 values are converted with arith.truncf and stored as
// bytes through an i8 memref.

// CHECK: %[[Q:.*]] = arith.truncf %{{.*}} : vector<2xf32> to vector<2xf8E4M3FNUZ>
// CHECK: %[[B:.*]] = vector.bitcast %[[Q]] : vector<2xf8E4M3FNUZ> to vector<2xi8>
// CHECK: vector.store %[[B]], %{{.*}} : memref<?xi8, #gpu.address_space<global>>, vector<2xi8>
tile.kernel @k(%x: !tile.ptr<f32>, %q: !tile.ptr<f8E4M3FNUZ>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %t = arith.truncf %v : tensor<128xf32> to tensor<128xf8E4M3FNUZ>
  tile.store %t, %q[%r] : tensor<128xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<128xi32>
  tile.return
}
