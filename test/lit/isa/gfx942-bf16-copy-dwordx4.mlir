// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that a 1024-element bf16 copy keeps 16-byte accesses of 8
// elements: 2048 bytes over 64 lanes is 32 bytes, two global_load_dwordx4
// and two global_store_dwordx4 per lane, and no narrower global access.

// CHECK-LABEL: k:
// CHECK-NOT: global_load_dwordx2
// CHECK-COUNT-2: global_load_dwordx4
// CHECK-NOT: global_load_dwordx
// CHECK-COUNT-2: global_store_dwordx4
// CHECK-NOT: global_store_dwordx
// CHECK: .end_amdhsa_kernel
tile.kernel @k(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<bf16> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<bf16>, tensor<1024xi32> -> tensor<1024xbf16>
  tile.store %v, %y[%r] : tensor<1024xbf16>, !tile.ptr<bf16>, tensor<1024xi32>
  tile.return
}
