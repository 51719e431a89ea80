// RUN: tessel-opt %s -tile-specialize-knobs="knobs=chunkk=64" -verify-diagnostics
// Checks that binding a knob that no kernel declares is an error (a typo
// must not be ignored).

// expected-error @below {{unknown knob 'chunkk': no kernel in this module declares it}}
module {
  tile.kernel @k() attributes {knobs = [#tile.knob<"chunk_k" : i32 = 64>]} {
    tile.return
  }
}
