// RUN: tessel-opt %s -split-input-file -verify-diagnostics
// Checks that the barrier forms of the async ops and the ring type reject
// bad IR with precise messages: stage counts, a wait with both or neither
// of its forms, a barrier without its fill index.

tile.kernel @zero_stages() {
  // expected-error @+1 {{an async barrier ring has 1 to 16 stages, got 0}}
  %b = tile.async_barrier_alloc : !tile.async_barrier<0>
  tile.return
}

// -----

tile.kernel @too_many_stages() {
  // expected-error @+1 {{an async barrier ring has 1 to 16 stages, got 17}}
  %b = tile.async_barrier_alloc : !tile.async_barrier<17>
  tile.return
}

// -----

tile.kernel @wait_both(%i: i32) {
  %b = tile.async_barrier_alloc : !tile.async_barrier<3>
  %g = tile.async_commit_group barrier(%b[%i] : !tile.async_barrier<3>)
  // expected-error @+1 {{waits either for groups ({num = N}) or for a barrier fill (barrier(%bar[%fill])), not both}}
  %w = tile.async_wait %g barrier(%b[%i] : !tile.async_barrier<3>) {num = 0 : i32}
  tile.return
}

// -----

tile.kernel @wait_neither(%i: i32) {
  %b = tile.async_barrier_alloc : !tile.async_barrier<3>
  %g = tile.async_commit_group barrier(%b[%i] : !tile.async_barrier<3>)
  // expected-error @+1 {{waits either for groups ({num = N}) or for a barrier fill (barrier(%bar[%fill])), not neither}}
  %w = tile.async_wait %g
  tile.return
}

// -----

tile.kernel @barrier_without_fill() {
  %b = tile.async_barrier_alloc : !tile.async_barrier<2>
  // expected-error @+1 {{a barrier needs a fill index, and a fill index a barrier}}
  %g = "tile.async_commit_group"(%b) {operandSegmentSizes = array<i32: 0, 1, 0>} : (!tile.async_barrier<2>) -> !tile.async_token
  tile.return
}

// -----

tile.kernel @wait_fill_without_barrier(%i: i32) {
  %b = tile.async_barrier_alloc : !tile.async_barrier<3>
  %g = tile.async_commit_group barrier(%b[%i] : !tile.async_barrier<3>)
  // expected-error @+1 {{a barrier needs a fill index, and a fill index a barrier}}
  %w = "tile.async_wait"(%g, %i) {operandSegmentSizes = array<i32: 1, 0, 1>} : (!tile.async_token, i32) -> !tile.async_token
  tile.return
}
