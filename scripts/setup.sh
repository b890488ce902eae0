#!/usr/bin/env bash
# Quick start, step 1: installs what kdt needs (Debian 12, as root),
# configures and builds it in build/, and runs kdt's main job on the
# flagship sample: the Pallas seed case, an accumulating DMA, on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(antlr4 libantlr4-runtime-dev libboost-program-options-dev nlohmann-json3-dev doctest-dev
          cmake g++ ninja-build python3-numpy python3-venv man-db gdb libopenmpi-dev openmpi-bin
          python3-jsonschema neovim zsh)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target kdt
mkdir -p build/out
build/kdt run samples/accumulate_blocks.kd --random-all --output-dir build/out
