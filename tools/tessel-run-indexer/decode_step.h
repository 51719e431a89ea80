//===- decode_step.h - One indexer decode step, checked ---------*- C++ -*-===//
//
// One decode step of the sparse-attention indexer, as an engine runs it:
// write the step's new K rows into the paged cache, build the logits
// schedule, compute the logits over every sequence's context, and pick each
// row's top-k columns. Every stage is checked against the references in
// reference.h and timed; the dispatcher's picks are logged by the runtime
// (TESSEL_LOG_TUNED_CONFIG).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_TOOLS_RUN_INDEXER_DECODE_STEP_H
#define TESSEL_TOOLS_RUN_INDEXER_DECODE_STEP_H

#include "tessel/tessel.h"

#include <random>

namespace indexer {

struct DecodeShape {
  int batch;
  int nextN;
  int heads;
  int blockSize;
  int minContext, maxContext; // each sequence's length, uniform in these
  int topK;
  int splitTokens; // the schedule's segment size
  int timedRuns;   // calls per stage timed after the checked one (0: none)
  bool logPicks;   // the checked calls log the dispatcher's pick
  bool preshuffle; // the cache's value layout (reference.h valueOffset)
};

/// Runs and checks the step; prints one line per stage. Returns the number
/// of failing stages (a stage the device has no kernel for is not run).
int runDecodeStep(tessel_context *ctx, const DecodeShape &s, bool fnuz,
                  std::mt19937_64 &rng);

} // namespace indexer

#endif // TESSEL_TOOLS_RUN_INDEXER_DECODE_STEP_H
