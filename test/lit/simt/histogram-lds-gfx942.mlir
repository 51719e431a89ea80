// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts -canonicalize | FileCheck %s
// Checks tile.histogram on CDNA3: 64 bins in LDS, zeroed by the first 64
// of the 128 lanes between barriers, then per key a loop in which the
// lowest pending lane names its bin (readfirstlane), its peers vote
// (ballot), the lowest peer adds their count (ctpop) with one LDS atomic
// and the peers leave; after a barrier each lane reads its result bins.

// CHECK: %[[LDS:.*]] = memref.view %{{.*}} to memref<64xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %c0_i32, %[[LDS]]
// CHECK: gpu.barrier
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: rocdl.readfirstlane
// CHECK: %[[PEERS:.*]] = rocdl.ballot %{{.*}} : i64
// CHECK: scf.if
// CHECK: %[[N:.*]] = math.ctpop %[[PEERS]] : i64
// CHECK: %[[N32:.*]] = arith.trunci %[[N]] : i64 to i32
// CHECK: memref.atomic_rmw addi %[[N32]], %[[LDS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[LDS]]
tile.kernel @k(%x: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 2>]} {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<256xi32> -> tensor<256xi32>
  %h = tile.histogram %v : tensor<256xi32> -> tensor<64xi32>
  %b = tile.range 0 to 64 : tensor<64xi32>
  tile.store %h, %x[%b] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
