// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 | FileCheck %s
// Checks the structure of tile.grid_barrier in SIMT IR: a workgroup barrier,
// then lane 0 of wave 0 fences (release) and adds to the barrier's word
// (word offset): program (0, 0, 0) adds 2^31 - (programs - 1), where
// programs is the product of the grid's sizes, the others 1; it spins with
// s_sleep while the word's top bit is the one its add returned (xor below
// 2^31); an acquire fence and a second workgroup barrier end it. The
// atomics are agent-scope monotonic, and the kernel is marked as needing a
// co-resident grid.

// CHECK-LABEL: gpu.func @k
// CHECK-SAME: tessel.grid_barrier
// CHECK-DAG: %[[GX:.*]] = gpu.grid_dim x
// CHECK-DAG: %[[GY:.*]] = gpu.grid_dim y
// CHECK-DAG: %[[GZ:.*]] = gpu.grid_dim z
// CHECK: %[[N:[0-9]+]] = arith.muli %{{[0-9]+}}, %{{[0-9]+}} : i32
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: llvm.fence syncscope("agent") release
// CHECK: %[[NM1:.*]] = arith.subi %[[N]], %c1{{.*}} : i32
// CHECK: %[[MASTER:.*]] = arith.subi %c-2147483648{{.*}}, %[[NM1]] : i32
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: gpu.block_id y
// CHECK: gpu.block_id z
// CHECK: %[[FIRST:.*]] = arith.andi
// CHECK: %[[INC:.*]] = arith.select %[[FIRST]], %[[MASTER]], %c1{{.*}} : i32
// CHECK: %[[OLD:.*]] = llvm.atomicrmw add %[[W:.*]], %[[INC]] syncscope("agent") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
// CHECK: scf.while
// CHECK: %[[NOW:.*]] = llvm.load %[[W]] atomic syncscope("agent") monotonic
// CHECK: %[[D:.*]] = arith.xori %[[NOW]], %[[OLD]] : i32
// CHECK: arith.cmpi ult, %[[D]], %c-2147483648{{.*}} : i32
// CHECK: rocdl.s.sleep 2
// CHECK: llvm.fence syncscope("agent") acquire
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.return
tile.kernel @k(%ws: !tile.ptr<i32>) {
  %c4 = arith.constant 4 : i64
  tile.grid_barrier %ws[%c4] : !tile.ptr<i32>, i64
  tile.return
}
