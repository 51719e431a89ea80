// RUN: tessel-translate %s --target=sm_90a --emit=ptx -o - | FileCheck %s
// Checks tile.grid_barrier's memory ordering in PTX: the NVPTX back end
// prints relaxed atomics, so the ordering must come from gpu-scope fences:
// a release (or stronger) fence between the read of the generation and
// the arrival's atom, one between the count's reset and the generation's
// bump, and an acquire (or stronger) fence after the wait. The
// generation's loads are gpu-scope atomic loads (ld.relaxed.gpu), not weak
// ld.global, and the spin sleeps.

// CHECK-LABEL: .entry k(
// CHECK: bar.sync 0;
// CHECK: ld.relaxed.gpu.global.b32 [[GEN:%r[0-9]+]], [%rd{{[0-9]+}}+4];
// CHECK-NEXT: fence.{{acq_rel|release}}.gpu;
// CHECK-NEXT: atom.{{(relaxed.gpu.)?}}global.add.u32 [[OLD:%r[0-9]+]], [%rd{{[0-9]+}}], 1;
// CHECK: st.relaxed.gpu.global.b32 [%rd{{[0-9]+}}], 0;
// CHECK-NEXT: fence.acq_rel.gpu;
// CHECK-NEXT: {{atom|red}}.{{(relaxed.gpu.)?}}global.add.u32 {{(%r[0-9]+, )?}}[%rd{{[0-9]+}}+4], 1;
// CHECK: nanosleep.u32 100;
// CHECK: ld.relaxed.gpu.global.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+4];
// CHECK: fence.{{acq_rel|acquire}}.gpu;
// CHECK: bar.sync 0;
tile.kernel @k(%ws: !tile.ptr<i32>) {
  %c0 = arith.constant 0 : i64
  tile.grid_barrier %ws[%c0] : !tile.ptr<i32>, i64
  tile.return
}
