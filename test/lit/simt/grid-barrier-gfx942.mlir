// RUN: tessel-opt %s -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 | FileCheck %s
// Checks the structure of tile.grid_barrier in SIMT IR: a workgroup barrier,
// then lane 0 of wave 0 reads the generation (word offset + 1), fences
// (release), adds 1 to the count (word offset); the last of the
// grid-size-product programs zeroes the count and, after an acq_rel fence,
// bumps the generation; the others spin with s_sleep; an acquire fence and
// a second workgroup barrier end it. All atomics are agent-scope monotonic,
// and the kernel is marked as needing a co-resident grid.

// CHECK-LABEL: gpu.func @k
// CHECK-SAME: tessel.grid_barrier
// CHECK-DAG: %[[GX:.*]] = gpu.grid_dim x
// CHECK-DAG: %[[GY:.*]] = gpu.grid_dim y
// CHECK-DAG: %[[GZ:.*]] = gpu.grid_dim z
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[GEN:.*]] = llvm.load %{{.*}} atomic syncscope("agent") monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NEXT: llvm.fence syncscope("agent") release
// CHECK: %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i32
// CHECK: scf.if %[[LAST]] {
// CHECK: llvm.store %{{.*}}, %{{.*}} atomic syncscope("agent") monotonic
// CHECK-NEXT: llvm.fence syncscope("agent") acq_rel
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") monotonic
// CHECK: } else {
// CHECK: scf.while
// CHECK: %[[NOW:.*]] = llvm.load %{{.*}} atomic syncscope("agent") monotonic
// CHECK: arith.cmpi eq, %[[NOW]], %[[GEN]] : i32
// CHECK: rocdl.s.sleep 2
// CHECK: llvm.fence syncscope("agent") acquire
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.return
tile.kernel @k(%ws: !tile.ptr<i32>) {
  %c4 = arith.constant 4 : i64
  tile.grid_barrier %ws[%c4] : !tile.ptr<i32>, i64
  tile.return
}
