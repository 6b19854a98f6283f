#!/usr/bin/env bash
# scripts/build.sh [BUILD_DIR] -- configure (once) and build the release
# configuration: libplacer (shared + static), the placer command, tests,
# benchmarks. Extra configuration: meson configure BUILD_DIR -Doption=value.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" --buildtype=release
fi
ninja -C "$build"
