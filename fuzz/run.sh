#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] [TARGET...]
# Build the fuzz targets named (default: every one) with clang, libFuzzer,
# ASan and UBSan (in build-fuzz/, or $FUZZ_BUILD_DIR; only those targets and
# what they link) and run each for SECONDS (default 60).
# New inputs go to build-fuzz/fuzz-work/TARGET; the checked-in corpus in
# fuzz/corpus/TARGET is read, never written; fuzz/dict/TARGET.dict is used
# when the target has one. A crash stops the script with
# the reproducer's path; replay it with build-fuzz/fuzz/fuzz_TARGET FILE.
# Campaigns: fuzz/run.sh 3600; CI: fuzz/run.sh 20.
set -euo pipefail
secs=${1:-60}
[ $# -gt 0 ] && shift
case "$secs" in ''|*[!0-9]*) echo "usage: fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 1 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
if [ ! -f "$build/build.ninja" ]; then
    CC=clang CXX=clang++ meson setup "$build" "$root" \
        -Dfuzzing_engine=libfuzzer -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dbench=disabled -Dtests=false >/dev/null
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=()
    for f in "$root"/fuzz/fuzz_*.c; do
        n=$(basename "$f" .c)
        targets+=("${n#fuzz_}")
    done
fi
for t in "${targets[@]}"; do
    [ -f "$root/fuzz/fuzz_$t.c" ] || { echo "fuzz/run.sh: no target '$t'" >&2; exit 1; }
done
ninja -C "$build" "${targets[@]/#/fuzz/fuzz_}" >"$build/fuzz-build.log" 2>&1 ||
    { tail -40 "$build/fuzz-build.log" >&2; echo "fuzz/run.sh: the build failed (log: $build/fuzz-build.log)" >&2; exit 1; }
for t in "${targets[@]}"; do
    exe="$build/fuzz/fuzz_$t"
    [ -x "$exe" ] || { echo "fuzz/run.sh: no target '$t'" >&2; exit 1; }
    work="$build/fuzz-work/$t"
    mkdir -p "$work"
    echo "== fuzz_$t for ${secs}s"
    dictarg=() # the target's dictionary, as fuzz/campaign.sh gives it
    [ -f "$root/fuzz/dict/$t.dict" ] && dictarg=(-dict="$root/fuzz/dict/$t.dict")
    (cd "$work" && "$exe" -max_total_time="$secs" -print_final_stats=1 "${dictarg[@]}" \
        -artifact_prefix="$work/" "$work" "$root/fuzz/corpus/$t" 2>&1) |
        grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|.*FUZZ_ASSERT|SUMMARY|artifact_prefix|Test unit written)' || true
    # Any reproducer fails the run (one glob at a time: ls of several globs
    # fails when one of them matches nothing, which once hid a crash).
    found=()
    for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
        [ -e "$f" ] && found+=("$f")
    done
    if [ ${#found[@]} -gt 0 ]; then
        echo "fuzz_$t: FAILED, reproducers: ${found[*]}"
        exit 1
    fi
    echo "fuzz_$t: ok"
done
