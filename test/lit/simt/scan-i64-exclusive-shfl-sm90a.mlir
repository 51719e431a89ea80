// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90a -convert-tile-to-simt=target=sm_90a -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks the exclusive i64 add scan over 4 warps on sm_90a: the lanes'
// running sums scan across the warp with two 32-bit shfl.up per step (the
// halves, up 1, 2, 4, 8 and 16) before each 64-bit add; the earlier lane's
// sum and the warp's total come through two 32-bit idx shuffles each, the
// first lane takes the i64 identity 0; the warps' totals meet in 4 shared
// slots of 8 bytes.

// CHECK: workgroup(%[[BUF:.*]] : memref<32xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xi64, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  up %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  up %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  up %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  up %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: arith.addi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  idx %{{.*}} : i32
// CHECK: arith.select %{{.*}}, %c0_i64, %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  idx %{{.*}} : i32
// CHECK: memref.store %{{.*}}, %[[LDS]][%{{.*}}] : memref<4xi64
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]][%{{.*}}] : memref<4xi64
// CHECK-NOT: memref.load
// CHECK: gpu.barrier
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.scan add %v, 0 {exclusive} : tensor<512xi64>
  tile.store %s, %x[%r] : tensor<512xi64>, !tile.ptr<i64>, tensor<512xi32>
  tile.return
}
