// RUN: tessel-opt %s -tile-specialize-knobs -tile-assign-layouts=target=gfx942 -verify-diagnostics
// Checks that a wave count the target cannot launch is rejected.

// expected-error @+1 {{num_waves = 3 is not supported on gfx942: it must be a power of two with num_waves * 64 <= 1024}}
tile.kernel @k() attributes {knobs = [#tile.knob<"num_waves" : i32 = 3>]} {
  tile.return
}
