#!/usr/bin/env bash
# bench/run.sh [OUT.json] [GOOGLE BENCHMARK FLAGS...]
# The full benchmark matrix on the release build: pinned to one CPU when
# taskset exists, 5 repetitions of at least 0.1 s each, medians only, JSON to OUT.json (default
# build/bench-results.json), then the ratio table of bench/ratios.py.
# Example: bench/run.sh /tmp/r.json --benchmark_filter=lookup
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/bench-results.json}
[ $# -gt 0 ] && shift
"$root/scripts/build.sh" "$root/build" >/dev/null
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")
"${pin[@]}" "$root/build/bench/placer_bench" \
    --benchmark_repetitions=5 --benchmark_min_time=0.1 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out" --benchmark_out_format=json "$@" >/dev/null
python3 "$root/bench/ratios.py" "$out"
