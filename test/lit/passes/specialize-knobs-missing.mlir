// RUN: tessel-opt %s -tile-specialize-knobs -verify-diagnostics
// Checks that a knob with neither a binding nor a default is an error that
// says how to bind it.

// expected-error @+1 {{knob 'chunk_k' of kernel @k has no value and no default; bind it with chunk_k=VALUE}}
tile.kernel @k() attributes {knobs = [#tile.knob<"chunk_k" : i32>]} {
  tile.return
}
