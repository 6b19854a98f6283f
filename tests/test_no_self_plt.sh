#!/usr/bin/env bash
# tests/test_no_self_plt.sh OBJDUMP NM SHARED_LIBRARY -- the shared library
# calls none of its own exported functions through its PLT: each such call
# is an indirect jump where a direct call would do (placer_router_lookup
# paid two around its lookup). The matcher is first run on a made-up
# disassembly, so that a matcher that sees nothing fails the test.
set -uo pipefail
objdump=$1 nm=$2 lib=$3

# Lines "SYMBOL" for every call or jump through a PLT entry of an exported
# symbol. $1: disassembly (objdump -d), $2: exported names, one a line.
self_plt_calls() {
    grep -oE '(call|jmp)q? +[0-9a-f]+ <[^@>]+@plt>' <<<"$1" |
        sed -E 's/.*<([^@>]+)@plt>/\1/' | sort -u |
        comm -12 - <(printf '%s\n' "$2" | sort -u)
}

fake_dis='    1a2b:	e8 10 00 00 00       	call   1a40 <placer_snapshot_free@plt>
    1a30:	e8 20 00 00 00       	call   1a50 <memcpy@plt>
    1a35:	e9 30 00 00 00       	jmp    1a60 <placer_lookup@plt>
    1a3a:	e8 40 00 00 00       	call   1a70 <placer_router_acquire>'
fake_exports='placer_lookup
placer_router_acquire
placer_snapshot_free'
want='placer_lookup
placer_snapshot_free'
got=$(self_plt_calls "$fake_dis" "$fake_exports")
if [ "$got" != "$want" ]; then
    printf 'FAIL: the matcher found [%s] in the made-up disassembly, not [%s]\n' "$got" "$want"
    exit 1
fi

exports=$("$nm" -D --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TtWiu]$/ {print $3}') ||
    { echo "FAIL: $nm -D $lib"; exit 1; }
[ -n "$exports" ] || { echo "FAIL: no exported function read from $lib"; exit 1; }
dis=$("$objdump" -d "$lib") || { echo "FAIL: $objdump -d $lib"; exit 1; }
grep -q '@plt>' <<<"$dis" || { echo "FAIL: no PLT call at all in $lib (malloc's should be)"; exit 1; }
bad=$(self_plt_calls "$dis" "$exports")
if [ -n "$bad" ]; then
    echo "FAIL: $(basename "$lib") calls its own exports through the PLT:" $bad
    exit 1
fi
echo "test_no_self_plt: $(basename "$lib") calls none of its $(wc -l <<<"$exports") exported functions through its PLT"
