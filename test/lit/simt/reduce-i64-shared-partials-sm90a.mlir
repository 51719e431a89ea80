// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90a -convert-tile-to-simt=target=sm_90a -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a signed i64 max reduction over 4 warps on sm_90a takes the
// shared-memory plan with 8-byte slots: each of the 128 lanes stores its
// partial maximum ([128 partials + 1 total] x 8 bytes = 1032, in a 1040-byte
// buffer), each warp folds the partials, then combines its 32 lanes with
// two 32-bit shuffles (the halves) per step, xor 1 to 16, joined into an i64
// before arith.maxsi.

// CHECK: workgroup(%[[BUF:.*]] : memref<1040xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<129xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[LDS]][%{{.*}}] : memref<129xi64
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]]
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: arith.ori %{{.*}} : i64
// CHECK-NEXT: arith.maxsi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: arith.maxsi %{{.*}} : i64
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: %[[MAX:.*]] = arith.maxsi %{{.*}} : i64
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %[[MAX]], %[[LDS]][%c128] : memref<129xi64
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]][%c128] : memref<129xi64
tile.kernel @k(%x: !tile.ptr<i64>, %y: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<1024xi32> -> tensor<1024xi64>
  %s = tile.reduce max %v, 0 : tensor<1024xi64> -> i64
  %c0 = arith.constant 0 : i32
  tile.store %s, %y[%c0] : i64, !tile.ptr<i64>, i32
  tile.return
}
