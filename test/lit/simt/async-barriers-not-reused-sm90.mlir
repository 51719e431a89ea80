// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -canonicalize | FileCheck %s
// Checks that the mbarriers of an async barrier ring get LDS of their own
// for the whole kernel: the buffer allocated after the barriers' last use
// (64 x f32 = 256 bytes, placed first as the largest) does not take their
// 2 x 8 bytes, which follow it: 256 + 16 = 272 bytes. Lane 0 of wave 0
// initialises both barriers for the program's 64 lanes, then a barrier
// makes them visible; the commit arrives on barrier 0 and the wait polls
// it with parity 0. Fill 3 of the two-barrier ring is phase 1 of barrier 1:
// its wait polls byte 8 of the ring with parity 1.

// CHECK: workgroup(%{{.*}} : memref<272xi8, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: memref.view %{{.*}}[%c256][] : memref<272xi8, {{.*}}> to memref<2xi64,
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c64_i32 : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %c0_i32, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK: %[[BASE:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %c8_i32 : i32
// CHECK: %[[P:.*]] = llvm.inttoptr %[[AT]] : i32 to !llvm.ptr<3>
// CHECK: nvvm.mbarrier.try_wait.parity %[[P]], %c1_i32, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NOT: gpu.barrier
// CHECK: memref.view %{{.*}}[%c0][] : memref<272xi8, {{.*}}> to memref<64xf32,
#shared = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWave = [1, 32], wavesPerCTA = [1, 2], order = [1, 0]}>
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 2, values = [2]>]} {
  %c0 = arith.constant 0 : i32
  %bar = tile.async_barrier_alloc : !tile.async_barrier<2>
  %g = tile.async_commit_group barrier(%bar[%c0] : !tile.async_barrier<2>)
  %w = tile.async_wait %g barrier(%bar[%c0] : !tile.async_barrier<2>)
  %c3 = arith.constant 3 : i32
  %w3 = tile.async_wait %w barrier(%bar[%c3] : !tile.async_barrier<2>)
  %v = arith.constant dense<1.0> : tensor<1x64xf32, #b>
  %buf = tile.local_alloc (%v : tensor<1x64xf32, #b>) : !tile.memdesc<1x64xf32, #shared>
  tile.return
}
