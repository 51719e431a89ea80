// RUN: tessel-opt %s -mlir-print-op-generic | tessel-opt | FileCheck %s
// RUN: tessel-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// Checks that the generic form of tile ops (kernel with knobs, knob, load
// with optional operands, atomic_rmw with a default scope, scan and topk
// with unit attributes, a layout encoding) parses back to the same ops.

#blocked = #tile.blocked<{sizePerThread = [4], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>

// GENERIC: "tile.kernel"()
// GENERIC-SAME: knobs = [#tile.knob<"block" : i32 = 8, values = [8, 16]>]
// GENERIC-SAME: sym_name = "generic"
// CHECK-LABEL: tile.kernel @generic(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: !tile.ptr<f32> {tile.divisibility = 16 : i64},
// CHECK-SAME: %[[Q:[a-z0-9_]+]]: !tile.ptr<i32>,
// CHECK-SAME: %[[N:[a-z0-9_]+]]: i32)
// CHECK-SAME: attributes {knobs = [#tile.knob<"block" : i32 = 8, values = [8, 16]>]}
tile.kernel @generic(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %q: !tile.ptr<i32>, %n: i32)
    attributes {knobs = [#tile.knob<"block" : i32 = 8, values = [8, 16]>]} {
  // GENERIC: "tile.knob"() <{name = "block"}> : () -> i32
  // CHECK: tile.knob "block" : i32
  %b = tile.knob "block" : i32
  // CHECK: %[[R:.+]] = tile.range 0 to 256 : tensor<256xi32>
  %r = tile.range 0 to 256 : tensor<256xi32>
  // CHECK: %[[NV:.+]] = tile.splat %[[N]] : i32 -> tensor<256xi32>
  %nv = tile.splat %n : i32 -> tensor<256xi32>
  // CHECK: %[[M:.+]] = arith.cmpi
  %m = arith.cmpi slt, %r, %nv : tensor<256xi32>
  %z = arith.constant dense<0.0> : tensor<256xf32>
  // GENERIC: "tile.load"
  // GENERIC-SAME: operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>
  // CHECK: %[[V:.+]] = tile.load %[[P]][%[[R]]] mask(%[[M]] : tensor<256xi1>) other(%{{.+}} : tensor<256xf32>) : !tile.ptr<f32>, tensor<256xi32> -> tensor<256xf32>
  %v = tile.load %p[%r] mask(%m : tensor<256xi1>) other(%z : tensor<256xf32>)
      : !tile.ptr<f32>, tensor<256xi32> -> tensor<256xf32>
  // GENERIC: "tile.load"
  // GENERIC-SAME: operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>
  // CHECK: tile.load %[[P]][%[[R]]] : !tile.ptr<f32>, tensor<256xi32> -> tensor<256xf32>
  %v2 = tile.load %p[%r] : !tile.ptr<f32>, tensor<256xi32> -> tensor<256xf32>
  // CHECK: tile.atomic_rmw add, %[[Q]][%[[R]]], %[[NV]] : !tile.ptr<i32>, tensor<256xi32>, tensor<256xi32>
  %a = tile.atomic_rmw add, %q[%r], %nv : !tile.ptr<i32>, tensor<256xi32>, tensor<256xi32>
  // CHECK: tile.scan add %[[NV]], 0 {exclusive, reverse} : tensor<256xi32>
  %s = tile.scan add %nv, 0 {exclusive, reverse} : tensor<256xi32>
  // CHECK: tile.topk %[[P]][%{{.+}}], %[[N]] -> %[[Q]][%{{.+}}] {chunk = 256 : i32, k = 8 : i32, sorted, stable} : !tile.ptr<f32>, !tile.ptr<i32>
  %o = arith.constant 0 : i64
  tile.topk %p[%o], %n -> %q[%o] {k = 8 : i32, chunk = 256 : i32, sorted, stable} : !tile.ptr<f32>, !tile.ptr<i32>
  // CHECK: tile.convert_layout %[[V]] : tensor<256xf32> -> tensor<256xf32, #tile.blocked<{sizePerThread = [4], threadsPerWave = [64], wavesPerCTA = [1], order = [0]}>>
  %c = tile.convert_layout %v : tensor<256xf32> -> tensor<256xf32, #blocked>
  // GENERIC: "tile.return"() : () -> ()
  // CHECK: tile.return
  tile.return
}
