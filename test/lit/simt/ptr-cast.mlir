// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that viewing a byte buffer as f32 becomes a memref.view whose size
// is the byte count divided by 4.

// CHECK: %[[D:.*]] = memref.dim %arg0, %c0 : memref<?xi8, #gpu.address_space<global>>
// CHECK: %[[N:.*]] = arith.divui %[[D]], %c4 : index
// CHECK: memref.view %arg0[%c0][%[[N]]] : memref<?xi8, #gpu.address_space<global>> to memref<?xf32, #gpu.address_space<global>>
tile.kernel @k(%bytes: !tile.ptr<i8>) {
  %f = tile.ptr_cast %bytes : !tile.ptr<i8> to !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  tile.store %one, %f[%c0] : f32, !tile.ptr<f32>, i32
  tile.return
}
