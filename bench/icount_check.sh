#!/usr/bin/env bash
# bench/icount_check.sh WORKLOAD BUDGET_FILE [--update]
# Count the instructions of the fixed lookup workload under callgrind and
# compare with the checked-in budget for the kernel valgrind's CPU selects
# (valgrind emulates no AVX-512, so it picks a narrower kernel; the budget
# file has one line per kernel: "<kernel> <instructions>").
#   more than budget x 1.05: FAIL (a regression, or update on purpose);
#   less than budget x 0.90: pass, with a request to lower the budget.
# --update rewrites the kernel's line with the count just measured.
set -euo pipefail
workload=$1 budget=$2 update=${3:-}
command -v valgrind >/dev/null || { echo "icount: valgrind not installed (scripts/setup.sh installs it)"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
line=$(valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=run_lookups \
    "$workload" 2>/dev/null)
kernel=$(awk '{print $2}' <<<"$line")
count=$(awk '/^(summary|totals):/ {print $2; exit}' "$out")
echo "icount: kernel $kernel: $count instructions for 200,000 lookups ($((count / 200000)) per lookup)"
if [ "$update" = "--update" ]; then
    { grep -v "^$kernel " "$budget" 2>/dev/null || true; echo "$kernel $count"; } | sort >"$budget.new"
    mv "$budget.new" "$budget"
    echo "icount: budget for $kernel set to $count"
    exit 0
fi
want=$(awk -v k="$kernel" '$1 == k {print $2}' "$budget")
if [ -z "$want" ]; then
    echo "icount: no budget for kernel $kernel in $budget: add it with --update"
    echo "icount_check: 0 passed, 1 failed"
    exit 1
fi
if [ "$count" -gt $((want + want / 20)) ]; then
    echo "icount: REGRESSION: $count > budget $want + 5%"
    echo "icount_check: 0 passed, 1 failed"
    exit 1
fi
if [ "$count" -lt $((want - want / 10)) ]; then
    echo "icount: $count is more than 10% under the budget $want: lower it (--update)"
fi
echo "icount_check: 1 passed, 0 failed"
