// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx942 -canonicalize -tile-preshuffle-kv -tile-assign-layouts=target=gfx942 | FileCheck %s
// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx950 -canonicalize -tile-preshuffle-kv -tile-assign-layouts=target=gfx950 | FileCheck %s
// Checks that a preshuffled K tile feeding a tile.dot is loaded directly in
// the MFMA B-operand layout with 16 consecutive D bytes per lane (kWidth =
// 16), so no layout conversion sits between the load and the dot.

// CHECK-NOT: tile.convert_layout
// CHECK: %[[K:.*]] = tile.load {{.*}} {data_layout = #tile<data_layout preshuffled>} : !tile.ptr<i8>, tensor<128x64xi64, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{{.*}}>, kWidth = 16}>> -> tensor<128x64xi8, #tile.dot_operand<{opIdx = 1, parent = #tile.mfma<{{.*}}>, kWidth = 16}>>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[KF:.*]] = arith.bitcast %[[K]]
// CHECK-NOT: tile.convert_layout
// CHECK: tile.dot %{{.*}}, %[[KF]]
tile.kernel @k(%q: !tile.ptr<i8>, %kv: !tile.ptr<i8>, %out: !tile.ptr<f32>,
               %blk: i64) attributes {knobs = [
    #tile.knob<"fp8_fnuz" : i1>,
    #tile.knob<"num_waves" : i32 = 4, values = [4]>]} {
  %d = tile.range 0 to 128 : tensor<128xi32>
  %d64 = arith.extsi %d : tensor<128xi32> to tensor<128xi64>
  %t = tile.range 0 to 64 : tensor<64xi32>
  %t64 = arith.extsi %t : tensor<64xi32> to tensor<64xi64>
  %c128 = arith.constant dense<128> : tensor<64xi64>
  %row = arith.muli %t64, %c128 : tensor<64xi64>
  %d_1 = tile.expand_dims %d64, 1 : tensor<128xi64> -> tensor<128x1xi64>
  %dk = tile.broadcast %d_1 : tensor<128x1xi64> -> tensor<128x64xi64>
  %r_1 = tile.expand_dims %row, 0 : tensor<64xi64> -> tensor<1x64xi64>
  %rk = tile.broadcast %r_1 : tensor<1x64xi64> -> tensor<128x64xi64>
  %inblk = arith.addi %rk, %dk : tensor<128x64xi64>
  %base = tile.splat %blk : i64 -> tensor<128x64xi64>
  %k8 = tile.load %kv[%inblk] block_base(%base : tensor<128x64xi64>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
  %m = tile.range 0 to 64 : tensor<64xi32>
  %m64 = arith.extsi %m : tensor<64xi32> to tensor<64xi64>
  %qrow = arith.muli %m64, %c128 : tensor<64xi64>
  %q_1 = tile.expand_dims %qrow, 1 : tensor<64xi64> -> tensor<64x1xi64>
  %qr = tile.broadcast %q_1 : tensor<64x1xi64> -> tensor<64x128xi64>
  %dq_1 = tile.expand_dims %d64, 0 : tensor<128xi64> -> tensor<1x128xi64>
  %dq = tile.broadcast %dq_1 : tensor<1x128xi64> -> tensor<64x128xi64>
  %qoff = arith.addi %qr, %dq : tensor<64x128xi64>
  %q8 = tile.load %q[%qoff] : !tile.ptr<i8>, tensor<64x128xi64> -> tensor<64x128xi8>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %fnuz = tile.knob "fp8_fnuz" : i1
  %acc = scf.if %fnuz -> (tensor<64x64xf32>) {
    %qf = arith.bitcast %q8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FNUZ>
    %kf = arith.bitcast %k8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FNUZ>
    %r = tile.dot %qf, %kf, %z : tensor<64x128xf8E4M3FNUZ>, tensor<128x64xf8E4M3FNUZ> -> tensor<64x64xf32>
    scf.yield %r : tensor<64x64xf32>
  } else {
    %qf = arith.bitcast %q8 : tensor<64x128xi8> to tensor<64x128xf8E4M3FN>
    %kf = arith.bitcast %k8 : tensor<128x64xi8> to tensor<128x64xf8E4M3FN>
    %r = tile.dot %qf, %kf, %z : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xf32>
    scf.yield %r : tensor<64x64xf32>
  }
  %s = tile.reduce add %acc, 0 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %s, %out[%t64] : tensor<64xf32>, !tile.ptr<f32>, tensor<64xi64>
  tile.return
}
