// RUN: tessel-translate %s --target=sm_90a --emit=ptx --ptxas=none -o - | FileCheck %s
// Checks the PTX of a signed i64 max reduction over 4 warps on sm_90a: the
// lanes' partial maxima meet in 8-byte shared slots (st.shared.b64, read
// back as 16-byte pairs), each warp combines its lanes with two
// shfl.sync.bfly.b32 per step (the halves, xor 1 to 16) and a 64-bit
// signed max, and the total is one more 8-byte slot.

// CHECK: .shared .align 16 .b8 {{.*}}[1040];
// CHECK-NOT: shfl.sync
// CHECK: st.shared.b64
// CHECK: bar.sync
// CHECK: ld.shared.v2.b64
// CHECK: max.s64
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: max.s64
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: max.s64
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: max.s64
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: max.s64
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: max.s64
// CHECK-NOT: shfl.sync
// CHECK: st.shared.b64
// CHECK: bar.sync
// CHECK: ld.shared.b64
tile.kernel @k(%x: !tile.ptr<i64>, %y: !tile.ptr<i64>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<i64>, tensor<1024xi32> -> tensor<1024xi64>
  %s = tile.reduce max %v, 0 : tensor<1024xi64> -> i64
  %c0 = arith.constant 0 : i32
  tile.store %s, %y[%c0] : i64, !tile.ptr<i64>, i32
  tile.return
}
