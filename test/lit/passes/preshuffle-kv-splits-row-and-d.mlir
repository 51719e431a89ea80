// RUN: tessel-opt %s -tile-preshuffle-kv | FileCheck %s
// Checks that tile-preshuffle-kv permutes offsets o*128 + d part by part:
// P(d) = (d & 15) + ((d & 0x70) << 4) next to the D range, outside the
// loop; P(o*128) = (x & ~0x7f0) + ((x >> 3) & 0xf0) in i32 on the per-token
// vector inside it (rebuilt from the i32 tokens, not truncated); the block
// base gets the token part before its broadcast (one 64-bit add per token)
// and the D part once per element. No 64-bit bit arithmetic remains.

// CHECK-LABEL: tile.kernel @k
// CHECK: %[[D:.*]] = tile.range 0 to 128 : tensor<128xi32>
// CHECK-DAG: %[[C4:.*]] = arith.constant dense<4> : tensor<128xi32>
// CHECK-DAG: %[[C112:.*]] = arith.constant dense<112> : tensor<128xi32>
// CHECK-DAG: %[[C15:.*]] = arith.constant dense<15> : tensor<128xi32>
// CHECK-DAG: %[[DG:.*]] = arith.andi %[[D]], %[[C112]] : tensor<128xi32>
// CHECK-DAG: %[[DS:.*]] = arith.shli %[[DG]], %[[C4]] : tensor<128xi32>
// CHECK-DAG: %[[LO:.*]] = arith.andi %[[D]], %[[C15]] : tensor<128xi32>
// CHECK-DAG: %[[PD:.*]] = arith.addi %[[LO]], %[[DS]] : tensor<128xi32>
// CHECK: scf.for
// CHECK: %[[TOK:.*]] = tile.load %{{.*}} : !tile.ptr<i32>, tensor<64xi32> -> tensor<64xi32>
// CHECK: %[[ROW:.*]] = arith.muli %[[TOK]], %{{.*}} : tensor<64xi32>
// CHECK-DAG: %[[C240:.*]] = arith.constant dense<240> : tensor<64xi32>
// CHECK-DAG: %[[C3:.*]] = arith.constant dense<3> : tensor<64xi32>
// CHECK-DAG: %[[CK:.*]] = arith.constant dense<-2033> : tensor<64xi32>
// CHECK-DAG: %[[RSH:.*]] = arith.shrui %[[ROW]], %[[C3]] : tensor<64xi32>
// CHECK-DAG: %[[RG:.*]] = arith.andi %[[RSH]], %[[C240]] : tensor<64xi32>
// CHECK-DAG: %[[RK:.*]] = arith.andi %[[ROW]], %[[CK]] : tensor<64xi32>
// CHECK-DAG: %[[PR:.*]] = arith.addi %[[RK]], %[[RG]] : tensor<64xi32>
// CHECK: %[[PRW:.*]] = arith.extui %[[PR]] : tensor<64xi32> to tensor<64xi64>
// CHECK: %[[TB:.*]] = arith.addi %[[BASE:.*]], %[[PRW]] : tensor<64xi64>
// CHECK: %[[TB1:.*]] = tile.expand_dims %[[TB]], 0 : tensor<64xi64> -> tensor<1x64xi64>
// CHECK: %[[TBK:.*]] = tile.broadcast %[[TB1]] : tensor<1x64xi64> -> tensor<128x64xi64>
// CHECK: %[[PDW:.*]] = arith.extui %{{.*}} : tensor<128x64xi32> to tensor<128x64xi64>
// CHECK: %[[ADDR:.*]] = arith.addi %[[TBK]], %[[PDW]] : tensor<128x64xi64>
// CHECK: tile.load %{{.*}}[%[[ADDR]]] {data_layout = #tile<data_layout preshuffled>}
// CHECK-NOT: arith.{{andi|shli|shrui|trunci}} {{.*}}i64
tile.kernel @k(%kv: !tile.ptr<i8> {tile.divisibility = 16 : i64},
               %ids: !tile.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %d = tile.range 0 to 128 : tensor<128xi32>
  %d64 = arith.extsi %d : tensor<128xi32> to tensor<128xi64>
  %d1 = tile.expand_dims %d64, 1 : tensor<128xi64> -> tensor<128x1xi64>
  %dk = tile.broadcast %d1 : tensor<128x1xi64> -> tensor<128x64xi64>
  %t = tile.range 0 to 64 : tensor<64xi32>
  %c128 = arith.constant dense<128> : tensor<64xi64>
  %c4224 = arith.constant dense<4224> : tensor<64xi64>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %tok = tile.load %ids[%t] : !tile.ptr<i32>, tensor<64xi32> -> tensor<64xi32>
    %tok64 = arith.extsi %tok : tensor<64xi32> to tensor<64xi64>
    %row = arith.muli %tok64, %c128 : tensor<64xi64>
    %base = arith.muli %tok64, %c4224 : tensor<64xi64>
    %r1 = tile.expand_dims %row, 0 : tensor<64xi64> -> tensor<1x64xi64>
    %rk = tile.broadcast %r1 : tensor<1x64xi64> -> tensor<128x64xi64>
    %inblock = arith.addi %rk, %dk : tensor<128x64xi64>
    %b1 = tile.expand_dims %base, 0 : tensor<64xi64> -> tensor<1x64xi64>
    %bk = tile.broadcast %b1 : tensor<1x64xi64> -> tensor<128x64xi64>
    %k = tile.load %kv[%inblock] block_base(%bk : tensor<128x64xi64>)
        {data_layout = #tile<data_layout preshuffled>}
        : !tile.ptr<i8>, tensor<128x64xi64> -> tensor<128x64xi8>
    tile.store %k, %kv[%inblock] : tensor<128x64xi8>, !tile.ptr<i8>, tensor<128x64xi64>
  }
  tile.return
}
