// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks the verifier's rejection of dynamic tile shapes, negative axes and
// k, ranges outside their element type, zero-bin histograms, and layouts
// whose rank differs from the tensor's.

tile.kernel @k() {
  // expected-error @+1 {{'tile.range' op result #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xi32>'}}
  %r = tile.range 0 to 4 : tensor<?xi32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  %m = tile.reshape %v : tensor<128xf32> -> tensor<4x32xf32>
  // expected-error @+1 {{'tile.reduce' op axis -1 is out of range for a tensor of rank 2}}
  %s = tile.reduce max %m, -1 : tensor<4x32xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %v = tile.load %x[%r] : !tile.ptr<f32>, tensor<128xi32> -> tensor<128xf32>
  // expected-error @+1 {{'tile.expand_dims' op axis -2 is out of range for a tensor of rank 1}}
  %e = tile.expand_dims %v, -2 : tensor<128xf32> -> tensor<1x128xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-error @+1 {{'tile.scan' op axis -1 is out of range for a tensor of rank 1}}
  %s = tile.scan add %r, -1 : tensor<64xi32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.ptr<f32>, %y: !tile.ptr<i32>, %n: i32) {
  %o = arith.constant 0 : i64
  // expected-error @+1 {{'tile.topk' op k must be positive, got -4}}
  tile.topk %x[%o], %n -> %y[%o] {k = -4 : i32, chunk = 128 : i32} : !tile.ptr<f32>, !tile.ptr<i32>
  tile.return
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.range' op range 2147483640 to 2147483650 does not fit in 'i32'}}
  %r = tile.range 2147483640 to 2147483650 : tensor<10xi32>
  tile.return
}

// -----

tile.kernel @k() {
  // expected-error @+1 {{'tile.range' op result has 1 elements but the range has 18446744073709551615}}
  %r = tile.range -9223372036854775808 to 9223372036854775807 : tensor<1xi64>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  // expected-error @+1 {{'tile.histogram' op result must be a 1-D tensor of at least one bin}}
  %h = tile.histogram %r : tensor<64xi32> -> tensor<0xi32>
  tile.return
}

// -----

// expected-error @+1 {{layout #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}> has rank 2 but the tensor has rank 1}}
func.func private @f(tensor<128xf32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWave = [4, 16], wavesPerCTA = [1, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{has rank 1 but the tensor has rank 2}}
func.func private @f(tensor<4x128xf32, #tile.slice<{dim = 0, parent = #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 1, 8], threadsPerWave = [1, 4, 16], wavesPerCTA = [1, 1, 1], order = [2, 1, 0]}>}>}>>)
