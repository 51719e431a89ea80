// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=sm_90 -convert-tile-to-simt=target=sm_90 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks tile.histogram on sm_90: after the bins are zeroed, each key's lane
// votes with match.sync any over the whole warp (an uncounted key votes -1,
// which no bin equals), is the leader when no lane below it is among its
// peers, and only a leader of a counted key adds the popcount of its
// peers with one shared-memory atomic: no loop, no per-lane atomic.

// CHECK: %[[LDS:.*]] = memref.view %{{.*}} to memref<64xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: scf.while
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[KEY:.*]], %c64_i32 : i32
// CHECK: %[[BIN:.*]] = arith.select %[[VALID]], %[[KEY]], %c0_i32 : i32
// CHECK: %[[VOTE:.*]] = arith.select %[[VALID]], %[[KEY]], %c-1_i32 : i32
// CHECK: %[[M:.*]] = nvvm.match.sync any %c-1_i32, %[[VOTE]] : i32 -> i32
// CHECK: %[[PEERS:.*]] = arith.extui %[[M]] : i32 to i64
// CHECK: %[[BELOW:.*]] = arith.andi %[[PEERS]], %{{.*}} : i64
// CHECK: %[[NB:.*]] = math.ctpop %[[BELOW]] : i64
// CHECK: %[[NB32:.*]] = arith.trunci %[[NB]] : i64 to i32
// CHECK: %[[LOWEST:.*]] = arith.cmpi eq, %[[NB32]], %c0_i32 : i32
// CHECK: %[[LEADER:.*]] = arith.andi %[[VALID]], %[[LOWEST]] : i1
// CHECK: scf.if %[[LEADER]] {
// CHECK: %[[N:.*]] = math.ctpop %[[PEERS]] : i64
// CHECK: %[[N32:.*]] = arith.trunci %[[N]] : i64 to i32
// CHECK: %[[AT:.*]] = arith.index_cast %[[BIN]] : i32 to index
// CHECK: memref.atomic_rmw addi %[[N32]], %[[LDS]][%[[AT]]]
// CHECK-NEXT: }
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]]
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<128xi32> -> tensor<128xi32>
  %h = tile.histogram %v : tensor<128xi32> -> tensor<64xi32>
  %b = tile.range 0 to 64 : tensor<64xi32>
  tile.store %h, %x[%b] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
