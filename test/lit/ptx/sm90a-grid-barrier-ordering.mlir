// RUN: tessel-translate %s --target=sm_90a --emit=ptx -o - | FileCheck %s
// Checks tile.grid_barrier's memory ordering in PTX: the NVPTX back end
// prints relaxed atomics, so the ordering must come from gpu-scope fences:
// a release (or stronger) fence before the arrival's atom on the barrier's
// word, and an acquire (or stronger) fence after the wait. The spin's loads
// are gpu-scope atomic loads of that word (ld.relaxed.gpu, not weak
// ld.global) compared by their top bit with the atom's result, and the spin
// sleeps; nothing else writes the word.

// CHECK-LABEL: .entry k(
// CHECK: bar.sync 0;
// CHECK: fence.{{acq_rel|release}}.gpu;
// CHECK-NOT: st.
// CHECK: atom.{{(relaxed.gpu.)?}}global.add.u32 [[OLD:%r[0-9]+]], [[[W:%rd[0-9]+]]], %r{{[0-9]+}};
// CHECK-NEXT: ld.relaxed.gpu.global.b32 [[NOW:%r[0-9]+]], [[[W]]];
// CHECK-NEXT: xor.b32 %r{{[0-9]+}}, [[NOW]], [[OLD]];
// CHECK: nanosleep.u32 100;
// CHECK: ld.relaxed.gpu.global.b32 %r{{[0-9]+}}, [[[W]]];
// CHECK-NOT: st.
// CHECK-NOT: atom.
// CHECK: fence.{{acq_rel|acquire}}.gpu;
// CHECK: bar.sync 0;
tile.kernel @k(%ws: !tile.ptr<i32>) {
  %c0 = arith.constant 0 : i64
  tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
  tile.return
}
