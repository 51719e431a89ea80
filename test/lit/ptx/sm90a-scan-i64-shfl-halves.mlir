// RUN: tessel-translate %s --target=sm_90a --emit=ptx --ptxas=none -o - | FileCheck %s
// Checks the PTX of an exclusive i64 add scan over 4 warps on sm_90a: the
// warp scan moves each running sum as two 32-bit halves per step
// (shfl.sync.up.b32 by 1, 2, 4, 8, 16), the earlier lane's sum and the
// warp's total as two shfl.sync.idx.b32 each, and the warps' totals go
// through 8-byte shared slots (st.shared.b64, ld.shared.b64).

// CHECK: .shared .align 16 .b8 {{.*}}[32];
// CHECK-COUNT-2: shfl.sync.up.b32 {{.*}}, 1, 0, -1;
// CHECK-COUNT-2: shfl.sync.up.b32 {{.*}}, 2, 0, -1;
// CHECK-COUNT-2: shfl.sync.up.b32 {{.*}}, 4, 0, -1;
// CHECK-COUNT-2: shfl.sync.up.b32 {{.*}}, 8, 0, -1;
// CHECK-COUNT-2: shfl.sync.up.b32 {{.*}}, 16, 0, -1;
// CHECK-COUNT-4: shfl.sync.idx.b32
// CHECK: st.shared.b64
// CHECK: bar.sync
// CHECK: ld.shared.b64
// CHECK-NOT: shfl.sync.{{.*}}.b64
tile.kernel @k(%x: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<512xi32> -> tensor<512xi64>
  %s = tile.scan add %v, 0 {exclusive} : tensor<512xi64>
  tile.store %s, %x[%r] : tensor<512xi64>, !tile.ptr<i64>, tensor<512xi32>
  tile.return
}
