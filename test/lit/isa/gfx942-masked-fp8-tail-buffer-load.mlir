// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that a load of 1024 fp8 elements masked by `offsets < n` (a tail)
// becomes bounds-checked buffer loads: one buffer_load_dwordx4 per lane
// (1024 bytes over 64 lanes), the mask held in the buffer's num_records,
// so no branch and no per-element select remain for it. The store is not
// masked: it writes the zeros the load gives past n.

// CHECK-LABEL: k:
// CHECK-NOT: s_cbranch
// CHECK-NOT: v_cndmask
// CHECK-NOT: global_load
// CHECK: buffer_load_dwordx4
// CHECK-NOT: s_cbranch
// CHECK-NOT: v_cndmask
// CHECK-NOT: buffer_load
// CHECK-NOT: global_load
// CHECK: global_store_dwordx4
// CHECK-NOT: s_cbranch
// CHECK-NOT: v_cndmask
// CHECK: s_endpgm
tile.kernel @k(%x: !tile.ptr<f8E4M3FNUZ> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f8E4M3FNUZ> {tile.divisibility = 16 : i64},
               %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %nv : tensor<1024xi32>
  %v = tile.load %x[%r] mask(%m : tensor<1024xi1>) : !tile.ptr<f8E4M3FNUZ>, tensor<1024xi32> -> tensor<1024xf8E4M3FNUZ>
  tile.store %v, %y[%r] : tensor<1024xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<1024xi32>
  tile.return
}
