// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that #tile.linear rejects malformed bases and tensors it does not
// fit with a message naming the problem.

// expected-error @+1 {{linear layout rank must be at least 1}}
#l = #tile.linear<{rank = 0, register = [], lane = [], wave = []}>

// -----

// expected-error @+1 {{linear layout 'lane' bases must have 2 coordinates each}}
#l = #tile.linear<{rank = 2, register = [[0, 1]], lane = [[1, 0, 0]], wave = []}>

// -----

// expected-error @+1 {{linear layout coordinates must be non-negative, got -1}}
#l = #tile.linear<{rank = 2, register = [[0, -1]], lane = [], wave = []}>

// -----

#l = #tile.linear<{rank = 2, register = [[0, 1]], lane = [[1, 0]], wave = []}>
tile.kernel @k() {
  // expected-error @+1 {{has rank 2 but the tensor has rank 1}}
  %c = arith.constant dense<1.0> : tensor<4xf32, #l>
  tile.return
}

// -----

#l = #tile.linear<{rank = 2, register = [[0, 4]], lane = [[1, 0]], wave = []}>
tile.kernel @k() {
  // expected-error @+1 {{holds coordinate 4 of dimension 1, outside the tensor's 2}}
  %c = arith.constant dense<1.0> : tensor<2x2xf32, #l>
  tile.return
}

// -----

#l = #tile.linear<{rank = 2, register = [[0, 1]], lane = [[0, 0]], wave = []}>
tile.kernel @k() {
  // expected-error @+1 {{leaves elements of the tensor unheld}}
  %c = arith.constant dense<1.0> : tensor<2x2xf32, #l>
  tile.return
}
