// RUN: tessel-translate %s --target=gfx942 --emit=asm -o - | FileCheck %s
// Checks tile.grid_barrier's memory ordering in gfx942 ISA (agent scope,
// per LLVM's AMDGPU memory model for GFX942): after the workgroup barrier
// the generation is read past the non-coherent L1 (sc1); the release fence
// writes back L2 (buffer_wbl2 sc1) once earlier accesses complete, before
// the arrival, a returning atomic add (sc0); the spin sleeps and rereads
// the generation past L1; the last arriver stores the count past L1, then
// its acq_rel fence writes back and invalidates (buffer_inv sc1) before the
// generation's add; the acquire fence invalidates L1 before the final
// workgroup barrier.

// CHECK-LABEL: k:
// CHECK: s_barrier
// CHECK: global_load_dword [[GEN:v[0-9]+]], v{{[0-9]+}}, s[{{[0-9:]+}}] offset:4 sc1
// CHECK: buffer_wbl2 sc1
// CHECK-NEXT: s_waitcnt vmcnt(0)
// CHECK: global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] sc0
// CHECK: s_sleep 2
// CHECK-NEXT: global_load_dword v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] offset:4 sc1
// CHECK: global_store_dword v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] sc1
// CHECK-NEXT: buffer_wbl2 sc1
// CHECK-NEXT: s_waitcnt vmcnt(0)
// CHECK-NEXT: buffer_inv sc1
// CHECK: global_atomic_add v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9:]+}}] offset:4
// CHECK: s_waitcnt vmcnt(0)
// CHECK-NEXT: buffer_inv sc1
// CHECK: s_barrier
// CHECK: s_endpgm
tile.kernel @k(%ws: !tile.ptr<i32>)
    attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %c0 = arith.constant 0 : i64
  tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
  tile.return
}
