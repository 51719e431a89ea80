#!/usr/bin/env bash
# Builds Tessel from nothing and runs every test: lit + FileCheck (IR, ISA,
# PTX), GoogleTest (runtime, emulator, back end, kernels on the emulator),
# pytest (Python binding) and the install-consumer test. GPU tests skip
# without a GPU. Then builds the runtime alone, without LLVM/MLIR, under
# ASan + UBSan and runs its tests there.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup-deps.sh

BUILD=${TESSEL_BUILD_DIR:-build}
JOBS=${TESSEL_JOBS:-$(nproc)}
cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD" -j "$JOBS"
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS")

# The runtime alone, as on a GPU host with no LLVM or MLIR, built with
# AddressSanitizer and UndefinedBehaviorSanitizer (any report fails the run);
# its unit, CLI and Python tests run under them.
tools/run-sanitized-runtime-tests.sh "$BUILD-asan" "$JOBS"
echo "run-tests: all tests passed"
