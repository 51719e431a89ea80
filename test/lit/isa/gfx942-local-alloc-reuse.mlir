// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 | FileCheck %s --check-prefix=SIMT
// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks that two tile.local_alloc buffers used one after the other share
// LDS: 64x64xf32 is 16384 bytes, 32x64xf32 is 8192; the first is dead
// before the second is allocated, so both sit at offset 0 and the kernel's
// LDS is max(16384, 8192) = 16384 bytes (the sum would be 24576), which
// the code object reports.

// SIMT: workgroup(%{{.*}} : memref<16384xi8, #gpu.address_space<workgroup>>
// SIMT-NOT: memref<24576xi8

// CHECK: .amdhsa_group_segment_fixed_size 16384
// CHECK: .group_segment_fixed_size: 16384
#shared = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64})
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64xi32>
  %ro = arith.muli %r, %c64 : tensor<64xi32>
  %r1 = tile.expand_dims %ro, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %r2 = tile.broadcast %r1 : tensor<64x1xi32> -> tensor<64x64xi32>
  %c = tile.range 0 to 64 : tensor<64xi32>
  %c1 = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c2 = tile.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %o = arith.addi %r2, %c2 : tensor<64x64xi32>
  %v = tile.load %x[%o] : !tile.ptr<f32>, tensor<64x64xi32> -> tensor<64x64xf32>
  %a = tile.local_alloc (%v : tensor<64x64xf32>) : !tile.memdesc<64x64xf32, #shared>
  %va = tile.local_load %a : !tile.memdesc<64x64xf32, #shared> -> tensor<64x64xf32>
  tile.store %va, %y[%o] : tensor<64x64xf32>, !tile.ptr<f32>, tensor<64x64xi32>

  %q = tile.range 0 to 32 : tensor<32xi32>
  %q64 = arith.constant dense<64> : tensor<32xi32>
  %qo = arith.muli %q, %q64 : tensor<32xi32>
  %q1 = tile.expand_dims %qo, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %q2 = tile.broadcast %q1 : tensor<32x1xi32> -> tensor<32x64xi32>
  %d1 = tile.expand_dims %c, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %d2 = tile.broadcast %d1 : tensor<1x64xi32> -> tensor<32x64xi32>
  %p = arith.addi %q2, %d2 : tensor<32x64xi32>
  %w = tile.load %y[%p] : !tile.ptr<f32>, tensor<32x64xi32> -> tensor<32x64xf32>
  %b = tile.local_alloc (%w : tensor<32x64xf32>) : !tile.memdesc<32x64xf32, #shared>
  %vb = tile.local_load %b : !tile.memdesc<32x64xf32, #shared> -> tensor<32x64xf32>
  tile.store %vb, %x[%p] : tensor<32x64xf32>, !tile.ptr<f32>, tensor<32x64xi32>
  tile.return
}
