#!/usr/bin/env bash
# Installs what building and testing Tessel needs on Debian 12: LLVM/MLIR 22
# from Debian, the build tools, GoogleTest, and the Python test packages.
# Safe to run repeatedly; it installs only what is missing.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build ccache g++ python3 python3-pip
  libgtest-dev
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22 liblld-22-dev
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

if ! python3 -c "import numpy, pytest" >/dev/null 2>&1; then
  echo "setup-deps: installing numpy and pytest"
  python3 -m pip install -q numpy pytest ||
    python3 -m pip install -q --break-system-packages numpy pytest
fi
