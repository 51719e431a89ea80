// RUN: not tessel-translate %s --target=gfx942 --emit=simt --knob n=2 -o /dev/null 2>&1 | FileCheck %s
// RUN: not tessel-translate %s --target=gfx942 --emit=simt --knob n=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// Checks that a knob template naming neither a knob with a value nor an
// earlier {{let}} is an error at its line and column, and that a template
// dividing by zero is too.

// CHECK: bad-knob-template.mlir:[[@LINE+5]]:26: error: 'm' is neither a knob with a value
// ZERO: bad-knob-template.mlir:[[@LINE+3]]:31: error: division by zero in a template
tile.kernel @k(%x: !tile.ptr<f32>) attributes {knobs = [
    #tile.knob<"n" : i32>]} {
  %r = tile.range 0 to {{64 / n}} : tensor<64xi32>
  %s = tile.range 0 to {{m}} : tensor<64xi32>
  tile.return
}
