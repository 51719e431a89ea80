// REQUIRES: ptxas
// RUN: tessel-translate %s --target=sm_90a --emit=ptx --ptxas=%ptxas --print-resources -o %t.ptx | FileCheck %s
// Checks that ptxas accepts sm_90a kernels with i64 reductions and scans
// across lanes and warps (umax reduction, inclusive max scan) and allocates
// them with no stack and no spills.

// CHECK: "name": "reduce_umax",
// CHECK: "scratch_bytes": 0,
// CHECK-NEXT: "spill_load_bytes": 0,
// CHECK-NEXT: "spill_store_bytes": 0,
// CHECK: "name": "scan_max",
// CHECK: "scratch_bytes": 0,
// CHECK-NEXT: "spill_load_bytes": 0,
// CHECK-NEXT: "spill_store_bytes": 0,
tile.kernel @reduce_umax(%x: !tile.ptr<i64>, %y: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 8>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<2048xi32> -> tensor<2048xi64>
  %s = tile.reduce umax %v, 0 : tensor<2048xi64> -> i64
  %c0 = arith.constant 0 : i32
  tile.store %s, %y[%c0] : i64, !tile.ptr<i64>, i32
  tile.return
}

tile.kernel @scan_max(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 8>]} {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<2048xi32> -> tensor<2048xi64>
  %s = tile.scan max %v, 0 : tensor<2048xi64>
  tile.store %s, %x[%r] : tensor<2048xi64>, !tile.ptr<i64>, tensor<2048xi32>
  tile.return
}
