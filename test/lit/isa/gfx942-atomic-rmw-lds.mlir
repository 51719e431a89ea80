// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that tile.atomic_rmw add on a shared-memory tile whose old values
// are used becomes the returning LDS atomic (ds_add_rtn_u32), with no
// global atomic and nothing in scratch.

// CHECK-LABEL: lds_hist:
// CHECK-NOT: global_atomic
// CHECK: ds_add_rtn_u32
// CHECK-NOT: global_atomic
// CHECK: .amdhsa_private_segment_fixed_size 0
#s1 = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
tile.kernel @lds_hist(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<i32>, tensor<256xi32> -> tensor<256xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %bins = tile.local_alloc (%z : tensor<64xi32>) : !tile.memdesc<64xi32, #s1>
  %c63 = arith.constant dense<63> : tensor<256xi32>
  %b = arith.andi %v, %c63 : tensor<256xi32>
  %one = arith.constant dense<1> : tensor<256xi32>
  %old = tile.atomic_rmw add, %bins[%b], %one : !tile.memdesc<64xi32, #s1>, tensor<256xi32>, tensor<256xi32>
  %h = tile.local_load %bins : !tile.memdesc<64xi32, #s1> -> tensor<64xi32>
  %o = tile.range 0 to 64 : tensor<64xi32>
  tile.store %h, %y[%o] : tensor<64xi32>, !tile.ptr<i32>, tensor<64xi32>
  tile.store %old, %x[%r] : tensor<256xi32>, !tile.ptr<i32>, tensor<256xi32>
  tile.return
}
