// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 -reconcile-unrealized-casts | FileCheck %s
// Checks that a kernel becomes a gpu.func kernel in its own gpu.module with
// the workgroup size, target, knobs and waves-per-EU of the launch, and that
// pointer arguments become global memrefs (fp8 stored as i8).

// CHECK: module attributes {gpu.container_module, tessel.target = "gfx942"}
// CHECK: gpu.module @k
// CHECK: gpu.func @k(%{{.*}}: memref<?xf32, #gpu.address_space<global>>, %{{.*}}: memref<?xi8, #gpu.address_space<global>>, %{{.*}}: i32)
// CHECK-SAME: kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: tessel.target = "gfx942"
// CHECK-SAME: tessel.waves_per_eu = 2 : i32
// CHECK: gpu.block_id x
// CHECK: gpu.return
tile.kernel @k(%x: !tile.ptr<f32>, %q: !tile.ptr<f8E4M3FNUZ>, %n: i32) attributes {knobs = [
    #tile.knob<"num_waves" : i32 = 2>, #tile.knob<"waves_per_eu" : i32 = 2>]} {
  %pid = tile.program_id 0 : i32
  %f = arith.sitofp %pid : i32 to f32
  tile.store %f, %x[%n] : f32, !tile.ptr<f32>, i32
  tile.return
}
