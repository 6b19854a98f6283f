#!/usr/bin/env bash
# bench/regress_ab.sh REF FILTER -- "bench/regress.sh ab REF [FILTER]" (its
# header says what it reports): REF's placer_bench and this tree's, run
# alternately, compared by bench/ab_compare.py.
#   $AB_ROUNDS      rounds, at least 7 (default 7)
#   $AB_NORM        the normalising benchmark (default codec/2^20/memcpy)
#   $AB_KEEP        a directory to keep each run's JSON in (default: discarded)
#   $AB_MIN_TIME    --benchmark_min_time per benchmark in seconds (default:
#                   Google Benchmark's); 0.1 keeps 14 runs short on a busy machine
#   $REGRESS_BUILD  this tree's build directory (default build/)
#   $REGRESS_THRESHOLD  percent (default 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-} filter=${2:-}
rounds=${AB_ROUNDS:-7}
norm=${AB_NORM:-codec/2^20/memcpy}
threshold=${REGRESS_THRESHOLD:-10}
build_b=${REGRESS_BUILD:-$root/build}
die() { echo "bench/regress.sh ab: $1" >&2; exit "$2"; }
[ -n "$ref" ] && [ -n "$filter" ] || die "usage: bench/regress.sh ab REF [FILTER]" 2
[[ $rounds =~ ^[0-9]+$ ]] && [ "$rounds" -ge 7 ] || die "AB_ROUNDS must be 7 or more" 2
sha=$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}") || die "no revision $ref" 2

tmp=$(mktemp -d)
cleanup() {
    git -C "$root" worktree remove --force "$tmp/src" >/dev/null 2>&1 || {
        rm -rf "$tmp/src"
        git -C "$root" worktree prune # only entries whose directory is gone
    }
    rm -rf "$tmp"
}
trap cleanup EXIT
echo "=== A: $ref ($sha) in a temporary worktree"
# Once more after a pause: another git command may hold the repository's lock.
git -C "$root" worktree add --detach "$tmp/src" "$sha" >"$tmp/worktree.log" 2>&1 ||
    { sleep 5; git -C "$root" worktree add --detach "$tmp/src" "$sha" >"$tmp/worktree.log" 2>&1; } ||
    { tail -5 "$tmp/worktree.log" >&2; die "git worktree add failed" 3; }
if ! { meson setup "$tmp/build" "$tmp/src" --buildtype=release -Dbench=enabled &&
    ninja -C "$tmp/build" bench/placer_bench; } >"$tmp/build-a.log" 2>&1; then
    tail -30 "$tmp/build-a.log"
    die "building $ref failed" 3
fi
echo "=== B: this tree ($(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ', with changes')) in $build_b"
if ! { { [ -f "$build_b/build.ninja" ] || meson setup "$build_b" "$root" --buildtype=release; } &&
    ninja -C "$build_b" bench/placer_bench; } >"$tmp/build-b.log" 2>&1; then
    tail -30 "$tmp/build-b.log"
    die "building this tree failed" 3
fi

pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
# The normaliser runs whatever FILTER says.
want="($filter)|^${norm//^/\\^}\$"
extra=()
[ -n "${AB_MIN_TIME:-}" ] && extra=(--benchmark_min_time="$AB_MIN_TIME")
run() { # run A|B ROUND
    local exe=$tmp/build/bench/placer_bench
    [ "$1" = B ] && exe=$build_b/bench/placer_bench
    "${pin[@]}" "$exe" --benchmark_filter="$want" "${extra[@]}" --benchmark_out="$tmp/$1.$2.json" \
        --benchmark_out_format=json >/dev/null 2>"$tmp/$1.$2.err" ||
        { cat "$tmp/$1.$2.err" >&2; die "placer_bench ($1, round $2) failed" 3; }
}
echo "=== $rounds rounds, pinned to ${pin[*]:-no core (taskset missing)}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < rounds; i++)); do
    if ((i % 2 == 0)); then run A "$i"; run B "$i"; else run B "$i"; run A "$i"; fi
    echo "  round $((i + 1))/$rounds done; load $(cut -d' ' -f1-3 /proc/loadavg)"
done
if [ -n "${AB_KEEP:-}" ]; then
    mkdir -p "$AB_KEEP"
    cp "$tmp"/[AB].*.json "$AB_KEEP/"
fi
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$root/bench/ab_compare.py" --norm "$norm" --threshold "$threshold" --rounds "$rounds" \
    --a-label "$ref" "$tmp"
