// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// Checks that !tile.ptr, tile.ptr_cast, tile.load (plain, masked, masked
// with other, scalar, preshuffled, volatile) and tile.store (plain, masked,
// scalar, with a data layout) print in their custom syntax and parse back
// unchanged.

// CHECK-LABEL: tile.kernel @memory(
// CHECK-SAME: %[[BYTES:[a-z0-9_]+]]: !tile.ptr<i8>,
// CHECK-SAME: %[[P:[a-z0-9_]+]]: !tile.ptr<f32>,
// CHECK-SAME: %[[I:[a-z0-9_]+]]: !tile.ptr<i64>,
// CHECK-SAME: %[[O:[a-z0-9_]+]]: i64)
tile.kernel @memory(%bytes: !tile.ptr<i8>, %p: !tile.ptr<f32>,
                    %ip: !tile.ptr<i64>, %o: i64) {
  // CHECK: %[[BF:.+]] = tile.ptr_cast %[[BYTES]] : !tile.ptr<i8> to !tile.ptr<bf16>
  %bf = tile.ptr_cast %bytes : !tile.ptr<i8> to !tile.ptr<bf16>
  // CHECK: %[[F8:.+]] = tile.ptr_cast %[[BYTES]] : !tile.ptr<i8> to !tile.ptr<f8E4M3FNUZ>
  %f8 = tile.ptr_cast %bytes : !tile.ptr<i8> to !tile.ptr<f8E4M3FNUZ>
  // CHECK: tile.ptr_cast %[[BYTES]] : !tile.ptr<i8> to !tile.ptr<i8>
  %same = tile.ptr_cast %bytes : !tile.ptr<i8> to !tile.ptr<i8>

  %r = tile.range 0 to 128 : tensor<128xi32>
  // CHECK: %[[OFFS:.+]] = arith.extsi
  %offs = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  %lim = arith.constant dense<100> : tensor<128xi64>
  // CHECK: %[[M:.+]] = arith.cmpi
  %m = arith.cmpi slt, %offs, %lim : tensor<128xi64>
  // CHECK: %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %z = arith.constant dense<0.0> : tensor<128xf32>

  // Plain gather with i64 and i32 offsets.
  // CHECK: %[[V:.+]] = tile.load %[[P]][%[[OFFS]]] : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  %v = tile.load %p[%offs] : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  // CHECK: tile.load %[[BF]][%{{.+}}] : !tile.ptr<bf16>, tensor<128xi32> -> tensor<128xbf16>
  %v32 = tile.load %bf[%r] : !tile.ptr<bf16>, tensor<128xi32> -> tensor<128xbf16>
  // CHECK: tile.load %[[P]][%[[OFFS]]] mask(%[[M]] : tensor<128xi1>) : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  %vm = tile.load %p[%offs] mask(%m : tensor<128xi1>) : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  // CHECK: tile.load %[[P]][%[[OFFS]]] mask(%[[M]] : tensor<128xi1>) other(%[[Z]] : tensor<128xf32>) : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  %vo = tile.load %p[%offs] mask(%m : tensor<128xi1>) other(%z : tensor<128xf32>)
      : !tile.ptr<f32>, tensor<128xi64> -> tensor<128xf32>
  // Scalar load, plain and with a scalar mask and other.
  // CHECK: %[[SC:.+]] = tile.load %[[I]][%[[O]]] : !tile.ptr<i64>, i64 -> i64
  %sc = tile.load %ip[%o] : !tile.ptr<i64>, i64 -> i64
  %t = arith.constant true
  // CHECK: tile.load %[[I]][%[[O]]] mask(%{{.+}} : i1) other(%[[SC]] : i64) : !tile.ptr<i64>, i64 -> i64
  %scm = tile.load %ip[%o] mask(%t : i1) other(%sc : i64) : !tile.ptr<i64>, i64 -> i64
  // A preshuffled K tile [128 bytes, 16 tokens], with and without a block
  // base.
  %offs_1 = tile.expand_dims %offs, 1 : tensor<128xi64> -> tensor<128x1xi64>
  // CHECK: %[[KOFF:.+]] = tile.broadcast
  %koff = tile.broadcast %offs_1 : tensor<128x1xi64> -> tensor<128x16xi64>
  // CHECK: tile.load %[[BYTES]][%[[KOFF]]] {data_layout = #tile<data_layout preshuffled>} : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  %pre = tile.load %bytes[%koff] {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  // CHECK: tile.load %[[BYTES]][%[[KOFF]]] block_base(%[[KOFF]] : tensor<128x16xi64>) {data_layout = #tile<data_layout preshuffled>} : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  %preb = tile.load %bytes[%koff] block_base(%koff : tensor<128x16xi64>)
      {data_layout = #tile<data_layout preshuffled>}
      : !tile.ptr<i8>, tensor<128x16xi64> -> tensor<128x16xi8>
  // CHECK: tile.load %[[F8]][%[[OFFS]]] {data_layout = #tile<data_layout plain>, volatile_} : !tile.ptr<f8E4M3FNUZ>, tensor<128xi64> -> tensor<128xf8E4M3FNUZ>
  %vol = tile.load %f8[%offs] {data_layout = #tile<data_layout plain>, volatile_}
      : !tile.ptr<f8E4M3FNUZ>, tensor<128xi64> -> tensor<128xf8E4M3FNUZ>

  // CHECK: tile.store %[[V]], %[[P]][%[[OFFS]]] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  tile.store %v, %p[%offs] : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  // CHECK: tile.store %[[V]], %[[P]][%[[OFFS]]] mask(%[[M]] : tensor<128xi1>) : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  tile.store %v, %p[%offs] mask(%m : tensor<128xi1>) : tensor<128xf32>, !tile.ptr<f32>, tensor<128xi64>
  // CHECK: tile.store %[[SC]], %[[I]][%[[O]]] : i64, !tile.ptr<i64>, i64
  tile.store %sc, %ip[%o] : i64, !tile.ptr<i64>, i64
  // CHECK: tile.store %{{.+}}, %[[F8]][%[[OFFS]]] {data_layout = #tile<data_layout preshuffled>} : tensor<128xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<128xi64>
  tile.store %vol, %f8[%offs] {data_layout = #tile<data_layout preshuffled>}
      : tensor<128xf8E4M3FNUZ>, !tile.ptr<f8E4M3FNUZ>, tensor<128xi64>
  tile.return
}
