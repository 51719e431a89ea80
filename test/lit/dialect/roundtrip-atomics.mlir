// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that tile.atomic_rmw with every kind (on i32, i64 and f32), with a
// mask and with a non-default scope, and tile.atomic_cas, print in their
// custom syntax and parse back unchanged; the default scope (device) is not
// printed.

// CHECK-LABEL: tile.kernel @atomics(
// CHECK-SAME: %[[PI:[a-z0-9_]+]]: !tile.ptr<i32>,
// CHECK-SAME: %[[PL:[a-z0-9_]+]]: !tile.ptr<i64>,
// CHECK-SAME: %[[PF:[a-z0-9_]+]]: !tile.ptr<f32>,
// CHECK-SAME: %[[O:[a-z0-9_]+]]: i64,
// CHECK-SAME: %[[X:[a-z0-9_]+]]: i32,
// CHECK-SAME: %[[F:[a-z0-9_]+]]: f32)
tile.kernel @atomics(%pi: !tile.ptr<i32>, %pl: !tile.ptr<i64>,
                     %pf: !tile.ptr<f32>, %o: i64, %x: i32, %f: f32) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  // CHECK: %[[OFFS:.+]] = arith.extsi
  %offs = arith.extsi %r : tensor<256xi32> to tensor<256xi64>
  // CHECK: %[[V:.+]] = tile.splat %[[X]]
  %v = tile.splat %x : i32 -> tensor<256xi32>
  // CHECK: %[[VL:.+]] = arith.extsi
  %vl = arith.extsi %v : tensor<256xi32> to tensor<256xi64>
  // CHECK: %[[VF:.+]] = tile.splat %[[F]]
  %vf = tile.splat %f : f32 -> tensor<256xf32>
  // CHECK: %[[M:.+]] = arith.cmpi
  %m = arith.cmpi slt, %r, %v : tensor<256xi32>

  // CHECK: tile.atomic_rmw add, %[[PI]][%[[OFFS]]], %[[V]] : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  %a0 = tile.atomic_rmw add, %pi[%offs], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  // CHECK: tile.atomic_rmw max, %[[PI]][%[[OFFS]]], %[[V]] :
  %a1 = tile.atomic_rmw max, %pi[%offs], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  // CHECK: tile.atomic_rmw min, %[[PI]][%[[OFFS]]], %[[V]] :
  %a2 = tile.atomic_rmw min, %pi[%offs], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  // CHECK: tile.atomic_rmw umax, %[[PI]][%[[OFFS]]], %[[V]] :
  %a3 = tile.atomic_rmw umax, %pi[%offs], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  // CHECK: tile.atomic_rmw umin, %[[PI]][%[[OFFS]]], %[[V]] :
  %a4 = tile.atomic_rmw umin, %pi[%offs], %v : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  // CHECK: tile.atomic_rmw and, %[[PL]][%[[OFFS]]], %[[VL]] : !tile.ptr<i64>, tensor<256xi64>, tensor<256xi64>
  %a5 = tile.atomic_rmw and, %pl[%offs], %vl : !tile.ptr<i64>, tensor<256xi64>, tensor<256xi64>
  // CHECK: tile.atomic_rmw or, %[[PL]][%[[OFFS]]], %[[VL]] : !tile.ptr<i64>, tensor<256xi64>, tensor<256xi64>
  %a6 = tile.atomic_rmw or, %pl[%offs], %vl : !tile.ptr<i64>, tensor<256xi64>, tensor<256xi64>
  // CHECK: tile.atomic_rmw xchg, %[[PL]][%[[OFFS]]], %[[VL]] : !tile.ptr<i64>, tensor<256xi64>, tensor<256xi64>
  %a7 = tile.atomic_rmw xchg, %pl[%offs], %vl : !tile.ptr<i64>, tensor<256xi64>, tensor<256xi64>

  // Float atomics: add, max, min and xchg.
  // CHECK: tile.atomic_rmw add, %[[PF]][%[[OFFS]]], %[[VF]] : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>
  %f0 = tile.atomic_rmw add, %pf[%offs], %vf : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>
  // CHECK: tile.atomic_rmw max, %[[PF]]
  %f1 = tile.atomic_rmw max, %pf[%offs], %vf : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>
  // CHECK: tile.atomic_rmw min, %[[PF]]
  %f2 = tile.atomic_rmw min, %pf[%offs], %vf : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>
  // CHECK: tile.atomic_rmw xchg, %[[PF]]
  %f3 = tile.atomic_rmw xchg, %pf[%offs], %vf : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>

  // Mask and scopes; a scalar atomic.
  // CHECK: tile.atomic_rmw add, %[[PI]][%[[OFFS]]], %[[V]] mask(%[[M]] : tensor<256xi1>) {scope = #tile<scope workgroup>} : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  %am = tile.atomic_rmw add, %pi[%offs], %v mask(%m : tensor<256xi1>) {scope = #tile<scope workgroup>}
      : !tile.ptr<i32>, tensor<256xi64>, tensor<256xi32>
  // CHECK: tile.atomic_rmw add, %[[PI]][%[[O]]], %[[X]] {scope = #tile<scope system>} : !tile.ptr<i32>, i64, i32
  %as = tile.atomic_rmw add, %pi[%o], %x {scope = #tile<scope system>} : !tile.ptr<i32>, i64, i32
  // CHECK: tile.atomic_rmw add, %[[PI]][%[[O]]], %[[X]] : !tile.ptr<i32>, i64, i32
  %ad = tile.atomic_rmw add, %pi[%o], %x {scope = #tile<scope device>} : !tile.ptr<i32>, i64, i32

  // CHECK: tile.atomic_cas %[[PI]][%[[O]]], %[[X]], %[[X]] : !tile.ptr<i32>, i64, i32
  %c0 = tile.atomic_cas %pi[%o], %x, %x : !tile.ptr<i32>, i64, i32
  // CHECK: tile.atomic_cas %[[PF]][%[[OFFS]]], %[[VF]], %[[VF]] {scope = #tile<scope workgroup>} : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>
  %c1 = tile.atomic_cas %pf[%offs], %vf, %vf {scope = #tile<scope workgroup>}
      : !tile.ptr<f32>, tensor<256xi64>, tensor<256xf32>
  tile.return
}
