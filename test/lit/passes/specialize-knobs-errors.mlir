// RUN: tessel-opt %s -split-input-file -tile-specialize-knobs="knobs=block=96" -verify-diagnostics
// Checks that a knob value outside the declared values is rejected.

// expected-error @+1 {{knob 'block' of kernel @k may not be 96; allowed values: array<i64: 64, 128>}}
tile.kernel @k() attributes {knobs = [#tile.knob<"block" : i32 = 64, values = [64, 128]>]} {
  tile.return
}
