#!/usr/bin/env bash
# test_readme_builds.sh README.md BUILD_DIR -- README's "Building against a
# build tree or a staged install": its owner.c (the C example of "Using the
# library") built and run by each ```sh block of that section as written,
# in a scratch directory where `build` is BUILD_DIR (the stage goes there
# too). Both must print the example's owner line.
set -euo pipefail
readme=$1 build=$(cd "$2" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk '/^## Using the library/ {s = 1} s && /^```c$/ {g = 1; next} g && /^```$/ {exit} g {print}' \
    "$readme" >"$dir/owner.c"
ln -s "$build" "$dir/build"
section() {
    awk -v want="$1" '/^### Building against a build tree or a staged install/ {s = 1; next}
        s && /^#/ {exit}
        s && /^```sh$/ {n++; g = (n == want); next}
        g && /^```$/ {g = 0; next}
        g {print}' "$readme"
}
passed=0
for block in 1 2; do
    section "$block" >"$dir/block$block.sh"
    [ -s "$dir/block$block.sh" ] || { echo "FAIL: no sh block $block in the README's section"; exit 1; }
    rm -f "$dir/owner"
    out=$(cd "$dir" && env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR -u LD_LIBRARY_PATH \
        bash -euo pipefail "block$block.sh" 2>&1) || { echo "FAIL: block $block:"; echo "$out"; exit 1; }
    grep -qE '^user:42 -> node-[ab]$' <<<"$out" || { echo "FAIL: block $block printed: $out"; exit 1; }
    passed=$((passed + 1))
done
# the staged program really came from the stage, not an earlier real install
grep -q "$dir/stage" <<<"$(cd "$dir" && PKG_CONFIG_PATH=$(dirname "$(find stage -name placer.pc)") \
    PKG_CONFIG_SYSROOT_DIR="$dir/stage" pkg-config --cflags placer)"
echo "test_readme_builds: $passed passed, 0 failed"
