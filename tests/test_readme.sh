#!/usr/bin/env bash
# test_readme.sh README.md INCLUDE_DIR LIBPLACER_SO [SANITIZE] -- the library example in
# README.md (the first ```c block of "Using the library") is a complete
# program: it compiles warning-free as C11 against placer.h, links against
# libplacer and prints an owner. SANITIZE: the build's b_sanitize, so the
# example is built the way the library was. $CC: the build's compiler.
set -euo pipefail
readme=$1 inc=$2 lib=$3 san=${4:-none}
sanitize=()
[ "$san" = none ] || sanitize=(-fsanitize="$san")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk '/^## Using the library/ {in_section = 1}
     in_section && /^```c$/ {grab = 1; next}
     grab && /^```$/ {exit}
     grab {print}' "$readme" >"$dir/example.c"
[ -s "$dir/example.c" ] || { echo "FAIL: no C example under '## Using the library' in $readme"; exit 1; }
grep -q 'int main' "$dir/example.c" || { echo "FAIL: the README example has no main()"; exit 1; }
${CC:-cc} -std=c11 -Wall -Wextra -Werror "${sanitize[@]}" -I"$inc" "$dir/example.c" -o "$dir/example" \
    -L"$(dirname "$lib")" -l:"$(basename "$lib")" -Wl,-rpath,"$(dirname "$lib")"
# $RUN: a cross build's wrapper (qemu), when the example is for another machine.
out=$(${RUN:-} "$dir/example")
echo "README example printed: $out"
grep -qE '^user:42 -> node-[ab]$' <<<"$out" || { echo "FAIL: unexpected output"; exit 1; }
echo "test_readme: ok"
