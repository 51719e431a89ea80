// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that tile.gather goes through LDS: a barrier, each lane's source
// element stored at its row-major index, a barrier, then one LDS read per
// result element at the index (0 where it is out of range, by an unsigned
// compare against the axis size), and 0 as the value read there.

// CHECK: workgroup(%[[BUF:.*]] : memref<1024xi8, #gpu.address_space<workgroup>>
// CHECK: %[[IDX:.*]] = memref.load %arg1
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<256xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[LDS]][%{{.*}}]
// CHECK: gpu.barrier
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[IDX]], %c256_i32 : i32
// CHECK: %[[AT:.*]] = arith.select %[[IN]], %[[IDX]], %c0_i32 : i32
// CHECK: %[[ATI:.*]] = arith.index_cast %[[AT]] : i32 to index
// CHECK: %[[V:.*]] = memref.load %[[LDS]][%[[ATI]]]
// CHECK: %[[G:.*]] = arith.select %[[IN]], %[[V]], %c0_i32 : i32
// CHECK: memref.store %[[G]], %arg1
tile.kernel @k(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<256xi32> -> tensor<256xi32>
  %ri = tile.range 0 to 64 : tensor<64xi32>
  %i = tile.load %y[%ri] : !tile.ptr<i32>, tensor<64xi32> -> tensor<64xi32>
  %g = tile.gather %v[%i], 0 : tensor<256xi32>, tensor<64xi32> -> tensor<64xi32>
  tile.store %g, %y[%ri] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
