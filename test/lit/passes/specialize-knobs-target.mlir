// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx942 | FileCheck %s --check-prefix=FNUZ
// RUN: tessel-opt %s -tile-specialize-knobs=target=gfx950 | FileCheck %s --check-prefix=FN
// RUN: tessel-opt %s -tile-specialize-knobs=target=sm_90 | FileCheck %s --check-prefix=FN
// Checks that the target binds fp8_fnuz: e4m3fnuz only on gfx942.

// FNUZ: tessel.knobs = {fp8_fnuz = true}
// FN: tessel.knobs = {fp8_fnuz = false}
tile.kernel @k() attributes {knobs = [#tile.knob<"fp8_fnuz" : i1>]} {
  %f = tile.knob "fp8_fnuz" : i1
  tile.return
}
