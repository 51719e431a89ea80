// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx942 -tile-preshuffle-kv -tile-assign-layouts=target=gfx942 | FileCheck %s
// Checks that a preshuffled K tile that feeds no tile.dot still gets 16
// consecutive D bytes (dimension 0) per lane, the run that is contiguous in
// the preshuffled layout, while a plain load of the same shape keeps the
// token dimension fastest.

// CHECK: tile.load {{.*}} {data_layout = #tile<data_layout preshuffled>} : {{.*}} -> tensor<128x64xi8, #tile.blocked<{sizePerThread = [16, 1], {{.*}}order = [0, 1]}>>
// CHECK: tile.load {{.*}} : {{.*}} -> tensor<128x64xi8, #tile.blocked<{sizePerThread = [1, 16], {{.*}}order = [1, 0]}>>
tile.kernel @k(%kv: !tile.ptr<i8>, %out: !tile.ptr<i8>, %blk: i64) attributes {knobs = [
    #tile.knob<"num_waves" : i32 = 1, values = [1]>]} {
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
  %k = tile.load %kv[%inblk] block_base(%base : tensor<128x64xi64>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
  %s = tile.reduce add %k, 1 : tensor<128x64xi8> -> tensor<128xi8>
  tile.store %s, %out[%d64] : tensor<128xi8>, !tile.ptr<i8>, tensor<128xi64>
  %poff = arith.addi %dk, %rk : tensor<128x64xi64>
  %p = tile.load %kv[%poff] : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
  %ps = tile.reduce add %p, 1 : tensor<128x64xi8> -> tensor<128xi8>
  tile.store %ps, %out[%d64] : tensor<128xi8>, !tile.ptr<i8>, tensor<128xi64>
  tile.return
}
