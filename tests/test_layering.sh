#!/usr/bin/env bash
# tests/test_layering.sh SOURCE_ROOT -- the libraries' layering holds:
# nothing in control/ (libplacer-control) or cli/ (the placer command)
# includes a header of the engine or the kernels; they are built on the
# public headers alone (include/placer.h, include/placer_control.h).
set -uo pipefail
root=$1
fail=0
# Every header under engine/ (its folders too) and simd/ is internal to libplacer.
internal=$(cd "$root" && find engine simd -name "*.h" | xargs -n1 basename | sort -u)
for dir in control cli; do
    for f in "$root/$dir"/*.c "$root/$dir"/*.h; do
        [ -e "$f" ] || continue
        while IFS= read -r inc; do
            name=$(basename "$inc")
            if grep -qxF "$name" <<<"$internal"; then
                echo "FAIL: $dir/$(basename "$f") includes the internal header $inc"
                fail=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f")
    done
done
# The check itself must be able to fail: an engine header is recognised.
grep -qxF builder_internal.h <<<"$internal" || { echo "FAIL: engine headers not found"; fail=1; }
if [ "$fail" = 0 ]; then
    echo "test_layering: control/ and cli/ include public headers only"
fi
exit "$fail"
