#!/usr/bin/env bash
# fuzz/soak.sh -- the soak runs behind the hardening goals: many runs of the
# 4-thread build/decode test under TSan, and of watch/publish against every
# hostile server, counting crashes and hangs.
#
#   threads: RUNS separate runs of tests/test_threads (4 threads building
#            and decoding every strategy and compat mode; PLACER_THREAD_ROUNDS
#            as set, default 2) from a TSan build, each in the environment
#            meson test gives it (meson.build's test_env: halt_on_error for
#            every sanitizer, tests/tsan.supp; a fresh MALLOC_PERTURB_ per
#            run) and under a 300 s timeout (meson's) that counts as a hang.
#   hostile: tests/test_etcd_hostile.py with PLACER_HOSTILE_RUNS=BATCH until
#            RUNS hang-check runs per hostile server (trickle, stall, notetcd,
#            chunks) are done; each batch also runs the signal and secret
#            checks once. The test's own rule stands: a time bound missed by
#            under 2 s is retried once (it counts those "retried").
#
# --jobs J runs the threads soak in J streams at once (J <= 2 on a shared
# 2-core machine); --until TIME (date -d syntax, UTC: "05:40") starts no
# run or batch after TIME, and the summary says how many were reached.
# Every failing run's log is kept in OUT (default build-soak-logs/ in the
# source tree): threads-RUN.log, hostile-BATCH.log; the threads runs so far
# in threads-stream-J.tsv ("run exit seconds"), hostile retries in
# hostile-retried.log. One line per run that fails, one summary line per
# soak; exit 1 when any run failed, 2 on a usage error, 3 when the runs
# stopped (--until, or a signal) before the count, none failing. The machine is shared: the threads soak is CPU-bound (run it
# under nice -n 19); the hostile one checks wall-clock bounds (run it at
# normal priority, and re-run a failed case to tell a hang from starvation).
#
# usage: fuzz/soak.sh [--threads-runs N] [--hostile-runs N] [--batch B]
#                     [--jobs J] [--until TIME] [--tsan-build DIR]
#                     [--placer PATH] [--out DIR] [threads|hostile|all]
set -uo pipefail

usage() { sed -n '2,/^set /p' "$0" | sed '$d;s/^# \{0,1\}//'; }
root=$(cd "$(dirname "$0")/.." && pwd)
thread_runs=1000 hostile_runs=200 batch=20 jobs=1 until=
tsan_build=$root/build-tsan placer=$root/build/cli/placer out=$root/build-soak-logs
what=all
while [ $# -gt 0 ]; do
    case "$1" in
    --help|-h) usage; exit 0 ;;
    --threads-runs) thread_runs=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --hostile-runs) hostile_runs=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --batch) batch=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --jobs) jobs=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --until) until=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --tsan-build) tsan_build=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --placer) placer=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    --out) out=${2-}; shift 2 || { usage >&2; exit 2; } ;;
    threads|hostile|all) what=$1; shift ;;
    *) echo "soak.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for n in "$thread_runs" "$hostile_runs" "$batch" "$jobs"; do
    case "$n" in ''|*[!0-9]*|0) echo "soak.sh: counts must be positive integers, not '$n'" >&2; exit 2 ;; esac
done
deadline=0
if [ -n "$until" ]; then
    deadline=$(date -u -d "$until" +%s 2>/dev/null) || { echo "soak.sh: --until '$until' is not a time" >&2; exit 2; }
fi
mkdir -p "$out" || exit 2
status=0

# Is it past --until? (Checked before each run or batch: none starts after it.)
past_deadline() { [ "$deadline" != 0 ] && [ "$(date +%s)" -ge "$deadline" ]; }

# One stream of threads runs: runs j, j + jobs, ... up to thread_runs, each
# a line "run exit seconds" in $out/threads-stream-j.tsv (the count so far
# survives a kill), a failing run's log kept.
threads_stream() { # j
    local i rc t0 secs
    for ((i = $1; i <= thread_runs; i += jobs)); do
        past_deadline && break
        t0=$(date +%s.%N)
        env TSAN_OPTIONS="halt_on_error=1:suppressions=$root/tests/tsan.supp" \
            UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
            MALLOC_PERTURB_=$((RANDOM % 255 + 1)) \
            timeout 300 "$bin" >"$out/threads-run-$1.log" 2>&1
        rc=$?
        secs=$(echo "$(date +%s.%N) - $t0" | bc)
        if [ "$rc" != 0 ]; then
            mv "$out/threads-run-$1.log" "$out/threads-$i.log"
            echo "threads run $i: exit $rc after $(printf %.2f "$secs") s, log $out/threads-$i.log"
        fi
        echo "$i $rc $secs" >>"$out/threads-stream-$1.tsv"
    done
    rm -f "$out/threads-run-$1.log"
}

soak_threads() {
    bin=$tsan_build/tests/test_threads
    if [ ! -x "$bin" ]; then
        echo "soak.sh: no $bin (meson setup $tsan_build -Db_sanitize=thread -Db_lundef=false; ninja -C $tsan_build tests/test_threads)" >&2
        return 2
    fi
    if [ "$(nm "$bin" 2>/dev/null | grep -c __tsan_init)" = 0 ]; then
        echo "soak.sh: $bin is not a TSan build (-Db_sanitize=thread)" >&2
        return 2
    fi
    local j start=$SECONDS pids=()
    rm -f "$out"/threads-stream-*.tsv
    for ((j = 1; j <= jobs; j++)); do
        threads_stream "$j" &
        pids+=($!)
    done
    trap 'kill "${pids[@]}" 2>/dev/null' TERM INT
    wait "${pids[@]}"
    wait "${pids[@]}" 2>/dev/null # once more when a signal cut the first wait short
    trap - TERM INT
    cat "$out"/threads-stream-*.tsv 2>/dev/null | awk -v want="$thread_runs" -v wall=$((SECONDS - start)) \
        -v bin="$bin" -v jobs="$jobs" '
        { n++; if ($2 == 124) hung++; else if ($2 != 0) failed++; if ($3 > worst) worst = $3; sum += $3 }
        END {
            printf "soak threads: %d of %d runs, %d crashed or failed, %d hung (300 s), %d s wall," \
                " %d streams, mean run %.2f s, slowest %.2f s (%s)\n",
                n, want, failed, hung, wall, jobs, n ? sum / n : 0, worst, bin
            exit failed + hung ? 1 : n < want ? 3 : 0
        }'
}

soak_hostile() {
    if [ ! -x "$placer" ]; then
        echo "soak.sh: no placer program at $placer (--placer PATH)" >&2
        return 2
    fi
    local done_runs=0 b=0 n rc failed=0 failed_batches=0 retried=0 start=$SECONDS line log
    while [ "$done_runs" -lt "$hostile_runs" ] && ! past_deadline; do
        b=$((b + 1))
        n=$((hostile_runs - done_runs < batch ? hostile_runs - done_runs : batch))
        log=$out/hostile-$b.log
        PLACER_HOSTILE_RUNS=$n UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
            python3 "$root/tests/test_etcd_hostile.py" "$placer" >"$log" 2>&1
        rc=$?
        done_runs=$((done_runs + n))
        line=$(grep '^etcd_hostile:' "$log" | tail -1)
        retried=$((retried + $(grep -c '^slow once, retried:' "$log")))
        grep '^slow once, retried:' "$log" >>"$out/hostile-retried.log"
        if [ "$rc" != 0 ]; then
            failed_batches=$((failed_batches + 1))
            failed=$((failed + $(grep -c '^FAIL:' "$log")))
            echo "hostile batch $b (runs $((done_runs - n + 1))-$done_runs): exit $rc, log $log: ${line:-no summary}"
            grep '^FAIL:' "$log" | head -5
        else
            rm -f "$log"
        fi
    done
    echo "soak hostile: $done_runs of $hostile_runs runs per server in $b batches, $failed checks failed" \
        "in $failed_batches batches, $retried slow once and retried, $((SECONDS - start)) s wall ($placer)"
    [ "$failed_batches" = 0 ] || return 1
    [ "$done_runs" -ge "$hostile_runs" ] || return 3
}

case "$what" in
threads) soak_threads || status=$? ;;
hostile) soak_hostile || status=$? ;;
all) soak_threads || status=$?
     soak_hostile || { rc=$?; [ "$status" = 0 ] && status=$rc; } ;;
esac
exit "$status"
