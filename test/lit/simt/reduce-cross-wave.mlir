// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a reduction spread over 4 waves combines the waves' partial
// results through an LDS buffer of 4 entries between barriers.

// CHECK: gpu.func @k({{.*}}) workgroup(%[[BUF:.*]] : memref<16xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: rocdl.ds_bpermute
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[LDS]][%{{.*}}]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[LDS]]
// CHECK: gpu.barrier
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<512xi32> -> tensor<512xi32>
  %s = tile.reduce add %v, 0 : tensor<512xi32> -> i32
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
