// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that a 1024-element f32 copy keeps 16-byte accesses of 4 elements:
// 4096 bytes over 64 lanes is 64 bytes, four global_load_dwordx4 and four
// global_store_dwordx4 per lane, and no narrower global access.

// CHECK-LABEL: k:
// CHECK-NOT: global_load_dwordx2
// CHECK-COUNT-4: global_load_dwordx4
// CHECK-NOT: global_load_dwordx
// CHECK-COUNT-4: global_store_dwordx4
// CHECK-NOT: global_store_dwordx
// CHECK: .end_amdhsa_kernel
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<1024xi32> -> tensor<1024xf32>
  tile.store %v, %y[%r] : tensor<1024xf32>, !tile.ptr<f32>, tensor<1024xi32>
  tile.return
}
