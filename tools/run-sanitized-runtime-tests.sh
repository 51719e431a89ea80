#!/usr/bin/env bash
# Builds the runtime alone (-DTESSEL_BUILD_COMPILER=OFF: no LLVM/MLIR, as on
# a GPU host) with AddressSanitizer and UndefinedBehaviorSanitizer, and runs
# its tests (ctest label "runtime": GoogleTest, the tessel-bundle CLI test and
# the Python binding) under them. Any sanitizer report fails the run.
#
#   tools/run-sanitized-runtime-tests.sh [BUILD_DIR] [JOBS]
#
# The Python interpreter is not instrumented, so the binding's test preloads
# libasan (ASan must come first in the process) and turns leak detection off
# (CPython frees little at exit); the torch binding's tests are off there
# (torch and its extensions are not instrumented). The install-consumer
# test is left out: it builds an uninstrumented program against the
# instrumented library.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-asan}
JOBS=${2:-$(nproc)}

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
FLAGS="$SAN -fno-omit-frame-pointer -g -O1"
ASAN_LIB=$("${CXX:-c++}" -print-file-name=libasan.so)
if [ ! -e "$ASAN_LIB" ]; then
  echo "run-sanitized-runtime-tests: libasan.so not found ($ASAN_LIB)" >&2
  exit 1
fi
# allocator_may_return_null: tests ask for impossible sizes and expect an
# error, not an ASan abort.
ASAN_OPTS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=0"
UBSAN_OPTS="halt_on_error=1:print_stacktrace=1"

cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_TESTS=ON \
  -DCMAKE_C_FLAGS_DEBUG="$FLAGS" -DCMAKE_CXX_FLAGS_DEBUG="$FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN" \
  -DCMAKE_MODULE_LINKER_FLAGS="$SAN" \
  "-DTESSEL_PYTHON_TEST_ENV=TESSEL_TEST_NO_TORCH=1;LD_PRELOAD=$ASAN_LIB;ASAN_OPTIONS=${ASAN_OPTS/detect_leaks=1/detect_leaks=0};UBSAN_OPTIONS=$UBSAN_OPTS"
ninja -C "$BUILD" -j "$JOBS"
cd "$BUILD"
ASAN_OPTIONS=$ASAN_OPTS UBSAN_OPTIONS=$UBSAN_OPTS \
  ctest --output-on-failure -j "$JOBS" -L runtime -E tessel-install-consumer
