#!/usr/bin/env bash
# fuzz/coverage.sh [--build DIR] [TARGET...] -- which lines of libplacer and
# libplacer-control the checked-in corpora reach.
# Builds the fuzz targets with clang's source coverage
# (-fprofile-instr-generate -fcoverage-mapping) and the plain replay main
# (fuzz/replay_main.c), in build-cov/ (or --build DIR); runs each target
# (default: every one) once over fuzz/corpus/TARGET; merges the profiles
# with llvm-profdata and reads them with llvm-cov (Debian's llvm).
# The shared libraries are read too, so a function no target links still
# counts, as a line not reached.
# fuzz/coverage_summary.py then prints, for each library, the share of its
# lines reached; the kernels of instruction sets this CPU lacks and the
# allocation-failure paths are counted apart (its docstring says how they
# are told), and the unreached lines are listed by file.
# Output: the table on stdout; build-cov/coverage/ keeps the merged
# profile, coverage.lcov and unreached.txt (every unreached line).
# An HTML view: llvm-cov show -format=html -instr-profile
#   build-cov/coverage/merged.profdata build-cov/engine/libplacer.so ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-cov
if [ "${1:-}" = --build ]; then
    [ $# -ge 2 ] || { echo "usage: fuzz/coverage.sh [--build DIR] [TARGET...]" >&2; exit 2; }
    build=$2
    shift 2
fi
for tool in clang llvm-profdata llvm-cov python3; do
    command -v "$tool" >/dev/null || { echo "coverage.sh: $tool missing (scripts/setup.sh installs it)" >&2; exit 2; }
done
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$root"/fuzz/fuzz_*.c; do n=$(basename "$f" .c); targets+=("${n#fuzz_}"); done
fi
if [ ! -f "$build/build.ninja" ]; then
    flags='-fprofile-instr-generate -fcoverage-mapping'
    # meson runs instrumented checks while it configures: their profiles
    # are not the corpora's and go nowhere
    LLVM_PROFILE_FILE=/dev/null CC=clang CXX=clang++ meson setup "$build" "$root" -Dbuildtype=debugoptimized \
        -Dc_args="$flags" -Dcpp_args="$flags" -Dc_link_args="$flags" -Dcpp_link_args="$flags" \
        -Djemalloc=disabled -Dbench=disabled -Dtests=true -Dfuzzing_engine=none >/dev/null
fi
ninja_targets=(engine/libplacer.so.0.1.0 control/libplacer-control.so.0.1.0)
for t in "${targets[@]}"; do ninja_targets+=("fuzz/fuzz_$t"); done
ninja -C "$build" "${ninja_targets[@]}" >/dev/null
out=$build/coverage
rm -rf "$out"
mkdir -p "$out/raw"
objects=("$build/engine/libplacer.so.0.1.0" -object "$build/control/libplacer-control.so.0.1.0")
for t in "${targets[@]}"; do
    [ -d "$root/fuzz/corpus/$t" ] || { echo "coverage.sh: no corpus fuzz/corpus/$t" >&2; exit 2; }
    LLVM_PROFILE_FILE="$out/raw/$t.profraw" "$build/fuzz/fuzz_$t" "$root/fuzz/corpus/$t" >"$out/raw/$t.log" 2>&1 ||
        { echo "coverage.sh: fuzz_$t failed on its corpus (log: $out/raw/$t.log)" >&2; exit 1; }
    objects+=(-object "$build/fuzz/fuzz_$t")
done
llvm-profdata merge -sparse -o "$out/merged.profdata" "$out"/raw/*.profraw
llvm-cov export -format=lcov -instr-profile "$out/merged.profdata" "${objects[@]}" >"$out/coverage.lcov"
python3 "$root/fuzz/coverage_summary.py" "$root" "$out/coverage.lcov" "$out/unreached.txt"
