// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that a store in a loop, guarded element by element, recomputes
// each element's mask (a comparison combined with another) from scalars
// right before its guard, instead of extracting it from an i1 vector
// computed once for all (whose elements would all stay live, as lane
// masks, up to the last store).

// CHECK-NOT: vector.extract {{.*}} from vector<2xi1>
// CHECK: %[[A:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : i64
// CHECK: %[[B:.*]] = arith.cmpi sge, %{{.*}}, %arg3 : i64
// CHECK: %[[M:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK: scf.if %[[M]] {
// CHECK:   memref.store
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sge
// CHECK: arith.andi {{.*}} : i1
// CHECK: scf.if
// CHECK-NOT: vector.extract {{.*}} from vector<2xi1>
tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i64, %lo: i64,
               %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0 to 128 : tensor<128xi64>
  %nv = tile.splat %n : i64 -> tensor<128xi64>
  %lov = tile.splat %lo : i64 -> tensor<128xi64>
  %a = arith.cmpi slt, %r, %nv : tensor<128xi64>
  %b = arith.cmpi sge, %r, %lov : tensor<128xi64>
  %m = arith.andi %a, %b : tensor<128xi1>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  scf.for %i = %c0 to %steps step %c1 : i32 {
    tile.store %v, %y[%r] mask(%m : tensor<128xi1>) : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  }
  tile.return
}
