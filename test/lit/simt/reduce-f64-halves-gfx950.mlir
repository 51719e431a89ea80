// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx950 -convert-tile-to-simt=target=gfx950 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that an f64 max reduction across lanes and waves on CDNA4 takes the
// i64 path: each partial maximum is reinterpreted as i64, crosses lanes as
// its two 32-bit halves, is joined and reinterpreted as f64 before
// arith.maximumf, and the waves' maxima meet in 8-byte LDS slots.

// CHECK: workgroup(%[[BUF:.*]] : memref<32xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[C32:.*]] = arith.constant 32 : i64
// CHECK: %[[M:.*]] = arith.maximumf %{{.*}} : f64
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[M]] : f64 to i64
// CHECK-NEXT: %[[LO:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[BITS]], %[[C32]] : i64
// CHECK-NEXT: %[[HI:.*]] = arith.trunci %[[SH]] : i64 to i32
// CHECK-NEXT: amdgpu.dpp %[[LO]] %[[LO]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) : i32
// CHECK-NEXT: arith.extui
// CHECK-NEXT: amdgpu.dpp %[[HI]] %[[HI]] quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) : i32
// CHECK-NEXT: arith.extui
// CHECK-NEXT: arith.shli
// CHECK-NEXT: %[[J:.*]] = arith.ori %{{.*}} : i64
// CHECK-NEXT: %[[F:.*]] = arith.bitcast %[[J]] : i64 to f64
// CHECK-NEXT: arith.maximumf %[[M]], %[[F]] : f64
// CHECK-COUNT-2: amdgpu.permlane_swap %{{.*}} 32 : i32
// CHECK: %[[LDS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<4xf64, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[LDS]]
// CHECK-COUNT-4: memref.load %[[LDS]]
tile.kernel @k(%x: !tile.ptr<f64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<f64>, tensor<512xi32> -> tensor<512xf64>
  %s = tile.reduce max %v, 0 : tensor<512xf64> -> f64
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : f64, !tile.ptr<f64>, i32
  tile.return
}
