// RUN: tessel-translate %s --target=gfx950 --emit=asm -o - | FileCheck %s
// Checks that a 1024-element fp8 copy (i8 storage, 16-byte aligned buffers)
// moves 16 bytes per lane: 1024 bytes over the 64 lanes of one wave is one
// global_load_dwordx4 and one global_store_dwordx4 per lane, and no
// narrower global access.

// CHECK-LABEL: k:
// CHECK-NOT: global_load_dwordx2
// CHECK: global_load_dwordx4
// CHECK-NOT: global_load_dwordx
// CHECK: global_store_dwordx4
// CHECK-NOT: global_store_dwordx
// CHECK: .end_amdhsa_kernel
tile.kernel @k(%x: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<f8E4M3FN>, tensor<1024xi32> -> tensor<1024xf8E4M3FN>
  tile.store %v, %y[%r] : tensor<1024xf8E4M3FN>, !tile.ptr<f8E4M3FN>, tensor<1024xi32>
  tile.return
}
