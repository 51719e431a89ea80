// RUN: tessel-translate %s --target=sm_90 --emit=ptx -o - | FileCheck %s
// Checks that a 1024-element fp8 copy (i8 storage, 16-byte aligned buffers)
// moves 16 bytes per access on sm_90: 1024 bytes over the 32 lanes of one
// warp is 32 bytes, two 16-byte vector loads and two 16-byte vector stores
// per lane, and no narrower global access.

// CHECK: .visible .entry k(
// CHECK-NOT: ld.global.v2
// CHECK-COUNT-2: ld.global.v4.{{[ub]}}32
// CHECK-NOT: ld.global
// CHECK-COUNT-2: st.global.v4.{{[ub]}}32
// CHECK-NOT: st.global
// CHECK: ret;
tile.kernel @k(%x: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<f8E4M3FN>, tensor<1024xi32> -> tensor<1024xf8E4M3FN>
  tile.store %v, %y[%r] : tensor<1024xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<1024xi32>
  tile.return
}
