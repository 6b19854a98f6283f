#!/usr/bin/env bash
# fuzz/campaign.sh [--afl] [--runs N] [--out DIR] [--merge] [TARGET[,TARGET...]|all] [MINUTES]
# -- a recorded fuzz campaign.
# Each target (default: all, one after another) runs MINUTES (default 10),
# or with --runs until it has executed N inputs (MINUTES then bounds it),
# on one core with its checked-in corpus (fuzz/corpus/TARGET) and its
# dictionary when it has one (fuzz/dict/TARGET.dict: membership JSON tokens,
# snapshot magic and section tags).
# Everything it writes goes to DIR (--out, default ./fuzz-out of the current
# directory): DIR/TARGET/corpus is the checked-in corpus plus the inputs
# that added coverage (libFuzzer -merge=1: only new coverage goes in),
# DIR/TARGET/findings what failed, DIR/results.tsv one line per target.
# The checked-in corpora are read, never written, unless --merge: then the
# inputs that added coverage also go into fuzz/corpus/TARGET (to commit).
# One line per target: executions, executions per second of wall time and
# per CPU-second (the fair figure on a shared machine), coverage (edges
# and features) before and after, corpus files added, findings.
# A finding (crash, leak, timeout, out of memory) is kept in
# DIR/TARGET/findings and the script exits 1.
#   libFuzzer (default): build-fuzz/, clang, ASan + UBSan (fuzz/run.sh's build).
#   --afl: AFL++ (afl-fuzz, MINUTES per target, on the build of
#          fuzz/build_external.sh --afl); its queue is merged through the
#          libFuzzer build. Every target: fuzz/campaign.sh --afl all 5
# Only the targets named are built. The machine is shared: run it as
# `nice -n 19 taskset -c 1 fuzz/campaign.sh ...` in the background; two at
# once (taskset -c 0 and -c 1, disjoint target lists, the same --out) use
# both cores once the builds exist.
set -euo pipefail
usage() { echo "usage: fuzz/campaign.sh [--afl] [--runs N] [--out DIR] [--merge] [TARGET[,TARGET...]|all] [MINUTES]" >&2; exit 1; }
afl=0 runs=0 merge=0 out=$PWD/fuzz-out
while [ $# -gt 0 ]; do
    case "$1" in
    --afl) afl=1; shift ;;
    --merge) merge=1; shift ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    --runs=*) runs=${1#--runs=}; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -*) usage ;;
    *) break ;;
    esac
done
which=${1:-all}
minutes=${2:-10}
case "$minutes" in ''|*[!0-9]*) usage ;; esac
case "$runs" in ''|*[!0-9]*) usage ;; esac
[ "$afl" = 1 ] && [ "$runs" != 0 ] && { echo "campaign.sh: --runs is for libFuzzer (AFL++ runs for MINUTES)" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$out")
case "$out/" in "$root/fuzz/corpus/"*) echo "campaign.sh: --out inside fuzz/corpus/ (use --merge to add to the corpora)" >&2; exit 1 ;; esac
mkdir -p "$out"
if [ "$which" = all ]; then
    targets=()
    for f in "$root"/fuzz/fuzz_*.c; do n=$(basename "$f" .c); targets+=("${n#fuzz_}"); done
else
    IFS=, read -r -a targets <<<"$which"
fi
for t in "${targets[@]}"; do
    [ -f "$root/fuzz/fuzz_$t.c" ] || { echo "campaign.sh: no target '$t'" >&2; exit 1; }
done
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
if [ ! -f "$build/build.ninja" ]; then
    CC=clang CXX=clang++ meson setup "$build" "$root" \
        -Dfuzzing_engine=libfuzzer -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dbench=disabled -Dtests=false >/dev/null
fi
ninja -C "$build" "${targets[@]/#/fuzz/fuzz_}" >/dev/null
afl_out=${EXT_BUILD_DIR:-$root/build-afl}/out
[ "$afl" = 1 ] && OUT=$afl_out "$root/fuzz/build_external.sh" --afl >/dev/null
secs=$((minutes * 60))
status=0

# Edges and features the libFuzzer build reaches on a corpus directory.
coverage() { # TARGET DIR
    "$build/fuzz/fuzz_$1" -runs=0 "$2" 2>&1 | awk '/INITED/ {for (i = 1; i <= NF; i++) {if ($i == "cov:") c = $(i+1); if ($i == "ft:") f = $(i+1)}} END {print (c ? c : 0) " " (f ? f : 0)}'
}

for t in "${targets[@]}"; do
    exe=$build/fuzz/fuzz_$t
    corpus=$root/fuzz/corpus/$t
    dict=$root/fuzz/dict/$t.dict
    work=$out/$t
    rm -rf "$work"
    mkdir -p "$work/new" "$work/findings" "$work/corpus"
    cp -R "$corpus"/. "$work/corpus/"
    read -r cov0 ft0 < <(coverage "$t" "$corpus")
    files0=$(ls "$corpus" | wc -l)
    if [ "$afl" = 0 ]; then
        dictarg=()
        [ -f "$dict" ] && dictarg=(-dict="$dict")
        runarg=()
        [ "$runs" != 0 ] && runarg=(-runs="$runs")
        (cd "$work" && /usr/bin/time -f '%U %S' -o "$work/cpu" \
            "$exe" -max_total_time="$secs" "${runarg[@]}" -print_final_stats=1 -timeout=25 \
            -artifact_prefix="$work/findings/" "${dictarg[@]}" "$work/new" "$corpus" >"$work/log" 2>&1) || true
        execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$work/log")
        rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$work/log")
        cpurate=$(awk -v n="${execs:-0}" 'END {c = $1 + $2; print (c > 0 ? int(n / c) : 0)}' "$work/cpu" 2>/dev/null || echo 0)
        newdirs=("$work/new")
        engine=libfuzzer
    else
        dictarg=()
        [ -f "$dict" ] && dictarg=(-x "$dict")
        # -V bounds the fuzzing; timeout also bounds the seeds' dry run.
        AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
            timeout $((secs + 120)) afl-fuzz -i "$corpus" -o "$work/afl" -V "$secs" -t 25000 "${dictarg[@]}" \
            -- "$afl_out/fuzz_$t" >"$work/log" 2>&1 || true
        st=$work/afl/default/fuzzer_stats
        execs=$(awk -F: '/^execs_done/ {gsub(/ /, "", $2); print $2}' "$st" 2>/dev/null || echo 0)
        rate=$(awk -F: '/^execs_per_sec/ {gsub(/ /, "", $2); print $2}' "$st" 2>/dev/null || echo 0)
        cpurate=-
        for f in "$work"/afl/default/crashes/id* "$work"/afl/default/hangs/id*; do
            [ -e "$f" ] && cp "$f" "$work/findings/"
        done
        newdirs=("$work/afl/default/queue")
        engine=afl++
    fi
    # Keep only what adds coverage (the corpus first: it keeps everything it has).
    "$exe" -merge=1 "$work/corpus" "${newdirs[@]}" >"$work/merge.log" 2>&1 || true
    [ "$merge" = 1 ] && { "$exe" -merge=1 "$corpus" "${newdirs[@]}" >>"$work/merge.log" 2>&1 || true; }
    read -r cov1 ft1 < <(coverage "$t" "$work/corpus")
    files1=$(ls "$work/corpus" | wc -l)
    findings=$(ls "$work/findings" | wc -l)
    [ "$findings" -gt 0 ] && status=1
    line="$(date -u +%FT%TZ)	$engine	$t	${minutes}min	runs=${runs}	execs=${execs:-0}	exec/s=${rate:-0}	exec/cpu-s=${cpurate:-0}	cov=$cov0->$cov1	ft=$ft0->$ft1	corpus=$files0->$files1	findings=$findings"
    echo "$line"
    echo "$line" >>"$out/results.tsv"
    [ "$findings" -gt 0 ] && echo "  findings in $work/findings (replay: $exe FILE)"
done
[ "$merge" = 1 ] && echo "campaign.sh: new inputs merged into fuzz/corpus/ (git status shows them)"
echo "campaign.sh: corpora and logs in $out"
exit $status
