// RUN: not tessel-opt %s -split-input-file -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -convert-tile-to-simt=target=gfx942 2>&1 | FileCheck %s
// Checks that reductions and scans across lanes of element types the lane
// moves do not carry (wider than 64 bits, narrower than 32) are an error
// that names the op and the type, not a crash or a wrong lowering.

// CHECK: error: tile.reduce across lanes takes integer or float elements of 32 or 64 bits, got 'i128'
tile.kernel @reduce_i128(%x: !tile.ptr<i128>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 4>]} {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %v = tile.load %x[%r] : !tile.ptr<i128>, tensor<512xi32> -> tensor<512xi128>
  %s = tile.reduce max %v, 0 : tensor<512xi128> -> i128
  %c0 = arith.constant 0 : i32
  tile.store %s, %x[%c0] : i128, !tile.ptr<i128>, i32
  tile.return
}

// -----

// CHECK: error: tile.scan across lanes takes integer or float elements of 32 or 64 bits, got 'i128'
tile.kernel @scan_i128(%x: !tile.ptr<i128>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 1>]} {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %v = tile.load %x[%r] : !tile.ptr<i128>, tensor<64xi32> -> tensor<64xi128>
  %s = tile.scan add %v, 0 : tensor<64xi128>
  tile.store %s, %x[%r] : tensor<64xi128>, !tile.ptr<i128>, tensor<64xi32>
  tile.return
}

// -----

// CHECK: error: tile.scan across lanes takes integer or float elements of 32 or 64 bits, got 'f16'
tile.kernel @scan_f16(%x: !tile.ptr<f16>) attributes {knobs = [#tile.knob<"num_waves" : i32 = 2>]} {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %v = tile.load %x[%r] : !tile.ptr<f16>, tensor<256xi32> -> tensor<256xf16>
  %s = tile.scan max %v, 0 {exclusive} : tensor<256xf16>
  tile.store %s, %x[%r] : tensor<256xf16>, !tile.ptr<f16>, tensor<256xi32>
  tile.return
}
