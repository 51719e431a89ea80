// RUN: tessel-translate %s --target=sm_90 --emit=ptx --ptxas=none -o - | FileCheck %s
// Checks that on Hopper a reduction across lanes and waves combines its
// partial results in shared memory instead of shuffling each across the
// lanes first (TargetInfo::laneReduceScratchBytes). 1024 f32 over 4 warps
// of 32 lanes: each lane folds its 8 elements in registers and stores its
// one partial (128 partials of the one output: 129 * 4 = 516 bytes, within
// the 8 KiB budget, so no shuffle comes first); then each warp sums the
// 128 partials, 4 adjacent ones per lane (one 16-byte load), and combines
// its 32 lanes by 5 shuffles (xor 1 to 16); every lane stores the total and
// reads it back.

// CHECK-LABEL: .entry sum(
// CHECK-NOT: shfl.sync
// CHECK: bar.sync
// CHECK: st.shared.b32
// CHECK-NOT: st.shared
// CHECK: bar.sync
// CHECK: ld.shared.v4.b32
// CHECK-NOT: ld.shared
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK-NOT: shfl.sync
// CHECK: st.shared.b32
// CHECK-NEXT: bar.sync
// CHECK: ld.shared.b32
// CHECK-NEXT: bar.sync
// CHECK-NOT: shfl.sync
// CHECK: ret;
tile.kernel @sum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                 %out: !tile.ptr<f32>) attributes {knobs = [
    #tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<1024xi32> -> tensor<1024xf32>
  %s = tile.reduce add %v, 0 : tensor<1024xf32> -> f32
  %c0 = arith.constant 0 : i32
  tile.store %s, %out[%c0] : f32, !tile.ptr<f32>, i32
  tile.return
}
