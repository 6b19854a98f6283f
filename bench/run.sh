#!/usr/bin/env bash
# bench/run.sh [OUT.json] [GOOGLE BENCHMARK FLAGS...]
# The full benchmark matrix on the release build: 5 repetitions of at least
# 0.1 s each, medians only. Single-threaded benchmarks run pinned to one CPU
# (when taskset exists) into OUT.json (default build/bench-results.json);
# the router's, whose readers and writer need every core, run unpinned into
# OUT-router.json. Then the ratio table of bench/ratios.py over both.
# Example: bench/run.sh /tmp/r.json --benchmark_filter=lookup
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/bench-results.json}
[ $# -gt 0 ] && shift
"$root/scripts/build.sh" "$root/build" >/dev/null
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
common=(--benchmark_repetitions=5 --benchmark_min_time=0.1 --benchmark_report_aggregates_only=true
    --benchmark_out_format=json)
"${pin[@]}" "$root/build/bench/placer_bench" "${common[@]}" --benchmark_filter='^[^r]' \
    --benchmark_out="$out" "$@" >/dev/null
"$root/build/bench/placer_bench" "${common[@]}" --benchmark_filter='^router/' \
    --benchmark_out="${out%.json}-router.json" "$@" >/dev/null
python3 "$root/bench/ratios.py" "$out" "${out%.json}-router.json"
