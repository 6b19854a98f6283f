#!/usr/bin/env bash
# tests/test_abi_symbols.sh NM SHARED_LIBRARY LIST -- the shared library
# exports exactly the symbols of LIST (tests/abi/libplacer.symbols,
# tests/abi/libplacer-control.symbols): an export added, renamed or lost is
# an ABI change, so the list is updated deliberately, in the same commit,
# with NEWS.md saying so. To regenerate a list from a build directory DIR:
#
#   nm -D --defined-only DIR/engine/libplacer.so | awk 'NF == 3 && $2 ~ /^[TDRBVWiu]$/ {print $3}' | sort -u > tests/abi/libplacer.symbols
#   nm -D --defined-only DIR/control/libplacer-control.so | awk 'NF == 3 && $2 ~ /^[TDRBVWiu]$/ {print $3}' | sort -u > tests/abi/libplacer-control.symbols
set -uo pipefail
nm=$1 lib=$2 list=$3
exports() {
    "$nm" -D --defined-only "$1" | awk 'NF == 3 && $2 ~ /^[TDRBVWiu]$/ {print $3}' | sort -u
}
got=$(exports "$lib") || { echo "FAIL: $nm -D $lib"; exit 1; }
# The check itself must be able to fail: an export missing from a list is seen.
[ -n "$got" ] || { echo "FAIL: no exported symbol read from $lib"; exit 1; }
if [ "$(comm -23 <(printf '%s\n' "$got") <(printf '%s\n' "$got" | sed 1d))" = "" ]; then
    echo "FAIL: the comparison misses a symbol left out of a list"
    exit 1
fi
want=$(grep -v '^#' "$list" | sed '/^$/d' | sort -u)
added=$(comm -23 <(printf '%s\n' "$got") <(printf '%s\n' "$want"))
lost=$(comm -13 <(printf '%s\n' "$got") <(printf '%s\n' "$want"))
if [ -n "$added$lost" ]; then
    [ -n "$added" ] && printf 'FAIL: exported but not in %s: %s\n' "$(basename "$list")" $added
    [ -n "$lost" ] && printf 'FAIL: in %s but not exported: %s\n' "$(basename "$list")" $lost
    echo "An ABI change: update the list deliberately (the command is in tests/test_abi_symbols.sh) and say so in NEWS.md."
    exit 1
fi
echo "test_abi_symbols: $(basename "$lib") exports the $(wc -l <<<"$got") symbols of $(basename "$list")"
