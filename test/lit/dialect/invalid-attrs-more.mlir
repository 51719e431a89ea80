// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks knob value lists (fit and duplicates), wgmma N and mma K, nested
// slice dimensions, and the tile.divisibility argument attribute.

// expected-error @+1 {{value 5 of knob 'f' does not fit in 'i1'}}
tile.kernel @k() attributes {knobs = [#tile.knob<"f" : i1, values = [0, 5]>]} {
  tile.return
}

// -----

// expected-error @+1 {{value 200 of knob 'w' does not fit in 'i8'}}
tile.kernel @k() attributes {knobs = [#tile.knob<"w" : i8, values = [1, 200]>]} {
  tile.return
}

// -----

// expected-error @+1 {{knob 'w' lists the value 4 twice}}
tile.kernel @k() attributes {knobs = [#tile.knob<"w" : i32, values = [4, 8, 4]>]} {
  tile.return
}

// -----

// expected-error @+1 {{wgmma instrShape must be [64, N, K] with N a multiple of 8 from 8 to 256}}
func.func private @f(tensor<64x64xf32, #tile.nv_mma<{version = 3, instrShape = [64, 0, 32], wavesPerCTA = [4, 1]}>>)

// -----

// expected-error @+1 {{nv_mma K must be 8, 16 or 32, got 0}}
func.func private @f(tensor<64x64xf32, #tile.nv_mma<{version = 2, instrShape = [16, 8, 0], wavesPerCTA = [4, 1]}>>)

// -----

// expected-error @+1 {{slice dim 7 out of range for parent of rank 2}}
func.func private @f(tensor<4xf32, #tile.slice<{dim = 7, parent = #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 1, 8], threadsPerWave = [1, 4, 16], wavesPerCTA = [1, 1, 1], order = [2, 1, 0]}>}>}>>)

// -----

// expected-error @+1 {{tile.divisibility of argument #0 must be a positive power of two, got 3 : i64}}
tile.kernel @k(%x: !tile.ptr<f32> {tile.divisibility = 3 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{tile.divisibility applies to pointer and integer arguments, not 'f32'}}
tile.kernel @k(%x: f32 {tile.divisibility = 16 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{unknown argument attribute 'tile.bogus'}}
tile.kernel @k(%x: !tile.ptr<f32> {tile.bogus = 1 : i64}) {
  tile.return
}
