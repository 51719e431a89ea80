// RUN: tessel-opt %s -tile-specialize-knobs="target=gfx950 knobs=fp8_fnuz=1" -verify-diagnostics
// Checks that binding a target-fixed knob against the target is an error.

// expected-error @+1 {{knob 'fp8_fnuz' is fixed by target gfx950 to 0, but was bound to 1}}
tile.kernel @k() attributes {knobs = [#tile.knob<"fp8_fnuz" : i1>]} {
  tile.return
}
