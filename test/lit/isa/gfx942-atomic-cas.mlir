// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that tile.atomic_cas on global memory becomes the hardware
// compare-and-swap that returns the old value (sc0), in a retry loop.

// CHECK-LABEL: cas:
// CHECK: [[LOOP:\.LBB0_[0-9]+]]:
// CHECK: global_atomic_cmpswap v{{[0-9]+}}, v{{.*}}, v[{{.*}}], off sc0
// CHECK: s_cbranch_execnz [[LOOP]]
tile.kernel @cas(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) {
  %i = tile.range 0 to 64 : tensor<64xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %old = tile.atomic_cas %x[%i], %z, %i : !tile.ptr<i32>, tensor<64xi32>, tensor<64xi32>
  tile.store %old, %y[%i] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.return
}
