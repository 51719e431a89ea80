// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks tile.grid_barrier's memory ordering in gfx942 ISA (agent scope,
// per LLVM's AMDGPU memory model for GFX942): after the workgroup barrier
// the release fence writes back L2 (buffer_wbl2 sc1) before the arrival,
// one returning atomic add on the barrier's word (sc0); the spin reads the
// word past the non-coherent L1 (sc1) and sleeps between reads; nothing
// else stores to or adds to it; the acquire fence invalidates L1
// (buffer_inv sc1) before the final workgroup barrier.

// CHECK-LABEL: k:
// CHECK: s_barrier
// CHECK: buffer_wbl2 sc1
// CHECK: global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] sc0
// CHECK: global_load_dword v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] sc1
// CHECK: s_sleep 2
// CHECK-NEXT: global_load_dword v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] sc1
// CHECK-NOT: global_store
// CHECK-NOT: global_atomic
// CHECK: buffer_inv sc1
// CHECK: s_barrier
// CHECK: s_endpgm
tile.kernel @k(%ws: !tile.ptr<i32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %c0 = arith.constant 0 : i64
  tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
  tile.return
}
