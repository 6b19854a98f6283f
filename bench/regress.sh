#!/usr/bin/env bash
# bench/regress.sh save BASELINE.json [FILTER]
# bench/regress.sh compare BASELINE.json [FILTER]
# bench/regress.sh ab REF [FILTER]
# Timing regressions between two builds on the same machine. "save" runs the
# benchmarks (7 repetitions, pinned, medians) into BASELINE.json; "compare"
# runs them again and prints Google Benchmark's compare.py table (Debian's
# libbenchmark-tools), then the benchmarks whose median time grew by more
# than $REGRESS_THRESHOLD percent (default 10).
# "ab" is the one to trust on a machine whose speed changes (shared cores,
# other jobs): it builds git revision REF in a temporary worktree (its own
# build directory, removed afterwards), builds this tree into
# $REGRESS_BUILD (default build/), then runs the two placer_bench binaries
# alternately, pinned to the last core, for $AB_ROUNDS rounds (default and
# minimum 7; A B, then B A, so a drift of the machine's speed falls on
# both), and per benchmark compares the medians of CPU time. It prints the
# raw ratio B/A and the ratio normalised by $AB_NORM (default
# codec/2^20/memcpy: libc's memcpy of a snapshot, no placer code; another
# must be code the two builds share -- check with git diff REF -- and its
# own B/A, printed first, near 1: crc32c_hw_baseline, which calls into
# libplacer, moved to 0.72 against 88d386e, bench/RESULTS.md), which takes
# out a change of the whole machine's speed, and in how many rounds B was
# slower than A in the same round. A regression: normalised ratio over the
# threshold and B slower in all rounds but at most one.
# Default FILTER: the lookup and hash benchmarks up to 2^20 tokens.
# Exit status: 0 saved, or compared without a regression; 1 a regression
# was found; 2 usage error (no command, an unknown one, no BASELINE or REF,
# a missing baseline file, an unknown revision, too few rounds); 3 a build
# or the benchmark run failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-} base=${2:-}
filter=${3:-'^(hash64|(search|lookup)/(30720|2\^20)/)'}
threshold=${REGRESS_THRESHOLD:-10}
usage() { sed -n '2,/^set /{/^set /!p}' "$0" >&2; exit 2; }
[ -n "$cmd" ] && [ -n "$base" ] || usage
case "$cmd" in save | compare | ab) ;; *) usage ;; esac
[ "$cmd" != compare ] || [ -f "$base" ] || { echo "bench/regress.sh: no baseline file $base" >&2; exit 2; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
compare=/usr/share/benchmark/compare.py
if [ "$cmd" = ab ]; then
    exec "$root/bench/regress_ab.sh" "$base" "$filter"
fi
"$root/scripts/build.sh" "$root/build" >/dev/null || { echo "bench/regress.sh: the build failed" >&2; exit 3; }
run() {
    local pin=()
    command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
    "${pin[@]}" "$root/build/bench/placer_bench" --benchmark_filter="$filter" \
        --benchmark_repetitions=7 --benchmark_report_aggregates_only=true \
        --benchmark_out="$1" --benchmark_out_format=json >/dev/null 2>&1 ||
        { echo "bench/regress.sh: the benchmarks failed" >&2; exit 3; }
}
case "$cmd" in
save)
    run "$base"
    echo "saved $base"
    ;;
compare)
    new=$(mktemp --suffix=.json)
    run "$new"
    [ -f "$compare" ] && "$py" "$compare" --no-color benchmarks "$base" "$new" | grep -E '_median|Benchmark' || true
    "$py" - "$base" "$new" "$threshold" <<'PY'
import json, sys
def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b["real_time"]
    return out
try:
    old, new, limit = medians(sys.argv[1]), medians(sys.argv[2]), float(sys.argv[3])
except (OSError, ValueError, KeyError) as e:
    print(f"bench/regress.sh: cannot read the results: {e}", file=sys.stderr)
    sys.exit(3)
bad = [(n, old[n], new[n]) for n in sorted(old) if n in new and new[n] > old[n] * (1 + limit / 100)]
print(f"\n{len(bad)} regressions over {limit:.0f}% among {len(set(old) & set(new))} benchmarks")
for n, o, t in bad:
    print(f"  {n}: {o:.2f} -> {t:.2f} ({(t / o - 1) * 100:+.1f}%)")
sys.exit(1 if bad else 0)
PY
    ;;
esac
