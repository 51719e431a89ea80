// RUN: tessel-translate %s --target=gfx942 --emit=simt --knob n=256 -o - | FileCheck %s --check-prefix=N256
// RUN: tessel-translate %s --target=gfx942 --emit=simt -o - | FileCheck %s --check-prefix=DEFAULT
// Checks that `{{...}}` knob templates give the tile shapes of the bound
// knob values (or of the declared default) before parsing: a 2n-element
// tile over one wave is 2n/64 elements per lane.

// N256: gpu.func @k
// N256: vector<8xf32>
// DEFAULT: gpu.func @k
// DEFAULT: vector<2xf32>
{{let total = 2 * n}}
tile.kernel @k(%x: !tile.ptr<f32>) attributes {knobs = [
    #tile.knob<"n" : i32 = 64, values = [64, 256]>,
    #tile.knob<"num_waves" : i32 = 1>]} {
  %r = tile.range 0 to {{total}} : tensor<{{total}}xi32>
  %v = arith.sitofp %r : tensor<{{(n + n) / 2 * 2}}xi32> to tensor<{{total}}xf32>
  tile.store %v, %x[%r] : tensor<{{total}}xf32>, !tile.ptr<f32>, tensor<{{total}}xi32>
  tile.return
}
