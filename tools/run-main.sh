#!/usr/bin/env bash
# The main job: builds Tessel, compiles every DSL kernel for every target
# (gfx942, gfx950, sm_90 and the emulator) into the kernel library, prints
# each code object's resource usage, and runs the indexer pipeline on the best
# device present (CUDA, then HIP, then the SIMT emulator), checking every
# result against a float64 reference.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup-deps.sh

BUILD=${TESSEL_BUILD_DIR:-build}
JOBS=${TESSEL_JOBS:-$(nproc)}
cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD" -j "$JOBS" tessel-translate tessel_kernels tessel-run-indexer tessel_emu
"$BUILD/bin/tessel-run-indexer" --bundle "$BUILD/kernels/tessel_kernels.tbundle" "$@"
