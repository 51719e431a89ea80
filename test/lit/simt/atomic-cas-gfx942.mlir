// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks that tile.atomic_cas becomes, per element, a generic atomic RMW
// on the global buffer whose body stores the new value only where the old
// one equals cmp, and whose result (the old value) is the op's.

// CHECK: %[[OLD:.*]] = memref.generic_atomic_rmw %{{.*}}[%{{.*}}] : memref<?xi32, #gpu.address_space<global>> {
// CHECK-NEXT: ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT: %[[SAME:.*]] = arith.cmpi eq, %[[CUR]], %c0_i32 : i32
// CHECK-NEXT: %[[NEW:.*]] = arith.select %[[SAME]], %{{.*}}, %[[CUR]] : i32
// CHECK-NEXT: memref.atomic_yield %[[NEW]] : i32
// CHECK: memref.store %[[OLD]]
tile.kernel @cas(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>, %v: i32) {
  %c0 = arith.constant 0 : i32
  %old = tile.atomic_cas %x[%c0], %c0, %v : !tile.ptr<i32>, i32, i32
  tile.store %old, %y[%c0] : i32, !tile.ptr<i32>, i32
  tile.return
}
