#!/usr/bin/env bash
# tests/test_layering.sh SOURCE_ROOT -- the libraries' layering holds:
# nothing in control/ (libplacer-control) or cli/ (the placer command)
# includes a header of the engine or the kernels; they are built on the
# public headers alone (include/placer.h, include/placer_control.h).
set -uo pipefail
root=$1
fail=0
# Every header under engine/ (its folders too) and simd/ is internal to libplacer.
internal=$(cd "$root" && find engine simd -name "*.h" -printf "%f\n" | sort -u)
# One pass over every include line of control/ and cli/ (a process per
# line made this take seconds on a loaded machine).
bad=$(cd "$root" && grep -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' control/*.[ch] cli/*.[ch] 2>/dev/null |
    awk -v list="$internal" '
        BEGIN { n = split(list, names, "\n"); for (i = 1; i <= n; i++) internal[names[i]] = 1 }
        {
            file = $0; sub(/:.*/, "", file)
            inc = $0; sub(/^[^:]*:[[:space:]]*#[[:space:]]*include[[:space:]]*["<]/, "", inc); sub(/[">].*/, "", inc)
            name = inc; sub(/.*\//, "", name)
            if (name in internal) printf "FAIL: %s includes the internal header %s\n", file, inc
        }')
if [ -n "$bad" ]; then
    echo "$bad"
    fail=1
fi
# The check itself must be able to fail: an engine header is recognised.
grep -qxF builder_internal.h <<<"$internal" || { echo "FAIL: engine headers not found"; fail=1; }
if [ "$fail" = 0 ]; then
    echo "test_layering: control/ and cli/ include public headers only"
fi
exit "$fail"
