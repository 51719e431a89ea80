#!/usr/bin/env bash
# Builds Tessel from nothing and runs every test: lit + FileCheck (IR, ISA,
# PTX), GoogleTest (runtime, emulator, back end, kernels on the emulator),
# pytest (Python binding) and the install-consumer test. GPU tests skip
# without a GPU. Also checks that the runtime alone builds without LLVM/MLIR.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup-deps.sh

BUILD=${TESSEL_BUILD_DIR:-build}
JOBS=${TESSEL_JOBS:-$(nproc)}
cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD" -j "$JOBS"
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS")

# The runtime core must build on a GPU host that has no LLVM or MLIR.
cmake -G Ninja -S . -B "$BUILD-runtime-only" -DCMAKE_BUILD_TYPE=Release \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_TESTS=OFF
ninja -C "$BUILD-runtime-only" -j "$JOBS"
echo "run-tests: all tests passed"
