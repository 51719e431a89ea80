// RUN: tessel-opt %s -tile-specialize-knobs="knobs=chunk_k=sixty" -verify-diagnostics
// Checks that a knob value that is not an integer is rejected by name.

// expected-error @below {{knob 'chunk_k' has value 'sixty', which is not an integer}}
module {
  tile.kernel @k() attributes {knobs = [#tile.knob<"chunk_k" : i32 = 64>]} {
    tile.return
  }
}
