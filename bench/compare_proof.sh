#!/usr/bin/env bash
# bench/compare_proof.sh [RUNS] [SLOWDOWN] -- how often bench/compare is
# wrong on this machine, measured: RUNS comparisons (default 20) of a build
# against itself (A/A: any benchmark flagged slower is a false positive) and
# RUNS of it against a build with a planted slowdown on the lookup path
# (meson option planted_slowdown=SLOWDOWN, default 20: SLOWDOWN/16 idle loop
# iterations per key in placer_lookup and placer_lookup_batch, engine/core/lookup.c;
# on the batch lookups of the default set, about 5.5 ns a key on the Zen 5 of
# bench/RESULTS.md, that measured 10% (26 measured 13%); on the dependent
# lookup, 28 ns a key, under 1%).
# The two kinds alternate, so the machine's load falls on both. Each run is
# bench/compare with its defaults (0.5 minutes on a quiet 2-core machine,
# 1.5-2.2 on a loaded one: 20 + 20 take 20 to 90 minutes).
#   $PROOF_DIR   where the two builds and every run's JSON go (default
#                build-proof/ in this tree; builds are reused when present)
#   $PROOF_ARGS  more bench/compare options for every run
#   $PROOF_SUMMARY_ONLY=1  build and run nothing: summarise the runs already
#                in $PROOF_DIR/runs (e.g. of a loop stopped early)
# Prints a run's verdict line as it finishes, then the false-positive rate
# (A/A runs flagging any benchmark slower), the detection rate (planted
# runs flagging any benchmark slower), and per benchmark the median ratio
# of the planted runs and how often each was flagged; writes them to
# $PROOF_DIR/summary.json. Exit status: 0 done; 2 usage, build or run error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-20} slowdown=${2:-20}
dir=${PROOF_DIR:-$root/build-proof}
die() { echo "bench/compare_proof.sh: $1" >&2; exit 2; }
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] || die "RUNS must be a positive number"
[[ $slowdown =~ ^[0-9]+$ ]] && [ "$slowdown" -ge 1 ] || die "SLOWDOWN must be a positive number"
mkdir -p "$dir/runs"
build() { # build FOLDER SLOWDOWN
    { [ -f "$1/build.ninja" ] || meson setup "$1" "$root" --buildtype=release -Dbench=enabled \
        -Dplanted_slowdown="$2"; } >"$1.log" 2>&1 &&
        meson configure "$1" -Dplanted_slowdown="$2" >>"$1.log" 2>&1 &&
        ninja -C "$1" bench/placer_bench >>"$1.log" 2>&1 || { tail -20 "$1.log" >&2; die "building $1 failed"; }
}
if [ -z "${PROOF_SUMMARY_ONLY:-}" ]; then
    build "$dir/base" 0
    build "$dir/planted" "$slowdown"
    read -ra extra <<<"${PROOF_ARGS:-}"
    one() { # one KIND INDEX B
        local out=$dir/runs/$1.$2.json status=0
        "$root/bench/compare" --quiet --json "$out" "${extra[@]}" "$dir/base" "$3" >"$out.txt" || status=$?
        [ "$status" -le 1 ] || { cat "$out.txt" >&2; die "bench/compare failed ($1, run $2)"; }
        echo "$1 $2/$runs: $(tail -1 "$out.txt")"
    }
    rm -f "$dir"/runs/*.json "$dir"/runs/*.txt
    for ((i = 1; i <= runs; i++)); do
        one aa "$i" "$dir/base"
        one planted "$i" "$dir/planted"
    done
fi
/usr/bin/env python3 - "$dir" "$runs" "$slowdown" <<'PY'
import glob, json, os, statistics, sys
d, runs, slowdown = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def load(kind):
    paths = glob.glob(os.path.join(d, "runs", kind + ".*.json"))
    return [json.load(open(p)) for p in sorted(paths, key=lambda p: int(p.rsplit(".", 2)[1]))]
aa, planted = load("aa"), load("planted")
if not aa or not planted:
    sys.exit("bench/compare_proof.sh: no runs to summarise in " + os.path.join(d, "runs"))
runs = min(len(aa), len(planted))
aa, planted = aa[:runs], planted[:runs]
per = {}
for r in planted:
    for b in r["benchmarks"]:
        e = per.setdefault(b["name"], {"ratios": [], "slower": 0, "detectable": []})
        e["ratios"].append(b["ratio"])
        e["slower"] += b["verdict"] == "slower"
        if b["detectable"] is not None:
            e["detectable"].append(b["detectable"])
aa_det = [b["detectable"] for r in aa for b in r["benchmarks"] if b["detectable"] is not None]
summary = {
    "runs": runs, "planted_slowdown": slowdown,
    "compare_options": {k: aa[0][k] for k in ("rounds", "repetitions", "min_time", "threshold", "alpha", "filter")},
    "aa_false_positives": sum(bool(r["slower"]) for r in aa), "aa_runs": len(aa),
    "planted_detected": sum(bool(r["slower"]) for r in planted), "planted_runs": len(planted),
    "aa_median_detectable": statistics.median(aa_det) if aa_det else None,
    "planted_benchmarks": {n: {"median_ratio": statistics.median(e["ratios"]), "flagged_slower": e["slower"],
                               "median_detectable": statistics.median(e["detectable"]) if e["detectable"] else None}
                           for n, e in sorted(per.items())},
}
with open(os.path.join(d, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)
    f.write("\n")
print(f"A/A: {summary['aa_false_positives']} of {len(aa)} runs flagged a benchmark slower (false positives)")
print(f"planted slowdown {slowdown}: {summary['planted_detected']} of {len(planted)} runs flagged a benchmark slower")
for n, e in summary["planted_benchmarks"].items():
    det = "-" if e["median_detectable"] is None else f"{100 * e['median_detectable']:.1f}%"
    print(f"  {n}: median B/A {e['median_ratio']:.3f}, flagged slower in {e['flagged_slower']}, median detectable {det}")
PY
